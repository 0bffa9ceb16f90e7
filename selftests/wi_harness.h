/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kselftest_harness.h plus the conventions shared by the weighted
 * interleave tests.  Include this (once, from the test's .c file) instead
 * of kselftest_harness.h.
 */
#ifndef WI_HARNESS_H
#define WI_HARNESS_H

/* Older harness versions trip -Wunused-parameter in their own code. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

/*
 * The harness kills a test after 30 s by default.  Two debug kernels on
 * two host cores under TCG can stall a test that faults 64 pages for a
 * minute (seen once: policies.default_is_local), so the tests here get
 * 300 s; what they assert does not depend on time.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

#include <stdlib.h>

/*
 * Those limits were set on one machine.  The test machine's /init times a
 * fixed computation and exports how much slower it ran there as
 * WI_SPEED_FACTOR (scripts/vm-init.sh); every test's limit grows by it, so
 * that a slower or busier host makes a test longer, not a failure.
 */
static inline void wi_scale_timeouts(void)
{
	const char *s = getenv("WI_SPEED_FACTOR");
	double f = s ? strtod(s, NULL) : 1;
	struct __fixture_metadata *fx;
	struct __test_metadata *t;

	if (!(f > 1 && f < 100))
		return;
	for (fx = __fixture_list; fx; fx = fx->next)
		for (t = fx->tests; t; t = t->next)
			t->timeout = (int)(t->timeout * f);
}
/* TEST_HARNESS_MAIN's main() scales them before the first test */
#define test_harness_run(argc, argv) \
	(wi_scale_timeouts(), test_harness_run(argc, argv))

#include "wi_common.h"

/*
 * The 6.1 harness keeps running the test body after SKIP() was used in
 * FIXTURE_SETUP().  Every fixture has a "bool setup_skipped" member; setup
 * skips through WI_SETUP_SKIP() and each test body starts with
 * WI_TEST_START(), which returns early when setup skipped.
 */
#define WI_SETUP_SKIP(fmt, ...) do {					\
	self->setup_skipped = true;					\
	SKIP(return, fmt, ##__VA_ARGS__);				\
} while (0)

#define WI_TEST_START() do {						\
	if (self->setup_skipped)					\
		return;							\
} while (0)

/* Weights used over sets of 2, 3 and 4 nodes. */
static inline void wi_default_weights(int nr, unsigned int *w)
{
	static const unsigned int w4[] = { 5, 3, 1, 1 };
	static const unsigned int w3[] = { 5, 3, 1 };
	static const unsigned int w2[] = { 3, 1 };
	const unsigned int *src = nr >= 4 ? w4 : nr == 3 ? w3 : w2;
	int i;

	for (i = 0; i < nr; i++)
		w[i] = i < 4 ? src[i] : 1;
}

/*
 * Nodes of npages pages at base + i * stride.  The caller frees the array.
 * Pages that could not be looked up are reported and make the test fail.
 */
static inline int *wi_nodes_of(struct __test_metadata *_metadata,
			       const void *base, size_t npages, size_t stride)
{
	int *st = calloc(npages, sizeof(int));
	size_t i;
	int ret;

	ASSERT_NE(NULL, st);
	ret = wi_page_nodes(base, npages, stride, st);
	ASSERT_EQ(0, ret) TH_LOG("move_pages: %s", strerror(-ret));
	for (i = 0; i < npages; i++) {
		EXPECT_LE(0, st[i])
			TH_LOG("page %zu at %p: no node (%s)", i,
			       (const char *)base + i * stride,
			       strerror(-st[i]));
	}
	return st;
}

/*
 * Per-page check of a weighted interleave: page i must be on the node that
 * interleave index ilx0 + i selects, so every node gets exactly its share.
 * Returns the number of misplaced pages.
 */
static inline long wi_check_weighted(struct __test_metadata *_metadata,
				     const int *st, size_t npages,
				     unsigned long ilx0, const int *nodes,
				     const unsigned int *weights, int nr)
{
	static long want[WI_MAX_NODES], got[WI_MAX_NODES];
	long bad = 0;
	size_t i;
	int k;

	memset(want, 0, sizeof(want));
	for (i = 0; i < npages; i++) {
		int exp = wi_weighted_node(nodes, weights, nr, ilx0 + i);

		want[exp]++;
		if (st[i] != exp && bad++ < 8)
			TH_LOG("page %zu (ilx %lu): on node %d, expected %d",
			       i, ilx0 + i, st[i], exp);
	}
	EXPECT_EQ(0, bad) TH_LOG("%ld of %zu pages misplaced", bad, npages);
	wi_count_nodes(st, npages, got);
	for (k = 0; k < nr; k++) {
		EXPECT_EQ(want[nodes[k]], got[nodes[k]])
			TH_LOG("node %d: %ld pages, expected %ld (weight %u)",
			       nodes[k], got[nodes[k]], want[nodes[k]],
			       weights[k]);
	}
	return bad;
}

/*
 * Count check for allocations whose exact interleave position is not
 * known: every page on one of nodes[], and each node's count within tol
 * pages of its weighted share of npages.
 */
static inline void wi_check_shares(struct __test_metadata *_metadata,
				   const int *st, size_t npages,
				   const int *nodes,
				   const unsigned int *weights, int nr,
				   long tol)
{
	static long got[WI_MAX_NODES];
	struct wi_mask m;
	long outside = 0;
	size_t i;
	int k;

	wi_mask_from_nodes(&m, nodes, nr);
	for (i = 0; i < npages; i++) {
		if (!wi_mask_test(&m, st[i]) && outside++ < 8)
			TH_LOG("page %zu on node %d, outside the policy",
			       i, st[i]);
	}
	EXPECT_EQ(0, outside);
	wi_count_nodes(st, npages, got);
	for (k = 0; k < nr; k++) {
		long share = wi_expected_share(weights, nr, k, (long)npages);
		long diff = got[nodes[k]] - share;

		EXPECT_GE(tol, diff < 0 ? -diff : diff)
			TH_LOG("node %d: %ld pages, expected %ld +- %ld",
			       nodes[k], got[nodes[k]], share, tol);
	}
}

/* Apply weights[] to nodes[] in sysfs, failing the test on error. */
#define WI_SET_WEIGHTS(nodes, weights, nr) do {				\
	int __ret = wi_set_weights(nodes, weights, nr);			\
	ASSERT_EQ(0, __ret) TH_LOG("setting weights: %s",		\
				   strerror(-__ret));			\
} while (0)

#endif /* WI_HARNESS_H */
