// SPDX-License-Identifier: GPL-2.0
/*
 * The placements on the host's kernel, with a real process: which
 * mappings each steers (numa_maps' policies), and bwapd's own migration
 * (place_migrate.c) passing over the process's pages with move_pages(2):
 * every page found, none out of place where the layout is one node, a
 * pass that finds nothing changed reads no page, and the pages of a new
 * mapping found by the next pass.  And the process gone between any two
 * of bwapd's looks at its files in /proc: bwapd says it exited.  The layout across nodes is checked
 * in the test machine (selftests/bwapd/bwapd.sh), which has four.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/filter.h>
#include <sched.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "bwapd_test.h"
#include "placement.h"
#include "process.h"
#include "topology.h"
#include "wi_abi.h"

#define PAGES	1024

/*
 * A child with a mapping of PAGES pages under policy mode on node 0
 * (mbind(2): its other memory keeps the default policy), and one more
 * for each byte it reads from go[0]; it writes to ready[1] when it is
 * ready.
 */
static void touch(int mode, long page)
{
	char *p = mmap(NULL, PAGES * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long mask = 1;
	long i;

	if (p == MAP_FAILED)
		_exit(2);
	madvise(p, PAGES * (size_t)page, MADV_NOHUGEPAGE);
	if (mode >= 0 && syscall(SYS_mbind, p, PAGES * (size_t)page, mode,
				 &mask, 8 * sizeof(mask) + 1, 0))
		_exit(3);
	for (i = 0; i < PAGES; i++)
		p[i * page] = 1;
}

static pid_t holder(int mode, int ready[2], int go[2])
{
	long page = sysconf(_SC_PAGESIZE);
	pid_t pid = fork();
	char c;

	if (pid)
		return pid;
	do {
		touch(mode, page);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
	} while (read(go[0], &c, 1) == 1);
	_exit(0);
}

/*
 * The process that dies at the doomed_at-th file of /proc/PID that
 * bwapd opens as a stream (counted in proc_opens): it is killed and
 * reaped just before that open, as a process may exit between any two
 * of bwapd's looks.
 */
static pid_t doomed = -1;
static int doomed_at, proc_opens;

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*next)(const char *, const char *);
	char dir[32];
	int st;

	if (!next)
		next = (FILE *(*)(const char *, const char *))
			dlsym(RTLD_NEXT, "fopen");
	snprintf(dir, sizeof(dir), "/proc/%d/", (int)doomed);
	if (doomed > 0 && !strncmp(path, dir, strlen(dir)) &&
	    ++proc_opens == doomed_at) {
		kill(doomed, SIGKILL);
		waitpid(doomed, &st, 0);
		doomed = -1;
	}
	return next(path, mode);
}

FIXTURE(place)
{
	struct bwapd_topology topo;
	struct bwapd_target t;
	int ready[2], go[2];
	pid_t pid;
};

FIXTURE_SETUP(place)
{
	char why[512] = "";

	ASSERT_EQ(0, bwapd_topology_read("", &self->topo, why, sizeof(why)))
		TH_LOG("%s", why);
	ASSERT_EQ(0, pipe(self->ready));
	ASSERT_EQ(0, pipe(self->go));
	self->pid = -1;
}

FIXTURE_TEARDOWN(place)
{
	int st;

	if (self->t.ops)
		bwapd_target_close(&self->t);
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, &st, 0);
	}
	close(self->ready[0]);
	close(self->ready[1]);
	close(self->go[0]);
	close(self->go[1]);
}

static int wait_ready(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

static uint64_t steered(struct bwapd_target *t)
{
	uint64_t pages[BWAPD_MAX_NODES], sum = 0;
	int j;

	if (t->ops->pages(t, pages, t->nr_nodes))
		return UINT64_MAX;
	for (j = 0; j < t->nr_nodes; j++)
		sum += pages[j];
	return sum;
}

/* Interleave is bwapd's migration's to steer; the own weights' are not. */
TEST_F(place, policies_each_placement_steers)
{
	self->pid = holder(MPOL_INTERLEAVE, self->ready, self->go);
	ASSERT_EQ(0, wait_ready(self->ready[0]));
	ASSERT_EQ(0, bwapd_target_process(&self->t, self->pid,
					  self->topo.nr_nodes, &self->topo))
		TH_LOG("%s", self->t.why);
	EXPECT_STREQ("weights", self->t.placement);
	EXPECT_EQ(0ULL, steered(&self->t));
	bwapd_target_process_place(&self->t, BWAPD_PLACE_MIGRATE, "", 0);
	EXPECT_STREQ("migrate", self->t.placement);
	EXPECT_EQ(1, self->t.leave_out);
	EXPECT_EQ((uint64_t)PAGES, steered(&self->t));
}

/* A process under the default policy: nothing for any placement to steer. */
TEST_F(place, default_policy_steers_nothing)
{
	self->pid = holder(-1, self->ready, self->go);
	ASSERT_EQ(0, wait_ready(self->ready[0]));
	ASSERT_EQ(0, bwapd_target_process(&self->t, self->pid,
					  self->topo.nr_nodes, &self->topo));
	bwapd_target_process_place(&self->t, BWAPD_PLACE_MIGRATE, "", 0);
	EXPECT_EQ(0ULL, steered(&self->t));
}

TEST_F(place, migrate_passes)
{
	struct bwapd_migrate_opts o = { .batch = 256 };
	struct bwapd_migration m;
	uint8_t w[BWAPD_MAX_NODES];
	int j;

	self->pid = holder(MPOL_INTERLEAVE, self->ready, self->go);
	ASSERT_EQ(0, wait_ready(self->ready[0]));
	ASSERT_EQ(0, bwapd_target_process(&self->t, self->pid,
					  self->topo.nr_nodes, &self->topo));
	bwapd_target_process_place(&self->t, BWAPD_PLACE_MIGRATE, "", 0);
	/* weights that leave out every node are refused, and change nothing */
	memset(w, 0, sizeof(w));
	EXPECT_EQ(-EINVAL, self->t.ops->set_weights(&self->t, w,
						     self->t.nr_nodes));
	EXPECT_NE(NULL, strstr(self->t.why, "leave out every node"));
	/* every page on node 0, where the layout wants every page here */
	for (j = 0; j < self->t.nr_nodes; j++)
		w[j] = j ? 0 : 1;
	ASSERT_EQ(0, self->t.ops->set_weights(&self->t, w, self->t.nr_nodes));
	ASSERT_EQ(0, self->t.ops->migrate(&self->t, w, self->t.nr_nodes, &o,
					  &m)) TH_LOG("%s", self->t.why);
	EXPECT_EQ((uint64_t)PAGES, m.pages);
	EXPECT_LE((uint64_t)PAGES, m.asked);
	EXPECT_EQ(0ULL, m.moved);
	EXPECT_EQ(0ULL, m.failed);
	/* nothing changed since: the pass reads numa_maps, asks for no page */
	ASSERT_EQ(0, self->t.ops->migrate(&self->t, w, self->t.nr_nodes, &o,
					  &m));
	EXPECT_EQ((uint64_t)PAGES, m.pages);
	EXPECT_EQ(0ULL, m.asked);
	EXPECT_EQ(0ULL, m.moved);
	/*
	 * a new mapping: the next pass finds its pages, asking for them (and
	 * for the old ones where the two mappings merged into one)
	 */
	ASSERT_EQ(1, write(self->go[1], "g", 1));
	ASSERT_EQ(0, wait_ready(self->ready[0]));
	ASSERT_EQ(0, self->t.ops->migrate(&self->t, w, self->t.nr_nodes, &o,
					  &m));
	EXPECT_EQ((uint64_t)2 * PAGES, m.pages);
	EXPECT_LE((uint64_t)PAGES, m.asked);
	EXPECT_GE((uint64_t)2 * PAGES + 2, m.asked);
	EXPECT_EQ(0ULL, m.failed);
	/* the process gone: the pass says so */
	kill(self->pid, SIGKILL);
	waitpid(self->pid, &j, 0);
	self->pid = -1;
	EXPECT_EQ(-ESRCH, self->t.ops->migrate(&self->t, w, self->t.nr_nodes,
					       &o, &m));
}

/*
 * The process gone before each file of /proc/PID that a count of its
 * pages and a pass of the migration read, in turn: each says it exited
 * (-ESRCH), never another error, until a count and a pass that read
 * them all with the process alive.
 */
TEST_F(place, process_gone_between_looks)
{
	struct bwapd_migrate_opts o = { .batch = 256 };
	struct bwapd_migration m;
	uint8_t w[BWAPD_MAX_NODES] = { 1 };
	uint64_t pages[BWAPD_MAX_NODES];
	int at, ret, gone;

	for (at = 1; at < 64; at++) {
		self->pid = holder(MPOL_INTERLEAVE, self->ready, self->go);
		ASSERT_EQ(0, wait_ready(self->ready[0]));
		ASSERT_EQ(0, bwapd_target_process(&self->t, self->pid,
						  self->topo.nr_nodes,
						  &self->topo));
		bwapd_target_process_place(&self->t, BWAPD_PLACE_MIGRATE, "", 0);
		proc_opens = 0;
		doomed_at = at;
		doomed = self->pid;
		ret = self->t.ops->pages(&self->t, pages, self->t.nr_nodes);
		if (!ret)
			ret = self->t.ops->set_weights(&self->t, w,
						       self->t.nr_nodes);
		if (!ret)
			ret = self->t.ops->migrate(&self->t, w, self->t.nr_nodes,
						   &o, &m);
		gone = doomed < 0;
		doomed = -1;
		EXPECT_EQ(gone ? -ESRCH : 0, ret)
			TH_LOG("gone before open %d of /proc/%d: %s", at,
			       (int)self->pid, self->t.why);
		bwapd_target_close(&self->t);
		memset(&self->t, 0, sizeof(self->t));
		if (gone) {
			self->pid = -1;
			continue;
		}
		/* the looks all done alive: every open had its turn */
		TH_LOG("%d opens of /proc/%d, the process gone before each",
		       at - 1, (int)self->pid);
		EXPECT_LT(1, at);
		return;
	}
	EXPECT_LT(at, 64) TH_LOG("more than 63 opens of /proc/PID");
}

/*
 * A runtime's reservation: 64 GiB under interleave, 16 pages of it
 * touched.  A pass asks where the present pages are, not every page of
 * the mapping (PAGEMAP_SCAN skips the rest).
 */
TEST_F(place, sparse_mapping_asks_only_present_pages)
{
	struct bwapd_migrate_opts o = { .batch = 256 };
	struct bwapd_migration m;
	uint8_t w[BWAPD_MAX_NODES] = { 1 };
	size_t len = (size_t)64 << 30;
	long page = sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/pagemap", O_RDONLY);
	long r = ioctl(fd, _IOWR('f', 16, char[96]), NULL);	/* PAGEMAP_SCAN */

	close(fd);
	if (r < 0 && errno == ENOTTY)
		SKIP(return, "a kernel without PAGEMAP_SCAN (Linux 6.7) asks every page");
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (!self->pid) {
		unsigned long mask = 1;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
			       MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		int i;

		if (p == MAP_FAILED ||
		    syscall(SYS_mbind, p, len, MPOL_INTERLEAVE, &mask,
			    8 * sizeof(mask) + 1, 0))
			_exit(2);
		madvise(p, len, MADV_NOHUGEPAGE);
		for (i = 0; i < 16; i++)
			p[(size_t)i * (len / 16)] = 1;
		if (write(self->ready[1], "r", 1) != 1)
			_exit(3);
		for (;;)
			pause();	/* until the teardown's SIGKILL */
	}
	ASSERT_EQ(0, wait_ready(self->ready[0]));
	ASSERT_EQ(0, bwapd_target_process(&self->t, self->pid,
					  self->topo.nr_nodes, &self->topo));
	bwapd_target_process_place(&self->t, BWAPD_PLACE_MIGRATE, "", 0);
	ASSERT_EQ(0, self->t.ops->set_weights(&self->t, w, self->t.nr_nodes));
	ASSERT_EQ(0, self->t.ops->migrate(&self->t, w, self->t.nr_nodes, &o,
					  &m)) TH_LOG("%s", self->t.why);
	EXPECT_EQ(16ULL, m.pages);
	/* the pages of a range PAGEMAP_SCAN reports, a block at most */
	EXPECT_GE(16ULL * 512, m.asked) TH_LOG("asked %llu of %zu pages",
					      (unsigned long long)m.asked,
					      len / (size_t)page);
}

/*
 * Under a seccomp filter, with /proc/kallsyms out of sight (systemd's
 * ProtectKernelTunables= hides it from bwapd.service), a kernel that
 * lacks the weights calls is not taken for one whose filter blocks
 * them: bwapd places the pages another way (Debian's 7.3 kernel under
 * the shipped unit, scripts/system/operator.sh), instead of failing at
 * the first set_mempolicy_weights(2).
 */
TEST(no_weights_calls_under_a_filter_without_kallsyms)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	struct utsname u;
	int status;
	pid_t c;

	if (wi_get_mempolicy_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0UL, 0U) >= 1 ||
	    errno != ENOSYS || (!uname(&u) && strstr(u.release, "-wi")))
		SKIP(return, "this kernel has the weights calls");
	c = fork();
	ASSERT_LE(0, c);
	if (!c) {
		char why[512], note[512];
		int kind;

		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("/dev/null", "/proc/kallsyms", NULL, MS_BIND, NULL))
			_exit(100);	/* no room to hide it */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(101);
		kind = bwapd_place_choose(BWAPD_PLACE_AUTO, "", why, sizeof(why),
					  note, sizeof(note));
		_exit(kind < 0 ? 102 : kind);
	}
	ASSERT_EQ(c, waitpid(c, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 100)
		SKIP(return, "cannot hide /proc/kallsyms (no mount namespace)");
	ASSERT_NE(101, WEXITSTATUS(status));
	EXPECT_NE(BWAPD_PLACE_WEIGHTS, WEXITSTATUS(status));
	EXPECT_NE(102, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
