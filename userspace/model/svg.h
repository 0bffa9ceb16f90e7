/* SPDX-License-Identifier: GPL-2.0 */
/* Small SVG charts for bwap-eval and bwapd (svg.c). */
#ifndef BWMODEL_SVG_H
#define BWMODEL_SVG_H

#include <stdio.h>

/* canvas and plot area (left, right, top, bottom margins) */
#define BWM_SVG_W		760
#define BWM_SVG_H		420
#define BWM_SVG_PL		70
#define BWM_SVG_PR		200
#define BWM_SVG_PT		50
#define BWM_SVG_PB		70
#define BWM_SVG_NR_COLOURS	9

extern const char *const bwm_svg_colours[BWM_SVG_NR_COLOURS];

/*
 * s as SVG text or attribute value: & < > " ' as entities, valid UTF-8,
 * no control characters XML forbids.  Every string from outside goes
 * through it (titles carry workload and command names).
 */
void bwm_svg_text(FILE *f, const char *s);
void bwm_svg_begin(FILE *f, const char *title);
/* Grid and labels of a y axis from 0 to ymax (rounded up, returned). */
double bwm_svg_yaxis(FILE *f, double ymax, const char *label, int right);
/* Labels of the x axis from 0 to xmax (rounded up, returned). */
double bwm_svg_xaxis(FILE *f, double xmax, const char *label);
void bwm_svg_legend(FILE *f, int i, const char *label, const char *colour);
/* Points (x[i], y[i]) joined, on axes from 0 to xmax and ymax. */
void bwm_svg_polyline(FILE *f, const double *x, const double *y, int n,
		      double xmax, double ymax, const char *colour);
/*
 * A grouped bar chart on its own canvas: ngroups groups of nseries bars,
 * v[g * nseries + s] high (NAN: no bar), each with a tooltip; a legend
 * of the series.
 */
struct bwm_svg_bars {
	const char *title, *ylabel;
	int ngroups, nseries;
	const char *const *group;	/* label under each group */
	const char *const *sub;		/* second line under each; may be NULL */
	const char *const *series;	/* name of each series */
	const char *const *colour;	/* colour of each series */
	const double *v;
	const char *unit;		/* tooltip: "%.2f" then unit */
};

int bwm_svg_bars(FILE *f, const struct bwm_svg_bars *b);
/* Close the document; -EIO if writing failed. */
int bwm_svg_end(FILE *f);

#endif /* BWMODEL_SVG_H */
