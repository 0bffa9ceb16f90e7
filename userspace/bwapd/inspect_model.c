// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd inspect on the model: a workload of a machine preset under a
 * page policy (first touch with the shared data filled by one thread or
 * by every thread, or interleave over every node).  Its pages
 * and their accesses come from the model's page trace, the signature
 * from two runs of the model's counters - a symmetric and an asymmetric
 * thread placement, as the Oracle Labs paper runs a program - and the
 * prediction from the model itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"
#include "inspect_model.h"

/* Pages of the model's trace. */
#define MODEL_PAGES	8192

/* The policy's placement of workload wl (threads as wl says). */
static void policy_placement(const struct bwm_machine *m,
			     const struct bwm_workload *wl, int ft,
			     enum inspect_policy policy,
			     struct bwm_placement *pl)
{
	double frac[BWM_MAX_NODES];
	int j, T = bwm_workload_nr_threads(wl);

	if (policy == INSPECT_INTERLEAVE) {
		for (j = 0; j < m->nr_nodes; j++)
			frac[j] = 1.0 / m->nr_nodes;
		bwm_placement_interleave(pl, m->nr_nodes, frac);
		return;
	}
	bwm_placement_first_touch(pl, m->nr_nodes, ft);
	if (policy == INSPECT_PARALLEL_INIT)
		for (j = 0; j < m->nr_nodes; j++)
			pl->shared[j] = (double)wl->threads[j] / T;
}

/* Where the policy puts each page of the trace (nshared first). */
static int map_trace(const struct bwm_machine *m,
		     const struct bwm_workload *wl, enum inspect_policy policy,
		     struct bwm_page *pages, long n, long nshared)
{
	int T = bwm_workload_nr_threads(wl);
	long i;

	if (policy == INSPECT_INTERLEAVE)
		return bwm_map_pages(pages, n, m->nr_nodes, BWM_MAP_INTERLEAVE,
				     0, NULL);
	/* parallel initialisation: thread t fills the t-th block */
	for (i = 0; policy == INSPECT_PARALLEL_INIT && i < nshared; i++)
		pages[i].first_node =
			bwm_workload_thread_node(wl, (int)(i * T / nshared));
	return bwm_map_pages(pages, n, m->nr_nodes, BWM_MAP_FIRST_TOUCH, 0,
			     NULL);
}

/* Counter reads in a profiling run: their noise averages out. */
#define RUN_READS	20

/*
 * One profiling run: the workload with threads[] per node under the
 * policy, its controllers' local and remote traffic and its threads'
 * speeds read RUN_READS times over 'seconds' (noisy like counters) and
 * summed, normalised.
 */
static int model_run(const struct bwm_machine *m,
		     const struct bwm_workload *wl, int ft,
		     enum inspect_policy policy, const int *threads,
		     double seconds, double noise, struct bwm_rng *rng,
		     struct bwm_bank_run *run)
{
	struct bwm_workload w = *wl;
	struct bwm_placement pl;
	struct bwm_sim sim;
	double rate[BWM_MAX_NODES] = { 0 };
	int i, j, ret;

	w.workers = 0;
	for (j = 0; j < BWM_MAX_NODES; j++) {
		w.threads[j] = j < m->nr_nodes ? threads[j] : 0;
		if (w.threads[j])
			w.workers |= 1u << j;
	}
	ret = bwm_sim_init(&sim, m, &w, bwm_rng_next(rng), noise);
	if (ret)
		return ret;
	policy_placement(m, &w, ft, policy, &pl);
	ret = bwm_sim_set_placement(&sim, &pl);
	for (i = 0; !ret && i < RUN_READS; i++) {
		ret = bwm_sim_run(&sim, seconds / RUN_READS);
		/* instructions retire in step with the bytes they move */
		for (j = 0; j < m->nr_nodes; j++)
			if (w.threads[j])
				rate[j] += sim.pred.thread_gbps[j] *
					   bwm_noise_factor(rng, noise);
	}
	if (ret)
		return ret;
	memset(run, 0, sizeof(*run));
	for (j = 0; j < m->nr_nodes; j++) {
		double total = (double)sim.ctrl_read_bytes[j] +
			       (double)sim.ctrl_write_bytes[j];
		double local = (double)sim.ctrl_local_bytes[j];

		run->threads[j] = w.threads[j];
		run->local[j] = local < total ? local : total;
		run->remote[j] = total - run->local[j];
	}
	return bwm_bank_normalise(m->nr_nodes, run->threads, rate, run->local,
				  run->remote);
}

/*
 * The paper's two placements on the worker nodes: k threads on each,
 * then the same number with the last node down to one thread and the
 * first up by as many (the larger the difference, the less noise in
 * telling per-thread from interleaved memory).
 */
static int signature_runs(const struct bwm_machine *m, uint32_t workers,
			  int *sym, int *asym, char *why, size_t len)
{
	int j, k = 1 << 30, used = 0, lo = -1, hi = -1, d;

	for (j = 0; j < m->nr_nodes; j++) {
		if (!(workers & (1u << j)))
			continue;
		used++;
		if (m->node[j].cpus < k)
			k = m->node[j].cpus;
		if (hi < 0)
			hi = j;
		lo = j;
	}
	if (used < 2) {
		snprintf(why, len, "its runs need threads on two nodes or more "
			 "(--workers)");
		return -EINVAL;
	}
	k /= 2;			/* room on each node for the asymmetric run */
	if (k < 2) {
		snprintf(why, len, "its runs need four cores on each worker node");
		return -EINVAL;
	}
	d = k - 1;
	for (j = 0; j < m->nr_nodes; j++) {
		sym[j] = workers & (1u << j) ? k : 0;
		asym[j] = sym[j];
	}
	asym[hi] += d;
	asym[lo] -= d;
	return 0;
}

int inspect_model(const struct bwm_machine *m, const struct bwm_workload *wl,
		  enum inspect_policy policy, double seconds, double noise,
		  uint64_t seed, double u8_err, struct inspect_report *r)
{
	struct bwm_page *pages = calloc(MODEL_PAGES, sizeof(*pages));
	struct bwm_bank_run sym, asym;
	struct bwm_placement pl;
	struct bwm_rng rng;
	int ft = bwm_workload_first_touch(wl);
	int j, ret;

	if (!pages)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", wl->name);
	snprintf(r->machine, sizeof(r->machine), "%s", m->name);
	r->nr_nodes = m->nr_nodes;
	r->workers = wl->workers;
	r->threads = bwm_workload_nr_threads(wl);
	bwm_rng_seed(&rng, seed);

	/* pages and the access trace */
	ret = bwm_workload_pages(m, wl, MODEL_PAGES, seed, pages);
	if (ret >= 0)
		ret = map_trace(m, wl, policy, pages, MODEL_PAGES, ret);
	if (!ret)
		ret = inspect_metrics(pages, MODEL_PAGES, m->nr_nodes, NULL,
				      &r->est, &r->metrics);
	free(pages);
	if (ret)
		return ret;
	for (j = 0; j < m->nr_nodes; j++)
		r->pages[j] = (uint64_t)r->metrics.node_pages[j];
	r->have_metrics = 1;
	r->samples = (uint64_t)r->metrics.accesses;
	snprintf(r->source, sizeof(r->source),
		 "the model's trace of every access");
	snprintf(r->metrics_why, sizeof(r->metrics_why),
		 "a workload of the model keeps one behaviour");

	/* the signature from two runs of the counters */
	if (!signature_runs(m, wl->workers, r->sym_threads, r->asym_threads,
			    r->signature_why, sizeof(r->signature_why))) {
		ret = model_run(m, wl, ft, policy, r->sym_threads, seconds,
				noise, &rng, &sym);
		if (!ret)
			ret = model_run(m, wl, ft, policy, r->asym_threads,
					seconds, noise, &rng, &asym);
		if (!ret)
			inspect_fit(r, m->nr_nodes, &sym, &asym, "combined");
		else
			snprintf(r->signature_why, sizeof(r->signature_why),
				 "the model cannot run it so (%s)",
				 strerror(-ret));
	}

	/* the current placement and the best one the model predicts */
	policy_placement(m, wl, ft, policy, &pl);
	ret = inspect_prediction(r, m, wl, &pl, u8_err);
	if (ret)
		snprintf(r->prediction_why, sizeof(r->prediction_why),
			 "the model cannot place this workload (%s)",
			 strerror(-ret));
	inspect_verdict(r);
	return 0;
}
