// SPDX-License-Identifier: GPL-2.0
/*
 * The canonical tuner's input: a simulated profiling run, and the
 * canonical weights of the BWAP paper's Eq. 2 and 5.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

/* Relative noise: a factor around 1 that never goes negative. */
double bwm_noise_factor(struct bwm_rng *rng, double noise)
{
	double f;

	if (!(noise > 0) || !rng)
		return 1;
	f = 1 + noise * bwm_rng_normal(rng);
	return f > 0 ? f : 0;
}

/*
 * As the benchmark does it (userspace/bwapd/bench.c): one phase per
 * memory node, all workers reading that node only, for an equal share of
 * the time.  In the phase of node j, every (j, worker) transfer is a flow
 * of its own, capped by its path; the flows share node j's controller and
 * the links their routes have in common, and a remote flow has its
 * worker's interconnect to itself (model.md, "profiling run").  Reading every node at once would let the remote
 * flows into a worker split its interconnect evenly and hide how the
 * paths differ.
 */
int bwm_profile_run(const struct bwm_machine *m, uint32_t workers,
		    double seconds, double noise, struct bwm_rng *rng,
		    struct bwm_profile *out)
{
	double coef[(1 + BWM_MAX_NODES + BWM_MAX_LINKS) * BWM_MAX_NODES];
	double cap[BWM_MAX_NODES], x[BWM_MAX_NODES];
	int wnode[BWM_MAX_NODES];
	int n = m->nr_nodes, nw = 0, nr, j, k;
	double phase;

	if (!(seconds > 0) || !workers || (workers >> n) || !(noise >= 0))
		return -EINVAL;
	for (j = 0; j < n; j++) {
		if (!(workers & (1u << j)))
			continue;
		if (!m->node[j].cpus)
			return -EINVAL;
		wnode[nw++] = j;
	}
	memset(out, 0, sizeof(*out));
	out->workers = workers;
	out->seconds = seconds;
	phase = seconds / n;
	nr = 1 + nw + m->nr_links;
	for (j = 0; j < n; j++) {
		memset(coef, 0, sizeof(double) * (size_t)nw * nr);
		for (k = 0; k < nw; k++) {
			int c = wnode[k], l;
			double in = m->node[c].interconnect_gbps;

			cap[k] = m->read_gbps[j][c];
			coef[k] = 1 / m->node[j].ctrl_read_gbps;
			if (in > 0 && j != c)
				coef[(size_t)(1 + k) * nw + k] = 1 / in;
			for (l = 0; l < m->nr_links; l++)
				if (j != c && (m->route[j][c] & (1ull << l)))
					coef[(size_t)(1 + nw + l) * nw + k] =
						1 / m->link[l].gbps;
		}
		bwm_maxmin_fill(nw, cap, nr, coef, x);
		for (k = 0; k < nw; k++) {
			double b = x[k] * 1e9 * phase *
				   bwm_noise_factor(rng, noise);

			out->bytes[j][wnode[k]] = b;
			out->bw[j][wnode[k]] = b / phase / 1e9;
		}
	}
	return 0;
}

/*
 * Each flow is a workload of its own bound to its CPU node, with its
 * pages spread evenly over its nodes: a streaming thread is never bound
 * by its core (its demand is far above any path) but by the lines it
 * keeps in flight over the loaded latency, a chasing thread keeps one.
 * The machine's prediction of them running together is the answer.
 */
static int bench_flows(const struct bwm_machine *m, int nf,
		       const struct bwm_flow *f, double noise,
		       struct bwm_rng *rng, struct bwm_flow_result *r,
		       double *ctrl_util, double *link_util)
{
	struct bwm_workload wl[BWM_MAX_CORUN];
	struct bwm_placement pl[BWM_MAX_CORUN];
	struct bwm_prediction pred[BWM_MAX_CORUN];
	const struct bwm_workload *wp[BWM_MAX_CORUN];
	const struct bwm_placement *pp[BWM_MAX_CORUN];
	uint32_t used = 0;
	int n = m->nr_nodes, i, j, ret;

	if (nf < 1 || nf > BWM_MAX_CORUN || !(noise >= 0) || (noise > 0 && !rng))
		return -EINVAL;
	for (i = 0; i < nf; i++) {
		double frac[BWM_MAX_NODES] = { 0 };
		int c = f[i].cpu, k = __builtin_popcount(f[i].mem);

		if (c < 0 || c >= n || !m->node[c].cpus || (used & (1u << c)) ||
		    !k || (f[i].mem >> n))
			return -EINVAL;
		used |= 1u << c;
		memset(&wl[i], 0, sizeof(wl[i]));
		snprintf(wl[i].name, sizeof(wl[i].name), "flow %d", i);
		wl[i].workers = 1u << c;
		wl[i].threads[c] = f[i].chase ? 1 : m->node[c].cpus;
		wl[i].demand_gbps = 1e6;
		wl[i].mlp = f[i].chase ? 1 : BWM_BENCH_MLP;
		wl[i].shared = 1;
		wl[i].read = f[i].write ? 0 : 1;
		wl[i].work_gb = 1;
		wl[i].first_touch_node = -1;
		for (j = 0; j < n; j++)
			if (f[i].mem & (1u << j))
				frac[j] = 1.0 / k;
		bwm_placement_interleave(&pl[i], n, frac);
		wp[i] = &wl[i];
		pp[i] = &pl[i];
	}
	ret = bwm_predict_corun(m, nf, wp, pp, pred);
	if (ret)
		return ret;
	for (i = 0; i < nf; i++) {
		double lat = 0;
		int c = f[i].cpu, k = __builtin_popcount(f[i].mem);

		for (j = 0; j < n; j++)
			if (f[i].mem & (1u << j))
				lat += pred[i].latency_ns[j][c] / k;
		r[i].gbps = pred[i].throughput_gbps * bwm_noise_factor(rng, noise);
		r[i].latency_ns = lat * bwm_noise_factor(rng, noise);
	}
	if (ctrl_util)
		memcpy(ctrl_util, pred[0].ctrl_util, sizeof(double) * n);
	if (link_util)
		memcpy(link_util, pred[0].link_util,
		       sizeof(double) * m->nr_links);
	return 0;
}

int bwm_bench_flows(const struct bwm_machine *m, int nf,
		    const struct bwm_flow *f, double noise,
		    struct bwm_rng *rng, struct bwm_flow_result *r)
{
	return bench_flows(m, nf, f, noise, rng, r, NULL, NULL);
}

int bwm_bench_flows_load(const struct bwm_machine *m, int nf,
			 const struct bwm_flow *f, struct bwm_flow_result *r,
			 double *ctrl_util, double *link_util)
{
	return bench_flows(m, nf, f, 0, NULL, r, ctrl_util, link_util);
}

/*
 * A phase of the profiling run as the benchmark's threads run it: every
 * worker node's cores stream loads from node 'node', each node's threads
 * a flow (bench_flows()).  Where they cannot keep a path full, too few
 * lines in flight for its loaded latency, they get less than the ideal
 * run above gives; a real profile counts what they get.
 */
int bwm_bench_phase(const struct bwm_machine *m, uint32_t workers, int node,
		    double noise, struct bwm_rng *rng, double *gbps)
{
	struct bwm_flow f[BWM_MAX_CORUN];
	struct bwm_flow_result r[BWM_MAX_CORUN];
	int n = m->nr_nodes, nf = 0, c, ret;

	if (!workers || (workers >> n) || node < 0 || node >= n)
		return -EINVAL;
	memset(f, 0, sizeof(f));
	for (c = 0; c < n; c++) {
		gbps[c] = 0;
		if (!(workers & (1u << c)))
			continue;
		f[nf].cpu = c;
		f[nf++].mem = 1u << node;
	}
	ret = bench_flows(m, nf, f, noise, rng, r, NULL, NULL);
	if (ret)
		return ret;
	for (c = 0; c < nf; c++)
		gbps[f[c].cpu] = r[c].gbps;
	return 0;
}

int bwm_profile_bench(const struct bwm_machine *m, uint32_t workers,
		      double seconds, double noise, struct bwm_rng *rng,
		      struct bwm_profile *out)
{
	int n = m->nr_nodes, j, c, ret;
	double phase = seconds / n;

	if (!(seconds > 0))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->workers = workers;
	out->seconds = seconds;
	for (j = 0; j < n; j++) {
		ret = bwm_bench_phase(m, workers, j, noise, rng, out->bw[j]);
		if (ret)
			return ret;
		for (c = 0; c < n; c++)
			out->bytes[j][c] = out->bw[j][c] * 1e9 * phase;
	}
	return 0;
}

int bwm_bench_canonical(const struct bwm_machine *m, uint32_t workers,
			double *frac)
{
	struct bwm_profile prof;
	int ret = bwm_profile_bench(m, workers, 1, 0, NULL, &prof);

	return ret ? ret : bwm_canonical_fractions(prof.bw, m->nr_nodes,
						   workers, frac);
}

int bwm_canonical_fractions(const double bw[BWM_MAX_NODES][BWM_MAX_NODES],
			    int nr_nodes, uint32_t workers, double *frac)
{
	double sum = 0;
	int i, w;

	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES || !workers ||
	    (workers >> nr_nodes))
		return -EINVAL;
	for (i = 0; i < nr_nodes; i++) {
		double minbw = INFINITY;

		for (w = 0; w < nr_nodes; w++)
			if (workers & (1u << w))
				minbw = fmin(minbw, bw[i][w]);
		if (!(minbw >= 0))
			return -EINVAL;
		frac[i] = minbw;
		sum += minbw;
	}
	if (!(sum > 0))
		return -EINVAL;
	for (i = 0; i < nr_nodes; i++)
		frac[i] /= sum;
	return 0;
}

/* splitmix64: small state, good enough for noise. */
void bwm_rng_seed(struct bwm_rng *rng, uint64_t seed)
{
	rng->state = seed;
}

uint64_t bwm_rng_next(struct bwm_rng *rng)
{
	uint64_t z = (rng->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double bwm_rng_uniform(struct bwm_rng *rng)
{
	return (double)(bwm_rng_next(rng) >> 11) * 0x1.0p-53;
}

double bwm_rng_normal(struct bwm_rng *rng)
{
	double u1 = 1 - bwm_rng_uniform(rng);	/* (0, 1] */
	double u2 = bwm_rng_uniform(rng);

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}
