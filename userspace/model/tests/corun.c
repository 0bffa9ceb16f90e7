// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads running together (bwm_predict_corun): alone it is
 * bwm_predict; on disjoint nodes with local pages they do not meet; a
 * best-effort job that spreads pages over another job's node slows it
 * down, through the controller they share; shared worker nodes are
 * refused.
 */
#include <errno.h>

#include "bwm_test.h"

static void local(struct bwm_placement *pl, int n, int node)
{
	double f[BWM_MAX_NODES] = { 0 };

	f[node] = 1;
	bwm_placement_interleave(pl, n, f);
}

TEST(alone_is_predict)
{
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_placement pl;
	struct bwm_prediction a, b;
	const struct bwm_workload *w = &wl;
	const struct bwm_placement *p = &pl;
	double f[BWM_MAX_NODES] = { 0.4, 0.3, 0.2, 0.1 };

	ASSERT_EQ(0, bwm_test_load("bwap-b", "mixed", 0x3, &m, &wl));
	bwm_placement_interleave(&pl, 4, f);
	ASSERT_EQ(0, bwm_predict(&m, &wl, &pl, &a));
	ASSERT_EQ(0, bwm_predict_corun(&m, 1, &w, &p, &b));
	EXPECT_NEAR(a.throughput_gbps, b.throughput_gbps, 0);
	EXPECT_NEAR(a.stall_rate, b.stall_rate, 0);
}

TEST(neighbours)
{
	struct bwm_machine m;
	struct bwm_workload hi, be;
	struct bwm_placement phi, pbe;
	struct bwm_prediction solo, two[2];
	const struct bwm_workload *w[2] = { &hi, &be };
	const struct bwm_placement *p[2] = { &phi, &pbe };
	double spread[BWM_MAX_NODES] = { 0.25, 0.25, 0.25, 0.25 };

	ASSERT_EQ(0, bwm_test_load("bwap-b", "bandwidth-bound", 0x1, &m, &hi));
	ASSERT_EQ(0, bwm_test_load("bwap-b", "bandwidth-bound", 0xc, &m, &be));
	local(&phi, 4, 0);
	local(&pbe, 4, 2);
	ASSERT_EQ(0, bwm_predict(&m, &hi, &phi, &solo));
	ASSERT_EQ(0, bwm_predict_corun(&m, 2, w, p, two));
	/* apart: as if alone */
	EXPECT_NEAR(solo.throughput_gbps, two[0].throughput_gbps, 1e-9);
	/* the best-effort job on every node: the other one pays */
	bwm_placement_interleave(&pbe, 4, spread);
	ASSERT_EQ(0, bwm_predict_corun(&m, 2, w, p, two));
	EXPECT_GT_D(solo.throughput_gbps * 0.95, two[0].throughput_gbps);
	EXPECT_GT_D(two[0].ctrl_util[0], solo.ctrl_util[0]);
	/* one node, two jobs: refused */
	ASSERT_EQ(0, bwm_test_load("bwap-b", "bandwidth-bound", 0x3, &m, &be));
	EXPECT_EQ(-EINVAL, bwm_predict_corun(&m, 2, w, p, two));
}

TEST_HARNESS_MAIN
