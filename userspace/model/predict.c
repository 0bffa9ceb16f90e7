// SPDX-License-Identifier: GPL-2.0
/*
 * The prediction: per-thread rates on every worker node from a max-min
 * fair share of the controllers, paths and interconnects, each thread
 * also bound by its compute demand and by latency over its memory-level
 * parallelism; latency rises with the utilisation of the resources on
 * the path, which is solved as a fixed point.  Documentation/model.md
 * has the equations.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "model.h"

#define UTIL_CLAMP	0.95	/* queueing delay stops growing here */
#define FP_MAX_ITER	200
#define FP_TOL		1e-9

/*
 * Max-min fair rates: all active flows grow together until one reaches
 * its cap or a resource (capacity 1; coef[r * nf + f] is the share of
 * resource r one unit of flow f uses) fills up; flows stopped by either
 * freeze, the others go on.
 */
void bwm_maxmin_fill(int nf, const double *cap, int nr, const double *coef,
		     double *x)
{
	bool active[BWM_MAX_FLOWS];
	double res[BWM_MAX_RES], rowsum[BWM_MAX_RES];
	int f, r, left = 0;

	for (f = 0; f < nf; f++) {
		x[f] = 0;
		active[f] = cap[f] > 0;
		left += active[f];
	}
	for (r = 0; r < nr; r++)
		res[r] = 1;
	while (left) {
		double delta = INFINITY;
		int arg_f = -1, arg_r = -1;

		for (f = 0; f < nf; f++) {
			if (active[f] && cap[f] - x[f] < delta) {
				delta = cap[f] - x[f];
				arg_f = f;
			}
		}
		for (r = 0; r < nr; r++) {
			const double *row = coef + (size_t)r * nf;
			double s = 0;

			for (f = 0; f < nf; f++)
				if (active[f])
					s += row[f];
			rowsum[r] = s;
			if (s > 0 && res[r] / s < delta) {
				delta = res[r] / s;
				arg_r = r;
				arg_f = -1;
			}
		}
		if (delta < 0)
			delta = 0;
		for (f = 0; f < nf; f++)
			if (active[f])
				x[f] += delta;
		for (r = 0; r < nr; r++)
			res[r] -= delta * rowsum[r];
		for (f = 0; f < nf; f++) {
			bool stop = f == arg_f || cap[f] - x[f] <= 1e-12 * cap[f];

			for (r = 0; r < nr && !stop; r++)
				stop = coef[(size_t)r * nf + f] > 0 &&
				       (r == arg_r || res[r] <= 1e-12);
			if (active[f] && stop) {
				active[f] = false;
				left--;
			}
		}
	}
}

static double queue_delay(double u)
{
	if (u > UTIL_CLAMP)
		u = UTIL_CLAMP;
	if (u < 0)
		u = 0;
	return u / (1 - u);
}

/* Add v to t[l] for every link l of route. */
static void add_route(double *t, uint64_t route, double v)
{
	while (route) {
		t[__builtin_ctzll(route)] += v;
		route &= route - 1;
	}
}

/*
 * Link l (resource 2n + l) carries flow k's reads from every node j on
 * the route j -> c and its writes on the route c -> j.
 */
static void link_coef(struct bwm_solver *s, int k, double nt, double rd)
{
	const struct bwm_machine *m = s->m;
	double t[BWM_MAX_LINKS] = { 0 };
	int c = s->wnode[k], n = s->n, j, l;

	for (j = 0; j < n; j++) {
		if (j == c || s->f[k][j] <= 0)
			continue;
		add_route(t, m->route[j][c], rd * s->f[k][j]);
		add_route(t, m->route[c][j], (1 - rd) * s->f[k][j]);
	}
	for (l = 0; l < m->nr_links; l++)
		s->coef[(2 * n + l) * BWM_MAX_NODES + k] =
			nt * t[l] / m->link[l].gbps;
}

/* One workload's flows: traffic shares per node, coefficients, path caps. */
static int setup_workload(struct bwm_solver *s, int w,
			  const struct bwm_placement *pl)
{
	const struct bwm_machine *m = s->m;
	const struct bwm_workload *wl = s->wls[w];
	double rd = wl->read, wr = 1 - wl->read, sum = 0;
	int n = s->n, j, k, first = s->nw;

	for (j = 0; j < n; j++) {
		if (!(pl->shared[j] >= 0))
			return -EINVAL;
		sum += pl->shared[j];
	}
	if (fabs(sum - 1) > 1e-6)
		return -EINVAL;
	for (j = 0; j < n; j++) {
		if (!(wl->workers & (1u << j)))
			continue;
		if (wl->threads[j] < 1 || !m->node[j].cpus)
			return -EINVAL;
		for (k = 0; k < s->nw; k++)
			if (s->wnode[k] == j)
				return -EINVAL;	/* nodes are not shared */
		s->fwl[s->nw] = w;
		s->wnode[s->nw++] = j;
	}
	if (s->nw == first)
		return -EINVAL;
	for (k = first; k < s->nw; k++) {
		int c = s->wnode[k];
		double nt = wl->threads[c], worst = 0, psum = 0, remote = 0;

		for (j = 0; j < n; j++) {
			double f = wl->shared * pl->shared[j] +
				   (1 - wl->shared) * pl->priv[c][j];
			const struct bwm_node *nd = &m->node[j];

			if (!(f >= 0))
				return -EINVAL;
			psum += pl->priv[c][j];
			s->f[k][j] = f;
			s->coef[j * BWM_MAX_NODES + k] = nt * f *
				(rd / nd->ctrl_read_gbps +
				 wr / nd->ctrl_write_gbps);
			s->pc[k][j] = nt * f * (rd / m->read_gbps[j][c] +
						wr / m->write_gbps[j][c]);
			worst = fmax(worst, s->pc[k][j]);
			if (j != c)
				remote += f;
		}
		if (wl->shared < 1 && fabs(psum - 1) > 1e-6)
			return -EINVAL;
		/* interconnect of node c: resource n + c */
		if (m->node[c].interconnect_gbps > 0)
			s->coef[(n + c) * BWM_MAX_NODES + k] =
				nt * remote / m->node[c].interconnect_gbps;
		link_coef(s, k, nt, rd);
		s->pathcap[k] = worst > 0 ? 1 / worst : INFINITY;
	}
	return 0;
}

/*
 * Resources: controllers 0..n-1, interconnects n..2n-1, links from 2n;
 * coef rows are BWM_MAX_NODES wide, then the rows some flow uses are
 * packed to nw columns for the fill (s->rid: the resource of each).
 */
static int setup(struct bwm_solver *s, const struct bwm_machine *m, int nwl,
		 const struct bwm_workload *const *wl,
		 const struct bwm_placement *const *pl)
{
	double packed[BWM_MAX_RES * BWM_MAX_NODES];
	int w, r, k, ret;

	if (nwl < 1 || nwl > BWM_MAX_CORUN)
		return -EINVAL;
	s->m = m;
	s->n = m->nr_nodes;
	s->nw = 0;
	s->nwl = nwl;
	memset(s->coef, 0, sizeof(s->coef));
	for (w = 0; w < nwl; w++) {
		s->wls[w] = wl[w];
		ret = setup_workload(s, w, pl[w]);
		if (ret)
			return ret;
	}
	s->nr = 0;
	for (r = 0; r < 2 * s->n + m->nr_links; r++) {
		const double *row = s->coef + r * BWM_MAX_NODES;
		bool used = false;

		for (k = 0; k < s->nw; k++) {
			packed[s->nr * s->nw + k] = row[k];
			used |= row[k] > 0;
		}
		if (used)
			s->rid[s->nr++] = r;
	}
	memcpy(s->coef, packed, sizeof(double) * (size_t)s->nr * s->nw);
	return 0;
}

static double utilisation(const struct bwm_solver *s, int r)
{
	double u = 0;
	int k;

	for (k = 0; k < s->nw; k++)
		u += s->coef[r * s->nw + k] * s->x[k];
	return u;
}

/*
 * Loaded latency from memory j to flow k: queueing at the controller, on
 * the path and on every link the data crosses.
 */
static double path_latency(const struct bwm_solver *s, int k, int j)
{
	const struct bwm_machine *m = s->m;
	int c = s->wnode[k];
	double q = s->qc[j] + queue_delay(s->pc[k][j] * s->x[k]);
	uint64_t route = j != c && m->nr_links ? m->route[j][c] : 0;

	while (route) {
		q += s->ql[__builtin_ctzll(route)];
		route &= route - 1;
	}
	return m->latency_ns[j][c] * (1 + m->queue_factor * q);
}

/* Utilisation and loaded latency for the rates s->x. */
static void load(struct bwm_solver *s)
{
	int j, k, r, n = s->n;

	memset(s->uc, 0, sizeof(s->uc[0]) * n);
	memset(s->qc, 0, sizeof(s->qc[0]) * n);
	memset(s->ul, 0, sizeof(s->ul[0]) * s->m->nr_links);
	memset(s->ql, 0, sizeof(s->ql[0]) * s->m->nr_links);
	for (r = 0; r < s->nr; r++) {
		int id = s->rid[r];
		double u = utilisation(s, r);

		if (id < n) {
			s->uc[id] = u;
			s->qc[id] = queue_delay(u);
		} else if (id >= 2 * n) {
			s->ul[id - 2 * n] = u;
			s->ql[id - 2 * n] = queue_delay(u);
		}
	}
	for (k = 0; k < s->nw; k++) {
		double avg = 0;

		for (j = 0; j < n; j++)
			if (s->f[k][j] > 0)
				avg += s->f[k][j] * path_latency(s, k, j);
		s->lavg[k] = avg;
	}
}

/* Thread rates for the current latencies: demand, latency, then fill. */
static void rates(struct bwm_solver *s, double *x)
{
	double cap[BWM_MAX_FLOWS];
	int k;

	for (k = 0; k < s->nw; k++) {
		const struct bwm_workload *wl = s->wls[s->fwl[k]];
		/* GB/s = bytes/ns: mlp lines in flight per latency */
		double lat_rate = wl->mlp * BWM_LINE_BYTES / s->lavg[k];
		double d = 1 / (1 / bwm_thread_demand(s->m, wl) +
				1 / lat_rate);

		cap[k] = fmin(d, s->pathcap[k]);
	}
	bwm_maxmin_fill(s->nw, cap, s->nr, s->coef, x);
}

/*
 * The rates the latencies allow fall as the rates rise (more load, more
 * queueing), so x = F(x) is solved by damped steps x += lambda (F(x) - x)
 * with lambda per flow from the slope of F seen between two steps: for
 * F(x) = b - a x, lambda = 1 / (1 + a) lands on the fixed point.  When
 * the largest change stops shrinking (F jumps where a resource fills),
 * no step may be longer than a shrinking limit.
 */
int bwm_solve(struct bwm_solver *s, const struct bwm_machine *m, int nwl,
	      const struct bwm_workload *const *wl,
	      const struct bwm_placement *const *pl)
{
	double xn[BWM_MAX_FLOWS], px[BWM_MAX_FLOWS], pf[BWM_MAX_FLOWS];
	double damp = 1, prev = INFINITY;
	int k, w, it, ret;

	ret = setup(s, m, nwl, wl, pl);
	if (ret)
		return ret;
	memset(s->x, 0, sizeof(s->x));
	for (it = 1; it <= FP_MAX_ITER; it++) {
		double diff = 0, scale = 0;

		load(s);
		rates(s, xn);
		for (k = 0; k < s->nw; k++) {
			diff = fmax(diff, fabs(xn[k] - s->x[k]));
			scale = fmax(scale, xn[k]);
		}
		s->iterations = it;
		if (diff <= FP_TOL * scale)
			break;
		if (it > 1 && diff >= prev && damp > 0.02)
			damp *= 0.5;
		prev = diff;
		for (k = 0; k < s->nw; k++) {
			double lambda = 0.5, dx = s->x[k] - px[k];

			if (it > 1 && fabs(dx) > 1e-12 * scale) {
				double slope = (xn[k] - pf[k]) / dx;

				lambda = slope < 0 ? 1 / (1 - slope) : 1;
			}
			px[k] = s->x[k];
			pf[k] = xn[k];
			s->x[k] += fmax(0.02, fmin(damp, lambda)) *
				   (xn[k] - s->x[k]);
		}
	}
	load(s);
	for (w = 0; w < nwl; w++) {
		s->xmin[w] = INFINITY;
		s->nthreads[w] = 0;
	}
	for (k = 0; k < s->nw; k++) {
		w = s->fwl[k];
		s->xmin[w] = fmin(s->xmin[w], s->x[k]);
		s->nthreads[w] += s->wls[w]->threads[s->wnode[k]];
	}
	return 0;
}

double bwm_predict_throughput(const struct bwm_machine *m,
			      const struct bwm_workload *wl,
			      const struct bwm_placement *pl)
{
	struct bwm_solver s;
	int ret = bwm_solve(&s, m, 1, &wl, &pl);

	return ret ? ret : s.nthreads[0] * s.xmin[0];
}

int bwm_predict_corun(const struct bwm_machine *m, int nr,
		      const struct bwm_workload *const *wl,
		      const struct bwm_placement *const *pl,
		      struct bwm_prediction *out)
{
	struct bwm_solver s;
	double hz = m->cpu_ghz * 1e9, stall_threads[BWM_MAX_CORUN] = { 0 };
	int j, k, w, ret;

	ret = bwm_solve(&s, m, nr, wl, pl);
	if (ret)
		return ret;
	for (w = 0; w < nr; w++) {
		memset(&out[w], 0, sizeof(out[w]));
		out[w].iterations = s.iterations;
		out[w].throughput_gbps = s.nthreads[w] * s.xmin[w];
		out[w].exec_time_s = s.xmin[w] > 0 ?
				     wl[w]->work_gb / s.xmin[w] : INFINITY;
		out[w].slowest = -1;
		for (j = 0; j < s.n; j++)
			out[w].ctrl_util[j] = s.uc[j];
		for (j = 0; j < m->nr_links; j++)
			out[w].link_util[j] = s.ul[j];
	}
	for (k = 0; k < s.nw; k++) {
		int c = s.wnode[k];
		struct bwm_prediction *o;
		double nt, x = s.x[k], rd, sf;

		w = s.fwl[k];
		o = &out[w];
		nt = wl[w]->threads[c];
		rd = wl[w]->read;
		sf = fmax(0, 1 - x / bwm_thread_demand(m, wl[w]));
		if (o->slowest < 0 && x <= s.xmin[w])
			o->slowest = c;
		o->thread_gbps[c] = x;
		o->worker_gbps[c] = nt * x;
		o->stall_rate += nt * hz * sf;
		stall_threads[w] += nt * sf;
		for (j = 0; j < s.n; j++) {
			double g = nt * x * s.f[k][j];

			o->ctrl_read_gbps[j] += g * rd;
			o->ctrl_write_gbps[j] += g * (1 - rd);
			if (j == c)
				o->ctrl_local_gbps[j] += g;
			o->path_gbps[j][c] = g;
			o->path_util[j][c] = s.pc[k][j] * x;
			o->latency_ns[j][c] = path_latency(&s, k, j);
		}
	}
	for (w = 0; w < nr; w++)
		out[w].stall_fraction = stall_threads[w] / s.nthreads[w];
	return 0;
}

int bwm_predict(const struct bwm_machine *m, const struct bwm_workload *wl,
		const struct bwm_placement *pl, struct bwm_prediction *out)
{
	return bwm_predict_corun(m, 1, &wl, &pl, out);
}
