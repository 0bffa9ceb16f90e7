/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of libbwmodel, shared by its source files.
 */
#ifndef BWM_MODEL_H
#define BWM_MODEL_H

#include "bwmodel.h"

#define BWM_MAX_FLOWS	(BWM_MAX_NODES * BWM_MAX_NODES)
#define BWM_MAX_RES	(2 * BWM_MAX_NODES + BWM_MAX_LINKS)

/*
 * Working state of one prediction: the flows are the (workload, worker
 * node) pairs, one per worker node (workloads run on disjoint nodes).
 */
struct bwm_solver {
	const struct bwm_machine *m;
	int nwl;			/* workloads */
	const struct bwm_workload *wls[BWM_MAX_CORUN];
	int n;				/* nodes */
	int nw;				/* flows */
	int nr;				/* resources some flow uses */
	int rid[BWM_MAX_RES];		/* packed row -> resource */
	int iterations;
	int fwl[BWM_MAX_NODES];		/* flow -> workload */
	int wnode[BWM_MAX_NODES];	/* flow -> worker node */
	double f[BWM_MAX_NODES][BWM_MAX_NODES];	/* [flow][mem] traffic share */
	double pc[BWM_MAX_NODES][BWM_MAX_NODES];	/* [flow][mem] path use */
	double coef[BWM_MAX_RES * BWM_MAX_NODES];	/* [res][flow] */
	double pathcap[BWM_MAX_NODES];
	double x[BWM_MAX_NODES];	/* per-thread rate, GB/s */
	double xmin[BWM_MAX_CORUN];	/* slowest thread of each workload */
	int nthreads[BWM_MAX_CORUN];
	double uc[BWM_MAX_NODES];	/* controller utilisation */
	double qc[BWM_MAX_NODES];	/* controller queueing term */
	double ul[BWM_MAX_LINKS];	/* link utilisation */
	double ql[BWM_MAX_LINKS];	/* link queueing term */
	double lavg[BWM_MAX_NODES];	/* mean loaded latency, ns */
};

int bwm_solve(struct bwm_solver *s, const struct bwm_machine *m, int nwl,
	      const struct bwm_workload *const *wl,
	      const struct bwm_placement *const *pl);
void bwm_maxmin_fill(int nf, const double *cap, int nr, const double *coef,
		     double *x);

#endif /* BWM_MODEL_H */
