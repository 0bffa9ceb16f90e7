// SPDX-License-Identifier: GPL-2.0
/*
 * Rows of global weights per initiator
 * (/sys/kernel/mm/mempolicy/weighted_interleave/per_initiator and
 * initiatorC/nodeN).
 *
 *  - with per_initiator false nothing changes: pages follow the nodeN
 *    weights, the default row, whatever the rows say;
 *  - with it true, the private pages a task allocates on a CPU of node C
 *    follow row C (an entry of 0 follows the default row), under a task
 *    policy and a VMA policy, and the same task moved to another node's
 *    CPU follows that node's row from its next page;
 *  - a shared memfd keeps the default row, whoever faults it;
 *  - the process's own weights override every row;
 *  - get_mempolicy_weights(MPOL_WEIGHTS_EFFECTIVE) reports the row of the
 *    node the task last ran on;
 *  - bad writes fail with EINVAL and change nothing; a row entry written
 *    ends auto mode; auto mode derives every row from the HMAT's
 *    bandwidth from that initiator, read here from the ACPI table itself;
 *  - a node whose last CPU goes offline loses its row's directory, which
 *    comes back with its entries when a CPU comes back;
 *  - rows written while tasks fault on every CPU.
 *
 * Kernels without rows (upstream, Debian's own) skip.  Memory hotplug is
 * in wi_hotplug.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wi_harness.h"
#include "wi_weights.h"

#define MAX_PICK	4

FIXTURE(rows) {
	bool setup_skipped;
	int nr;
	int nodes[MAX_PICK];
	int ini[2];		/* two initiators with rows */
	int cpu[2];		/* a CPU of each */
	unsigned int row[2][MAX_PICK], dflt[MAX_PICK];
	cpu_set_t affinity;
};

FIXTURE_SETUP(rows)
{
	static const unsigned int a[] = { 4, 1, 1, 1 }, d[] = { 1, 2, 3, 1 };
	int ini[WI_MAX_NODES], n, i;

	if (!wi_sysfs_present())
		WI_SETUP_SKIP(WI_SYSFS_DIR " missing: no weighted interleave");
	if (geteuid())
		WI_SETUP_SKIP("must be run as root");
	if (wi_per_initiator() < 0) {
		ASSERT_FALSE(wi_is_project_kernel())
			TH_LOG("no per_initiator in this project's kernel");
		WI_SETUP_SKIP("kernel without rows per initiator");
	}
	n = wi_row_initiators(ini, WI_MAX_NODES);
	if (n < 2)
		WI_SETUP_SKIP("needs two nodes with CPUs, have %d", n);
	self->ini[0] = ini[0];
	self->ini[1] = ini[n - 1];
	for (i = 0; i < 2; i++) {
		self->cpu[i] = wi_node_first_cpu(self->ini[i]);
		ASSERT_LE(0, self->cpu[i]);
	}
	self->nr = wi_pick_nodes(MAX_PICK, self->nodes);
	if (self->nr < 2)
		WI_SETUP_SKIP("needs two memory nodes, have %d", self->nr);
	/* row 0 leans on the first node, row 1 on the last, the default between */
	for (i = 0; i < self->nr; i++) {
		self->row[0][i] = a[i];
		self->row[1][self->nr - 1 - i] = a[i];
		self->dflt[i] = d[i];
	}
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(self->affinity),
				       &self->affinity));
	wi_state_save();
}

FIXTURE_TEARDOWN(rows)
{
	if (self->setup_skipped)
		return;
	wi_set_mempolicy(MPOL_DEFAULT, NULL);
	wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0, 0);
	sched_setaffinity(0, sizeof(self->affinity), &self->affinity);
	EXPECT_EQ(0, wi_state_restore());
}

static int run_on(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The default row and both rows as the fixture says. */
static void set_rows(struct __test_metadata *_metadata,
		     FIXTURE_DATA(rows) *self)
{
	int i, k;

	WI_SET_WEIGHTS(self->nodes, self->dflt, self->nr);
	for (k = 0; k < 2; k++)
		for (i = 0; i < self->nr; i++)
			ASSERT_EQ(0, wi_set_row(self->ini[k], self->nodes[i],
						self->row[k][i]));
}

/* Pages faulted on initiator k's CPU land by weights w. */
static void expect_layout(struct __test_metadata *_metadata,
			  FIXTURE_DATA(rows) *self, int k,
			  const unsigned int *w, const char *what)
{
	ASSERT_EQ(0, run_on(self->cpu[k]));
	EXPECT_EQ(0, wi_vma_misplaced(self->nodes, w, self->nr))
		TH_LOG("%s, VMA policy, CPU %d of node %d", what,
		       self->cpu[k], self->ini[k]);
	EXPECT_EQ(0, wi_task_misplaced(self->nodes, w, self->nr))
		TH_LOG("%s, task policy, CPU %d of node %d", what,
		       self->cpu[k], self->ini[k]);
}

TEST_F(rows, off_is_the_default_row)
{
	WI_TEST_START();
	set_rows(_metadata, self);
	ASSERT_EQ(0, wi_set_per_initiator(false));
	EXPECT_EQ(0, wi_per_initiator());
	expect_layout(_metadata, self, 0, self->dflt, "off");
	expect_layout(_metadata, self, 1, self->dflt, "off");
}

TEST_F(rows, on_follows_the_row_of_the_cpu)
{
	unsigned int part[MAX_PICK];

	WI_TEST_START();
	set_rows(_metadata, self);
	ASSERT_EQ(0, wi_set_per_initiator(true));
	EXPECT_EQ(1, wi_per_initiator());
	expect_layout(_metadata, self, 0, self->row[0], "row 0");
	/* the same task, moved: the other row from its next page */
	expect_layout(_metadata, self, 1, self->row[1], "row 1");
	expect_layout(_metadata, self, 0, self->row[0], "row 0 again");

	/* an entry of 0 follows the default row */
	memcpy(part, self->row[0], sizeof(part));
	part[1] = self->dflt[1];
	ASSERT_EQ(0, wi_set_row(self->ini[0], self->nodes[1], 0));
	EXPECT_EQ((int)self->dflt[1], wi_read_row(self->ini[0], self->nodes[1]));
	expect_layout(_metadata, self, 0, part, "row 0 following the default");
}

/*
 * A shared memfd under a shared policy: shmem's interleave index is the
 * inode number plus the page offset, and the default row places it from
 * either node's CPU.
 */
TEST_F(rows, shared_memfd_keeps_the_default_row)
{
	const size_t len = WI_LAYOUT_PAGES * WI_PAGE_SIZE;
	int where[WI_LAYOUT_PAGES], fd, k;
	unsigned long ino;
	char *map;

	WI_TEST_START();
	set_rows(_metadata, self);
	ASSERT_EQ(0, wi_set_per_initiator(true));
	map = wi_memfd_weighted(len, self->nodes, self->nr, &fd, &ino);
	ASSERT_NE(NULL, map) TH_LOG("memfd: %s", strerror(errno));
	/* half the pages from each initiator's CPU */
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, run_on(self->cpu[k]));
		wi_fault_pages(map + k * (len / 2), WI_LAYOUT_PAGES / 2,
			       WI_PAGE_SIZE);
	}
	ASSERT_EQ(0, wi_page_nodes(map, WI_LAYOUT_PAGES, WI_PAGE_SIZE, where));
	wi_check_weighted(_metadata, where, WI_LAYOUT_PAGES, ino,
			  self->nodes, self->dflt, self->nr);
	munmap(map, len);
	close(fd);
}

TEST_F(rows, own_weights_override_every_row)
{
	unsigned int own[MAX_PICK], part[MAX_PICK];
	uint8_t vec[WI_WEIGHTS_MAX_NODES];
	int i;

	WI_TEST_START();
	if (wi_task_weights_supported() != 1)
		SKIP(return, "kernel without per-process weights");
	set_rows(_metadata, self);
	ASSERT_EQ(0, wi_set_per_initiator(true));
	for (i = 0; i < self->nr; i++)
		own[i] = 2 + (i == 0);
	wi_weights_vec(vec, sizeof(vec), self->nodes, own, self->nr);
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
					 sizeof(vec), 0));
	expect_layout(_metadata, self, 0, own, "own weights");
	expect_layout(_metadata, self, 1, own, "own weights");

	/* a node the process has no weight for follows the row */
	vec[self->nodes[1]] = 0;
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
					 sizeof(vec), 0));
	memcpy(part, own, sizeof(part));
	part[1] = self->row[1][1];
	expect_layout(_metadata, self, 1, part, "own weights and row 1");
}

/* What MPOL_WEIGHTS_EFFECTIVE says of @pidfd: weights w[] for nodes[]. */
static void expect_effective(struct __test_metadata *_metadata,
			     FIXTURE_DATA(rows) *self, int pidfd,
			     const unsigned int *w, const char *what)
{
	uint8_t vec[WI_WEIGHTS_MAX_NODES];
	int i;

	ASSERT_LT(0, wi_get_task_weights(pidfd, vec, sizeof(vec),
					 MPOL_WEIGHTS_EFFECTIVE));
	for (i = 0; i < self->nr; i++) {
		EXPECT_EQ(w[i], vec[self->nodes[i]])
			TH_LOG("%s: node %d", what, self->nodes[i]);
	}
}

TEST_F(rows, effective_weights_are_the_row_of_the_task)
{
	int ready[2], pidfd, status;
	pid_t pid;
	char c;

	WI_TEST_START();
	if (wi_task_weights_supported() != 1)
		SKIP(return, "kernel without per-process weights");
	set_rows(_metadata, self);
	ASSERT_EQ(0, wi_set_per_initiator(false));
	ASSERT_EQ(0, run_on(self->cpu[0]));
	expect_effective(_metadata, self, PIDFD_SELF_THREAD_GROUP, self->dflt,
			 "off");
	ASSERT_EQ(0, wi_set_per_initiator(true));
	expect_effective(_metadata, self, PIDFD_SELF_THREAD_GROUP,
			 self->row[0], "on, this task on row 0's CPU");
	ASSERT_EQ(0, run_on(self->cpu[1]));
	expect_effective(_metadata, self, PIDFD_SELF_THREAD_GROUP,
			 self->row[1], "on, this task on row 1's CPU");

	/* another process, which last ran on row 0's CPU */
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(ready[0]);
		if (run_on(self->cpu[0]))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	pidfd = wi_pidfd_open(pid);
	ASSERT_LE(0, pidfd);
	expect_effective(_metadata, self, pidfd, self->row[0],
			 "another process on row 0's CPU");
	close(pidfd);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(ready[0]);
}

TEST_F(rows, bad_writes_change_nothing)
{
	static const char *const bad[] = { "256", "-1", "abc", "1 2", "0x100",
					   "3x" };
	static const char *const bad_bool[] = { "maybe", "2", "x" };
	int ini = self->ini[0], node = self->nodes[0];
	char path[128];
	unsigned int i;

	WI_TEST_START();
	set_rows(_metadata, self);
	ASSERT_EQ(0, wi_set_per_initiator(true));
	wi_row_path(ini, node, path, sizeof(path));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, wi_write_file(path, bad[i]))
			TH_LOG("\"%s\"", bad[i]);
		EXPECT_EQ((int)self->row[0][0], wi_read_row(ini, node))
			TH_LOG("after \"%s\"", bad[i]);
	}
	for (i = 0; i < sizeof(bad_bool) / sizeof(bad_bool[0]); i++) {
		EXPECT_EQ(-EINVAL, wi_write_file(WI_SYSFS_DIR "/per_initiator",
						 bad_bool[i]))
			TH_LOG("\"%s\"", bad_bool[i]);
		EXPECT_EQ(1, wi_per_initiator());
	}
	/* an empty line follows the default row, which it then tracks */
	EXPECT_EQ(0, wi_write_file(path, "\n"));
	EXPECT_EQ((int)self->dflt[0], wi_read_row(ini, node));
	ASSERT_EQ(0, wi_set_weight(node, 9));
	EXPECT_EQ(9, wi_read_row(ini, node));
	EXPECT_EQ(0, wi_write_file(path, "0x0b"));
	EXPECT_EQ(11, wi_read_row(ini, node));
	/* the other row is as it was */
	EXPECT_EQ((int)self->row[1][0], wi_read_row(self->ini[1], node));
}

/*
 * The HMAT as firmware gave it: the bandwidth from each initiator
 * proximity domain to each target, min(read, write), in bw[pd][pd] (0:
 * not given).  QEMU numbers proximity domains as nodes.  0, or -1 if the
 * table cannot be read.
 */
#define HMAT_PATH	"/sys/firmware/acpi/tables/HMAT"
#define HMAT_MEMORY	0	/* flags: memory hierarchy */
#define HMAT_ACCESS_BW	3
#define HMAT_READ_BW	4
#define HMAT_WRITE_BW	5

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static int hmat_bandwidth(long (*bw)[WI_MAX_NODES])
{
	static long rd[WI_MAX_NODES][WI_MAX_NODES], wr[WI_MAX_NODES][WI_MAX_NODES];
	static uint8_t t[65536];
	long len = wi_read_file(HMAT_PATH, (char *)t, sizeof(t));
	long off = 40;
	int i, j;

	if (len < off)
		return -1;
	memset(rd, 0, sizeof(rd));
	memset(wr, 0, sizeof(wr));
	while (off + 8 <= len) {
		const uint8_t *s = t + off;
		uint32_t slen = le32(s + 4), ni, nt;
		uint64_t base;
		uint8_t type;

		if (slen < 8 || off + slen > len)
			return -1;
		off += slen;
		if (s[0] != 1 || slen < 32 || (s[8] & 0xf) != HMAT_MEMORY)
			continue;
		type = s[9];
		if (type < HMAT_ACCESS_BW || type > HMAT_WRITE_BW)
			continue;
		ni = le32(s + 12);
		nt = le32(s + 16);
		base = le32(s + 24) | (uint64_t)le32(s + 28) << 32;
		if (32 + 4 * (ni + nt) + 2 * ni * nt > slen)
			return -1;
		for (i = 0; i < (int)ni; i++)
			for (j = 0; j < (int)nt; j++) {
				uint32_t ip = le32(s + 32 + 4 * i);
				uint32_t tp = le32(s + 32 + 4 * (ni + j));
				const uint8_t *e = s + 32 + 4 * (ni + nt) +
						   2 * (i * nt + j);
				long v = (e[0] | e[1] << 8) * (long)base;

				if (ip >= WI_MAX_NODES || tp >= WI_MAX_NODES ||
				    (e[0] | e[1] << 8) == 0xffff)
					continue;
				if (type != HMAT_WRITE_BW)
					rd[ip][tp] = v;
				if (type != HMAT_READ_BW)
					wr[ip][tp] = v;
			}
	}
	for (i = 0; i < WI_MAX_NODES; i++)
		for (j = 0; j < WI_MAX_NODES; j++)
			bw[i][j] = rd[i][j] && wr[i][j] ?
				   (rd[i][j] < wr[i][j] ? rd[i][j] : wr[i][j]) :
				   rd[i][j] + wr[i][j];
	return 0;
}

/* Every row is the one auto mode derives from the HMAT for its initiator. */
static void expect_auto_rows(struct __test_metadata *_metadata)
{
	static long bw[WI_MAX_NODES][WI_MAX_NODES], from[WI_MAX_NODES];
	int ini[WI_MAX_NODES], mem[WI_MAX_NODES], ni, nm, i, j;
	unsigned int want[WI_MAX_NODES];

	ASSERT_EQ(0, hmat_bandwidth(bw)) TH_LOG("cannot read " HMAT_PATH);
	ni = wi_row_initiators(ini, WI_MAX_NODES);
	nm = wi_memory_nodes(mem, WI_MAX_NODES);
	for (i = 0; i < ni; i++) {
		memset(from, 0, sizeof(from));
		for (j = 0; j < nm; j++) {
			from[mem[j]] = bw[ini[i]][mem[j]];
			if (!from[mem[j]])
				from[mem[j]] = wi_node_bandwidth(mem[j]);
		}
		wi_weights_from_bw(from, want);
		for (j = 0; j < nm; j++) {
			EXPECT_EQ((int)want[mem[j]], wi_read_row(ini[i], mem[j]))
				TH_LOG("row of node %d, node %d", ini[i],
				       mem[j]);
		}
	}
}

TEST_F(rows, auto_derives_the_rows_from_the_hmat)
{
	WI_TEST_START();
	if (wi_auto_mode() < 0 || access(HMAT_PATH, R_OK))
		SKIP(return, "no auto mode or no HMAT");
	ASSERT_EQ(0, wi_write_file(WI_SYSFS_DIR "/auto", "true"));
	expect_auto_rows(_metadata);

	/* an entry written ends auto mode; "true" derives the rows again */
	ASSERT_EQ(0, wi_set_row(self->ini[0], self->nodes[0], 17));
	EXPECT_EQ(0, wi_auto_mode());
	EXPECT_EQ(17, wi_read_row(self->ini[0], self->nodes[0]));
	ASSERT_EQ(0, wi_write_file(WI_SYSFS_DIR "/auto", "true"));
	expect_auto_rows(_metadata);
}

/* The online file of @cpu; -1 where it cannot go offline. */
static int cpu_online_path(int cpu, char *path, size_t len)
{
	snprintf(path, len, "/sys/devices/system/cpu/cpu%d/online", cpu);
	return access(path, W_OK) ? -1 : 0;
}

TEST_F(rows, a_node_without_cpus_online_has_no_row)
{
	int ini = self->ini[1], node = self->nodes[0];
	int cpus[WI_MAX_NODES], n, i;
	char path[128], dir[128];

	WI_TEST_START();
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 ini);
	n = wi_read_nodelist(path, cpus, WI_MAX_NODES);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++)
		if (cpu_online_path(cpus[i], path, sizeof(path)))
			SKIP(return, "CPU %d cannot go offline", cpus[i]);
	ASSERT_EQ(0, wi_set_row(ini, node, 13));
	snprintf(dir, sizeof(dir), WI_SYSFS_DIR "/initiator%d", ini);

	for (i = 0; i < n; i++) {
		cpu_online_path(cpus[i], path, sizeof(path));
		ASSERT_EQ(0, access(dir, F_OK)) TH_LOG("CPU %d left", cpus[i]);
		ASSERT_EQ(0, wi_write_file(path, "0"));
	}
	EXPECT_NE(0, access(dir, F_OK)) TH_LOG("%s stayed", dir);
	for (i = 0; i < n; i++) {
		cpu_online_path(cpus[i], path, sizeof(path));
		ASSERT_EQ(0, wi_write_file(path, "1"));
	}
	EXPECT_EQ(0, access(dir, F_OK)) TH_LOG("%s did not come back", dir);
	EXPECT_EQ(13, wi_read_row(ini, node));
}

/*
 * Rows written and switched while a thread on every CPU faults pages: at
 * least STRESS_ROUNDS writes, and on until every thread faulted
 * STRESS_FAULTS rounds of pages.
 */
#define STRESS_ROUNDS	200
#define STRESS_FAULTS	5
#define STRESS_PAGES	32

struct faulter {
	int cpu, nr, bad, done_rounds;
	const int *nodes;
	volatile int *stop;
};

static void *fault_loop(void *arg)
{
	const size_t len = STRESS_PAGES * WI_PAGE_SIZE;
	struct faulter *f = arg;
	int where[STRESS_PAGES], i, k;
	struct wi_mask mask;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(f->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	wi_mask_from_nodes(&mask, f->nodes, f->nr);
	while (!*f->stop) {
		char *p = wi_mmap_anon(len);

		if (!p || wi_mbind(p, len, MPOL_WEIGHTED_INTERLEAVE, &mask, 0)) {
			f->bad++;
			break;
		}
		wi_fault_pages(p, STRESS_PAGES, WI_PAGE_SIZE);
		if (wi_page_nodes(p, STRESS_PAGES, WI_PAGE_SIZE, where))
			f->bad++;
		for (i = 0; i < STRESS_PAGES; i++) {
			for (k = 0; k < f->nr && where[i] != f->nodes[k]; k++)
				;
			f->bad += k == f->nr;
		}
		munmap(p, len);
		__atomic_add_fetch(&f->done_rounds, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static bool all_faulted(const struct faulter *f, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (__atomic_load_n(&f[i].done_rounds, __ATOMIC_RELAXED) <
		    STRESS_FAULTS && !f[i].bad)
			return false;
	return true;
}

TEST_F(rows, rows_written_while_every_cpu_faults)
{
	int ini[WI_MAX_NODES], n, ncpu, i;
	static struct faulter f[64];
	static pthread_t th[64];
	volatile int stop = 0;
	long failed = 0;

	WI_TEST_START();
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > 64)
		ncpu = 64;
	n = wi_row_initiators(ini, WI_MAX_NODES);
	for (i = 0; i < ncpu; i++) {
		f[i] = (struct faulter){ .cpu = i, .nr = self->nr,
					 .nodes = self->nodes, .stop = &stop };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, fault_loop, &f[i]));
	}
	for (i = 0; i < STRESS_ROUNDS || !all_faulted(f, ncpu); i++) {
		failed += wi_set_row(ini[i % n], self->nodes[i % self->nr],
				     i % 5) != 0;
		if (i % 7 == 0)
			failed += wi_set_per_initiator(i % 2) != 0;
		if (i % 50 == 0 && wi_auto_mode() >= 0)
			failed += wi_write_file(WI_SYSFS_DIR "/auto", "true") != 0 &&
				  !access(HMAT_PATH, R_OK);
	}
	stop = 1;
	for (i = 0; i < ncpu; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, f[i].bad) TH_LOG("CPU %d", f[i].cpu);
		EXPECT_LE(STRESS_FAULTS, f[i].done_rounds)
			TH_LOG("CPU %d", f[i].cpu);
	}
	EXPECT_EQ(0, failed);
}

TEST_HARNESS_MAIN
