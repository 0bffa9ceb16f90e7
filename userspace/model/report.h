/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bwap-eval's output: the terminal table, JSON and SVG plots.
 */
#ifndef BWM_REPORT_H
#define BWM_REPORT_H

#include <stdio.h>

#include "bwmodel.h"

#define REPORT_MAX_SCENARIOS	16	/* -W columns */

struct scenario {
	struct bwm_workload wl;		/* bound to the machine */
	struct bwm_eval ev;
	int npts;			/* DWP sweep from the canonical weights */
	double dwp[64], gbps[64], stall[64];
	/* Diener et al.'s data mapping policies (--mapping) */
	int have_mapping;
	double min_excl;
	long pages;
	struct bwm_mapping_result map[BWM_NR_MAPPINGS];
};

void report_table(FILE *f, const struct bwm_machine *m,
		  const struct scenario *sc);
/* The data mapping policies' metrics and speedups, when computed. */
void report_mapping_table(FILE *f, const struct scenario *sc);
/* JSON text of all scenarios (malloc'ed) or NULL. */
char *report_json(const struct bwm_machine *m, const struct scenario *sc,
		  int nsc);
/* Speedup vs first-touch per strategy, grouped by scenario. */
int report_svg_strategies(FILE *f, const struct bwm_machine *m,
			  const struct scenario *sc, int nsc);
/* Throughput and stall rate over DWP for one scenario. */
int report_svg_dwp(FILE *f, const struct bwm_machine *m,
		   const struct scenario *sc);
/* "0,1" or "0-3" into buf */
const char *report_nodes(uint32_t mask, char *buf, size_t len);

#endif /* BWM_REPORT_H */
