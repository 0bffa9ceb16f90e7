// SPDX-License-Identifier: GPL-2.0
/*
 * Uncore counters: event encodings and scales from the kernel's sysfs
 * aliases, PMU instances mapped to nodes by their cpumask, a reason when
 * a node cannot be counted; the real counters on a host that has them.
 */
#include "bwapd_test.h"
#include "uncore.h"

#define DEV "sys/bus/event_source/devices/"

static int fake_imc(const char *root, int n, int cpu)
{
	char p[256];
	int ret;

	snprintf(p, sizeof(p), DEV "uncore_imc_%d/type", n);
	ret = put(root, p, "%d\n", 20 + n);
	snprintf(p, sizeof(p), DEV "uncore_imc_%d/cpumask", n);
	ret |= put(root, p, "%d\n", cpu);
	snprintf(p, sizeof(p), DEV "uncore_imc_%d/format/event", n);
	ret |= put(root, p, "config:0-7\n");
	snprintf(p, sizeof(p), DEV "uncore_imc_%d/format/umask", n);
	ret |= put(root, p, "config:8-15\n");
	snprintf(p, sizeof(p), DEV "uncore_imc_%d/events/cas_count_read", n);
	ret |= put(root, p, "event=0x04,umask=0x03\n");
	snprintf(p, sizeof(p), DEV "uncore_imc_%d/events/cas_count_read.scale", n);
	ret |= put(root, p, "6.103515625e-5\n");
	snprintf(p, sizeof(p), DEV "uncore_imc_%d/events/cas_count_read.unit", n);
	ret |= put(root, p, "MiB\n");
	snprintf(p, sizeof(p), DEV "uncore_imc_%d/events/cas_count_write", n);
	ret |= put(root, p, "event=0x04,umask=0x0c\n");
	return ret;
}

TEST(encodings_scales_and_nodes)
{
	struct bwapd_topology t;
	struct uncore u;
	uint64_t cfg[3];
	char dir[64], why[256];
	int i;

	ASSERT_NE(NULL, temp_dir(dir, sizeof(dir)));
	ASSERT_EQ(0, fake_numa4(dir, 1, 1));
	ASSERT_EQ(0, bwapd_topology_read(dir, &t, why, sizeof(why)));
	/* no PMU: the reason names what was looked for */
	EXPECT_EQ(-ENODEV, uncore_discover(&u, dir, &t, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "uncore_imc_*")) TH_LOG("%s", why);
	/* a PMU for nodes 0 and 2 only: nodes 1 and 3 cannot be counted */
	ASSERT_EQ(0, fake_imc(dir, 0, 0));
	ASSERT_EQ(0, fake_imc(dir, 1, 2));
	EXPECT_EQ(-ENODEV, uncore_discover(&u, dir, &t, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "node 1 has memory but no memory controller PMU"))
		TH_LOG("%s", why);
	ASSERT_EQ(0, fake_imc(dir, 2, 1));
	ASSERT_EQ(0, fake_imc(dir, 3, 3));
	ASSERT_EQ(0, uncore_discover(&u, dir, &t, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(4, u.nr);
	EXPECT_EQ(0xfu, u.nodes);
	for (i = 0; i < u.nr; i++) {
		int n = u.pmu[i].name[11] - '0';

		EXPECT_EQ(n == 1 ? 2 : n == 2 ? 1 : n, u.pmu[i].node);
		EXPECT_EQ(20u + n, u.pmu[i].type);
		EXPECT_EQ(0x0304u, u.pmu[i].config[0][0]);
		EXPECT_EQ(0x0c04u, u.pmu[i].config[1][0]);
		/* 6.1e-5 MiB per count and, without a scale, one line: 64 bytes */
		EXPECT_NEAR(64, u.pmu[i].scale[0], 1e-9);
		EXPECT_NEAR(64, u.pmu[i].scale[1], 1e-9);
	}
	/* terms into config1 and split fields; values that do not fit */
	ASSERT_EQ(0, put(dir, DEV "uncore_imc_0/format/thresh", "config1:0-3,8-11\n"));
	EXPECT_EQ(0, uncore_encode(dir, "uncore_imc_0", "event=0xff,thresh=0x5a", cfg));
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
