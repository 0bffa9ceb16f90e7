// SPDX-License-Identifier: GPL-2.0
/*
 * Access-pattern signatures: how a thread's traffic divides between a
 * static allocation, node-local memory, per-thread allocations used by
 * every thread and interleaved memory; the traffic matrix a signature
 * gives for a thread placement; what the memory controllers' counters
 * see; and fitting a signature to two runs (a symmetric and an
 * asymmetric thread placement) on two or more nodes.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model.h"

static int sig_check(const struct bwm_signature *sig, int nr_nodes)
{
	double sum = sig->static_frac + sig->local_frac + sig->per_thread_frac;

	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES ||
	    sig->static_node < 0 || sig->static_node >= nr_nodes ||
	    !(sig->static_frac >= 0) || !(sig->local_frac >= 0) ||
	    !(sig->per_thread_frac >= 0) || sum > 1 + 1e-12)
		return -EINVAL;
	return 0;
}

int bwm_signature_matrix(const struct bwm_signature *sig, int nr_nodes,
			 const int *threads,
			 double out[BWM_MAX_NODES][BWM_MAX_NODES])
{
	double inter, total = 0;
	int used = 0, c, j, ret;

	ret = sig_check(sig, nr_nodes);
	if (ret)
		return ret;
	for (j = 0; j < nr_nodes; j++) {
		if (threads[j] < 0)
			return -EINVAL;
		total += threads[j];
		used += threads[j] > 0;
	}
	if (!used)
		return -EINVAL;
	inter = 1 - sig->static_frac - sig->local_frac - sig->per_thread_frac;
	memset(out, 0, sizeof(double) * BWM_MAX_NODES * BWM_MAX_NODES);
	for (c = 0; c < nr_nodes; c++) {
		if (!threads[c])
			continue;
		for (j = 0; j < nr_nodes; j++) {
			double v = sig->per_thread_frac * threads[j] / total;

			if (threads[j])
				v += inter / used;
			if (j == c)
				v += sig->local_frac;
			if (j == sig->static_node)
				v += sig->static_frac;
			out[c][j] = v;
		}
	}
	return 0;
}

int bwm_bank_view(int nr_nodes, const int *threads, const double *rate,
		  const double access[BWM_MAX_NODES][BWM_MAX_NODES],
		  double *local, double *remote)
{
	int c, j;

	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES)
		return -EINVAL;
	for (j = 0; j < nr_nodes; j++) {
		local[j] = 0;
		remote[j] = 0;
		for (c = 0; c < nr_nodes; c++) {
			double t;

			if (threads[c] < 0 || !(rate[c] >= 0))
				return -EINVAL;
			if (!threads[c])
				continue;
			t = threads[c] * rate[c] * access[c][j];
			if (c == j)
				local[j] += t;
			else
				remote[j] += t;
		}
	}
	return 0;
}

int bwm_bank_normalise(int nr_nodes, const int *threads, const double *rate,
		       double *local, double *remote)
{
	double other_t, other_r;
	int c, j;

	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES)
		return -EINVAL;
	for (c = 0; c < nr_nodes; c++)
		if (threads[c] < 0 || (threads[c] && !(rate[c] > 0)))
			return -EINVAL;
	for (j = 0; j < nr_nodes; j++) {
		if (threads[j])
			local[j] /= rate[j];
		/*
		 * Every other node's threads send the same share of their
		 * traffic to a node (only the local part differs), so the
		 * remote traffic divides by their mean speed.
		 */
		other_t = 0;
		other_r = 0;
		for (c = 0; c < nr_nodes; c++) {
			if (c == j || !threads[c])
				continue;
			other_t += threads[c];
			other_r += threads[c] * rate[c];
		}
		if (other_t > 0)
			remote[j] /= other_r / other_t;
	}
	return 0;
}

static double clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* Used nodes and threads of a run; -EINVAL if fewer than two nodes. */
static int run_shape(int nr_nodes, const struct bwm_bank_run *run,
		     int *used, int *total)
{
	int j;

	*used = 0;
	*total = 0;
	for (j = 0; j < nr_nodes; j++) {
		if (run->threads[j] < 0 || !(run->local[j] >= 0) ||
		    !(run->remote[j] >= 0))
			return -EINVAL;
		*used += run->threads[j] > 0;
		*total += run->threads[j];
	}
	return *used >= 2 ? 0 : -EINVAL;
}

static double run_traffic(int nr_nodes, const struct bwm_bank_run *run)
{
	double t = 0;
	int j;

	for (j = 0; j < nr_nodes; j++)
		t += run->local[j] + run->remote[j];
	return t;
}

/*
 * What remains below this share of a run's traffic once the static and
 * local parts are out is too little to tell anything apart.
 */
#define SIG_NOTHING_LEFT	1e-9

/*
 * Symmetric run (the paper's sections 5.3 and 5.4): the bank with the
 * most traffic holds the static allocation, its excess over the other
 * used banks is the static fraction; once that is out, each used bank's
 * remote share r = (s - 1) / s * (1 - local / (1 - static)).
 */
static int fit_symmetric(int nr_nodes, const struct bwm_bank_run *run,
			 struct bwm_signature *sig, double *asymmetry)
{
	double total, others = 0, excess, l, r, rsum = 0, tsum = 0;
	double rmin = 1, rmax = 0;
	int used, nthreads, per_node = 0, sn = 0, nothers = 0, j;

	if (run_shape(nr_nodes, run, &used, &nthreads))
		return -EINVAL;
	for (j = 0; j < nr_nodes; j++) {
		if (!run->threads[j])
			continue;
		if (per_node && run->threads[j] != per_node)
			return -EINVAL;
		per_node = run->threads[j];
	}
	total = run_traffic(nr_nodes, run);
	if (!(total > 0))
		return -EINVAL;
	for (j = 1; j < nr_nodes; j++)
		if (run->local[j] + run->remote[j] >
		    run->local[sn] + run->remote[sn])
			sn = j;
	for (j = 0; j < nr_nodes; j++) {
		if (j == sn || !run->threads[j])
			continue;
		others += run->local[j] + run->remote[j];
		nothers++;
	}
	excess = run->local[sn] + run->remote[sn];
	if (run->threads[sn])
		excess -= others / nothers;
	sig->static_node = sn;
	sig->static_frac = clamp01(excess / total);
	sig->local_frac = 0;
	sig->per_thread_frac = 0;
	*asymmetry = 0;
	if (1 - sig->static_frac < SIG_NOTHING_LEFT)
		return 0;
	/* each used node's threads sent 1/used of the static traffic */
	for (j = 0; j < nr_nodes; j++) {
		if (!run->threads[j])
			continue;
		l = run->local[j];
		r = run->remote[j];
		if (j == sn) {
			l -= excess / used;
			r -= excess * (used - 1) / used;
		}
		if (l < 0)
			l = 0;
		if (r < 0)
			r = 0;
		if (!(l + r > 0))
			continue;
		rsum += r;
		tsum += l + r;
		rmin = fmin(rmin, r / (l + r));
		rmax = fmax(rmax, r / (l + r));
	}
	if (!(tsum > total * SIG_NOTHING_LEFT))
		return 0;
	r = rsum / tsum;
	*asymmetry = rmax - rmin;
	sig->local_frac = clamp01((1 - sig->static_frac) *
				  (1 - r * used / (used - 1)));
	return 0;
}

/*
 * Asymmetric run (section 5.5): take the static and local parts out of
 * each node's local traffic; what is left of a node's own traffic is
 * local in the share t_i / T for per-thread memory and 1 / s for
 * interleaved memory, and p, the per-thread part of the rest, is the
 * least-squares interpolation between the two over the used nodes.
 */
static int fit_asymmetric(int nr_nodes, const struct bwm_bank_run *run,
			  struct bwm_signature *sig, double *p_raw)
{
	double total, rest = 1 - sig->static_frac - sig->local_frac;
	double num = 0, den = 0, cpu[BWM_MAX_NODES];
	int used, nthreads, sn = sig->static_node, i, unequal = 0;

	if (run_shape(nr_nodes, run, &used, &nthreads))
		return -EINVAL;
	for (i = 0; i < nr_nodes; i++)
		if (run->threads[i] && run->threads[i] * used != nthreads)
			unequal = 1;
	if (!unequal)
		return -EINVAL;
	total = run_traffic(nr_nodes, run);
	if (!(total > 0))
		return -EINVAL;
	*p_raw = 0;
	if (rest < SIG_NOTHING_LEFT)
		return 0;
	/*
	 * A node's threads' traffic: with two nodes, the counters give it
	 * (local at its bank, remote at the other's); with more, remote
	 * traffic cannot be told apart by source and the model's own
	 * assumption, equal normalised traffic per thread, gives it.
	 */
	for (i = 0; i < nr_nodes; i++)
		cpu[i] = total * run->threads[i] / nthreads;
	if (used == 2 && nr_nodes == 2) {
		cpu[0] = run->local[0] + run->remote[1];
		cpu[1] = run->local[1] + run->remote[0];
	}
	for (i = 0; i < nr_nodes; i++) {
		double l = run->local[i], d, x;

		if (!run->threads[i])
			continue;
		if (i == sn)
			l -= sig->static_frac * cpu[i];
		l -= sig->local_frac * cpu[i];
		if (!(cpu[i] * rest > 0))
			continue;
		x = l / (cpu[i] * rest);
		d = (double)run->threads[i] / nthreads - 1.0 / used;
		num += d * (x - 1.0 / used);
		den += d * d;
	}
	if (!(den > 0))
		return -EINVAL;
	*p_raw = num / den;
	sig->per_thread_frac = clamp01(*p_raw) * rest;
	return 0;
}

/* Traffic of a run the signature does not explain, in bank units. */
static double run_residual(int nr_nodes, const struct bwm_bank_run *run,
			   const struct bwm_signature *sig)
{
	double m[BWM_MAX_NODES][BWM_MAX_NODES], rate[BWM_MAX_NODES];
	double pl[BWM_MAX_NODES], pr[BWM_MAX_NODES], unit, err = 0;
	int used, nthreads, j;

	if (run_shape(nr_nodes, run, &used, &nthreads) ||
	    bwm_signature_matrix(sig, nr_nodes, run->threads, m))
		return run_traffic(nr_nodes, run);
	for (j = 0; j < BWM_MAX_NODES; j++)
		rate[j] = 1;
	bwm_bank_view(nr_nodes, run->threads, rate, m, pl, pr);
	unit = run_traffic(nr_nodes, run) / nthreads;
	for (j = 0; j < nr_nodes; j++)
		err += fabs(pl[j] * unit - run->local[j]) +
		       fabs(pr[j] * unit - run->remote[j]);
	return err / 2;
}

int bwm_signature_fit_runs(int nr_nodes, const struct bwm_bank_run *sym,
			   const struct bwm_bank_run *asym,
			   struct bwm_signature *sig,
			   struct bwm_signature_quality *q)
{
	struct bwm_signature_quality dummy;
	struct bwm_signature s;
	double traffic;
	int ret;

	if (!q)
		q = &dummy;
	if (nr_nodes < 2 || nr_nodes > BWM_MAX_NODES)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	ret = fit_symmetric(nr_nodes, sym, &s, &q->asymmetry);
	if (!ret)
		ret = fit_asymmetric(nr_nodes, asym, &s, &q->per_thread_raw);
	if (ret)
		return ret;
	traffic = run_traffic(nr_nodes, sym) + run_traffic(nr_nodes, asym);
	q->residual = (run_residual(nr_nodes, sym, &s) +
		       run_residual(nr_nodes, asym, &s)) / traffic;
	q->fits = q->residual <= BWM_SIG_MAX_RESIDUAL &&
		  q->asymmetry <= BWM_SIG_MAX_ASYMMETRY;
	*sig = s;
	return 0;
}

int bwm_signature_fit(int sym_threads, const double sym_local[2],
		      const double sym_remote[2], const int asym_threads[2],
		      const double asym_local[2], const double asym_remote[2],
		      struct bwm_signature *sig)
{
	struct bwm_bank_run sym = { 0 }, asym = { 0 };
	int i;

	for (i = 0; i < 2; i++) {
		sym.threads[i] = sym_threads;
		sym.local[i] = sym_local[i];
		sym.remote[i] = sym_remote[i];
		asym.threads[i] = asym_threads[i];
		asym.local[i] = asym_local[i];
		asym.remote[i] = asym_remote[i];
	}
	if (sym_threads < 1 || asym_threads[0] < 1 || asym_threads[1] < 1)
		return -EINVAL;
	return bwm_signature_fit_runs(2, &sym, &asym, sig, NULL);
}
