// SPDX-License-Identifier: GPL-2.0
/*
 * The best shot: fit an application to the model of the machine from
 * the counters the tuner reads at every step, then ask the model where
 * its pages should be.
 *
 * What the counters give, per measured placement: the memory traffic
 * (last-level cache misses x 64 bytes over the time) and the share of
 * cycles the threads were not stalled.  A thread that never waited for
 * memory would move traffic / busy share (its demand: the model's
 * demand_gbps times the machine's core speed); that is read off directly.  How much a thread slows
 * down when the latency grows (its memory-level parallelism) and how
 * much of its traffic writes (controllers write slower than they read)
 * are not.  The read share is what the memory controllers count where
 * they are counted; the parallelism (and, where reads and writes are not
 * counted, the read share) is fitted so that the model predicts the
 * traffic measured at every placement so far.  Without read counts one
 * point fixes the parallelism with the read share taken as 0.9; two or
 * more fix both.  This is the
 * Oracle Labs paper's approach (predict an application's bandwidth under
 * any placement from a few runs) applied to the model's parameters, and
 * CAMP's "best shot": start where the prediction says, not at a default.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bestshot.h"

#define MLP_MIN		0.05
#define MLP_MAX		4096.0
#define MLP_GRID	24		/* log-spaced, then golden section */
#define READ_PRIOR	0.9
#define READ_MIN	0.5
#define READ_STEP	0.1
#define FIT_TOL		0.005	/* relative: the counters' noise over a period */

double bwapd_fit_gbps(const struct bwm_machine *m,
		      const struct bwm_workload *wl, const double *frac)
{
	struct bwm_placement pl;

	bwm_placement_interleave(&pl, m->nr_nodes, frac);
	return bwm_predict_throughput(m, wl, &pl);
}

/* Sum of squared log errors of wl's predictions at the points. */
static double sse(const struct bwm_machine *m, const struct bwm_workload *wl,
		  const struct bwapd_point *p, int n)
{
	double s = 0;
	int i;

	for (i = 0; i < n; i++) {
		double g = bwapd_fit_gbps(m, wl, p[i].frac), e;

		if (!(g > 0))
			return INFINITY;
		e = log(g / p[i].gbps);
		s += e * e;
	}
	return s;
}

struct sse_arg {
	const struct bwm_machine *m;
	struct bwm_workload *wl;
	const struct bwapd_point *p;
	int n;
};

static double sse_at(double log_mlp, void *arg)
{
	struct sse_arg *a = arg;

	a->wl->mlp = exp(log_mlp);
	return sse(a->m, a->wl, a->p, a->n);
}

double bwapd_golden(double (*f)(double x, void *arg), void *arg, double a,
		    double b, int iters, double *fx)
{
	const double g = (sqrt(5) - 1) / 2;
	double x1 = b - g * (b - a), x2 = a + g * (b - a);
	double f1 = f(x1, arg), f2 = f(x2, arg);
	int i;

	for (i = 0; i < iters; i++) {
		if (f1 <= f2) {
			b = x2;
			x2 = x1;
			f2 = f1;
			x1 = b - g * (b - a);
			f1 = f(x1, arg);
		} else {
			a = x1;
			x1 = x2;
			f1 = f2;
			x2 = a + g * (b - a);
			f2 = f(x2, arg);
		}
	}
	if (fx)
		*fx = fmin(f1, f2);
	return f1 <= f2 ? x1 : x2;
}

/*
 * The parallelism that fits best for wl's other parameters: a log grid,
 * then a golden section between the best grid point's neighbours.
 * range[] (may be NULL): the grid's span that fits within FIT_TOL of the
 * best, where the points do not tell the parallelism apart (at a
 * placement where bandwidth, not latency, bounds the run, every large
 * parallelism fits).
 */
static double fit_mlp(const struct bwm_machine *m, struct bwm_workload *wl,
		      const struct bwapd_point *p, int n, double *range)
{
	const double lo = log(MLP_MIN), hi = log(MLP_MAX);
	struct sse_arg arg = { .m = m, .wl = wl, .p = p, .n = n };
	double h = (hi - lo) / (MLP_GRID - 1), best = INFINITY, x, fx;
	double grid[MLP_GRID], fit;
	int i, at = 0;

	for (i = 0; i < MLP_GRID; i++) {
		grid[i] = sse_at(lo + i * h, &arg);
		if (grid[i] < best * (1 - 1e-9)) {
			best = grid[i];
			at = i;
		}
	}
	x = bwapd_golden(sse_at, &arg, lo + (at > 0 ? at - 1 : 0) * h,
			 lo + (at < MLP_GRID - 1 ? at + 1 : at) * h, 30, &fx);
	if (fx < best) {
		best = fx;
		fit = x;
	} else {
		fit = lo + at * h;
	}
	if (range) {
		double limit = sqrt(best / n) + FIT_TOL;
		int first = at, last = at;

		limit *= limit * n;
		while (first > 0 && grid[first - 1] <= limit)
			first--;
		while (last < MLP_GRID - 1 && grid[last + 1] <= limit)
			last++;
		range[0] = fmin(exp(lo + first * h), exp(fit));
		range[1] = fmax(exp(lo + last * h), exp(fit));
	}
	wl->mlp = exp(fit);
	return best;
}

int bwapd_fit(const struct bwm_machine *m, uint32_t workers,
	      const int *threads, const struct bwapd_point *p, int n,
	      struct bwm_workload *wl, double *rms, double *range)
{
	double d = 0, best = INFINITY, best_read = READ_PRIOR, best_mlp = 1;
	double best_range[2] = { 1, 1 }, rg[2];
	double r, rsum = 0, lo = READ_MIN, hi = 1;
	struct bwapd_point q[BWAPD_FIT_POINTS];
	int i, used = 0, counted = 0, ret;

	if (n < 1)
		return -EINVAL;
	memset(wl, 0, sizeof(*wl));
	snprintf(wl->name, sizeof(wl->name), "fitted");
	snprintf(wl->kind, sizeof(wl->kind), "fitted to counters");
	wl->shared = 1;
	wl->read = READ_PRIOR;
	wl->mlp = 1;
	wl->work_gb = 1;
	wl->first_touch_node = -1;
	wl->demand_gbps = 1;
	ret = bwm_workload_bind(m, wl, workers, 0, NULL);
	if (ret)
		return ret;
	/* the threads the application runs, where they are known */
	for (i = 0; threads && i < m->nr_nodes; i++)
		if ((workers & (1u << i)) && threads[i] > 0)
			wl->threads[i] = threads[i];
	/* a period without traffic (or without an unstalled cycle) says nothing */
	for (i = 0; i < n && used < BWAPD_FIT_POINTS; i++) {
		if (!(p[i].gbps > 0) || !(p[i].busy > 0.01))
			continue;
		q[used++] = p[i];
		d += p[i].gbps / bwm_workload_nr_threads(wl) / p[i].busy;
		if (p[i].read >= 0 && p[i].read <= 1) {
			rsum += p[i].read;
			counted++;
		}
	}
	if (!used)
		return -EINVAL;
	wl->demand_gbps = d / used / bwm_core_speed(m);
	p = q;
	n = used;
	if (counted)
		lo = hi = rsum / counted;
	else if (n == 1)
		lo = hi = READ_PRIOR;
	/* one point: the read share is not told apart from the parallelism */
	for (r = lo; r <= hi + 1e-9; r += READ_STEP) {
		double s;

		wl->read = fmin(r, 1);
		s = fit_mlp(m, wl, p, n, rg);
		if (s < best * (1 - 1e-6) ||
		    (s <= best * (1 + 1e-6) &&
		     fabs(wl->read - READ_PRIOR) < fabs(best_read - READ_PRIOR))) {
			best = s;
			best_read = wl->read;
			best_mlp = wl->mlp;
			best_range[0] = rg[0];
			best_range[1] = rg[1];
		}
	}
	wl->read = best_read;
	wl->mlp = best_mlp;
	if (rms)
		*rms = sqrt(best / n);
	if (range) {
		range[0] = best_range[0];
		range[1] = best_range[1];
	}
	return isfinite(best) ? 0 : -EINVAL;
}

int bwapd_best_shot(const struct bwm_machine *m,
		    const struct bwm_workload *wl, const double *canonical,
		    const double *from, int leave_out, double min_share,
		    double *frac, double *gbps)
{
	double start[2][BWM_MAX_NODES], d[128], g[128], dwp, best = -1;
	int n = m->nr_nodes, i, j, ret;

	memcpy(start[0], from, sizeof(double) * n);
	if (bwm_dwp_sweep(m, wl, canonical, 0.05, BWM_DEFAULT_U8_ERR, d, g,
			  NULL, 128, &dwp) < 0)
		return -EINVAL;
	ret = bwm_apply_dwp(canonical, n, wl->workers, dwp, start[1]);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++) {
		double f[BWM_MAX_NODES], v, sum = 0;

		memcpy(f, start[i], sizeof(double) * n);
		if (bwm_refine(m, wl, 0.05, 0.002, f, &v) < 0 ||
		    bwm_ridge(m, wl, 0.05, 0.002, f, &v) < 0)
			return -EINVAL;
		/* weights cannot leave a node out: the least they give it */
		for (j = 0; j < n; j++) {
			if (!leave_out && canonical[j] > 0 && f[j] < min_share)
				f[j] = min_share;
			sum += f[j];
		}
		for (j = 0; j < n; j++)
			f[j] /= sum;
		v = bwapd_fit_gbps(m, wl, f);
		if (v > best) {
			best = v;
			memcpy(frac, f, sizeof(double) * n);
		}
	}
	*gbps = best;
	return best > 0 ? 0 : -EINVAL;
}
