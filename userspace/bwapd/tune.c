// SPDX-License-Identifier: GPL-2.0
/*
 * The tuner: the placement that minimises an application's stall metric,
 * steered through its own weights.
 *
 * With the model of the machine (and memory accesses counted) it
 * predicts, then refines.  Every measured setting is a point: the
 * placement, the traffic and the share of cycles not stalled.  The
 * application is fitted to the model from the points so far
 * (bestshot.c) and the next setting is the whole weight vector the
 * fitted model predicts best, nodes left out where the target's weights
 * can leave them out; the first is the best shot, each next one uses one
 * more point.  The search stops when the model no longer predicts a gain
 * of min_gain over the best setting measured, when it proposes a setting
 * within 1 % of the pages of one measured, after two settings in a row
 * that did not help or, once one helped, one that did not and promised
 * no more than the noise of a step, or after max_steps.
 *
 * The model is what bwapd profile measured of the machine, or what the
 * firmware says of it: it can be wrong.  Before any step it must agree
 * with what was measured of this machine already, the workers' canonical
 * weights, within BWAPD_MODEL_AGREE; a model that does not is not of this
 * machine, and the DWP search tunes without it.  One that does is
 * calibrated to them (calibrate()).  Every prediction is checked by
 * the measurement that follows it.  One from a fit of two points or more
 * that misses by over 3 % what any view of the application allows, or a
 * model none of whose settings beat the start and one of which missed
 * so, hands the tuning to the DWP search, run as it would have run
 * without the model, with max_steps of its own; the best setting either
 * found stays.  Where the model's checks held, the DWP line is climbed
 * from the DWP of its best setting all the same (a model borne out near
 * the start can still be wrong further away), and the better of the two
 * stays.
 *
 * Without the model it is the paper's DWP tuner (BWAP section III-B).
 * DWP d moves the canonical page shares towards the worker nodes: the
 * workers get S + d (1 - S) of the pages (S: their canonical share), the
 * ratios inside the workers and inside the other nodes stay canonical.
 * The paper's search raises DWP by x while the stall rate falls and stops
 * at the first setting that does not help, where it stays (its user-level
 * placement could not move pages back).  Here the search can go both
 * ways: from a non-zero start it also tries lower settings, it then
 * refines around the best setting with a finer step, and it ends on the
 * best setting measured, moving pages back if it has to.
 *
 * Both apply each setting as the target's weights and by moving the
 * pages whose node changes, then measure it: n metric samples over t
 * seconds, the c highest and c lowest dropped, the rest averaged.  Every
 * setting tried after the start is a step; max_steps bounds them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bestshot.h"
#include "tune.h"

#define MAX_SAMPLES	1000
#define MAX_POINTS	128

void bwapd_tune_opts_default(struct bwapd_tune_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->samples = 20;
	o->trim = 5;
	o->period = 0.2;
	o->step = 0.10;
	o->fine_step = 0.025;
	o->max_steps = 10;
	o->min_gain = 0.005;
	o->min_mapi = 0.001;
	o->phase_change = 0.25;
	o->phase_periods = 3;
	o->watch_every = 5;
	o->protect = 0.02;
	o->u8_err = 0.001;
	o->migrate.batch = 1024;
	o->migrate.pages_per_s = 262144;	/* 1 GiB/s of 4 KiB pages */
}

int bwapd_tune_opts_check(const struct bwapd_tune_opts *o)
{
	if (o->samples < 1 || o->samples > MAX_SAMPLES || o->trim < 0 ||
	    2 * o->trim >= o->samples || !(o->period > 0) ||
	    !(o->step > 0 && o->step <= 1) ||
	    !(o->fine_step >= 0 && o->fine_step <= 1) || o->max_steps < 0 ||
	    o->max_steps > MAX_POINTS - 2 || !(o->min_mapi >= 0) ||
	    !(o->floor >= 0 && o->floor <= o->start && o->start <= 1) ||
	    !(o->phase_change > 0) || !(o->min_gain >= 0 && o->min_gain < 1) ||
	    o->phase_periods < 1 || !(o->watch_every >= 0) || !(o->protect >= 0 && o->protect < 1) || !(o->u8_err >= 0 && o->u8_err < 1) ||
	    !(o->migrate.pages_per_s >= 0))
		return -EINVAL;
	return 0;
}

/* A node keeps at least this share: weights cannot leave a node out. */
#define MIN_SHARE	1e-4

int bwapd_dwp_weights(const double *canonical, int nr_nodes, uint32_t workers,
		      double dwp, double u8_err, uint8_t *w)
{
	double f[BWAPD_MAX_NODES], sum = 0;
	int j, ret;

	ret = bwm_apply_dwp(canonical, nr_nodes, workers, dwp, f);
	if (ret)
		return ret;
	for (j = 0; j < nr_nodes; j++) {
		if (canonical[j] > 0 && f[j] < MIN_SHARE)
			f[j] = MIN_SHARE;
		sum += f[j];
	}
	for (j = 0; j < nr_nodes; j++)
		f[j] /= sum;
	ret = bwm_fractions_to_u8(f, nr_nodes, u8_err, w, NULL);
	return ret < 0 ? ret : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

enum bwapd_metric bwapd_metric_of(const struct bwapd_tune_opts *o,
				  unsigned int have)
{
	if (o->metric != BWAPD_METRIC_AUTO)
		return o->metric;
	if (have & BWAPD_HAVE_NODES)
		return BWAPD_NODE_STALLS_PER_INSN;
	return have & BWAPD_HAVE_MAPI ? BWAPD_STALLS_PER_INSN : BWAPD_STALL_RATE;
}

const char *bwapd_metric_name(enum bwapd_metric m)
{
	switch (m) {
	case BWAPD_NODE_STALLS_PER_INSN:
		return "slowest node's stalls/instruction";
	case BWAPD_STALLS_PER_INSN:
		return "stalls/instruction";
	case BWAPD_CPI:
		return "cycles/instruction";
	default:
		return "stalls/s";
	}
}

/*
 * A node's threads that retire this share of the instructions or less
 * (a helper thread, one that ran there for a moment) say nothing of it.
 */
#define NODE_MIN_INSNS	0.05

/*
 * The stalled cycles per instruction of the worker node whose threads
 * wait most, between readings a and b.  An application's threads go as
 * fast as the slowest lets them (they share its work, they meet at its
 * barriers), so the setting that helps the most stalled node helps the
 * application; over all threads, a setting that speeds the others up
 * while it slows that one down looks better than it is.
 */
static double node_stalls_per_insn(const struct bwapd_counters *a,
				   const struct bwapd_counters *b, int nr)
{
	double total = 0, worst = 0;
	int j;

	for (j = 0; j < nr; j++)
		total += (double)(b->node_instructions[j] - a->node_instructions[j]);
	for (j = 0; j < nr; j++) {
		double i = (double)(b->node_instructions[j] - a->node_instructions[j]);
		double st = (double)(b->node_stall_cycles[j] - a->node_stall_cycles[j]);

		if (i > 0 && i >= NODE_MIN_INSNS * total)
			worst = fmax(worst, st / i);
	}
	return worst;
}

/* The metric m between readings a and b. */
static double metric(enum bwapd_metric m, const struct bwapd_counters *a,
		     const struct bwapd_counters *b, int nr_nodes)
{
	double dt = b->seconds - a->seconds;
	double insns = b->instructions > a->instructions ?
		       (double)(b->instructions - a->instructions) : 0;

	switch (m) {
	case BWAPD_NODE_STALLS_PER_INSN:
		return node_stalls_per_insn(a, b, nr_nodes);
	case BWAPD_STALLS_PER_INSN:
		return insns > 0 ? (double)(b->stall_cycles - a->stall_cycles) / insns : 0;
	case BWAPD_CPI:
		return insns > 0 ? (double)(b->cycles - a->cycles) / insns : 0;
	default:
		return dt > 0 ? (double)(b->stall_cycles - a->stall_cycles) / dt : 0;
	}
}

/*
 * The standard error of the mean of sorted samples r[n] without the
 * trim lowest and highest: the spread of the middle samples alone is
 * about half of it (the tails they dropped still move which samples are
 * the middle), so the samples beyond are counted as the nearest kept
 * one (winsorized) and the standard deviation of those is divided by
 * the kept share of sqrt(n) (Tukey and McLaughlin, 1963).
 */
static double trimmed_se(const double *r, int n, int trim)
{
	double lo = r[trim], hi = r[n - trim - 1], sum = 0, var = 0, mean;
	int k;

	if (n < 2)
		return 0;
	for (k = 0; k < n; k++)
		sum += fmin(hi, fmax(lo, r[k]));
	mean = sum / n;
	for (k = 0; k < n; k++) {
		double x = fmin(hi, fmax(lo, r[k])) - mean;

		var += x * x;
	}
	return sqrt(var / (n - 1) * n) / (n - 2 * trim);
}

int bwapd_measure(struct bwapd_target *t, const struct bwapd_tune_opts *o,
		  double *rate, double *mapi, double *se)
{
	double r[MAX_SAMPLES], insns = 0, acc = 0, sum = 0;
	struct bwapd_counters a, b;
	enum bwapd_metric m;
	int k, kept, have, ret;

	ret = t->ops->counters(t, &a);
	if (ret)
		return ret;
	if (!(a.have & BWAPD_HAVE_STALLS)) {
		if (!t->why[0])
			snprintf(t->why, sizeof(t->why), "no stall counter");
		return -EOPNOTSUPP;
	}
	have = a.have;
	m = bwapd_metric_of(o, a.have);
	if (m != BWAPD_STALL_RATE && !(a.have & BWAPD_HAVE_MAPI)) {
		snprintf(t->why, sizeof(t->why), "no instruction counter");
		return -EOPNOTSUPP;
	}
	if (m == BWAPD_NODE_STALLS_PER_INSN && !(a.have & BWAPD_HAVE_NODES)) {
		snprintf(t->why, sizeof(t->why), "no counts by node");
		return -EOPNOTSUPP;
	}
	for (k = 0; k < o->samples; k++) {
		ret = t->ops->wait(t, o->period / o->samples);
		if (!ret)
			ret = t->ops->counters(t, &b);
		if (ret)
			return ret;
		r[k] = metric(m, &a, &b, t->nr_nodes);
		insns += (double)(b.instructions - a.instructions);
		acc += (double)(b.mem_accesses - a.mem_accesses);
		have &= b.have;
		a = b;
	}
	qsort(r, (size_t)o->samples, sizeof(r[0]), cmp_double);
	for (k = o->trim; k < o->samples - o->trim; k++)
		sum += r[k];
	kept = o->samples - 2 * o->trim;
	*rate = sum / kept;
	if (se)
		*se = trimmed_se(r, o->samples, o->trim);
	*mapi = (have & BWAPD_HAVE_MAPI) && insns > 0 ? acc / insns : -1;
	return 0;
}

struct tuner {
	struct bwapd_target *t;		/* whose weights and pages move */
	struct bwapd_target *m;		/* whose stalls are measured */
	double floor;			/* lowest DWP to try */
	const struct bwapd_tune_opts *o;
	const double *canonical;
	struct bwapd_tune_result *r;
	double cur;			/* the target's DWP */
	uint8_t cur_w[BWAPD_MAX_NODES];
	double best, best_rate, best_se;
	double last_rate, last_se;	/* of the last setting measured */
	int budget;			/* the steps to stop at */
	/*
	 * The DWP line checks a model's best: a direction ends at the
	 * first setting that does not help, not only at one surely worse.
	 */
	int checking;
	double check_rate, check_se;	/* the model's best, to beat */
	uint8_t check_w[BWAPD_MAX_NODES];	/* ... its weights */
	uint8_t best_w[BWAPD_MAX_NODES];
	int nr;
	double d[MAX_POINTS];		/* settings measured: DWP, */
	uint8_t w[MAX_POINTS][BWAPD_MAX_NODES];	/* weights */
	uint8_t line[MAX_POINTS];	/* 1: on the DWP line */
	double rate[MAX_POINTS], se[MAX_POINTS];	/* what each measured */
	int pti[MAX_POINTS];		/* its point for the fit, or -1 */
	int npts;			/* ... and points for the fit */
	struct bwapd_point pt[MAX_POINTS];
	struct bwm_machine view;	/* the model, calibrated */
};

/* Was DWP d measured (the line's settings, not the model's)? */
static int measured(const struct tuner *tu, double d)
{
	int i;

	for (i = 0; i < tu->nr; i++)
		if (tu->line[i] && fabs(tu->d[i] - d) < 1e-9)
			return 1;
	return 0;
}

double bwapd_weights_dwp(const double *canonical, int nr_nodes,
			 uint32_t workers, const uint8_t *w)
{
	double f[BWAPD_MAX_NODES], s0 = 0, s = 0;
	int j;

	if (bwm_weights_to_fractions(w, nr_nodes, f))
		return 0;
	for (j = 0; j < nr_nodes; j++) {
		if (!(workers & (1u << j)))
			continue;
		s0 += canonical[j];
		s += f[j];
	}
	return s0 < 1 - 1e-9 ? round((s - s0) / (1 - s0) * 1e4) / 1e4 : 0;
}

/*
 * The point of the setting just measured: where the pages are (as the
 * target reports them, else as the weights say), the traffic and the
 * unstalled share between counter readings a and b.
 */
static void add_point(struct tuner *tu, const uint8_t *w,
		      const struct bwapd_counters *a,
		      const struct bwapd_counters *b)
{
	struct bwapd_point *p = &tu->pt[tu->npts];
	uint64_t pages[BWAPD_MAX_NODES], total = 0;
	double dt = b->seconds - a->seconds;
	int n = tu->t->nr_nodes, j;

	if (!((a->have & b->have) & BWAPD_HAVE_MAPI) || !(dt > 0) ||
	    b->cycles <= a->cycles || tu->npts >= MAX_POINTS)
		return;
	if (!tu->t->ops->pages(tu->t, pages, n))
		for (j = 0; j < n; j++)
			total += pages[j];
	if (total)
		for (j = 0; j < n; j++)
			p->frac[j] = (double)pages[j] / (double)total;
	else if (bwm_weights_to_fractions(w, n, p->frac))
		return;
	p->gbps = (double)(b->mem_accesses - a->mem_accesses) *
		  BWM_LINE_BYTES / dt / 1e9;
	p->busy = 1 - (double)(b->stall_cycles - a->stall_cycles) /
		      (double)(b->cycles - a->cycles);
	p->read = -1;
	if ((a->have & b->have) & BWAPD_HAVE_RW) {
		double rd = (double)(b->read_bytes - a->read_bytes);
		double wr = (double)(b->write_bytes - a->write_bytes);

		if (rd + wr > 0)
			p->read = rd / (rd + wr);
	}
	tu->npts++;
}

/* Weights w (DWP d) and their pages; then, if 'measure', the metric. */
static int apply(struct tuner *tu, const uint8_t *w, double d,
		 double predicted, const char *what, int measure)
{
	struct bwapd_target *t = tu->t;
	struct bwapd_counters a, b;
	struct bwapd_tune_step st;
	int n = t->nr_nodes, npts = tu->npts, ret;

	memset(&st, 0, sizeof(st));
	st.step = measure && tu->nr ? tu->r->steps + 1 : tu->r->steps;
	st.dwp = d;
	st.what = what;
	st.mapi = -1;
	st.stall_rate = -1;
	st.predicted = predicted;
	memcpy(st.weights, w, (size_t)n);
	ret = t->ops->set_weights(t, st.weights, n);
	if (ret)
		return ret;
	ret = t->ops->migrate(t, st.weights, n, &tu->o->migrate, &st.migration);
	tu->r->moved += st.migration.moved;
	tu->r->failed += st.migration.failed;
	tu->cur = d;
	memcpy(tu->cur_w, st.weights, sizeof(st.weights));
	memcpy(tu->r->weights, st.weights, sizeof(st.weights));
	if (!ret && measure)
		ret = tu->m->ops->counters(tu->m, &a);
	if (!ret && measure)
		ret = bwapd_measure(tu->m, tu->o, &st.stall_rate, &st.mapi,
				    &tu->last_se);
	if (!ret && measure && !tu->m->ops->counters(tu->m, &b) && tu->m == t)
		add_point(tu, st.weights, &a, &b);
	if (ret && tu->m != t)
		memcpy(t->why, tu->m->why, sizeof(t->why));
	if (ret)
		return ret;
	if (measure) {
		if (tu->nr)
			tu->r->steps++;
		tu->d[tu->nr] = d;
		tu->rate[tu->nr] = st.stall_rate;
		tu->se[tu->nr] = tu->last_se;
		tu->pti[tu->nr] = tu->npts > npts ? tu->npts - 1 : -1;
		memcpy(tu->w[tu->nr++], st.weights, sizeof(st.weights));
		tu->r->stall_rate = st.stall_rate;
		tu->last_rate = st.stall_rate;
		if (tu->nr == 1 || st.stall_rate < tu->best_rate) {
			tu->best = d;
			tu->best_rate = st.stall_rate;
			tu->best_se = tu->last_se;
			memcpy(tu->best_w, st.weights, sizeof(st.weights));
		}
		if (st.mapi >= 0)
			tu->r->mapi = st.mapi;
	}
	if (tu->o->log) {
		struct bwapd_counters c;

		if (!t->ops->counters(t, &c))
			st.seconds = c.seconds;
		tu->o->log(tu->o->log_arg, &st);
	}
	return 0;
}

/* Weights and pages for DWP d; then, if 'measure', its stall rate. */
static int step(struct tuner *tu, double d, const char *what, int measure)
{
	struct bwapd_target *t = tu->t;
	uint8_t w[BWAPD_MAX_NODES] = { 0 };
	int ret, nr = tu->nr;

	ret = bwapd_dwp_weights(tu->canonical, t->nr_nodes, t->workers, d,
				tu->o->u8_err, w);
	if (ret) {
		snprintf(t->why, sizeof(t->why),
			 "no weights for DWP %.3f: %s", d, strerror(-ret));
		return ret;
	}
	ret = apply(tu, w, d, -1, what, measure);
	if (!ret && tu->nr > nr)
		tu->line[nr] = 1;
	return ret;
}

static double clamp(const struct tuner *tu, double d)
{
	d = fmin(1, fmax(tu->floor, d));
	/* keep the grid exact: 0.1 * 3 is 0.30000000000000004 */
	return round(d * 1e6) / 1e6;
}

/* Beyond doubt: by this many standard errors of a difference. */
#define DOUBT	3

/*
 * Is a metric measured with standard error a_se worse than b (b_se)
 * beyond doubt?
 */
static int beyond_doubt(double a, double a_se, double b, double b_se)
{
	return a - b > DOUBT * sqrt(a_se * a_se + b_se * b_se);
}

/*
 * Is the last setting worse than the best beyond doubt?  The paper's
 * search stops at any setting that is not better.
 */
static int surely_worse(const struct tuner *tu)
{
	return tu->o->forward_only ||
	       beyond_doubt(tu->last_rate, tu->last_se, tu->best_rate,
			    tu->best_se);
}

/*
 * A prediction this far from the measurement, from a fit of two points
 * or more, where the fit of the application cannot be what is wrong: the
 * model of the machine is wrong here.  While it predicts, the DWP search
 * on the measurements alone takes over, from the start; while the DWP
 * line checks its best, the check goes on as that search would.
 */
#define MODEL_WRONG	0.03

/* The threads the target runs on each worker node; NULL if it cannot say. */
static const int *known_threads(const struct tuner *tu, int *threads)
{
	struct bwapd_target *t = tu->t;

	return t->ops->threads && !t->ops->threads(t, threads, t->nr_nodes) ?
	       threads : NULL;
}

/*
 * The views of the application that npts points pt allow: the fit, or
 * where they leave its parallelism open (a range of it fits them as
 * well: at placements where bandwidth, not latency, bounds the run,
 * every large parallelism fits), one at each end of the range and one
 * between them.  How many.
 */
#define NR_VIEWS	3
static int views(const struct tuner *tu, const struct bwapd_point *pt,
		 int npts, struct bwm_workload *v)
{
	double range[2];
	int threads[BWAPD_MAX_NODES];

	if (bwapd_fit(&tu->view, tu->t->workers, known_threads(tu, threads),
		      pt, npts, &v[0], NULL, range))
		return -EINVAL;
	if (!(range[1] > range[0] * 1.05))
		return 1;
	v[1] = v[2] = v[0];
	v[0].mlp = sqrt(range[0] * range[1]);
	v[1].mlp = range[0];
	v[2].mlp = range[1];
	return NR_VIEWS;
}

/* The least and the most the views predict at shares f. */
static void view_span(const struct tuner *tu, const struct bwm_workload *v,
		      int nv, const double *f, double *span)
{
	int k;

	for (k = 0; k < nv; k++) {
		double r = bwapd_fit_gbps(&tu->view, &v[k], f);

		span[0] = k ? fmin(span[0], r) : r;
		span[1] = k ? fmax(span[1], r) : r;
	}
}

/* Did the model, fitted to the points before it, miss the last point? */
static int model_missed(const struct tuner *tu)
{
	const struct bwapd_point *last = &tu->pt[tu->npts - 1];
	int threads[BWAPD_MAX_NODES];
	struct bwm_workload wl;
	double g;

	if (tu->npts < 3 ||
	    bwapd_fit(&tu->view, tu->t->workers, known_threads(tu, threads),
		      tu->pt, tu->npts - 1, &wl, NULL, NULL))
		return 0;
	g = bwapd_fit_gbps(&tu->view, &wl, last->frac);
	return g > 0 && fabs(last->gbps / g - 1) > MODEL_WRONG;
}

/*
 * Can the check's line, which just helped by going from a setting of
 * metric 'was' to d, still beat the model's best further on?  Not if,
 * helping as much at every step to the end of the line, it would not: a
 * line that helps less the nearer it comes to its best (it has one)
 * helps no more than that.
 */
static int out_of_reach(const struct tuner *tu, double by, double d,
			double was)
{
	double end = by > 0 ? 1 : tu->floor;
	double left = floor(fabs(end - d) / fabs(by) + 1e-9);
	double per = was / tu->best_rate;

	return per > 1 && tu->best_rate / pow(per, left) > tu->check_rate;
}

/*
 * How far the model is from what was measured where it was not fitted:
 * of every point, the relative distance of its traffic from what the
 * views of the other points predict there (0 within their span);
 * infinite with fewer than three points.
 */
static double model_error(const struct tuner *tu)
{
	struct bwapd_point others[MAX_POINTS];
	struct bwm_workload v[NR_VIEWS];
	double e = 0, span[2];
	int i, nv, n = tu->npts;

	if (n < 3)
		return INFINITY;
	for (i = 0; i < n; i++) {
		const struct bwapd_point *p = &tu->pt[i];

		memcpy(others, tu->pt, sizeof(others[0]) * (size_t)n);
		others[i] = others[n - 1];
		nv = views(tu, others, n - 1, v);
		if (nv < 0)
			return INFINITY;
		view_span(tu, v, nv, p->frac, span);
		if (!(span[0] > 0) || !(p->gbps > 0))
			return INFINITY;
		e = fmax(e, fmax(p->gbps / span[1] - 1, span[0] / p->gbps - 1));
	}
	return e;
}

/* The traffic measured at weights w; 0 if none was. */
static double traffic(const struct tuner *tu, const uint8_t *w)
{
	int i;

	for (i = tu->nr - 1; i >= 0; i--)
		if (tu->pti[i] >= 0 &&
		    !memcmp(tu->w[i], w, (size_t)tu->t->nr_nodes))
			return tu->pt[tu->pti[i]].gbps;
	return 0;
}

/*
 * Does the model rule out that the check's line gets better at DWP d?
 * It does where the most its views predict there, raised by the most it
 * missed any point by where it was not fitted (model_error()) and by the
 * least gain worth a step, is still below what the line's best setting
 * so far moved: the model says the line falls there, and a check
 * direction ends at its first setting that does not help.  The check
 * has measured the line next to the model's best by then, so the model
 * has been tried on the line itself; the more it missed a point by, the
 * less it rules out, and with fewer than three points nothing.  Where
 * the line's setting next to the model's best is the start, it has been
 * tried on the line only at the start, which every fit had: until the
 * line has another setting measured, nothing.  Nor does a model none of
 * whose settings was measured: one that puts its best at the start has
 * been tried nowhere off the line, and every point it fits lies on the
 * line it would cut short.
 */
static int ruled_out(const struct tuner *tu, double d)
{
	struct bwm_workload v[NR_VIEWS];
	uint8_t w[BWAPD_MAX_NODES];
	double f[BWAPD_MAX_NODES], span[2], best = traffic(tu, tu->best_w);
	int n = tu->t->nr_nodes, i, nv;

	if (!tu->r->predicted)
		return 0;
	for (i = 1; i < tu->nr && !tu->line[i]; i++)
		;
	if (i == tu->nr)
		return 0;	/* the line tried at the start only */
	if (!(best > 0) ||
	    bwapd_dwp_weights(tu->canonical, n, tu->t->workers, d,
			      tu->o->u8_err, w) ||
	    bwm_weights_to_fractions(w, n, f))
		return 0;
	nv = views(tu, tu->pt, tu->npts, v);
	if (nv < 0)
		return 0;
	view_span(tu, v, nv, f, span);
	return span[1] * (1 + model_error(tu) + tu->o->min_gain) < best;
}

/*
 * Has the check's line shown the model wrong?  The model said nothing
 * beats its best by more than min_gain of traffic (next_setting()); the
 * line does when its best beats the model's beyond doubt in the metric
 * and by more than min_gain in the traffic measured at each.  The metric
 * can tell apart settings whose traffic differs by less than that (for
 * a thread that mostly runs, stalls per instruction move several times
 * as much as its speed), and a line better by so little has not shown
 * the model wrong.  Without traffic measured at both, beyond doubt is
 * enough.
 */
static int model_beaten(const struct tuner *tu)
{
	double was = traffic(tu, tu->check_w), now = traffic(tu, tu->best_w);

	if (!beyond_doubt(tu->check_rate, tu->check_se, tu->best_rate,
			  tu->best_se))
		return 0;
	return !(was > 0 && now > 0) || now > was * (1 + tu->o->min_gain);
}

/*
 * Move from the best setting by 'by' while that helps, or while the
 * difference is within the noise of the measurements (a flat stretch
 * must not end the search); 1 if a better setting was found.  The
 * check does not measure a setting its model rules out (ruled_out()).
 */
static int climb(struct tuner *tu, double by, const char *what, int *ret)
{
	double from = tu->best;
	int helped = 0;

	while (!*ret && tu->r->steps < tu->budget) {
		double d = clamp(tu, from + by), before = tu->best;
		double before_rate = tu->best_rate;

		if (measured(tu, d) || (tu->checking && ruled_out(tu, d)))
			break;
		*ret = step(tu, d, what, 1);
		if (*ret)
			break;
		if (tu->checking && model_missed(tu))
			tu->checking = 0;
		if (tu->best != before) {
			helped = 1;
			/* the model's best beaten (model_beaten()): it was wrong */
			if (tu->checking && model_beaten(tu))
				tu->checking = 0;
			if (tu->checking && out_of_reach(tu, by, d, before_rate))
				break;
		} else if (surely_worse(tu) || tu->checking) {
			break;
		}
		from = d;
	}
	return helped;
}

/* Coarse: up; from a non-zero start that did not go up, down. */
static int coarse(struct tuner *tu)
{
	const struct bwapd_tune_opts *o = tu->o;
	int ret = 0;

	if (!climb(tu, o->step, "up", &ret) && !ret && !o->forward_only)
		climb(tu, -o->step, "down", &ret);
	return ret;
}

/* Fine: around the best. */
static int fine(struct tuner *tu)
{
	const struct bwapd_tune_opts *o = tu->o;
	int ret = 0;

	if (o->fine_step > 0 && o->fine_step < o->step && !o->forward_only &&
	    !climb(tu, o->fine_step, "refine", &ret) && !ret)
		climb(tu, -o->fine_step, "refine", &ret);
	return ret;
}

static int search(struct tuner *tu)
{
	int ret = coarse(tu);

	return ret ? ret : fine(tu);
}

/* The share of the pages that lie elsewhere under shares a than under b. */
static double apart(const double *a, const double *b, int n)
{
	double moved = 0;
	int j;

	for (j = 0; j < n; j++)
		moved += fabs(a[j] - b[j]) / 2;
	return moved;
}

/*
 * Weights for shares f, a node left out only where the target can; and
 * -EAGAIN if they are less than MIN_MOVE of the pages from a setting
 * measured: a difference the measurements cannot tell, not worth a
 * step.
 */
#define MIN_MOVE	0.01
static int share_weights(const struct tuner *tu, double *f, uint8_t *w)
{
	int n = tu->t->nr_nodes, i, j;
	double sum = 0, g[BWAPD_MAX_NODES];

	for (j = 0; j < n; j++) {
		if (!(f[j] > 0))
			f[j] = 0;
		if (!tu->t->leave_out && tu->canonical[j] > 0 &&
		    f[j] < MIN_SHARE)
			f[j] = MIN_SHARE;
		sum += f[j];
	}
	if (!(sum > 0))
		return -EINVAL;
	for (j = 0; j < n; j++)
		f[j] /= sum;
	if (bwm_fractions_to_u8(f, n, tu->o->u8_err, w, NULL) < 0 ||
	    bwm_weights_to_fractions(w, n, g))
		return -EINVAL;
	for (i = 0; i < tu->nr; i++) {
		double at[BWAPD_MAX_NODES];

		if (bwm_weights_to_fractions(tu->w[i], n, at))
			return -EINVAL;
		if (apart(g, at, n) < MIN_MOVE)
			return -EAGAIN;
	}
	return 0;
}

/*
 * What the tuner learns of the machine before it steps.  The model it
 * is handed (the one bwapd profile measured, or the firmware's) can be
 * wrong, and wrong most where it chose rather than measured: which way a
 * route goes, which links two flows share.  The workers' canonical
 * shares were measured with all of them loading every node at once.  If
 * the model's own profiling run gives them with more than
 * BWAPD_MODEL_AGREE of the pages elsewhere, the model is not of this
 * machine, and the DWP search tunes without it.  Within that, it is
 * calibrated to give them: every memory node's bandwidth as the workers
 * get it (its paths to them and its controller) scaled, in a fixed point,
 * by its share's error.  The scales' product, weighted by the shares,
 * stays 1, so the model's total bandwidth is the one it was handed.
 */
#define SCALE_MIN	0.25
#define SCALE_MAX	4.0
#define CALIBRATE_ITERS	8

static void scaled(const struct bwm_machine *m, const double *s,
		   struct bwm_machine *out)
{
	int n = m->nr_nodes, j, c;

	*out = *m;
	for (j = 0; j < n; j++) {
		out->node[j].ctrl_read_gbps *= s[j];
		out->node[j].ctrl_write_gbps *= s[j];
		for (c = 0; c < n; c++) {
			out->read_gbps[j][c] *= s[j];
			out->write_gbps[j][c] *= s[j];
		}
	}
}

static double clamp_scale(double s)
{
	return fmin(SCALE_MAX, fmax(SCALE_MIN, s));
}

/* The model's canonical shares of the workers: the benchmark on it. */
static int model_canonical(const struct bwm_machine *m, uint32_t workers,
			   double *f)
{
	return bwm_bench_canonical(m, workers, f) ? -EINVAL : 0;
}

double bwapd_model_off(const struct bwm_machine *m, uint32_t workers,
		       const double *canonical)
{
	double f[BWM_MAX_NODES];

	if (model_canonical(m, workers, f))
		return -1;
	return apart(f, canonical, m->nr_nodes);
}

/*
 * tu->view: the model calibrated to the canonical shares; -EDOM if it
 * does not agree with them (tu->view is then not to be used).
 */
static int calibrate(struct tuner *tu)
{
	const struct bwm_machine *m = tu->o->machine;
	double f[BWM_MAX_NODES], s[BWAPD_MAX_NODES];
	double off = bwapd_model_off(m, tu->t->workers, tu->canonical);
	int n = m->nr_nodes, j, k;

	if (off < 0)
		return -EINVAL;
	if (off > BWAPD_MODEL_AGREE)
		return -EDOM;
	for (j = 0; j < n; j++)
		s[j] = 1;
	for (k = 0; k < CALIBRATE_ITERS; k++) {
		double mean = 0;

		scaled(m, s, &tu->view);
		if (model_canonical(&tu->view, tu->t->workers, f))
			return -EINVAL;
		for (j = 0; j < n; j++) {
			if (f[j] > 0 && tu->canonical[j] > 0)
				s[j] = clamp_scale(s[j] * tu->canonical[j] / f[j]);
			mean += tu->canonical[j] * log(s[j]);
		}
		for (j = 0; j < n; j++)
			s[j] = clamp_scale(s[j] / exp(mean));
	}
	scaled(m, s, &tu->view);
	return 0;
}

/*
 * The model's next setting: the views of the application that every
 * point so far allows (views()).  The next setting is the best one of
 * the view that predicts the largest gain over the best setting measured
 * (optimism where the points cannot tell: measuring it either finds the
 * gain or rules that view out).  0 and shares f if that gain is over
 * min_gain; *g: that view's prediction, *gain: that gain (1.01: 1 %),
 * span[]: the least and the most any view predicts at f (what the
 * application's open parameters allow).
 */
static int next_setting(const struct tuner *tu, double *f, double *g,
			double *gain, double *span)
{
	const struct bwapd_tune_opts *o = tu->o;
	const struct bwm_machine *m = &tu->view;
	struct bwapd_target *t = tu->t;
	struct bwm_workload v[NR_VIEWS];
	double from[BWAPD_MAX_NODES], shot[BWAPD_MAX_NODES], best;
	int n = t->nr_nodes, nv, k;

	*gain = 0;
	nv = views(tu, tu->pt, tu->npts, v);
	if (nv < 0 || bwm_weights_to_fractions(tu->best_w, n, from))
		return -EINVAL;
	for (k = 0; k < nv; k++) {
		double r;

		if (bwapd_best_shot(m, &v[k], tu->canonical, from,
				    t->leave_out, MIN_SHARE, shot, &best))
			return -EINVAL;
		r = best / bwapd_fit_gbps(m, &v[k], from);
		if (r > *gain) {
			*gain = r;
			*g = best;
			memcpy(f, shot, sizeof(double) * n);
		}
	}
	if (!(*gain > 1 + o->min_gain))
		return -EAGAIN;
	view_span(tu, v, nv, f, span);
	span[0] = fmin(span[0], *g);
	span[1] = fmax(span[1], *g);
	return 0;
}

/*
 * Predict, measure, fit again: next_setting() while it predicts a gain
 * worth a step and its settings keep helping, or miss once.  Where the
 * model's gain ends, the DWP line around its best setting checks it
 * (line_search(), "verify"): a model that fits the points can still be
 * wrong beyond them.  A prediction that misses by more than MODEL_WRONG
 * what any view of the application allowed is the model's miss, not a
 * view's (a view the points left open can be what was wrong; the next
 * fit rules it out).  1, the DWP search takes over: when such a miss
 * came from a fit of two points or more; or when the model proposed
 * settings, none of which helped, and one of them missed so (it has
 * taught nothing, and the check, which stops at the first setting that
 * does not help, would stop in the noise of a flat stretch the DWP
 * search walks).  A shot that missed only the optimistic view it was
 * taken with taught the application's parallelism, and the model then
 * predicting nothing better than the start is what the check tries.
 * The predictions end at the second in a row that did not help, or,
 * once one has helped, at the first that did not and promised no more
 * than a step can show beyond its noise (three standard errors of the
 * difference from the best, relative): its miss is the noise's as much
 * as the model's, and the next fit learns as little from it.  (Before
 * any helped the model has not been borne out here, and the fit that
 * has the miss's point is what the next prediction is made with: an
 * application whose phases make its steps noisy was handed to the DWP
 * search after its first shot.)
 */
static int predict(struct tuner *tu)
{
	struct bwapd_target *t = tu->t;
	int n = t->nr_nodes, ret = 0, missed = 0, helped_once = 0, fitted;
	int model_miss = 0;

	while (!ret && tu->r->steps < tu->budget) {
		double f[BWAPD_MAX_NODES], g = -1, span[2], gain, noise;
		uint8_t w[BWAPD_MAX_NODES];

		if (next_setting(tu, f, &g, &gain, span) ||
		    share_weights(tu, f, w))
			break;
		noise = tu->best_rate > 0 ?
			DOUBT * sqrt(2) * tu->best_se / tu->best_rate : 0;
		tu->r->predicted = 1;
		fitted = tu->npts;
		ret = apply(tu, w, bwapd_weights_dwp(tu->canonical, n,
						     t->workers, w),
			    g, tu->r->steps ? "predict" : "shot", 1);
		if (ret)
			break;
		if (g > 0 && tu->npts > fitted &&
		    (tu->pt[tu->npts - 1].gbps < span[0] * (1 - MODEL_WRONG) ||
		     tu->pt[tu->npts - 1].gbps > span[1] * (1 + MODEL_WRONG))) {
			if (fitted >= 2)
				return 1;
			model_miss = 1;
		}
		if (!memcmp(tu->best_w, w, (size_t)n)) {
			missed = 0;
			helped_once = 1;
		} else if (++missed == 2 || (helped_once && gain <= 1 + noise)) {
			/* wrong twice in a row, or within the noise */
			break;
		}
	}
	/* proposed settings, none helped, one missed: the DWP search's turn */
	return ret ? ret : tu->r->predicted && !helped_once && model_miss;
}

/*
 * The DWP search on the measurements alone, from DWP d0 (measured now if
 * it was not), on the line's own best: what the model found cannot stop
 * it.  With a budget of max_steps of its own; the line is refined unless
 * the best setting measured before beats its best beyond doubt.  Then the
 * better of the two.  As the check of a model's best ('what' "verify"), a
 * direction ends at the first setting that does not help, that the
 * model rules out (ruled_out()) or from which the model's best is out of
 * reach (out_of_reach()), and the line is refined only where it showed
 * the model wrong (model_beaten(): a line within the noise of its best,
 * or within min_gain of its traffic, has nothing the model's best has
 * not); a check point the model missed (model_missed()), or a line that
 * showed the model wrong, makes the check that search: the model was
 * wrong there, and its best no reason to stop in the noise of a flat
 * stretch.
 */
static int line_search(struct tuner *tu, double d0, const char *what)
{
	uint8_t nd_w[BWAPD_MAX_NODES];
	double nd = tu->best, nd_rate = tu->best_rate, nd_se = tu->best_se;
	int ret = 0, i;

	memcpy(nd_w, tu->best_w, sizeof(nd_w));
	tu->budget = tu->r->steps + tu->o->max_steps;
	if (tu->budget > MAX_POINTS - 2)
		tu->budget = MAX_POINTS - 2;
	d0 = clamp(tu, d0);
	tu->checking = !strcmp(what, "verify");
	tu->check_rate = nd_rate;
	tu->check_se = nd_se;
	memcpy(tu->check_w, nd_w, sizeof(tu->check_w));
	for (i = 0; i < tu->nr && !(tu->line[i] && fabs(tu->d[i] - d0) < 1e-9); i++)
		;
	if (i == tu->nr) {
		if (tu->r->steps >= tu->budget)
			return 0;	/* no room for another setting */
		ret = step(tu, d0, what, 1);
		if (ret)
			return ret;
		if (tu->checking && model_missed(tu))
			tu->checking = 0;
		i = tu->nr - 1;
	}
	tu->best = tu->d[i];
	tu->best_rate = tu->rate[i];
	tu->best_se = tu->se[i];
	memcpy(tu->best_w, tu->w[i], sizeof(tu->best_w));
	ret = coarse(tu);
	if (!ret && (tu->checking ? model_beaten(tu) :
		     !beyond_doubt(tu->best_rate, tu->best_se, nd_rate, nd_se)))
		ret = fine(tu);
	if (!ret && nd_rate < tu->best_rate) {
		tu->best = nd;
		tu->best_rate = nd_rate;
		tu->best_se = nd_se;
		memcpy(tu->best_w, nd_w, sizeof(nd_w));
	}
	return ret;
}

/* An empty result; the parameters checked before anything moves. */
static int begin(struct bwapd_target *t, const struct bwapd_tune_opts *o,
		 struct bwapd_tune_result *r)
{
	memset(r, 0, sizeof(*r));
	r->mapi = -1;
	if (bwapd_tune_opts_check(o)) {
		snprintf(t->why, sizeof(t->why), "bad tuner parameters");
		return -EINVAL;
	}
	if (o->machine && o->machine->nr_nodes != t->nr_nodes) {
		snprintf(t->why, sizeof(t->why),
			 "the model of the machine has %d nodes, the target %d",
			 o->machine->nr_nodes, t->nr_nodes);
		return -EINVAL;
	}
	return 0;
}

int bwapd_tune(struct bwapd_target *t, const double *canonical,
	       const struct bwapd_tune_opts *o, struct bwapd_tune_result *r)
{
	struct tuner tu = { .t = t, .m = t, .o = o, .canonical = canonical,
			    .r = r, .floor = o->floor };
	int ret;

	ret = begin(t, o, r);
	if (ret)
		return ret;
	tu.budget = o->max_steps;
	ret = step(&tu, o->start, "start", 1);
	if (!ret && r->mapi >= 0 && r->mapi < o->min_mapi) {
		r->skipped = 1;
	} else if (!ret) {
		int model = o->machine && !o->dwp_only && !o->forward_only &&
			    tu.npts && !calibrate(&tu);

		ret = model ? predict(&tu) : 1;
		/*
		 * Without a model, or with one that missed: the DWP search.
		 * With one that did not: the DWP line climbed from the DWP
		 * of its best setting (a model can be right where it
		 * measured and wrong where it did not).
		 */
		if (ret > 0) {
			r->handed_over = model;
			ret = model ? line_search(&tu, o->start, "start") :
				      search(&tu);
		} else if (!ret && model) {
			ret = line_search(&tu, round(tu.best / o->step) * o->step,
					  "verify");
		}
		/* end on the best setting; the paper's search stays put */
		if (!ret && !o->forward_only &&
		    memcmp(tu.cur_w, tu.best_w, (size_t)t->nr_nodes))
			ret = apply(&tu, tu.best_w, tu.best, -1, "best", 0);
		if (!ret && !o->forward_only)
			r->stall_rate = tu.best_rate;
	}
	if (ret && ret != -ESRCH && tu.nr) {
		/* leave the best weights measured (the old ones if this fails) */
		char why[sizeof(t->why)];

		memcpy(why, t->why, sizeof(why));
		if (!t->ops->set_weights(t, tu.best_w, t->nr_nodes))
			memcpy(r->weights, tu.best_w, sizeof(tu.best_w));
		memcpy(t->why, why, sizeof(why));
		tu.cur = tu.best;
	}
	r->dwp = tu.cur;
	return ret;
}

/*
 * Co-scheduled jobs (BWAP section III-B3).  Stage 1 finds the floor: the
 * lowest DWP of the best-effort job at which the high-priority job is
 * within 'protect' of its speed with the best-effort job's pages all on
 * the best-effort job's own nodes (DWP 1).  The paper climbs from DWP 0
 * while the high-priority job's stall rate falls; starting from the
 * isolated end bounds the loss instead of stopping at the first small
 * gain.  The high-priority job is measured by its cycles per instruction
 * (the inverse of its speed), or its stall rate where instructions are
 * not counted.  Stage 2 tunes the best-effort job on its own stalls,
 * never below the floor.
 */
int bwapd_tune_cosched(struct bwapd_target *hi, struct bwapd_target *be,
		       const double *canonical,
		       const struct bwapd_tune_opts *o,
		       struct bwapd_tune_result *r, double *floor)
{
	struct bwapd_tune_opts o1 = *o, o2;
	struct tuner tu = { .t = be, .m = hi, .o = &o1,
			    .canonical = canonical, .r = r,
			    .budget = o->max_steps };
	double d, ref;
	int ret;

	ret = begin(be, o, r);
	if (ret)
		return ret;
	if (o1.metric == BWAPD_METRIC_AUTO) {
		struct bwapd_counters c;

		ret = hi->ops->counters(hi, &c);
		o1.metric = !ret && (c.have & BWAPD_HAVE_MAPI) ? BWAPD_CPI :
			    BWAPD_STALL_RATE;
	}
	/* stage 1: the best-effort job's pages move, the other is measured */
	ret = step(&tu, 1, "isolate", 1);
	ref = tu.last_rate;
	*floor = 1;
	for (d = 1 - o->step; !ret && d > -1e-9 && r->steps < o->max_steps;
	     d -= o->step) {
		ret = step(&tu, clamp(&tu, d), "floor", 1);
		if (ret || tu.last_rate > ref * (1 + o->protect))
			break;
		*floor = tu.cur;
	}
	if (ret) {
		r->dwp = tu.cur;
		return ret;
	}
	/* stage 2: the best-effort job on its own, from the floor up */
	o2 = *o;
	o2.dwp_only = 1;	/* the floor is a DWP */
	o2.start = *floor;
	o2.floor = *floor;
	return bwapd_tune(be, canonical, &o2, r);
}

int bwapd_tune_watch(struct bwapd_target *t, const struct bwapd_tune_opts *o,
		     double rate, double seconds, int *changed)
{
	double start = -1, m, mapi;
	struct bwapd_counters c;
	int run = 0, ret;

	*changed = 0;
	for (;;) {
		ret = t->ops->counters(t, &c);
		if (ret)
			return ret;
		if (start < 0)
			start = c.seconds;
		if (seconds > 0 && c.seconds - start >= seconds)
			return 0;
		ret = bwapd_measure(t, o, &m, &mapi, NULL);
		if (ret)
			return ret;
		run = fabs(m - rate) > o->phase_change * rate ? run + 1 : 0;
		if (run >= o->phase_periods) {
			*changed = 1;
			return 0;
		}
		/* idle between two looks: watching many processes costs little */
		if (o->watch_every > 0) {
			ret = t->ops->wait(t, o->watch_every);
			if (ret)
				return ret;
		}
	}
}
