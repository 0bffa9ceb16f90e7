// SPDX-License-Identifier: GPL-2.0
/*
 * The access-pattern signature model of a two-socket machine and its
 * worked examples: the traffic matrix of a signature, what the memory
 * controllers report when threads run at different speeds, and fitting a
 * signature back from two runs.
 */
#include "bwm_test.h"

static const struct bwm_signature example = {
	.static_node = 1,	/* "static socket = 2" */
	.static_frac = 0.2,
	.local_frac = 0.35,
	.per_thread_frac = 0.3,
};

TEST(worked_example_rows)
{
	double out[BWM_MAX_NODES][BWM_MAX_NODES];
	int threads[2] = { 3, 1 };

	ASSERT_EQ(0, bwm_signature_matrix(&example, 2, threads, out));
	EXPECT_NEAR(13.0 / 20, out[0][0], 1e-12);
	EXPECT_NEAR(7.0 / 20, out[0][1], 1e-12);
	EXPECT_NEAR(6.0 / 20, out[1][0], 1e-12);
	EXPECT_NEAR(14.0 / 20, out[1][1], 1e-12);
}

TEST(rows_sum_to_one_unused_rows_empty)
{
	double out[BWM_MAX_NODES][BWM_MAX_NODES];
	int threads[4] = { 2, 0, 5, 1 }, c, j;

	ASSERT_EQ(0, bwm_signature_matrix(&example, 4, threads, out));
	for (c = 0; c < 4; c++) {
		double s = 0;

		for (j = 0; j < 4; j++)
			s += out[c][j];
		EXPECT_NEAR(threads[c] ? 1 : 0, s, 1e-12);
	}
	/* interleaved memory only on used nodes; node 1 is the static one */
	EXPECT_NEAR(0.2, out[0][1], 1e-12);
}

TEST(bad_signatures)
{
	double out[BWM_MAX_NODES][BWM_MAX_NODES];
	struct bwm_signature s = example;
	int threads[2] = { 1, 1 }, none[2] = { 0, 0 };

	s.local_frac = 0.6;	/* 0.2 + 0.6 + 0.3 > 1 */
	EXPECT_EQ(-EINVAL, bwm_signature_matrix(&s, 2, threads, out));
	s = example;
	s.static_node = 2;
	EXPECT_EQ(-EINVAL, bwm_signature_matrix(&s, 2, threads, out));
	EXPECT_EQ(-EINVAL, bwm_signature_matrix(&example, 2, none, out));
}

/* 3/4 of each thread's accesses local; node 1's threads at half speed. */
TEST(normalisation_example)
{
	double access[BWM_MAX_NODES][BWM_MAX_NODES] = {
		{ 0.75, 0.25 }, { 0.25, 0.75 },
	};
	double rate[2] = { 1, 0.5 }, local[2], remote[2];
	int threads[2] = { 1, 1 };

	ASSERT_EQ(0, bwm_bank_view(2, threads, rate, access, local, remote));
	EXPECT_NEAR(6.0 / 7, local[0] / (local[0] + remote[0]), 1e-12);
	EXPECT_NEAR(6.0 / 10, local[1] / (local[1] + remote[1]), 1e-12);
	/* traffic relative to full speed */
	EXPECT_NEAR(7.0 / 8, local[0] + remote[0], 1e-12);
	EXPECT_NEAR(5.0 / 8, local[1] + remote[1], 1e-12);
	/* dividing by the speeds gives back the threads' own pattern */
	ASSERT_EQ(0, bwm_bank_normalise(rate, local, remote));
	EXPECT_NEAR(0.75, local[0] / (local[0] + remote[0]), 1e-12);
	EXPECT_NEAR(0.75, local[1] / (local[1] + remote[1]), 1e-12);
	rate[1] = 0;
	EXPECT_EQ(-EINVAL, bwm_bank_normalise(rate, local, remote));
}

/* Bank view of a signature for a placement, at equal speeds. */
static void bank(const struct bwm_signature *sig, const int *threads,
		 double *local, double *remote)
{
	double m[BWM_MAX_NODES][BWM_MAX_NODES], rate[2] = { 1, 1 };

	bwm_signature_matrix(sig, 2, threads, m);
	bwm_bank_view(2, threads, rate, m, local, remote);
}

TEST(fit_recovers_the_example)
{
	int sym[2] = { 2, 2 }, asym[2] = { 3, 1 };
	double sl[2], sr[2], al[2], ar[2], r;
	struct bwm_signature fit;

	bank(&example, sym, sl, sr);
	bank(&example, asym, al, ar);
	/* the remote share the paper quotes once static traffic is out */
	r = (sr[0]) / (sl[0] + sr[0]);
	EXPECT_NEAR(0.28125, r, 1e-12);
	ASSERT_EQ(0, bwm_signature_fit(2, sl, sr, asym, al, ar, &fit));
	EXPECT_EQ(1, fit.static_node);
	EXPECT_NEAR(0.2, fit.static_frac, 1e-12);
	EXPECT_NEAR(0.35, fit.local_frac, 1e-12);
	EXPECT_NEAR(0.3, fit.per_thread_frac, 1e-12);
}

TEST(fit_other_signatures)
{
	static const struct bwm_signature sigs[] = {
		{ 0, 0.5, 0.1, 0.2 },
		{ 1, 0.0, 0.0, 1.0 },
		{ 0, 0.0, 0.7, 0.0 },
	};
	int sym[2] = { 4, 4 }, asym[2] = { 1, 5 };
	unsigned int i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		double sl[2], sr[2], al[2], ar[2];
		struct bwm_signature fit;

		bank(&sigs[i], sym, sl, sr);
		bank(&sigs[i], asym, al, ar);
		ASSERT_EQ(0, bwm_signature_fit(4, sl, sr, asym, al, ar, &fit));
		if (sigs[i].static_frac > 0)
			EXPECT_EQ(sigs[i].static_node, fit.static_node);
		EXPECT_NEAR(sigs[i].static_frac, fit.static_frac, 1e-9);
		EXPECT_NEAR(sigs[i].local_frac, fit.local_frac, 1e-9);
		EXPECT_NEAR(sigs[i].per_thread_frac, fit.per_thread_frac, 1e-9);
	}
}

TEST(fit_needs_an_asymmetric_run)
{
	double l[2] = { 1, 1 }, r[2] = { 1, 1 };
	int sym[2] = { 2, 2 };
	struct bwm_signature fit;

	/* equal thread counts cannot tell per-thread data apart */
	EXPECT_EQ(-EINVAL, bwm_signature_fit(2, l, r, sym, l, r, &fit));
	EXPECT_EQ(-EINVAL, bwm_signature_fit(0, l, r, sym, l, r, &fit));
}

TEST_HARNESS_MAIN
