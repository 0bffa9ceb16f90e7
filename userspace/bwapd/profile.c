// SPDX-License-Identifier: GPL-2.0
/*
 * The canonical tuner (BWAP section III-A): per worker set, estimate
 * bw(node i -> worker w) and make node i's weight proportional to the
 * weakest of those paths (Eq. 5).
 *
 * The estimate comes from a profiling run: the backend's bandwidth
 * benchmark reads pages interleaved uniformly over all nodes from every
 * CPU of the workers, one node's pages at a time, while the memory
 * controller counters measure what that node serves.  The counters see all traffic a node serves (also
 * prefetches and the benchmark's own overheads), but not who asked for
 * it; the benchmark's own per-worker counts split each node's traffic
 * between the workers.  Without counters: HMAT, then SLIT.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "profile.h"

const char *bwapd_source_name(enum bwapd_source s)
{
	switch (s) {
	case BWAPD_SRC_COUNTERS:
		return "counters";
	case BWAPD_SRC_HMAT:
		return "hmat";
	case BWAPD_SRC_SLIT:
		return "slit";
	}
	return "?";
}

int bwapd_have_hmat(const struct bwapd_topology *t)
{
	int i;

	for (i = 0; i < t->nr_nodes; i++)
		if ((t->mem_nodes & (1u << i)) && !t->node[i].initiators)
			return 0;
	return 1;
}

/*
 * HMAT access class 0 gives one figure per memory node: what its best
 * initiators get.  Farther workers get it scaled by the SLIT distance
 * ratio (bandwidth falls as distance grows); upstream Linux's automatic
 * weights use the same per-node figure, min(read, write).
 */
static void estimate_hmat(const struct bwapd_topology *t,
			  double bw[BWM_MAX_NODES][BWM_MAX_NODES])
{
	int i, w, k;

	for (i = 0; i < t->nr_nodes; i++) {
		const struct bwapd_node *n = &t->node[i];
		double b = n->read_bw;
		int d0 = 255;

		if (n->write_bw && n->write_bw < b)
			b = n->write_bw;
		for (k = 0; k < t->nr_nodes; k++)
			if ((n->initiators & (1u << k)) &&
			    t->node[k].distance[i] < d0)
				d0 = t->node[k].distance[i];
		for (w = 0; w < t->nr_nodes; w++)
			bw[i][w] = (t->mem_nodes & (1u << i)) ?
				   b / 1000 * d0 / t->node[w].distance[i] : 0;
	}
}

/* Relative bandwidth 10 / distance (local = 1). */
static void estimate_slit(const struct bwapd_topology *t,
			  double bw[BWM_MAX_NODES][BWM_MAX_NODES])
{
	int i, w;

	for (i = 0; i < t->nr_nodes; i++)
		for (w = 0; w < t->nr_nodes; w++)
			bw[i][w] = (t->mem_nodes & (1u << i)) ?
				   10.0 / t->node[w].distance[i] : 0;
}

/* One node's phase: counters read right before and right after it. */
static int phase(struct bwapd_backend *b, int node, double seconds,
		 const struct bwapd_profile_opts *o, double *done,
		 double *ctrl)
{
	uint64_t r0, w0, r1, w1;
	double t = 0;
	int ret;

	ret = b->ops->ctrl_bytes(b, node, &r0, &w0);
	while (!ret && t < seconds - 1e-9) {
		double step = fmin(0.1, seconds - t);

		ret = b->ops->bench_run(b, node, step);
		t += step;
		*done += step;
		if (!ret && o->progress)
			o->progress(o->progress_arg, *done);
	}
	if (!ret)
		ret = b->ops->ctrl_bytes(b, node, &r1, &w1);
	if (!ret)
		*ctrl = (double)(r1 - r0) + (double)(w1 - w0);
	return ret;
}

/*
 * The profiling run: the array is initialised before any counter is
 * read; then one phase per memory node, in which only that node's pages
 * are read, its bandwidth = the bytes its controllers moved in the phase
 * / the phase's time.
 */
static int measure(struct bwapd_backend *b, const struct bwapd_topology *t,
		   uint32_t workers, const struct bwapd_profile_opts *o,
		   double bw[BWM_MAX_NODES][BWM_MAX_NODES])
{
	double ctrl[BWAPD_MAX_NODES] = { 0 }, done = 0, each;
	struct bwapd_bench_result br;
	int i, w, ret;

	each = o->seconds / __builtin_popcount(t->mem_nodes);
	ret = b->ops->bench_start(b, workers);
	if (ret)
		return ret;
	for (i = 0; !ret && i < t->nr_nodes; i++)
		if (t->mem_nodes & (1u << i))
			ret = phase(b, i, each, o, &done, &ctrl[i]);
	i = b->ops->bench_stop(b, &br);
	if (ret || i)
		return ret ? ret : i;

	for (i = 0; i < t->nr_nodes; i++) {
		double tot = 0;

		for (w = 0; w < t->nr_nodes; w++) {
			bw[i][w] = 0;
			tot += br.bytes[i][w];
		}
		if (!(t->mem_nodes & (1u << i)))
			continue;
		if (!(tot > 0) || !(br.busy_s[i] > 0) || !(ctrl[i] > 0))
			return -EIO;
		for (w = 0; w < t->nr_nodes; w++)
			bw[i][w] = ctrl[i] * br.bytes[i][w] / tot /
				   br.busy_s[i] / 1e9;
	}
	return 0;
}

int bwapd_profile_set(struct bwapd_backend *b, const struct bwapd_topology *t,
		      uint32_t workers, int counters_ok,
		      const struct bwapd_profile_opts *o,
		      struct bwapd_result *r)
{
	double bw[BWM_MAX_NODES][BWM_MAX_NODES];
	int i, w, ret;

	if (!workers || (workers & t->cpu_nodes) != workers)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->workers = workers;
	r->same_as = workers;
	if (counters_ok && !o->no_counters) {
		ret = measure(b, t, workers, o, bw);
		if (ret)
			return ret;
		r->source = BWAPD_SRC_COUNTERS;
		r->seconds = o->seconds;
	} else if (bwapd_have_hmat(t)) {
		estimate_hmat(t, bw);
		r->source = BWAPD_SRC_HMAT;
	} else {
		estimate_slit(t, bw);
		r->source = BWAPD_SRC_SLIT;
	}
	for (i = 0; i < t->nr_nodes; i++) {
		r->minbw[i] = INFINITY;
		for (w = 0; w < t->nr_nodes; w++)
			if (workers & (1u << w))
				r->minbw[i] = fmin(r->minbw[i], bw[i][w]);
	}
	ret = bwm_canonical_fractions(bw, t->nr_nodes, workers, r->frac);
	if (ret)
		return ret;
	return bwapd_result_finish(t, o->u8_err, r);
}

int bwapd_result_finish(const struct bwapd_topology *t, double u8_err,
			struct bwapd_result *r)
{
	int i, ret;

	ret = bwm_fractions_to_u8(r->frac, t->nr_nodes, u8_err, r->weights,
				  &r->u8_err);
	if (ret < 0)
		return ret;
	r->cycle = 0;
	for (i = 0; i < t->nr_nodes; i++)
		r->cycle += r->weights[i];
	return 0;
}

void bwapd_result_permute(const struct bwapd_result *from,
			  const struct bwapd_set *s, int nr_nodes,
			  struct bwapd_result *to)
{
	int i;

	*to = *from;
	to->workers = s->workers;
	to->same_as = from->workers;
	for (i = 0; i < nr_nodes; i++) {
		to->minbw[i] = from->minbw[s->map[i]];
		to->frac[i] = from->frac[s->map[i]];
		to->weights[i] = from->weights[s->map[i]];
	}
}

double bwapd_profile_set_seconds(int nr, double seconds, int given)
{
	if (given || nr <= 0 || nr * seconds <= BWAPD_SETS_SECONDS)
		return seconds;
	return fmax(BWAPD_SET_MIN_SECONDS, BWAPD_SETS_SECONDS / nr);
}
