// SPDX-License-Identifier: GPL-2.0
/*
 * The canonical tuner against the model backend: on every preset, the
 * weights computed from the simulated counters of a profiling run match
 * Eq. 5 on the bandwidths the benchmark's threads get from the preset
 * (bench_truth()) within 2 %, although the model's benchmark start
 * writes its array like a real one; without counters the fallbacks say
 * what they used.
 */
#include "bwapd_test.h"
#include "backend.h"
#include "profile.h"
#include "worksets.h"

static const char *const presets[] = {
	"bwap-a", "bwap-b", "haswell-2s-8c", "haswell-2s-18c", "dram-cxl",
	"uneven-2s-cxl",
};

/*
 * Eq. 5 on what the benchmark measures: in the phase of node j, all the
 * cores of every worker node stream loads from j, each node's threads a
 * flow of the benchmark (bwm_bench_flows(), noise-free).  Where the
 * threads cannot keep a path full (too few lines in flight for its
 * latency), that is what a real profile counts, not the path's width.
 */
static int bench_truth(const struct bwm_machine *m, uint32_t workers,
		       double *frac)
{
	double bw[BWM_MAX_NODES][BWM_MAX_NODES] = { { 0 } };
	struct bwm_flow f[BWM_MAX_NODES];
	struct bwm_flow_result r[BWM_MAX_NODES];
	int n = m->nr_nodes, nf = 0, j, k;

	memset(f, 0, sizeof(f));
	for (j = 0; j < n; j++)
		if (workers & (1u << j))
			f[nf++].cpu = j;
	for (j = 0; j < n; j++) {
		for (k = 0; k < nf; k++)
			f[k].mem = 1u << j;
		if (bwm_bench_flows(m, nf, f, 0, NULL, r))
			return -EINVAL;
		for (k = 0; k < nf; k++)
			bw[j][f[k].cpu] = r[k].gbps;
	}
	return bwm_canonical_fractions(bw, n, workers, frac);
}

/* Largest relative error of the measured fractions over every set. */
static int check_preset(struct __test_metadata *_metadata, const char *name,
			double noise, double tol)
{
	static struct bwapd_sets sets;
	struct bwapd_profile_opts po = { .seconds = 1,
					 .u8_err = BWM_DEFAULT_U8_ERR };
	struct bwapd_backend b;
	struct bwapd_topology t;
	struct bwm_machine m;
	struct bwm_error err;
	struct bwapd_set_opts so = { 0 };
	char path[4096], why[256];
	double worst = 0;
	int i, j, n = 0;

	ASSERT_EQ(0, bwm_machine_load(preset(name, path, sizeof(path)), &m, &err));
	ASSERT_EQ(0, bwapd_backend_model(&b, path, 7, noise, why, sizeof(why)))
		TH_LOG("%s", why);
	ASSERT_EQ(0, b.ops->topology(&b, &t, why, sizeof(why)));
	ASSERT_EQ(0, b.ops->ctrl_open(&b, why, sizeof(why)));
	ASSERT_EQ(0, bwapd_sets_enumerate(&t, &so, &sets));
	po.seconds = __builtin_popcount(t.mem_nodes);	/* 1 s a node */
	for (i = 0; i < sets.nr; i++) {
		const struct bwapd_set *s = &sets.set[i];
		struct bwapd_result r;
		double frac[BWM_MAX_NODES], wsum = 0;

		if (s->skip)
			continue;
		ASSERT_EQ(0, bwapd_profile_set(&b, &t, s->workers, 1, &po, &r));
		EXPECT_EQ((int)BWAPD_SRC_COUNTERS, (int)r.source);
		ASSERT_EQ(0, bench_truth(&m, s->workers, frac));
		for (j = 0; j < m.nr_nodes; j++)
			wsum += r.weights[j];
		for (j = 0; j < m.nr_nodes; j++) {
			double e = fabs(r.frac[j] - frac[j]) / frac[j];

			if (e > worst)
				worst = e;
			EXPECT_TRUE(e <= tol)
				TH_LOG("%s workers 0x%x node %d: %.5f, Eq. 5 %.5f",
				       name, s->workers, j, r.frac[j], frac[j]);
			/* the u8 weights keep the page shares */
			EXPECT_NEAR(frac[j], r.weights[j] / wsum,
				    tol * frac[j] + BWM_DEFAULT_U8_ERR);
		}
		n++;
	}
	EXPECT_LT(0, n);
	fprintf(stderr, "# %s: %d sets profiled, noise %.0f %%: largest error %.3f %%\n",
	       name, n, noise * 100, worst * 100);
	bwapd_backend_destroy(&b);
	return 0;
}

TEST(eq5_from_counters_exact)
{
	unsigned int i;

	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		check_preset(_metadata, presets[i], 0, 1e-6);
}

/* 1 % counter noise, 1 s a node in ten 0.1 s reads: within 2 % */
TEST(eq5_from_noisy_counters_within_2_percent)
{
	unsigned int i;

	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		check_preset(_metadata, presets[i], 0.01, 0.02);
}

/*
 * The benchmark's start (the kernel zeroing its pages, the benchmark
 * writing them) moves a lot of bytes through every controller, as on
 * real hardware; counters read before it make the weights uniform.  The
 * model counts it, and the profile must not.
 */
TEST(startup_traffic_visible_not_measured)
{
	struct bwapd_profile_opts po = { .seconds = 3,
					 .u8_err = BWM_DEFAULT_U8_ERR };
	struct bwapd_bench_result br;
	struct bwapd_backend b;
	struct bwapd_topology t;
	struct bwapd_result r;
	struct bwm_machine m;
	struct bwm_error err;
	uint64_t r0, w0, r1, w1;
	double frac[BWM_MAX_NODES];
	char path[4096], why[256];
	int j;

	ASSERT_EQ(0, bwm_machine_load(preset("dram-cxl", path, sizeof(path)), &m, &err));
	ASSERT_EQ(0, bwapd_backend_model(&b, path, 1, 0, why, sizeof(why)));
	ASSERT_EQ(0, b.ops->topology(&b, &t, why, sizeof(why)));
	ASSERT_EQ(0, b.ops->ctrl_bytes(&b, 2, &r0, &w0));
	ASSERT_EQ(0, b.ops->bench_start(&b, 0x1));
	ASSERT_EQ(0, b.ops->ctrl_bytes(&b, 2, &r1, &w1));
	/* the start wrote the array: twice its share of the node */
	EXPECT_LT(w0 + (1ULL << 30) - 1, w1);
	ASSERT_EQ(0, b.ops->bench_stop(&b, &br));
	/* and the weights are those of the phases alone */
	ASSERT_EQ(0, bwapd_profile_set(&b, &t, 0x1, 1, &po, &r));
	ASSERT_EQ(0, bench_truth(&m, 0x1, frac));
	for (j = 0; j < m.nr_nodes; j++)
		EXPECT_NEAR(frac[j], r.frac[j], 1e-9);
	bwapd_backend_destroy(&b);
}

TEST(fallback_hmat_then_slit)
{
	struct bwapd_profile_opts po = { .seconds = 1, .no_counters = 1,
					 .u8_err = BWM_DEFAULT_U8_ERR };
	struct bwapd_backend b;
	struct bwapd_topology t;
	struct bwapd_result r;
	char path[4096], why[256];

	ASSERT_EQ(0, bwapd_backend_model(&b, preset("dram-cxl", path, sizeof(path)),
					 1, 0, why, sizeof(why)));
	ASSERT_EQ(0, b.ops->topology(&b, &t, why, sizeof(why)));
	ASSERT_EQ(0, bwapd_profile_set(&b, &t, 0x1, 1, &po, &r));
	EXPECT_EQ((int)BWAPD_SRC_HMAT, (int)r.source);
	EXPECT_EQ(0, r.seconds);
	/* node 0's HMAT figure: min(read, write) of its best path */
	EXPECT_NEAR(fmin(t.node[0].read_bw, t.node[0].write_bw) / 1000.0,
		    r.minbw[0], 1e-9);
	EXPECT_TRUE(r.frac[0] > r.frac[1] && r.frac[1] > r.frac[2]);
	/* no HMAT: SLIT, relative */
	t.node[2].initiators = 0;
	ASSERT_EQ(0, bwapd_profile_set(&b, &t, 0x1, 0, &po, &r));
	EXPECT_EQ((int)BWAPD_SRC_SLIT, (int)r.source);
	EXPECT_NEAR(1, r.minbw[0], 1e-12);
	EXPECT_NEAR(10.0 / t.node[0].distance[1], r.minbw[1], 1e-12);
	/* unknown worker sets and CPU-less workers are refused */
	EXPECT_EQ(-EINVAL, bwapd_profile_set(&b, &t, 0x4, 0, &po, &r));
	EXPECT_EQ(-EINVAL, bwapd_profile_set(&b, &t, 0, 0, &po, &r));
	bwapd_backend_destroy(&b);
}

/* numa4's HMAT and SLIT give worker 0 the bandwidths 240000/d MB/s */
TEST(hmat_numa4_figures)
{
	struct bwapd_profile_opts po = { .seconds = 1, .no_counters = 1,
					 .u8_err = BWM_DEFAULT_U8_ERR };
	static const double want[4] = { 24, 20, 12, 8.571428 };
	struct bwapd_backend b;
	struct bwapd_topology t;
	struct bwapd_result r;
	char dir[64], why[256];
	int j;

	ASSERT_NE(NULL, temp_dir(dir, sizeof(dir)));
	ASSERT_EQ(0, fake_numa4(dir, 1, 1));
	ASSERT_EQ(0, bwapd_backend_real(&b, dir));
	ASSERT_EQ(0, b.ops->topology(&b, &t, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, bwapd_profile_set(&b, &t, 0x1, 0, &po, &r));
	EXPECT_EQ((int)BWAPD_SRC_HMAT, (int)r.source);
	for (j = 0; j < 4; j++)
		EXPECT_NEAR(want[j], r.minbw[j], 1e-5);
	/* workers 0-1: the weaker of the two paths */
	ASSERT_EQ(0, bwapd_profile_set(&b, &t, 0x3, 0, &po, &r));
	EXPECT_NEAR(240.0 / 14, r.minbw[0], 1e-9);
	EXPECT_NEAR(240.0 / 22, r.minbw[2], 1e-9);
	EXPECT_EQ(0, b.ops->ctrl_open(&b, why, sizeof(why)) == 0);
	EXPECT_NE(NULL, strstr(why, "no memory controller PMU")) TH_LOG("%s", why);
	bwapd_backend_destroy(&b);
	rm_tree(dir);
}

/*
 * The worker sets' benchmark time: 2 s a set while the sets take 90 s at
 * most (machine A's 17), then shared (ladder-8's 127: 0.71 s), never
 * below 0.5 s; --seconds, given, holds.
 */
TEST(sets_share_the_benchmark_time)
{
	EXPECT_EQ(2.0, bwapd_profile_set_seconds(17, 2, 0));
	EXPECT_EQ(2.0, bwapd_profile_set_seconds(45, 2, 0));
	EXPECT_NEAR(90.0 / 127, bwapd_profile_set_seconds(127, 2, 0), 1e-12);
	EXPECT_EQ(0.5, bwapd_profile_set_seconds(255, 2, 0));
	EXPECT_EQ(2.0, bwapd_profile_set_seconds(127, 2, 1));
	EXPECT_EQ(0.3, bwapd_profile_set_seconds(127, 0.3, 0));
	EXPECT_EQ(2.0, bwapd_profile_set_seconds(0, 2, 0));
}

TEST_HARNESS_MAIN
