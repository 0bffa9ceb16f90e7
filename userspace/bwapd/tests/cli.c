// SPDX-License-Identifier: GPL-2.0
/*
 * The command line end to end: profile, show and apply on the model and
 * on a fake sysfs tree; bad input (a corrupt or stale weights file, an
 * unknown worker set, no permission) gives a clear error and writes
 * nothing.
 */
#include <signal.h>
#include <sys/wait.h>

#include "bwapd_test.h"

struct run {
	int status;
	char out[65536];
};

/* Run bwapd with args (a shell word list) as uid (-1: as is). */
static int bwapd(struct run *r, int uid, const char *fmt, ...)
{
	char args[2048], cmd[4096];
	va_list ap;
	FILE *p;
	size_t n;
	pid_t pid;
	int fd[2];

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", BWAPD_BIN, args);
	if (uid < 0) {
		p = popen(cmd, "r");
		if (!p)
			return -1;
		n = fread(r->out, 1, sizeof(r->out) - 1, p);
		r->out[n] = 0;
		r->status = pclose(p);
		r->status = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
		return 0;
	}
	if (pipe(fd))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		if (setgid((gid_t)uid) || setuid((uid_t)uid))
			_exit(99);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(98);
	}
	close(fd[1]);
	n = 0;
	for (;;) {
		ssize_t k = read(fd[0], r->out + n, sizeof(r->out) - 1 - n);

		if (k <= 0)
			break;
		n += (size_t)k;
	}
	r->out[n] = 0;
	close(fd[0]);
	waitpid(pid, &r->status, 0);
	r->status = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
	return 0;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

static int weight(const char *root, int node)
{
	char path[128], buf[16];

	snprintf(path, sizeof(path), "/%s/node%d", BWAPD_WEIGHTS_DIR + 1, node);
	return bwapd_read_text(root, path, buf, sizeof(buf)) ? -1 : atoi(buf);
}

FIXTURE(cli)
{
	char dir[64];
	char file[128];
	char a[4096], b[4096];
};

FIXTURE_SETUP(cli)
{
	ASSERT_NE(NULL, temp_dir(self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/w/canonical.json",
		 self->dir);
	preset("bwap-a", self->a, sizeof(self->a));
	preset("bwap-b", self->b, sizeof(self->b));
}

FIXTURE_TEARDOWN(cli)
{
	rm_tree(self->dir);
}

TEST_F(cli, profile_show_apply_model)
{
	struct run r;

	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s profile --seconds 0.5",
			   self->b, self->file));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "15 worker sets: 4 to profile, 7 skipped as symmetric"));
	EXPECT_NE(NULL, strstr(r.out, "4 skipped as spread out"));
	EXPECT_LT(0, file_size(self->file));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show --json 2-3",
			   self->b, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\"workers\": \"2-3\", \"source\": \"counters\", \"same_as\": \"0-1\""))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply --dry-run 0",
			   self->b, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "would change")) TH_LOG("%s", r.out);
}

TEST_F(cli, unknown_worker_set)
{
	struct run r;
	long size;

	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s profile", self->b,
			   self->file));
	ASSERT_EQ(0, r.status);
	size = file_size(self->file);
	/* 0,3 is spread out on B: not profiled */
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply 0,3", self->b,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "no canonical weights for workers 0,3"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply 7", self->b,
			   self->file));
	EXPECT_EQ(1, r.status);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply x", self->b,
			   self->file));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "not a node list"));
	EXPECT_EQ(size, file_size(self->file));
}

TEST_F(cli, corrupt_and_stale_file)
{
	struct run r;
	char cmd[512];

	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show", self->b,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "run \"bwapd profile\" first"));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s profile", self->b,
			   self->file));
	ASSERT_EQ(0, r.status);
	/* made on B, read on A */
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show", self->a,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "stale weights file"));
	EXPECT_NE(NULL, strstr(r.out, "made for a machine with 4 nodes, this one has 8"))
		TH_LOG("%s", r.out);
	/* a weight out of range */
	snprintf(cmd, sizeof(cmd),
		 "sed -i -E '/\"weights\"/,/^ +[0-9]+,$/s/^( +)[0-9]+,$/\\1300,/' %s",
		 self->file);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply 0", self->b,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "worker_sets[0]")) TH_LOG("%s", r.out);
	/* cut in half */
	snprintf(cmd, sizeof(cmd), "truncate -s 300 %s", self->file);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show", self->b,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "not valid JSON")) TH_LOG("%s", r.out);
	/* something else */
	snprintf(cmd, sizeof(cmd), "echo '{\"format\": \"x\"}' > %s", self->file);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show", self->b,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "not a canonical-weights file"));
}

/* The real backend on a fake numa4 sysfs: HMAT fallback, then apply. */
TEST_F(cli, apply_writes_sysfs)
{
	struct run r;

	ASSERT_EQ(0, fake_numa4(self->dir, 1, 1));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s profile", self->dir,
			   self->file));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "counters: unavailable: no memory controller PMU"));
	EXPECT_NE(NULL, strstr(r.out, "weights from hmat (fallback)"));
	/* worker 0: 24000, 20000, 12000, 8571 MB/s -> 22:18:11:8 */
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s apply --dry-run 0",
			   self->dir, self->file));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(1, weight(self->dir, 0));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s apply 0", self->dir,
			   self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "4 of 4 weights changed")) TH_LOG("%s", r.out);
	EXPECT_EQ(22, weight(self->dir, 0));
	EXPECT_EQ(18, weight(self->dir, 1));
	EXPECT_EQ(11, weight(self->dir, 2));
	EXPECT_EQ(8, weight(self->dir, 3));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s apply 0", self->dir,
			   self->file));
	EXPECT_NE(NULL, strstr(r.out, "0 of 4 weights changed"));
}

TEST_F(cli, no_permission)
{
	struct run r;

	if (geteuid() != 0)
		SKIP(return, "needs root to drop to another user");
	ASSERT_EQ(0, fake_numa4(self->dir, 0, 1));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s profile", self->dir,
			   self->file));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "weights from slit (fallback)"));
	ASSERT_EQ(0, chmod(self->dir, 0755));
	ASSERT_EQ(0, bwapd(&r, 65534, "--root %s --file %s apply 0", self->dir,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "only be set by root; nothing written"))
		TH_LOG("%s", r.out);
	EXPECT_EQ(1, weight(self->dir, 0));
	/* nobody may still look */
	ASSERT_EQ(0, bwapd(&r, 65534, "--root %s --file %s apply --dry-run 0",
			   self->dir, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	/* and cannot write the file */
	ASSERT_EQ(0, bwapd(&r, 65534, "--root %s --file %s profile", self->dir,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "Permission denied")) TH_LOG("%s", r.out);
}

/* tune on the model; status while it watches; gone when stopped */
TEST_F(cli, tune_and_status)
{
	char wl[1024], cmd[16384], rd[128];
	struct run r;
	int i, tuner;
	FILE *p;

	snprintf(wl, sizeof(wl), "%s/workloads/mixed.json", BWM_DATADIR);
	snprintf(rd, sizeof(rd), "%s/run", self->dir);
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s --model %s --file %s tune --workload %s --workers 0 --plot %s/plot.svg",
			   rd, self->b, self->file, wl, self->dir));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	snprintf(cmd, sizeof(cmd), "grep -c '<polyline' %s/plot.svg | grep -qx 2 && tail -1 %s/plot.svg | grep -qx '</svg>'",
		 self->dir, self->dir);
	EXPECT_EQ(0, system(cmd)) TH_LOG("the plot has two lines, DWP and stalls");
	EXPECT_NE(NULL, strstr(r.out, "does not exist: canonical weights of workers 0 from a profiling run now"));
	EXPECT_NE(NULL, strstr(r.out, "model: DWP 0.")) TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status", rd));
	EXPECT_NE(NULL, strstr(r.out, "no process is being tuned"));

	/* a tuner that watches for a long time (model time runs fast) */
	snprintf(cmd, sizeof(cmd),
		 "%s --run-dir %s --model %s --file %s tune --workload %s --workers 0 --watch 1e9 >/dev/null 2>&1 & echo $!",
		 BWAPD_BIN, rd, self->b, self->file, wl);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(1, fscanf(p, "%d", &tuner));
	pclose(p);
	for (i = 0; i < 300; i++) {
		ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status --json", rd));
		if (strstr(r.out, "\"watching\""))
			break;
		usleep(50000);
	}
	EXPECT_NE(NULL, strstr(r.out, "\"command\": \"mixed\", \"target\": \"model\", \"workers\": \"0\", \"state\": \"watching\", \"stale\": false"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\"metric\": \"stalls/instruction\""));
	/* stopped: its entry goes */
	ASSERT_EQ(0, kill(tuner, SIGTERM));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status", rd));
		if (strstr(r.out, "no process is being tuned"))
			break;
		usleep(50000);
	}
	EXPECT_NE(NULL, strstr(r.out, "no process is being tuned")) TH_LOG("%s", r.out);
	/* a tuner killed outright leaves a stale entry, shown as such */
	snprintf(cmd, sizeof(cmd), "%s/model-999999.json", rd);
	ASSERT_EQ(0, put("/", cmd + 1, "{\"pid\": 0, \"tuner\": 999999, \"state\": \"tuning\", \"weights\": [1, 2]}\n"));
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status", rd));
	EXPECT_NE(NULL, strstr(r.out, "stale")) TH_LOG("%s", r.out);
}

/* co-scheduled on the model; and what it refuses */
TEST_F(cli, corun)
{
	char be[1024], hi[1024];
	struct run r;

	snprintf(be, sizeof(be), "%s/workloads/bandwidth-bound.json", BWM_DATADIR);
	snprintf(hi, sizeof(hi), "%s/workloads/latency-bound.json", BWM_DATADIR);
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload %s --workers 2-3 --corun %s --corun-workers 0",
			   self->b, self->file, be, hi));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "or more keeps the high-priority job within 2 % of its speed"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s tune --workload %s --workers 2-3 --corun %s",
			   self->b, self->file, be, hi));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "--corun needs --corun-workers"));
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload %s --workers 0-1 --corun %s --corun-workers 1",
			   self->b, self->file, be, hi));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "must run on different nodes")) TH_LOG("%s", r.out);
}

/* tuner parameters out of range: refused, nothing run */
TEST_F(cli, bad_tuner_parameters)
{
	struct run r;

	ASSERT_EQ(0, bwapd(&r, -1, "--model %s tune --workload x --samples 4 --trim 2", self->b));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "bad tuner parameters"));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s tune --workload x --metric fast", self->b));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "bad value 'fast'"));
	ASSERT_EQ(0, bwapd(&r, -1, "exec"));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "no command"));
	ASSERT_EQ(0, bwapd(&r, -1, "tune --pid 0"));
	EXPECT_EQ(2, r.status);
}

/*
 * Memory controller PMUs shaped like real machines, counting on real
 * perf fds (tests/pmu-fixture.sh --standin): counters are read during a
 * real profiling run on the host's node 0 and the weights say so.
 */
TEST_F(cli, profile_counters_on_fixture_pmus)
{
	struct run r;
	char why[256];

	if (!can_count(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, fake_machine(self->dir, 1, 1));
	ASSERT_EQ(0, pmu_fixture(self->dir, "skx", "0", 1));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s profile --seconds 0.2",
			   self->dir, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "counters: 6 PMUs uncore_imc_0..uncore_imc_5, 12 counters"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s show --json 0",
			   self->dir, self->file));
	EXPECT_NE(NULL, strstr(r.out, "\"source\": \"counters\"")) TH_LOG("%s", r.out);
}

/* Every package of a 2-socket machine, Intel and AMD, has counters. */
TEST_F(cli, topology_counters_two_sockets)
{
	static const char *const shapes[] = { "skx", "icx", "zen3", "zen4", "zen4-612" };
	char why[256], dir[128];
	unsigned int i;
	struct run r;

	if (!can_count(why, sizeof(why)))
		SKIP(return, "%s", why);
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", self->dir, shapes[i]);
		ASSERT_EQ(0, mkdir(dir, 0755));
		ASSERT_EQ(0, fake_machine(dir, 2, 1));
		ASSERT_EQ(0, pmu_fixture(dir, shapes[i], "0,1", 1));
		ASSERT_EQ(0, bwapd(&r, -1, "--root %s topology --json", dir));
		EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
		EXPECT_NE(NULL, strstr(r.out, "\"available\": true"))
			TH_LOG("%s: %s", shapes[i], r.out);
	}
}

TEST_HARNESS_MAIN
