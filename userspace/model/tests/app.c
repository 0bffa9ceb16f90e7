// SPDX-License-Identifier: GPL-2.0
/*
 * Applications beyond the workload (bwm_app): the rate of a program of
 * rounds is the instructions of a round over its time, drawn
 * applications stay in their ranges, and the optimum is no worse than
 * any placement tried.
 */
#include <math.h>

#include "bwm_test.h"

static void uniform(double *f, int n)
{
	int j;

	for (j = 0; j < n; j++)
		f[j] = 1.0 / n;
}

/* One phase without other stalls: instructions are the unwaited cycles. */
TEST(one_phase_rate_is_its_throughput_over_the_demand)
{
	struct bwm_machine m;
	struct bwm_app app;
	struct bwm_placement pl;
	double f[BWM_MAX_NODES], g;

	ASSERT_EQ(0, bwm_test_load("bwap-b", "mixed", 0, &m, &app.phase[0]));
	app.nr_phases = 1;
	app.insns[0] = 1e9;
	app.prefetch = 0;
	app.other_stalls = 0;
	uniform(f, m.nr_nodes);
	bwm_placement_interleave(&pl, m.nr_nodes, f);
	g = bwm_predict_throughput(&m, &app.phase[0], &pl);
	ASSERT_LT(0, g);
	EXPECT_NEAR(g * m.cpu_ghz * 1e9 / bwm_thread_demand(&m, &app.phase[0]),
		    bwm_app_rate(&m, &app, f), 1e-6 * g * 1e9);
	/* a quarter of the unwaited cycles stalled on something else */
	app.other_stalls = 0.25;
	EXPECT_NEAR(0.75 * g * m.cpu_ghz * 1e9 /
		    bwm_thread_demand(&m, &app.phase[0]),
		    bwm_app_rate(&m, &app, f), 1e-6 * g * 1e9);
	app.nr_phases = 0;
	EXPECT_EQ(-EINVAL, bwm_app_rate(&m, &app, f));
}

/* Two phases: the round's instructions over the sum of the phases' times. */
TEST(two_phases_take_their_instructions_time)
{
	struct bwm_machine m;
	struct bwm_app app;
	double f[BWM_MAX_NODES], r0, r1, r;

	ASSERT_EQ(0, bwm_test_load("bwap-b", "bandwidth-bound", 0, &m,
				   &app.phase[0]));
	ASSERT_EQ(0, bwm_test_load("bwap-b", "latency-bound", 0, &m,
				   &app.phase[1]));
	app.prefetch = 0;
	app.other_stalls = 0.1;
	uniform(f, m.nr_nodes);
	app.nr_phases = 1;
	app.insns[0] = 3e9;
	r0 = bwm_app_rate(&m, &app, f);
	app.phase[0] = app.phase[1];
	app.insns[0] = 1e9;
	r1 = bwm_app_rate(&m, &app, f);
	ASSERT_EQ(0, bwm_test_load("bwap-b", "bandwidth-bound", 0, &m,
				   &app.phase[0]));
	app.nr_phases = 2;
	app.insns[0] = 3e9;
	app.insns[1] = 1e9;
	r = bwm_app_rate(&m, &app, f);
	EXPECT_NEAR(4e9 / (3e9 / r0 + 1e9 / r1), r, 1e-9 * r);
	EXPECT_LE(fmin(r0, r1), r);
	EXPECT_GE(fmax(r0, r1), r);
}

TEST(drawn_applications_stay_in_their_ranges)
{
	struct bwm_machine m;
	struct bwm_workload a, b;
	int s, j, fewer = 0;

	ASSERT_EQ(0, bwm_test_load("ring-8", "mixed", 0x3, &m, &a));
	ASSERT_EQ(0, bwm_test_load("ring-8", "latency-bound", 0x3, &m, &b));
	for (s = 0; s < 50; s++) {
		struct bwm_app app;
		double f[BWM_MAX_NODES], t0, t1, r0, r1;
		struct bwm_placement pl;

		ASSERT_EQ(0, bwm_app_draw(&m, &a, &b, (uint64_t)s, &app));
		EXPECT_EQ(2, app.nr_phases);
		EXPECT_LE(BWM_APP_PREFETCH_MIN, app.prefetch);
		EXPECT_GT(BWM_APP_PREFETCH_MAX, app.prefetch);
		EXPECT_LE(BWM_APP_OTHER_MIN, app.other_stalls);
		EXPECT_GT(BWM_APP_OTHER_MAX, app.other_stalls);
		/* the first worker keeps its threads; the other has fewer */
		EXPECT_EQ(a.threads[0], app.phase[0].threads[0]);
		EXPECT_EQ(app.phase[0].threads[1], app.phase[1].threads[1]);
		EXPECT_LE(1, app.phase[0].threads[1]);
		EXPECT_GE(a.threads[1], app.phase[0].threads[1]);
		fewer += app.phase[0].threads[1] < a.threads[1];
		for (j = 2; j < m.nr_nodes; j++)
			EXPECT_EQ(0, app.phase[0].threads[j]);
		/* under uniform interleave a round takes the drawn time */
		uniform(f, m.nr_nodes);
		bwm_placement_interleave(&pl, m.nr_nodes, f);
		r0 = bwm_app_phase_ips(&m, &app, 0,
				       bwm_predict_throughput(&m, &app.phase[0], &pl));
		r1 = bwm_app_phase_ips(&m, &app, 1,
				       bwm_predict_throughput(&m, &app.phase[1], &pl));
		t0 = app.insns[0] / r0;
		t1 = app.insns[1] / r1;
		EXPECT_LE(BWM_APP_ROUND_MIN_S * (1 - 1e-9), t0 + t1);
		EXPECT_GE(BWM_APP_ROUND_MAX_S * (1 + 1e-9), t0 + t1);
		EXPECT_LE(BWM_APP_PHASE_MIN - 1e-9, t1 / (t0 + t1));
		EXPECT_GE(BWM_APP_PHASE_MAX + 1e-9, t1 / (t0 + t1));
	}
	EXPECT_LT(40, fewer);
	b.workers = 0x1;
	EXPECT_EQ(-EINVAL, bwm_app_draw(&m, &a, &b, 1, NULL));
}

struct ctx {
	const struct bwm_machine *m;
	const struct bwm_app *app;
};

static double rate_of(void *arg, const double *frac)
{
	struct ctx *c = arg;

	return bwm_app_rate(c->m, c->app, frac);
}

/* The optimum beats every placement of a coarser grid and uniform interleave. */
TEST(optimum_beats_what_it_searched)
{
	struct bwm_machine m;
	struct bwm_workload a, b;
	struct bwm_app app;
	double f[BWM_MAX_NODES], best, v, opt;
	struct ctx ctx;
	int i;

	ASSERT_EQ(0, bwm_test_load("bwap-a", "private-heavy", 0x1, &m, &a));
	ASSERT_EQ(0, bwm_test_load("bwap-a", "latency-bound", 0x1, &m, &b));
	ASSERT_EQ(0, bwm_app_draw(&m, &a, &b, 7, &app));
	opt = bwm_app_optimum(&m, &app, 20, f);
	ASSERT_LT(0, opt);
	EXPECT_NEAR(opt, bwm_app_rate(&m, &app, f), 1e-9 * opt);
	for (i = 0; i < m.nr_nodes; i++)
		EXPECT_LE(-1e-12, f[i]);
	EXPECT_EQ(-EINVAL, bwm_search_by(m.nr_nodes, NULL, NULL, 5, f, &best));
	ctx.m = &m;
	ctx.app = &app;
	ASSERT_LT(0, bwm_search_by(m.nr_nodes, rate_of, &ctx, 8, f, &best));
	EXPECT_GE(opt * (1 + 1e-12), best);
	uniform(f, m.nr_nodes);
	v = bwm_app_rate(&m, &app, f);
	EXPECT_GE(opt, v);
}

/*
 * A ridge: the least of nodes 1 and 2's shares, node 3's held at 0.1.
 * From 0.4, 0.25, 0.25, 0.1 no pair of nodes trading pages helps, nor
 * mixing with one node or leaving it (node 3's share moves); pages from
 * node 0 to 1 and 2 alike do, up to 0, 0.45, 0.45, 0.1.
 */
static double ridge_of(void *arg, const double *frac)
{
	(void)arg;
	return fmin(frac[1], frac[2]) - 3 * fabs(frac[3] - 0.1);
}

TEST(ridge_climbs_where_pairs_stop)
{
	const double start[4] = { 0.4, 0.25, 0.25, 0.1 };
	double f[4], v;

	memcpy(f, start, sizeof(f));
	ASSERT_LT(0, bwm_refine_by(4, ridge_of, NULL, 0.1, 0.001, f, &v));
	EXPECT_NEAR(0.25, v, 1e-9);
	ASSERT_LT(0, bwm_ridge_by(4, ridge_of, NULL, 0.1, 0.001, f, &v));
	EXPECT_NEAR(0.45, v, 1e-3);
	EXPECT_NEAR(0.1, f[3], 1e-9);
	EXPECT_NEAR(1, f[0] + f[1] + f[2] + f[3], 1e-9);
	EXPECT_EQ(-EINVAL, bwm_ridge_by(4, ridge_of, NULL, 0, 0.001, f, &v));
	EXPECT_EQ(-EINVAL, bwm_ridge_by(0, ridge_of, NULL, 0.1, 0.001, f, &v));
}

TEST_HARNESS_MAIN
