// SPDX-License-Identifier: GPL-2.0
/*
 * The BWAP paper's equations on small hand-made machines: for the
 * idealised canonical application, Eq. 2 (one worker) and Eq. 5 (several)
 * give the exact optimum, and the model's throughput there is the one
 * Eq. 1/4 give.
 */
#include "bwm_test.h"

/* bw[mem][cpu], GB/s: asymmetric, different per direction */
static const double bw4[4][4] = {
	{ 20, 6, 9, 4 },
	{ 8, 16, 3, 5 },
	{ 5, 7, 18, 2 },
	{ 3, 4, 6, 12 },
};

static double thr(const struct bwm_machine *m, const struct bwm_workload *wl,
		  const double *frac)
{
	struct bwm_placement pl;

	bwm_placement_interleave(&pl, m->nr_nodes, frac);
	return bwm_predict_throughput(m, wl, &pl);
}

TEST(eq2_single_worker_weights)
{
	double frac[BWM_MAX_NODES];
	struct bwm_machine m;
	int i;

	bwm_test_ideal_machine(&m, 4, bw4);
	ASSERT_EQ(0, bwm_canonical_fractions(m.read_gbps, 4, 1u << 1, frac));
	/* column 1: 6, 16, 7, 4 -> sum 33 */
	for (i = 0; i < 4; i++)
		EXPECT_NEAR(bw4[i][1] / 33, frac[i], 1e-12);
}

TEST(eq2_is_the_optimum_for_one_worker)
{
	double frac[BWM_MAX_NODES], best[BWM_MAX_NODES], g, gbest;
	struct bwm_machine m;
	struct bwm_workload wl;
	long n;
	int i;

	bwm_test_ideal_machine(&m, 4, bw4);
	bwm_test_canonical_app(&wl, 1u << 1, 4);
	ASSERT_EQ(0, bwm_canonical_fractions(m.read_gbps, 4, wl.workers, frac));
	/* Eq. 1 at Eq. 2: every transfer takes S / sum(bw) */
	g = thr(&m, &wl, frac);
	EXPECT_NEAR(33, g, 1e-9);
	/* no point of a 2% grid does better */
	n = bwm_search(&m, &wl, 50, best, &gbest);
	ASSERT_EQ(23426, n);	/* C(53, 3) placements */
	EXPECT_TRUE(gbest <= g * (1 + 1e-12))
		TH_LOG("grid found %.9g > %.9g", gbest, g);
	/* and hill climbing from uniform ends at Eq. 2 */
	for (i = 0; i < 4; i++)
		best[i] = 0.25;
	ASSERT_LT(0, bwm_refine(&m, &wl, 0.05, 1e-4, best, &gbest));
	EXPECT_NEAR(g, gbest, g * 2e-3);
	for (i = 0; i < 4; i++)
		EXPECT_NEAR(frac[i], best[i], 2e-3);
}

TEST(eq5_is_the_optimum_for_two_workers)
{
	double frac[BWM_MAX_NODES], best[BWM_MAX_NODES], g, gbest, sum = 0;
	struct bwm_machine m;
	struct bwm_workload wl;
	uint32_t workers = (1u << 0) | (1u << 2);
	int i;

	bwm_test_ideal_machine(&m, 4, bw4);
	bwm_test_canonical_app(&wl, workers, 4);
	ASSERT_EQ(0, bwm_canonical_fractions(m.read_gbps, 4, workers, frac));
	/* minbw over workers 0 and 2: 9, 3, 5, 3 */
	EXPECT_NEAR(9.0 / 20, frac[0], 1e-12);
	EXPECT_NEAR(3.0 / 20, frac[1], 1e-12);
	EXPECT_NEAR(5.0 / 20, frac[2], 1e-12);
	EXPECT_NEAR(3.0 / 20, frac[3], 1e-12);
	for (i = 0; i < 4; i++)
		sum += fmin(bw4[i][0], bw4[i][2]);
	/* Eq. 4: T = S * w_i / minbw_i, the same for every node */
	g = thr(&m, &wl, frac);
	EXPECT_NEAR(2 * sum, g, 1e-9);
	ASSERT_LT(0, bwm_search(&m, &wl, 20, best, &gbest));
	EXPECT_TRUE(gbest <= g * (1 + 1e-12))
		TH_LOG("grid found %.9g > %.9g", gbest, g);
	/* no small move away from Eq. 5 helps */
	memcpy(best, frac, sizeof(best));
	ASSERT_LT(0, bwm_refine(&m, &wl, 0.01, 1e-4, best, &gbest));
	EXPECT_NEAR(g, gbest, 1e-9);
	/* uniform interleave is strictly worse on this machine */
	for (i = 0; i < 4; i++)
		best[i] = 0.25;
	EXPECT_GT_D(g, thr(&m, &wl, best) * 1.05);
}

TEST(profiling_run_measures_the_paths)
{
	struct bwm_profile prof;
	struct bwm_machine m;
	double frac[BWM_MAX_NODES], direct[BWM_MAX_NODES];
	uint32_t workers = (1u << 0) | (1u << 2);
	int i;

	/*
	 * With nothing shared on the way, each transfer runs at its path,
	 * for the quarter of the run that reads its node.
	 */
	bwm_test_ideal_machine(&m, 4, bw4);
	ASSERT_EQ(0, bwm_profile_run(&m, workers, 0.5, 0, NULL, &prof));
	for (i = 0; i < 4; i++) {
		EXPECT_NEAR(bw4[i][0], prof.bw[i][0], 1e-9);
		EXPECT_NEAR(bw4[i][2], prof.bw[i][2], 1e-9);
		EXPECT_NEAR(bw4[i][2] * 0.5e9 / 4, prof.bytes[i][2], 1);
		EXPECT_NEAR(0, prof.bw[i][1], 0);
	}
	ASSERT_EQ(0, bwm_canonical_fractions(prof.bw, 4, workers, frac));
	ASSERT_EQ(0, bwm_canonical_fractions(m.read_gbps, 4, workers, direct));
	for (i = 0; i < 4; i++)
		EXPECT_NEAR(direct[i], frac[i], 1e-12);
}

TEST(profiling_run_sees_a_shared_controller)
{
	struct bwm_profile prof;
	struct bwm_machine m;

	/* Node 3's controller (10 GB/s) is shared by the three workers. */
	bwm_test_ideal_machine(&m, 4, bw4);
	m.node[3].ctrl_read_gbps = 10;
	ASSERT_EQ(0, bwm_profile_run(&m, 0x7, 1, 0, NULL, &prof));
	/* paths 3, 4, 6 ask for 13: max-min gives 3, 3.5, 3.5 */
	EXPECT_NEAR(3, prof.bw[3][0], 1e-9);
	EXPECT_NEAR(3.5, prof.bw[3][1], 1e-9);
	EXPECT_NEAR(3.5, prof.bw[3][2], 1e-9);
}

TEST_HARNESS_MAIN
