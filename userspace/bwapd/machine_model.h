/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine's model (machine_model.c): what bwapd knows of the machine
 * it runs on, in the NUMA bandwidth model's machine format, every figure
 * with where it came from and how uncertain it is.  The firmware (HMAT,
 * else SLIT) gives the prior; bwapd profile measures on top of it with
 * its benchmark.  The tuner predicts with this model, never with a
 * simulated machine.
 */
#ifndef BWAPD_MACHINE_MODEL_H
#define BWAPD_MACHINE_MODEL_H

#include <json-c/json.h>

#include "backend.h"

enum bwapd_origin {
	BWAPD_ORIGIN_ASSUMED,		/* a default: nothing said it */
	BWAPD_ORIGIN_SLIT,		/* SLIT distances, scaled */
	BWAPD_ORIGIN_HMAT,		/* HMAT, SLIT-scaled off its initiators */
	BWAPD_ORIGIN_MEASURED,		/* the benchmark */
	BWAPD_ORIGIN_AT_LEAST,		/* the benchmark never reached it */
	BWAPD_ORIGIN_NR
};

/* Where a figure came from, and its standard error in its own unit. */
struct bwapd_figure {
	enum bwapd_origin origin;
	double se;
};

struct bwapd_machine_model {
	struct bwm_machine m;
	struct bwapd_figure read[BWAPD_MAX_NODES][BWAPD_MAX_NODES];
	struct bwapd_figure write[BWAPD_MAX_NODES][BWAPD_MAX_NODES];
	struct bwapd_figure latency[BWAPD_MAX_NODES][BWAPD_MAX_NODES];
	struct bwapd_figure ctrl_read[BWAPD_MAX_NODES];
	struct bwapd_figure ctrl_write[BWAPD_MAX_NODES];
	struct bwapd_figure interconnect[BWAPD_MAX_NODES];
	struct bwapd_figure queue_factor;
	double seconds;			/* of benchmark; 0: the prior only */
	int phases;
};

const char *bwapd_origin_name(enum bwapd_origin o);

/*
 * The prior: the machine as the firmware describes it to the kernel.
 * HMAT's figures for its initiators, SLIT-scaled for the others, else
 * SLIT alone on an assumed scale; what neither says is assumed.
 */
int bwapd_mm_prior(const struct bwapd_topology *t,
		   struct bwapd_machine_model *mm);

struct bwapd_mm_opts {
	double seconds;			/* a streaming phase */
	double chase_seconds;		/* an idle pointer chase */
	int repeats;			/* periods a phase: the standard error */
	/* after every phase; may be NULL */
	void (*progress)(void *arg, int done, int total);
	void *progress_arg;
};

void bwapd_mm_opts_default(struct bwapd_mm_opts *o);
/* The phases measuring t takes, and their benchmark seconds. */
int bwapd_mm_plan(const struct bwapd_topology *t,
		  const struct bwapd_mm_opts *o, double *seconds);
/*
 * Measure the machine with the backend's benchmark (bench_flows) and fit
 * the model to it, on top of the prior already in mm.  On error mm keeps
 * the prior and why says what failed.
 */
int bwapd_mm_measure(struct bwapd_backend *b, const struct bwapd_topology *t,
		     const struct bwapd_mm_opts *o,
		     struct bwapd_machine_model *mm, char *why, size_t len);

/* The profile's "model" (the machine format) and "model_figures". */
json_object *bwapd_mm_model_json(const struct bwapd_machine_model *mm);
json_object *bwapd_mm_figures_json(const struct bwapd_machine_model *mm);
/*
 * Back from those members (figures may be NULL: every figure assumed);
 * -EINVAL with why on a model that is not one of nr_nodes nodes.
 */
int bwapd_mm_from_json(json_object *model, json_object *figures, int nr_nodes,
		       struct bwapd_machine_model *mm, char *why, size_t len);

#endif /* BWAPD_MACHINE_MODEL_H */
