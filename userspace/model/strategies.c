// SPDX-License-Identifier: GPL-2.0
/*
 * Placement strategies: first-touch, uniform interleave over the workers
 * or over all nodes, canonical weights (BWAP Eq. 5 from a profiling run),
 * the best DWP from uniform-all (BWAP-uniform) and from the canonical
 * weights (BWAP), the optimum of an exhaustive search over page
 * fractions, and the dynamic policies of balancing.c (NUMA balancing, a
 * Carrefour-like policy).
 */
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "model.h"

static const char *const strategy_names[BWM_NR_STRATEGIES] = {
	[BWM_FIRST_TOUCH] = "first-touch",
	[BWM_UNIFORM_WORKERS] = "uniform-workers",
	[BWM_UNIFORM_ALL] = "uniform-all",
	[BWM_CANONICAL] = "canonical",
	[BWM_BWAP_UNIFORM] = "bwap-uniform",
	[BWM_CANONICAL_DWP] = "canonical+dwp",
	[BWM_OPTIMUM] = "optimum",
	[BWM_AUTONUMA] = "autonuma",
	[BWM_CARREFOUR] = "carrefour",
};

const char *bwm_strategy_name(enum bwm_strategy s)
{
	return (unsigned int)s < BWM_NR_STRATEGIES ? strategy_names[s] : "?";
}

int bwm_strategy_is_weights(enum bwm_strategy s)
{
	return s >= BWM_UNIFORM_WORKERS && s <= BWM_OPTIMUM;
}

void bwm_eval_opts_default(struct bwm_eval_opts *o)
{
	o->search_steps = 20;
	o->dwp_step = 0.05;
	o->u8_err = BWM_DEFAULT_U8_ERR;
	o->profile_noise = 0;
	o->seed = 1;
	bwm_balancing_default(&o->balancing);
}

/* fractions -> kernel weights -> the fractions the kernel would give */
static int quantise(const double *frac, int n, double u8_err,
		    uint8_t *weights, double *out)
{
	int ret = bwm_fractions_to_u8(frac, n, u8_err, weights, NULL);

	return ret < 0 ? ret : bwm_weights_to_fractions(weights, n, out);
}

int bwm_dwp_sweep(const struct bwm_machine *m, const struct bwm_workload *wl,
		  const double *base, double step, double u8_err,
		  double *dwp, double *gbps, double *stall, int max,
		  double *best_dwp)
{
	struct bwm_placement pl;
	struct bwm_prediction pred;
	double best = -1;
	int i, npts, ret;

	if (!(step > 0) || step > 1 || max < 1)
		return -EINVAL;
	npts = (int)floor(1 / step + 1e-9) + 1;
	if (npts > max)
		npts = max;
	for (i = 0; i < npts; i++) {
		double d = i == npts - 1 ? fmin(1, i * step) : i * step;
		double moved[BWM_MAX_NODES], q[BWM_MAX_NODES];
		uint8_t w[BWM_MAX_NODES];

		ret = bwm_apply_dwp(base, m->nr_nodes, wl->workers, d, moved);
		if (!ret)
			ret = quantise(moved, m->nr_nodes, u8_err, w, q);
		if (ret)
			return ret;
		bwm_placement_interleave(&pl, m->nr_nodes, q);
		ret = bwm_predict(m, wl, &pl, &pred);
		if (ret)
			return ret;
		dwp[i] = d;
		gbps[i] = pred.throughput_gbps;
		if (stall)
			stall[i] = pred.stall_rate;
		if (gbps[i] > best * (1 + 1e-9)) {
			best = gbps[i];
			if (best_dwp)
				*best_dwp = d;
		}
	}
	return npts;
}

int bwm_flat_dwp(const struct bwm_machine *m, const struct bwm_workload *wl,
		 const double *base, double step, double u8_err,
		 double best_gbps, double tol, struct bwm_flat *f)
{
	double dwp[1024], gbps[1024], moved[BWM_MAX_NODES];
	int i, k, lo = 0, hi, n = bwm_dwp_sweep(m, wl, base, step, u8_err, dwp,
					       gbps, NULL, 1024, NULL);

	memset(f, 0, sizeof(*f));
	if (n <= 0)
		return n;
	/* the run of the sweep's best point, while it stays within tol */
	for (i = 1; i < n; i++)
		if (gbps[i] > gbps[lo])
			lo = i;
	if (gbps[lo] < best_gbps * (1 - tol))
		return 0;
	hi = lo;
	while (lo > 0 && gbps[lo - 1] >= best_gbps * (1 - tol))
		lo--;
	while (hi < n - 1 && gbps[hi + 1] >= best_gbps * (1 - tol))
		hi++;
	f->points = hi - lo + 1;
	f->dwp[0] = dwp[lo];
	f->dwp[1] = dwp[hi];
	for (k = 0; k < 2; k++) {
		i = bwm_apply_dwp(base, m->nr_nodes, wl->workers, f->dwp[k],
				  moved);
		if (!i)
			i = quantise(moved, m->nr_nodes, u8_err, f->weights[k],
				     moved);
		if (i)
			return i;
	}
	return f->points;
}

/* The predicted throughput of wl, its pages spread by the fractions. */
struct tput {
	const struct bwm_machine *m;
	const struct bwm_workload *wl;
	struct bwm_placement pl;
	int wnode[BWM_MAX_NODES], nw;
};

static double tput_of(void *arg, const double *frac)
{
	struct tput *t = arg;
	int j;

	memcpy(t->pl.shared, frac, sizeof(double) * t->m->nr_nodes);
	for (j = 0; j < t->nw; j++)
		memcpy(t->pl.priv[t->wnode[j]], t->pl.shared,
		       sizeof(t->pl.shared));
	return bwm_predict_throughput(t->m, t->wl, &t->pl);
}

static int tput_init(struct tput *t, const struct bwm_machine *m,
		     const struct bwm_workload *wl)
{
	int j, ret = bwm_workload_check(m, wl, NULL);

	if (ret)
		return ret;
	memset(t, 0, sizeof(*t));
	t->m = m;
	t->wl = wl;
	for (j = 0; j < m->nr_nodes; j++)
		if (wl->workers & (1u << j))
			t->wnode[t->nw++] = j;
	return 0;
}

struct search {
	bwm_objective f;
	void *arg;
	int n, steps;
	int units[BWM_MAX_NODES];
	long tried;
	double best_v;
	double best[BWM_MAX_NODES];
};

static double eval_fractions(struct search *s, const double *frac)
{
	s->tried++;
	return s->f(s->arg, frac);
}

static void search_eval(struct search *s)
{
	double frac[BWM_MAX_NODES], v;
	int j;

	for (j = 0; j < s->n; j++)
		frac[j] = (double)s->units[j] / s->steps;
	v = eval_fractions(s, frac);
	if (v > s->best_v) {
		s->best_v = v;
		memcpy(s->best, frac, sizeof(double) * s->n);
	}
}

static void search_rec(struct search *s, int node, int left)
{
	int u;

	if (node == s->n - 1) {
		s->units[node] = left;
		search_eval(s);
		return;
	}
	for (u = left; u >= 0; u--) {
		s->units[node] = u;
		search_rec(s, node + 1, left - u);
	}
}

static int search_init(struct search *s, int nr_nodes, bwm_objective f,
		       void *arg)
{
	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES || !f)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->f = f;
	s->arg = arg;
	s->n = nr_nodes;
	s->best_v = -1;
	return 0;
}

long bwm_search_by(int nr_nodes, bwm_objective f, void *arg, int steps,
		   double *best, double *best_v)
{
	struct search s;
	int ret;

	if (steps < 1 || steps > BWM_MAX_STEPS)
		return -EINVAL;
	ret = search_init(&s, nr_nodes, f, arg);
	if (ret)
		return ret;
	s.steps = steps;
	search_rec(&s, 0, steps);
	memcpy(best, s.best, sizeof(double) * s.n);
	*best_v = s.best_v;
	return s.tried;
}

long bwm_search(const struct bwm_machine *m, const struct bwm_workload *wl,
		int steps, double *best, double *best_gbps)
{
	struct tput t;
	int ret = tput_init(&t, m, wl);

	return ret ? ret : bwm_search_by(m->nr_nodes, tput_of, &t, steps, best,
					 best_gbps);
}

/*
 * One move of the hill climbing, kept if it helps: j < n moves step of
 * the pages from node i to node j; j == n mixes the placement with all
 * pages on i (all nodes but i give up a share) and, if that does not
 * help, with none on i (i's share spread over the others in proportion).
 */
static bool try_move(struct search *s, double *frac, int i, int j,
		     double step, double *cur)
{
	double old[BWM_MAX_NODES], g;
	int k;

	if (i == j)
		return false;
	memcpy(old, frac, sizeof(double) * s->n);
	if (j < s->n) {
		if (frac[i] < step)
			return false;
		frac[i] -= step;
		frac[j] += step;
	} else {
		for (k = 0; k < s->n; k++)
			frac[k] = frac[k] * (1 - step) + (k == i ? step : 0);
	}
	g = eval_fractions(s, frac);
	if (g > *cur * (1 + 1e-12)) {
		*cur = g;
		return true;
	}
	memcpy(frac, old, sizeof(double) * s->n);
	if (j < s->n || frac[i] < step || frac[i] >= 1 - step)
		return false;
	for (k = 0; k < s->n; k++)
		frac[k] = k == i ? old[i] - step :
			  old[k] * (1 - old[i] + step) / (1 - old[i]);
	g = eval_fractions(s, frac);
	if (g > *cur * (1 + 1e-12)) {
		*cur = g;
		return true;
	}
	memcpy(frac, old, sizeof(double) * s->n);
	return false;
}

/* Pairs of nodes: i -> j; then towards and away from each vertex. */
static bool sweep_pairs(struct search *s, double *frac, double step,
			double *cur)
{
	bool improved = false;
	int i, j;

	for (i = 0; i < s->n; i++)
		for (j = 0; j <= s->n; j++)
			improved |= try_move(s, frac, i, j, step, cur);
	return improved;
}

/*
 * One move along a ridge, kept if it helps: step of the pages from node
 * i to nodes j and k alike (a negative step: from j and k to i).
 */
static bool try_ridge(struct search *s, double *frac, int i, int j, int k,
		      double step, double *cur)
{
	double f[BWM_MAX_NODES], g;

	memcpy(f, frac, sizeof(double) * s->n);
	f[i] -= step;
	f[j] += step / 2;
	f[k] += step / 2;
	if (f[i] < 0 || f[j] < 0 || f[k] < 0)
		return false;
	g = eval_fractions(s, f);
	if (!(g > *cur * (1 + 1e-12)))
		return false;
	*cur = g;
	memcpy(frac, f, sizeof(double) * s->n);
	return true;
}

/* Ridges: one node to two others alike, and back. */
static bool sweep_ridges(struct search *s, double *frac, double step,
			 double *cur)
{
	bool improved = false;
	int i, j, k;

	for (i = 0; i < s->n; i++)
		for (j = 0; j < s->n; j++)
			for (k = j + 1; k < s->n; k++) {
				if (i == j || i == k)
					continue;
				improved |= try_ridge(s, frac, i, j, k, step,
						      cur);
				improved |= try_ridge(s, frac, i, j, k, -step,
						      cur);
			}
	return improved;
}

/* Sweeps while they help, then the step halved down to min_step. */
static long climb_by(int nr_nodes, bwm_objective f, void *arg, double step,
		     double min_step, double *frac, double *v,
		     bool (*sweep)(struct search *, double *, double,
				   double *))
{
	struct search s;
	double cur;
	int ret;

	if (!(step > 0) || !(min_step > 0))
		return -EINVAL;
	ret = search_init(&s, nr_nodes, f, arg);
	if (ret)
		return ret;
	cur = eval_fractions(&s, frac);
	if (cur < 0)
		return (long)cur;
	for (; step >= min_step; step /= 2)
		while (sweep(&s, frac, step, &cur))
			;
	*v = cur;
	return s.tried;
}

long bwm_refine_by(int nr_nodes, bwm_objective f, void *arg, double step,
		   double min_step, double *frac, double *v)
{
	return climb_by(nr_nodes, f, arg, step, min_step, frac, v,
			sweep_pairs);
}

long bwm_ridge_by(int nr_nodes, bwm_objective f, void *arg, double step,
		  double min_step, double *frac, double *v)
{
	return climb_by(nr_nodes, f, arg, step, min_step, frac, v,
			sweep_ridges);
}

/* A search of the throughput of wl on m by 'climb'. */
static long climb_tput(const struct bwm_machine *m,
		       const struct bwm_workload *wl, double step,
		       double min_step, double *frac, double *gbps,
		       long (*climb)(int, bwm_objective, void *, double,
				     double, double *, double *))
{
	struct tput t;
	int ret = tput_init(&t, m, wl);

	return ret ? ret : climb(m->nr_nodes, tput_of, &t, step, min_step,
				 frac, gbps);
}

long bwm_refine(const struct bwm_machine *m, const struct bwm_workload *wl,
		double step, double min_step, double *frac, double *gbps)
{
	return climb_tput(m, wl, step, min_step, frac, gbps, bwm_refine_by);
}

long bwm_ridge(const struct bwm_machine *m, const struct bwm_workload *wl,
	       double step, double min_step, double *frac, double *gbps)
{
	return climb_tput(m, wl, step, min_step, frac, gbps, bwm_ridge_by);
}

static int result_weights(const struct bwm_machine *m,
			  const struct bwm_workload *wl,
			  struct bwm_strategy_result *r, const double *frac,
			  double u8_err)
{
	struct bwm_placement pl;
	double q[BWM_MAX_NODES];
	int ret = quantise(frac, m->nr_nodes, u8_err, r->weights, q);

	if (ret)
		return ret;
	memcpy(r->frac, q, sizeof(double) * m->nr_nodes);
	bwm_placement_interleave(&pl, m->nr_nodes, q);
	r->valid = 1;
	return bwm_predict(m, wl, &pl, &r->pred);
}

/* base[] moved by the DWP of the best throughput (sweep by dwp_step). */
static int best_dwp(const struct bwm_machine *m, const struct bwm_workload *wl,
		    const struct bwm_eval_opts *o, const double *base,
		    struct bwm_strategy_result *r)
{
	double dwp[1024], gbps[1024], best = 0, frac[BWM_MAX_NODES];
	int ret = bwm_dwp_sweep(m, wl, base, o->dwp_step, o->u8_err, dwp,
				gbps, NULL, 1024, &best);

	if (ret < 0)
		return ret;
	ret = bwm_apply_dwp(base, m->nr_nodes, wl->workers, best, frac);
	if (!ret)
		ret = result_weights(m, wl, r, frac, o->u8_err);
	r->dwp = best;
	return ret;
}

/*
 * A dynamic policy's result: wl placed by pl, every thread slowed down
 * by the policy's own work (r->overhead).
 */
static int policy_result(const struct bwm_machine *m,
			 const struct bwm_workload *wl,
			 const struct bwm_placement *pl,
			 struct bwm_strategy_result *r)
{
	double keep = 1 - r->overhead;
	int ret = bwm_predict(m, wl, pl, &r->pred);

	if (ret)
		return ret;
	memcpy(r->frac, pl->shared, sizeof(pl->shared));
	r->valid = 1;
	r->pred.throughput_gbps *= keep;
	r->pred.exec_time_s /= keep;
	r->pred.stall_rate *= keep;
	return 0;
}

static int dynamic_policies(const struct bwm_machine *m,
			    const struct bwm_workload *wl,
			    const struct bwm_balancing *b,
			    struct bwm_strategy_result *r)
{
	struct bwm_strategy_result *an = &r[BWM_AUTONUMA];
	struct bwm_strategy_result *cf = &r[BWM_CARREFOUR];
	struct bwm_placement pl;
	struct bwm_workload eff;
	int ret;

	ret = bwm_autonuma(m, wl, b, &pl, &an->overhead);
	if (!ret)
		ret = policy_result(m, wl, &pl, an);
	if (!ret)
		ret = bwm_carrefour(m, wl, b, &pl, &eff, &cf->mechanisms,
				    &cf->overhead);
	return ret ? ret : policy_result(m, &eff, &pl, cf);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int bwm_evaluate(const struct bwm_machine *m, const struct bwm_workload *wl,
		 const struct bwm_eval_opts *o, struct bwm_eval *out)
{
	struct bwm_strategy_result *r = out->r;
	double frac[BWM_MAX_NODES], g;
	struct bwm_placement pl;
	struct bwm_rng rng;
	int n = m->nr_nodes, j, nw = 0, ft, ret, s;
	double t0;

	ret = bwm_workload_check(m, wl, NULL);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	for (j = 0; j < n; j++)
		nw += !!(wl->workers & (1u << j));

	/* first-touch: shared pages where the first worker initialised them */
	ft = bwm_workload_first_touch(wl);
	bwm_placement_first_touch(&pl, n, ft);
	memcpy(r[BWM_FIRST_TOUCH].frac, pl.shared, sizeof(pl.shared));
	r[BWM_FIRST_TOUCH].valid = 1;
	ret = bwm_predict(m, wl, &pl, &r[BWM_FIRST_TOUCH].pred);

	for (j = 0; j < n; j++)
		frac[j] = wl->workers & (1u << j) ? 1.0 / nw : 0;
	if (!ret)
		ret = result_weights(m, wl, &r[BWM_UNIFORM_WORKERS], frac,
				     o->u8_err);
	for (j = 0; j < n; j++)
		frac[j] = 1.0 / n;
	if (!ret)
		ret = result_weights(m, wl, &r[BWM_UNIFORM_ALL], frac,
				     o->u8_err);

	/* canonical: Eq. 5 on what the profiling run measured */
	bwm_rng_seed(&rng, o->seed);
	if (!ret)
		ret = bwm_profile_run(m, wl->workers, 1.0, o->profile_noise,
				      &rng, &out->profile);
	if (!ret)
		ret = bwm_canonical_fractions(out->profile.bw, n, wl->workers,
					      out->canonical);
	if (!ret)
		ret = result_weights(m, wl, &r[BWM_CANONICAL], out->canonical,
				     o->u8_err);
	if (!ret)
		ret = best_dwp(m, wl, o, out->canonical, &r[BWM_CANONICAL_DWP]);
	/* BWAP-uniform: the same search from uniform-all */
	for (j = 0; j < n; j++)
		frac[j] = 1.0 / n;
	if (!ret)
		ret = best_dwp(m, wl, o, frac, &r[BWM_BWAP_UNIFORM]);
	if (!ret)
		ret = dynamic_policies(m, wl, &o->balancing, r);

	if (!ret && o->search_steps > 0) {
		long more;

		t0 = now_s();
		out->searched = bwm_search(m, wl, o->search_steps, frac, &g);
		/* The grid may miss what another strategy found. */
		for (s = BWM_UNIFORM_WORKERS; s < BWM_OPTIMUM; s++) {
			if (out->searched >= 0 &&
			    r[s].pred.throughput_gbps > g) {
				g = r[s].pred.throughput_gbps;
				memcpy(frac, r[s].frac, sizeof(double) * n);
			}
		}
		/* Then finer: move pages between pairs of nodes. */
		more = out->searched < 0 ? out->searched :
		       bwm_refine(m, wl, 0.5 / o->search_steps, 0.001, frac,
				  &g);
		out->search_seconds = now_s() - t0;
		if (out->searched < 0 || more < 0)
			ret = out->searched < 0 ? (int)out->searched : (int)more;
		else
			ret = result_weights(m, wl, &r[BWM_OPTIMUM], frac,
					     o->u8_err);
		out->searched += more;
	}
	if (ret)
		return ret;
	/* The optimum is the best placement found, whatever found it. */
	for (s = BWM_UNIFORM_WORKERS; s < BWM_OPTIMUM && r[BWM_OPTIMUM].valid; s++)
		if (r[s].pred.throughput_gbps > r[BWM_OPTIMUM].pred.throughput_gbps) {
			r[BWM_OPTIMUM] = r[s];
			r[BWM_OPTIMUM].dwp = 0;
		}
	for (s = 0; s < BWM_NR_STRATEGIES; s++)
		if (r[s].valid)
			r[s].speedup = r[s].pred.throughput_gbps /
				       r[BWM_FIRST_TOUCH].pred.throughput_gbps;
	s = r[BWM_OPTIMUM].valid ? BWM_OPTIMUM : BWM_CANONICAL_DWP;
	ret = bwm_flat_dwp(m, wl, out->canonical, o->dwp_step, o->u8_err,
			   r[s].pred.throughput_gbps, BWM_FLAT_TOL, &out->flat);
	return ret < 0 ? ret : 0;
}
