// SPDX-License-Identifier: GPL-2.0
/*
 * Whose weights place a page: the weights go with the policy that places
 * it, not with the task that happens to fault it in.
 *
 *  - Pages another process faults into a private mapping under that
 *    mapping's VMA policy - with process_vm_writev(2), through
 *    /proc/PID/mem or with ptrace(PTRACE_POKEDATA), as debuggers,
 *    checkpoint/restore tools and JITs do - follow the weights of the
 *    process that owns the mapping, whatever the writer's own weights.
 *  - Under the writer's own task policy (the mapping has none) they
 *    follow the writer's policy and weights.
 *  - Pages of a shared object under its shared policy follow the global
 *    weights, whichever process faults them in, so that the object has
 *    one layout: the same offset lands on the same node for everybody.
 *
 * Upstream kernels have no per-process weights: there the first cases
 * skip and the shared-memory case runs without them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wi_harness.h"
#include "wi_weights.h"

#define REGION_LEN	(WI_LAYOUT_PAGES * WI_PAGE_SIZE)

/* A child process holding an untouched private region. */
struct target {
	pid_t pid;
	int go;		/* a byte written here ends the child */
	char *region;	/* the region's address in the child */
};

/* Set the caller's own weights: w[i] for nodes[i]; NULL drops them. */
static int set_own_weights(const int *nodes, const unsigned int *w, int nr)
{
	uint8_t vec[WI_WEIGHTS_MAX_NODES];

	if (!w)
		return wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0, 0);
	wi_weights_vec(vec, sizeof(vec), nodes, w, nr);
	return wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
				   nodes[nr - 1] + 1, 0);
}

/*
 * Start a child with its own weights own[] (none if NULL) that maps a
 * private region of WI_LAYOUT_PAGES pages, puts it under a weighted
 * interleave VMA policy over nodes[] if vma_policy, reports its address
 * and waits, leaving every page untouched.
 */
static int target_start(struct target *t, const int *nodes, int nr,
			const unsigned int *own, bool vma_policy)
{
	int up[2], down[2];
	struct wi_mask mask;
	char *p, c;

	if (pipe(up) || pipe(down))
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (!t->pid) {
		close(up[0]);
		close(down[1]);
		if (own && set_own_weights(nodes, own, nr))
			_exit(10);
		p = wi_mmap_anon(REGION_LEN);
		if (!p)
			_exit(11);
		wi_mask_from_nodes(&mask, nodes, nr);
		if (vma_policy &&
		    wi_mbind(p, REGION_LEN, MPOL_WEIGHTED_INTERLEAVE, &mask, 0))
			_exit(12);
		if (write(up[1], &p, sizeof(p)) != sizeof(p))
			_exit(13);
		if (read(down[0], &c, 1) != 1)
			_exit(14);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	t->go = down[1];
	if (read(up[0], &t->region, sizeof(t->region)) != sizeof(t->region))
		t->region = NULL;
	close(up[0]);
	return t->region ? 0 : -1;
}

/* End the child; its exit status, or -1. */
static int target_stop(struct target *t)
{
	int status;

	if (write(t->go, "x", 1) != 1)
		kill(t->pid, SIGKILL);
	close(t->go);
	if (waitpid(t->pid, &status, 0) != t->pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The ways another process writes into the target's region. */
enum writer { VM_WRITEV, PROC_MEM, PTRACE_POKE };

static char *filled_buffer(void)
{
	char *buf = malloc(REGION_LEN);

	if (buf)
		memset(buf, 0x5a, REGION_LEN);
	return buf;
}

static int write_vm(const struct target *t)
{
	char *buf = filled_buffer();
	struct iovec local = { buf, REGION_LEN };
	struct iovec remote = { t->region, REGION_LEN };
	ssize_t n;

	if (!buf)
		return -1;
	n = process_vm_writev(t->pid, &local, 1, &remote, 1, 0);
	free(buf);
	if (n < 0)
		return -errno;
	return n == (ssize_t)REGION_LEN ? 0 : -EIO;
}

static int write_proc_mem(const struct target *t)
{
	char path[64], *buf = filled_buffer();
	size_t done = 0;
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", t->pid);
	fd = open(path, O_RDWR);
	while (buf && fd >= 0 && done < REGION_LEN) {
		n = pwrite(fd, buf + done, REGION_LEN - done,
			   (off_t)(uintptr_t)(t->region + done));
		if (n <= 0)
			break;
		done += n;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return done == REGION_LEN ? 0 : -1;
}

static int write_ptrace(const struct target *t)
{
	int status, ret = 0;
	size_t i;

	if (ptrace(PTRACE_ATTACH, t->pid, NULL, NULL))
		return -1;
	if (waitpid(t->pid, &status, 0) != t->pid || !WIFSTOPPED(status))
		return -1;
	for (i = 0; i < WI_LAYOUT_PAGES && !ret; i++) {
		if (ptrace(PTRACE_POKEDATA, t->pid,
			   t->region + i * WI_PAGE_SIZE, (void *)0x5a5a5a5aL))
			ret = -1;
	}
	if (ptrace(PTRACE_DETACH, t->pid, NULL, NULL))
		ret = -1;
	return ret;
}

static int write_into(const struct target *t, enum writer how)
{
	switch (how) {
	case VM_WRITEV:
		return write_vm(t);
	case PROC_MEM:
		return write_proc_mem(t);
	case PTRACE_POKE:
		return write_ptrace(t);
	}
	return -1;
}

FIXTURE(owner) {
	bool setup_skipped;
	bool own_weights;	/* the kernel has per-process weights */
	int nr;
	int nodes[WI_MAX_NODES];
};

FIXTURE_SETUP(owner)
{
	unsigned int ones[] = { 1, 1 };
	int supported = wi_task_weights_supported();

	self->setup_skipped = false;
	ASSERT_LE(0, supported);
	self->own_weights = supported;
	if (!wi_sysfs_present())
		WI_SETUP_SKIP("kernel without weighted interleave");
	self->nr = wi_pick_nodes(2, self->nodes);
	if (self->nr < 2)
		WI_SETUP_SKIP("needs 2 memory nodes, have %d", self->nr);
	wi_state_save();
	wi_restore_at_exit();
	WI_SET_WEIGHTS(self->nodes, ones, self->nr);
}

FIXTURE_TEARDOWN(owner)
{
	if (!self->setup_skipped)
		EXPECT_EQ(0, wi_state_restore());
}

/*
 * The target's region, written by the caller, must be laid out exactly
 * by the weights want[] over the fixture's nodes.
 */
static void check_target(struct __test_metadata *_metadata,
			 FIXTURE_DATA(owner) *self, struct target *t,
			 const unsigned int *want)
{
	int where[WI_LAYOUT_PAGES];
	int ret;

	ret = wi_pid_page_nodes(t->pid, t->region, WI_LAYOUT_PAGES,
				WI_PAGE_SIZE, where);
	ASSERT_EQ(0, ret) TH_LOG("move_pages: %s", strerror(-ret));
	wi_check_weighted(_metadata, where, WI_LAYOUT_PAGES,
			  (uintptr_t)t->region >> WI_PAGE_SHIFT, self->nodes,
			  want, self->nr);
}

/*
 * Another process (the caller, with the weights mine[] or none) writes
 * into the target's untouched region under the target's VMA policy: the
 * pages follow the target's own weights 3:1, not the caller's and not the
 * global 1:1.
 */
static void remote_write(struct __test_metadata *_metadata,
			 FIXTURE_DATA(owner) *self, enum writer how,
			 const unsigned int *mine)
{
	unsigned int theirs[] = { 3, 1 };
	struct target t;

	if (!self->own_weights)
		SKIP(return, "kernel without per-process weights (ENOSYS)");
	ASSERT_EQ(0, target_start(&t, self->nodes, self->nr, theirs, true));
	if (mine)
		ASSERT_EQ(0, set_own_weights(self->nodes, mine, self->nr));
	EXPECT_EQ(0, write_into(&t, how));
	check_target(_metadata, self, &t, theirs);
	EXPECT_EQ(0, target_stop(&t));
}

TEST_F(owner, vm_writev_by_process_without_weights)
{
	WI_TEST_START();
	remote_write(_metadata, self, VM_WRITEV, NULL);
}

TEST_F(owner, vm_writev_by_process_with_other_weights)
{
	unsigned int mine[] = { 1, 5 };

	WI_TEST_START();
	remote_write(_metadata, self, VM_WRITEV, mine);
}

TEST_F(owner, proc_pid_mem_write)
{
	WI_TEST_START();
	remote_write(_metadata, self, PROC_MEM, NULL);
}

TEST_F(owner, proc_pid_mem_write_with_other_weights)
{
	unsigned int mine[] = { 1, 5 };

	WI_TEST_START();
	remote_write(_metadata, self, PROC_MEM, mine);
}

TEST_F(owner, ptrace_pokedata)
{
	unsigned int mine[] = { 1, 5 };

	WI_TEST_START();
	remote_write(_metadata, self, PTRACE_POKE, mine);
}

/*
 * Without a VMA policy the writer's own task policy places the pages it
 * faults into the target (as it always has): then the writer's weights
 * apply, those of the policy's owner.
 */
TEST_F(owner, writer_task_policy_uses_writer_weights)
{
	unsigned int theirs[] = { 3, 1 }, mine[] = { 1, 5 };
	struct wi_mask mask;
	struct target t;

	WI_TEST_START();
	if (!self->own_weights)
		SKIP(return, "kernel without per-process weights (ENOSYS)");
	ASSERT_EQ(0, target_start(&t, self->nodes, self->nr, theirs, false));
	ASSERT_EQ(0, set_own_weights(self->nodes, mine, self->nr));
	wi_mask_from_nodes(&mask, self->nodes, self->nr);
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &mask));
	EXPECT_EQ(0, write_vm(&t));
	ASSERT_EQ(0, wi_set_mempolicy(MPOL_DEFAULT, NULL));
	check_target(_metadata, self, &t, mine);
	EXPECT_EQ(0, target_stop(&t));
}

/* Fault pages first, first + 2, ... of the mapping in a child. */
static int fault_every_other(char *map, size_t first, const int *nodes,
			     const unsigned int *own, int nr)
{
	int status;
	pid_t pid;
	size_t i;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (own && set_own_weights(nodes, own, nr))
			_exit(10);
		for (i = first; i < WI_LAYOUT_PAGES; i += 2)
			map[i * WI_PAGE_SIZE] = 1;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * One shared weighted interleave policy on a memfd; two processes with
 * different weights of their own (3:1 and 1:5) fault alternate pages.
 * Every page lands where its offset says under the global weights (2:1):
 * shmem's interleave index is the inode number plus the page offset.
 */
TEST_F(owner, shared_memfd_one_layout)
{
	unsigned int global[] = { 2, 1 }, a[] = { 3, 1 }, b[] = { 1, 5 };
	int where[WI_LAYOUT_PAGES], fd, ret;
	unsigned long ino;
	char *map;

	WI_TEST_START();
	WI_SET_WEIGHTS(self->nodes, global, self->nr);
	map = wi_memfd_weighted(REGION_LEN, self->nodes, self->nr, &fd, &ino);
	ASSERT_NE(NULL, map) TH_LOG("memfd: %s", strerror(errno));

	EXPECT_EQ(0, fault_every_other(map, 0, self->nodes,
				       self->own_weights ? a : NULL, self->nr));
	EXPECT_EQ(0, fault_every_other(map, 1, self->nodes,
				       self->own_weights ? b : NULL, self->nr));

	/* Map the pages here too, so that move_pages() finds them. */
	wi_read_pages(map, WI_LAYOUT_PAGES, WI_PAGE_SIZE);
	ret = wi_page_nodes(map, WI_LAYOUT_PAGES, WI_PAGE_SIZE, where);
	ASSERT_EQ(0, ret) TH_LOG("move_pages: %s", strerror(-ret));
	wi_check_weighted(_metadata, where, WI_LAYOUT_PAGES,
			  ino, self->nodes, global,
			  self->nr);
	munmap(map, REGION_LEN);
	close(fd);
}

TEST_HARNESS_MAIN
