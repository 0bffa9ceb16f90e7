// SPDX-License-Identifier: GPL-2.0
/*
 * Placements: page fractions from kernel weights, data-to-worker proximity
 * (DWP), and fractions back to kernel weights.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bwmodel.h"

void bwm_placement_interleave(struct bwm_placement *pl, int nr_nodes,
			      const double *frac)
{
	int c, j;

	memset(pl, 0, sizeof(*pl));
	for (j = 0; j < nr_nodes; j++)
		pl->shared[j] = frac[j];
	for (c = 0; c < nr_nodes; c++)
		memcpy(pl->priv[c], pl->shared, sizeof(pl->priv[c]));
}

void bwm_placement_first_touch(struct bwm_placement *pl, int nr_nodes,
			       int shared_node)
{
	int c;

	memset(pl, 0, sizeof(*pl));
	pl->shared[shared_node] = 1;
	for (c = 0; c < nr_nodes; c++)
		pl->priv[c][c] = 1;
}

int bwm_weights_to_fractions(const uint8_t *weights, int nr_nodes,
			     double *frac)
{
	unsigned int sum = 0;
	int j;

	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES)
		return -EINVAL;
	for (j = 0; j < nr_nodes; j++)
		sum += weights[j];
	if (!sum)
		return -EINVAL;
	for (j = 0; j < nr_nodes; j++)
		frac[j] = (double)weights[j] / sum;
	return 0;
}

int bwm_apply_dwp(const double *base, int nr_nodes, uint32_t workers,
		  double dwp, double *out)
{
	double sw = 0, sn = 0, total, target;
	int j, nw = 0;

	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES || !(dwp >= 0) ||
	    dwp > 1 || !(workers & ((1u << nr_nodes) - 1)))
		return -EINVAL;
	for (j = 0; j < nr_nodes; j++) {
		if (base[j] < 0)
			return -EINVAL;
		if (workers & (1u << j)) {
			sw += base[j];
			nw++;
		} else {
			sn += base[j];
		}
	}
	total = sw + sn;
	if (!(total > 0))
		return -EINVAL;
	sw /= total;
	sn /= total;
	target = sw + dwp * (1 - sw);	/* share of the worker set */
	for (j = 0; j < nr_nodes; j++) {
		double b = base[j] / total;

		if (workers & (1u << j))
			/* No canonical weight on the workers: share evenly. */
			out[j] = sw > 0 ? b * target / sw : target / nw;
		else
			out[j] = b * (1 - dwp);
	}
	return 0;
}

int bwm_placement_from_weights(struct bwm_placement *pl, int nr_nodes,
			       const uint8_t *weights, uint32_t workers,
			       double dwp)
{
	double frac[BWM_MAX_NODES], moved[BWM_MAX_NODES];
	int ret;

	ret = bwm_weights_to_fractions(weights, nr_nodes, frac);
	if (!ret && dwp > 0)
		ret = bwm_apply_dwp(frac, nr_nodes, workers, dwp, moved);
	else
		memcpy(moved, frac, sizeof(moved));
	if (ret)
		return ret;
	bwm_placement_interleave(pl, nr_nodes, moved);
	return 0;
}

static unsigned int gcd(unsigned int a, unsigned int b)
{
	while (b) {
		unsigned int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Largest deviation of weights w from frac, in fraction of pages. */
static double weights_error(const double *frac, const unsigned int *w,
			    int n)
{
	unsigned int sum = 0;
	double e = 0;
	int j;

	for (j = 0; j < n; j++)
		sum += w[j];
	for (j = 0; j < n; j++)
		e = fmax(e, fabs((double)w[j] / sum - frac[j]));
	return e;
}

/*
 * Try every cycle length from the number of used nodes up to where the
 * largest weight would pass 255: round frac * cycle, at least 1 for a
 * used node.  The first cycle within max_err wins (short cycles keep the
 * interleave even over small ranges); otherwise the most accurate.
 */
int bwm_fractions_to_u8(const double *frac, int nr_nodes, double max_err,
			uint8_t *weights, double *err_out)
{
	double f[BWM_MAX_NODES], sum = 0, fmaxv = 0, best_err = INFINITY;
	unsigned int w[BWM_MAX_NODES], best[BWM_MAX_NODES], g = 0, cyc = 0;
	int j, used = 0, cycle, last;

	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES || !(max_err >= 0))
		return -EINVAL;
	for (j = 0; j < nr_nodes; j++) {
		if (!(frac[j] >= 0) || !isfinite(frac[j]))
			return -EINVAL;
		sum += frac[j];
	}
	if (!(sum > 0))
		return -EINVAL;
	for (j = 0; j < nr_nodes; j++) {
		f[j] = frac[j] / sum;
		used += f[j] > 0;
		fmaxv = fmax(fmaxv, f[j]);
	}
	last = (int)floor(255.0 / fmaxv + 0.5);
	if (last < used)
		last = used;
	for (cycle = used; cycle <= last; cycle++) {
		double e;
		bool ok = true;

		for (j = 0; j < nr_nodes; j++) {
			long r = lround(f[j] * cycle);

			if (f[j] > 0 && r < 1)
				r = 1;
			if (r > 255)
				ok = false;
			w[j] = f[j] > 0 ? (unsigned int)r : 0;
		}
		if (!ok)
			continue;
		e = weights_error(f, w, nr_nodes);
		if (e < best_err - 1e-12) {
			best_err = e;
			memcpy(best, w, sizeof(best));
		}
		if (e <= max_err)
			break;
	}
	if (!isfinite(best_err))
		return -EINVAL;
	for (j = 0; j < nr_nodes; j++)
		g = gcd(g, best[j]);
	for (j = 0; j < nr_nodes; j++) {
		weights[j] = (uint8_t)(best[j] / g);
		cyc += weights[j];
	}
	if (err_out)
		*err_out = best_err;
	return (int)cyc;
}

char *bwm_weights_format(const uint8_t *weights, int nr_nodes, char *buf,
			 size_t len)
{
	size_t off = 0;
	int j;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (j = 0; j < nr_nodes; j++) {
		char one[8];
		int n = snprintf(one, sizeof(one), "%s%u", j ? "," : "",
				 weights[j]);

		if (off + (size_t)n >= len)
			break;
		memcpy(buf + off, one, (size_t)n + 1);
		off += (size_t)n;
	}
	return buf;
}

int bwm_weights_parse(const char *s, uint8_t *weights, int max, int *old)
{
	char sep = strchr(s, ':') ? ':' : ',';
	int n = 0, nonzero = 0;
	const char *p = s;

	for (;;) {
		unsigned int v = 0;
		const char *start = p;

		while (*p >= '0' && *p <= '9' && p - start < 4)
			v = v * 10 + (unsigned int)(*p++ - '0');
		if (p == start || v > 255 || (*p && *p != sep))
			return -EINVAL;
		if (n == max)
			return -E2BIG;
		weights[n++] = (uint8_t)v;
		nonzero |= v != 0;
		if (!*p)
			break;
		p++;
	}
	if (!nonzero)
		return -EINVAL;
	if (old)
		*old = sep == ':';
	return n;
}
