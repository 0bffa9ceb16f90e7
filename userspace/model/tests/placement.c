// SPDX-License-Identifier: GPL-2.0
/*
 * Placements: kernel weights to page fractions, DWP, and page fractions
 * back to kernel weights with a short, accurate interleave cycle.
 */
#include "bwm_test.h"

TEST(weights_to_fractions)
{
	const uint8_t w[4] = { 5, 3, 1, 1 }, zero[4] = { 0 };
	double f[4];

	ASSERT_EQ(0, bwm_weights_to_fractions(w, 4, f));
	EXPECT_NEAR(0.5, f[0], 1e-15);
	EXPECT_NEAR(0.3, f[1], 1e-15);
	EXPECT_NEAR(0.1, f[3], 1e-15);
	EXPECT_EQ(-EINVAL, bwm_weights_to_fractions(zero, 4, f));
	EXPECT_EQ(-EINVAL, bwm_weights_to_fractions(w, 0, f));
}

TEST(dwp_keeps_ratios_inside_each_set)
{
	const double base[4] = { 0.4, 0.1, 0.3, 0.2 };
	uint32_t workers = (1u << 0) | (1u << 1);	/* S = 0.5 */
	double out[4];

	ASSERT_EQ(0, bwm_apply_dwp(base, 4, workers, 0, out));
	EXPECT_NEAR(0.4, out[0], 1e-15);
	EXPECT_NEAR(0.2, out[3], 1e-15);
	ASSERT_EQ(0, bwm_apply_dwp(base, 4, workers, 0.5, out));
	/* workers get 0.5 + 0.5 * 0.5 = 0.75, still 4:1 */
	EXPECT_NEAR(0.6, out[0], 1e-15);
	EXPECT_NEAR(0.15, out[1], 1e-15);
	/* the others 0.25, still 3:2 */
	EXPECT_NEAR(0.15, out[2], 1e-15);
	EXPECT_NEAR(0.10, out[3], 1e-15);
	ASSERT_EQ(0, bwm_apply_dwp(base, 4, workers, 1, out));
	EXPECT_NEAR(0.8, out[0], 1e-15);
	EXPECT_NEAR(0, out[2], 0);
	EXPECT_NEAR(0, out[3], 0);
	EXPECT_EQ(-EINVAL, bwm_apply_dwp(base, 4, workers, 1.5, out));
	EXPECT_EQ(-EINVAL, bwm_apply_dwp(base, 4, 0, 0.5, out));
}

TEST(dwp_without_worker_weight)
{
	const double base[3] = { 0, 0, 1 };
	double out[3];

	/* canonical put nothing on the workers: DWP shares evenly */
	ASSERT_EQ(0, bwm_apply_dwp(base, 3, 0x3, 0.5, out));
	EXPECT_NEAR(0.25, out[0], 1e-15);
	EXPECT_NEAR(0.25, out[1], 1e-15);
	EXPECT_NEAR(0.5, out[2], 1e-15);
}

TEST(u8_exact_ratios_and_short_cycles)
{
	const double f1[4] = { 0.5, 0.3, 0.1, 0.1 };
	const double f2[2] = { 1.0 / 3, 2.0 / 3 };
	const double f3[4] = { 0.25, 0.25, 0.25, 0.25 };
	const double f4[3] = { 0.7, 0, 0.3 };
	uint8_t w[4];
	double err;

	EXPECT_EQ(10, bwm_fractions_to_u8(f1, 4, 0, w, &err));
	EXPECT_EQ(5, w[0]);
	EXPECT_EQ(3, w[1]);
	EXPECT_EQ(1, w[3]);
	EXPECT_NEAR(0, err, 1e-15);
	EXPECT_EQ(3, bwm_fractions_to_u8(f2, 2, 1e-9, w, NULL));
	EXPECT_EQ(1, w[0]);
	EXPECT_EQ(2, w[1]);
	EXPECT_EQ(4, bwm_fractions_to_u8(f3, 4, 0, w, NULL));
	EXPECT_EQ(1, w[2]);
	/* a node without pages is left out of the policy (weight 0) */
	EXPECT_EQ(10, bwm_fractions_to_u8(f4, 3, 0, w, NULL));
	EXPECT_EQ(7, w[0]);
	EXPECT_EQ(0, w[1]);
	EXPECT_EQ(3, w[2]);
}

TEST(u8_tiny_share_keeps_a_page)
{
	const double f[3] = { 0.998, 0.001, 0.001 };
	uint8_t w[3];
	double err;
	int cyc = bwm_fractions_to_u8(f, 3, 0.005, w, &err);

	/* 0.5 % is out of reach with weights up to 255: the best cycle */
	ASSERT_LT(250, cyc);
	EXPECT_LE(1, w[1]);
	EXPECT_LE(1, w[2]);
	EXPECT_GT_D(0.01, err);
	EXPECT_NEAR(fabs(w[0] / (double)cyc - 0.998), err, 1e-12);
}

TEST(u8_random_fractions_within_tolerance)
{
	struct bwm_rng rng;
	int t, j;

	bwm_rng_seed(&rng, 42);
	for (t = 0; t < 500; t++) {
		double f[8], sum = 0, err, q[8];
		uint8_t w[8];
		int cyc, shorter;

		for (j = 0; j < 8; j++) {
			f[j] = 0.05 + bwm_rng_uniform(&rng);
			sum += f[j];
		}
		for (j = 0; j < 8; j++)
			f[j] /= sum;
		cyc = bwm_fractions_to_u8(f, 8, 0.01, w, &err);
		ASSERT_LT(0, cyc);
		ASSERT_EQ(0, bwm_weights_to_fractions(w, 8, q));
		for (j = 0; j < 8; j++) {
			EXPECT_LE(1, w[j]);
			EXPECT_NEAR(f[j], q[j], 0.01 + 1e-12);
		}
		/* the cycle is the shortest that reaches the tolerance */
		shorter = bwm_fractions_to_u8(f, 8, err * 1.5 + 0.01, w, NULL);
		EXPECT_LE(shorter, cyc);
		EXPECT_LE(cyc, 100);
	}
}

TEST(u8_rejects_bad_input)
{
	const double neg[2] = { -0.1, 1.1 }, zero[2] = { 0, 0 };
	uint8_t w[2];

	EXPECT_EQ(-EINVAL, bwm_fractions_to_u8(neg, 2, 0.01, w, NULL));
	EXPECT_EQ(-EINVAL, bwm_fractions_to_u8(zero, 2, 0.01, w, NULL));
	EXPECT_EQ(-EINVAL, bwm_fractions_to_u8(neg, 0, 0.01, w, NULL));
}

TEST(placement_from_weights_and_dwp)
{
	const uint8_t w[4] = { 2, 2, 1, 1 };
	struct bwm_placement pl;

	ASSERT_EQ(0, bwm_placement_from_weights(&pl, 4, w, 0x1, 0));
	EXPECT_NEAR(1.0 / 3, pl.shared[0], 1e-15);
	EXPECT_NEAR(1.0 / 6, pl.priv[2][3], 1e-15);
	/* worker 0 has 1/3; DWP 0.5 gives it 1/3 + 1/3 */
	ASSERT_EQ(0, bwm_placement_from_weights(&pl, 4, w, 0x1, 0.5));
	EXPECT_NEAR(2.0 / 3, pl.shared[0], 1e-15);
	EXPECT_NEAR(1.0 / 6, pl.shared[1], 1e-15);
	EXPECT_NEAR(2.0 / 3, pl.priv[0][0], 1e-15);
	bwm_placement_first_touch(&pl, 4, 2);
	EXPECT_NEAR(1, pl.shared[2], 0);
	EXPECT_NEAR(1, pl.priv[3][3], 0);
	EXPECT_NEAR(0, pl.priv[3][2], 0);
}

/*
 * One notation for a weight vector, numactl's: "5,3,1,1" (--weights takes
 * it as one weight per node of its -w mask, in node order).  The colon
 * form bwapd printed before is read too, and said to be old; anything
 * else is refused with where it goes wrong.
 */
TEST(weights_comma_list_round_trip)
{
	const uint8_t w[4] = { 13, 13, 1, 255 };
	uint8_t got[BWM_MAX_NODES];
	char buf[64], tiny[6];
	int old = -1;

	EXPECT_STREQ("13,13,1,255", bwm_weights_format(w, 4, buf, sizeof(buf)));
	EXPECT_EQ(4, bwm_weights_parse(buf, got, BWM_MAX_NODES, &old));
	EXPECT_EQ(0, old);
	EXPECT_EQ(0, memcmp(w, got, 4));
	/* too small a buffer: cut at a comma, never half a number */
	EXPECT_STREQ("13,13", bwm_weights_format(w, 4, tiny, sizeof(tiny)));
	EXPECT_EQ(4, bwm_weights_parse("5:3:1:1", got, BWM_MAX_NODES, &old));
	EXPECT_EQ(1, old);
	EXPECT_EQ(5, got[0]);
	EXPECT_EQ(1, got[3]);
	EXPECT_EQ(1, bwm_weights_parse("7", got, BWM_MAX_NODES, &old));
	EXPECT_EQ(0, old);
	/* zero is a node left out, as in the model's placements */
	EXPECT_EQ(2, bwm_weights_parse("0,9", got, BWM_MAX_NODES, NULL));
}

TEST(weights_parse_rejects)
{
	static const char *const bad[] = {
		"", ",", "5,", ",5", "5,,3", "5:3,1", "256", "-1", "5,x",
		"5 3", "1e2", "0x10", "+5", "5,3:1", "0,0",
	};
	uint8_t got[BWM_MAX_NODES];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, bwm_weights_parse(bad[i], got, BWM_MAX_NODES, NULL))
			TH_LOG("bad[%u]", i);
	}
	EXPECT_EQ(-E2BIG, bwm_weights_parse("1,2,3", got, 2, NULL));
}

TEST_HARNESS_MAIN
