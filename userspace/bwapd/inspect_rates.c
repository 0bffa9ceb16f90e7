// SPDX-License-Identifier: GPL-2.0
/*
 * Write rates of sampled pages (inspect_rates.h).  Pages with the same
 * first slice, hits and mix of writers have the same rate: the work is
 * per such group.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_rates.h"

/*
 * A page's writers: each node's share of its samples, in parts of
 * MIX_PARTS (a node with a sample has one part or more), and the nodes;
 * all 0 where the slices do not say which nodes ran (every page alike).
 */
#define MIX_PARTS	8

struct mix {
	uint32_t nodes;
	int parts;
	uint8_t q[BWM_MAX_NODES];
};

struct group {
	int from, hits;			/* slices from `from` on; hits there */
	struct mix mix;			/* its pages' writers */
	int sat;			/* hit in every slice a writer ran */
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

/* The group of (from, hits, mix), made if new. */
static long group_of(struct groups *gs, int from, int hits,
		     const struct mix *mix)
{
	uint64_t key = (uint64_t)from << 32 | (uint32_t)hits;
	long k;
	uint32_t m;

	for (m = mix->nodes; m; m &= m - 1)
		key = inspect_hash(key ^ ((uint64_t)__builtin_ctz(m) << 8 |
					  mix->q[__builtin_ctz(m)]));
	for (k = (long)(inspect_hash(key) & (gs->cap - 1)); gs->slot[k];
	     k = (k + 1) & (gs->cap - 1)) {
		struct group *g = &gs->g[gs->slot[k] - 1];

		if (g->from == from && g->hits == hits &&
		    !memcmp(&g->mix, mix, sizeof(g->mix)))
			return gs->slot[k] - 1;
	}
	gs->g[gs->nr] = (struct group){ .from = from, .hits = hits, .r = -1,
					.mix = *mix };
	gs->slot[k] = ++gs->nr;
	return gs->nr - 1;
}

/*
 * The part of a page's writing that ran in slice k: the shares of its
 * writers whose nodes made a sample in it (1 where that is not known).
 */
static double part(const struct inspect_slices *sl, int k,
		   const struct mix *mix)
{
	uint32_t m;
	int on = 0;

	if (!sl->active || !mix->parts)
		return 1;
	m = sl->active[k] & mix->nodes;
	if (m == mix->nodes)
		return 1;
	for (; m; m &= m - 1)
		on += mix->q[__builtin_ctz(m)];
	return (double)on / mix->parts;
}

/* The slices from `from` on, every step-th, in which a writer ran. */
static int ran_in(const struct inspect_slices *sl, int from, int step,
		  const struct mix *mix)
{
	int k, c = 0;

	for (k = from; k < sl->nr; k += step)
		c += part(sl, k, mix) > 0;
	return c;
}

/*
 * Hits that slices of lengths x[from..nr), every step-th, expect at rate
 * r while all of the writers mix ran, each slice's exposure its length
 * times the part of them that did; two derivatives.
 */
static double expected(const struct inspect_slices *sl, const double *x,
		       int from, int step, const struct mix *mix, double r,
		       double *d1, double *d2)
{
	double h = 0;
	int k;

	*d1 = 0;
	*d2 = 0;
	for (k = from; k < sl->nr; k += step) {
		double e = x[k] * part(sl, k, mix), q = exp(-r * e);

		h += 1 - q;
		*d1 += e * q;
		*d2 -= e * e * q;
	}
	return h;
}

/*
 * The rate at which those slices expect hits (0.5 for none, one less
 * half for all), less the bias the inversion gives a count of few.
 * Newton's method from the rate of equal slices; the expected hits are
 * concave in the rate.
 */
static double solve_rate(const struct inspect_slices *sl, const double *x,
			 int from, int step, const struct mix *mix, int hits)
{
	double h, sum = 0, r, d1, d2, vh = 0;
	int k = 0, it, j;

	for (j = from; j < sl->nr; j += step) {
		double f = part(sl, j, mix);

		sum += x[j] * f;
		k += f > 0;
	}
	if (!k)
		return 0;
	h = hits == 0 ? 0.5 : hits >= k ? k - 0.5 : hits;
	r = sum > 0 ? -log1p(-h / k) / (sum / k) : 1;
	for (it = 0; it < 50; it++) {
		double dr = (expected(sl, x, from, step, mix, r, &d1,
				      &d2) - h) / d1;

		r = fmax(r - dr, r / 2);
		if (!(fabs(dr) > 1e-9 * r))
			break;
	}
	expected(sl, x, from, step, mix, r, &d1, &d2);
	for (j = from; j < sl->nr; j += step) {
		double q = exp(-r * x[j] * part(sl, j, mix));

		vh += q * (1 - q);
	}
	if (hits > 0 && hits < k)
		r = fmax(r + 0.5 * d2 / (d1 * d1 * d1) * vh, r / 2);
	return r;
}

/*
 * The rate of (from, hits, mix) over the exposures x[from],
 * x[from + step]...
 */
static double rate_of(struct groups *gs, const struct inspect_slices *sl,
		      const double *x, int from, int step,
		      const struct mix *mix, int hits)
{
	long g = group_of(gs, from, hits, mix);

	if (gs->g[g].r < 0)
		gs->g[g].r = solve_rate(sl, x, from, step, mix, hits);
	return gs->g[g].r;
}

/*
 * Each slice's exposure: the one at which the rates of the pages sampled
 * before it expect the pages it sampled again (none: as if half a page
 * was; all: all but half a page); then all scaled to the lengths' sum.
 * A page sampled in every slice after its first in which a writer of it
 * ran has a rate that is only a floor, and it was sampled again in each
 * of those slices: it tells nothing of an exposure, and neither the
 * rates nor the counts include it.  Nor do the pages none of whose
 * writers ran in the slice.  A slice after none of the other pages keeps
 * its length.
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

			if (g->from > k || !(part(sl, k, &g->mix) > 0))
				continue;
			if (g->sat)
				h -= g->count;
			else
				before += g->count;
		}
		h = fmin(fmax(h, 0.5), before - 0.5);
		for (it = 0; before >= 1 && it < 50; it++) {
			double e = 0, d = 0, step;

			for (i = 0; i < gs->nr; i++) {
				const struct group *g = &gs->g[i];
				double q, rf;

				if (g->from > k || g->sat)
					continue;
				rf = g->r * part(sl, k, &g->mix);
				q = exp(-rf * a);
				e += g->count * (1 - q);
				d += g->count * rf * q;
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

/*
 * The share of the slices' exposures x in which the writers mix ran: a
 * rate while they all ran, times it, is the rate over the whole time.
 */
static double ran_share(const struct inspect_slices *sl, const double *x,
			const struct mix *mix)
{
	double on = 0, all = 0;
	int k;

	for (k = 0; k < sl->nr; k++) {
		all += x[k];
		on += x[k] * part(sl, k, mix);
	}
	return all > 0 ? on / all : 1;
}

/* A page's writers: its samples' shares from each node, in parts. */
static void mix_of(const struct inspect_slices *sl, const struct bwm_page *p,
		   int nr_nodes, struct mix *mix)
{
	double s = 0;
	int j;

	memset(mix, 0, sizeof(*mix));
	if (!sl->active)
		return;
	for (j = 0; j < nr_nodes; j++)
		s += p->acc[j] > 0 ? p->acc[j] : 0;
	for (j = 0; j < nr_nodes && s > 0; j++) {
		if (!(p->acc[j] > 0))
			continue;
		mix->q[j] = (uint8_t)fmax(1, lround(MIX_PARTS * p->acc[j] / s));
		mix->nodes |= 1u << j;
		mix->parts += mix->q[j];
	}
}

int inspect_rates(const struct inspect_slices *sl, const struct bwm_page *p,
		  long n, int nr_nodes, double *rate,
		  double *group[INSPECT_SLICE_GROUPS], char *saturated)
{
	const int G = INSPECT_SLICE_GROUPS;
	double *x = malloc(sl->nr * sizeof(*x)), *share = NULL;
	long *of = calloc(n ? n : 1, sizeof(*of)), i;
	struct mix *mix = calloc(n ? n : 1, sizeof(*mix));
	struct groups gs;
	int g, round, ret;

	ret = groups_init(&gs, n);
	share = calloc(n ? n : 1, sizeof(*share));
	if (!x || !of || !mix || !share)
		ret = -ENOMEM;
	if (ret)
		goto out;
	memcpy(x, sl->len, sl->nr * sizeof(*x));
	for (i = 0; i < n; i++) {
		int from = sl->first[i] + 1, hits = sl->hits[i] - 1, most;

		of[i] = -1;
		saturated[i] = 0;
		mix_of(sl, &p[i], nr_nodes, &mix[i]);
		if (sl->hits[i] < 1 || from >= sl->nr)
			continue;
		most = ran_in(sl, from, 1, &mix[i]);
		if (hits > most)
			hits = most;
		saturated[i] = hits == most;
		of[i] = group_of(&gs, from, hits, &mix[i]);
		gs.g[of[i]].count++;
		gs.g[of[i]].sat = saturated[i];
	}
	/* the rates and the exposures in turn, from the lengths */
	for (round = 0; round <= (sl->again ? FIT_ROUNDS : 0); round++) {
		for (i = 0; i < gs.nr; i++)
			gs.g[i].r = solve_rate(sl, x, gs.g[i].from, 1,
					       &gs.g[i].mix, gs.g[i].hits);
		if (round < (sl->again ? FIT_ROUNDS : 0))
			fit_exposures(&gs, sl, x);
	}
	for (i = 0; i < n; i++) {
		share[i] = sl->active ? ran_share(sl, x, &mix[i]) : 1;
		/* sampled in its last slice only: one write in it */
		rate[i] = share[i] * (of[i] >= 0 ? gs.g[of[i]].r :
				      sl->hits[i] >= 1 ? 1 / x[sl->nr - 1] : 0);
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
			if (from < sl->nr && ran_in(sl, from, G, &mix[i]))
				group[g][i] = share[i] *
					      rate_of(&gs, sl, x, from, G,
						      &mix[i],
						      sl->group_hits[i * G + g]);
		}
		groups_free(&gs);
	}
	free(share);
	free(mix);
	free(x);
	free(of);
	return ret;
out:
	groups_free(&gs);
	free(share);
	free(mix);
	free(x);
	free(of);
	return ret;
}
