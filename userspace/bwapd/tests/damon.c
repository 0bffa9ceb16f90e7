// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON's weighted migration (damon.c) on a fake DAMON sysfs: the tree
 * of Debian's 7.3 kernel with one kdamond, one context, two targets and
 * two schemes of three core filters and four destinations each
 * (damon-sysfs.tree, as the kernel lists it; the test machine's
 * bwapd_damon_tree.sh compares it with the kernel's own).  Every file
 * bwapd writes must be one of the kernel's, and holds what bwapd wrote
 * last: the process's scheme - its target, its ranges as address
 * filters, its weights as destinations, --rate as the quota - and the
 * kdamond gone again when the process leaves.  Where the tree has no
 * destinations, or another program's kdamond is there, or damon_stat
 * runs, bwapd refuses, saying why, and leaves the tree as it was.
 * What the kernel then does with the scheme is the test machine's to
 * check (selftests/bwapd/bwapd.sh on Debian's 7.3).
 */
#include "bwapd_test.h"
#include "damon.h"

#define CTX	"kdamonds/0/contexts/0"

FIXTURE(damon) {
	char root[64], run[128], admin[256];
};

/* The kernel's tree, its counts 0 and its kdamond off. */
FIXTURE_SETUP(damon)
{
	char line[512], path[1024];
	size_t n;
	FILE *f;

	ASSERT_NE(NULL, temp_dir(self->root, sizeof(self->root)));
	snprintf(self->run, sizeof(self->run), "%s/run", self->root);
	snprintf(self->admin, sizeof(self->admin), "%s%s", self->root,
		 BWAPD_DAMON_SYSFS);
	f = fopen(BWAPD_TESTS "/damon-sysfs.tree", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		const char *name;

		n = strcspn(line, "\n");
		line[n] = 0;
		if (!n)
			continue;
		if (line[n - 1] == '/') {
			snprintf(path, sizeof(path), "%s/%s", self->admin, line);
			ASSERT_EQ(0, bwapd_mkdirs(path));
			continue;
		}
		name = strrchr(line, '/');
		name = name ? name + 1 : line;
		ASSERT_EQ(0, put(self->admin, line, "%s",
				 !strncmp(name, "nr_", 3) ? "0\n" :
				 !strcmp(name, "state") ? "off\n" :
				 !strcmp(name, "pid") ? "-1\n" : ""));
	}
	fclose(f);
	bwapd_damon_root(self->root);
}

FIXTURE_TEARDOWN(damon)
{
	bwapd_damon_root("");
	rm_tree(self->root);
}

/* What bwapd last wrote into admin/path, without the newline. */
static const char *got(const char *admin, const char *path)
{
	static char buf[256];
	char rel[512];

	snprintf(rel, sizeof(rel), "/%s", path);
	return bwapd_read_text(admin, rel, buf, sizeof(buf)) ? "(missing)" : buf;
}

/* A process's place: weights 3:0:2:1, two ranges, 8 MiB/s. */
static void place(struct bwapd_damon_place *p)
{
	static const uint8_t w[4] = { 3, 0, 2, 1 };

	memset(p, 0, sizeof(*p));
	p->nr_nodes = 4;
	memcpy(p->weights, w, sizeof(w));
	p->nr_ranges = 2;
	p->range[0].start = 0x400000;
	p->range[0].end = 0x800000;
	p->range[1].start = 0x7f0000000000;
	p->range[1].end = 0x7f0000400000;
	p->bytes_per_s = 8 << 20;
}

TEST_F(damon, scheme_as_the_kernel_takes_it)
{
	static const struct { const char *path, *want; } files[] = {
		{ "kdamonds/nr_kdamonds", "1" },
		{ "kdamonds/0/contexts/nr_contexts", "1" },
		{ CTX "/operations", "vaddr" },
		{ CTX "/targets/nr_targets", "1" },
		{ CTX "/schemes/nr_schemes", "1" },
		{ CTX "/schemes/0/action", "migrate_hot" },
		{ CTX "/schemes/0/access_pattern/sz/min", "0" },
		{ CTX "/schemes/0/access_pattern/age/max", "4294967295" },
		{ CTX "/schemes/0/quotas/bytes", "8388608" },
		{ CTX "/schemes/0/quotas/reset_interval_ms", "1000" },
		/* its own target only, then its two ranges */
		{ CTX "/schemes/0/core_filters/nr_filters", "3" },
		{ CTX "/schemes/0/core_filters/0/type", "target" },
		{ CTX "/schemes/0/core_filters/0/damon_target_idx", "0" },
		{ CTX "/schemes/0/core_filters/0/matching", "N" },
		{ CTX "/schemes/0/core_filters/0/allow", "N" },
		{ CTX "/schemes/0/core_filters/1/type", "addr" },
		{ CTX "/schemes/0/core_filters/1/matching", "Y" },
		{ CTX "/schemes/0/core_filters/1/allow", "Y" },
		{ CTX "/schemes/0/core_filters/1/addr_start", "4194304" },
		{ CTX "/schemes/0/core_filters/1/addr_end", "8388608" },
		{ CTX "/schemes/0/core_filters/2/addr_start", "139637976727552" },
		{ CTX "/schemes/0/core_filters/2/addr_end", "139637980921856" },
		/* node 1, of weight 0, left out */
		{ CTX "/schemes/0/dests/nr_dests", "3" },
		{ CTX "/schemes/0/dests/0/id", "0" },
		{ CTX "/schemes/0/dests/0/weight", "3" },
		{ CTX "/schemes/0/dests/1/id", "2" },
		{ CTX "/schemes/0/dests/1/weight", "2" },
		{ CTX "/schemes/0/dests/2/id", "3" },
		{ CTX "/schemes/0/dests/2/weight", "1" },
		{ "kdamonds/0/state", "on" },
	};
	struct bwapd_damon_place p;
	struct bwapd_damon *d = NULL;
	char why[1024] = "", pid[16];
	size_t i;

	place(&p);
	ASSERT_EQ(0, bwapd_damon_open(&d, self->run, getpid(), why, sizeof(why)))
		TH_LOG("%s", why);
	ASSERT_EQ(0, bwapd_damon_set(d, &p, why, sizeof(why))) TH_LOG("%s", why);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	EXPECT_STREQ(pid, got(self->admin, CTX "/targets/0/pid_target"));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[128];

		snprintf(path, sizeof(path), "%s", files[i].path);
		EXPECT_STREQ(files[i].want, got(self->admin, path)) TH_LOG("%s", path);
	}
	/* the process leaves: the kdamond stopped and removed */
	bwapd_damon_close(d);
	EXPECT_STREQ("off", got(self->admin, "kdamonds/0/state"));
	EXPECT_STREQ("0", got(self->admin, "kdamonds/nr_kdamonds"));
}

/* A kernel whose schemes have no destinations (before 6.17). */
TEST_F(damon, no_destinations_refused)
{
	struct bwapd_damon_place p;
	struct bwapd_damon *d = NULL;
	char why[1024] = "", cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -r '%s/" CTX "/schemes/0/dests'", self->admin);
	ASSERT_EQ(0, system(cmd));
	place(&p);
	EXPECT_EQ(-EOPNOTSUPP, bwapd_damon_probe(self->run, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "DAMON here has no weighted destinations"))
		TH_LOG("%s", why);
	ASSERT_EQ(0, bwapd_damon_open(&d, self->run, getpid(), why, sizeof(why)));
	EXPECT_EQ(-EOPNOTSUPP, bwapd_damon_set(d, &p, why, sizeof(why)));
	bwapd_damon_close(d);
	EXPECT_STREQ("0", got(self->admin, "kdamonds/nr_kdamonds"));
}

/* Another program's kdamond: left as it was, and said so. */
TEST_F(damon, another_programs_kdamond_left_alone)
{
	struct bwapd_damon_place p;
	struct bwapd_damon *d = NULL;
	char why[1024] = "";

	ASSERT_EQ(0, put(self->admin, "kdamonds/nr_kdamonds", "1\n"));
	ASSERT_EQ(0, put(self->admin, CTX "/targets/nr_targets", "5\n"));
	place(&p);
	EXPECT_EQ(-EBUSY, bwapd_damon_probe(self->run, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "in use by another program (1 kdamond in "))
		TH_LOG("%s", why);
	ASSERT_EQ(0, bwapd_damon_open(&d, self->run, getpid(), why, sizeof(why)));
	EXPECT_EQ(-EBUSY, bwapd_damon_set(d, &p, why, sizeof(why)));
	bwapd_damon_close(d);
	EXPECT_STREQ("1", got(self->admin, "kdamonds/nr_kdamonds"));
	EXPECT_STREQ("5", got(self->admin, CTX "/targets/nr_targets"));
	EXPECT_STREQ("off", got(self->admin, "kdamonds/0/state"));
}

/* damon_stat on, as Debian boots its kernels: nothing written. */
TEST_F(damon, damon_stat_left_running)
{
	char why[1024] = "";

	ASSERT_EQ(0, put(self->root, "sys/module/damon_stat/parameters/enabled", "Y\n"));
	EXPECT_EQ(-EBUSY, bwapd_damon_probe(self->run, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "DAMON runs for damon_stat")) TH_LOG("%s", why);
	EXPECT_STREQ("0", got(self->admin, "kdamonds/nr_kdamonds"));
	EXPECT_STREQ("off", got(self->admin, "kdamonds/0/state"));
}

TEST_HARNESS_MAIN
