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
	ASSERT_EQ(0, bwm_bank_normalise(2, threads, rate, local, remote));
	EXPECT_NEAR(0.75, local[0] / (local[0] + remote[0]), 1e-12);
	EXPECT_NEAR(0.75, local[1] / (local[1] + remote[1]), 1e-12);
	rate[1] = 0;
	EXPECT_EQ(-EINVAL, bwm_bank_normalise(2, threads, rate, local, remote));
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

/*
 * Fit each of sigs back from its bank views on two nodes: sym threads on
 * each, then asym[]; 0 or the index + 1 of the first that does not fit.
 */
static unsigned int fit_each(struct __test_metadata *_metadata,
			     const struct bwm_signature *sigs, unsigned int n,
			     int sym, const int *asym)
{
	int s2[2] = { sym, sym };
	unsigned int i;

	for (i = 0; i < n; i++) {
		double sl[2], sr[2], al[2], ar[2];
		struct bwm_signature fit;

		bank(&sigs[i], s2, sl, sr);
		bank(&sigs[i], asym, al, ar);
		if (bwm_signature_fit(sym, sl, sr, asym, al, ar, &fit))
			return i + 1;
		if (sigs[i].static_frac > 0)
			EXPECT_EQ(sigs[i].static_node, fit.static_node);
		EXPECT_NEAR(sigs[i].static_frac, fit.static_frac, 1e-9);
		EXPECT_NEAR(sigs[i].local_frac, fit.local_frac, 1e-9);
		EXPECT_NEAR(sigs[i].per_thread_frac, fit.per_thread_frac, 1e-9);
	}
	return 0;
}

TEST(fit_other_signatures)
{
	static const struct bwm_signature sigs[] = {
		{ 0, 0.5, 0.1, 0.2 },
		{ 1, 0.0, 0.0, 1.0 },
		{ 0, 0.0, 0.7, 0.0 },
	};
	int asym[2] = { 1, 5 };

	EXPECT_EQ(0U, fit_each(_metadata, sigs, 3, 4, asym));
}

/*
 * The paper's synthetic benchmark classes (section 6.1), each pure and
 * in mixtures: pure Static and pure Local leave nothing of the traffic
 * to tell per-thread from interleaved memory, and the fit must say
 * "none of either" rather than fail.
 */
TEST(fit_pure_classes_and_mixtures)
{
	static const struct bwm_signature sigs[] = {
		{ 0, 1.0, 0.0, 0.0 },	/* Static on node 0 */
		{ 1, 1.0, 0.0, 0.0 },	/* Static on node 1 */
		{ 0, 0.0, 1.0, 0.0 },	/* Local */
		{ 0, 0.0, 0.0, 1.0 },	/* Per-thread */
		{ 0, 0.0, 0.0, 0.0 },	/* Interleaved */
		{ 1, 0.4, 0.6, 0.0 },	/* Static + Local */
		{ 0, 0.3, 0.0, 0.7 },	/* Static + Per-thread */
		{ 0, 0.0, 0.5, 0.5 },	/* Local + Per-thread */
		{ 1, 0.25, 0.25, 0.25 },	/* all four */
	};
	int asym[2] = { 4, 2 };

	EXPECT_EQ(0U, fit_each(_metadata, sigs, 9, 3, asym));
}

/* A run of sig on nr nodes, threads at speeds rate[], normalised. */
static int run_of(const struct bwm_signature *sig, int nr, const int *threads,
		  const double *rate, struct bwm_bank_run *run)
{
	double m[BWM_MAX_NODES][BWM_MAX_NODES];

	memset(run, 0, sizeof(*run));
	memcpy(run->threads, threads, sizeof(int) * nr);
	return bwm_signature_matrix(sig, nr, threads, m) ||
	       bwm_bank_view(nr, threads, rate, m, run->local, run->remote) ||
	       bwm_bank_normalise(nr, threads, rate, run->local, run->remote);
}

/*
 * Beyond two sockets: four used nodes running at different speeds, and
 * a fifth, memory-only node that holds the static allocation.  Remote
 * traffic from every other node carries the same share of a thread's
 * traffic, so the normalisation is exact and so is the fit.
 */
TEST(fit_four_nodes_unequal_speeds)
{
	static const struct bwm_signature sigs[] = {
		{ 2, 0.2, 0.35, 0.3 },
		{ 4, 0.3, 0.1, 0.4 },	/* static on the memory-only node */
		{ 4, 1.0, 0.0, 0.0 },
		{ 0, 0.0, 1.0, 0.0 },
		{ 1, 0.0, 0.0, 1.0 },
		{ 1, 0.0, 0.0, 0.0 },
	};
	int sym[5] = { 2, 2, 2, 2, 0 }, asym[5] = { 4, 1, 2, 1, 0 };
	double rs[5] = { 1, 0.5, 0.8, 0.9, 0 }, ra[5] = { 0.6, 1, 0.7, 1, 0 };
	unsigned int i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct bwm_signature_quality q;
		struct bwm_bank_run a, b;
		struct bwm_signature fit;

		ASSERT_EQ(0, run_of(&sigs[i], 5, sym, rs, &a));
		ASSERT_EQ(0, run_of(&sigs[i], 5, asym, ra, &b));
		ASSERT_EQ(0, bwm_signature_fit_runs(5, &a, &b, &fit, &q))
			TH_LOG("signature %u", i);
		if (sigs[i].static_frac > 0)
			EXPECT_EQ(sigs[i].static_node, fit.static_node);
		EXPECT_NEAR(sigs[i].static_frac, fit.static_frac, 1e-9);
		EXPECT_NEAR(sigs[i].local_frac, fit.local_frac, 1e-9);
		EXPECT_NEAR(sigs[i].per_thread_frac, fit.per_thread_frac, 1e-9);
		EXPECT_NEAR(0, q.residual, 1e-9);
		EXPECT_NEAR(0, q.asymmetry, 1e-9);
		EXPECT_EQ(1, q.fits);
	}
}

/*
 * What the model cannot describe is reported, not fitted silently:
 * memory interleaved onto a node without threads (weighted interleave
 * onto a CXL expander), and the paper's Page rank case, where one
 * node's threads do more of the work than the others.
 */
TEST(fit_reports_what_does_not_fit)
{
	double m[BWM_MAX_NODES][BWM_MAX_NODES] = { { 0 } };
	double rate[4] = { 1, 1, 1, 1 };
	struct bwm_signature_quality q;
	struct bwm_bank_run a = { 0 }, b = { 0 };
	struct bwm_signature fit, il = { 0, 0, 0, 0 };
	int sym[4] = { 2, 2, 0, 0 }, asym[4] = { 3, 1, 0, 0 }, c, j;

	/*
	 * Each thread's pages over all four nodes, two of them memory-only
	 * (one such node alone would look like a static allocation).
	 */
	for (c = 0; c < 2; c++)
		for (j = 0; j < 4; j++)
			m[c][j] = 0.25;
	memcpy(a.threads, sym, sizeof(sym));
	memcpy(b.threads, asym, sizeof(asym));
	bwm_bank_view(4, sym, rate, m, a.local, a.remote);
	bwm_bank_view(4, asym, rate, m, b.local, b.remote);
	/* what went to the memory-only nodes stays unexplained */
	ASSERT_EQ(0, bwm_signature_fit_runs(4, &a, &b, &fit, &q));
	EXPECT_GT(q.residual, 0.2);
	EXPECT_EQ(0, q.fits);

	/* node 0's threads do twice the work: skewed symmetric run */
	ASSERT_EQ(0, run_of(&il, 2, sym, rate, &a));
	ASSERT_EQ(0, run_of(&il, 2, asym, rate, &b));
	a.local[0] *= 2;
	a.remote[1] *= 2;
	ASSERT_EQ(0, bwm_signature_fit_runs(2, &a, &b, &fit, &q));
	EXPECT_GT(q.asymmetry, BWM_SIG_MAX_ASYMMETRY);
	EXPECT_EQ(0, q.fits);

	/* one used node, or equal counts in the second run: no fit */
	memset(sym, 0, sizeof(sym));
	sym[0] = 2;
	ASSERT_EQ(0, run_of(&il, 4, sym, rate, &a));
	EXPECT_EQ(-EINVAL, bwm_signature_fit_runs(4, &a, &b, &fit, &q));
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
