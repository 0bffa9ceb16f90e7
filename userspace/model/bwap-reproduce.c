// SPDX-License-Identifier: GPL-2.0
/*
 * bwap-reproduce: the BWAP paper's section IV on the model, beside the
 * published figures.  Writes a Markdown report to stdout, or with -o DIR
 * DIR/reproduce.md and one SVG bar chart per figure of the paper.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reproduce.h"
#include "svg.h"

/* the columns of the figures, in the paper's order */
static const enum bwm_strategy shown[] = {
	BWM_FIRST_TOUCH, BWM_UNIFORM_WORKERS, BWM_UNIFORM_ALL, BWM_AUTONUMA,
	BWM_CARREFOUR, BWM_CANONICAL, BWM_BWAP_UNIFORM, BWM_CANONICAL_DWP,
};
#define NR_SHOWN	(sizeof(shown) / sizeof(shown[0]))

/* the survey's Figure 9: geometric means over its benchmarks */
static const struct {
	const char *policy;
	enum bwm_strategy s;		/* BWM_NR_STRATEGIES: not modelled */
	double paper;
} survey[] = {
	{ "interleave (uniform-all)", BWM_UNIFORM_ALL, 1.11 },
	{ "NUMA balancing (autonuma)", BWM_AUTONUMA, 0.80 },
	{ "PTB", BWM_NR_STRATEGIES, 1.02 },
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [-o DIR]\n\n"
		"The BWAP paper's evaluation (section IV) on the model of its\n"
		"machines A and B with its five benchmarks: every placement\n"
		"strategy co-scheduled and stand-alone, the paper's Table II and\n"
		"its headline ratios beside the model's.  Markdown on stdout, or\n"
		"DIR/reproduce.md and DIR/*.svg with -o.\n\n"
		"  -o, --output DIR   write the report and the figures there\n"
		"  -h, --help         this text\n\n"
		"Presets are read from %s (BWMODEL_DATA overrides).\n",
		prog, BWM_DATADIR);
}

static const char *set_where(int set, char *buf, size_t len)
{
	if (set >= 0)
		snprintf(buf, len, "%s", bwm_repro_sets[set].label);
	else
		snprintf(buf, len, "%c, stand-alone", "AB"[-1 - set]);
	return buf;
}

static void claims(FILE *f, const struct bwm_repro *r)
{
	char where[64];
	unsigned int i;
	int k;

	fprintf(f, "## The paper's headline figures\n\n"
		"Each is the largest ratio over the benchmarks and scenarios "
		"(co-scheduled and stand-alone) of both machines; machine B is "
		"held out of the calibration.\n\n"
		"| figure | where | paper | model | model / paper | largest at | machine A | machine B |\n"
		"|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < BWM_REPRO_CLAIMS; i++) {
		const struct bwm_repro_claim *c = &bwm_repro_claims[i];
		struct bwm_repro_max all = bwm_repro_claim_max(r, c, -1);
		double m[BWM_REPRO_MACHINES];

		for (k = 0; k < BWM_REPRO_MACHINES; k++)
			m[k] = bwm_repro_claim_max(r, c, k).ratio;
		fprintf(f, "| %s | %s | %.2fx | %.2fx | %.2f | %s, %s | %.2fx | %.2fx |\n",
			c->what, c->where, c->paper, all.ratio,
			all.ratio / c->paper, bwm_repro_benches[all.bench].abbr,
			set_where(all.set, where, sizeof(where)), m[0], m[1]);
	}
	fputc('\n', f);
}

static void case_row(FILE *f, const char *label,
		     const struct bwm_repro_case *c, const uint32_t *workers)
{
	unsigned int i;

	fprintf(f, "| %s |", label);
	for (i = 0; i < NR_SHOWN; i++) {
		fprintf(f, " %.2f", c->gbps[shown[i]] / c->gbps[BWM_FIRST_TOUCH]);
		if (workers)
			fprintf(f, " (%d)", __builtin_popcount(workers[shown[i]]));
		fputs(" |", f);
	}
	fprintf(f, " %.2f |\n", c->dwp);
}

static void case_header(FILE *f, const char *first)
{
	unsigned int i;

	fprintf(f, "| %s |", first);
	for (i = 0; i < NR_SHOWN; i++)
		fprintf(f, " %s |", bwm_strategy_name(shown[i]));
	fprintf(f, " BWAP's DWP |\n|---|");
	for (i = 0; i <= NR_SHOWN; i++)
		fputs("---|", f);
	fputc('\n', f);
}

static void figures(FILE *f, const struct bwm_repro *r)
{
	int i, b, k;

	fprintf(f, "## Co-scheduled (the paper's Figures 2, 3a, 3b)\n\n"
		"Speedup over first-touch; `canonical+dwp` is BWAP.\n\n");
	for (i = 0; i < BWM_REPRO_SETS; i++) {
		fprintf(f, "### %s\n\n", bwm_repro_sets[i].label);
		case_header(f, "benchmark");
		for (b = 0; b < BWM_REPRO_BENCHES; b++)
			case_row(f, bwm_repro_benches[b].abbr, &r->co[i][b],
				 NULL);
		fputc('\n', f);
	}
	fprintf(f, "## Stand-alone (the paper's Figures 3c, 3d)\n\n"
		"Each strategy at the number of worker nodes (in brackets) "
		"where it runs fastest; speedup over first-touch at its own "
		"best.\n\n");
	for (k = 0; k < BWM_REPRO_MACHINES; k++) {
		fprintf(f, "### Machine %c\n\n", "AB"[k]);
		case_header(f, "benchmark");
		for (b = 0; b < BWM_REPRO_BENCHES; b++)
			case_row(f, bwm_repro_benches[b].abbr, &r->alone[k][b],
				 r->alone_workers[k][b]);
		fputc('\n', f);
	}
}

/* A table with one column per co-scheduled worker set. */
static void sets_header(FILE *f)
{
	int i;

	fputs("| benchmark |", f);
	for (i = 0; i < BWM_REPRO_SETS; i++)
		fprintf(f, " %s |", bwm_repro_sets[i].label);
	fputs("\n|---|", f);
	for (i = 0; i < BWM_REPRO_SETS; i++)
		fputs("---|", f);
	fputc('\n', f);
}

static void table2(FILE *f, const struct bwm_repro *r)
{
	double err = 0;
	int i, b;

	fprintf(f, "## BWAP's best DWP (the paper's Table II), paper / model\n\n");
	sets_header(f);
	for (b = 0; b < BWM_REPRO_BENCHES; b++) {
		fprintf(f, "| %s |", bwm_repro_benches[b].abbr);
		for (i = 0; i < BWM_REPRO_SETS; i++) {
			fprintf(f, " %.2f / %.2f |", bwm_repro_table2[b][i],
				r->co[i][b].dwp);
			err += fabs(bwm_repro_table2[b][i] - r->co[i][b].dwp);
		}
		fputc('\n', f);
	}
	fprintf(f, "\nMean absolute difference: %.2f.\n\n",
		err / (BWM_REPRO_BENCHES * BWM_REPRO_SETS));
}

static void trends(FILE *f, const struct bwm_repro *r)
{
	struct bwm_repro_max ceiling;
	int i, b;

	fprintf(f, "## Trends\n\n"
		"BWAP over the better uniform interleave (uniform-workers or "
		"uniform-all), co-scheduled: the gain shrinks as the worker "
		"set grows (section IV-A).\n\n");
	sets_header(f);
	for (b = 0; b < BWM_REPRO_BENCHES; b++) {
		fprintf(f, "| %s |", bwm_repro_benches[b].abbr);
		for (i = 0; i < BWM_REPRO_SETS; i++)
			fprintf(f, " %.2fx |",
				bwm_repro_over_uniform(&r->co[i][b]));
		fputc('\n', f);
	}
	fprintf(f, "\nThe split of BWAP's gain over uniform-all between its "
		"components, co-scheduled: the canonical tuner (BWAP over "
		"BWAP-uniform) and the DWP tuner (BWAP-uniform over "
		"uniform-all); beside them the most that any weights gain "
		"over BWAP-uniform (the best placement a search of every "
		"weight vector finds), which no canonical tuner can "
		"pass.\n\n| case | canonical | DWP | any weights |\n"
		"|---|---|---|---|\n");
	for (i = 0; i < BWM_REPRO_SETS; i++) {
		for (b = 0; b < BWM_REPRO_BENCHES; b++) {
			const struct bwm_repro_case *c = &r->co[i][b];

			fprintf(f, "| %s, %s | %.2fx | %.2fx | %.2fx |\n",
				bwm_repro_benches[b].abbr,
				bwm_repro_sets[i].label,
				c->gbps[BWM_CANONICAL_DWP] /
				c->gbps[BWM_BWAP_UNIFORM],
				c->gbps[BWM_BWAP_UNIFORM] /
				c->gbps[BWM_UNIFORM_ALL],
				c->gbps[BWM_OPTIMUM] /
				c->gbps[BWM_BWAP_UNIFORM]);
		}
	}
	fputc('\n', f);
	ceiling = bwm_repro_canonical_ceiling(r, -1);
	if (ceiling.set < 0)
		return;
	fprintf(f, "No weights gain more than %.2fx over BWAP-uniform in "
		"any of these cases (largest: %s, %s), against the paper's "
		"up to %.2fx for the canonical tuner: on this model its share "
		"is bounded by the machine and the benchmarks, not by how "
		"the canonical weights are derived.\n\n", ceiling.ratio,
		bwm_repro_benches[ceiling.bench].abbr,
		bwm_repro_sets[ceiling.set].label,
		bwm_repro_claims[5].paper);
}

/* Every check, its verdict, and for a deviation why. */
static void checks(FILE *f, const struct bwm_repro *r)
{
	struct bwm_repro_check c[BWM_REPRO_MAX_CHECKS];
	struct bwm_repro_published p;
	int i, n;

	bwm_repro_published_paper(&p);
	n = bwm_repro_checks(r, &p, c, BWM_REPRO_MAX_CHECKS);
	fprintf(f, "## Checks\n\n"
		"What the tests assert (tests/reproduce.c), each against the "
		"paper's figure or, for a trend, a bound; a figure this model "
		"does not reproduce is a known deviation, with the model's "
		"value beside the paper's and why.  Table II's highest DWP is "
		"a benchmark's index (OC 0, ON 1, SP.B 2, SC 3, FT.C 4; -1: a "
		"tie).\n\n"
		"| check | case | paper or bound | model | tolerance | verdict |\n"
		"|---|---|---|---|---|---|\n");
	for (i = 0; i < n; i++) {
		const struct bwm_repro_deviation *d = bwm_repro_deviation(c[i].id);

		fprintf(f, "| %s: %s | %s | %.3f | %.3f | ", c[i].id,
			c[i].what, c[i].where, c[i].paper, c[i].model);
		if (c[i].kind == BWM_CHECK_RATIO)
			fprintf(f, "%.0f %% |", c[i].tol * 100);
		else if (c[i].kind == BWM_CHECK_ABS)
			fprintf(f, "%.2f |", c[i].tol);
		else
			fprintf(f, "%s |", c[i].kind == BWM_CHECK_ABOVE ? "above" :
				c[i].kind == BWM_CHECK_BELOW ? "below" : "equal");
		if (c[i].pass)
			fprintf(f, " ok |\n");
		else
			fprintf(f, " %s: %s |\n", d ? "known deviation" : "FAILS",
				d ? d->reason : "not recorded");
	}
	fputc('\n', f);
}

static void survey_means(FILE *f, const struct bwm_repro *r)
{
	unsigned int i;
	int b;

	fprintf(f, "## The survey's geometric means (its Figure 9)\n\n"
		"The survey ran its benchmarks on the whole of a four-socket "
		"Opteron 6272, machine A's model, with threads free to move; "
		"the model runs the five benchmarks above on all 8 nodes with "
		"threads pinned.  Speedup over first-touch:\n\n"
		"| policy | survey | model |\n|---|---|---|\n");
	for (i = 0; i < sizeof(survey) / sizeof(survey[0]); i++) {
		double s = 0;

		fprintf(f, "| %s | %.2fx |", survey[i].policy, survey[i].paper);
		if (survey[i].s == BWM_NR_STRATEGIES) {
			fputs(" not modelled |\n", f);
			continue;
		}
		for (b = 0; b < BWM_REPRO_BENCHES; b++)
			s += log(r->full[0][b].gbps[survey[i].s] /
				 r->full[0][b].gbps[BWM_FIRST_TOUCH]);
		fprintf(f, " %.2fx |\n", exp(s / BWM_REPRO_BENCHES));
	}
	fputc('\n', f);
}

/* DIR/NAME: the chart b. */
static int write_bars(const char *dir, const char *name,
		      const struct bwm_svg_bars *b)
{
	char path[4096];
	int ret;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = bwm_svg_bars(f, b);
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

/* One figure of the paper: the benchmarks, a bar per strategy. */
static int figure(const char *dir, const char *name, const char *title,
		  const struct bwm_repro_case *cases)
{
	const char *series[NR_SHOWN], *colour[NR_SHOWN];
	const char *group[BWM_REPRO_BENCHES];
	double v[BWM_REPRO_BENCHES * NR_SHOWN];
	struct bwm_svg_bars bars = {
		.title = title, .ylabel = "speedup vs first-touch",
		.ngroups = BWM_REPRO_BENCHES, .nseries = NR_SHOWN,
		.group = group, .series = series, .colour = colour, .v = v,
		.unit = "x",
	};
	unsigned int i;
	int b;

	for (i = 0; i < NR_SHOWN; i++) {
		series[i] = bwm_strategy_name(shown[i]);
		colour[i] = bwm_svg_colours[shown[i] % BWM_SVG_NR_COLOURS];
	}
	for (b = 0; b < BWM_REPRO_BENCHES; b++) {
		group[b] = bwm_repro_benches[b].abbr;
		for (i = 0; i < NR_SHOWN; i++)
			v[b * NR_SHOWN + i] = cases[b].gbps[shown[i]] /
					      cases[b].gbps[BWM_FIRST_TOUCH];
	}
	return write_bars(dir, name, &bars);
}

static const char *const paper_model[2] = { "paper", "model" };

/* The headline ratios, the paper's beside the model's. */
static int claims_svg(const char *dir, const struct bwm_repro *r)
{
	static const char *const group[BWM_REPRO_CLAIMS] = {
		"vs uniform-", "vs autonuma", "vs uniform-", "vs first-",
		"DWP tuner", "canonical",
	};
	static const char *const sub[BWM_REPRO_CLAIMS] = {
		"workers", "", "all", "touch", "", "tuner",
	};
	const char *colour[2] = { bwm_svg_colours[0], bwm_svg_colours[7] };
	double v[BWM_REPRO_CLAIMS * 2];
	struct bwm_svg_bars bars = {
		.title = "the paper's headline ratios (largest, both machines)",
		.ylabel = "ratio", .ngroups = BWM_REPRO_CLAIMS, .nseries = 2,
		.group = group, .sub = sub, .series = paper_model,
		.colour = colour, .v = v, .unit = "x",
	};
	int i;

	for (i = 0; i < BWM_REPRO_CLAIMS; i++) {
		v[2 * i] = bwm_repro_claims[i].paper;
		v[2 * i + 1] = bwm_repro_claim_max(r, &bwm_repro_claims[i],
						   -1).ratio;
	}
	return write_bars(dir, "headline.svg", &bars);
}

/* Table II on one machine, the paper's DWP beside the model's. */
static int table2_svg(const char *dir, const struct bwm_repro *r, int m)
{
	const char *group[BWM_REPRO_SETS * BWM_REPRO_BENCHES];
	const char *sub[BWM_REPRO_SETS * BWM_REPRO_BENCHES];
	const char *colour[2] = { bwm_svg_colours[0], bwm_svg_colours[7] };
	char subs[BWM_REPRO_SETS][16];
	double v[BWM_REPRO_SETS * BWM_REPRO_BENCHES * 2];
	char title[96], name[32];
	struct bwm_svg_bars bars = {
		.title = title, .ylabel = "BWAP's best DWP", .nseries = 2,
		.group = group, .sub = sub, .series = paper_model,
		.colour = colour, .v = v,
	};
	int i, b, g = 0;

	for (i = 0; i < BWM_REPRO_SETS; i++) {
		if (bwm_repro_sets[i].machine != m)
			continue;
		snprintf(subs[i], sizeof(subs[i]), "%d w",
			 __builtin_popcount(bwm_repro_sets[i].workers));
		for (b = 0; b < BWM_REPRO_BENCHES; b++, g++) {
			group[g] = bwm_repro_benches[b].abbr;
			sub[g] = subs[i];
			v[2 * g] = bwm_repro_table2[b][i];
			v[2 * g + 1] = r->co[i][b].dwp;
		}
	}
	bars.ngroups = g;
	snprintf(title, sizeof(title),
		 "Table II, machine %c: BWAP's best DWP, co-scheduled", "AB"[m]);
	snprintf(name, sizeof(name), "table2-%c.svg", "ab"[m]);
	return write_bars(dir, name, &bars);
}

static int figures_svg(const char *dir, const struct bwm_repro *r)
{
	static const char *const names[BWM_REPRO_SETS] = {
		"fig2-a-1-worker.svg", "fig2-a-2-workers.svg",
		"fig2-a-4-workers.svg", "fig3a-b-1-worker.svg",
		"fig3b-b-2-workers.svg",
	};
	char title[128];
	int i, ret = 0;

	for (i = 0; i < BWM_REPRO_SETS && !ret; i++) {
		snprintf(title, sizeof(title), "co-scheduled, machine %s",
			 bwm_repro_sets[i].label);
		ret = figure(dir, names[i], title, r->co[i]);
	}
	if (!ret)
		ret = figure(dir, "fig3c-a-stand-alone.svg",
			     "stand-alone, machine A", r->alone[0]);
	if (!ret)
		ret = figure(dir, "fig3d-b-stand-alone.svg",
			     "stand-alone, machine B", r->alone[1]);
	if (!ret)
		ret = claims_svg(dir, r);
	for (i = 0; i < BWM_REPRO_MACHINES && !ret; i++)
		ret = table2_svg(dir, r, i);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct bwm_repro r;
	const char *dir = NULL, *data = getenv("BWMODEL_DATA");
	char msg[512] = "", path[4096];
	FILE *f = stdout;
	int c, ret;

	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0],
			argv[optind]);
		usage(stderr, argv[0]);
		return 2;
	}
	ret = bwm_reproduce(data && *data ? data : BWM_DATADIR, &r, msg,
			    sizeof(msg));
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[0], msg);
		return 1;
	}
	if (dir) {
		if (mkdir(dir, 0777) && errno != EEXIST) {
			fprintf(stderr, "%s: %s: %s\n", argv[0], dir,
				strerror(errno));
			return 1;
		}
		snprintf(path, sizeof(path), "%s/reproduce.md", dir);
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "%s: %s: %s\n", argv[0], path,
				strerror(errno));
			return 1;
		}
	}
	fprintf(f, "# The BWAP paper's evaluation on the model\n\n"
		"Machines `%s` and `%s`; benchmarks `%s`, `%s`, `%s`, `%s`, `%s` "
		"(Documentation/reproduce.md says where each figure comes from).\n\n",
		bwm_repro_machines[0], bwm_repro_machines[1],
		bwm_repro_benches[0].preset, bwm_repro_benches[1].preset,
		bwm_repro_benches[2].preset, bwm_repro_benches[3].preset,
		bwm_repro_benches[4].preset);
	claims(f, &r);
	figures(f, &r);
	table2(f, &r);
	trends(f, &r);
	checks(f, &r);
	survey_means(f, &r);
	ret = ferror(f) ? -EIO : 0;
	if (dir) {
		if (fclose(f) && !ret)
			ret = -EIO;
		if (!ret)
			ret = figures_svg(dir, &r);
	}
	if (ret) {
		fprintf(stderr, "%s: writing the report: %s\n", argv[0],
			strerror(-ret));
		return 1;
	}
	return 0;
}
