// SPDX-License-Identifier: GPL-2.0
/*
 * Access-pattern signatures: how a thread's traffic divides between a
 * static allocation, node-local memory, per-thread allocations used by
 * every thread and interleaved memory; the traffic matrix a signature
 * gives for a thread placement; what the memory controllers' counters
 * see; and fitting a signature to two runs on a two-node machine.
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
			t = threads[c] * rate[c] * access[c][j];
			if (c == j)
				local[j] += t;
			else
				remote[j] += t;
		}
	}
	return 0;
}

int bwm_bank_normalise(const double rate[2], double local[2],
		       double remote[2])
{
	int i;

	for (i = 0; i < 2; i++)
		if (!(rate[i] > 0))
			return -EINVAL;
	for (i = 0; i < 2; i++) {
		local[i] /= rate[i];
		remote[i] /= rate[1 - i];
	}
	return 0;
}

static double clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

int bwm_signature_fit(int sym_threads, const double sym_local[2],
		      const double sym_remote[2], const int asym_threads[2],
		      const double asym_local[2], const double asym_remote[2],
		      struct bwm_signature *sig)
{
	double bank[2], l[2], r[2], cpu[2], p = 0, rsum = 0, w = 0;
	double S, L;
	int s, o, i, total = asym_threads[0] + asym_threads[1];

	if (sym_threads < 1 || asym_threads[0] < 1 || asym_threads[1] < 1 ||
	    asym_threads[0] == asym_threads[1])
		return -EINVAL;
	/* Symmetric run: the extra traffic of one bank is static. */
	for (i = 0; i < 2; i++)
		bank[i] = sym_local[i] + sym_remote[i];
	if (!(bank[0] + bank[1] > 0))
		return -EINVAL;
	s = bank[1] > bank[0];
	o = 1 - s;
	S = (bank[s] - bank[o]) / (bank[s] + bank[o]);
	/* Half of it came from each node's threads. */
	for (i = 0; i < 2; i++) {
		l[i] = sym_local[i];
		r[i] = sym_remote[i];
	}
	l[s] -= (bank[s] - bank[o]) / 2;
	r[s] -= (bank[s] - bank[o]) / 2;
	for (i = 0; i < 2; i++) {
		if (!(l[i] + r[i] > 0))
			return -EINVAL;
		rsum += r[i] / (l[i] + r[i]);
	}
	/* r = (s - 1) / s * (1 - L / (1 - S)) with s = 2 nodes */
	L = (1 - S) * (1 - 2 * (rsum / 2));
	L = clamp01(L);

	/* Asymmetric run: per-CPU totals, less static and local traffic. */
	cpu[0] = asym_local[0] + asym_remote[1];
	cpu[1] = asym_local[1] + asym_remote[0];
	for (i = 0; i < 2; i++) {
		l[i] = asym_local[i];
		r[i] = asym_remote[i];
	}
	r[s] -= S * cpu[o];
	l[s] -= S * cpu[s];
	for (i = 0; i < 2; i++)
		l[i] -= L * cpu[i];
	for (i = 0; i < 2; i++) {
		double li, pt = (double)asym_threads[i] / total;
		double den = l[i] + r[1 - i];

		if (!(den > 0))
			return -EINVAL;
		li = l[i] / den;
		/* li = pt * p + 1/2 * (1 - p) */
		p += (li - 0.5) / (pt - 0.5) * fabs(pt - 0.5);
		w += fabs(pt - 0.5);
	}
	p = clamp01(p / w);
	sig->static_node = s;
	sig->static_frac = S;
	sig->local_frac = L;
	sig->per_thread_frac = p * (1 - L - S);
	return 0;
}
