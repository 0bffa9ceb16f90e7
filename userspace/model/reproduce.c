// SPDX-License-Identifier: GPL-2.0
/*
 * The BWAP paper's section IV on the model: its five benchmarks (Table I)
 * on machines A and B, co-scheduled (the benchmark on 1, 2 or 4 worker
 * nodes of A and 1 or 2 of B, the other nodes running an application
 * that does not use memory) and stand-alone (each strategy at the
 * number of worker nodes that suits it best), with every strategy.  The
 * published figures are transcribed here with where they are in the
 * paper; Documentation/reproduce.md puts the two side by side.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reproduce.h"

const char *const bwm_repro_machines[BWM_REPRO_MACHINES] = {
	"bwap-a", "bwap-b",
};

/* Table I's order */
const struct bwm_repro_bench bwm_repro_benches[BWM_REPRO_BENCHES] = {
	{ "ocean-cp", "OC" },
	{ "ocean-ncp", "ON" },
	{ "sp-b", "SP.B" },
	{ "streamcluster", "SC" },
	{ "ft-c", "FT.C" },
};

/*
 * Worker nodes "with the highest aggregate inter-worker bandwidth"
 * (section IV): the two dies of a package on A, then two packages; the
 * two clusters of a socket on B.
 */
const struct bwm_repro_set bwm_repro_sets[BWM_REPRO_SETS] = {
	{ 0, 0x1, "A, 1 worker" },
	{ 0, 0x3, "A, 2 workers" },
	{ 0, 0xf, "A, 4 workers" },
	{ 1, 0x1, "B, 1 worker" },
	{ 1, 0x3, "B, 2 workers" },
};

/* Table II, section IV-A: DWP in percent there */
const double bwm_repro_table2[BWM_REPRO_BENCHES][BWM_REPRO_SETS] = {
	{ 0.141, 0, 0, 0, 0 },			/* OC */
	{ 0.141, 0.16, 0, 0, 0 },		/* ON */
	{ 0, 0, 0, 0.152, 0.222 },		/* SP.B */
	{ 0.48, 0, 0.238, 1, 1 },		/* SC */
	{ 0, 0.163, 0, 0.303, 0 },		/* FT.C */
};

const struct bwm_repro_claim bwm_repro_claims[BWM_REPRO_CLAIMS] = {
	{ "BWAP over uniform-workers", "section IV-A", BWM_CANONICAL_DWP,
	  BWM_UNIFORM_WORKERS, 1.66, 0.15 },
	{ "BWAP over autonuma", "section IV-A", BWM_CANONICAL_DWP,
	  BWM_AUTONUMA, 1.66, 0.15 },
	{ "BWAP over uniform-all", "section IV-A", BWM_CANONICAL_DWP,
	  BWM_UNIFORM_ALL, 1.50, 0.15 },
	{ "BWAP over first-touch", "section I, third contribution",
	  BWM_CANONICAL_DWP, BWM_FIRST_TOUCH, 4.0, 0.15 },
	{ "DWP tuner: BWAP-uniform over uniform-all", "section IV-B",
	  BWM_BWAP_UNIFORM, BWM_UNIFORM_ALL, 1.49, 0.15 },
	{ "canonical tuner: BWAP over BWAP-uniform", "section IV-B",
	  BWM_CANONICAL_DWP, BWM_BWAP_UNIFORM, 1.32, 0.25 },
};

/* stand-alone worker sets: 1, 2, 4 and all nodes */
static int alone_sets(const struct bwm_machine *m, uint32_t *sets)
{
	uint32_t all = bwm_cpu_nodes(m);
	int n = 0, k;

	for (k = 1; k <= BWM_MAX_NODES && n < BWM_REPRO_MAX_ALONE; k *= 2) {
		uint32_t s = (uint32_t)((1ull << k) - 1) & all;

		if (n && s == sets[n - 1])
			break;
		sets[n++] = s;
	}
	return n;
}

/*
 * The co-scheduled cases also search every weight vector on a grid of
 * 1/BWM_REPRO_SEARCH_STEPS, refined pairwise: the best placement there
 * is, which bounds what any canonical tuner could gain over
 * BWAP-uniform.
 */
#define BWM_REPRO_SEARCH_STEPS	5

/*
 * wl on m's workers: every strategy (the optimum only if search_steps),
 * ev the scratch space.
 */
static int run_case(const struct bwm_machine *m, struct bwm_workload *wl,
		    uint32_t workers, int search_steps, struct bwm_eval *ev,
		    struct bwm_repro_case *c)
{
	struct bwm_eval_opts o;
	int s, ret;

	ret = bwm_workload_bind(m, wl, workers, 0, NULL);
	if (ret)
		return ret;
	bwm_eval_opts_default(&o);
	o.search_steps = search_steps;
	ret = bwm_evaluate(m, wl, &o, ev);
	if (ret)
		return ret;
	memset(c, 0, sizeof(*c));
	c->workers = workers;
	for (s = 0; s < BWM_NR_STRATEGIES; s++) {
		c->gbps[s] = ev->r[s].valid ? ev->r[s].pred.throughput_gbps :
					      NAN;
		c->overhead[s] = ev->r[s].overhead;
	}
	c->dwp = ev->r[BWM_CANONICAL_DWP].dwp;
	c->bwap_uniform_dwp = ev->r[BWM_BWAP_UNIFORM].dwp;
	return 0;
}

/*
 * Each strategy at the worker count where it does best; *full: on every
 * node.
 */
static int run_alone(const struct bwm_machine *m, struct bwm_workload *wl,
		     struct bwm_eval *ev, struct bwm_repro_case *best,
		     uint32_t *best_workers, struct bwm_repro_case *full)
{
	struct bwm_repro_case c;
	uint32_t sets[BWM_REPRO_MAX_ALONE];
	int n = alone_sets(m, sets), i, s, ret;

	memset(best, 0, sizeof(*best));
	for (s = 0; s < BWM_NR_STRATEGIES; s++)
		best->gbps[s] = NAN;
	for (i = 0; i < n; i++) {
		ret = run_case(m, wl, sets[i], 0, ev, &c);
		if (ret)
			return ret;
		if (sets[i] == bwm_cpu_nodes(m))
			*full = c;
		for (s = 0; s < BWM_NR_STRATEGIES; s++) {
			if (isfinite(best->gbps[s]) && !(c.gbps[s] > best->gbps[s]))
				continue;
			best->gbps[s] = c.gbps[s];
			best->overhead[s] = c.overhead[s];
			best_workers[s] = sets[i];
			if (s == BWM_CANONICAL_DWP)
				best->dwp = c.dwp;
			if (s == BWM_BWAP_UNIFORM)
				best->bwap_uniform_dwp = c.bwap_uniform_dwp;
		}
	}
	return 0;
}

/*
 * Both machines are read once, each benchmark once (bound to machine A,
 * then rebound for every case).
 */
int bwm_reproduce(const char *datadir, struct bwm_repro *r, char *msg,
		  size_t len)
{
	struct bwm_machine m[BWM_REPRO_MACHINES];
	struct bwm_workload wl;
	struct bwm_eval *ev;
	int i, b = 0, ret = 0;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < BWM_REPRO_MACHINES; i++) {
		ret = bwm_preset_load(datadir, bwm_repro_machines[i], NULL, 0,
				      &m[i], NULL, msg, len);
		if (ret)
			return ret;
	}
	ev = malloc(sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (b = 0; b < BWM_REPRO_BENCHES && !ret; b++) {
		ret = bwm_preset_load(datadir, bwm_repro_machines[0],
				      bwm_repro_benches[b].preset, 0, &m[0],
				      &wl, msg, len);
		for (i = 0; i < BWM_REPRO_SETS && !ret; i++)
			ret = run_case(&m[bwm_repro_sets[i].machine], &wl,
				       bwm_repro_sets[i].workers,
				       BWM_REPRO_SEARCH_STEPS, ev,
				       &r->co[i][b]);
		for (i = 0; i < BWM_REPRO_MACHINES && !ret; i++)
			ret = run_alone(&m[i], &wl, ev, &r->alone[i][b],
					r->alone_workers[i][b], &r->full[i][b]);
	}
	free(ev);
	if (ret && msg && len && !msg[0])
		snprintf(msg, len, "%s: the evaluation failed (%d)",
			 bwm_repro_benches[b - 1].preset, ret);
	return ret;
}

static double ratio(const struct bwm_repro_case *c, enum bwm_strategy a,
		    enum bwm_strategy b)
{
	return c->gbps[a] / c->gbps[b];
}

struct bwm_repro_max bwm_repro_claim_max(const struct bwm_repro *r,
					 const struct bwm_repro_claim *c,
					 int machine)
{
	struct bwm_repro_max best = { 0, -1, 0 };
	int b, i;

	for (b = 0; b < BWM_REPRO_BENCHES; b++) {
		for (i = 0; i < BWM_REPRO_SETS; i++) {
			double x = ratio(&r->co[i][b], c->num, c->den);

			if ((machine < 0 || bwm_repro_sets[i].machine == machine) &&
			    x > best.ratio)
				best = (struct bwm_repro_max){ x, b, i };
		}
		for (i = 0; i < BWM_REPRO_MACHINES; i++) {
			double x = ratio(&r->alone[i][b], c->num, c->den);

			if ((machine < 0 || i == machine) && x > best.ratio)
				best = (struct bwm_repro_max){ x, b, -1 - i };
		}
	}
	return best;
}

struct bwm_repro_max bwm_repro_canonical_ceiling(const struct bwm_repro *r,
						 int machine)
{
	static const struct bwm_repro_claim c = {
		"any weights over BWAP-uniform", "", BWM_OPTIMUM,
		BWM_BWAP_UNIFORM, 0, 0,
	};

	return bwm_repro_claim_max(r, &c, machine);
}

double bwm_repro_over_uniform(const struct bwm_repro_case *c)
{
	return c->gbps[BWM_CANONICAL_DWP] /
	       fmax(c->gbps[BWM_UNIFORM_WORKERS], c->gbps[BWM_UNIFORM_ALL]);
}
