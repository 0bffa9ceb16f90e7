/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of libbwmodel, shared by its source files.
 */
#ifndef BWM_MODEL_H
#define BWM_MODEL_H

#include "bwmodel.h"

#define BWM_MAX_FLOWS	(BWM_MAX_NODES * BWM_MAX_NODES)
#define BWM_MAX_RES	(2 * BWM_MAX_NODES)

/* Working state of one prediction. */
struct bwm_solver {
	const struct bwm_machine *m;
	const struct bwm_workload *wl;
	int n;				/* nodes */
	int nw;				/* workers (flows) */
	int nr;				/* resources */
	int iterations;
	int nthreads;
	int wnode[BWM_MAX_NODES];	/* worker index -> node */
	double f[BWM_MAX_NODES][BWM_MAX_NODES];	/* [worker][mem] traffic share */
	double pc[BWM_MAX_NODES][BWM_MAX_NODES];	/* [worker][mem] path use */
	double coef[BWM_MAX_RES * BWM_MAX_NODES];	/* [res][worker] */
	double pathcap[BWM_MAX_NODES];
	double x[BWM_MAX_NODES];	/* per-thread rate, GB/s */
	double xmin;
	double uc[BWM_MAX_NODES];	/* controller utilisation */
	double qc[BWM_MAX_NODES];	/* controller queueing term */
	double lavg[BWM_MAX_NODES];	/* mean loaded latency, ns */
};

int bwm_solve(struct bwm_solver *s, const struct bwm_machine *m,
	      const struct bwm_workload *wl, const struct bwm_placement *pl);
void bwm_maxmin_fill(int nf, const double *cap, int nr, const double *coef,
		     double *x);

/* 1 + noise * N(0, 1), at least 0; 1 without rng or noise. */
double bwm_noise_factor(struct bwm_rng *rng, double noise);

#endif /* BWM_MODEL_H */
