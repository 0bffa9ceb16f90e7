// SPDX-License-Identifier: GPL-2.0
/*
 * mbind(MPOL_WEIGHTED_INTERLEAVE, MPOL_MF_MOVE[|MPOL_MF_STRICT]) on memory
 * that is already populated.
 *
 * Like for every other policy, mbind() migrates the pages that sit on a
 * node outside the new node mask; pages already on one of the policy's
 * nodes stay where they are.  A migrated page goes to the node its
 * interleave index selects, so pages moved from a node outside the mask
 * end up exactly where a fresh fault would have put them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wi_harness.h"
#include "wi_weights.h"

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif

FIXTURE(wi_migrate) {
	bool setup_skipped;
	int nr;
	int nodes[4];
};

FIXTURE_SETUP(wi_migrate)
{
	if (!wi_sysfs_present())
		WI_SETUP_SKIP(WI_SYSFS_DIR " missing: no weighted interleave");
	if (geteuid())
		WI_SETUP_SKIP("must be run as root");
	self->nr = wi_pick_nodes(4, self->nodes);
	if (self->nr < 2)
		WI_SETUP_SKIP("needs 2 memory nodes, have %d", self->nr);
	wi_state_save();
}

FIXTURE_TEARDOWN(wi_migrate)
{
	if (self->setup_skipped)
		return;
	EXPECT_EQ(0, wi_state_restore());
}

/* Populate npages at buf, all on one node. */
static void populate_on(struct __test_metadata *_metadata, char *buf,
			size_t len, size_t stride, int node)
{
	size_t i, n = len / stride;
	struct wi_mask m;
	int *st;

	wi_mask_zero(&m);
	wi_mask_set(&m, node);
	ASSERT_EQ(0, wi_mbind(buf, len, MPOL_BIND, &m, 0))
		TH_LOG("mbind(MPOL_BIND): %s", strerror(errno));
	wi_fault_pages(buf, n, stride);
	st = wi_nodes_of(_metadata, buf, n, stride);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(node, st[i]) TH_LOG("page %zu not bound", i);
	}
	free(st);
}

/*
 * Source: the last selected node (the CPU-less one where there is one);
 * targets: the others.
 */
static void move_exact(struct __test_metadata *_metadata,
		       FIXTURE_DATA(wi_migrate) *self, unsigned int flags)
{
	int src = self->nodes[self->nr - 1], ntgt = self->nr - 1, mode;
	unsigned int weights[4];
	struct wi_mask tgt, got;
	size_t npages;
	char *buf;
	int *st;

	if (self->nr < 3)
		SKIP(return, "needs 3 memory nodes, have %d", self->nr);
	wi_default_weights(ntgt, weights);
	WI_SET_WEIGHTS(self->nodes, weights, ntgt);
	wi_mask_from_nodes(&tgt, self->nodes, ntgt);
	npages = 100 * wi_weight_sum(weights, ntgt);

	buf = wi_mmap_anon(npages * WI_PAGE_SIZE);
	ASSERT_NE(NULL, buf);
	populate_on(_metadata, buf, npages * WI_PAGE_SIZE, WI_PAGE_SIZE, src);

	ASSERT_EQ(0, wi_mbind(buf, npages * WI_PAGE_SIZE,
			      MPOL_WEIGHTED_INTERLEAVE, &tgt, flags))
		TH_LOG("mbind(flags %#x): %s", flags, strerror(errno));
	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, buf, MPOL_F_ADDR));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE, mode);
	EXPECT_TRUE(wi_mask_equal(&tgt, &got));

	st = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);
	wi_check_weighted(_metadata, st, npages,
			  (unsigned long)buf >> WI_PAGE_SHIFT,
			  self->nodes, weights, ntgt);
	free(st);
	munmap(buf, npages * WI_PAGE_SIZE);
}

TEST_F(wi_migrate, move)
{
	WI_TEST_START();
	move_exact(_metadata, self, MPOL_MF_MOVE);
}

TEST_F(wi_migrate, move_strict)
{
	WI_TEST_START();
	move_exact(_metadata, self, MPOL_MF_MOVE | MPOL_MF_STRICT);
}

/* Pages on a node of the new mask are not moved around. */
TEST_F(wi_migrate, pages_on_policy_nodes_stay)
{
	unsigned int weights[4];
	struct wi_mask all;
	size_t i, npages;
	char *buf;
	int *st;

	WI_TEST_START();
	wi_default_weights(self->nr, weights);
	WI_SET_WEIGHTS(self->nodes, weights, self->nr);
	wi_mask_from_nodes(&all, self->nodes, self->nr);
	npages = 10 * wi_weight_sum(weights, self->nr);

	buf = wi_mmap_anon(npages * WI_PAGE_SIZE);
	ASSERT_NE(NULL, buf);
	populate_on(_metadata, buf, npages * WI_PAGE_SIZE, WI_PAGE_SIZE,
		    self->nodes[0]);
	ASSERT_EQ(0, wi_mbind(buf, npages * WI_PAGE_SIZE,
			      MPOL_WEIGHTED_INTERLEAVE, &all,
			      MPOL_MF_MOVE | MPOL_MF_STRICT))
		TH_LOG("mbind: %s", strerror(errno));
	st = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);
	for (i = 0; i < npages; i++) {
		EXPECT_EQ(self->nodes[0], st[i]) TH_LOG("page %zu moved", i);
	}
	free(st);
	munmap(buf, npages * WI_PAGE_SIZE);
}

/*
 * Pages spread over all nodes by MPOL_INTERLEAVE, then weighted interleave
 * over all but the last node: only the last node's pages move, each to the
 * node of its interleave index.
 */
TEST_F(wi_migrate, move_mixed)
{
	int ntgt = self->nr - 1, *before, *after;
	unsigned int weights[4];
	struct wi_mask all, tgt;
	size_t i, npages;
	long moved = 0, bad = 0;
	char *buf;

	WI_TEST_START();
	if (self->nr < 3)
		SKIP(return, "needs 3 memory nodes, have %d", self->nr);
	wi_default_weights(ntgt, weights);
	WI_SET_WEIGHTS(self->nodes, weights, ntgt);
	wi_mask_from_nodes(&all, self->nodes, self->nr);
	wi_mask_from_nodes(&tgt, self->nodes, ntgt);
	npages = 100 * wi_weight_sum(weights, ntgt);

	buf = wi_mmap_anon(npages * WI_PAGE_SIZE);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, wi_mbind(buf, npages * WI_PAGE_SIZE, MPOL_INTERLEAVE,
			      &all, 0));
	wi_fault_pages(buf, npages, WI_PAGE_SIZE);
	before = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);

	ASSERT_EQ(0, wi_mbind(buf, npages * WI_PAGE_SIZE,
			      MPOL_WEIGHTED_INTERLEAVE, &tgt, MPOL_MF_MOVE))
		TH_LOG("mbind: %s", strerror(errno));
	after = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);

	for (i = 0; i < npages; i++) {
		unsigned long ilx = ((unsigned long)buf >> WI_PAGE_SHIFT) + i;
		int want = before[i];

		if (!wi_mask_test(&tgt, before[i])) {
			want = wi_weighted_node(self->nodes, weights, ntgt,
						ilx);
			moved++;
		}
		if (after[i] != want && bad++ < 8)
			TH_LOG("page %zu: node %d -> %d, expected %d", i,
			       before[i], after[i], want);
	}
	EXPECT_EQ(0, bad);
	/* MPOL_INTERLEAVE put 1/nr of the pages on the source node. */
	EXPECT_EQ((long)(npages / self->nr), moved);
	free(before);
	free(after);
	munmap(buf, npages * WI_PAGE_SIZE);
}

/* A THP is migrated whole, to the node of its (2 MiB) interleave index. */
TEST_F(wi_migrate, move_thp)
{
	int src = self->nodes[self->nr - 1], ntgt = self->nr - 1;
	unsigned int weights[4];
	size_t n, len, rawlen;
	struct wi_mask tgt;
	char *buf;
	void *raw;
	int *st;

	WI_TEST_START();
	if (self->nr < 3)
		SKIP(return, "needs 3 memory nodes, have %d", self->nr);
	if (!wi_thp_enabled())
		SKIP(return, "transparent hugepages not enabled");
	wi_default_weights(ntgt, weights);
	WI_SET_WEIGHTS(self->nodes, weights, ntgt);
	wi_mask_from_nodes(&tgt, self->nodes, ntgt);
	n = wi_weight_sum(weights, ntgt);
	len = n * WI_HPAGE_SIZE;

	buf = wi_mmap_aligned(len, WI_HPAGE_SIZE, &raw, &rawlen);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, madvise(buf, len, MADV_HUGEPAGE));
	populate_on(_metadata, buf, len, WI_HPAGE_SIZE, src);
	if (wi_smaps_field_kb(buf, "AnonHugePages:") != (long)(len >> 10)) {
		munmap(raw, rawlen);
		SKIP(return, "THPs could not be allocated on node %d", src);
	}

	ASSERT_EQ(0, wi_mbind(buf, len, MPOL_WEIGHTED_INTERLEAVE, &tgt,
			      MPOL_MF_MOVE | MPOL_MF_STRICT))
		TH_LOG("mbind: %s", strerror(errno));
	st = wi_nodes_of(_metadata, buf, n, WI_HPAGE_SIZE);
	wi_check_weighted(_metadata, st, n,
			  (unsigned long)buf >> WI_HPAGE_SHIFT,
			  self->nodes, weights, ntgt);
	EXPECT_EQ((long)(len >> 10), wi_smaps_field_kb(buf, "AnonHugePages:"))
		TH_LOG("THPs were split by the migration");
	free(st);
	munmap(raw, rawlen);
}

static void __attribute__((constructor)) wi_migrate_init(void)
{
	wi_restore_at_exit();
}

/*
 * One mbind(MPOL_MF_MOVE) over anonymous memory and a memfd mapped right
 * after it.  The anonymous pages follow the process's own weights, the
 * memfd's pages the global ones, as when they were faulted in: also on a
 * kernel that migrates a whole range under one policy (6.12).  Without
 * per-process weights both follow the global ones.
 */
TEST_F(wi_migrate, move_private_and_shared)
{
	unsigned int global[] = { 3, 1 }, own[] = { 1, 5 };
	size_t na = 60, ns = 64, len = (na + ns) * WI_PAGE_SIZE, i;
	uint8_t vec[WI_WEIGHTS_MAX_NODES];
	long count[WI_MAX_NODES];
	const unsigned int *w;
	struct wi_mask tgt;
	char *buf, *shm;
	int fd, src, *st;

	WI_TEST_START();
	if (self->nr < 3)
		SKIP(return, "needs 3 memory nodes, have %d", self->nr);
	src = self->nodes[self->nr - 1];
	WI_SET_WEIGHTS(self->nodes, global, 2);
	wi_mask_from_nodes(&tgt, self->nodes, 2);
	w = global;
	if (wi_task_weights_supported() == 1) {
		wi_weights_vec(vec, sizeof(vec), self->nodes, own, 2);
		ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
						 sizeof(vec), 0));
		w = own;
	}

	/* [ anonymous, na pages ][ memfd, ns pages ] */
	buf = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(buf, mmap(buf, na * WI_PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	madvise(buf, na * WI_PAGE_SIZE, MADV_NOHUGEPAGE);
	fd = memfd_create("wi_migrate", MFD_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, ns * WI_PAGE_SIZE));
	shm = buf + na * WI_PAGE_SIZE;
	ASSERT_EQ(shm, mmap(shm, ns * WI_PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_FIXED, fd, 0));
	madvise(shm, ns * WI_PAGE_SIZE, MADV_NOHUGEPAGE);
	populate_on(_metadata, buf, len, WI_PAGE_SIZE, src);

	ASSERT_EQ(0, wi_mbind(buf, len, MPOL_WEIGHTED_INTERLEAVE, &tgt,
			      MPOL_MF_MOVE))
		TH_LOG("mbind(MPOL_MF_MOVE): %s", strerror(errno));
	st = wi_nodes_of(_metadata, buf, na + ns, WI_PAGE_SIZE);

	/* Any run of pages as long as a cycle holds each node's weight. */
	wi_count_nodes(st, na, count);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ((long)(na * w[i] / (w[0] + w[1])),
			  count[self->nodes[i]])
			TH_LOG("anonymous pages on node %d", self->nodes[i]);
	}
	wi_count_nodes(st + na, ns, count);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ((long)(ns * global[i] / 4), count[self->nodes[i]])
			TH_LOG("memfd pages on node %d", self->nodes[i]);
	}
	free(st);
	munmap(buf, len);
	close(fd);
}

TEST_HARNESS_MAIN
