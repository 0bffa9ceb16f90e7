// SPDX-License-Identifier: GPL-2.0
/*
 * inspect's estimate against pages whose accesses are known: each node
 * writes each page at a known rate, at random times (a Poisson process),
 * and each slice the sampler sees the first write after the clear, as
 * the soft-dirty faults do.  The truth is Diener et al.'s Eq. 2 and 9
 * on the rates; the estimate must hold it within the range it states,
 * and state a narrow one where the samples are many.
 */
#include "bwapd_test.h"
#include "inspect_estimate.h"

#define NODES		4
#define PRIV		64		/* private pages a node */
#define SHARED		256
#define PAGES		(NODES * PRIV + SHARED)
#define SEEDS		10

/*
 * Each page's hits after its first, in each group of slices (sampled by
 * sample_in).
 */
#define G	INSPECT_SLICE_GROUPS
static uint16_t group_hits[PAGES * G];
/* Each slice's pages sampled in an earlier slice too. */
static int again[256];
/*
 * How long a clear takes (in slices of one unit), page i being cleared
 * i / PAGES of the way through it: a page written in the slice before
 * makes no sample until then (sample_in).
 */
static double walk;

struct program {
	double priv_rate;		/* a private page's writes a slice */
	double shared_rate[NODES];	/* a shared page's, from each node */
	int shared_node;		/* where the shared pages are */
};

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static double uniform(uint64_t *x)
{
	return (next(x) >> 11) * 0x1.0p-53;
}

static double page_rate(const struct program *g, int i, int j)
{
	if (i < NODES * PRIV)
		return i / PRIV == j ? g->priv_rate : 0;
	return g->shared_rate[j];
}

/* Eq. 2 and 9 on the rates, each node's times run[node] (NULL: 1). */
static void truth(const struct program *g, const double *run, double *excl,
		  double *loc)
{
	double all = 0, top = 0, local = 0;
	int i, j;

	for (i = 0; i < PAGES; i++) {
		double t = 0, m = 0;
		int best = 0, node = i < NODES * PRIV ? i / PRIV : g->shared_node;

		for (j = 0; j < NODES; j++) {
			double r = page_rate(g, i, j) * (run ? run[j] : 1);

			t += r;
			if (r > m) {
				m = r;
				best = j;
			}
		}
		all += t;
		top += m;
		if (best == node)
			local += t;
	}
	*excl = top / all;
	*loc = local / all;
}

/* Each slice's nodes that made a sample in it, as the sampler sees them. */
static uint32_t active[256];

/*
 * The sampler over k slices (of lengths len[], NULL: one unit each) in
 * which node j's writers ran for act[s][j] of slice s (NULL: all of it;
 * a loaded machine's virtual CPUs, a program's own pauses): the first
 * write of each slice, if any.
 */
static void sample_in(const struct program *g, int k, const double *len,
		      double act[][NODES], uint64_t seed, struct bwm_page *p,
		      int *hits, int *first_slice)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL | 1;
	int i, j, s;

	memset(p, 0, PAGES * sizeof(*p));
	memset(group_hits, 0, sizeof(group_hits));
	memset(again, 0, sizeof(again));
	memset(active, 0, sizeof(active));
	for (i = 0; i < PAGES; i++) {
		double late = walk * i / PAGES;
		int first = -1, was = 0;

		p[i].node = i < NODES * PRIV ? i / PRIV : g->shared_node;
		p[i].first_node = -1;
		hits[i] = 0;
		for (s = 0; s < k; s++) {
			double r[NODES], t = 0, u;
			double d = (len ? len[s] : 1) - (was ? late : 0);

			for (j = 0; j < NODES; j++) {
				r[j] = page_rate(g, i, j) * (act ? act[s][j] : 1);
				t += r[j];
			}
			was = 0;
			if (uniform(&x) >= 1 - exp(-t * d))
				continue;
			was = 1;
			/* the first writer: node j with its share of the rate */
			u = uniform(&x) * t;
			for (j = 0; j < NODES - 1 && u >= r[j]; j++)
				u -= r[j];
			p[i].acc[j] += 1;
			active[s] |= 1u << j;
			if (hits[i]++) {
				group_hits[i * G + s % G]++;
				again[s]++;
			}
			if (first < 0)
				first = s;
		}
		first_slice[i] = first < 0 ? k : first;
	}
}

static void sample(const struct program *g, int k, uint64_t seed,
		   struct bwm_page *p, int *hits, int *first_slice)
{
	sample_in(g, k, NULL, NULL, seed, p, hits, first_slice);
}

/* Slices of one unit each: k of them. */
static const struct inspect_slices *slices(int k, const int *hits,
					   const int *first)
{
	static double len[256];
	static struct inspect_slices sl;
	int i;

	for (i = 0; i < k; i++)
		len[i] = 1;
	sl = (struct inspect_slices){ .nr = k, .len = len, .first = first,
				      .hits = hits, .group_hits = group_hits,
				      .again = again };
	return &sl;
}

/* The shared program of the VM test: 2:1:1:1 on node 1, not saturated. */
static const struct program unequal = {
	.priv_rate = 1.0,
	.shared_rate = { 0.6, 0.3, 0.3, 0.3 },
	.shared_node = 1,
};

/* Every node alike on the shared pages (their locality is a tie). */
static const struct program alike = {
	.priv_rate = 0.7,
	.shared_rate = { 0.4, 0.4, 0.4, 0.4 },
	.shared_node = 0,
};

TEST(range_holds_the_truth)
{
	static const int ks[] = { 3, 10, 20, 40, 80 };
	static struct bwm_page p[PAGES];
	static int hits[PAGES], first[PAGES];
	const struct program *g[] = { &unequal, &alike };
	int gi, ki, seed, cases = 0, held = 0, loc_held = 0, loc_cases = 0;

	for (gi = 0; gi < 2; gi++)
		for (ki = 0; ki < (int)ARRAY_SIZE(ks); ki++)
			for (seed = 1; seed <= SEEDS; seed++) {
				struct inspect_estimate e;
				double excl, loc;

				truth(g[gi], NULL, &excl, &loc);
				sample(g[gi], ks[ki], seed, p, hits, first);
				ASSERT_EQ(0, inspect_estimate(p, PAGES, NODES,
							      slices(ks[ki], hits, first), &e));
				cases++;
				held += excl >= e.excl_lo && excl <= e.excl_hi;
				if (g[gi] == &unequal) {
					loc_cases++;
					loc_held += loc >= e.loc_lo &&
						    loc <= e.loc_hi;
				}
				if (seed == 1 || getenv("EST_ALL"))
					TH_LOG("%s, %2d slices: %.2f samples a page; exclusivity %.3f in %.3f .. %.3f (%.3f); locality %.3f in %.3f .. %.3f (%.3f)",
					       gi ? "alike" : "unequal", ks[ki],
					       e.samples_per_page, e.exclusivity,
					       e.excl_lo, e.excl_hi, excl,
					       e.locality, e.loc_lo, e.loc_hi,
					       loc);
			}
	/* ranges of two standard errors: 95 % each side and more */
	TH_LOG("exclusivity held in %d of %d cases, locality in %d of %d",
	       held, cases, loc_held, loc_cases);
	EXPECT_GE(held, cases * 9 / 10);
	EXPECT_GE(loc_held, loc_cases * 9 / 10);
}

/* Many samples a page: a range narrow enough to say something. */
TEST(many_samples_a_narrow_range)
{
	static struct bwm_page p[PAGES];
	static int hits[PAGES], first[PAGES];
	struct inspect_estimate e;
	double excl, loc;

	truth(&unequal, NULL, &excl, &loc);
	sample(&unequal, 80, 7, p, hits, first);
	ASSERT_EQ(0, inspect_estimate(p, PAGES, NODES, slices(80, hits, first),
				      &e));
	EXPECT_GT(e.samples_per_page, 50);
	EXPECT_LE(e.excl_hi - e.excl_lo, 0.06);
	EXPECT_NEAR(excl, e.exclusivity, 0.03);
	EXPECT_NEAR(loc, e.locality, 0.03);
	/*
	 * a shared page is decided not local only with more draws than its
	 * shares 2:1 give it in 80 slices: the range's top is wide, its
	 * bottom the private pages'
	 */
	EXPECT_TRUE(loc >= e.loc_lo && loc <= e.loc_hi);
	EXPECT_NEAR(loc, e.loc_lo, 0.03);
	EXPECT_NEAR(0, e.unresolved, 0.01);
}

/* The estimate of the pages sampled over slices of lengths len[]. */
static void holds(struct __test_metadata *_metadata, struct bwm_page *p,
		  const int *hits, const int *first, const double *len, int k,
		  double excl, double loc)
{
	struct inspect_slices sl = {
		.nr = k, .len = len, .first = first, .hits = hits,
		.group_hits = group_hits, .again = again,
	};
	struct inspect_estimate e;

	ASSERT_EQ(0, inspect_estimate(p, PAGES, NODES, &sl, &e));
	TH_LOG("exclusivity %.3f (%.3f .. %.3f), truth %.3f; locality %.3f (%.3f .. %.3f), truth %.3f",
	       e.exclusivity, e.excl_lo, e.excl_hi, excl, e.locality,
	       e.loc_lo, e.loc_hi, loc);
	EXPECT_TRUE(excl >= e.excl_lo && excl <= e.excl_hi);
	EXPECT_TRUE(loc >= e.loc_lo && loc <= e.loc_hi);
}

/*
 * Slices of unequal lengths, as a loaded machine makes them: their
 * lengths as measured give the rates.
 */
TEST(slices_of_unequal_lengths)
{
	static struct bwm_page p[PAGES];
	static int hits[PAGES], first[PAGES];
	static double len[80];
	double excl, loc;
	int k;

	for (k = 0; k < 80; k++)
		len[k] = k % 4 ? 0.5 : 2.5;
	truth(&unequal, NULL, &excl, &loc);
	sample_in(&unequal, 80, len, NULL, 13, p, hits, first);
	holds(_metadata, p, hits, first, len, 80, excl, loc);
}

/*
 * Clears that take 0.3 of a slice, the shared pages cleared after the
 * private ones: after a hit, a shared page's slice is shorter than a
 * private page's, its rate comes out lower and the exclusivity higher.
 * The range that knows the clear's time holds the truth; the one that
 * takes the clear as instantaneous misses it.
 */
TEST(clears_that_take_time)
{
	static struct bwm_page p[PAGES], q[PAGES];
	static int hits[PAGES], first[PAGES];
	int seed, held = 0, held_instant = 0;
	double excl, loc;

	truth(&unequal, NULL, &excl, &loc);
	walk = 0.3;
	for (seed = 1; seed <= SEEDS; seed++) {
		struct inspect_slices sl = *slices(80, hits, first);
		struct inspect_estimate e, e0;

		sample(&unequal, 80, seed, p, hits, first);
		memcpy(q, p, sizeof(q));
		sl.clear = walk;
		ASSERT_EQ(0, inspect_estimate(p, PAGES, NODES, &sl, &e));
		sl.clear = 0;
		ASSERT_EQ(0, inspect_estimate(q, PAGES, NODES, &sl, &e0));
		TH_LOG("seed %d: exclusivity %.3f (%.3f .. %.3f), as if instantaneous (%.3f .. %.3f), truth %.3f",
		       seed, e.exclusivity, e.excl_lo, e.excl_hi, e0.excl_lo,
		       e0.excl_hi, excl);
		held += excl >= e.excl_lo && excl <= e.excl_hi;
		held_instant += excl >= e0.excl_lo && excl <= e0.excl_hi;
	}
	walk = 0;
	EXPECT_GE(held, SEEDS - 1);
	EXPECT_LE(held_instant, SEEDS / 2);
}

/* The share of the 80 slices' time node j's writers ran, into run[j]. */
static void ran_for(double act[][NODES], double *run)
{
	int j, k;

	for (j = 0; j < NODES; j++) {
		run[j] = 0;
		for (k = 0; k < 80; k++)
			run[j] += act[k][j] / 80;
	}
}

/*
 * Writers that stand still for part of some slices: in a third of the
 * slices a writer runs for 40 % of it.  The truth is on the writes they
 * made.
 */
TEST(writers_that_pause)
{
	static struct bwm_page p[PAGES];
	static int hits[PAGES], first[PAGES];
	static double len[80], act[80][NODES];
	uint64_t x = 99;
	double excl, loc, run[NODES];
	int j, k;

	for (k = 0; k < 80; k++) {
		len[k] = 1;
		for (j = 0; j < NODES; j++)
			act[k][j] = uniform(&x) < 1.0 / 3 ? 0.4 : 1;
	}
	ran_for(act, run);
	sample_in(&unequal, 80, len, act, x, p, hits, first);
	/* the truth on the writes made: each writer's rate times its run */
	truth(&unequal, run, &excl, &loc);
	holds(_metadata, p, hits, first, len, 80, excl, loc);
}

/*
 * Writers that stand still for whole slices, each node's on its own, in
 * three slices of five (virtual CPUs of a machine that runs more of them
 * than it has cores), and write their pages often when they run.  A
 * private page is sampled in the slices its writer ran, a shared one in
 * those any of its writers ran: taken as writes at random times over
 * every slice, the shared pages' rates come out far above their writes'
 * share.  The truth is on the writes made; for each seed the range,
 * with the nodes each slice saw, holds it.
 */
TEST(writers_that_stop_for_whole_slices)
{
	static const struct program busy = {
		.priv_rate = 3.0,
		.shared_rate = { 1.2, 0.6, 0.6, 0.6 },
		.shared_node = 1,
	};
	static struct bwm_page p[PAGES];
	static int hits[PAGES], first[PAGES];
	static double len[80], act[80][NODES];
	int j, k, seed, held = 0, loc_held = 0;

	for (k = 0; k < 80; k++)
		len[k] = 1;
	for (seed = 1; seed <= SEEDS; seed++) {
		struct inspect_slices sl = {
			.nr = 80, .len = len, .first = first, .hits = hits,
			.group_hits = group_hits, .again = again,
			.active = active,
		};
		struct inspect_estimate e;
		uint64_t x = seed * 0x9e3779b97f4a7c15ULL | 1;
		double excl, loc, run[NODES];

		for (k = 0; k < 80; k++)
			for (j = 0; j < NODES; j++)
				act[k][j] = uniform(&x) < 0.6 ? 0 : 1;
		ran_for(act, run);
		sample_in(&busy, 80, len, act, x, p, hits, first);
		truth(&busy, run, &excl, &loc);
		ASSERT_EQ(0, inspect_estimate(p, PAGES, NODES, &sl, &e));
		TH_LOG("seed %d: exclusivity %.3f (%.3f .. %.3f), truth %.3f; locality %.3f (%.3f .. %.3f), truth %.3f",
		       seed, e.exclusivity, e.excl_lo, e.excl_hi, excl,
		       e.locality, e.loc_lo, e.loc_hi, loc);
		held += excl >= e.excl_lo && excl <= e.excl_hi;
		loc_held += loc >= e.loc_lo && loc <= e.loc_hi;
	}
	EXPECT_GE(held, SEEDS - 1);
	EXPECT_GE(loc_held, SEEDS - 1);
}

/*
 * The samples as they come, each page alike and its largest share taken
 * for its exclusivity, miss the truth of this program by far; the
 * estimate does not.
 */
TEST(samples_as_they_come_miss)
{
	static struct bwm_page p[PAGES];
	static int hits[PAGES], first[PAGES];
	struct bwm_access_metrics raw;
	struct inspect_estimate e;
	double excl, loc;

	truth(&unequal, NULL, &excl, &loc);
	sample(&unequal, 10, 3, p, hits, first);
	ASSERT_EQ(0, bwm_access_metrics(p, PAGES, NODES, &raw));
	ASSERT_EQ(0, inspect_estimate(p, PAGES, NODES, slices(10, hits, first),
				      &e));
	TH_LOG("truth %.3f, as they come %.3f, estimate %.3f (%.3f .. %.3f)",
	       excl, raw.exclusivity, e.exclusivity, e.excl_lo, e.excl_hi);
	EXPECT_GT(raw.exclusivity - excl, 0.05);
	EXPECT_FALSE(raw.exclusivity >= e.excl_lo &&
		     raw.exclusivity <= e.excl_hi);
	EXPECT_TRUE(excl >= e.excl_lo && excl <= e.excl_hi);
}

/* Pages written in every slice: weighed alike, and the report says so. */
TEST(saturated_pages_are_named)
{
	static const struct program fast = {
		.priv_rate = 30, .shared_rate = { 30, 30, 30, 30 },
	};
	static struct bwm_page p[PAGES];
	static int hits[PAGES], first[PAGES];
	struct inspect_estimate e;
	int i;

	sample(&fast, 40, 5, p, hits, first);
	ASSERT_EQ(0, inspect_estimate(p, PAGES, NODES, slices(40, hits, first),
				      &e));
	EXPECT_NEAR(1, e.unresolved, 1e-9);
	/* alike: (256 x 1 + 256 x 1/4) / 512 */
	EXPECT_NEAR(0.625, e.exclusivity, 0.03);
	/*
	 * Every page was sampled again in every slice: no exposure explains
	 * that better than a slice's own length, and a page's rate is the
	 * slowest that fits its hits (39.5 of 39 slices of one unit:
	 * ln 78 = 4.36 writes a unit), the same for every page.
	 */
	for (i = 0; i < PAGES; i++) {
		double w = 0;
		int j;

		for (j = 0; j < NODES; j++)
			w += p[i].acc[j];
		if (w < 4.3 || w > 4.4)
			break;
	}
	EXPECT_EQ(PAGES, i);
	if (i < PAGES)
		TH_LOG("page %d weighs %g", i, p[i].acc[0] + p[i].acc[1] +
		       p[i].acc[2] + p[i].acc[3]);
}

/* One sample a page tells nothing: the range spans what is possible. */
TEST(one_sample_a_page_tells_nothing)
{
	static struct bwm_page p[PAGES];
	static int hits[PAGES], first[PAGES];
	struct inspect_estimate e;

	sample(&unequal, 1, 11, p, hits, first);
	ASSERT_EQ(0, inspect_estimate(p, PAGES, NODES, slices(1, hits, first),
				      &e));
	EXPECT_LE(e.samples_per_page, 1.0);
	EXPECT_NEAR(0.25, e.excl_lo, 0.01);
	EXPECT_NEAR(1, e.excl_hi, 0.01);
}

/* The model's trace: draws are accesses, weighed as they are. */
TEST(accesses_weighed_as_they_are)
{
	static struct bwm_page p[2];
	struct inspect_estimate e;

	memset(p, 0, sizeof(p));
	p[0].acc[0] = 31;
	p[0].acc[1] = 29;
	p[1].acc[2] = 60;
	p[0].node = 0;
	p[1].node = 2;
	ASSERT_EQ(0, inspect_estimate(p, 2, NODES, NULL, &e));
	/* (60 x 31/60 + 60) / 120, the leave-one-out share of page 0 */
	EXPECT_NEAR(0.758, e.exclusivity, 0.001);
	EXPECT_TRUE(e.excl_lo <= 0.75 && e.excl_hi >= 0.75);
	EXPECT_NEAR(31, p[0].acc[0], 1e-9);
	EXPECT_EQ(-EINVAL, inspect_estimate(p, 2, 0, NULL, &e));
	EXPECT_EQ(-EINVAL, inspect_estimate(p, 2, NODES,
					    &(struct inspect_slices){ .nr = 2 },
					    &e));
}

TEST_HARNESS_MAIN
