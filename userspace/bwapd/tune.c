// SPDX-License-Identifier: GPL-2.0
/*
 * The DWP tuner (BWAP section III-B): find the data-to-worker proximity
 * that minimises an application's stall rate, steering its own weights.
 *
 * DWP d moves the canonical page shares towards the worker nodes: the
 * workers get S + d (1 - S) of the pages (S: their canonical share), the
 * ratios inside the workers and inside the other nodes stay canonical.
 * Each setting is applied as the target's weights and by moving the
 * pages whose node changes, then measured: n stall-rate samples over t
 * seconds, the c highest and c lowest dropped, the rest averaged.
 *
 * The paper's search raises DWP by x while the stall rate falls and stops
 * at the first setting that does not help, where it stays (its user-level
 * placement could not move pages back).  Here the search can go both
 * ways: from a non-zero start it also tries lower settings, it then
 * refines around the best setting with a finer step, and it ends on the
 * best setting measured, moving pages back if it has to.  Every setting
 * tried is a step; max_steps bounds them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	    !(o->phase_change > 0) ||
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

int bwapd_measure(struct bwapd_target *t, const struct bwapd_tune_opts *o,
		  double *rate, double *mapi, double *se)
{
	double r[MAX_SAMPLES], insns = 0, acc = 0, sum = 0;
	int per_insn, kept;
	struct bwapd_counters a, b;
	int k, have, ret;

	ret = t->ops->counters(t, &a);
	if (ret)
		return ret;
	if (!(a.have & BWAPD_HAVE_STALLS)) {
		if (!t->why[0])
			snprintf(t->why, sizeof(t->why), "no stall counter");
		return -EOPNOTSUPP;
	}
	have = a.have;
	per_insn = o->metric == BWAPD_STALLS_PER_INSN || o->metric == BWAPD_CPI ||
		   (o->metric == BWAPD_METRIC_AUTO && (a.have & BWAPD_HAVE_MAPI));
	if (per_insn && !(a.have & BWAPD_HAVE_MAPI)) {
		snprintf(t->why, sizeof(t->why), "no instruction counter");
		return -EOPNOTSUPP;
	}
	for (k = 0; k < o->samples; k++) {
		double dt;

		ret = t->ops->wait(t, o->period / o->samples);
		if (!ret)
			ret = t->ops->counters(t, &b);
		if (ret)
			return ret;
		dt = b.seconds - a.seconds;
		if (per_insn)
			r[k] = b.instructions > a.instructions ?
			       (double)(o->metric == BWAPD_CPI ?
					b.cycles - a.cycles :
					b.stall_cycles - a.stall_cycles) /
			       (double)(b.instructions - a.instructions) : 0;
		else
			r[k] = dt > 0 ? (double)(b.stall_cycles - a.stall_cycles) / dt : 0;
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
	if (se) {
		double var = 0;

		for (k = o->trim; k < o->samples - o->trim; k++)
			var += (r[k] - *rate) * (r[k] - *rate);
		*se = kept > 1 ? sqrt(var / (kept - 1) / kept) : 0;
	}
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
	double best, best_rate, best_se;
	double last_rate, last_se;	/* of the last setting measured */
	uint8_t best_w[BWAPD_MAX_NODES];
	int nr;
	double d[MAX_POINTS];		/* settings measured */
};

static int measured(const struct tuner *tu, double d)
{
	int i;

	for (i = 0; i < tu->nr; i++)
		if (fabs(tu->d[i] - d) < 1e-9)
			return 1;
	return 0;
}

/* Weights and pages for DWP d; then, if 'measure', its stall rate. */
static int step(struct tuner *tu, double d, const char *what, int measure)
{
	struct bwapd_target *t = tu->t;
	struct bwapd_tune_step st;
	int n = t->nr_nodes, ret;

	memset(&st, 0, sizeof(st));
	st.step = measure && tu->nr ? tu->r->steps + 1 : tu->r->steps;
	st.dwp = d;
	st.what = what;
	st.mapi = -1;
	st.stall_rate = -1;
	ret = bwapd_dwp_weights(tu->canonical, n, t->workers, d,
				tu->o->u8_err, st.weights);
	if (ret) {
		snprintf(t->why, sizeof(t->why),
			 "no weights for DWP %.3f: %s", d, strerror(-ret));
		return ret;
	}
	ret = t->ops->set_weights(t, st.weights, n);
	if (ret)
		return ret;
	ret = t->ops->migrate(t, st.weights, n, &tu->o->migrate, &st.migration);
	tu->r->moved += st.migration.moved;
	tu->r->failed += st.migration.failed;
	tu->cur = d;
	memcpy(tu->r->weights, st.weights, sizeof(st.weights));
	if (!ret && measure)
		ret = bwapd_measure(tu->m, tu->o, &st.stall_rate, &st.mapi,
				    &tu->last_se);
	if (ret && tu->m != t)
		memcpy(t->why, tu->m->why, sizeof(t->why));
	if (ret)
		return ret;
	if (measure) {
		if (tu->nr)
			tu->r->steps++;
		tu->d[tu->nr++] = d;
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

static double clamp(const struct tuner *tu, double d)
{
	d = fmin(1, fmax(tu->floor, d));
	/* keep the grid exact: 0.1 * 3 is 0.30000000000000004 */
	return round(d * 1e6) / 1e6;
}

/*
 * Is the last setting worse than the best beyond doubt?  Three times the
 * standard error of the difference; the paper's search stops at any
 * setting that is not better.
 */
static int surely_worse(const struct tuner *tu)
{
	double se = sqrt(tu->last_se * tu->last_se + tu->best_se * tu->best_se);

	return tu->o->forward_only || tu->last_rate - tu->best_rate > 3 * se;
}

/*
 * Move from the best setting by 'by' while that helps, or while the
 * difference is within the noise of the measurements (a flat stretch
 * must not end the search); 1 if a better setting was found.
 */
static int climb(struct tuner *tu, double by, const char *what, int *ret)
{
	const struct bwapd_tune_opts *o = tu->o;
	double from = tu->best;
	int helped = 0;

	while (!*ret && tu->r->steps < o->max_steps) {
		double d = clamp(tu, from + by), before = tu->best;

		if (measured(tu, d))
			break;
		*ret = step(tu, d, what, 1);
		if (*ret)
			break;
		if (tu->best != before)
			helped = 1;
		else if (surely_worse(tu))
			break;
		from = d;
	}
	return helped;
}

static int search(struct tuner *tu)
{
	const struct bwapd_tune_opts *o = tu->o;
	int ret = 0;

	/* coarse: up; from a non-zero start that did not go up, down */
	if (!climb(tu, o->step, "up", &ret) && !ret && !o->forward_only)
		climb(tu, -o->step, "down", &ret);
	if (ret || o->forward_only)
		return ret;
	/* fine: around the best */
	if (o->fine_step > 0 && o->fine_step < o->step &&
	    !climb(tu, o->fine_step, "refine", &ret) && !ret)
		climb(tu, -o->fine_step, "refine", &ret);
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
	ret = step(&tu, o->start, "start", 1);
	if (!ret && r->mapi >= 0 && r->mapi < o->min_mapi) {
		r->skipped = 1;
	} else if (!ret) {
		ret = search(&tu);
		/* end on the best setting; the paper's search stays put */
		if (!ret && !o->forward_only && tu.cur != tu.best)
			ret = step(&tu, tu.best, "best", 0);
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
			    .canonical = canonical, .r = r };
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
