// SPDX-License-Identifier: GPL-2.0
/*
 * An application beyond the workload: what a real program's counters
 * carry that the model's workload does not (Documentation/model.md,
 * "Applications").  Its phases are workloads of the model; its progress
 * is instructions retired, which is what a tuner measuring stalls per
 * instruction serves.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model.h"

/* Instructions per second of one phase, its prediction given. */
static double phase_ips(const struct bwm_machine *m,
			const struct bwm_workload *wl, double gbps,
			double other_stalls)
{
	/* cycles not waiting for memory: traffic over a thread's demand */
	return gbps * m->cpu_ghz * 1e9 / bwm_thread_demand(m, wl) *
	       (1 - other_stalls);
}

double bwm_app_phase_ips(const struct bwm_machine *m,
			 const struct bwm_app *app, int p, double gbps)
{
	return phase_ips(m, &app->phase[p], gbps, app->other_stalls);
}

double bwm_app_rate(const struct bwm_machine *m, const struct bwm_app *app,
		    const double *frac)
{
	struct bwm_placement pl;
	double insns = 0, t = 0;
	int p;

	if (app->nr_phases < 1 || app->nr_phases > BWM_APP_PHASES)
		return -EINVAL;
	bwm_placement_interleave(&pl, m->nr_nodes, frac);
	for (p = 0; p < app->nr_phases; p++) {
		double g = bwm_predict_throughput(m, &app->phase[p], &pl);

		if (g < 0)
			return g;
		if (!(g > 0))
			return 0;
		insns += app->insns[p];
		t += app->insns[p] / bwm_app_phase_ips(m, app, p, g);
	}
	return t > 0 ? insns / t : -EINVAL;
}

struct app_search {
	const struct bwm_machine *m;
	const struct bwm_app *app;
};

static double app_objective(void *arg, const double *frac)
{
	const struct app_search *a = arg;

	return bwm_app_rate(a->m, a->app, frac);
}

double bwm_app_optimum(const struct bwm_machine *m, const struct bwm_app *app,
		       int steps, double *frac)
{
	struct app_search a = { .m = m, .app = app };
	double best[BWM_MAX_NODES], v, u[BWM_MAX_NODES], vu;
	int j;
	long ret;

	ret = bwm_search_by(m->nr_nodes, app_objective, &a, steps, best, &v);
	if (ret >= 0)
		ret = bwm_refine_by(m->nr_nodes, app_objective, &a,
				    0.5 / steps, 0.001, best, &v);
	if (ret < 0)
		return (double)ret;
	/* and from uniform interleave, where the grid may be coarse */
	for (j = 0; j < m->nr_nodes; j++)
		u[j] = 1.0 / m->nr_nodes;
	ret = bwm_refine_by(m->nr_nodes, app_objective, &a, 0.5 / steps,
			    0.001, u, &vu);
	if (ret < 0)
		return (double)ret;
	if (vu > v) {
		v = vu;
		memcpy(best, u, sizeof(double) * m->nr_nodes);
	}
	if (frac)
		memcpy(frac, best, sizeof(double) * m->nr_nodes);
	return v;
}

/* uniform in [lo, hi) */
static double draw(struct bwm_rng *rng, double lo, double hi)
{
	return lo + (hi - lo) * bwm_rng_uniform(rng);
}

int bwm_app_draw(const struct bwm_machine *m, const struct bwm_workload *wl,
		 const struct bwm_workload *other, uint64_t seed,
		 struct bwm_app *app)
{
	double frac[BWM_MAX_NODES], share, round_s, ips[BWM_APP_PHASES];
	struct bwm_placement pl;
	struct bwm_rng rng;
	int j, p, first = 1, ret;

	if (wl->workers != other->workers)
		return -EINVAL;
	ret = bwm_workload_check(m, wl, NULL);
	if (!ret)
		ret = bwm_workload_check(m, other, NULL);
	if (ret)
		return ret;
	memset(app, 0, sizeof(*app));
	bwm_rng_seed(&rng, seed);
	app->nr_phases = 2;
	app->phase[0] = *wl;
	app->phase[1] = *other;
	app->prefetch = draw(&rng, BWM_APP_PREFETCH_MIN, BWM_APP_PREFETCH_MAX);
	app->other_stalls = draw(&rng, BWM_APP_OTHER_MIN, BWM_APP_OTHER_MAX);
	/* every worker but the first runs fewer threads, in both phases */
	for (j = 0; j < m->nr_nodes; j++) {
		int t;

		if (!(wl->workers & (1u << j)))
			continue;
		t = wl->threads[j];
		if (!first)
			t = (int)lround(t * draw(&rng, BWM_APP_THREADS_MIN, 1));
		t = t < 1 ? 1 : t;
		app->phase[0].threads[j] = app->phase[1].threads[j] = t;
		first = 0;
	}
	share = draw(&rng, BWM_APP_PHASE_MIN, BWM_APP_PHASE_MAX);
	round_s = exp(draw(&rng, log(BWM_APP_ROUND_MIN_S),
			   log(BWM_APP_ROUND_MAX_S)));
	/* a round's instructions: round_s under uniform interleave */
	for (j = 0; j < m->nr_nodes; j++)
		frac[j] = 1.0 / m->nr_nodes;
	bwm_placement_interleave(&pl, m->nr_nodes, frac);
	for (p = 0; p < 2; p++) {
		double g = bwm_predict_throughput(m, &app->phase[p], &pl);

		if (!(g > 0))
			return g < 0 ? (int)g : -EINVAL;
		ips[p] = bwm_app_phase_ips(m, app, p, g);
	}
	/* phase 1 takes 'share' of the round's time */
	app->insns[0] = ips[0] * round_s * (1 - share);
	app->insns[1] = ips[1] * round_s * share;
	return 0;
}
