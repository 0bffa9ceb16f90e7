/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The best shot (bestshot.c): an application fitted to the model of the
 * machine from what the tuner measures anyway, and the placement the
 * model then predicts best.  The tuner starts there and goes on from
 * what the next measurement says.
 */
#ifndef BWAPD_BESTSHOT_H
#define BWAPD_BESTSHOT_H

#include "bwmodel.h"
#include "bwapd.h"

/* One measured placement. */
struct bwapd_point {
	double frac[BWAPD_MAX_NODES];	/* its pages' shares on each node */
	double gbps;			/* memory traffic, all threads (LLC misses x 64) */
	double busy;			/* share of cycles not stalled */
	double read;			/* share of the traffic read; -1: not counted */
};

/* Points a fit uses at most (the first ones with traffic). */
#define BWAPD_FIT_POINTS	128

/*
 * Fit workload parameters to the points: the demand (what a thread
 * would move if it never waited: traffic over unstalled cycles), then
 * the memory-level parallelism that makes the model predict the
 * measured traffic at every point (least squares on its logarithm), and
 * the read share: counted, or else fitted with it from two points on.
 * threads[node] (may be NULL): the threads that run on each worker node,
 * where known (a count of 0 or NULL: every core of that worker).  *rms
 * (may be NULL): the fit's root-mean-square relative error.
 * Points without traffic or without an unstalled cycle are passed over;
 * -EINVAL when no point is left.
 */
int bwapd_fit(const struct bwm_machine *m, uint32_t workers,
	      const int *threads, const struct bwapd_point *p, int n,
	      struct bwm_workload *wl, double *rms, double *range);

/*
 * Where in [a, b] f is least, by golden section in 'iters' steps (f
 * unimodal there); *fx (may be NULL): f there.
 */
double bwapd_golden(double (*f)(double x, void *arg), void *arg, double a,
		    double b, int iters, double *fx);

/* The model's traffic for wl with its pages spread by frac (GB/s). */
double bwapd_fit_gbps(const struct bwm_machine *m,
		      const struct bwm_workload *wl, const double *frac);

/*
 * The shares the model predicts best for wl, hill-climbing (by pairs of
 * nodes, then along ridges) from 'from' and from the best data-to-worker
 * proximity of 'canonical'.  Without
 * leave_out every node that has a canonical share keeps at least
 * min_share (a weight cannot leave it out); *gbps the prediction.
 */
int bwapd_best_shot(const struct bwm_machine *m,
		    const struct bwm_workload *wl, const double *canonical,
		    const double *from, int leave_out, double min_share,
		    double *frac, double *gbps);

#endif /* BWAPD_BESTSHOT_H */
