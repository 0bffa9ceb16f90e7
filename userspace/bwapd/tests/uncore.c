// SPDX-License-Identifier: GPL-2.0
/*
 * Uncore counters against the sysfs shapes of real machines
 * (tests/pmu-fixture.sh says where each shape comes from): the PMUs
 * found, their encodings, the node every instance counts on every CPU of
 * its cpumask.  With --standin the fixture's PMUs are the kernel's
 * software PMU, so opening, reading and scaling run on real perf file
 * descriptors (system-wide cpu-clock on the host's CPUs 0 and 1).
 */
#include "bwapd_test.h"
#include "backend.h"
#include "uncore.h"

#define DEV "sys/bus/event_source/devices/"

static struct uncore u;

/* A machine of 'nodes' nodes (per_pkg per package) and a PMU shape. */
static int machine(char *dir, size_t len, int nodes, int per_pkg,
		   const char *shape, const char *cpus, int standin,
		   struct bwapd_topology *t)
{
	char why[256];

	if (!temp_dir(dir, len) || fake_machine(dir, nodes, per_pkg) ||
	    pmu_fixture(dir, shape, cpus, standin))
		return -EIO;
	return bwapd_topology_read(dir, t, why, sizeof(why));
}

/* Every node's counters read on real fds, and count. */
static void read_all(struct __test_metadata *_metadata,
		     const struct bwapd_topology *t)
{
	int i;

	for (i = 0; i < t->nr_nodes; i++) {
		uint64_t r = 0, w = 0;

		ASSERT_EQ(0, uncore_read(&u, i, &r, &w));
		EXPECT_LT(0u, r + w) TH_LOG("node %d counted nothing", i);
	}
}

/* Open every counter on real fds, check their number, read them. */
static void count_all(struct __test_metadata *_metadata, const char *dir,
		      const struct bwapd_topology *t, int counters)
{
	char why[256];

	ASSERT_EQ(0, uncore_open(&u, dir, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(counters, u.nr_counters);
	read_all(_metadata, t);
	uncore_close(&u);
}

/* A machine and a PMU shape, discovered. */
static void found(struct __test_metadata *_metadata, char *dir, size_t len,
		  int nodes, int per_pkg, const char *shape, const char *cpus,
		  int standin, struct bwapd_topology *t)
{
	char why[256];

	ASSERT_EQ(0, machine(dir, len, nodes, per_pkg, shape, cpus, standin, t));
	ASSERT_EQ(0, uncore_discover(&u, dir, dir, t, why, sizeof(why)))
		TH_LOG("%s", why);
}

/* Defect: pread() on perf fds fails (ESPIPE), every read was -EIO. */
TEST(read_on_real_fds)
{
	struct bwapd_topology t;
	char dir[64], why[256];

	if (!can_count(why, sizeof(why)))
		SKIP(return, "%s", why);
	found(_metadata, dir, sizeof(dir), 1, 1, "skx", "0", 1, &t);
	count_all(_metadata, dir, &t, 6 * 2);
	rm_tree(dir);
}

/*
 * Defect: an uncore PMU's cpumask names one CPU per package and the same
 * instance counts each package on its CPU; only the first was used, so
 * node 1 of every 2-socket Intel machine had no counters.
 */
TEST(intel_2s_every_package)
{
	struct bwapd_topology t;
	char dir[64], why[256];
	int i, standin = can_count(why, sizeof(why));

	found(_metadata, dir, sizeof(dir), 2, 1, "skx", "0,1", standin, &t);
	EXPECT_EQ((int)UNCORE_IMC, (int)u.family);
	EXPECT_EQ(6, u.nr);
	EXPECT_EQ(0x3u, u.nodes);
	for (i = 0; i < u.nr; i++) {
		EXPECT_EQ(2, u.pmu[i].nr_cpus);
		EXPECT_EQ(0, u.pmu[i].node[0]);
		EXPECT_EQ(1, u.pmu[i].node[1]);
		/* hswep_uncore_imc_events, 64 bytes a CAS from .scale/.unit */
		EXPECT_EQ(0x0304u, u.pmu[i].ev[0].config[standin]);
		EXPECT_EQ(0x0c04u, u.pmu[i].ev[1].config[standin]);
		EXPECT_NEAR(64, u.pmu[i].ev[0].scale, 1e-9);
	}
	if (standin) {
		count_all(_metadata, dir, &t, 6 * 2 * 2);
	}
	rm_tree(dir);

	/* Ice Lake-SP: the free-running counters, 4 controllers a socket */
	found(_metadata, dir, sizeof(dir), 2, 1, "icx", "0,1", standin, &t);
	EXPECT_EQ((int)UNCORE_IMC_FREE, (int)u.family);
	EXPECT_EQ(4, u.nr);
	EXPECT_EQ(0x20ffu, u.pmu[0].ev[0].config[standin]);
	EXPECT_EQ(0x21ffu, u.pmu[0].ev[1].config[standin]);
	if (standin) {
		count_all(_metadata, dir, &t, 4 * 2 * 2);
	}
	rm_tree(dir);
	if (!standin)
		TH_LOG("no real counters: %s", why);
}

/* Sub-NUMA clustering: each uncore_imc_N counts one cluster (perf's map). */
TEST(intel_snc2)
{
	static const int spr2[4] = { 0, 0, 1, 1 };
	struct bwapd_topology t;
	char dir[64], why[256];
	int i, n;

	/* 2-socket Sapphire Rapids, SNC2: nodes 0-1 on package 0, 2-3 on 1 */
	found(_metadata, dir, sizeof(dir), 4, 2, "spr", "0,2", 0, &t);
	EXPECT_EQ((int)UNCORE_IMC, (int)u.family);
	EXPECT_EQ(8, u.nr);
	EXPECT_EQ(0xfu, u.nodes);
	for (i = 0; i < u.nr; i++) {
		n = u.pmu[i].index;
		EXPECT_EQ(spr2[n % 4], u.pmu[i].node[0]) TH_LOG("%s", u.pmu[i].name);
		EXPECT_EQ(2 + spr2[n % 4], u.pmu[i].node[1]);
		/* no aliases on SPR: UNC_M_CAS_COUNT.RD/WR */
		EXPECT_EQ(0xcf05u, u.pmu[i].ev[0].config[0]);
		EXPECT_EQ(0xf005u, u.pmu[i].ev[1].config[0]);
	}
	rm_tree(dir);
	/* without SNC the same machine: one node per package */
	found(_metadata, dir, sizeof(dir), 2, 1, "spr", "0,1", 0, &t);
	EXPECT_EQ(0, u.pmu[3].node[0]);
	EXPECT_EQ(1, u.pmu[3].node[1]);
	rm_tree(dir);
	/* Skylake-SP with SNC2: the map is not known, no counters */
	ASSERT_EQ(0, machine(dir, sizeof(dir), 4, 2, "skx", "0,2", 0, &t));
	EXPECT_EQ(-ENODEV, uncore_discover(&u, dir, dir, &t, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "sub-NUMA clustering")) TH_LOG("%s", why);
	rm_tree(dir);
	/* one SNC2 package on the host's CPUs 0 and 1: real fds, two nodes */
	if (!can_count(why, sizeof(why)))
		SKIP(return, "%s", why);
	found(_metadata, dir, sizeof(dir), 2, 2, "spr", "0", 1, &t);
	count_all(_metadata, dir, &t, 8 * 2);
	rm_tree(dir);
}

/*
 * Defect: AMD had no counters: 6.1 has no amd_umc, and where it exists
 * its sysfs has no events.  Zen 3 on 6.1: amd_df, 8 channel events.
 */
TEST(amd_df_zen3_61)
{
	struct bwapd_topology t;
	char dir[64], why[256];
	int standin = can_count(why, sizeof(why)), i;

	found(_metadata, dir, sizeof(dir), 2, 1, "zen3", "0,1", standin, &t);
	EXPECT_EQ((int)UNCORE_DF, (int)u.family);
	ASSERT_EQ(1, u.nr);
	EXPECT_EQ(8, u.pmu[0].nr_events);
	EXPECT_EQ(0x3u, u.nodes);
	for (i = 0; i < 8; i++)
		EXPECT_EQ((int)UNCORE_BOTH, (int)u.pmu[0].ev[i].dir);
	/* dram_channel_data_controller_4: event 0x107 -> bits 0-7, 32-35 */
	EXPECT_EQ(0x3807u | (1ULL << 32), u.pmu[0].ev[4].config[standin]);
	if (standin) {
		count_all(_metadata, dir, &t, 8 * 2);
	}
	rm_tree(dir);
}

/* Zen 4 on 6.1: amd_df with the PerfMonV2 format, 12 stations x 4. */
TEST(amd_df_zen4_61)
{
	struct bwapd_topology t;
	char dir[64], why[256];
	int standin = can_count(why, sizeof(why));

	found(_metadata, dir, sizeof(dir), 2, 1, "zen4", "0,1", standin, &t);
	EXPECT_EQ((int)UNCORE_DF, (int)u.family);
	ASSERT_EQ(48, u.pmu[0].nr_events);
	/* station 11 remote write: event 0x2df, umask 0xbff (8-15, 24-27) */
	EXPECT_EQ(0xffdfu | (0xbULL << 24) | (2ULL << 32),
		  u.pmu[0].ev[47].config[standin]);
	EXPECT_EQ((int)UNCORE_WRITE, (int)u.pmu[0].ev[47].dir);
	if (standin) {
		count_all(_metadata, dir, &t, 48 * 2);
	}
	rm_tree(dir);
}

/* Zen 4 on 6.12: amd_umc_N, 12 per package, each on its package's CPU. */
TEST(amd_umc_zen4_612)
{
	struct bwapd_topology t;
	char dir[64], why[256];
	int standin = can_count(why, sizeof(why)), i;

	found(_metadata, dir, sizeof(dir), 2, 1, "zen4-612", "0,1", standin, &t);
	EXPECT_EQ((int)UNCORE_UMC, (int)u.family);
	ASSERT_EQ(24, u.nr);
	for (i = 0; i < u.nr; i++) {
		EXPECT_EQ(1, u.pmu[i].nr_cpus);
		EXPECT_EQ(u.pmu[i].index / 12, u.pmu[i].node[0]);
		/* umc_cas_cmd.rd/wr: event 0x0a, rdwrmask 1/2 at bits 8-9 */
		EXPECT_EQ(0x10au, u.pmu[i].ev[0].config[standin]);
		EXPECT_EQ(0x20au, u.pmu[i].ev[1].config[standin]);
	}
	if (standin) {
		count_all(_metadata, dir, &t, 24 * 2);
	}
	rm_tree(dir);
}

/* What is not counted says why, and which machine it was. */
TEST(fallback_reasons)
{
	struct bwapd_topology t;
	char dir[64], why[256];

	ASSERT_EQ(0, machine(dir, sizeof(dir), 2, 1, "zen3", "0,1", 0, &t));
	/* Zen 5 (family 0x1a) on 6.1: amd_df, but no encodings known here */
	ASSERT_EQ(0, put(dir, "proc/cpuinfo", "vendor_id\t: AuthenticAMD\n"
			 "cpu family\t: 26\nmodel\t\t: 2\n"));
	EXPECT_EQ(-ENODEV, uncore_discover(&u, dir, dir, &t, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "amd_df has no memory read/write events"))
		TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(why, "family 26")) TH_LOG("%s", why);
	rm_tree(dir);
	/* no PMU at all */
	ASSERT_NE(NULL, temp_dir(dir, sizeof(dir)));
	ASSERT_EQ(0, fake_numa4(dir, 1, 1));
	ASSERT_EQ(0, bwapd_topology_read(dir, &t, why, sizeof(why)));
	EXPECT_EQ(-ENODEV, uncore_discover(&u, dir, dir, &t, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "uncore_imc_*")) TH_LOG("%s", why);
	/* PMUs on CPUs 0 and 2 of numa4's four packages: 1 and 3 uncounted */
	ASSERT_EQ(0, pmu_fixture(dir, "skx", "0,2", 0));
	EXPECT_EQ(-ENODEV, uncore_discover(&u, dir, dir, &t, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "node 1 has memory but no memory controller PMU"))
		TH_LOG("%s", why);
	rm_tree(dir);
}

TEST(scale_for_multiplexing)
{
	EXPECT_NEAR(400, uncore_scale(100, 200, 50), 1e-9);
	EXPECT_NEAR(100, uncore_scale(100, 200, 200), 1e-9);
	EXPECT_NEAR(0, uncore_scale(100, 200, 0), 1e-9);
}

TEST(encode_terms)
{
	char dir[64];
	uint64_t cfg[3];

	ASSERT_NE(NULL, temp_dir(dir, sizeof(dir)));
	ASSERT_EQ(0, pmu_fixture(dir, "skx", "0", 0));
	ASSERT_EQ(0, put(dir, DEV "uncore_imc_0/format/thresh1", "config1:0-3,8-11\n"));
	EXPECT_EQ(0, uncore_encode(dir, "uncore_imc_0", "event=0xff,thresh1=0x5a", cfg));
	EXPECT_EQ(0xffu, cfg[0]);
	EXPECT_EQ(0x50au, cfg[1]);
	EXPECT_EQ(-ERANGE, uncore_encode(dir, "uncore_imc_0", "event=0x100", cfg));
	EXPECT_EQ(-ENOENT, uncore_encode(dir, "uncore_imc_0", "nosuch=1", cfg));
	rm_tree(dir);
}

/* The real path, where this host has memory controller PMUs. */
TEST(real_counters)
{
	struct bwapd_backend b;
	struct bwapd_topology t;
	uint64_t r0, w0;
	char why[512] = "";
	int ret;

	ASSERT_EQ(0, bwapd_backend_real(&b, ""));
	ASSERT_EQ(0, b.ops->topology(&b, &t, why, sizeof(why))) TH_LOG("%s", why);
	ret = b.ops->ctrl_open(&b, why, sizeof(why));
	if (ret) {
		bwapd_backend_destroy(&b);
		SKIP(return, "%s", why);
	}
	EXPECT_EQ(0, b.ops->ctrl_bytes(&b, 0, &r0, &w0));
	bwapd_backend_destroy(&b);
}

TEST_HARNESS_MAIN
