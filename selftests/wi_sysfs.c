// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/mm/mempolicy/weighted_interleave/nodeN: the global weights
 * used by MPOL_WEIGHTED_INTERLEAVE.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wi_harness.h"

#define NOBODY 65534

FIXTURE(wi_sysfs) {
	bool setup_skipped;
	int nr;				/* memory nodes */
	int nodes[WI_MAX_NODES];
};

FIXTURE_SETUP(wi_sysfs)
{
	if (!wi_sysfs_present())
		WI_SETUP_SKIP(WI_SYSFS_DIR " missing: no weighted interleave");
	if (geteuid())
		WI_SETUP_SKIP("must be run as root");
	self->nr = wi_memory_nodes(self->nodes, WI_MAX_NODES);
	ASSERT_LT(0, self->nr);
	wi_state_save();
}

FIXTURE_TEARDOWN(wi_sysfs)
{
	if (self->setup_skipped)
		return;
	EXPECT_EQ(0, wi_state_restore());
}

/* Kernels with weight files for the nodes with memory only (6.16+). */
static bool memory_nodes_only(void)
{
	return wi_is_project_kernel() || wi_upstream_at_least(6, 16);
}

static void kernel_str(char *buf, size_t len)
{
	int ma, mi;

	wi_kernel_version(&ma, &mi);
	snprintf(buf, len, "%d.%d", ma, mi);
}

TEST_F(wi_sysfs, node_files_match_memory_nodes)
{
	int possible[WI_MAX_NODES];
	struct wi_mask mem, files, poss;
	struct dirent *de;
	int i, nposs;
	DIR *d;

	WI_TEST_START();

	wi_mask_from_nodes(&mem, self->nodes, self->nr);
	nposs = wi_possible_nodes(possible, WI_MAX_NODES);
	ASSERT_LT(0, nposs);
	wi_mask_from_nodes(&poss, possible, nposs);

	wi_mask_zero(&files);
	d = opendir(WI_SYSFS_DIR);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d))) {
		char *end;
		long n;

		if (strncmp(de->d_name, "node", 4))
			continue;
		n = strtol(de->d_name + 4, &end, 10);
		EXPECT_TRUE(*end == '\0' && end != de->d_name + 4 &&
			    n >= 0 && n < WI_MAX_NODES)
			TH_LOG("unexpected entry %s", de->d_name);
		if (*end || n < 0 || n >= WI_MAX_NODES)
			continue;
		wi_mask_set(&files, (int)n);
	}
	closedir(d);

	for (i = 0; i < self->nr; i++) {
		EXPECT_TRUE(wi_mask_test(&files, self->nodes[i]))
			TH_LOG("no weight file for memory node %d",
			       self->nodes[i]);
	}

	for (i = 0; i < WI_MAX_NODES; i++) {
		if (!wi_mask_test(&files, i) || wi_mask_test(&mem, i))
			continue;
		if (memory_nodes_only()) {
			/* N_MEMORY nodes only (upstream 6.16+ and this tree). */
			EXPECT_TRUE(false)
				TH_LOG("weight file for node %d without memory", i);
		} else {
			char k[16];

			kernel_str(k, sizeof(k));
			TH_LOG("upstream %s has a file for possible node %d without memory; this tree only has N_MEMORY nodes (deliberate difference)",
			       k, i);
			EXPECT_TRUE(wi_mask_test(&poss, i))
				TH_LOG("weight file for impossible node %d", i);
		}
	}
}

TEST_F(wi_sysfs, file_mode_0644)
{
	char path[128];
	struct stat st;
	int i;

	WI_TEST_START();

	for (i = 0; i < self->nr; i++) {
		wi_weight_path(self->nodes[i], path, sizeof(path));
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s: %s", path,
						     strerror(errno));
		EXPECT_TRUE(S_ISREG(st.st_mode));
		EXPECT_EQ(0644U, st.st_mode & 07777)
			TH_LOG("%s has mode %o", path, st.st_mode & 07777);
		EXPECT_EQ(0U, st.st_uid);
	}
}

/*
 * At boot the weights are those auto mode derives from the HMAT
 * bandwidths (this tree, upstream 6.16 and later), or 1 everywhere on
 * kernels without auto mode.  Setup may have run tests before, but every
 * test puts the auto switch back.
 */
TEST_F(wi_sysfs, default_weights)
{
	unsigned int want[WI_MAX_NODES];
	int i, mode = wi_auto_mode();

	WI_TEST_START();
	if (wi_is_project_kernel() || wi_upstream_at_least(6, 16)) {
		ASSERT_NE(-1, mode) TH_LOG("no auto file");
	}
	for (i = 0; i < WI_MAX_NODES; i++)
		want[i] = 1;
	if (mode == 1) {
		ASSERT_EQ(0, wi_auto_weights(want)) TH_LOG("no HMAT bandwidth");
	}
	if (mode == 0)
		TH_LOG("auto is false: expecting weights of 1");
	for (i = 0; i < self->nr; i++) {
		EXPECT_EQ((int)want[self->nodes[i]],
			  wi_read_weight(self->nodes[i]))
			TH_LOG("node %d", self->nodes[i]);
	}
}

static int write_auto(const char *s)
{
	return wi_write_file(WI_SYSFS_DIR "/auto", s);
}

static void expect_weights(struct __test_metadata *_metadata,
			   FIXTURE_DATA(wi_sysfs) *self,
			   const unsigned int *want, const char *what)
{
	int i;

	for (i = 0; i < self->nr; i++) {
		EXPECT_EQ((int)want[self->nodes[i]],
			  wi_read_weight(self->nodes[i]))
			TH_LOG("%s: node %d", what, self->nodes[i]);
	}
}

/*
 * The auto switch, upstream's ABI: "true"/"false"; any kstrtobool()
 * string switches; a nodeN write switches to manual; "true" derives the
 * weights again; other strings fail with EINVAL and change nothing.
 */
TEST_F(wi_sysfs, auto_switch)
{
	static const char *const bad[] = { "maybe", "\n", "2", "x", "-1" };
	static const char *const on[] = { "1", "y", "Y", "on", "true\n" };
	static const char *const off[] = { "0", "n", "N", "off", "false\n" };
	unsigned int derived[WI_MAX_NODES], now[WI_MAX_NODES];
	struct stat st;
	size_t i;
	int k;

	WI_TEST_START();
	if (wi_auto_mode() < 0) {
		ASSERT_FALSE(wi_is_project_kernel() ||
			     wi_upstream_at_least(6, 16)) TH_LOG("no auto file");
		SKIP(return, "kernel without auto mode (before 6.16)");
	}
	ASSERT_EQ(0, stat(WI_SYSFS_DIR "/auto", &st));
	EXPECT_EQ(0664U, st.st_mode & 07777);
	ASSERT_EQ(0, wi_auto_weights(derived)) TH_LOG("no HMAT bandwidth");

	ASSERT_EQ(0, write_auto("true"));
	EXPECT_EQ(1, wi_auto_mode());
	expect_weights(_metadata, self, derived, "auto");

	/* A weight written by hand ends auto mode and stays. */
	ASSERT_EQ(0, wi_set_weight(self->nodes[0], 7));
	EXPECT_EQ(0, wi_auto_mode());
	EXPECT_EQ(7, wi_read_weight(self->nodes[0]));

	/* Bad strings change nothing, in either mode. */
	for (k = 0; k < 2; k++) {
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			EXPECT_EQ(-EINVAL, write_auto(bad[i]))
				TH_LOG("\"%s\"", bad[i]);
			EXPECT_EQ(k, wi_auto_mode());
		}
		if (!k) {
			EXPECT_EQ(7, wi_read_weight(self->nodes[0]));
			ASSERT_EQ(0, write_auto("1"));
		}
	}
	expect_weights(_metadata, self, derived, "auto again");

	/* Every true and false spelling; false keeps the weights. */
	for (i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
		ASSERT_EQ(0, write_auto(off[i])) TH_LOG("\"%s\"", off[i]);
		EXPECT_EQ(0, wi_auto_mode());
		expect_weights(_metadata, self, derived, off[i]);
		ASSERT_EQ(0, write_auto(on[i])) TH_LOG("\"%s\"", on[i]);
		EXPECT_EQ(1, wi_auto_mode());
	}

	/* "true" while manual derives the weights again. */
	for (k = 0; k < WI_MAX_NODES; k++)
		now[k] = 2;
	ASSERT_EQ(0, wi_set_weights(self->nodes, now, self->nr));
	expect_weights(_metadata, self, now, "manual");
	ASSERT_EQ(0, write_auto("true"));
	expect_weights(_metadata, self, derived, "back to auto");
}

struct good_write {
	const char *buf;
	int value;
};

static const struct good_write good_writes[] = {
	{ "1",		1 },
	{ "255",	255 },
	{ "7\n",	7 },
	{ "0x10",	16 },	/* kstrtou8(), base 0 */
	{ "010",	8 },	/* ... so a leading 0 means octal */
	{ "+3",		3 },
	{ "5\n",	5 },
	{ "2",		2 },
};

TEST_F(wi_sysfs, good_writes_read_back)
{
	int ends[2] = { self->nodes[0], self->nodes[self->nr - 1] };
	size_t i;
	int e;

	WI_TEST_START();

	for (e = 0; e < (self->nr > 1 ? 2 : 1); e++) {
		for (i = 0; i < ARRAY_SIZE(good_writes); i++) {
			const char *s = good_writes[i].buf;
			long ret = wi_write_weight_raw(ends[e], s, strlen(s));

			EXPECT_EQ((long)strlen(s), ret)
				TH_LOG("node%d <- \"%s\": %s", ends[e], s,
				       ret < 0 ? strerror(-ret) : "short write");
			EXPECT_EQ(good_writes[i].value, wi_read_weight(ends[e]))
				TH_LOG("node%d after \"%s\"", ends[e], s);
		}
	}

	/* A write changes that node and nothing else. */
	if (self->nr > 1) {
		ASSERT_EQ(0, wi_set_weight(self->nodes[0], 1));
		ASSERT_EQ(0, wi_set_weight(self->nodes[1], 1));
		ASSERT_EQ(0, wi_set_weight(self->nodes[0], 9));
		EXPECT_EQ(9, wi_read_weight(self->nodes[0]));
		EXPECT_EQ(1, wi_read_weight(self->nodes[1]));
	}
}

/* Rejected by every kernel with weighted interleave. */
static const char * const bad_writes[] = {
	"256", "-1", "abc", "1000", "0x100", "3 4", "1.5", " ", "0x", "4x",
};

/*
 * "0" and an empty line: the node's default weight, on this tree (the
 * weight auto mode derives for the node, 1 without bandwidth data; the
 * weights stay manual) and on upstream 6.9-6.15 (1); upstream 6.16 and
 * later refuse them with EINVAL.
 */
static const char * const zero_writes[] = {
	"0", "0\n", "00", "0x0", "\n",
};

TEST_F(wi_sysfs, bad_writes_rejected)
{
	int node = self->nodes[self->nr - 1];
	unsigned int derived[WI_MAX_NODES];
	int i, dflt = 1;
	char k[16];
	long ret;

	WI_TEST_START();

	kernel_str(k, sizeof(k));
	ASSERT_EQ(0, wi_set_weight(node, 3));

	for (i = 0; i < (int)ARRAY_SIZE(bad_writes); i++) {
		const char *s = bad_writes[i];

		ret = wi_write_weight_raw(node, s, strlen(s));
		EXPECT_EQ(-EINVAL, ret) TH_LOG("\"%s\" gave %ld", s, ret);
		EXPECT_EQ(3, wi_read_weight(node)) TH_LOG("after \"%s\"", s);
	}

	if (wi_is_project_kernel() && wi_auto_weights(derived) == 0)
		dflt = derived[node];
	for (i = 0; i < (int)ARRAY_SIZE(zero_writes); i++) {
		const char *s = zero_writes[i];
		const char *shown = i == 4 ? "\\n" : s;

		ASSERT_EQ(0, wi_set_weight(node, 3));
		ret = wi_write_weight_raw(node, s, strlen(s));
		if (wi_upstream_at_least(6, 16)) {
			TH_LOG("upstream %s refuses \"%s\" with EINVAL; this tree takes it as the node's default weight (deliberate difference)",
			       k, shown);
			EXPECT_EQ(-EINVAL, ret)
				TH_LOG("\"%s\" gave %ld", shown, ret);
			EXPECT_EQ(3, wi_read_weight(node));
			continue;
		}
		EXPECT_EQ((long)strlen(s), ret)
			TH_LOG("\"%s\" gave %ld", shown, ret);
		EXPECT_EQ(dflt, wi_read_weight(node))
			TH_LOG("default weight after \"%s\"", shown);
		if (wi_is_project_kernel())
			EXPECT_EQ(0, wi_auto_mode());
	}

	/* A zero-length write never reaches the attribute. */
	ASSERT_EQ(0, wi_set_weight(node, 3));
	EXPECT_EQ(0, wi_write_weight_raw(node, "", 0));
	EXPECT_EQ(3, wi_read_weight(node));
}

static const char * const child_result[] = {
	"ok", "could not drop privileges", "opened the file for writing",
	"open for writing did not fail with EACCES",
	"O_RDWR open did not fail with EACCES", "could not read the weight",
};

enum {
	CHILD_OK,
	CHILD_SETUID,
	CHILD_WRONLY_OPENED,
	CHILD_WRONLY_ERRNO,
	CHILD_RDWR,
	CHILD_READ,
};

TEST_F(wi_sysfs, write_needs_root)
{
	int node = self->nodes[0];
	char name[32];
	int status, dfd;
	pid_t pid;

	WI_TEST_START();

	snprintf(name, sizeof(name), "node%d", node);
	ASSERT_EQ(0, wi_set_weight(node, 4));
	/*
	 * Look the file up relative to its directory so that only the mode
	 * of the file itself matters, not the rest of the path.
	 */
	dfd = open(WI_SYSFS_DIR, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dfd);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char buf[16];
		long ret;
		int fd;

		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
		    geteuid() != NOBODY)
			_exit(CHILD_SETUID);
		fd = openat(dfd, name, O_WRONLY);
		if (fd >= 0)
			_exit(CHILD_WRONLY_OPENED);
		if (errno != EACCES)
			_exit(CHILD_WRONLY_ERRNO);
		fd = openat(dfd, name, O_RDWR);
		if (fd >= 0 || errno != EACCES)
			_exit(CHILD_RDWR);
		fd = openat(dfd, name, O_RDONLY);
		ret = fd < 0 ? -errno : read(fd, buf, sizeof(buf) - 1);
		if (ret < 0 && fd >= 0)
			ret = -errno;
		if (ret >= 0)
			buf[ret] = '\0';
		if (ret <= 0 || strcmp(buf, "4\n")) {
			fprintf(stderr, "# read as uid %d: %s\n", NOBODY,
				ret < 0 ? strerror((int)-ret) : buf);
			_exit(CHILD_READ);
		}
		_exit(CHILD_OK);
	}
	close(dfd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(CHILD_OK, WEXITSTATUS(status))
		TH_LOG("unprivileged child: %s",
		       WEXITSTATUS(status) <= CHILD_READ ?
		       child_result[WEXITSTATUS(status)] : "unknown");
	EXPECT_EQ(4, wi_read_weight(node));
}

/* ------------------------------------------------------------------ */

/*
 * Each write waits for an RCU grace period, some 20-50 ms in the emulated
 * machine: 200 writes keep the weights changing through a few hundred
 * allocation rounds of every thread.
 */
#define STRESS_WRITES	200
#define STRESS_THREADS	4
#define STRESS_PAGES	64
#define STRESS_SECONDS	60

struct stress {
	int nr;
	int nodes[4];
	struct wi_mask mask;
	atomic_bool stop;
	atomic_long iterations[STRESS_THREADS];
	atomic_long errors[STRESS_THREADS];
	char first_error[STRESS_THREADS][128];
};

struct stress_arg {
	struct stress *s;
	int id;
};

static void stress_fail(struct stress *s, int id, const char *what, long v)
{
	if (!atomic_fetch_add(&s->errors[id], 1))
		snprintf(s->first_error[id], sizeof(s->first_error[id]),
			 "%s (%ld)", what, v);
}

static void *stress_thread(void *p)
{
	struct stress_arg *a = p;
	struct stress *s = a->s;
	bool task_policy = a->id & 1;
	int st[STRESS_PAGES];

	/* Half of the threads use a task policy, half a VMA policy. */
	if (task_policy &&
	    wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &s->mask)) {
		stress_fail(s, a->id, "set_mempolicy", errno);
		return NULL;
	}
	while (!atomic_load(&s->stop)) {
		size_t len = STRESS_PAGES * WI_PAGE_SIZE;
		char *buf = wi_mmap_anon(len);
		int i, node, w;

		if (!buf) {
			stress_fail(s, a->id, "mmap", errno);
			break;
		}
		if (!task_policy &&
		    wi_mbind(buf, len, MPOL_WEIGHTED_INTERLEAVE, &s->mask, 0)) {
			stress_fail(s, a->id, "mbind", errno);
			munmap(buf, len);
			break;
		}
		wi_fault_pages(buf, STRESS_PAGES, WI_PAGE_SIZE);
		if (wi_page_nodes(buf, STRESS_PAGES, WI_PAGE_SIZE, st))
			stress_fail(s, a->id, "move_pages", errno);
		for (i = 0; i < STRESS_PAGES; i++)
			if (!wi_mask_test(&s->mask, st[i]))
				stress_fail(s, a->id, "page outside policy",
					    st[i]);
		node = s->nodes[atomic_load(&s->iterations[a->id]) % s->nr];
		w = wi_read_weight(node);
		if (w < 1 || w > 255)
			stress_fail(s, a->id, "weight read", w);
		munmap(buf, len);
		atomic_fetch_add(&s->iterations[a->id], 1);
	}
	return NULL;
}

TEST_F_TIMEOUT(wi_sysfs, weight_updates_under_load, 600)
{
	struct stress_arg args[STRESS_THREADS];
	pthread_t threads[STRESS_THREADS];
	unsigned int weights[4];
	struct timespec t0, t1;
	struct stress *s;
	long failed = 0, first_err = 0;
	size_t npages;
	int i, *st;
	char *buf;

	WI_TEST_START();

	s = calloc(1, sizeof(*s));
	ASSERT_NE(NULL, s);
	s->nr = wi_pick_nodes(4, s->nodes);
	ASSERT_LT(0, s->nr);
	wi_mask_from_nodes(&s->mask, s->nodes, s->nr);

	for (i = 0; i < STRESS_THREADS; i++) {
		args[i].s = s;
		args[i].id = i;
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, stress_thread,
					    &args[i]));
	}
	/* Make sure every thread is busy before the updates start. */
	for (i = 0; i < STRESS_THREADS; i++)
		while (!atomic_load(&s->iterations[i]) &&
		       !atomic_load(&s->errors[i]))
			usleep(1000);

	/* Each write waits for an RCU grace period: bound the time too. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < STRESS_WRITES; i++) {
		int node = s->nodes[i % s->nr];
		int ret = wi_set_weight(node, 1 + (i * 37) % 255);

		if (ret && !failed++)
			first_err = ret;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec >= STRESS_SECONDS) {
			i++;
			break;
		}
	}
	atomic_store(&s->stop, true);
	TH_LOG("%d weight updates in %ld s", i, (long)(t1.tv_sec - t0.tv_sec));
	for (i = 0; i < STRESS_THREADS; i++)
		pthread_join(threads[i], NULL);

	EXPECT_EQ(0, failed) TH_LOG("%ld weight writes failed, first: %s",
				    failed, strerror((int)-first_err));
	for (i = 0; i < STRESS_THREADS; i++) {
		EXPECT_EQ(0, atomic_load(&s->errors[i]))
			TH_LOG("thread %d: %s", i, s->first_error[i]);
		EXPECT_LT(1, atomic_load(&s->iterations[i]))
			TH_LOG("thread %d did not run during the updates", i);
		TH_LOG("thread %d: %ld allocation rounds", i,
		       atomic_load(&s->iterations[i]));
	}

	/* With the final weights, new allocations follow them exactly. */
	wi_default_weights(s->nr, weights);
	WI_SET_WEIGHTS(s->nodes, weights, s->nr);
	npages = 100 * wi_weight_sum(weights, s->nr);
	buf = wi_mmap_anon(npages * WI_PAGE_SIZE);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, wi_mbind(buf, npages * WI_PAGE_SIZE,
			      MPOL_WEIGHTED_INTERLEAVE, &s->mask, 0))
		TH_LOG("mbind: %s", strerror(errno));
	wi_fault_pages(buf, npages, WI_PAGE_SIZE);
	st = wi_nodes_of(_metadata, buf, npages, WI_PAGE_SIZE);
	wi_check_weighted(_metadata, st, npages,
			  (unsigned long)buf >> WI_PAGE_SHIFT,
			  s->nodes, weights, s->nr);
	free(st);
	munmap(buf, npages * WI_PAGE_SIZE);
	free(s);
}

static void __attribute__((constructor)) wi_sysfs_init(void)
{
	wi_restore_at_exit();
}

TEST_HARNESS_MAIN
