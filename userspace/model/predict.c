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

/* Fractions of each worker's traffic per node, coefficients, path caps. */
static int setup(struct bwm_solver *s, const struct bwm_machine *m,
		 const struct bwm_workload *wl, const struct bwm_placement *pl)
{
	double rd = wl->read, wr = 1 - wl->read, sum = 0;
	int n = m->nr_nodes, j, k;

	s->m = m;
	s->wl = wl;
	s->n = n;
	s->nw = 0;
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
		s->wnode[s->nw++] = j;
	}
	if (!s->nw)
		return -EINVAL;
	/* Resources: controllers 0..n-1, then each worker's interconnect. */
	s->nr = n + s->nw;
	memset(s->coef, 0, sizeof(double) * (size_t)s->nr * s->nw);
	for (k = 0; k < s->nw; k++) {
		int c = s->wnode[k];
		double nt = wl->threads[c], worst = 0, psum = 0, remote = 0;
		double in = m->node[c].interconnect_gbps;

		for (j = 0; j < n; j++) {
			double f = wl->shared * pl->shared[j] +
				   (1 - wl->shared) * pl->priv[c][j];
			const struct bwm_node *nd = &m->node[j];

			if (!(f >= 0))
				return -EINVAL;
			psum += pl->priv[c][j];
			s->f[k][j] = f;
			s->coef[j * s->nw + k] = nt * f *
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
		if (in > 0)
			s->coef[(n + k) * s->nw + k] = nt * remote / in;
		s->pathcap[k] = worst > 0 ? 1 / worst : INFINITY;
	}
	return 0;
}

/* Utilisation and loaded latency for the rates s->x. */
static void load(struct bwm_solver *s)
{
	const struct bwm_machine *m = s->m;
	double kq = m->queue_factor;
	int j, k;

	for (j = 0; j < s->n; j++) {
		double u = 0;

		for (k = 0; k < s->nw; k++)
			u += s->coef[j * s->nw + k] * s->x[k];
		s->uc[j] = u;
		s->qc[j] = queue_delay(u);
	}
	for (k = 0; k < s->nw; k++) {
		int c = s->wnode[k];
		double avg = 0;

		for (j = 0; j < s->n; j++) {
			double l;

			if (s->f[k][j] <= 0)
				continue;
			l = m->latency_ns[j][c] *
			    (1 + kq * (s->qc[j] + queue_delay(s->pc[k][j] *
							      s->x[k])));
			avg += s->f[k][j] * l;
		}
		s->lavg[k] = avg;
	}
}

/* Thread rates for the current latencies: demand, latency, then fill. */
static void rates(struct bwm_solver *s, double *x)
{
	const struct bwm_workload *wl = s->wl;
	double cap[BWM_MAX_FLOWS];
	int k;

	for (k = 0; k < s->nw; k++) {
		/* GB/s = bytes/ns: mlp lines in flight per latency */
		double lat_rate = wl->mlp * BWM_LINE_BYTES / s->lavg[k];
		double d = 1 / (1 / wl->demand_gbps + 1 / lat_rate);

		cap[k] = fmin(d, s->pathcap[k]);
	}
	bwm_maxmin_fill(s->nw, cap, s->nr, s->coef, x);
}

int bwm_solve(struct bwm_solver *s, const struct bwm_machine *m,
	      const struct bwm_workload *wl, const struct bwm_placement *pl)
{
	double xn[BWM_MAX_FLOWS], lambda = 1, prev = INFINITY;
	int k, it, ret;

	ret = setup(s, m, wl, pl);
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
			s->x[k] += lambda * (xn[k] - s->x[k]);
		}
		s->iterations = it;
		if (diff <= FP_TOL * scale)
			break;
		/* Oscillating: damp harder. */
		if (it > 1 && diff >= prev && lambda > 0.02)
			lambda *= 0.5;
		else if (it == 1)
			lambda = 0.5;
		prev = diff;
	}
	load(s);
	s->xmin = INFINITY;
	s->nthreads = 0;
	for (k = 0; k < s->nw; k++) {
		s->xmin = fmin(s->xmin, s->x[k]);
		s->nthreads += wl->threads[s->wnode[k]];
	}
	return 0;
}

double bwm_predict_throughput(const struct bwm_machine *m,
			      const struct bwm_workload *wl,
			      const struct bwm_placement *pl)
{
	struct bwm_solver s;
	int ret = bwm_solve(&s, m, wl, pl);

	return ret ? ret : s.nthreads * s.xmin;
}

int bwm_predict(const struct bwm_machine *m, const struct bwm_workload *wl,
		const struct bwm_placement *pl, struct bwm_prediction *out)
{
	struct bwm_solver s;
	double hz = m->cpu_ghz * 1e9, rd = wl->read, stall_threads = 0;
	int j, k, ret;

	ret = bwm_solve(&s, m, wl, pl);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	out->iterations = s.iterations;
	out->throughput_gbps = s.nthreads * s.xmin;
	out->exec_time_s = s.xmin > 0 ? wl->work_gb / s.xmin : INFINITY;
	out->slowest = -1;
	for (j = 0; j < s.n; j++)
		out->ctrl_util[j] = s.uc[j];
	for (k = 0; k < s.nw; k++) {
		int c = s.wnode[k];
		double nt = wl->threads[c], x = s.x[k];
		double sf = fmax(0, 1 - x / wl->demand_gbps);

		if (out->slowest < 0 && x <= s.xmin)
			out->slowest = c;
		out->thread_gbps[c] = x;
		out->worker_gbps[c] = nt * x;
		out->stall_rate += nt * hz * sf;
		stall_threads += nt * sf;
		for (j = 0; j < s.n; j++) {
			double g = nt * x * s.f[k][j];

			out->ctrl_read_gbps[j] += g * rd;
			out->ctrl_write_gbps[j] += g * (1 - rd);
			if (j == c)
				out->ctrl_local_gbps[j] += g;
			out->path_gbps[j][c] = g;
			out->path_util[j][c] = s.pc[k][j] * x;
			out->latency_ns[j][c] = m->latency_ns[j][c] *
				(1 + m->queue_factor *
				 (s.qc[j] + queue_delay(s.pc[k][j] * x)));
		}
	}
	out->stall_fraction = stall_threads / s.nthreads;
	return 0;
}
