// SPDX-License-Identifier: GPL-2.0
/*
 * Exclusivity and locality from sampled accesses, with their range
 * (inspect_estimate.h says what each correction answers).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_estimate.h"
#include "inspect_rates.h"

/* Standard deviations of a difference that decide a page's locality. */
#define DECIDED_Z	2.0
/*
 * How much faster than the slowest rate that fits them the pages
 * sampled in every slice may be, for the range.
 */
#define UNRESOLVED_FACTOR	4.0

/* The figures a page adds up: the two ends of each range. */
enum { LOO, PLUG, LOC, LOC_LO, LOC_HI, FIGS };

/* One page: its weight, its figures and their variances. */
struct page_est {
	double w;			/* estimated accesses (rate, or draws) */
	double x[FIGS], var[FIGS];
	int located;
};

/*
 * How the clears may have shortened a page's slices after a hit: not at
 * all, by the whole clear's time (every page, as a wait for the lock or
 * the TLB flush does), or by the part of it before the walk reaches the
 * page (in address order).
 */
enum { CLEAR_NONE, CLEAR_ALL, CLEAR_WALK, CLEARS };

/*
 * A page's weight as each way of the clears has it, with its figures;
 * 'sat': sampled in every slice.
 */
struct page_weighing {
	double w[CLEARS];
	double x[FIGS];
	int located, sat;
};

/* Sums over pages of w, w x and w^2 var(x), per figure. */
struct sums {
	long pages;
	double w[2];			/* all pages, located ones */
	double wx[FIGS], w2var[FIGS];
};

/*
 * The share of the draws that the most frequent node of the others
 * predicts, each draw left out in turn; ties among the nodes that
 * access at all (from any page) share the prediction.
 */
static double leave_one_out(const long *c, int nr, uint32_t access, long s)
{
	double t = 0;
	int j, k;

	for (k = 0; k < nr; k++) {
		long top = -1;
		int tied = 0;

		if (!c[k])
			continue;
		for (j = 0; j < nr; j++) {
			long d = c[j] - (j == k);

			if (!(access >> j & 1))
				continue;

			if (d > top) {
				top = d;
				tied = 1;
			} else if (d == top) {
				tied++;
			}
		}
		if (c[k] - 1 == top)
			t += (double)c[k] / tied;
	}
	return t / s;
}

static void locality_of(const long *c, int nr, int node, struct page_est *pe)
{
	long top = 0, d;
	double sd;
	int j;

	pe->located = node >= 0 && node < nr;
	if (!pe->located)
		return;
	for (j = 0; j < nr; j++)
		if (j != node && c[j] > top)
			top = c[j];
	d = c[node] - top;
	sd = sqrt((double)(c[node] + top));
	pe->x[LOC] = d > 0 ? 1 : d == 0 ? 0.5 : 0;
	pe->x[LOC_LO] = d > DECIDED_Z * sd ? 1 : 0;
	pe->x[LOC_HI] = d < -DECIDED_Z * sd ? 0 : 1;
}

static void add(struct sums *s, const struct page_est *pe, double scale)
{
	double w = pe->w * scale;
	int f;

	s->pages++;
	s->w[0] += w;
	if (pe->located)
		s->w[1] += w;
	for (f = 0; f < FIGS; f++) {
		if (f >= LOC && !pe->located)
			break;
		s->wx[f] += w * pe->x[f];
		s->w2var[f] += w * w * pe->var[f];
	}
}

/* Two sums as one. */
static struct sums merged(const struct sums *a, const struct sums *b)
{
	struct sums s = *a;
	int f;

	s.pages += b->pages;
	s.w[0] += b->w[0];
	s.w[1] += b->w[1];
	for (f = 0; f < FIGS; f++) {
		s.wx[f] += b->wx[f];
		s.w2var[f] += b->w2var[f];
	}
	return s;
}

/* The weighted mean of figure f, and its standard error by the draws. */
static double mean(const struct sums *s, int f, double *se)
{
	int k = f >= LOC;

	if (!(s->w[k] > 0)) {
		*se = 0;
		return 0;
	}
	*se = sqrt(s->w2var[f]) / s->w[k];
	return s->wx[f] / s->w[k];
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The estimates of each group of slices alone: w and w x per figure. */
struct group_sums {
	double w[INSPECT_SLICE_GROUPS][2];
	double wx[INSPECT_SLICE_GROUPS][FIGS];
};

/*
 * The standard error of figure f's weighing: the spread of the groups'
 * estimates over the square root of their number; 0 without groups.
 */
static double weighing_se(const struct group_sums *gs, int groups, int f)
{
	double m[INSPECT_SLICE_GROUPS], mean = 0, var = 0;
	int g, k = f >= LOC;

	if (groups < 2)
		return 0;
	for (g = 0; g < groups; g++) {
		m[g] = gs->w[g][k] > 0 ? gs->wx[g][f] / gs->w[g][k] : 0;
		mean += m[g] / groups;
	}
	for (g = 0; g < groups; g++)
		var += (m[g] - mean) * (m[g] - mean) / (groups - 1);
	return sqrt(var / groups);
}

/*
 * The weighted mean of figure f with the clears' way c, the pages
 * sampled in every slice weighing 'fast' times their rate.
 */
static double weighed(const struct page_weighing *pw, long n, int f, int c,
		      double fast)
{
	double sw = 0, swx = 0;
	long i;

	for (i = 0; i < n; i++) {
		double w = pw[i].w[c] * (pw[i].sat ? fast : 1);

		if (f >= LOC && !pw[i].located)
			continue;
		sw += w;
		swx += w * pw[i].x[f];
	}
	return sw > 0 ? swx / sw : 0;
}

/*
 * The range of figures flo (its least) and fhi (its largest) over every
 * way of the clears, each two standard errors out; the pages sampled in
 * every slice weighed alike among themselves, at the slowest rate that
 * fits them or UNRESOLVED_FACTOR times that.
 */
static void range_of(const struct page_weighing *pw, long n,
		     const struct sums *s, const struct group_sums *gs,
		     int groups, int flo, int fhi, double *lo, double *hi)
{
	double se, sw, out_lo, out_hi;
	int c, k;

	mean(s, flo, &se);
	sw = weighing_se(gs, groups, flo);
	out_lo = 2 * sqrt(se * se + sw * sw);
	mean(s, fhi, &se);
	sw = weighing_se(gs, groups, fhi);
	out_hi = 2 * sqrt(se * se + sw * sw);
	*lo = 1;
	*hi = 0;
	for (c = 0; c < CLEARS; c++)
		for (k = 0; k < 2; k++) {
			double fast = k ? UNRESOLVED_FACTOR : 1;

			*lo = fmin(*lo, weighed(pw, n, flo, c, fast) - out_lo);
			*hi = fmax(*hi, weighed(pw, n, fhi, c, fast) + out_hi);
		}
}

/*
 * How much faster than its rate page i is written if each slice after a
 * hit was shorter by 'lost' (s): the mean slice over the mean slice less
 * 'lost' on the share of its slices that follow a hit.
 */
static double faster_by(const struct inspect_slices *sl, const double *tail,
			long i, double lost)
{
	int from = sl->first[i] + 1;
	double len, h;

	if (!(lost > 0) || from >= sl->nr)
		return 1;
	len = tail[from] / (sl->nr - from);
	h = (double)(sl->hits[i] - 1) / (sl->nr - from);
	return len > lost ? len / (len - h * lost) : UNRESOLVED_FACTOR;
}

/* The order of the pages' addresses: the walk's. */
static int by_addr(const void *a, const void *b, void *pages)
{
	const struct bwm_page *p = pages;
	uint64_t x = p[*(const long *)a].addr, y = p[*(const long *)b].addr;

	return x < y ? -1 : x > y;
}

/* Each page's place in the walk, 0 (first) to 1 (last). */
static int walk_places(const struct bwm_page *p, long n, double *place)
{
	long *ix = malloc((n ? n : 1) * sizeof(*ix)), i;

	if (!ix)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, n, sizeof(*ix), by_addr, (void *)p);
	for (i = 0; i < n; i++)
		place[ix[i]] = n > 1 ? (double)i / (n - 1) : 0;
	free(ix);
	return 0;
}

int inspect_estimate(struct bwm_page *p, long n, int nr_nodes,
		     const struct inspect_slices *sl,
		     struct inspect_estimate *e)
{
	const int G = INSPECT_SLICE_GROUPS;
	struct sums rest = { 0 }, sat = { 0 }, all;
	double draws = 0, lo, hi, llo, lhi, floor, se;
	double *rate = NULL, *group[INSPECT_SLICE_GROUPS] = { NULL };
	double *tail = NULL, *place = NULL;
	struct page_weighing *pw;
	struct group_sums gsum = { 0 };
	int j, f, g, groups = sl && sl->group_hits ? G : 0, ret = 0;
	char *saturated = NULL;
	uint32_t access = 0;
	long i, nb = 0, one = n ? n : 1;

	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES || n < 0 ||
	    (sl && (sl->nr < 1 || !sl->len || !sl->first || !sl->hits)))
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	pw = calloc(one, sizeof(*pw));
	if (!pw)
		return -ENOMEM;
	if (sl) {
		saturated = calloc(one, 1);
		rate = calloc(one, sizeof(*rate));
		tail = calloc(sl->nr + 1, sizeof(*tail));
		place = calloc(one, sizeof(*place));
		ret = saturated && rate && tail && place ?
		      walk_places(p, n, place) : -ENOMEM;
		for (j = sl->nr - 1; !ret && j >= 0; j--)
			tail[j] = tail[j + 1] + sl->len[j];
		for (g = 0; !ret && g < groups; g++)
			if (!(group[g] = calloc(one, sizeof(*group[g]))))
				ret = -ENOMEM;
		if (!ret)
			ret = inspect_rates(sl, p, n, nr_nodes, rate, group,
					    saturated);
		if (ret)
			goto out;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < nr_nodes; j++)
			if (p[i].acc[j] > 0)
				access |= 1u << j;
	for (i = 0; i < n; i++) {
		long c[BWM_MAX_NODES], s = 0, top = 0;
		struct page_est pe = { 0 };
		double plug, loo;

		for (j = 0; j < nr_nodes; j++) {
			c[j] = p[i].acc[j] > 0 ? lround(p[i].acc[j]) : 0;
			s += c[j];
			if (c[j] > top)
				top = c[j];
		}
		if (!s)
			continue;
		draws += (double)s;
		plug = (double)top / s;
		loo = leave_one_out(c, nr_nodes, access, s);
		pe.x[PLUG] = plug;
		pe.x[LOO] = loo;
		pe.var[PLUG] = plug * (1 - plug) / s;
		pe.var[LOO] = fmax(plug * (1 - plug), loo * (1 - loo)) / s;
		locality_of(c, nr_nodes, p[i].node, &pe);
		/* the draws of the model's accesses are its weight */
		pe.w = sl ? rate[i] : (double)s;
		add(sl && saturated[i] ? &sat : &rest, &pe, 1);
		pw[nb].w[CLEAR_NONE] = pe.w;
		pw[nb].w[CLEAR_ALL] = pe.w;
		pw[nb].w[CLEAR_WALK] = pe.w;
		if (sl) {
			pw[nb].w[CLEAR_ALL] *= faster_by(sl, tail, i, sl->clear);
			pw[nb].w[CLEAR_WALK] *=
				faster_by(sl, tail, i, sl->clear * place[i]);
		}
		pw[nb].located = pe.located;
		pw[nb].sat = sl && saturated[i];
		for (f = 0; f < FIGS; f++)
			pw[nb].x[f] = pe.x[f];
		nb++;
		for (g = 0; g < groups; g++)
			for (f = 0; f < FIGS; f++) {
				if (f >= LOC && !pe.located)
					break;
				if (f == 0 || f == LOC)
					gsum.w[g][f >= LOC] += group[g][i];
				gsum.wx[g][f] += group[g][i] * pe.x[f];
			}
		for (j = 0; j < nr_nodes; j++)
			p[i].acc[j] = pe.w * c[j] / s;
	}
	all = merged(&rest, &sat);
	if (!all.pages)
		goto out;
	e->pages = all.pages;
	e->samples_per_page = draws / all.pages;
	e->unresolved = sat.w[0] / all.w[0];
	/* no page is shared by more nodes than access at all */
	floor = 1.0 / __builtin_popcount(access);
	e->exclusivity = clamp(mean(&all, LOO, &se), floor, 1);
	range_of(pw, nb, &all, &gsum, groups, LOO, PLUG, &lo, &hi);
	e->excl_lo = clamp(lo, floor, e->exclusivity);
	e->excl_hi = clamp(hi, e->exclusivity, 1);
	e->have_locality = all.w[1] > 0;
	if (e->have_locality) {
		e->locality = mean(&all, LOC, &se);
		range_of(pw, nb, &all, &gsum, groups, LOC_LO, LOC_HI, &llo,
			 &lhi);
		e->loc_lo = clamp(llo, 0, e->locality);
		e->loc_hi = clamp(lhi, e->locality, 1);
	}
out:
	for (g = 0; g < G; g++)
		free(group[g]);
	free(rate);
	free(saturated);
	free(tail);
	free(place);
	free(pw);
	return ret;
}

int inspect_metrics(struct bwm_page *p, long n, int nr_nodes,
		    const struct inspect_slices *sl, struct inspect_estimate *e,
		    struct bwm_access_metrics *mt)
{
	int ret = inspect_estimate(p, n, nr_nodes, sl, e) ?:
		  bwm_access_metrics(p, n, nr_nodes, mt);

	if (!ret) {
		mt->exclusivity = e->exclusivity;
		mt->locality = e->locality;
	}
	return ret;
}
