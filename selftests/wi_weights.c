// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process weighted interleave weights: set_mempolicy_weights(2) and
 * get_mempolicy_weights(2).
 *
 * The weights of a process take precedence over the global sysfs weights
 * for its task and VMA policies, are shared by its threads, inherited over
 * fork and kept over exec, can be set by another permitted process, and a
 * failed call leaves them unchanged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "wi_harness.h"
#include "wi_weights.h"

#define NOBODY_UID	65534
#define OTHER_UID	65533

/*
 * Fault npages pages under a weighted interleave task policy over nodes[]
 * and return in count[] how many landed on each of them.
 */
static int task_counts(const int *nodes, int nr, long npages, long *count)
{
	static long all[WI_MAX_NODES];
	struct wi_mask mask;
	int *where, i;
	char *p;

	where = calloc(npages, sizeof(*where));
	p = wi_mmap_anon(npages * WI_PAGE_SIZE);
	if (!where || !p)
		return -1;
	wi_mask_from_nodes(&mask, nodes, nr);
	if (wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &mask))
		return -1;
	wi_fault_pages(p, npages, WI_PAGE_SIZE);
	wi_set_mempolicy(MPOL_DEFAULT, NULL);
	if (wi_page_nodes(p, npages, WI_PAGE_SIZE, where))
		return -1;
	wi_count_nodes(where, npages, all);
	for (i = 0; i < nr; i++)
		count[i] = all[nodes[i]];
	munmap(p, npages * WI_PAGE_SIZE);
	free(where);
	return 0;
}

FIXTURE(weights) {
	bool setup_skipped;
	int nr;
	int nodes[WI_MAX_NODES];
	long nr_node_ids;
	uint8_t before[WI_WEIGHTS_MAX_NODES];
};

FIXTURE_SETUP(weights)
{
	int supported = wi_task_weights_supported();

	self->setup_skipped = false;
	if (supported < 0)
		TH_LOG("unexpected answer to get_mempolicy_weights: %s",
		       strerror(-supported));
	ASSERT_LE(0, supported);
	if (!supported)
		WI_SETUP_SKIP("kernel without per-process weights (ENOSYS)");
	if (!wi_sysfs_present())
		WI_SETUP_SKIP("kernel without weighted interleave");

	self->nr = wi_pick_nodes(4, self->nodes);
	if (self->nr < 2)
		WI_SETUP_SKIP("needs 2 memory nodes, have %d", self->nr);
	self->nr_node_ids = wi_get_task_weights(PIDFD_SELF_THREAD_GROUP,
						NULL, 0, 0);
	wi_state_save();
	wi_restore_at_exit();
}

FIXTURE_TEARDOWN(weights)
{
	if (!self->setup_skipped)
		EXPECT_EQ(0, wi_state_restore());
}

/* The return value is the number of node ids: highest possible + 1. */
TEST_F(weights, nr_node_ids)
{
	int possible[WI_MAX_NODES], n;

	WI_TEST_START();
	n = wi_possible_nodes(possible, WI_MAX_NODES);
	ASSERT_LT(0, n);
	EXPECT_EQ(possible[n - 1] + 1, self->nr_node_ids);
}

/* A process starts without weights; the effective ones are the global. */
TEST_F(weights, defaults_are_global)
{
	uint8_t own[WI_WEIGHTS_MAX_NODES], eff[WI_WEIGHTS_MAX_NODES];
	unsigned int g[] = { 2, 1, 3, 4 };
	int i, mem[WI_MAX_NODES], nmem;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_weights(self->nodes, g, self->nr));
	memset(own, 0xaa, sizeof(own));
	ASSERT_EQ(self->nr_node_ids,
		  wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, own,
				      sizeof(own), 0));
	for (i = 0; i < (int)sizeof(own); i++)
		ASSERT_EQ(0, own[i]);

	ASSERT_EQ(self->nr_node_ids,
		  wi_get_task_weights(PIDFD_SELF_THREAD, eff, sizeof(eff),
				      MPOL_WEIGHTS_EFFECTIVE));
	for (i = 0; i < self->nr; i++)
		EXPECT_EQ(g[i], eff[self->nodes[i]]);
	nmem = wi_memory_nodes(mem, WI_MAX_NODES);
	for (i = 0; i < self->nr_node_ids; i++) {
		bool has_mem = false;
		int j;

		for (j = 0; j < nmem; j++)
			has_mem |= mem[j] == i;
		if (has_mem) {
			EXPECT_EQ(wi_read_weight(i), eff[i]);
		} else {
			EXPECT_EQ(0, eff[i]);
		}
	}
	for (i = self->nr_node_ids; i < (int)sizeof(eff); i++)
		ASSERT_EQ(0, eff[i]);
}

/* Per-process weights beat the global ones for a VMA policy, exactly. */
TEST_F(weights, vma_policy_follows_own_weights)
{
	unsigned int ones[] = { 1, 1, 1, 1 }, own[] = { 7, 1, 1, 1 };
	uint8_t vec[WI_WEIGHTS_MAX_NODES];

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_weights(self->nodes, ones, self->nr));
	wi_weights_vec(vec, sizeof(vec), self->nodes, own, self->nr);
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
					 self->nr_node_ids, 0));
	EXPECT_EQ(0, wi_vma_misplaced(self->nodes, own, self->nr));
}

/* ... and for the task policy, within one weight cycle per node. */
TEST_F(weights, task_policy_follows_own_weights)
{
	unsigned int ones[] = { 1, 1, 1, 1 }, own[] = { 7, 1, 1, 1 };
	uint8_t vec[WI_WEIGHTS_MAX_NODES];
	long count[WI_MAX_NODES], n = 40 * wi_weight_sum(own, self->nr);
	int i;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_weights(self->nodes, ones, self->nr));
	wi_weights_vec(vec, sizeof(vec), self->nodes, own, self->nr);
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
					 self->nr_node_ids, 0));
	ASSERT_EQ(0, task_counts(self->nodes, self->nr, n, count));
	for (i = 0; i < self->nr; i++) {
		long want = wi_expected_share(own, self->nr, i, n);

		TH_LOG("node %d: %ld pages, %ld expected", self->nodes[i],
		       count[i], want);
		EXPECT_GE((long)wi_weight_sum(own, self->nr), labs(count[i] - want));
	}
}

/* A 0 entry keeps the node at its global weight. */
TEST_F(weights, zero_means_global)
{
	unsigned int g[] = { 1, 2, 3, 4 }, own[] = { 6, 0, 0, 0 };
	unsigned int eff_w[4];
	uint8_t vec[WI_WEIGHTS_MAX_NODES], eff[WI_WEIGHTS_MAX_NODES];
	int i;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_weights(self->nodes, g, self->nr));
	wi_weights_vec(vec, sizeof(vec), self->nodes, own, self->nr);
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
					 self->nr_node_ids, 0));
	ASSERT_EQ(self->nr_node_ids,
		  wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, eff,
				      self->nr_node_ids,
				      MPOL_WEIGHTS_EFFECTIVE));
	for (i = 0; i < self->nr; i++) {
		eff_w[i] = own[i] ? own[i] : g[i];
		EXPECT_EQ(eff_w[i], eff[self->nodes[i]]);
	}
	EXPECT_EQ(0, wi_vma_misplaced(self->nodes, eff_w, self->nr));
}

/* Clearing goes back to the global weights. */
TEST_F(weights, clear)
{
	unsigned int g[] = { 3, 1, 1, 1 }, own[] = { 1, 4, 4, 4 };
	uint8_t vec[WI_WEIGHTS_MAX_NODES];
	int i;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_weights(self->nodes, g, self->nr));
	wi_weights_vec(vec, sizeof(vec), self->nodes, own, self->nr);
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
					 self->nr_node_ids, 0));
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0, 0));
	memset(vec, 0xaa, sizeof(vec));
	ASSERT_EQ(self->nr_node_ids,
		  wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
				      self->nr_node_ids, 0));
	for (i = 0; i < self->nr_node_ids; i++)
		EXPECT_EQ(0, vec[i]);
	EXPECT_EQ(0, wi_vma_misplaced(self->nodes, g, self->nr));
}

struct thread_arg {
	const int *nodes;
	const unsigned int *w;
	int nr;
	int misplaced;
};

static void *thread_fn(void *p)
{
	struct thread_arg *a = p;

	a->misplaced = wi_vma_misplaced(a->nodes, a->w, a->nr);
	return NULL;
}

/* Threads, also those created after the call, share the weights. */
TEST_F(weights, threads_share)
{
	unsigned int ones[] = { 1, 1, 1, 1 }, own[] = { 2, 5, 1, 3 };
	struct thread_arg a = { self->nodes, own, self->nr, -1 };
	uint8_t vec[WI_WEIGHTS_MAX_NODES];
	pthread_t t;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_weights(self->nodes, ones, self->nr));
	wi_weights_vec(vec, sizeof(vec), self->nodes, own, self->nr);
	/* Set from a thread with PIDFD_SELF_THREAD: still the process. */
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD, vec,
					 self->nr_node_ids, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_fn, &a));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, a.misplaced);
}

/* A child created by fork starts with its parent's weights. */
TEST_F(weights, fork_inherits)
{
	unsigned int ones[] = { 1, 1, 1, 1 }, own[] = { 1, 1, 4, 9 };
	uint8_t vec[WI_WEIGHTS_MAX_NODES], got[WI_WEIGHTS_MAX_NODES];
	int status;
	pid_t pid;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_weights(self->nodes, ones, self->nr));
	wi_weights_vec(vec, sizeof(vec), self->nodes, own, self->nr);
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
					 self->nr_node_ids, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, got,
					self->nr_node_ids, 0) < 0)
			_exit(2);
		if (memcmp(got, vec, self->nr_node_ids))
			_exit(3);
		_exit(wi_vma_misplaced(self->nodes, own, self->nr) ? 4 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * execve() keeps the weights.  The test re-executes its own binary with
 * WI_EXEC_REPORT set; the constructor below then writes the weights it
 * finds to the given fd and exits before the harness runs.
 */
__attribute__((constructor)) static void exec_report(void)
{
	const char *fd = getenv("WI_EXEC_REPORT");
	uint8_t w[WI_WEIGHTS_MAX_NODES];
	long n;

	if (!fd)
		return;
	n = wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, w, sizeof(w), 0);
	if (n < 0 || write(atoi(fd), w, n) != n)
		_exit(1);
	_exit(0);
}

TEST_F(weights, exec_keeps)
{
	unsigned int own[] = { 9, 8, 7, 6 };
	uint8_t vec[WI_WEIGHTS_MAX_NODES], got[WI_WEIGHTS_MAX_NODES];
	int pipefd[2], status;
	char fdstr[16];
	pid_t pid;

	WI_TEST_START();
	wi_weights_vec(vec, sizeof(vec), self->nodes, own, self->nr);
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
					 self->nr_node_ids, 0));
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *argv[] = { "wi_weights", NULL };

		close(pipefd[0]);
		snprintf(fdstr, sizeof(fdstr), "%d", pipefd[1]);
		setenv("WI_EXEC_REPORT", fdstr, 1);
		execv("/proc/self/exe", argv);
		_exit(5);
	}
	close(pipefd[1]);
	memset(got, 0xaa, sizeof(got));
	ASSERT_EQ(self->nr_node_ids, read(pipefd[0], got, sizeof(got)));
	close(pipefd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, memcmp(got, vec, self->nr_node_ids));
}

/*
 * A child that waits for a byte on a pipe, then checks that its own
 * allocations follow the weights w[] and exits 0 if they do ('v').
 */
static pid_t spawn_target(const int *nodes, const unsigned int *w, int nr,
			  uid_t uid, int *go)
{
	int pipefd[2];
	char c;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid) {
		close(pipefd[0]);
		*go = pipefd[1];
		return pid;
	}
	close(pipefd[1]);
	if (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
		_exit(10);
	/*
	 * Changing credentials made the process non-dumpable.  Without
	 * weights w[] to check, it stays so, as a set-user-ID program is.
	 */
	prctl(PR_SET_DUMPABLE, w ? 1 : 0);
	if (read(pipefd[0], &c, 1) != 1)
		_exit(11);
	if (c != 'v')
		_exit(0);
	_exit(wi_vma_misplaced(nodes, w, nr) ? 12 : 0);
}

static int finish_target(pid_t pid, int go, char c)
{
	int status;

	if (write(go, &c, 1) != 1)
		return -1;
	close(go);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Another process sets the weights through a pidfd; the target obeys. */
TEST_F(weights, remote_set)
{
	unsigned int ones[] = { 1, 1, 1, 1 }, own[] = { 3, 1, 2, 1 };
	uint8_t vec[WI_WEIGHTS_MAX_NODES], got[WI_WEIGHTS_MAX_NODES];
	int go, pidfd;
	pid_t pid;

	WI_TEST_START();
	ASSERT_EQ(0, wi_set_weights(self->nodes, ones, self->nr));
	pid = spawn_target(self->nodes, own, self->nr, 0, &go);
	ASSERT_LT(0, pid);
	pidfd = wi_pidfd_open(pid);
	ASSERT_LE(0, pidfd);
	wi_weights_vec(vec, sizeof(vec), self->nodes, own, self->nr);
	EXPECT_EQ(0, wi_set_task_weights(pidfd, vec, self->nr_node_ids, 0));
	EXPECT_EQ(self->nr_node_ids,
		  wi_get_task_weights(pidfd, got, self->nr_node_ids, 0));
	EXPECT_EQ(0, memcmp(got, vec, self->nr_node_ids));
	/* The caller's own weights did not change. */
	EXPECT_EQ(self->nr_node_ids,
		  wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, got,
				      self->nr_node_ids, 0));
	EXPECT_EQ(0, got[self->nodes[0]]);
	EXPECT_EQ(0, finish_target(pid, go, 'v'));
	close(pidfd);
}

/* Capabilities as_user() can drop (all below 32). */
#define DROP(cap)	(1u << (cap))

/* Run fn in a child with the given uid, without the capabilities drop. */
static int as_user(uid_t uid, unsigned int drop, int (*fn)(int), int arg)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (uid && (setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(100);
		if (drop) {
			if (syscall(SYS_capget, &h, d))
				_exit(101);
			d[0].effective &= ~drop;
			d[0].permitted &= ~drop;
			d[0].inheritable &= ~drop;
			if (syscall(SYS_capset, &h, d))
				_exit(102);
		}
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Exit status: 0 on success, the errno of the failure otherwise. */
static int try_set(int pidfd)
{
	uint8_t vec[WI_WEIGHTS_MAX_NODES] = { 0 };
	int mem[WI_MAX_NODES];

	if (wi_memory_nodes(mem, WI_MAX_NODES) < 1)
		return 99;
	vec[mem[0]] = 2;
	if (wi_set_task_weights(pidfd, vec, mem[0] + 1, 0))
		return errno;
	return 0;
}

static int try_get(int pidfd)
{
	uint8_t vec[WI_WEIGHTS_MAX_NODES];

	if (wi_get_task_weights(pidfd, vec, sizeof(vec), 0) < 0)
		return errno;
	return 0;
}

/*
 * Permissions, one case per branch of the rule.  The target runs as
 * OTHER_UID.  Its own process may; the same user may (ptrace access);
 * another user may not (no ptrace access); root may, but not without
 * CAP_SYS_PTRACE (no ptrace access to another user's process) nor without
 * CAP_SYS_NICE (the target is another user's, though ptrace access is
 * granted).  Reading takes ptrace access only.
 */
TEST_F(weights, permissions)
{
	unsigned int own[] = { 1, 1, 1, 1 };
	int go, pidfd;
	pid_t pid;

	WI_TEST_START();
	pid = spawn_target(self->nodes, own, self->nr, OTHER_UID, &go);
	ASSERT_LT(0, pid);
	pidfd = wi_pidfd_open(pid);
	ASSERT_LE(0, pidfd);

	EXPECT_EQ(0, as_user(0, 0, try_set, pidfd));
	EXPECT_EQ(0, as_user(OTHER_UID, 0, try_set, pidfd));
	EXPECT_EQ(0, as_user(OTHER_UID, 0, try_get, pidfd));
	EXPECT_EQ(EPERM, as_user(NOBODY_UID, 0, try_set, pidfd));
	EXPECT_EQ(EPERM, as_user(NOBODY_UID, 0, try_get, pidfd));
	EXPECT_EQ(EPERM, as_user(0, DROP(CAP_SYS_PTRACE), try_set, pidfd));
	EXPECT_EQ(EPERM, as_user(0, DROP(CAP_SYS_PTRACE), try_get, pidfd));
	EXPECT_EQ(EPERM, as_user(0, DROP(CAP_SYS_NICE), try_set, pidfd));
	/* Reading needs no CAP_SYS_NICE. */
	EXPECT_EQ(0, as_user(0, DROP(CAP_SYS_NICE), try_get, pidfd));

	EXPECT_EQ(0, finish_target(pid, go, 'x'));
	close(pidfd);
}

/*
 * A process that made itself non-dumpable (as a set-user-ID program is)
 * refuses ptrace access to its own user: its weights are out of that
 * user's reach; root, with CAP_SYS_PTRACE, still may.
 */
TEST_F(weights, permissions_nondumpable)
{
	int go, pidfd;
	pid_t pid;

	WI_TEST_START();
	pid = spawn_target(self->nodes, NULL, self->nr, OTHER_UID, &go);
	ASSERT_LT(0, pid);
	pidfd = wi_pidfd_open(pid);
	ASSERT_LE(0, pidfd);
	EXPECT_EQ(EPERM, as_user(OTHER_UID, 0, try_set, pidfd));
	EXPECT_EQ(EPERM, as_user(OTHER_UID, 0, try_get, pidfd));
	EXPECT_EQ(0, as_user(0, 0, try_set, pidfd));
	EXPECT_EQ(0, finish_target(pid, go, 'x'));
	close(pidfd);
}

/*
 * A kernel thread has no address space and no weights: EINVAL, as
 * migrate_pages(2) answers for one.  kthreadd is PID 2.
 */
TEST_F(weights, kernel_thread)
{
	uint8_t vec[WI_WEIGHTS_MAX_NODES] = { 0 };
	char comm[32] = "";
	int pidfd;

	WI_TEST_START();
	wi_read_file("/proc/2/comm", comm, sizeof(comm));
	if (strncmp(comm, "kthreadd", 8))
		SKIP(return, "PID 2 is not kthreadd here");
	pidfd = wi_pidfd_open(2);
	ASSERT_LE(0, pidfd);
	vec[self->nodes[0]] = 2;
	errno = 0;
	EXPECT_EQ(-1, wi_set_task_weights(pidfd, vec, self->nr_node_ids, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, wi_set_task_weights(pidfd, NULL, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, wi_get_task_weights(pidfd, vec, self->nr_node_ids, 0));
	EXPECT_EQ(EINVAL, errno);
	close(pidfd);
}

static void *park(void *arg)
{
	int fd = *(int *)arg;
	char c;

	_exit(read(fd, &c, 1) == 1 ? 0 : 11);
	return NULL;
}

/*
 * Wait, a bounded number of polls, until the leader of process @pid is a
 * zombie ("Z" in its stat).  Its stat line goes to @state.
 */
static bool leader_is_zombie(pid_t pid, char *state, size_t len)
{
	char path[64];
	int i;

	state[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 20000 && !strstr(state, ") Z "); i++) {
		usleep(1000);
		wi_read_file(path, state, len);
	}
	return strstr(state, ") Z ") != NULL;
}

/*
 * The thread group leader has exited while another thread runs on: the
 * process is alive, its weights can be set and read through its pidfd.
 */
TEST_F(weights, leader_exited)
{
	uint8_t vec[WI_WEIGHTS_MAX_NODES] = { 0 }, got[WI_WEIGHTS_MAX_NODES];
	int pipefd[2], pidfd, status;
	char state[512];
	pthread_t th;
	pid_t pid;

	WI_TEST_START();
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pipefd[1]);
		if (pthread_create(&th, NULL, park, &pipefd[0]))
			_exit(12);
		pthread_exit(NULL);
	}
	close(pipefd[0]);
	pidfd = wi_pidfd_open(pid);
	ASSERT_LE(0, pidfd);
	ASSERT_TRUE(leader_is_zombie(pid, state, sizeof(state)))
		TH_LOG("%s", state);

	vec[self->nodes[0]] = 2;
	EXPECT_EQ(0, wi_set_task_weights(pidfd, vec, self->nr_node_ids, 0));
	EXPECT_EQ(self->nr_node_ids,
		  wi_get_task_weights(pidfd, got, self->nr_node_ids, 0));
	EXPECT_EQ(0, memcmp(got, vec, self->nr_node_ids));

	ASSERT_EQ(1, write(pipefd[1], "x", 1));
	close(pipefd[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(pidfd);
}

/*
 * The thread left after its leader exited: once told to, it makes the
 * process non-dumpable (as a set-user-ID program does), says so, and
 * waits for the byte that ends the process.
 */
static void *nondumpable_later(void *arg)
{
	int *fds = arg;	/* fds[0]: orders in, fds[1]: answers out */
	char c;

	if (read(fds[0], &c, 1) != 1 || prctl(PR_SET_DUMPABLE, 0) ||
	    write(fds[1], "d", 1) != 1)
		_exit(13);
	_exit(read(fds[0], &c, 1) == 1 ? 0 : 14);
	return NULL;
}

/*
 * A process of OTHER_UID whose leader exits while it is dumpable; the
 * thread left makes the process non-dumpable afterwards.  Returns its pid,
 * or -1; *go takes the byte that ends it.
 */
static pid_t spawn_leaderless(int *go)
{
	int orders[2], answers[2];
	char state[512], c;
	static int fds[2];
	pthread_t th;
	pid_t pid;

	if (pipe(orders) || pipe(answers))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fds[0] = orders[0];
		fds[1] = answers[1];
		if (setresgid(OTHER_UID, OTHER_UID, OTHER_UID) ||
		    setresuid(OTHER_UID, OTHER_UID, OTHER_UID))
			_exit(10);
		/* Changing credentials made it non-dumpable: undo that. */
		if (prctl(PR_SET_DUMPABLE, 1))
			_exit(11);
		if (pthread_create(&th, NULL, nondumpable_later, fds))
			_exit(12);
		pthread_exit(NULL);
	}
	close(orders[0]);
	close(answers[1]);
	*go = orders[1];
	if (!leader_is_zombie(pid, state, sizeof(state)) ||
	    write(*go, "d", 1) != 1 ||
	    read(answers[0], &c, 1) != 1)
		pid = -1;
	close(answers[0]);
	return pid;
}

/*
 * The rule holds for a process whose leader has exited: the check is made
 * on the thread whose address space the weights belong to, as mm_access()
 * makes it for /proc/PID/mem.  A check on the exited leader would not see
 * that the process made itself non-dumpable after the leader left, and
 * would let its own user in; the user gets EPERM, as ptrace access is
 * refused.  Root, with CAP_SYS_PTRACE and CAP_SYS_NICE, still may.
 */
TEST_F(weights, leader_exited_nondumpable)
{
	int go, pidfd, status;
	pid_t pid;

	WI_TEST_START();
	pid = spawn_leaderless(&go);
	ASSERT_LT(0, pid);
	pidfd = wi_pidfd_open(pid);
	ASSERT_LE(0, pidfd);
	EXPECT_EQ(EPERM, as_user(OTHER_UID, 0, try_set, pidfd));
	EXPECT_EQ(EPERM, as_user(OTHER_UID, 0, try_get, pidfd));
	EXPECT_EQ(EPERM, as_user(0, DROP(CAP_SYS_PTRACE), try_set, pidfd));
	EXPECT_EQ(0, as_user(0, 0, try_set, pidfd));
	EXPECT_EQ(0, as_user(0, 0, try_get, pidfd));
	ASSERT_EQ(1, write(go, "x", 1));
	close(go);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(pidfd);
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL
#endif

struct thread_pipe {
	int go[2];	/* the thread waits for a byte on go[0] */
	int tid[2];	/* and first writes its thread id to tid[1] */
};

static void *wait_on_pipe(void *arg)
{
	struct thread_pipe *tp = arg;
	pid_t tid = syscall(SYS_gettid);
	char c;

	if (write(tp->tid[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	return (void *)(long)(read(tp->go[0], &c, 1) == 1);
}

/*
 * A pidfd for a thread other than the leader (pidfd_open(PIDFD_THREAD),
 * Linux 6.9 and later) names the thread's process: its weights can be set
 * and read through it.  Older kernels refuse the flag: skipped.
 */
TEST_F(weights, thread_pidfd)
{
	uint8_t vec[WI_WEIGHTS_MAX_NODES] = { 0 }, got[WI_WEIGHTS_MAX_NODES];
	struct thread_pipe tp;
	pthread_t th;
	pid_t tid;
	int pidfd;
	void *ok;

	WI_TEST_START();
	ASSERT_EQ(0, pipe(tp.go));
	ASSERT_EQ(0, pipe(tp.tid));
	ASSERT_EQ(0, pthread_create(&th, NULL, wait_on_pipe, &tp));
	ASSERT_EQ((ssize_t)sizeof(tid), read(tp.tid[0], &tid, sizeof(tid)));
	ASSERT_NE(getpid(), tid);
	pidfd = syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (pidfd < 0 && errno == EINVAL) {
		ASSERT_EQ(1, write(tp.go[1], "x", 1));
		pthread_join(th, NULL);
		SKIP(return, "kernel without PIDFD_THREAD");
	}
	ASSERT_LE(0, pidfd);
	vec[self->nodes[0]] = 5;
	EXPECT_EQ(0, wi_set_task_weights(pidfd, vec, self->nr_node_ids, 0))
		TH_LOG("set through a thread pidfd: %s", strerror(errno));
	memset(got, 0xaa, sizeof(got));
	EXPECT_EQ(self->nr_node_ids,
		  wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, got,
				      self->nr_node_ids, 0));
	EXPECT_EQ(0, memcmp(got, vec, self->nr_node_ids));
	memset(got, 0xaa, sizeof(got));
	EXPECT_EQ(self->nr_node_ids,
		  wi_get_task_weights(pidfd, got, self->nr_node_ids, 0))
		TH_LOG("get through a thread pidfd: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(got, vec, self->nr_node_ids));
	ASSERT_EQ(1, write(tp.go[1], "x", 1));
	ASSERT_EQ(0, pthread_join(th, &ok));
	EXPECT_EQ((void *)1, ok);
	close(pidfd);
}

/* The weights after a failed call are the ones before it. */
static void expect_unchanged(struct __test_metadata *_metadata,
			     FIXTURE_DATA(weights) *self, const char *what)
{
	uint8_t now[WI_WEIGHTS_MAX_NODES];

	ASSERT_EQ(self->nr_node_ids,
		  wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, now,
				      self->nr_node_ids, 0));
	EXPECT_EQ(0, memcmp(now, self->before, self->nr_node_ids))
		TH_LOG("weights changed by a failed call: %s", what);
}

#define EXPECT_FAIL(err, call) do {					\
	errno = 0;							\
	EXPECT_EQ(-1, (call));						\
	EXPECT_EQ(err, errno);						\
	expect_unchanged(_metadata, self, #call);			\
} while (0)

TEST_F(weights, errors_leave_weights_unchanged)
{
	unsigned int own[] = { 4, 3, 2, 1 };
	uint8_t big[WI_WEIGHTS_MAX_NODES + 1], vec[WI_WEIGHTS_MAX_NODES];
	int possible[WI_MAX_NODES], mem[WI_MAX_NODES], np, nm, i, j;
	int devnull, memless = -1;
	void *unmapped;
	long n = self->nr_node_ids;

	WI_TEST_START();
	wi_weights_vec(self->before, sizeof(self->before), self->nodes, own,
		    self->nr);
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP,
					 self->before, n, 0));
	memcpy(vec, self->before, sizeof(vec));

	/* Unknown flags. */
	EXPECT_FAIL(EINVAL, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP,
						vec, n, 1));
	EXPECT_FAIL(EINVAL, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP,
						vec, n, 1u << 31));
	EXPECT_FAIL(EINVAL, wi_get_task_weights(PIDFD_SELF_THREAD_GROUP,
						vec, n, 2));

	/* A weight past the last node id; too many entries. */
	memset(big, 0, sizeof(big));
	memcpy(big, self->before, n);
	big[WI_WEIGHTS_MAX_NODES - 1] = 1;
	EXPECT_FAIL(EINVAL, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, big,
						WI_WEIGHTS_MAX_NODES, 0));
	big[WI_WEIGHTS_MAX_NODES - 1] = 0;
	big[n] = 1;
	EXPECT_FAIL(EINVAL, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, big,
						n + 1, 0));
	big[n] = 0;
	EXPECT_FAIL(EINVAL, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, big,
						WI_WEIGHTS_MAX_NODES + 1, 0));
	EXPECT_FAIL(EINVAL, wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, big,
						WI_WEIGHTS_MAX_NODES + 1, 0));
	/* Zeros past the last node id are fine. */
	EXPECT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, big,
					 WI_WEIGHTS_MAX_NODES, 0));
	expect_unchanged(_metadata, self, "zero tail");

	/* A weight for a possible node without memory. */
	np = wi_possible_nodes(possible, WI_MAX_NODES);
	nm = wi_memory_nodes(mem, WI_MAX_NODES);
	for (i = 0; i < np && memless < 0; i++) {
		for (j = 0; j < nm && mem[j] != possible[i]; j++)
			;
		if (j == nm)
			memless = possible[i];
	}
	if (memless >= 0) {
		vec[memless] = 3;
		EXPECT_FAIL(EINVAL, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP,
							vec, n, 0));
		vec[memless] = 0;
	} else {
		TH_LOG("no possible node without memory: case not covered");
	}

	/* Bad buffers. */
	unmapped = mmap(NULL, WI_PAGE_SIZE, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, unmapped);
	EXPECT_FAIL(EFAULT, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP,
						unmapped, n, 0));
	EXPECT_FAIL(EFAULT, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP,
						NULL, n, 0));
	EXPECT_FAIL(EFAULT, wi_get_task_weights(PIDFD_SELF_THREAD_GROUP,
						unmapped, n, 0));
	/* The tail past nr_node_ids is read too. */
	EXPECT_FAIL(EFAULT, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP,
				(uint8_t *)unmapped - n, n + 16, 0));
	munmap(unmapped, WI_PAGE_SIZE);

	/* Bad pidfds. */
	devnull = open("/dev/null", O_RDONLY);
	ASSERT_LE(0, devnull);
	EXPECT_FAIL(EBADF, wi_set_task_weights(-1, vec, n, 0));
	EXPECT_FAIL(EBADF, wi_set_task_weights(devnull, vec, n, 0));
	EXPECT_FAIL(EBADF, wi_get_task_weights(devnull, vec, n, 0));
	close(devnull);
}

/* A target that has exited: zombie, then reaped. */
TEST_F(weights, exited_target)
{
	uint8_t vec[WI_WEIGHTS_MAX_NODES] = { 0 };
	siginfo_t info;
	int pidfd;
	pid_t pid;

	WI_TEST_START();
	vec[self->nodes[0]] = 2;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(0);
	pidfd = wi_pidfd_open(pid);
	ASSERT_LE(0, pidfd);
	/* Wait until it is a zombie, without reaping it. */
	ASSERT_EQ(0, waitid(P_PID, pid, &info, WEXITED | WNOWAIT));
	errno = 0;
	EXPECT_EQ(-1, wi_set_task_weights(pidfd, vec, self->nr_node_ids, 0));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(-1, wi_get_task_weights(pidfd, vec, self->nr_node_ids, 0));
	EXPECT_EQ(ESRCH, errno);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	errno = 0;
	EXPECT_EQ(-1, wi_set_task_weights(pidfd, vec, self->nr_node_ids, 0));
	EXPECT_EQ(ESRCH, errno);
	close(pidfd);
}

/*
 * Without the series the calls do not exist: the probe must say so, not
 * misreport support.  Runs on every kernel.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
TEST(probe_matches_kernel)
{
	int supported = wi_task_weights_supported();

	if (wi_is_project_kernel()) {
		EXPECT_EQ(1, supported);
	} else {
		TH_LOG("upstream kernel: the calls must be missing (ENOSYS)");
		EXPECT_EQ(0, supported);
		errno = 0;
		EXPECT_EQ(-1, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP,
						  NULL, 0, 0));
		EXPECT_EQ(ENOSYS, errno);
	}
}

TEST_HARNESS_MAIN
