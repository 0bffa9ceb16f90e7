// SPDX-License-Identifier: GPL-2.0
/*
 * The memory policies that existed before MPOL_WEIGHTED_INTERLEAVE still
 * behave as before: MPOL_DEFAULT, MPOL_LOCAL, MPOL_BIND, MPOL_PREFERRED,
 * MPOL_PREFERRED_MANY and MPOL_INTERLEAVE, as task and as VMA policies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wi_harness.h"

#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif

#define NPAGES 64

FIXTURE(policies) {
	bool setup_skipped;
	int nr_mem;
	int mem[WI_MAX_NODES];
	int nr;				/* selected nodes */
	int nodes[4];
	struct wi_mask mask;
	char ramfs[64];
	struct wi_hugetlb hugetlb;
};

FIXTURE_SETUP(policies)
{
	self->nr_mem = wi_memory_nodes(self->mem, WI_MAX_NODES);
	ASSERT_LT(0, self->nr_mem);
	self->nr = wi_pick_nodes(4, self->nodes);
	wi_mask_from_nodes(&self->mask, self->nodes, self->nr);
}

FIXTURE_TEARDOWN(policies)
{
	wi_set_mempolicy(MPOL_DEFAULT, NULL);
	wi_hugetlb_restore(&self->hugetlb);
	wi_umount_scratch(self->ramfs);
}

/* Fault NPAGES fresh pages and check they all sit on node. */
static void expect_all_on(struct __test_metadata *_metadata, int node,
			  const char *what)
{
	size_t len = NPAGES * WI_PAGE_SIZE;
	char *buf = wi_mmap_anon(len);
	int i, *st;

	ASSERT_NE(NULL, buf);
	wi_fault_pages(buf, NPAGES, WI_PAGE_SIZE);
	st = wi_nodes_of(_metadata, buf, NPAGES, WI_PAGE_SIZE);
	for (i = 0; i < NPAGES; i++) {
		EXPECT_EQ(node, st[i]) TH_LOG("%s: page %d", what, i);
	}
	free(st);
	munmap(buf, len);
}

static void expect_policy(struct __test_metadata *_metadata, int want_mode,
			  const struct wi_mask *want)
{
	struct wi_mask got;
	int mode;

	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, NULL, 0));
	EXPECT_EQ(want_mode, mode);
	if (want)
		EXPECT_TRUE(wi_mask_equal(want, &got));
}

static void one_node(struct wi_mask *m, int node)
{
	wi_mask_zero(m);
	wi_mask_set(m, node);
}

/* Run fn pinned to a CPU of each memory node that has CPUs. */
#define FOR_EACH_CPU_NODE(i, node)					\
	for (i = 0; i < self->nr_mem; i++)				\
		if ((node = self->mem[i]), wi_node_first_cpu(node) >= 0)

static void pin_to_node(struct __test_metadata *_metadata, int node)
{
	int cpu = wi_node_first_cpu(node);

	ASSERT_LE(0, cpu);
	ASSERT_EQ(0, wi_pin_cpu(cpu));
	ASSERT_EQ(node, wi_current_node());
}

TEST_F(policies, default_is_local)
{
	int i, node, tested = 0;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_DEFAULT, NULL));
	expect_policy(_metadata, MPOL_DEFAULT, NULL);
	FOR_EACH_CPU_NODE(i, node) {
		pin_to_node(_metadata, node);
		expect_all_on(_metadata, node, "MPOL_DEFAULT");
		tested++;
	}
	if (!tested)
		SKIP(return, "no memory node with CPUs");
}

TEST_F(policies, local)
{
	int i, node, tested = 0;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_LOCAL, NULL))
		TH_LOG("MPOL_LOCAL: %s", strerror(errno));
	expect_policy(_metadata, MPOL_LOCAL, NULL);
	FOR_EACH_CPU_NODE(i, node) {
		pin_to_node(_metadata, node);
		expect_all_on(_metadata, node, "MPOL_LOCAL");
		tested++;
	}
	if (!tested)
		SKIP(return, "no memory node with CPUs");
}

TEST_F(policies, bind)
{
	size_t len = NPAGES * WI_PAGE_SIZE;
	struct wi_mask m;
	int i, j, node, *st;
	char *buf;

	WI_TEST_START();
	for (i = 0; i < self->nr_mem; i++) {
		node = self->mem[i];
		one_node(&m, node);

		/* Task policy. */
		ASSERT_EQ(0, wi_set_mempolicy(MPOL_BIND, &m));
		expect_policy(_metadata, MPOL_BIND, &m);
		expect_all_on(_metadata, node, "MPOL_BIND task");
		ASSERT_EQ(0, wi_set_mempolicy(MPOL_DEFAULT, NULL));

		/* VMA policy. */
		buf = wi_mmap_anon(len);
		ASSERT_NE(NULL, buf);
		ASSERT_EQ(0, wi_mbind(buf, len, MPOL_BIND, &m, 0));
		wi_fault_pages(buf, NPAGES, WI_PAGE_SIZE);
		st = wi_nodes_of(_metadata, buf, NPAGES, WI_PAGE_SIZE);
		for (j = 0; j < NPAGES; j++) {
			int at;

			EXPECT_EQ(node, st[j]) TH_LOG("mbind page %d", j);
			ASSERT_EQ(0, wi_get_mempolicy(&at, NULL,
						      buf + j * WI_PAGE_SIZE,
						      MPOL_F_NODE |
						      MPOL_F_ADDR));
			EXPECT_EQ(node, at);
		}
		free(st);
		munmap(buf, len);
	}
}

TEST_F(policies, preferred)
{
	struct wi_mask m;
	int i, node;

	WI_TEST_START();
	for (i = 0; i < self->nr_mem; i++) {
		node = self->mem[i];
		one_node(&m, node);
		ASSERT_EQ(0, wi_set_mempolicy(MPOL_PREFERRED, &m));
		expect_policy(_metadata, MPOL_PREFERRED, &m);
		expect_all_on(_metadata, node, "MPOL_PREFERRED");
	}
}

TEST_F(policies, preferred_many)
{
	size_t len = NPAGES * WI_PAGE_SIZE;
	int i, local = -1, *st;
	struct wi_mask m, others;
	char *buf;

	WI_TEST_START();
	if (self->nr_mem < 2)
		SKIP(return, "needs 2 memory nodes, have %d", self->nr_mem);
	for (i = 0; i < self->nr_mem && local < 0; i++)
		if (wi_node_first_cpu(self->mem[i]) >= 0)
			local = self->mem[i];
	if (local < 0)
		SKIP(return, "no memory node with CPUs");
	pin_to_node(_metadata, local);

	/* The local node is in the mask: it is preferred. */
	wi_mask_zero(&m);
	wi_mask_set(&m, local);
	wi_mask_zero(&others);
	for (i = 0; i < self->nr_mem; i++) {
		if (self->mem[i] != local) {
			wi_mask_set(&m, self->mem[i]);
			wi_mask_set(&others, self->mem[i]);
		}
	}
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_PREFERRED_MANY, &m))
		TH_LOG("MPOL_PREFERRED_MANY: %s", strerror(errno));
	expect_policy(_metadata, MPOL_PREFERRED_MANY, &m);
	expect_all_on(_metadata, local, "MPOL_PREFERRED_MANY with local");

	/* Without the local node: only nodes of the mask. */
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_PREFERRED_MANY, &others));
	buf = wi_mmap_anon(len);
	ASSERT_NE(NULL, buf);
	wi_fault_pages(buf, NPAGES, WI_PAGE_SIZE);
	st = wi_nodes_of(_metadata, buf, NPAGES, WI_PAGE_SIZE);
	for (i = 0; i < NPAGES; i++) {
		EXPECT_TRUE(wi_mask_test(&others, st[i]))
			TH_LOG("page %d on node %d", i, st[i]);
	}
	free(st);
	munmap(buf, len);
}

/* Plain interleave is weighted interleave with all weights 1. */
static void expect_interleaved(struct __test_metadata *_metadata,
			       FIXTURE_DATA(policies) *self, char *buf,
			       size_t npages)
{
	unsigned int ones[4] = { 1, 1, 1, 1 };
	int *st = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);
	size_t i;
	long bad = 0;

	for (i = 0; i < npages; i++) {
		unsigned long ilx = ((unsigned long)buf >> WI_PAGE_SHIFT) + i;
		int want = wi_interleave_node(self->nodes, self->nr, ilx);

		if (st[i] != want && bad++ < 8)
			TH_LOG("page %zu on node %d, expected %d", i, st[i],
			       want);
	}
	EXPECT_EQ(0, bad);
	wi_check_weighted(_metadata, st, npages,
			  (unsigned long)buf >> WI_PAGE_SHIFT, self->nodes,
			  ones, self->nr);
	free(st);
}

TEST_F(policies, interleave_vma)
{
	size_t npages = 100 * 4, len = npages * WI_PAGE_SIZE;
	struct wi_mask got;
	char *buf;
	int mode;

	WI_TEST_START();
	if (self->nr < 2)
		SKIP(return, "needs 2 memory nodes, have %d", self->nr);
	buf = wi_mmap_anon(len);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, wi_mbind(buf, len, MPOL_INTERLEAVE, &self->mask, 0));
	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, buf, MPOL_F_ADDR));
	EXPECT_EQ(MPOL_INTERLEAVE, mode);
	EXPECT_TRUE(wi_mask_equal(&self->mask, &got));
	wi_fault_pages(buf, npages, WI_PAGE_SIZE);
	expect_interleaved(_metadata, self, buf, npages);
	munmap(buf, len);
}

/* A task policy interleaves faults by the VMA's interleave index too. */
TEST_F(policies, interleave_task_anon)
{
	size_t npages = 100 * 4, len = npages * WI_PAGE_SIZE;
	char *buf;

	WI_TEST_START();
	if (self->nr < 2)
		SKIP(return, "needs 2 memory nodes, have %d", self->nr);
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_INTERLEAVE, &self->mask));
	expect_policy(_metadata, MPOL_INTERLEAVE, &self->mask);
	buf = wi_mmap_anon(len);
	ASSERT_NE(NULL, buf);
	wi_fault_pages(buf, npages, WI_PAGE_SIZE);
	expect_interleaved(_metadata, self, buf, npages);
	munmap(buf, len);
}

/* Allocations without an index: one page per node, round-robin. */
TEST_F(policies, interleave_round_robin)
{
	int nodes[4], nr = 0, i, n, fd, next, ret;
	int pred[63], st[63];
	char path[128];
	struct wi_mask m;

	WI_TEST_START();
	for (i = 0; i < self->nr; i++)
		if (wi_node_has_normal_memory(self->nodes[i]))
			nodes[nr++] = self->nodes[i];
	if (nr < 2)
		SKIP(return, "needs 2 nodes with non-movable memory");
	if (geteuid())
		SKIP(return, "must be run as root (ramfs mount)");
	ret = wi_mount_scratch(self->ramfs, sizeof(self->ramfs), "ramfs",
			       NULL);
	if (ret)
		SKIP(return, "cannot mount ramfs: %s", strerror(-ret));
	snprintf(path, sizeof(path), "%s/file", self->ramfs);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	/* Index 63 first: the xarray node for the first 64 pages exists. */
	ASSERT_EQ(0, wi_file_write_page(fd, 63));

	wi_mask_from_nodes(&m, nodes, nr);
	n = 5 * nr;
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_INTERLEAVE, &m));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, wi_get_mempolicy(&pred[i], NULL, NULL,
					      MPOL_F_NODE));
		ASSERT_EQ(0, wi_file_write_page(fd, i));
	}
	ASSERT_EQ(0, wi_file_page_nodes(fd, n, st));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(nodes[i % nr], pred[i]) TH_LOG("allocation %d", i);
		EXPECT_EQ(pred[i], st[i]) TH_LOG("page %d", i);
	}
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_INTERLEAVE, &m));
	ASSERT_EQ(0, wi_get_mempolicy(&next, NULL, NULL, MPOL_F_NODE));
	EXPECT_EQ(nodes[0], next);
	close(fd);
}

TEST_F(policies, interleave_hugetlb)
{
	size_t n, len;
	unsigned long start, end;
	unsigned long long off;
	long extra[4];
	char *buf;
	int i, ret, *st;

	WI_TEST_START();
	if (self->nr < 2)
		SKIP(return, "needs 2 memory nodes, have %d", self->nr);
	if (geteuid())
		SKIP(return, "must be run as root (hugetlb pool)");
	n = 2 * self->nr;
	len = n * WI_HPAGE_SIZE;
	for (i = 0; i < self->nr; i++)
		extra[i] = 2;
	ret = wi_hugetlb_reserve(&self->hugetlb, self->nodes, extra, self->nr);
	if (ret == -ENOENT)
		SKIP(return, "no 2 MiB hugetlb support");
	if (ret)
		SKIP(return, "could not reserve 2 MiB hugetlb pages per node");

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, wi_mbind(buf, len, MPOL_INTERLEAVE, &self->mask, 0));
	wi_fault_pages(buf, n, WI_HPAGE_SIZE);
	ASSERT_EQ(0, wi_vma_lookup(buf, &start, &end, &off));
	st = wi_nodes_of(_metadata, buf, n, WI_HPAGE_SIZE);
	for (i = 0; i < (int)n; i++) {
		unsigned long ilx = (off >> WI_HPAGE_SHIFT) +
			(((unsigned long)buf - start) >> WI_HPAGE_SHIFT) + i;

		EXPECT_EQ(wi_interleave_node(self->nodes, self->nr, ilx),
			  st[i]) TH_LOG("huge page %d", i);
	}
	free(st);
	munmap(buf, len);
}

TEST_F(policies, bind_move)
{
	size_t len = NPAGES * WI_PAGE_SIZE;
	int i, from, to, *st;
	struct wi_mask m;
	char *buf;

	WI_TEST_START();
	if (self->nr_mem < 2)
		SKIP(return, "needs 2 memory nodes, have %d", self->nr_mem);
	from = self->mem[0];
	to = self->mem[self->nr_mem - 1];
	buf = wi_mmap_anon(len);
	ASSERT_NE(NULL, buf);
	one_node(&m, from);
	ASSERT_EQ(0, wi_mbind(buf, len, MPOL_BIND, &m, 0));
	wi_fault_pages(buf, NPAGES, WI_PAGE_SIZE);
	one_node(&m, to);
	ASSERT_EQ(0, wi_mbind(buf, len, MPOL_BIND, &m,
			      MPOL_MF_MOVE | MPOL_MF_STRICT))
		TH_LOG("mbind: %s", strerror(errno));
	st = wi_nodes_of(_metadata, buf, NPAGES, WI_PAGE_SIZE);
	for (i = 0; i < NPAGES; i++) {
		EXPECT_EQ(to, st[i]) TH_LOG("page %d", i);
	}
	free(st);
	munmap(buf, len);
}

TEST_F(policies, queries_and_errors)
{
	struct wi_mask allowed, empty;
	int i, mode;

	WI_TEST_START();
	/* MPOL_F_NODE without an address needs an interleaving policy. */
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_DEFAULT, NULL));
	errno = 0;
	EXPECT_EQ(-1, wi_get_mempolicy(&mode, NULL, NULL, MPOL_F_NODE));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, wi_get_mempolicy(NULL, &allowed, NULL,
				      MPOL_F_MEMS_ALLOWED));
	for (i = 0; i < self->nr_mem; i++) {
		EXPECT_TRUE(wi_mask_test(&allowed, self->mem[i]))
			TH_LOG("memory node %d not allowed", self->mem[i]);
	}

	wi_mask_zero(&empty);
	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(MPOL_BIND, &empty));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(MPOL_INTERLEAVE, &empty));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(MPOL_PREFERRED_MANY, &empty));
	EXPECT_EQ(EINVAL, errno);
	/* MPOL_DEFAULT takes no nodes. */
	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(MPOL_DEFAULT, &self->mask));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(MPOL_BIND | MPOL_F_STATIC_NODES |
				       MPOL_F_RELATIVE_NODES, &self->mask));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, wi_set_mempolicy(WI_MPOL_FIRST_INVALID, &self->mask));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
