// SPDX-License-Identifier: GPL-2.0
/*
 * MPOL_WEIGHTED_INTERLEAVE as a task policy (set_mempolicy(2)).
 *
 * A task policy is used two ways:
 *  - page faults in a VMA without a policy of its own use the VMA's
 *    interleave index, exactly like an mbind() policy (node picked from
 *    ilx % sum-of-weights);
 *  - allocations without an index (page cache of regular files, kernel
 *    allocations on the task's behalf) use the task's weighted round-robin:
 *    `weight` consecutive allocations per node, starting with the first
 *    node of the mask right after set_mempolicy().  get_mempolicy() with
 *    MPOL_F_NODE reports the node the next such allocation comes from.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wi_harness.h"

FIXTURE(wi_task) {
	bool setup_skipped;
	int nr;
	int nodes[4];
	unsigned int weights[4];
	struct wi_mask mask;
	char ramfs[64];
};

FIXTURE_SETUP(wi_task)
{
	if (!wi_sysfs_present())
		WI_SETUP_SKIP(WI_SYSFS_DIR " missing: no weighted interleave");
	if (geteuid())
		WI_SETUP_SKIP("must be run as root");
	self->nr = wi_pick_nodes(4, self->nodes);
	ASSERT_LT(0, self->nr);
	wi_default_weights(self->nr, self->weights);
	wi_mask_from_nodes(&self->mask, self->nodes, self->nr);
	wi_state_save();
}

FIXTURE_TEARDOWN(wi_task)
{
	if (self->setup_skipped)
		return;
	wi_set_mempolicy(MPOL_DEFAULT, NULL);
	wi_umount_scratch(self->ramfs);
	EXPECT_EQ(0, wi_state_restore());
}

#define REQUIRE_NODES(n) do {						\
	if (self->nr < (n))						\
		SKIP(return, "needs %d memory nodes, have %d", (n),	\
		     self->nr);						\
} while (0)

/* A ramfs file: its page cache follows the task's round-robin. */
static int ramfs_file(struct __test_metadata *_metadata,
		      FIXTURE_DATA(wi_task) *self)
{
	char path[128];
	int ret, fd;

	if (!self->ramfs[0]) {
		ret = wi_mount_scratch(self->ramfs, sizeof(self->ramfs),
				       "ramfs", NULL);
		if (ret)
			return ret;
	}
	snprintf(path, sizeof(path), "%s/file", self->ramfs);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	return fd;
}

static void task_counts(struct __test_metadata *_metadata, const int *nodes,
			const unsigned int *weights, int nr)
{
	unsigned int wsum = wi_weight_sum(weights, nr);
	size_t npages = 100 * wsum;
	struct wi_mask mask;
	char *buf;
	int *st;

	WI_SET_WEIGHTS(nodes, weights, nr);
	wi_mask_from_nodes(&mask, nodes, nr);
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &mask))
		TH_LOG("set_mempolicy: %s", strerror(errno));

	buf = wi_mmap_anon(npages * WI_PAGE_SIZE);
	ASSERT_NE(NULL, buf);
	wi_fault_pages(buf, npages, WI_PAGE_SIZE);
	st = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);
	/* Kernel allocations may shift things by up to one cycle. */
	wi_check_shares(_metadata, st, npages, nodes, weights, nr, wsum);
	free(st);
	munmap(buf, npages * WI_PAGE_SIZE);
}

TEST_F(wi_task, counts_5311)
{
	WI_TEST_START();
	REQUIRE_NODES(4);
	task_counts(_metadata, self->nodes, self->weights, self->nr);
}

TEST_F(wi_task, counts_with_cpuless_node)
{
	int mem[WI_MAX_NODES], nodes[2];
	unsigned int weights[2];
	int i, n, cpuless, cpu_node = -1;

	WI_TEST_START();
	cpuless = wi_first_cpuless_node();
	if (cpuless < 0)
		SKIP(return, "no CPU-less memory node");
	n = wi_memory_nodes(mem, WI_MAX_NODES);
	for (i = 0; i < n && cpu_node < 0; i++)
		if (wi_node_has_cpu(mem[i]))
			cpu_node = mem[i];
	if (cpu_node < 0)
		SKIP(return, "no memory node with CPUs");

	/* The CPU node gets the larger weight, whatever its number. */
	nodes[0] = cpu_node < cpuless ? cpu_node : cpuless;
	nodes[1] = cpu_node < cpuless ? cpuless : cpu_node;
	weights[0] = nodes[0] == cpu_node ? 3 : 1;
	weights[1] = nodes[1] == cpu_node ? 3 : 1;
	task_counts(_metadata, nodes, weights, 2);
}

/*
 * A fault in a VMA without its own policy takes the node from the VMA's
 * interleave index (vaddr >> PAGE_SHIFT for anonymous memory), it does not
 * consume the task's round-robin.
 */
#define BLOCK_PAGES 512

TEST_F(wi_task, anon_fault_uses_interleave_index)
{
	size_t rawlen, i, npages = 2 * BLOCK_PAGES;
	int next, mode, *st, *want;
	char *buf;
	void *raw;
	long bad = 0;

	WI_TEST_START();
	REQUIRE_NODES(2);
	WI_SET_WEIGHTS(self->nodes, self->weights, self->nr);

	buf = wi_mmap_aligned(npages * WI_PAGE_SIZE, WI_HPAGE_SIZE, &raw,
			      &rawlen);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, madvise(buf, npages * WI_PAGE_SIZE, MADV_NOHUGEPAGE));
	/*
	 * Warm up: page tables and anon_vma are allocated now, under the
	 * default policy.  The first page of each page table stays mapped so
	 * that MADV_DONTNEED cannot free the table.
	 */
	wi_fault_pages(buf, npages, WI_PAGE_SIZE);
	for (i = 0; i < npages; i += BLOCK_PAGES) {
		ASSERT_EQ(0, madvise(buf + (i + 1) * WI_PAGE_SIZE,
				     (BLOCK_PAGES - 1) * WI_PAGE_SIZE,
				     MADV_DONTNEED));
	}

	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &self->mask));
	ASSERT_EQ(0, wi_get_mempolicy(&next, NULL, NULL, MPOL_F_NODE));
	EXPECT_EQ(self->nodes[0], next);

	for (i = 0; i < npages; i++) {
		if (!(i % BLOCK_PAGES))
			continue;
		wi_fault_pages(buf + i * WI_PAGE_SIZE, 1, WI_PAGE_SIZE);
		ASSERT_EQ(0, wi_get_mempolicy(&mode, NULL, NULL, MPOL_F_NODE));
		if (mode != next && bad++ < 4)
			TH_LOG("fault of page %zu moved the round-robin from node %d to %d",
			       i, next, mode);
	}
	EXPECT_EQ(0, bad);

	st = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);
	want = calloc(npages, sizeof(int));
	ASSERT_NE(NULL, want);
	bad = 0;
	for (i = 0; i < npages; i++) {
		unsigned long ilx = ((unsigned long)buf >> WI_PAGE_SHIFT) + i;

		if (!(i % BLOCK_PAGES))
			continue;
		want[i] = wi_weighted_node(self->nodes, self->weights,
					   self->nr, ilx);
		if (st[i] != want[i] && bad++ < 8)
			TH_LOG("page %zu (ilx %lu) on node %d, expected %d",
			       i, ilx, st[i], want[i]);
	}
	EXPECT_EQ(0, bad) TH_LOG("%ld pages not at their interleave index",
				 bad);
	free(want);
	free(st);
	munmap(raw, rawlen);
}

/*
 * Exact round-robin: page cache pages of a ramfs file are allocated without
 * an interleave index.  Index 63 is written before the policy is set so
 * that the xarray node covering the file's first 64 pages already exists
 * and the measured writes allocate nothing but the page itself.
 */
#define RR_SLOTS 63

/* The selected nodes that can hold ramfs pages, which are not movable. */
static int rr_nodes(FIXTURE_DATA(wi_task) *self, int *nodes,
		    unsigned int *weights)
{
	int i, nr = 0;

	for (i = 0; i < self->nr; i++) {
		if (!wi_node_has_normal_memory(self->nodes[i]))
			continue;
		nodes[nr] = self->nodes[i];
		weights[nr] = self->weights[i];
		nr++;
	}
	return nr;
}

TEST_F(wi_task, round_robin_sequence)
{
	int nodes[4], nr, fd, i, n, next, *st;
	int pred[RR_SLOTS], want[RR_SLOTS];
	unsigned int weights[4], wsum;
	struct wi_mask mask;

	WI_TEST_START();
	REQUIRE_NODES(2);
	nr = rr_nodes(self, nodes, weights);
	if (nr < 2)
		SKIP(return, "needs 2 nodes with non-movable memory");
	WI_SET_WEIGHTS(nodes, weights, nr);
	wi_mask_from_nodes(&mask, nodes, nr);
	wsum = wi_weight_sum(weights, nr);
	n = 3 * wsum < RR_SLOTS ? 3 * wsum : RR_SLOTS;

	fd = ramfs_file(_metadata, self);
	if (fd < 0)
		SKIP(return, "cannot mount ramfs: %s", strerror(-fd));
	ASSERT_EQ(0, wi_file_write_page(fd, RR_SLOTS));

	/* Expected order: nodes[0] x w0, nodes[1] x w1, ... and around. */
	for (i = 0; i < n; i++) {
		unsigned int pos = i % wsum;
		int k = 0;

		while (pos >= weights[k])
			pos -= weights[k++];
		want[i] = nodes[k];
	}

	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &mask));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, wi_get_mempolicy(&pred[i], NULL, NULL,
					      MPOL_F_NODE));
		ASSERT_EQ(0, wi_file_write_page(fd, i));
	}

	st = calloc(n, sizeof(int));
	ASSERT_NE(NULL, st);
	ASSERT_EQ(0, wi_file_page_nodes(fd, n, st));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(want[i], pred[i])
			TH_LOG("MPOL_F_NODE before allocation %d", i);
		EXPECT_EQ(pred[i], st[i])
			TH_LOG("page %d not on the node MPOL_F_NODE announced",
			       i);
	}
	free(st);

	/* set_mempolicy() restarts the round-robin at the first node. */
	ASSERT_EQ(0, wi_file_write_page(fd, n));
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &mask));
	ASSERT_EQ(0, wi_get_mempolicy(&next, NULL, NULL, MPOL_F_NODE));
	EXPECT_EQ(nodes[0], next);
	close(fd);
}

TEST_F(wi_task, get_mempolicy_reports_policy)
{
	struct wi_mask got;
	int mode = -1;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &self->mask))
		TH_LOG("set_mempolicy: %s", strerror(errno));
	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, NULL, 0));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE, mode);
	EXPECT_TRUE(wi_mask_equal(&self->mask, &got)) {
		char a[64], b[64];

		TH_LOG("mask %s, expected %s", wi_mask_str(&got, a, sizeof(a)),
		       wi_mask_str(&self->mask, b, sizeof(b)));
	}
	/* Just the mode. */
	mode = -1;
	ASSERT_EQ(0, wi_get_mempolicy(&mode, NULL, NULL, 0));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE, mode);
}

TEST_F(wi_task, mode_flags_reported)
{
	struct wi_mask rel, got;
	int i, mode;

	WI_TEST_START();

	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE |
				      MPOL_F_STATIC_NODES, &self->mask))
		TH_LOG("static: %s", strerror(errno));
	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, NULL, 0));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE | MPOL_F_STATIC_NODES, mode);
	EXPECT_TRUE(wi_mask_equal(&self->mask, &got));

	/* Relative nodes: the user mask is reported back as given. */
	wi_mask_zero(&rel);
	for (i = 0; i < self->nr; i++)
		wi_mask_set(&rel, i);
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE |
				      MPOL_F_RELATIVE_NODES, &rel))
		TH_LOG("relative: %s", strerror(errno));
	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, NULL, 0));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE | MPOL_F_RELATIVE_NODES, mode);
	EXPECT_TRUE(wi_mask_equal(&rel, &got));
}

TEST_F(wi_task, invalid_arguments)
{
	int mem[WI_MAX_NODES];
	struct wi_mask empty, nomem, got;
	int i, n, mode, nomem_node = -1;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &self->mask));

	wi_mask_zero(&empty);
	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &empty));
	EXPECT_EQ(EINVAL, errno) TH_LOG("empty mask");

	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, NULL));
	EXPECT_EQ(EINVAL, errno) TH_LOG("NULL mask");

	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE |
				       MPOL_F_STATIC_NODES |
				       MPOL_F_RELATIVE_NODES, &self->mask));
	EXPECT_EQ(EINVAL, errno) TH_LOG("static and relative");

	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE |
				       MPOL_F_NUMA_BALANCING, &self->mask));
	EXPECT_EQ(EINVAL, errno) TH_LOG("numa balancing flag");

	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(WI_MPOL_FIRST_INVALID, &self->mask));
	EXPECT_EQ(EINVAL, errno) TH_LOG("mode %d", WI_MPOL_FIRST_INVALID);

	/* Only a node without memory. */
	n = wi_memory_nodes(mem, WI_MAX_NODES);
	for (i = 0; i < 64 && nomem_node < 0; i++) {
		int j;
		bool has = false;

		for (j = 0; j < n; j++)
			has |= mem[j] == i;
		if (!has)
			nomem_node = i;
	}
	wi_mask_zero(&nomem);
	wi_mask_set(&nomem, nomem_node);
	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &nomem));
	EXPECT_EQ(EINVAL, errno) TH_LOG("mask with node %d only", nomem_node);

	/* None of the failed calls touched the policy. */
	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, NULL, 0));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE, mode);
	EXPECT_TRUE(wi_mask_equal(&self->mask, &got));
}

struct thread_result {
	int mode;
	struct wi_mask mask;
	int err;
	size_t anon_pages;
	int *anon_nodes;
	size_t file_pages;
	int *file_nodes;
	int fd;
};

static void *policy_thread(void *p)
{
	struct thread_result *r = p;
	char *buf;

	if (wi_get_mempolicy(&r->mode, &r->mask, NULL, 0)) {
		r->err = errno;
		return NULL;
	}
	buf = wi_mmap_anon(r->anon_pages * WI_PAGE_SIZE);
	if (!buf) {
		r->err = errno;
		return NULL;
	}
	wi_fault_pages(buf, r->anon_pages, WI_PAGE_SIZE);
	r->err = -wi_page_nodes(buf, r->anon_pages, WI_PAGE_SIZE,
				r->anon_nodes);
	munmap(buf, r->anon_pages * WI_PAGE_SIZE);
	if (r->fd >= 0 && !r->err) {
		size_t i;

		for (i = 0; i < r->file_pages && !r->err; i++)
			r->err = -wi_file_write_page(r->fd, i);
		if (!r->err)
			r->err = -wi_file_page_nodes(r->fd, r->file_pages,
						     r->file_nodes);
	}
	/* The thread's own policy change stays in the thread. */
	wi_set_mempolicy(MPOL_DEFAULT, NULL);
	return NULL;
}

TEST_F(wi_task, thread_inherits_policy)
{
	unsigned int wsum = wi_weight_sum(self->weights, self->nr);
	int rnodes[4], rnr, mode;
	unsigned int rweights[4];
	struct thread_result r = { .fd = -1 };
	pthread_t t;

	WI_TEST_START();
	REQUIRE_NODES(2);
	WI_SET_WEIGHTS(self->nodes, self->weights, self->nr);

	r.anon_pages = 100 * wsum;
	r.anon_nodes = calloc(r.anon_pages, sizeof(int));
	ASSERT_NE(NULL, r.anon_nodes);
	/* Page cache only where every node takes non-movable pages. */
	rnr = rr_nodes(self, rnodes, rweights);
	if (rnr == self->nr) {
		r.fd = ramfs_file(_metadata, self);
		r.file_pages = 10 * wsum;
		r.file_nodes = calloc(r.file_pages, sizeof(int));
		ASSERT_NE(NULL, r.file_nodes);
	}
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &self->mask));
	ASSERT_EQ(0, pthread_create(&t, NULL, policy_thread, &r));
	ASSERT_EQ(0, pthread_join(t, NULL));

	ASSERT_EQ(0, r.err) TH_LOG("in thread: %s", strerror(r.err));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE, r.mode);
	EXPECT_TRUE(wi_mask_equal(&self->mask, &r.mask));
	wi_check_shares(_metadata, r.anon_nodes, r.anon_pages, self->nodes,
			self->weights, self->nr, wsum);
	if (r.fd >= 0)
		wi_check_shares(_metadata, r.file_nodes, r.file_pages,
				self->nodes, self->weights, self->nr, wsum);
	else
		TH_LOG("page cache part skipped: a node has only movable memory");

	ASSERT_EQ(0, wi_get_mempolicy(&mode, NULL, NULL, 0));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE, mode);
	free(r.anon_nodes);
	free(r.file_nodes);
	if (r.fd >= 0)
		close(r.fd);
}

static void __attribute__((constructor)) wi_task_init(void)
{
	wi_restore_at_exit();
}

TEST_HARNESS_MAIN
