/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bwapd inspect: what an application's memory access looks like and what
 * placement would serve it.  One report, filled from a running process
 * (inspect_proc.c) or a workload of the model (inspect_model.c), printed
 * as text or one JSON document (inspect.c), with the weights the model
 * predicts best and a verdict in plain words.
 */
#ifndef BWAPD_INSPECT_H
#define BWAPD_INSPECT_H

#include <stdint.h>
#include <sys/types.h>

#include "bwapd.h"
#include "inspect_estimate.h"

#define INSPECT_MAX_MAPPINGS	64

/* One mapping of the address space and its pages per node (--verbose). */
struct inspect_mapping {
	uint64_t start;
	char name[64];			/* file, [heap], [anon], ... */
	char policy[32];		/* numa_maps' policy word */
	uint64_t pages[BWAPD_MAX_NODES];
};

struct inspect_report {
	pid_t pid;			/* 0: a workload of the model */
	char name[64];			/* command or workload name */
	char machine[64];		/* the model's machine, or "" */
	int nr_nodes;
	uint32_t workers;		/* nodes its threads run on */
	int threads;

	/* where its pages are */
	uint64_t pages[BWAPD_MAX_NODES];
	int nr_mappings;
	int more_mappings;		/* with pages, beyond the table */
	struct inspect_mapping mapping[INSPECT_MAX_MAPPINGS];
	int thread_nodes[BWAPD_MAX_NODES];	/* threads seen on each node */

	/* the access samples and Diener et al.'s metrics on them */
	int have_metrics;
	char source[256];		/* what the samples are */
	uint64_t samples;
	uint64_t lost;			/* dropped, or on CPUs of no node */
	double sample_seconds;
	double sample_from;		/* CLOCK_MONOTONIC at its start, s */
	double clear_seconds;		/* a soft-dirty clear took, on average */
	struct bwm_access_metrics metrics;	/* exclusivity, locality: est's */
	struct inspect_estimate est;	/* their ranges, the draws a page */
	int have_dynamicity;
	double dynamicity;		/* page migrations per second (Eq. 7) */
	long dyn_compared;		/* page-slice pairs it rests on */
	char metrics_why[320];		/* no metrics, or no dynamicity: why */

	/* the Oracle Labs signature */
	int have_signature;
	struct bwm_signature sig;
	struct bwm_signature_quality sigq;
	int sym_threads[BWAPD_MAX_NODES], asym_threads[BWAPD_MAX_NODES];
	char traffic[16];		/* "combined", "reads", ... */
	char signature_why[256];

	/* what the model predicts */
	int have_prediction;
	uint8_t weights[BWAPD_MAX_NODES];	/* 0: node left out */
	double current_gbps, predicted_gbps, gain;
	double stall_fraction;		/* at the current placement */
	struct bwm_flat flat;		/* weights predicted about as good */
	char assumes[256];		/* what the prediction takes for granted */
	char prediction_why[256];

	/* side effects of sampling, said plainly ("" if none) */
	char side_effects[256];
	char verdict[768];
};

/* The verdict of a filled report, in plain words, into r->verdict. */
void inspect_verdict(struct inspect_report *r);
void inspect_print_text(const struct inspect_report *r, int verbose);
/* One JSON document on stdout; 0 or -EIO. */
int inspect_print_json(const struct inspect_report *r, int verbose);

/*
 * The placement the model predicts best for workload wl on m, as kernel
 * weights (0 leaves a node out), and its predicted throughput; from the
 * canonical shares of a profiling run, refined by hill climbing.  flat
 * (may be NULL): the DWPs from those shares predicted within
 * BWM_FLAT_TOL of it.
 */
int inspect_predict(const struct bwm_machine *m, const struct bwm_workload *wl,
		    double u8_err, uint8_t *weights, double *gbps,
		    struct bwm_flat *flat);
/*
 * r's prediction: workload wl placed as pl now, and the best weights
 * (inspect_predict) with their gain.  0, or -errno with the why to say.
 */
int inspect_prediction(struct inspect_report *r, const struct bwm_machine *m,
		       const struct bwm_workload *wl,
		       const struct bwm_placement *pl, double u8_err);
/* r's signature fitted to two runs; what the runs' traffic is. */
void inspect_fit(struct inspect_report *r, int nr_nodes,
		 const struct bwm_bank_run *sym,
		 const struct bwm_bank_run *asym, const char *traffic);

#endif /* BWAPD_INSPECT_H */
