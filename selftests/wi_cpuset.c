// SPDX-License-Identifier: GPL-2.0
/*
 * MPOL_WEIGHTED_INTERLEAVE and cpuset rebinding (cgroup v2).
 *
 * When cpuset.mems of the task's cpuset changes, task and VMA policies are
 * rebound like every other nodemask policy:
 *  - no mode flag: the mask is remapped onto the new mems by position
 *    (nodes_remap(): the i-th allowed node becomes the (i % n)-th new one);
 *  - MPOL_F_STATIC_NODES: the user's mask intersected with the new mems,
 *    get_mempolicy() keeps reporting the user's mask;
 *  - MPOL_F_RELATIVE_NODES: the user's relative mask folded onto the new
 *    mems, get_mempolicy() keeps reporting the user's mask.
 * Allocations after the change stay within the new mems.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wi_harness.h"

FIXTURE(wi_cpuset) {
	bool setup_skipped;
	int nr;
	int nodes[4];
	unsigned int weights[4];
	struct wi_mask all, small;
	char all_str[64], small_str[64];
	char root[256];			/* cgroup2 mount */
	char child[320];
	char orig[1024];		/* our cgroup before the test */
	bool mounted, enabled, created, moved;
	char ramfs[64];
};

static bool find_cgroup2(char *root, size_t len)
{
	char line[1024], dev[256], dir[256], type[64];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %255s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(root, len, "%s", dir);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static int cg_write(const char *dir, const char *file, const char *val)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return wi_write_file(path, val);
}

static long cg_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return wi_read_file(path, buf, len);
}

static bool has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	const char *p = s;

	while ((p = strstr(p, word))) {
		if ((p == s || p[-1] == ' ') &&
		    (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

FIXTURE_SETUP(wi_cpuset)
{
	char buf[768], pid[32];
	struct stat st;
	int ret;

	if (!wi_sysfs_present())
		WI_SETUP_SKIP(WI_SYSFS_DIR " missing: no weighted interleave");
	if (geteuid())
		WI_SETUP_SKIP("must be run as root");
	self->nr = wi_pick_nodes(4, self->nodes);
	if (self->nr < 4)
		WI_SETUP_SKIP("needs 4 memory nodes, have %d", self->nr);
	wi_default_weights(self->nr, self->weights);
	wi_mask_from_nodes(&self->all, self->nodes, self->nr);
	wi_mask_from_nodes(&self->small, self->nodes, 2);
	wi_mask_str(&self->all, self->all_str, sizeof(self->all_str));
	wi_mask_str(&self->small, self->small_str, sizeof(self->small_str));

	if (!find_cgroup2(self->root, sizeof(self->root))) {
		snprintf(self->root, sizeof(self->root), "/sys/fs/cgroup");
		if (stat(self->root, &st) || !S_ISDIR(st.st_mode) ||
		    mount("cgroup2", self->root, "cgroup2", 0, NULL))
			WI_SETUP_SKIP("cannot mount cgroup2 on %s", self->root);
		self->mounted = true;
	}
	if (cg_read(self->root, "cgroup.controllers", buf, sizeof(buf)) < 0 ||
	    !has_word(buf, "cpuset"))
		WI_SETUP_SKIP("no cpuset controller in cgroup2 at %s",
			      self->root);
	ASSERT_LE(0, cg_read(self->root, "cgroup.subtree_control", buf,
			     sizeof(buf)));
	if (!has_word(buf, "cpuset")) {
		ret = cg_write(self->root, "cgroup.subtree_control", "+cpuset");
		if (ret)
			WI_SETUP_SKIP("cannot enable cpuset: %s",
				      strerror(-ret));
		self->enabled = true;
	}

	/* Where we are now ("0::/path"), to go back there afterwards. */
	ASSERT_LT(0, wi_read_file("/proc/self/cgroup", buf, sizeof(buf)));
	buf[strcspn(buf, "\n")] = '\0';
	ASSERT_EQ(0, strncmp(buf, "0::", 3)) TH_LOG("/proc/self/cgroup: %s",
						     buf);
	snprintf(self->orig, sizeof(self->orig), "%s%.700s", self->root,
		 buf + 3);

	snprintf(self->child, sizeof(self->child), "%s/wi_cpuset.%d",
		 self->root, getpid());
	ASSERT_EQ(0, mkdir(self->child, 0755)) TH_LOG("mkdir %s: %s",
						       self->child,
						       strerror(errno));
	self->created = true;
	ret = cg_write(self->child, "cpuset.mems", self->all_str);
	ASSERT_EQ(0, ret) TH_LOG("cpuset.mems <- %s: %s", self->all_str,
				 strerror(-ret));
	snprintf(pid, sizeof(pid), "%d", getpid());
	ret = cg_write(self->child, "cgroup.procs", pid);
	ASSERT_EQ(0, ret) TH_LOG("moving into %s: %s", self->child,
				 strerror(-ret));
	self->moved = true;

	wi_state_save();
	WI_SET_WEIGHTS(self->nodes, self->weights, self->nr);
}

FIXTURE_TEARDOWN(wi_cpuset)
{
	char pid[32];

	if (self->setup_skipped && !self->mounted)
		return;
	wi_set_mempolicy(MPOL_DEFAULT, NULL);
	wi_umount_scratch(self->ramfs);
	if (self->moved) {
		snprintf(pid, sizeof(pid), "%d", getpid());
		if (cg_write(self->orig, "cgroup.procs", pid))
			cg_write(self->root, "cgroup.procs", pid);
	}
	if (self->created)
		rmdir(self->child);
	if (self->enabled)
		cg_write(self->root, "cgroup.subtree_control", "-cpuset");
	if (self->mounted)
		umount2(self->root, MNT_DETACH);
	if (!self->setup_skipped) {
		EXPECT_EQ(0, wi_state_restore());
	}
}

static void set_mems(struct __test_metadata *_metadata,
		     FIXTURE_DATA(wi_cpuset) *self, const char *mems)
{
	char buf[64];
	int ret = cg_write(self->child, "cpuset.mems", mems);

	ASSERT_EQ(0, ret) TH_LOG("cpuset.mems <- %s: %s", mems, strerror(-ret));
	ASSERT_LT(0, cg_read(self->child, "cpuset.mems.effective", buf,
			     sizeof(buf)));
	buf[strcspn(buf, "\n")] = '\0';
	ASSERT_STREQ(mems, buf);
}

/* nodes_remap(): bit n of src at position i of old -> (i % |new|)-th of new */
static void remap(struct wi_mask *dst, const struct wi_mask *src,
		  const struct wi_mask *old, const struct wi_mask *new)
{
	int o[WI_MAX_NODES], nw[WI_MAX_NODES];
	int no = wi_mask_to_nodes(old, o, WI_MAX_NODES);
	int nn = wi_mask_to_nodes(new, nw, WI_MAX_NODES);
	int n, i;

	wi_mask_zero(dst);
	for (n = 0; n < WI_MAX_NODES; n++) {
		if (!wi_mask_test(src, n))
			continue;
		for (i = 0; i < no && o[i] != n; i++)
			;
		if (i == no || !nn)
			wi_mask_set(dst, n);
		else
			wi_mask_set(dst, nw[i % nn]);
	}
}

static void expect_policy(struct __test_metadata *_metadata, void *addr,
			  int want_mode, const struct wi_mask *want)
{
	char a[64], b[64];
	struct wi_mask got;
	int mode;

	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, addr,
				      addr ? MPOL_F_ADDR : 0));
	EXPECT_EQ(want_mode, mode);
	EXPECT_TRUE(wi_mask_equal(want, &got))
		TH_LOG("get_mempolicy mask %s, expected %s",
		       wi_mask_str(&got, a, sizeof(a)),
		       wi_mask_str(want, b, sizeof(b)));
}

/*
 * Fault npages fresh anonymous pages (task policy) and check that they
 * are spread over the nodes of mask by their weights.
 */
static void expect_task_allocs(struct __test_metadata *_metadata,
			       FIXTURE_DATA(wi_cpuset) *self,
			       const struct wi_mask *mask)
{
	unsigned int weights[4];
	int nodes[4], nr, i, j;
	size_t npages;
	char *buf;
	int *st;

	nr = wi_mask_to_nodes(mask, nodes, 4);
	for (i = 0; i < nr; i++)
		for (j = 0; j < self->nr; j++)
			if (self->nodes[j] == nodes[i])
				weights[i] = self->weights[j];
	npages = 100 * wi_weight_sum(weights, nr);
	buf = wi_mmap_anon(npages * WI_PAGE_SIZE);
	ASSERT_NE(NULL, buf);
	wi_fault_pages(buf, npages, WI_PAGE_SIZE);
	st = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);
	wi_check_shares(_metadata, st, npages, nodes, weights, nr,
			wi_weight_sum(weights, nr));
	free(st);
	munmap(buf, npages * WI_PAGE_SIZE);
}

/* Page cache of a ramfs file (the task's round-robin) stays in mask. */
static void expect_pagecache_in(struct __test_metadata *_metadata,
				FIXTURE_DATA(wi_cpuset) *self,
				const struct wi_mask *mask)
{
	char path[128];
	int i, fd, st[40];

	if (!self->ramfs[0] &&
	    wi_mount_scratch(self->ramfs, sizeof(self->ramfs), "ramfs", NULL)) {
		TH_LOG("no ramfs: page cache check skipped");
		return;
	}
	snprintf(path, sizeof(path), "%s/file", self->ramfs);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	for (i = 0; i < 40; i++) {
		ASSERT_EQ(0, wi_file_write_page(fd, i));
	}
	ASSERT_EQ(0, wi_file_page_nodes(fd, 40, st));
	for (i = 0; i < 40; i++) {
		EXPECT_TRUE(wi_mask_test(mask, st[i]))
			TH_LOG("page cache page %d on node %d", i, st[i]);
	}
	close(fd);
}

TEST_F(wi_cpuset, task_policy_remapped)
{
	struct wi_mask shrunk, grown;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &self->all));
	expect_policy(_metadata, NULL, MPOL_WEIGHTED_INTERLEAVE, &self->all);

	set_mems(_metadata, self, self->small_str);
	remap(&shrunk, &self->all, &self->all, &self->small);
	expect_policy(_metadata, NULL, MPOL_WEIGHTED_INTERLEAVE, &shrunk);
	expect_task_allocs(_metadata, self, &self->small);
	expect_pagecache_in(_metadata, self, &self->small);

	/* Growing back does not unfold the mask. */
	set_mems(_metadata, self, self->all_str);
	remap(&grown, &shrunk, &self->small, &self->all);
	expect_policy(_metadata, NULL, MPOL_WEIGHTED_INTERLEAVE, &grown);
	expect_task_allocs(_metadata, self, &grown);
}

TEST_F(wi_cpuset, task_policy_static_nodes)
{
	const int mode = MPOL_WEIGHTED_INTERLEAVE | MPOL_F_STATIC_NODES;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_mempolicy(mode, &self->all));

	set_mems(_metadata, self, self->small_str);
	expect_policy(_metadata, NULL, mode, &self->all);
	expect_task_allocs(_metadata, self, &self->small);
	expect_pagecache_in(_metadata, self, &self->small);

	/* The user's nodes come back with the mems. */
	set_mems(_metadata, self, self->all_str);
	expect_policy(_metadata, NULL, mode, &self->all);
	expect_task_allocs(_metadata, self, &self->all);
}

TEST_F(wi_cpuset, task_policy_relative_nodes)
{
	const int mode = MPOL_WEIGHTED_INTERLEAVE | MPOL_F_RELATIVE_NODES;
	struct wi_mask rel;
	int i;

	WI_TEST_START();
	wi_mask_zero(&rel);
	for (i = 0; i < self->nr; i++)
		wi_mask_set(&rel, i);
	ASSERT_EQ(0, wi_set_mempolicy(mode, &rel));
	expect_task_allocs(_metadata, self, &self->all);

	set_mems(_metadata, self, self->small_str);
	expect_policy(_metadata, NULL, mode, &rel);
	expect_task_allocs(_metadata, self, &self->small);

	set_mems(_metadata, self, self->all_str);
	expect_policy(_metadata, NULL, mode, &rel);
	expect_task_allocs(_metadata, self, &self->all);
}

TEST_F(wi_cpuset, vma_policy_remapped)
{
	unsigned int weights[2] = { self->weights[0], self->weights[1] };
	size_t npages = 100 * (weights[0] + weights[1]);
	size_t len = npages * WI_PAGE_SIZE;
	struct wi_mask shrunk, grown;
	char *buf;
	int *st;

	WI_TEST_START();
	buf = wi_mmap_anon(len);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, wi_mbind(buf, len, MPOL_WEIGHTED_INTERLEAVE, &self->all,
			      0));

	set_mems(_metadata, self, self->small_str);
	remap(&shrunk, &self->all, &self->all, &self->small);
	expect_policy(_metadata, buf, MPOL_WEIGHTED_INTERLEAVE, &shrunk);

	/* Faults now interleave over the remapped mask, by index. */
	wi_fault_pages(buf, npages, WI_PAGE_SIZE);
	st = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);
	wi_check_weighted(_metadata, st, npages,
			  (unsigned long)buf >> WI_PAGE_SHIFT,
			  self->nodes, weights, 2);
	free(st);

	set_mems(_metadata, self, self->all_str);
	remap(&grown, &shrunk, &self->small, &self->all);
	expect_policy(_metadata, buf, MPOL_WEIGHTED_INTERLEAVE, &grown);
	munmap(buf, len);
}

static void __attribute__((constructor)) wi_cpuset_init(void)
{
	wi_restore_at_exit();
}

TEST_HARNESS_MAIN
