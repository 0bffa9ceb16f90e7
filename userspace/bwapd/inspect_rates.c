// SPDX-License-Identifier: GPL-2.0
/*
 * Write rates of sampled pages (inspect_rates.h).  Pages with the same
 * first slice and hits have the same rate: the work is per such group.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_rates.h"

struct group {
	int from, hits;			/* slices from `from` on; hits there */
	long count;			/* pages */
	double r;
};

/* Rounds of fitting the rates and the slices' exposures in turn. */
#define FIT_ROUNDS	8

struct groups {
	long nr, cap;
	struct group *g;
	long *slot;			/* hash: group + 1; 0 free */
};

/* The group of (from, hits), made if new; -1: out of memory. */
static long group_of(struct groups *gs, int from, int hits)
{
	uint64_t key = (uint64_t)from << 32 | (uint32_t)hits;
	long k;

	for (k = (long)(inspect_hash(key) & (gs->cap - 1)); gs->slot[k];
	     k = (k + 1) & (gs->cap - 1)) {
		struct group *g = &gs->g[gs->slot[k] - 1];

		if (g->from == from && g->hits == hits)
			return gs->slot[k] - 1;
	}
	gs->g[gs->nr] = (struct group){ .from = from, .hits = hits, .r = -1 };
	gs->slot[k] = ++gs->nr;
	return gs->nr - 1;
}

/*
 * Hits that slices of lengths x[from..nr), every step-th, expect at rate
 * r; two derivatives.
 */
static double expected(const double *x, int nr, int from, int step, double r,
		       double *d1, double *d2)
{
	double h = 0;
	int k;

	*d1 = 0;
	*d2 = 0;
	for (k = from; k < nr; k += step) {
		double q = exp(-r * x[k]);

		h += 1 - q;
		*d1 += x[k] * q;
		*d2 -= x[k] * x[k] * q;
	}
	return h;
}

/*
 * The rate at which those slices expect hits (0.5 for none, one less
 * half for all), less the bias the inversion gives a count of few.
 * Newton's method from the rate of equal slices; the expected hits are
 * concave in the rate.
 */
static double solve_rate(const double *x, int nr, int from, int step,
			 int hits)
{
	double h, sum = 0, r, d1, d2, vh = 0;
	int k = 0, it, j;

	for (j = from; j < nr; j += step) {
		sum += x[j];
		k++;
	}
	if (!k)
		return 0;
	h = hits == 0 ? 0.5 : hits >= k ? k - 0.5 : hits;
	r = sum > 0 ? -log1p(-h / k) / (sum / k) : 1;
	for (it = 0; it < 50; it++) {
		double dr = (expected(x, nr, from, step, r, &d1, &d2) - h) / d1;

		r = fmax(r - dr, r / 2);
		if (!(fabs(dr) > 1e-9 * r))
			break;
	}
	expected(x, nr, from, step, r, &d1, &d2);
	for (j = from; j < nr; j += step) {
		double q = exp(-r * x[j]);

		vh += q * (1 - q);
	}
	if (hits > 0 && hits < k)
		r = fmax(r + 0.5 * d2 / (d1 * d1 * d1) * vh, r / 2);
	return r;
}

/* The rate of (from, hits) over the exposures x[from], x[from + step]... */
static double rate_of(struct groups *gs, const double *x, int nr, int from,
		      int step, int hits)
{
	long g = group_of(gs, from, hits);

	if (gs->g[g].r < 0)
		gs->g[g].r = solve_rate(x, nr, from, step, hits);
	return gs->g[g].r;
}

/*
 * Each slice's exposure: the one at which the rates of the pages sampled
 * before it expect the pages it sampled again (none: as if half a page
 * was; all: all but half a page); then all scaled to the lengths' sum.
 * A page sampled in every slice after its first has a rate that is only
 * a floor, and it was sampled again in each of those slices: it tells
 * nothing of an exposure, and neither the rates nor the counts include
 * it.  A slice after none of the other pages keeps its length.
 */
static void fit_exposures(const struct groups *gs,
			  const struct inspect_slices *sl, double *x)
{
	double sum = 0, want = 0;
	int k, it;
	long i;

	for (k = 0; k < sl->nr; k++) {
		double a = x[k], h = sl->again[k], before = 0;

		want += sl->len[k];
		for (i = 0; i < gs->nr; i++) {
			const struct group *g = &gs->g[i];

			if (g->from > k)
				continue;
			if (g->hits == sl->nr - g->from)
				h -= g->count;
			else
				before += g->count;
		}
		h = fmin(fmax(h, 0.5), before - 0.5);
		for (it = 0; before >= 1 && it < 50; it++) {
			double e = 0, d = 0, step;

			for (i = 0; i < gs->nr; i++) {
				const struct group *g = &gs->g[i];
				double q;

				if (g->from > k || g->hits == sl->nr - g->from)
					continue;
				q = exp(-g->r * a);
				e += g->count * (1 - q);
				d += g->count * g->r * q;
			}
			if (!(d > 0))
				break;
			step = (e - h) / d;
			a = fmax(a - step, a / 2);
			if (!(fabs(step) > 1e-9 * a))
				break;
		}
		x[k] = a;
		sum += a;
	}
	for (k = 0; k < sl->nr && sum > 0; k++)
		x[k] *= want / sum;
}

static int groups_init(struct groups *gs, long n)
{
	memset(gs, 0, sizeof(*gs));
	for (gs->cap = 16; gs->cap < 2 * n; gs->cap *= 2)
		;
	gs->g = calloc(n ? n : 1, sizeof(*gs->g));
	gs->slot = calloc(gs->cap, sizeof(*gs->slot));
	return gs->g && gs->slot ? 0 : -ENOMEM;
}

static void groups_free(struct groups *gs)
{
	free(gs->g);
	free(gs->slot);
}

int inspect_rates(const struct inspect_slices *sl, long n, double *rate,
		  double *group[INSPECT_SLICE_GROUPS], char *saturated)
{
	const int G = INSPECT_SLICE_GROUPS;
	double *x = malloc(sl->nr * sizeof(*x));
	long *of = calloc(n ? n : 1, sizeof(*of)), i;
	struct groups gs;
	int g, round, ret;

	ret = groups_init(&gs, n);
	if (!x || !of)
		ret = -ENOMEM;
	if (ret)
		goto out;
	memcpy(x, sl->len, sl->nr * sizeof(*x));
	for (i = 0; i < n; i++) {
		int from = sl->first[i] + 1, hits = sl->hits[i] - 1;

		of[i] = -1;
		saturated[i] = 0;
		if (sl->hits[i] < 1 || from >= sl->nr)
			continue;
		if (hits > sl->nr - from)
			hits = sl->nr - from;
		saturated[i] = hits == sl->nr - from;
		of[i] = group_of(&gs, from, hits);
		gs.g[of[i]].count++;
	}
	/* the rates and the exposures in turn, from the lengths */
	for (round = 0; round <= (sl->again ? FIT_ROUNDS : 0); round++) {
		for (i = 0; i < gs.nr; i++)
			gs.g[i].r = solve_rate(x, sl->nr, gs.g[i].from, 1,
					       gs.g[i].hits);
		if (round < (sl->again ? FIT_ROUNDS : 0))
			fit_exposures(&gs, sl, x);
	}
	for (i = 0; i < n; i++) {
		/* sampled in its last slice only: one write in it */
		rate[i] = of[i] >= 0 ? gs.g[of[i]].r :
			  sl->hits[i] >= 1 ? 1 / x[sl->nr - 1] : 0;
	}
	groups_free(&gs);
	/* group g: the slices k = g mod G after the page's first */
	for (g = 0; !ret && sl->group_hits && g < G; g++) {
		ret = groups_init(&gs, n);
		for (i = 0; !ret && i < n; i++) {
			int from = sl->first[i] + 1;

			group[g][i] = rate[i];
			if (of[i] < 0)
				continue;
			/* the group's first slice from `from` on */
			from += ((g - from) % G + G) % G;
			if (from < sl->nr)
				group[g][i] = rate_of(&gs, x, sl->nr, from, G,
						      sl->group_hits[i * G + g]);
		}
		groups_free(&gs);
	}
	free(x);
	free(of);
	return ret;
out:
	groups_free(&gs);
	free(x);
	free(of);
	return ret;
}
