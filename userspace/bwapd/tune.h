/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DWP tuner (tune.c, BWAP section III-B): the data-to-worker
 * proximity at which a target stalls least, steered through its own
 * weights; co-scheduled jobs; watching for phase changes.
 */
#ifndef BWAPD_TUNE_H
#define BWAPD_TUNE_H

#include "bwmodel.h"
#include "target.h"

struct bwapd_tune_step;

/*
 * A model of the machine whose own profiling run gives the workers'
 * canonical shares with more than this share of the pages elsewhere is
 * not of this machine: the tuner does not predict with it.
 */
#define BWAPD_MODEL_AGREE	0.05

/*
 * The share of the pages (0 to 1) that the model's own canonical shares
 * of 'workers' (its profiling run, Eq. 5) put elsewhere than 'canonical';
 * -1 if the model gives none.
 */
double bwapd_model_off(const struct bwm_machine *m, uint32_t workers,
		       const double *canonical);

struct bwapd_tune_opts {
	int samples;			/* n: measurements per step */
	int trim;			/* c: dropped at each end */
	double period;			/* t: seconds per step */
	double step;			/* x: DWP step */
	double fine_step;		/* refinement near the optimum; 0: none */
	int max_steps;			/* settings tried after the start */
	int forward_only;		/* the paper's search: raise DWP only */
	/*
	 * The model of the machine: with it (and memory accesses counted)
	 * the tuner predicts and refines the whole weight vector
	 * (bestshot.h); without it, or with dwp_only, it searches DWP.
	 */
	const struct bwm_machine *machine;
	int dwp_only;
	double min_gain;		/* predicted gain worth a step, a share */
	enum bwapd_metric {
		BWAPD_METRIC_AUTO,	/* the first of these counted: */
		BWAPD_NODE_STALLS_PER_INSN,	/* ...of the worst worker node */
		BWAPD_STALLS_PER_INSN,	/* stalled cycles per instruction */
		BWAPD_STALL_RATE,	/* stalled cycles per second (paper) */
		BWAPD_CPI,		/* cycles per instruction */
	} metric;
	double start;			/* DWP to start from (re-tuning) */
	double floor;			/* lowest DWP to try (<= start) */
	/* co-scheduled: what the high-priority job may lose, a share */
	double protect;
	double min_mapi;		/* below: not memory-intensive, skip */
	double u8_err;			/* weight conversion tolerance */
	/* phase change: the stall rate moves by more than this share... */
	double phase_change;
	int phase_periods;		/* ...for this many periods in a row */
	double watch_every;		/* watching: seconds from one period to the next */
	struct bwapd_migrate_opts migrate;
	/* called after every measurement; may be NULL */
	void (*log)(void *arg, const struct bwapd_tune_step *s);
	void *log_arg;
};

struct bwapd_tune_step {
	int step;			/* 0: the start */
	double seconds;			/* target clock at the end */
	double dwp;			/* of the weights: workers' share, moved */
	double stall_rate;		/* the metric: per second or instruction */
	double predicted;		/* model's traffic (GB/s) for it; -1: none */
	double mapi;			/* -1: not known */
	uint8_t weights[BWAPD_MAX_NODES];
	struct bwapd_migration migration;
	const char *what;		/* "start", "up", "down", "best", ... */
};

struct bwapd_tune_result {
	double dwp;			/* of the final weights */
	int predicted;			/* 1: the model chose settings */
	int handed_over;		/* 1: it missed; the DWP search took over */
	double stall_rate;
	double mapi;
	int steps;
	int skipped;			/* not memory-intensive: left at DWP 0 */
	uint64_t moved;
	uint64_t failed;		/* pages the kernel did not move */
	uint8_t weights[BWAPD_MAX_NODES];
};

void bwapd_tune_opts_default(struct bwapd_tune_opts *o);
/* -EINVAL if a parameter is out of range. */
int bwapd_tune_opts_check(const struct bwapd_tune_opts *o);
/*
 * The metric o measures on counters that have 'have' (BWAPD_HAVE_*):
 * o->metric, or for BWAPD_METRIC_AUTO the first one counted.
 */
enum bwapd_metric bwapd_metric_of(const struct bwapd_tune_opts *o,
				  unsigned int have);
/* Its name in bwapd's output: "stalls/s", "stalls/instruction", ... */
const char *bwapd_metric_name(enum bwapd_metric m);
/*
 * One period: the trimmed mean of the metric, MAPI (-1: not known) and,
 * if se is not NULL, the standard error of that trimmed mean.
 */
int bwapd_measure(struct bwapd_target *t, const struct bwapd_tune_opts *o,
		  double *rate, double *mapi, double *se);
/* Kernel weights for canonical fractions moved towards the workers by dwp. */
int bwapd_dwp_weights(const double *canonical, int nr_nodes, uint32_t workers,
		      double dwp, double u8_err, uint8_t *w);
/*
 * The DWP of weights w: how far the workers' share of the pages lies
 * from their canonical share S towards all of them, (share - S) / (1 - S).
 */
double bwapd_weights_dwp(const double *canonical, int nr_nodes,
			 uint32_t workers, const uint8_t *w);
/*
 * Tune the target: weights for DWP 'start' from the canonical fractions,
 * then the search.  The target always holds the weights of a measured DWP:
 * on error those of the best one so far (or of DWP 0).
 */
int bwapd_tune(struct bwapd_target *t, const double *canonical,
	       const struct bwapd_tune_opts *o, struct bwapd_tune_result *r);
/*
 * Co-scheduled jobs on disjoint nodes (BWAP III-B3): *floor is the lowest
 * DWP of the best-effort job at which the high-priority job runs within
 * 'protect' of its speed when the best-effort job keeps to its own nodes;
 * then the best-effort job is tuned from there, not below.
 */
int bwapd_tune_cosched(struct bwapd_target *hi, struct bwapd_target *be,
		       const double *canonical,
		       const struct bwapd_tune_opts *o,
		       struct bwapd_tune_result *r, double *floor);
/*
 * Watch a tuned target for 'seconds' (0: until it exits, -ESRCH): *changed
 * is set when its stall rate left 'rate' by more than phase_change for
 * phase_periods periods in a row (a phase change: tune again).
 */
int bwapd_tune_watch(struct bwapd_target *t, const struct bwapd_tune_opts *o,
		     double rate, double seconds, int *changed);

#endif /* BWAPD_TUNE_H */
