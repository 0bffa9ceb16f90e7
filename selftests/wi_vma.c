// SPDX-License-Identifier: GPL-2.0
/*
 * MPOL_WEIGHTED_INTERLEAVE as a VMA / shared policy (mbind(2), tmpfs mpol=).
 *
 * These policies are stateless: the node of a folio depends only on its
 * interleave index ilx and the current weights.  With W the sum of the
 * weights of the policy's nodes, t = ilx % W selects the node by walking
 * the nodes in ascending order, subtracting each weight until t < weight.
 *
 *   anonymous base pages	ilx = vaddr >> 12 (vm_pgoff + offset)
 *   anonymous THP		ilx = vaddr >> 21 for a 2 MiB aligned VMA
 *   hugetlb			ilx = (vm_pgoff >> 9) + ((vaddr - vm_start) >> 21)
 *   shmem, memfd, tmpfs	ilx = inode number + page index in the file
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wi_harness.h"

#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif

FIXTURE(wi_vma) {
	bool setup_skipped;
	int nr;
	int nodes[4];
	unsigned int weights[4];
	unsigned int wsum;
	struct wi_mask mask;
	char list[64];			/* "0-3" */
	char tmpfs[64];
	struct wi_hugetlb hugetlb;
};

FIXTURE_SETUP(wi_vma)
{
	if (!wi_sysfs_present())
		WI_SETUP_SKIP(WI_SYSFS_DIR " missing: no weighted interleave");
	if (geteuid())
		WI_SETUP_SKIP("must be run as root");
	self->nr = wi_pick_nodes(4, self->nodes);
	if (self->nr < 2)
		WI_SETUP_SKIP("needs 2 memory nodes, have %d", self->nr);
	wi_default_weights(self->nr, self->weights);
	self->wsum = wi_weight_sum(self->weights, self->nr);
	wi_mask_from_nodes(&self->mask, self->nodes, self->nr);
	wi_mask_str(&self->mask, self->list, sizeof(self->list));
	wi_state_save();
	WI_SET_WEIGHTS(self->nodes, self->weights, self->nr);
}

FIXTURE_TEARDOWN(wi_vma)
{
	if (self->setup_skipped)
		return;
	wi_hugetlb_restore(&self->hugetlb);
	wi_umount_scratch(self->tmpfs);
	EXPECT_EQ(0, wi_state_restore());
}

static char *map_bound(struct __test_metadata *_metadata,
		       FIXTURE_DATA(wi_vma) *self, size_t npages,
		       unsigned short flags)
{
	char *buf = wi_mmap_anon(npages * WI_PAGE_SIZE);

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, wi_mbind(buf, npages * WI_PAGE_SIZE,
			      MPOL_WEIGHTED_INTERLEAVE | flags, &self->mask, 0))
		TH_LOG("mbind: %s", strerror(errno));
	return buf;
}

TEST_F(wi_vma, anon_exact)
{
	size_t npages = 100 * self->wsum;
	char *buf;
	int *st;

	WI_TEST_START();
	buf = map_bound(_metadata, self, npages, 0);
	wi_fault_pages(buf, npages, WI_PAGE_SIZE);
	st = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);
	wi_check_weighted(_metadata, st, npages,
			  (unsigned long)buf >> WI_PAGE_SHIFT,
			  self->nodes, self->weights, self->nr);
	free(st);
	munmap(buf, npages * WI_PAGE_SIZE);
}

/* The weights are looked up at allocation time, not at mbind() time. */
TEST_F(wi_vma, weights_read_at_fault_time)
{
	unsigned int w1[4], w2[4];
	size_t half, npages;
	char *buf;
	int i, *st;

	WI_TEST_START();
	for (i = 0; i < self->nr; i++) {
		w1[i] = self->weights[self->nr - 1 - i];
		w2[i] = 2 + i;
	}
	/* Both halves are whole cycles of both weight sets. */
	half = 2 * wi_weight_sum(w1, self->nr) * wi_weight_sum(w2, self->nr);
	npages = 2 * half;
	buf = map_bound(_metadata, self, npages, 0);

	WI_SET_WEIGHTS(self->nodes, w1, self->nr);
	wi_fault_pages(buf, half, WI_PAGE_SIZE);
	WI_SET_WEIGHTS(self->nodes, w2, self->nr);
	wi_fault_pages(buf + half * WI_PAGE_SIZE, half, WI_PAGE_SIZE);

	st = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);
	/* Pages keep the node they got: the first half is unchanged. */
	wi_check_weighted(_metadata, st, half,
			  (unsigned long)buf >> WI_PAGE_SHIFT,
			  self->nodes, w1, self->nr);
	wi_check_weighted(_metadata, st + half, half,
			  ((unsigned long)buf >> WI_PAGE_SHIFT) + half,
			  self->nodes, w2, self->nr);
	free(st);
	munmap(buf, npages * WI_PAGE_SIZE);
}

TEST_F(wi_vma, thp)
{
	size_t n = self->wsum, len = n * WI_HPAGE_SIZE, rawlen;
	long huge_kb;
	int *head, *tail;
	char *buf;
	void *raw;

	WI_TEST_START();
	if (!wi_thp_enabled())
		SKIP(return, "transparent hugepages not enabled");

	buf = wi_mmap_aligned(len, WI_HPAGE_SIZE, &raw, &rawlen);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, madvise(buf, len, MADV_HUGEPAGE));
	ASSERT_EQ(0, wi_mbind(buf, len, MPOL_WEIGHTED_INTERLEAVE,
			      &self->mask, 0)) TH_LOG("mbind: %s",
						      strerror(errno));
	wi_fault_pages(buf, n, WI_HPAGE_SIZE);

	huge_kb = wi_smaps_field_kb(buf, "AnonHugePages:");
	if (huge_kb <= 0) {
		munmap(raw, rawlen);
		SKIP(return, "no THP could be allocated");
	}
	ASSERT_EQ((long)(len >> 10), huge_kb)
		TH_LOG("only part of the region is backed by THPs");

	head = wi_nodes_of(_metadata, buf, n, WI_HPAGE_SIZE);
	tail = wi_nodes_of(_metadata, buf + WI_HPAGE_SIZE / 2 + WI_PAGE_SIZE,
			   n, WI_HPAGE_SIZE);
	EXPECT_EQ(0, memcmp(head, tail, n * sizeof(int)))
		TH_LOG("head and tail pages of a THP on different nodes");
	/* The VMA starts 2 MiB aligned: ilx = vaddr >> 21. */
	wi_check_weighted(_metadata, head, n,
			  (unsigned long)buf >> WI_HPAGE_SHIFT,
			  self->nodes, self->weights, self->nr);
	free(head);
	free(tail);
	munmap(raw, rawlen);
}

TEST_F(wi_vma, hugetlb)
{
	size_t n = self->wsum, len = n * WI_HPAGE_SIZE;
	unsigned long start, end;
	unsigned long long off;
	long extra[4];
	char *buf;
	int i, ret, *st;

	WI_TEST_START();
	/* n = W pages: node i gets exactly weights[i] of them. */
	for (i = 0; i < self->nr; i++)
		extra[i] = self->weights[i];
	ret = wi_hugetlb_reserve(&self->hugetlb, self->nodes, extra, self->nr);
	if (ret == -ENOENT)
		SKIP(return, "no 2 MiB hugetlb support");
	if (ret)
		SKIP(return, "could not reserve 2 MiB hugetlb pages per node");

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	ASSERT_NE(MAP_FAILED, buf) TH_LOG("MAP_HUGETLB: %s", strerror(errno));
	ASSERT_EQ(0, wi_mbind(buf, len, MPOL_WEIGHTED_INTERLEAVE,
			      &self->mask, 0)) TH_LOG("mbind: %s",
						      strerror(errno));
	wi_fault_pages(buf, n, WI_HPAGE_SIZE);

	ASSERT_EQ(0, wi_vma_lookup(buf, &start, &end, &off));
	st = wi_nodes_of(_metadata, buf, n, WI_HPAGE_SIZE);
	wi_check_weighted(_metadata, st, n,
			  (off >> WI_HPAGE_SHIFT) +
			  (((unsigned long)buf - start) >> WI_HPAGE_SHIFT),
			  self->nodes, self->weights, self->nr);
	free(st);
	munmap(buf, len);
	wi_hugetlb_restore(&self->hugetlb);
}

static bool shmem_huge_forced(void)
{
	char buf[128];

	if (wi_read_file("/sys/kernel/mm/transparent_hugepage/shmem_enabled",
			 buf, sizeof(buf)) <= 0)
		return false;
	return strstr(buf, "[force]") != NULL;
}

TEST_F(wi_vma, shmem_memfd)
{
	size_t i, half = 50 * self->wsum, npages = 2 * half;
	size_t len = npages * WI_PAGE_SIZE;
	struct wi_mask got;
	struct stat sb;
	int fd, mode, *st;
	char *map;

	WI_TEST_START();
	if (shmem_huge_forced())
		SKIP(return, "shmem THP forced");
	fd = memfd_create("wi_vma", MFD_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("memfd_create: %s", strerror(errno));
	ASSERT_EQ(0, ftruncate(fd, len));
	ASSERT_EQ(0, fstat(fd, &sb));
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	madvise(map, len, MADV_NOHUGEPAGE);
	/* The policy goes to the object's shared policy. */
	ASSERT_EQ(0, wi_mbind(map, len, MPOL_WEIGHTED_INTERLEAVE,
			      &self->mask, 0)) TH_LOG("mbind: %s",
						      strerror(errno));
	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, map, MPOL_F_ADDR));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE, mode);
	EXPECT_TRUE(wi_mask_equal(&self->mask, &got));

	/* First half faulted through the mapping, second half by write(). */
	wi_fault_pages(map, half, WI_PAGE_SIZE);
	for (i = half; i < npages; i++) {
		ASSERT_EQ(0, wi_file_write_page(fd, i));
	}
	wi_read_pages(map, npages, WI_PAGE_SIZE);

	st = wi_nodes_of(_metadata, map, npages, WI_PAGE_SIZE);
	wi_check_weighted(_metadata, st, npages, (unsigned long)sb.st_ino,
			  self->nodes, self->weights, self->nr);
	free(st);
	munmap(map, len);
	close(fd);
}

/*
 * Huge pages of a tmpfs file: ilx = inode number + huge page index in the
 * file, as upstream's shmem_get_pgoff_policy() numbers them, on both series
 * (6.1's own interleave numbers them (inode number + page index) >> 9).
 */
TEST_F(wi_vma, shmem_thp)
{
	size_t n = 2 * self->wsum, len = n * WI_HPAGE_SIZE;
	char data[128], path[160], *map;
	int ret, fd = -1, i, *head, *tail;
	unsigned long ino = 0;
	struct stat sb;
	size_t rawlen;
	void *raw;

	WI_TEST_START();
	snprintf(data, sizeof(data), "size=%zum,huge=always", (len >> 20) + 8);
	ret = wi_mount_scratch(self->tmpfs, sizeof(self->tmpfs), "tmpfs",
			       data);
	if (ret)
		SKIP(return, "no tmpfs with huge=always: %s", strerror(-ret));
	/* A file whose inode number tells the two numberings apart. */
	for (i = 0; i < 4; i++) {
		if (fd >= 0)
			close(fd);
		snprintf(path, sizeof(path), "%s/file%d", self->tmpfs, i);
		fd = open(path, O_RDWR | O_CREAT, 0600);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, fstat(fd, &sb));
		ino = sb.st_ino;
		if ((ino - (ino >> 9)) % self->wsum)
			break;
	}
	ASSERT_EQ(0, ftruncate(fd, len));
	map = wi_mmap_aligned(len, WI_HPAGE_SIZE, &raw, &rawlen);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(map, mmap(map, len, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_FIXED, fd, 0));
	ASSERT_EQ(0, wi_mbind(map, len, MPOL_WEIGHTED_INTERLEAVE,
			      &self->mask, 0)) TH_LOG("mbind: %s",
						      strerror(errno));
	wi_fault_pages(map, n, WI_HPAGE_SIZE);
	if (wi_smaps_field_kb(map, "ShmemPmdMapped:") != (long)(len >> 10)) {
		munmap(raw, rawlen);
		close(fd);
		SKIP(return, "the file is not all in huge pages");
	}

	head = wi_nodes_of(_metadata, map, n, WI_HPAGE_SIZE);
	tail = wi_nodes_of(_metadata, map + WI_HPAGE_SIZE - WI_PAGE_SIZE, n,
			   WI_HPAGE_SIZE);
	EXPECT_EQ(0, memcmp(head, tail, n * sizeof(int)))
		TH_LOG("head and tail pages of a huge page on different nodes");
	wi_check_weighted(_metadata, head, n, ino, self->nodes,
			  self->weights, self->nr);
	free(head);
	free(tail);
	munmap(raw, rawlen);
	close(fd);
}

static bool mounts_has_option(const char *dir, const char *opt)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *mnt = strchr(line, ' ');

		if (!mnt || strncmp(mnt + 1, dir, strlen(dir)) ||
		    mnt[1 + strlen(dir)] != ' ')
			continue;
		found = strstr(line, opt) != NULL;
		if (!found)
			fprintf(stderr, "# /proc/mounts: %s", line);
	}
	fclose(f);
	return found;
}

TEST_F(wi_vma, tmpfs_mount_option)
{
	size_t i, npages = 100 * self->wsum, len = npages * WI_PAGE_SIZE;
	char data[256], opt[128], path[128], line[1024];
	struct stat sb;
	int fd, ret, *st;
	char *map;

	WI_TEST_START();
	snprintf(opt, sizeof(opt), "mpol=weighted interleave:%s", self->list);
	snprintf(data, sizeof(data), "%s,size=64m,huge=never", opt);
	ret = wi_mount_scratch(self->tmpfs, sizeof(self->tmpfs), "tmpfs",
			       data);
	ASSERT_EQ(0, ret) TH_LOG("mount -o \"%s\": %s", data, strerror(-ret));
	EXPECT_TRUE(mounts_has_option(self->tmpfs, opt))
		TH_LOG("\"%s\" not in /proc/mounts", opt);

	snprintf(path, sizeof(path), "%s/file", self->tmpfs);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &sb));
	for (i = 0; i < npages; i++) {
		ASSERT_EQ(0, wi_file_write_page(fd, i));
	}

	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	wi_read_pages(map, npages, WI_PAGE_SIZE);
	st = wi_nodes_of(_metadata, map, npages, WI_PAGE_SIZE);
	wi_check_weighted(_metadata, st, npages, (unsigned long)sb.st_ino,
			  self->nodes, self->weights, self->nr);
	free(st);

	/* The file's policy shows in numa_maps of its mapping. */
	snprintf(opt, sizeof(opt), " weighted interleave:%s ", self->list);
	ASSERT_EQ(0, wi_numa_maps_line(map, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, opt)) TH_LOG("numa_maps: %s", line);
	munmap(map, len);
	close(fd);
}

TEST_F(wi_vma, get_mempolicy_addr)
{
	size_t npages = 4 * self->wsum;
	struct wi_mask got, rel, empty;
	char *a, *b, *c;
	int i, mode, node;

	WI_TEST_START();
	a = map_bound(_metadata, self, npages, 0);
	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, a, MPOL_F_ADDR));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE, mode);
	EXPECT_TRUE(wi_mask_equal(&self->mask, &got));

	/* The task policy is not affected. */
	ASSERT_EQ(0, wi_get_mempolicy(&mode, NULL, NULL, 0));
	EXPECT_EQ(MPOL_DEFAULT, mode);

	/* MPOL_F_NODE | MPOL_F_ADDR: node of the page at that address. */
	wi_fault_pages(a, npages, WI_PAGE_SIZE);
	for (i = 0; i < (int)npages; i++) {
		unsigned long ilx = ((unsigned long)a >> WI_PAGE_SHIFT) + i;

		ASSERT_EQ(0, wi_get_mempolicy(&node, NULL,
					      a + i * WI_PAGE_SIZE,
					      MPOL_F_NODE | MPOL_F_ADDR));
		EXPECT_EQ(wi_weighted_node(self->nodes, self->weights,
					   self->nr, ilx), node)
			TH_LOG("page %d", i);
	}

	b = map_bound(_metadata, self, npages, MPOL_F_STATIC_NODES);
	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, b, MPOL_F_ADDR));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE | MPOL_F_STATIC_NODES, mode);
	EXPECT_TRUE(wi_mask_equal(&self->mask, &got));

	c = wi_mmap_anon(npages * WI_PAGE_SIZE);
	ASSERT_NE(NULL, c);
	wi_mask_zero(&rel);
	for (i = 0; i < self->nr; i++)
		wi_mask_set(&rel, i);
	ASSERT_EQ(0, wi_mbind(c, npages * WI_PAGE_SIZE,
			      MPOL_WEIGHTED_INTERLEAVE | MPOL_F_RELATIVE_NODES,
			      &rel, 0));
	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, c, MPOL_F_ADDR));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE | MPOL_F_RELATIVE_NODES, mode);
	EXPECT_TRUE(wi_mask_equal(&rel, &got));

	/* Invalid requests leave the VMA policy alone. */
	wi_mask_zero(&empty);
	errno = 0;
	EXPECT_EQ(-1, wi_mbind(a, npages * WI_PAGE_SIZE,
			       MPOL_WEIGHTED_INTERLEAVE, &empty, 0));
	EXPECT_EQ(EINVAL, errno) TH_LOG("empty mask");
	errno = 0;
	EXPECT_EQ(-1, wi_mbind(a, npages * WI_PAGE_SIZE,
			       MPOL_WEIGHTED_INTERLEAVE | MPOL_F_STATIC_NODES |
			       MPOL_F_RELATIVE_NODES, &self->mask, 0));
	EXPECT_EQ(EINVAL, errno) TH_LOG("static and relative");
	ASSERT_EQ(0, wi_get_mempolicy(&mode, &got, a, MPOL_F_ADDR));
	EXPECT_EQ(MPOL_WEIGHTED_INTERLEAVE, mode);
	EXPECT_TRUE(wi_mask_equal(&self->mask, &got));

	munmap(a, npages * WI_PAGE_SIZE);
	munmap(b, npages * WI_PAGE_SIZE);
	munmap(c, npages * WI_PAGE_SIZE);
}

TEST_F(wi_vma, numa_maps)
{
	size_t npages = 100 * self->wsum;
	char line[2048], want[128];
	long want_count[WI_MAX_NODES];
	char *a, *b;
	int i, *st;

	WI_TEST_START();
	a = map_bound(_metadata, self, npages, 0);
	wi_fault_pages(a, npages, WI_PAGE_SIZE);
	st = wi_nodes_of(_metadata, a, npages, WI_PAGE_SIZE);
	wi_count_nodes(st, npages, want_count);
	free(st);

	ASSERT_EQ(0, wi_numa_maps_line(a, line, sizeof(line)));
	snprintf(want, sizeof(want), " weighted interleave:%s ", self->list);
	EXPECT_NE(NULL, strstr(line, want)) TH_LOG("numa_maps: %s", line);
	for (i = 0; i < self->nr; i++) {
		int n = self->nodes[i];

		EXPECT_EQ(wi_expected_share(self->weights, self->nr, i,
					    (long)npages),
			  wi_numa_maps_count(line, n))
			TH_LOG("N%d in \"%s\"", n, line);
		EXPECT_EQ(want_count[n], wi_numa_maps_count(line, n));
	}

	b = map_bound(_metadata, self, npages, MPOL_F_STATIC_NODES);
	ASSERT_EQ(0, wi_numa_maps_line(b, line, sizeof(line) - 1));
	/* An untouched VMA's line ends with the policy. */
	strcat(line, " ");
	snprintf(want, sizeof(want), " weighted interleave=static:%s ",
		 self->list);
	EXPECT_NE(NULL, strstr(line, want)) TH_LOG("numa_maps: %s", line);

	munmap(a, npages * WI_PAGE_SIZE);
	munmap(b, npages * WI_PAGE_SIZE);
}

TEST_F(wi_vma, interleave_hit)
{
	size_t npages = 100 * self->wsum;
	long before[4], after[4];
	char *buf;
	int i;

	WI_TEST_START();
	if (wi_read_long("/proc/sys/vm/numa_stat") == 0)
		SKIP(return, "NUMA statistics disabled (vm.numa_stat = 0)");
	if (!wi_is_project_kernel() && !wi_upstream_at_least(6, 13)) {
		int ma, mi;

		wi_kernel_version(&ma, &mi);
		SKIP(return, "upstream %d.%d does not count weighted interleave in interleave_hit (6.13+ and this tree do)",
		     ma, mi);
	}

	buf = map_bound(_metadata, self, npages, 0);
	for (i = 0; i < self->nr; i++) {
		before[i] = wi_numastat(self->nodes[i], "interleave_hit");
		ASSERT_LE(0, before[i]);
	}
	wi_fault_pages(buf, npages, WI_PAGE_SIZE);
	for (i = 0; i < self->nr; i++) {
		long want = wi_expected_share(self->weights, self->nr, i,
					      (long)npages);
		long delta;

		after[i] = wi_numastat(self->nodes[i], "interleave_hit");
		delta = after[i] - before[i];
		/* Unrelated interleaved allocations can only add a few. */
		EXPECT_LE(want, delta)
			TH_LOG("node %d: interleave_hit +%ld, expected +%ld",
			       self->nodes[i], delta, want);
		EXPECT_GE(want + 64, delta)
			TH_LOG("node %d: interleave_hit +%ld, expected +%ld",
			       self->nodes[i], delta, want);
	}
	munmap(buf, npages * WI_PAGE_SIZE);
}

static void __attribute__((constructor)) wi_vma_init(void)
{
	wi_restore_at_exit();
}

TEST_HARNESS_MAIN
