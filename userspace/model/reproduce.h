/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BWAP paper's evaluation on the model (reproduce.c): its benchmarks
 * on its two machines in its two scenarios, every strategy, and the
 * published figures to compare them with.
 */
#ifndef BWM_REPRODUCE_H
#define BWM_REPRODUCE_H

#include "bwmodel.h"

#define BWM_REPRO_BENCHES	5
#define BWM_REPRO_SETS		5	/* co-scheduled: A 1, 2, 4; B 1, 2 */
#define BWM_REPRO_MACHINES	2
#define BWM_REPRO_MAX_ALONE	4	/* stand-alone worker counts tried */

struct bwm_repro_bench {
	const char *preset;		/* workload preset */
	const char *abbr;		/* the paper's: OC, ON, SP.B, SC, FT.C */
};

struct bwm_repro_set {
	int machine;			/* 0: bwap-a, 1: bwap-b */
	uint32_t workers;
	const char *label;		/* "A, 1 worker" */
};

extern const char *const bwm_repro_machines[BWM_REPRO_MACHINES];
extern const struct bwm_repro_bench bwm_repro_benches[BWM_REPRO_BENCHES];
extern const struct bwm_repro_set bwm_repro_sets[BWM_REPRO_SETS];
/* the paper's Table II: BWAP's best DWP, [bench][set] */
extern const double bwm_repro_table2[BWM_REPRO_BENCHES][BWM_REPRO_SETS];

/* A published "up to" figure: the largest ratio of two strategies. */
struct bwm_repro_claim {
	const char *what;
	const char *where;		/* in the paper */
	enum bwm_strategy num, den;
	double paper;
	double tolerance;		/* asserted within it; 0: shown only */
};

#define BWM_REPRO_CLAIMS	6
extern const struct bwm_repro_claim bwm_repro_claims[BWM_REPRO_CLAIMS];

/*
 * One benchmark on one machine's worker set: throughput per strategy.
 * The optimum (the best weight vector a grid search and its pairwise
 * refinement find) is there for the co-scheduled cases only: NAN in
 * the others.
 */
struct bwm_repro_case {
	double gbps[BWM_NR_STRATEGIES];
	double overhead[BWM_NR_STRATEGIES];
	double dwp;			/* BWAP's */
	double bwap_uniform_dwp;
	uint32_t workers;
};

struct bwm_repro {
	/* co-scheduled: the benchmark on its workers, the rest idle */
	struct bwm_repro_case co[BWM_REPRO_SETS][BWM_REPRO_BENCHES];
	/*
	 * stand-alone: every strategy at the worker count (1, 2, 4, all
	 * nodes) that suits it best; alone[m][b].gbps[s] is that one's
	 * throughput and alone_workers[m][b][s] its worker set
	 */
	struct bwm_repro_case alone[BWM_REPRO_MACHINES][BWM_REPRO_BENCHES];
	/* on every node of the machine */
	struct bwm_repro_case full[BWM_REPRO_MACHINES][BWM_REPRO_BENCHES];
	uint32_t alone_workers[BWM_REPRO_MACHINES][BWM_REPRO_BENCHES]
			      [BWM_NR_STRATEGIES];
};

/*
 * Machine A's calibrated global figure carried to machine B unchanged:
 * its queue_factor (core_speed is relative to B's cores).  The preset
 * file of B keeps the default, for the tests that use it as a machine.
 */
void bwm_repro_carry(const struct bwm_machine *a, struct bwm_machine *b);

/*
 * Evaluate every case from the presets in datadir, machine B with
 * bwm_repro_carry().  Deterministic; on
 * error msg says which preset failed.
 */
int bwm_reproduce(const char *datadir, struct bwm_repro *r, char *msg,
		  size_t len);

/* Where a claim's ratio is largest on machine m (-1: both). */
struct bwm_repro_max {
	double ratio;
	int bench;
	int set;			/* co-scheduled set, or -1 - machine */
};

struct bwm_repro_max bwm_repro_claim_max(const struct bwm_repro *r,
					 const struct bwm_repro_claim *c,
					 int machine);
/*
 * The most any weights gain over BWAP-uniform, co-scheduled on machine m
 * (-1: both): the ceiling of the canonical tuner's share.
 */
struct bwm_repro_max bwm_repro_canonical_ceiling(const struct bwm_repro *r,
						 int machine);
/* BWAP over the better of uniform-workers and uniform-all. */
double bwm_repro_over_uniform(const struct bwm_repro_case *c);

/*
 * The published figures the checks compare with, as one array a test can
 * perturb: the headline claims, then Table II by benchmark and set.
 */
#define BWM_REPRO_NPUB	(BWM_REPRO_CLAIMS + \
			 BWM_REPRO_BENCHES * BWM_REPRO_SETS)
struct bwm_repro_published {
	double v[BWM_REPRO_NPUB];
};

static inline int bwm_repro_pub_claim(int claim)
{
	return claim;
}

static inline int bwm_repro_pub_table2(int bench, int set)
{
	return BWM_REPRO_CLAIMS + bench * BWM_REPRO_SETS + set;
}

/* The paper's figures: bwm_repro_claims[].paper and Table II. */
void bwm_repro_published_paper(struct bwm_repro_published *p);

enum bwm_repro_check_kind {
	BWM_CHECK_RATIO,	/* |model / paper - 1| <= tol */
	BWM_CHECK_ABS,		/* |model - paper| <= tol */
	BWM_CHECK_ABOVE,	/* model > paper (a bound) */
	BWM_CHECK_BELOW,	/* model < paper (a bound) */
	BWM_CHECK_SAME,		/* model == paper (an index: which one) */
};

/*
 * One assertion of the reproduction.  Checks against a published figure
 * name it (pub >= 0); the others compare strategies on the model, and
 * mutation says how the model's result would have to change to fail it:
 * strategy's throughput in one case multiplied by more than scale
 * (scale > 1) or less (scale < 1).
 */
struct bwm_repro_check {
	const char *id;		/* stable name, e.g. "headline:uniform-all" */
	const char *what;	/* for people */
	enum bwm_repro_check_kind kind;
	double model, paper, tol;
	int pub;		/* index into bwm_repro_published.v, or -1 */
	char where[48];		/* the case that produced the model's figure */
	struct {
		int alone;	/* 1: r->alone[set][bench], 0: r->co */
		int set, bench;
		enum bwm_strategy strategy;
		double scale;
	} mutation;
	int pass;
};

#define BWM_REPRO_MAX_CHECKS	32

/* Every check of the reproduction against p; returns how many (<= max). */
int bwm_repro_checks(const struct bwm_repro *r,
		     const struct bwm_repro_published *p,
		     struct bwm_repro_check *out, int max);

/*
 * A figure this model does not reproduce: the check that fails, the
 * model's figure when it was recorded and why.
 */
struct bwm_repro_deviation {
	const char *id;
	double model;
	const char *reason;
};

#define BWM_REPRO_DEVIATIONS_MAX	16
extern const struct bwm_repro_deviation bwm_repro_deviations[];
extern const int bwm_repro_nr_deviations;

/* The deviation recorded for check id, or NULL. */
const struct bwm_repro_deviation *bwm_repro_deviation(const char *id);

/*
 * A benchmark preset's fit (its file says so): of the parallelisms in
 * bwm_repro_mlps, those at which some demand moves Table I's traffic on
 * machine B with bwm_repro_carry() (its "measured" object: 7 threads on node 0, first-touch),
 * the one whose best DWPs come closest to Table II's on machine A (mean
 * absolute difference; the lowest of equals); demand for it.  Machine B's
 * Table II cells are not used.
 */
#define BWM_REPRO_NR_MLPS	11
extern const double bwm_repro_mlps[BWM_REPRO_NR_MLPS];

int bwm_repro_fit(const char *datadir, int bench, double *mlp,
		  double *demand_gbps, char *msg, size_t len);

#endif /* BWM_REPRODUCE_H */
