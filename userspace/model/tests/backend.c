// SPDX-License-Identifier: GPL-2.0
/*
 * The prediction's invariants and the model backend a tuner drives:
 * counters accumulate like perf's, noise is seeded by the caller, and
 * placements set by weights and DWP change what the counters show.
 */
#include "bwm_test.h"

static int setup(struct bwm_machine *m, struct bwm_workload *wl,
		 const char *workload, uint32_t workers)
{
	return bwm_test_load("bwap-a", workload, workers, m, wl);
}

TEST(traffic_adds_up)
{
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_placement pl;
	struct bwm_prediction p;
	double frac[8] = { 0.3, 0.2, 0.1, 0.1, 0.1, 0.1, 0.05, 0.05 };
	double ctrl = 0, workers = 0;
	int j;

	ASSERT_EQ(0, setup(&m, &wl, "mixed", 0x3));
	bwm_placement_interleave(&pl, 8, frac);
	ASSERT_EQ(0, bwm_predict(&m, &wl, &pl, &p));
	for (j = 0; j < 8; j++) {
		ctrl += p.ctrl_read_gbps[j] + p.ctrl_write_gbps[j];
		workers += p.worker_gbps[j];
		EXPECT_TRUE(p.ctrl_util[j] <= 1 + 1e-9) TH_LOG("node %d", j);
		EXPECT_TRUE(p.ctrl_local_gbps[j] <= p.ctrl_read_gbps[j] +
			    p.ctrl_write_gbps[j] + 1e-9);
	}
	EXPECT_NEAR(workers, ctrl, 1e-9 * ctrl);
	/* the run is bounded by the slowest worker (Eq. 3) */
	ASSERT_LE(0, p.slowest);
	EXPECT_NEAR(p.thread_gbps[p.slowest] * 16, p.throughput_gbps, 1e-9);
	EXPECT_NEAR(wl.work_gb / p.thread_gbps[p.slowest], p.exec_time_s, 1e-9);
	EXPECT_TRUE(p.thread_gbps[0] >= p.thread_gbps[p.slowest]);
	EXPECT_TRUE(p.stall_fraction > 0 && p.stall_fraction < 1);
	EXPECT_NEAR(p.stall_fraction * 16 * m.cpu_ghz * 1e9, p.stall_rate,
		    p.stall_rate * 1e-9);
	/* loaded latency is never below idle, and grows with the load */
	EXPECT_TRUE(p.latency_ns[0][0] >= m.latency_ns[0][0]);
	EXPECT_GT_D(p.latency_ns[0][0], m.latency_ns[0][0] * 1.01);
}

TEST(saturation_caps_at_capacity)
{
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_placement pl;
	struct bwm_prediction p;

	ASSERT_EQ(0, setup(&m, &wl, "bandwidth-bound", 0x1));
	bwm_placement_first_touch(&pl, 8, 0);
	/*
	 * all local: the local path (12 GB/s) bounds 8 threads, once the
	 * latency the queue adds does not hold them below it first
	 */
	m.queue_factor = 0;
	ASSERT_EQ(0, bwm_predict(&m, &wl, &pl, &p));
	EXPECT_NEAR(0.99 / 12 + 0.01 / 9, p.path_util[0][0] / p.throughput_gbps,
		    1e-9);
	EXPECT_NEAR(1, p.path_util[0][0], 1e-6);
	/* a latency-bound workload does not saturate */
	ASSERT_EQ(0, setup(&m, &wl, "latency-bound", 0x1));
	ASSERT_EQ(0, bwm_predict(&m, &wl, &pl, &p));
	EXPECT_GT_D(0.8, p.path_util[0][0]);
	EXPECT_GT_D(p.stall_fraction, 0.3);
}

/*
 * The loaded-latency fixed point converges on placements drawn at
 * random, where machine A's links fill and its queues grow fast (the
 * rates the latencies allow jump where a resource fills).
 */
TEST(fixed_point_converges)
{
	static const char *const wls[] = { "bandwidth-bound", "ocean-cp" };
	struct bwm_rng rng;
	unsigned int w;
	int i, j, worst = 0;

	bwm_rng_seed(&rng, 7);
	for (w = 0; w < 2; w++) {
		struct bwm_machine m;
		struct bwm_workload wl;

		ASSERT_EQ(0, setup(&m, &wl, wls[w], 0x3));
		for (i = 0; i < 1000; i++) {
			struct bwm_placement pl;
			struct bwm_prediction p;
			double frac[8], sum = 0;

			for (j = 0; j < 8; j++)
				sum += frac[j] = bwm_rng_uniform(&rng);
			for (j = 0; j < 8; j++)
				frac[j] /= sum;
			bwm_placement_interleave(&pl, 8, frac);
			ASSERT_EQ(0, bwm_predict(&m, &wl, &pl, &p));
			worst = p.iterations > worst ? p.iterations : worst;
			EXPECT_GT_D(200, p.iterations);
			EXPECT_GT_D(p.throughput_gbps, 0);
		}
	}
	TH_LOG("most fixed-point steps: %d", worst);
}

TEST(bad_placements)
{
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_placement pl;
	struct bwm_prediction p;
	double frac[8] = { 0.5, 0.6 };

	ASSERT_EQ(0, setup(&m, &wl, "mixed", 0x1));
	bwm_placement_interleave(&pl, 8, frac);
	EXPECT_EQ(-EINVAL, bwm_predict(&m, &wl, &pl, &p));
	frac[1] = -0.5;
	frac[2] = 1;
	bwm_placement_interleave(&pl, 8, frac);
	EXPECT_EQ(-EINVAL, bwm_predict(&m, &wl, &pl, &p));
	EXPECT_GT_D(0, bwm_predict_throughput(&m, &wl, &pl));
}

TEST(counters_accumulate)
{
	static struct bwm_sim sim;
	struct bwm_machine m;
	struct bwm_workload wl;
	uint64_t r0, w0, r1, w1, st;

	ASSERT_EQ(0, setup(&m, &wl, "bandwidth-bound", 0x3));
	ASSERT_EQ(0, bwm_sim_init(&sim, &m, &wl, 1, 0));
	ASSERT_EQ(0, bwm_sim_ctrl_bytes(&sim, 5, &r0, &w0));
	EXPECT_EQ(0u, r0);
	ASSERT_EQ(0, bwm_sim_run(&sim, 0.2));
	ASSERT_EQ(0, bwm_sim_ctrl_bytes(&sim, 5, &r0, &w0));
	EXPECT_NEAR(sim.pred.ctrl_read_gbps[5] * 0.2e9, r0, 1);
	st = bwm_sim_stall_cycles(&sim);
	EXPECT_NEAR(sim.pred.stall_rate * 0.2, st, 1);
	ASSERT_EQ(0, bwm_sim_run(&sim, 0.2));
	ASSERT_EQ(0, bwm_sim_ctrl_bytes(&sim, 5, &r1, &w1));
	EXPECT_NEAR(2.0 * r0, r1, 2);
	EXPECT_LE(w0, w1);
	EXPECT_EQ(-EINVAL, bwm_sim_ctrl_bytes(&sim, 8, &r1, &w1));
	EXPECT_EQ(-EINVAL, bwm_sim_run(&sim, -1));
}

/* stall cycles over 0.2 s after setting weights and DWP */
static double stall_after(struct bwm_sim *sim, const uint8_t *w, double dwp)
{
	uint64_t s0 = bwm_sim_stall_cycles(sim);

	if (bwm_sim_set_weights(sim, w, dwp))
		return -1;
	bwm_sim_run(sim, 0.2);
	return (double)(bwm_sim_stall_cycles(sim) - s0);
}

TEST(stall_rate_tracks_the_placement)
{
	static struct bwm_sim sim;
	struct bwm_machine m;
	struct bwm_workload wl;
	const uint8_t local[8] = { 1 }, zero[8] = { 0 };
	uint8_t canon[8];
	struct bwm_profile prof;
	double frac[8], t_local, t_canon;

	ASSERT_EQ(0, setup(&m, &wl, "bandwidth-bound", 0x1));
	ASSERT_EQ(0, bwm_sim_init(&sim, &m, &wl, 7, 0));
	/* the canonical tuner's path: profile, Eq. 5, u8 weights */
	ASSERT_EQ(0, bwm_sim_profile(&sim, 0x1, 1, &prof));
	ASSERT_EQ(0, bwm_canonical_fractions(prof.bw, 8, 0x1, frac));
	ASSERT_LT(0, bwm_fractions_to_u8(frac, 8, 0.005, canon, NULL));
	t_local = stall_after(&sim, local, 0);
	t_canon = stall_after(&sim, canon, 0);
	ASSERT_LT(0, t_local);
	EXPECT_GT_D(t_local, t_canon * 1.2);
	/* DWP 1 puts every page on the worker: the same as local */
	EXPECT_NEAR(t_local, stall_after(&sim, canon, 1), t_local * 1e-9);
	/* a refused placement leaves the old one */
	EXPECT_EQ(-EINVAL, bwm_sim_set_weights(&sim, zero, 0));
	EXPECT_NEAR(t_local, stall_after(&sim, canon, 1), t_local * 1e-9);
}

TEST(noise_is_seeded)
{
	static struct bwm_sim a, b, c;
	struct bwm_machine m;
	struct bwm_workload wl;
	double sum = 0, sum2 = 0, mean, sd;
	uint64_t prev = 0;
	int i;

	ASSERT_EQ(0, setup(&m, &wl, "mixed", 0x3));
	ASSERT_EQ(0, bwm_sim_init(&a, &m, &wl, 11, 0.05));
	ASSERT_EQ(0, bwm_sim_init(&b, &m, &wl, 11, 0.05));
	ASSERT_EQ(0, bwm_sim_init(&c, &m, &wl, 12, 0.05));
	for (i = 0; i < 400; i++) {
		uint64_t s = bwm_sim_stall_cycles(&a), d;

		bwm_sim_run(&a, 0.2);
		bwm_sim_run(&b, 0.2);
		bwm_sim_run(&c, 0.2);
		d = bwm_sim_stall_cycles(&a) - s;
		sum += d;
		sum2 += (double)d * d;
		EXPECT_LE(prev, bwm_sim_stall_cycles(&a));
		prev = bwm_sim_stall_cycles(&a);
	}
	EXPECT_EQ(bwm_sim_stall_cycles(&a), bwm_sim_stall_cycles(&b));
	EXPECT_NE(bwm_sim_stall_cycles(&a), bwm_sim_stall_cycles(&c));
	mean = sum / 400;
	sd = sqrt(sum2 / 400 - mean * mean);
	EXPECT_NEAR(a.pred.stall_rate * 0.2, mean, mean * 0.01);
	EXPECT_NEAR(0.05, sd / mean, 0.01);
}

TEST(noisy_profile_still_close)
{
	struct bwm_machine m;
	struct bwm_profile exact, noisy;
	struct bwm_rng rng;
	double f0[8], f1[8];
	int j;

	ASSERT_EQ(0, bwm_test_load("bwap-a", NULL, 0, &m, NULL));
	bwm_rng_seed(&rng, 3);
	ASSERT_EQ(0, bwm_profile_run(&m, 0x3, 1, 0, NULL, &exact));
	ASSERT_EQ(0, bwm_profile_run(&m, 0x3, 1, 0.02, &rng, &noisy));
	ASSERT_EQ(0, bwm_canonical_fractions(exact.bw, 8, 0x3, f0));
	ASSERT_EQ(0, bwm_canonical_fractions(noisy.bw, 8, 0x3, f1));
	for (j = 0; j < 8; j++) {
		EXPECT_NEAR(f0[j], f1[j], 0.01);
		EXPECT_TRUE(noisy.bw[j][0] != exact.bw[j][0]);
	}
	EXPECT_EQ(-EINVAL, bwm_profile_run(&m, 0, 1, 0, NULL, &exact));
	EXPECT_EQ(-EINVAL, bwm_profile_run(&m, 0x100, 1, 0, NULL, &exact));
}

TEST_HARNESS_MAIN
