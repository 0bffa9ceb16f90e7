// SPDX-License-Identifier: GPL-2.0
/*
 * Weighted interleave in the bulk page allocator.
 *
 * vmalloc() gets its pages from alloc_pages_bulk_array_mempolicy(), which
 * must follow the task's weighted interleave policy like single-page
 * allocations do.  A user can make the kernel vmalloc on its behalf by
 * growing its file descriptor table past what kmalloc() can provide: 1M
 * descriptors need an 8 MiB table.  /proc/vmallocinfo then tells how many
 * of the table's pages each node holds.
 *
 * Such a table is mapped with 2 MiB pages, allocated one by one, unless
 * the kernel runs with "nohugevmalloc": the test needs that to reach the
 * bulk allocator.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "wi_harness.h"

#define NR_FDS		(1L << 20)
#define TABLE_PAGES	(NR_FDS * sizeof(void *) / WI_PAGE_SIZE)

/*
 * Per-node page counts of the vmalloc areas of exactly TABLE_PAGES pages,
 * summed: the file descriptor table is the only such area the test makes.
 * Returns the number of such areas.
 */
static int table_areas(long *count)
{
	char line[1024], want[32];
	int areas = 0, node;
	FILE *f;

	memset(count, 0, sizeof(long) * WI_MAX_NODES);
	f = fopen("/proc/vmallocinfo", "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), " pages=%lu ", TABLE_PAGES);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, want))
			continue;
		areas++;
		for (node = 0; node < WI_MAX_NODES; node++)
			count[node] += wi_numa_maps_count(line, node);
	}
	fclose(f);
	return areas;
}

FIXTURE(bulk) {
	bool setup_skipped;
	int nr;
	int nodes[WI_MAX_NODES];
	unsigned int w[WI_MAX_NODES];
};

FIXTURE_SETUP(bulk)
{
	struct rlimit rl = { NR_FDS, NR_FDS };
	long before[WI_MAX_NODES];
	char cmdline[4096];

	self->setup_skipped = false;
	if (wi_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0 ||
	    !strstr(cmdline, "nohugevmalloc"))
		WI_SETUP_SKIP("vmalloc uses huge pages: boot with nohugevmalloc");
	if (!wi_sysfs_present())
		WI_SETUP_SKIP("kernel without weighted interleave");
	self->nr = wi_pick_nodes(4, self->nodes);
	if (self->nr < 2)
		WI_SETUP_SKIP("needs 2 memory nodes, have %d", self->nr);
	if (table_areas(before) < 0)
		WI_SETUP_SKIP("no /proc/vmallocinfo");
	if (wi_read_long("/proc/sys/fs/nr_open") < NR_FDS ||
	    setrlimit(RLIMIT_NOFILE, &rl))
		WI_SETUP_SKIP("cannot raise RLIMIT_NOFILE to %ld", NR_FDS);
	wi_default_weights(self->nr, self->w);
	wi_state_save();
	wi_restore_at_exit();
	ASSERT_EQ(0, wi_set_weights(self->nodes, self->w, self->nr));
}

FIXTURE_TEARDOWN(bulk)
{
	if (!self->setup_skipped)
		EXPECT_EQ(0, wi_state_restore());
}

/* The vmalloc'ed pages are spread by weight, within one weight cycle. */
TEST_F(bulk, vmalloc_follows_weights)
{
	long before[WI_MAX_NODES], after[WI_MAX_NODES];
	unsigned int sum = wi_weight_sum(self->w, self->nr);
	struct wi_mask mask;
	int i, areas;

	WI_TEST_START();
	areas = table_areas(before);
	wi_mask_from_nodes(&mask, self->nodes, self->nr);
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &mask));
	ASSERT_EQ(NR_FDS - 1, dup2(0, NR_FDS - 1));
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_DEFAULT, NULL));
	ASSERT_EQ(areas + 1, table_areas(after));

	for (i = 0; i < self->nr; i++) {
		int n = self->nodes[i];
		long got = after[n] - before[n];
		long want = wi_expected_share(self->w, self->nr, i,
					      TABLE_PAGES);

		TH_LOG("node %d weight %u: %ld pages, %ld expected", n,
		       self->w[i], got, want);
		/* Page tables of the area take turns in the same sequence. */
		EXPECT_GE(sum + 8, labs(got - want));
	}
}

TEST_HARNESS_MAIN
