// SPDX-License-Identifier: GPL-2.0
/*
 * A workload of the model page by page: the access trace its shared and
 * private traffic would leave, the placement a page mapping gives it,
 * and the data mapping policies of Diener et al. evaluated on it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* Accesses drawn for a page of average heat. */
#define DRAWS_PER_PAGE	64
/* Spread of page heat: log-normal with this sigma. */
#define HEAT_SIGMA	0.5

int bwm_workload_thread_node(const struct bwm_workload *wl, int t)
{
	int j;

	for (j = 0; j < BWM_MAX_NODES; j++) {
		if (t < wl->threads[j])
			return j;
		t -= wl->threads[j];
	}
	return -1;
}

/* Scale the accesses of pages [from, to) so that they sum to want. */
static void scale(struct bwm_page *p, long from, long to, int nr_nodes,
		  double want)
{
	double have = 0;
	long i;
	int n;

	for (i = from; i < to; i++)
		for (n = 0; n < nr_nodes; n++)
			have += p[i].acc[n];
	if (!(have > 0))
		return;
	for (i = from; i < to; i++)
		for (n = 0; n < nr_nodes; n++)
			p[i].acc[n] *= want / have;
}

int bwm_workload_pages(const struct bwm_machine *m,
		       const struct bwm_workload *wl, long pages,
		       uint64_t seed, struct bwm_page *out)
{
	int nr = m->nr_nodes, T = bwm_workload_nr_threads(wl);
	int ft = bwm_workload_first_touch(wl);
	long nshared, npriv, i, next;
	double total = (double)pages * DRAWS_PER_PAGE;
	struct bwm_rng rng;
	int t, n, ret;

	ret = bwm_workload_check(m, wl, NULL);
	if (ret)
		return ret;
	if (pages < 1 || T < 1 || pages < T + (wl->shared > 0))
		return -EINVAL;
	nshared = lround(pages * wl->shared);
	if (wl->shared > 0 && nshared < 1)
		nshared = 1;
	if (wl->shared < 1 && nshared > pages - T)
		nshared = pages - T;
	npriv = pages - nshared;
	bwm_rng_seed(&rng, seed);
	memset(out, 0, sizeof(*out) * pages);
	/* shared pages: each access from a thread drawn at random */
	for (i = 0; i < nshared; i++) {
		double heat = exp(HEAT_SIGMA * bwm_rng_normal(&rng));
		long d, draws = lround(DRAWS_PER_PAGE * heat);

		out[i].addr = i;
		out[i].first_node = ft;
		out[i].node = -1;
		for (d = 0; d < (draws > 0 ? draws : 1); d++) {
			t = (int)(bwm_rng_next(&rng) % (uint64_t)T);
			out[i].acc[bwm_workload_thread_node(wl, t)] += 1;
		}
	}
	scale(out, 0, nshared, nr, total * wl->shared);
	/* private pages: a block per thread, same traffic for each thread */
	next = nshared;
	for (t = 0; t < T; t++) {
		long mine = npriv / T + (t < npriv % T), from = next;

		n = bwm_workload_thread_node(wl, t);
		for (i = 0; i < mine; i++, next++) {
			out[next].addr = next;
			out[next].first_node = n;
			out[next].node = -1;
			out[next].acc[n] = exp(HEAT_SIGMA *
					       bwm_rng_normal(&rng));
		}
		scale(out, from, next, nr, total * (1 - wl->shared) / T);
	}
	return (int)nshared;
}

int bwm_pages_placement(const struct bwm_page *p, long n, int nr_nodes,
			const struct bwm_workload *wl,
			struct bwm_placement *pl, struct bwm_workload *flat)
{
	double row[BWM_MAX_NODES];
	long i;
	int c, j;

	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES)
		return -EINVAL;
	memset(pl, 0, sizeof(*pl));
	for (j = 0; j < nr_nodes; j++)
		pl->shared[j] = 1.0 / nr_nodes;		/* carries nothing */
	for (c = 0; c < nr_nodes; c++) {
		double sum = 0;

		if (!(wl->workers & (1u << c)))
			continue;
		memset(row, 0, sizeof(row));
		for (i = 0; i < n; i++) {
			if (p[i].node < 0 || p[i].node >= nr_nodes)
				return -EINVAL;
			row[p[i].node] += p[i].acc[c];
			sum += p[i].acc[c];
		}
		if (!(sum > 0))
			return -EINVAL;
		for (j = 0; j < nr_nodes; j++)
			pl->priv[c][j] = row[j] / sum;
	}
	*flat = *wl;
	flat->shared = 0;
	return 0;
}

int bwm_evaluate_mappings(const struct bwm_machine *m,
			  const struct bwm_workload *wl,
			  const struct bwm_page *pages, long n,
			  double min_excl, uint64_t seed,
			  struct bwm_mapping_result out[BWM_NR_MAPPINGS])
{
	struct bwm_page *p = malloc(sizeof(*p) * (n ? n : 1));
	struct bwm_workload flat;
	struct bwm_placement pl;
	struct bwm_rng rng;
	int k, ret = 0;

	if (!p)
		return -ENOMEM;
	bwm_rng_seed(&rng, seed);
	for (k = 0; k < BWM_NR_MAPPINGS && !ret; k++) {
		double gbps;

		memcpy(p, pages, sizeof(*p) * n);
		ret = bwm_map_pages(p, n, m->nr_nodes, k, min_excl, &rng);
		if (!ret)
			ret = bwm_access_metrics(p, n, m->nr_nodes,
						 &out[k].metrics);
		if (!ret)
			ret = bwm_pages_placement(p, n, m->nr_nodes, wl, &pl,
						  &flat);
		if (ret)
			break;
		gbps = bwm_predict_throughput(m, &flat, &pl);
		if (gbps < 0)
			ret = (int)gbps;
		out[k].throughput_gbps = gbps;
	}
	free(p);
	if (ret)
		return ret;
	for (k = 0; k < BWM_NR_MAPPINGS; k++)
		out[k].speedup = out[k].throughput_gbps /
				 out[BWM_MAP_FIRST_TOUCH].throughput_gbps;
	return 0;
}
