// SPDX-License-Identifier: GPL-2.0
/*
 * The DWP tuner against the model: on every preset machine and workload
 * class, with the paper's parameters (n = 20, t = 0.2 s, c = 5, x = 10 %)
 * and 1 % noise on every counter read, the tuner ends within 2 % of the
 * best throughput of an exhaustive DWP search (1 % grid) and within 5 %
 * of the exhaustive weight-vector optimum, in at most 10 steps.  The
 * paper's forward-only search runs beside it for the table.  Then: a
 * phase change makes it tune again; the weights it leaves are always
 * those of a measured setting; bad parameters are refused.
 */
#include "bwapd_test.h"
#include "target.h"
#include "tune.h"

static const char *const machines[] = {
	"bwap-a", "bwap-b", "haswell-2s-8c", "haswell-2s-18c", "dram-cxl",
};
static const char *const workloads[] = {
	"bandwidth-bound", "latency-bound", "mixed", "private-heavy",
};

/* Throughput of the pages spread by the weights w. */
static double weights_gbps(const struct bwm_machine *m,
			   const struct bwm_workload *wl, const uint8_t *w)
{
	struct bwm_placement pl;
	double f[BWM_MAX_NODES];

	if (bwm_weights_to_fractions(w, m->nr_nodes, f))
		return -1;
	bwm_placement_interleave(&pl, m->nr_nodes, f);
	return bwm_predict_throughput(m, wl, &pl);
}

struct row {
	double best_dwp, dwp_gbps, opt_gbps;
	double dwp, gbps;
	int steps;
	double paper_dwp, paper_gbps;
	int paper_steps;
};

static int run_case(struct __test_metadata *_metadata, const char *mach,
		    const char *work, uint32_t workers, struct row *row)
{
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_eval ev;
	struct bwm_eval_opts eo;
	struct bwapd_tune_opts o;
	struct bwapd_tune_result r;
	struct bwapd_target t;
	double canon[BWM_MAX_NODES], d[128], g[128];
	int pass;

	/* canonical weights: Eq. 5 on the profiling run */
	if (model_canonical(mach, work, workers, &m, &wl, canon))
		return -1;
	/* the exhaustive DWP search and the weight-vector optimum */
	if (bwm_dwp_sweep(&m, &wl, canon, 0.01, BWM_DEFAULT_U8_ERR, d, g,
			  NULL, 128, &row->best_dwp) < 0)
		return -1;
	row->dwp_gbps = 0;
	for (pass = 0; pass < 101; pass++)
		row->dwp_gbps = fmax(row->dwp_gbps, g[pass]);
	bwm_eval_opts_default(&eo);
	eo.search_steps = m.nr_nodes > 4 ? 10 : 20;
	if (bwm_evaluate(&m, &wl, &eo, &ev))
		return -1;
	row->opt_gbps = ev.r[BWM_OPTIMUM].pred.throughput_gbps;

	for (pass = 0; pass < 2; pass++) {
		bwapd_tune_opts_default(&o);
		o.forward_only = pass;
		if (pass)
			o.metric = BWAPD_STALL_RATE;
		EXPECT_EQ(0, bwapd_target_model(&t, &m, &wl, 11, 0.01, NULL));
		EXPECT_EQ(0, bwapd_tune(&t, canon, &o, &r)) TH_LOG("%s", t.why);
		if (pass) {
			row->paper_dwp = r.dwp;
			row->paper_steps = r.steps;
			row->paper_gbps = weights_gbps(&m, &wl, r.weights);
		} else {
			row->dwp = r.dwp;
			row->steps = r.steps;
			row->gbps = weights_gbps(&m, &wl, r.weights);
		}
		bwapd_target_close(&t);
	}
	return 0;
}

TEST(tuner_reaches_the_dwp_optimum_on_every_preset)
{
	double worst_dwp = 1, worst_opt = 1;
	unsigned int i, k;
	int nr = 0, steps = 0;

	fprintf(stderr, "# %-15s %-16s %-7s | %8s %8s | %5s %6s %5s %5s | %5s %6s %5s\n",
		"machine", "workload", "workers", "best dwp", "optimum",
		"dwp", "of dwp", "of opt", "steps", "paper", "of dwp",
		"steps");
	for (i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		for (k = 0; k < sizeof(workloads) / sizeof(workloads[0]); k++) {
			uint32_t sets[2] = { 1, 3 }, all;
			struct bwm_machine m;
			int s;

			ASSERT_EQ(0, bwm_test_load(machines[i], NULL, 0, &m, NULL));
			all = (1u << m.nr_nodes) - 1;
			for (s = 0; s < 2; s++) {
				struct row row;

				/* a DWP needs nodes that are not workers */
				if ((sets[s] & bwm_cpu_nodes(&m)) != sets[s] ||
				    sets[s] == all)
					continue;
				ASSERT_EQ(0, run_case(_metadata, machines[i],
						      workloads[k], sets[s], &row));
				fprintf(stderr,
					"# %-15s %-16s %-7s | %8.2f %8.2f | %5.3f %6.4f %5.3f %5d | %5.3f %6.4f %5d\n",
					machines[i], workloads[k],
					s ? "0-1" : "0", row.best_dwp,
					row.opt_gbps, row.dwp,
					row.gbps / row.dwp_gbps,
					row.gbps / row.opt_gbps, row.steps,
					row.paper_dwp,
					row.paper_gbps / row.dwp_gbps,
					row.paper_steps);
				EXPECT_GE(row.gbps, 0.98 * row.dwp_gbps)
					TH_LOG("%s %s workers %x: %.3f GB/s at DWP %.3f, best %.3f at %.2f",
					       machines[i], workloads[k], sets[s],
					       row.gbps, row.dwp, row.dwp_gbps,
					       row.best_dwp);
				EXPECT_GE(row.gbps, 0.95 * row.opt_gbps)
					TH_LOG("%s %s workers %x: %.3f GB/s, optimum %.3f",
					       machines[i], workloads[k], sets[s],
					       row.gbps, row.opt_gbps);
				EXPECT_LE(row.steps, 10);
				worst_dwp = fmin(worst_dwp, row.gbps / row.dwp_gbps);
				worst_opt = fmin(worst_opt, row.gbps / row.opt_gbps);
				steps = row.steps > steps ? row.steps : steps;
				nr++;
			}
		}
	}
	fprintf(stderr, "# %d cases: worst %.4f of the best DWP, %.4f of the optimum, at most %d steps\n",
		nr, worst_dwp, worst_opt, steps);
	EXPECT_LT(30, nr);
}

/* ---- a model target with faults, recording the weights it was given ---- */

struct faulty {
	struct bwapd_target inner;
	int fail_migrate_at;		/* the n-th migration fails; 0: none */
	int no_counters;
	int migrations, sets;
	uint8_t last[BWAPD_MAX_NODES];
};

static struct faulty *fy(struct bwapd_target *t)
{
	return t->priv;
}

static int f_counters(struct bwapd_target *t, struct bwapd_counters *c)
{
	int ret = fy(t)->inner.ops->counters(&fy(t)->inner, c);

	if (!ret && fy(t)->no_counters) {
		c->have = 0;
		snprintf(t->why, sizeof(t->why), "no counters here");
	}
	return ret;
}

static int f_set_weights(struct bwapd_target *t, const uint8_t *w, int nr)
{
	int ret = fy(t)->inner.ops->set_weights(&fy(t)->inner, w, nr);

	if (!ret) {
		fy(t)->sets++;
		memcpy(fy(t)->last, w, (size_t)nr);
	}
	return ret;
}

static int f_migrate(struct bwapd_target *t, const uint8_t *w, int nr,
		     const struct bwapd_migrate_opts *o,
		     struct bwapd_migration *m)
{
	if (++fy(t)->migrations == fy(t)->fail_migrate_at) {
		snprintf(t->why, sizeof(t->why), "injected");
		return -EIO;
	}
	return fy(t)->inner.ops->migrate(&fy(t)->inner, w, nr, o, m);
}

static int f_pages(struct bwapd_target *t, uint64_t *pages, int nr)
{
	return fy(t)->inner.ops->pages(&fy(t)->inner, pages, nr);
}

static int f_wait(struct bwapd_target *t, double s)
{
	return fy(t)->inner.ops->wait(&fy(t)->inner, s);
}

static const struct bwapd_target_ops faulty_ops = {
	.name = "faulty", .counters = f_counters, .set_weights = f_set_weights,
	.migrate = f_migrate, .pages = f_pages, .wait = f_wait,
};

FIXTURE(target) {
	struct bwm_machine m;
	struct bwm_workload wl;
	double canon[BWM_MAX_NODES];
	struct faulty f;
	struct bwapd_target t;
	struct bwapd_tune_opts o;
	struct bwapd_tune_result r;
};

FIXTURE_SETUP(target)
{
	ASSERT_EQ(0, model_canonical("bwap-b", "mixed", 1, &self->m, &self->wl,
				     self->canon));
	memset(&self->f, 0, sizeof(self->f));
	ASSERT_EQ(0, bwapd_target_model(&self->f.inner, &self->m, &self->wl,
					3, 0.01, NULL));
	self->t = self->f.inner;
	self->t.ops = &faulty_ops;
	self->t.priv = &self->f;
	bwapd_tune_opts_default(&self->o);
}

FIXTURE_TEARDOWN(target)
{
	bwapd_target_close(&self->f.inner);
}

/* The weights of DWP d, as the tuner computes them. */
static void dwp_weights(const double *canon, double d, const struct bwapd_tune_opts *o,
			uint8_t *w)
{
	memset(w, 0, BWAPD_MAX_NODES);
	bwapd_dwp_weights(canon, 4, 1, d, o->u8_err, w);
}

/* Machine B, mixed workload on node 0: the best DWP is about 0.9. */
TEST_F(target, tunes_and_leaves_the_best_weights)
{
	double d[128], g[128], best_dwp, best = 0;
	uint8_t w[BWAPD_MAX_NODES];
	int i, n;

	ASSERT_EQ(0, bwapd_tune(&self->t, self->canon, &self->o, &self->r));
	n = bwm_dwp_sweep(&self->m, &self->wl, self->canon, 0.01, 0.001, d, g,
			  NULL, 128, &best_dwp);
	for (i = 0; i < n; i++)
		best = fmax(best, g[i]);
	EXPECT_NEAR(0.9, best_dwp, 0.05);
	EXPECT_NEAR(best_dwp, self->r.dwp, 0.15);
	EXPECT_GE(weights_gbps(&self->m, &self->wl, self->r.weights),
		  0.98 * best);
	EXPECT_LE(self->r.steps, 10);
	dwp_weights(self->canon, self->r.dwp, &self->o, w);
	EXPECT_EQ(0, memcmp(w, self->f.last, 4));
	EXPECT_EQ(0, memcmp(w, self->r.weights, 4));
	EXPECT_GT_D(self->r.mapi, self->o.min_mapi);
}

/* A phase change (the application turns latency-bound): tuned again. */
TEST_F(target, phase_change_tunes_again)
{
	struct bwm_workload lat;
	int changed = -1;

	ASSERT_EQ(0, bwapd_tune(&self->t, self->canon, &self->o, &self->r));
	/*
	 * A steady phase: nothing to do.  Watching looks once every
	 * watch_every (5) seconds, and a change takes 3 looks in a row: 30
	 * seconds of the model's time hold 5 looks.
	 */
	ASSERT_EQ(0, bwapd_tune_watch(&self->t, &self->o, self->r.stall_rate,
				      30, &changed));
	EXPECT_EQ(0, changed);
	ASSERT_EQ(0, bwm_test_load("bwap-b", "latency-bound", 1, &self->m, &lat));
	ASSERT_EQ(0, bwapd_target_model_workload(&self->f.inner, &lat));
	ASSERT_EQ(0, bwapd_tune_watch(&self->t, &self->o, self->r.stall_rate,
				      30, &changed));
	EXPECT_EQ(1, changed);
	self->o.start = self->r.dwp;
	ASSERT_EQ(0, bwapd_tune(&self->t, self->canon, &self->o, &self->r));
	EXPECT_GE(self->r.dwp, 0.95);
}

/* A migration fails at the 4th step: the best weights measured stay. */
TEST_F(target, failure_leaves_the_best_measured_weights)
{
	uint8_t w[BWAPD_MAX_NODES];

	self->f.fail_migrate_at = 4;
	EXPECT_EQ(-EIO, bwapd_tune(&self->t, self->canon, &self->o, &self->r));
	EXPECT_STREQ("injected", self->t.why);
	/* measured: 0, 0.1, 0.2, each better than the one before */
	EXPECT_NEAR(0.2, self->r.dwp, 1e-9);
	dwp_weights(self->canon, 0.2, &self->o, w);
	EXPECT_EQ(0, memcmp(w, self->f.last, 4));
}

/* No stall counter: an error that says so, DWP 0 weights in place. */
TEST_F(target, no_counters)
{
	uint8_t w[BWAPD_MAX_NODES];

	self->f.no_counters = 1;
	EXPECT_EQ(-EOPNOTSUPP, bwapd_tune(&self->t, self->canon, &self->o,
					  &self->r));
	EXPECT_STREQ("no counters here", self->t.why);
	EXPECT_NEAR(0, self->r.dwp, 0);
	dwp_weights(self->canon, 0, &self->o, w);
	EXPECT_EQ(0, memcmp(w, self->f.last, 4));
}

/* Not memory-intensive: left at DWP 0 after one measurement. */
TEST_F(target, skips_what_is_not_memory_intensive)
{
	self->o.min_mapi = 1;
	ASSERT_EQ(0, bwapd_tune(&self->t, self->canon, &self->o, &self->r));
	EXPECT_EQ(1, self->r.skipped);
	EXPECT_EQ(0, self->r.steps);
	EXPECT_NEAR(0, self->r.dwp, 0);
}

/* Bad parameters: refused before anything is set. */
TEST_F(target, bad_parameters_change_nothing)
{
	struct bwapd_tune_opts bad[6];
	unsigned int i;

	for (i = 0; i < 6; i++)
		bad[i] = self->o;
	bad[0].samples = 0;
	bad[1].trim = 10;		/* 2 x 10 of 20 samples */
	bad[2].period = 0;
	bad[3].step = 1.5;
	bad[4].start = -0.1;
	bad[5].migrate.pages_per_s = -1;
	for (i = 0; i < 6; i++)
		EXPECT_EQ(-EINVAL, bwapd_tune(&self->t, self->canon, &bad[i],
					      &self->r));
	EXPECT_EQ(0, self->f.sets);
	EXPECT_EQ(0, self->f.migrations);
}

/* DWP 1 keeps every node in the weights: a weight of 0 means "global". */
TEST(dwp_one_keeps_every_node)
{
	double canon[4] = { 0.4, 0.3, 0.2, 0.1 };
	uint8_t w[4];
	int j;

	ASSERT_EQ(0, bwapd_dwp_weights(canon, 4, 1, 1, 0.001, w));
	for (j = 1; j < 4; j++)
		EXPECT_EQ(1, w[j]);
	EXPECT_LT(200, w[0]);
}

/* Throughputs of two co-running workloads for B's weights (A's fixed). */
static void corun_gbps(const struct bwm_machine *m, const struct bwm_workload *wl,
		       const double *fa, const uint8_t *wb, double *ga, double *gb)
{
	struct bwm_placement pa, pb;
	const struct bwm_placement *pp[2] = { &pa, &pb };
	const struct bwm_workload *ww[2] = { &wl[0], &wl[1] };
	struct bwm_prediction out[2];
	double fb[BWM_MAX_NODES];

	bwm_weights_to_fractions(wb, m->nr_nodes, fb);
	bwm_placement_interleave(&pa, m->nr_nodes, fa);
	bwm_placement_interleave(&pb, m->nr_nodes, fb);
	if (bwm_predict_corun(m, 2, ww, pp, out)) {
		*ga = *gb = -1;
		return;
	}
	*ga = out[0].throughput_gbps;
	*gb = out[1].throughput_gbps;
}

/*
 * Co-scheduled (BWAP III-B3) on machine B: a latency-bound high-priority
 * job on node 0, a bandwidth-bound best-effort job on nodes 2-3.  Tuned
 * alone, the best-effort job keeps pages on node 0 and slows the other
 * job down by 11 %; co-scheduled, the floor keeps the high-priority job
 * within 2 % (the default --protect) of what it gets when the
 * best-effort job stays on its own nodes, and the best-effort job still
 * gains on that.
 */
TEST(coscheduled)
{
	struct bwm_machine m;
	struct bwm_workload wl[2];
	struct bwapd_target t[2];
	struct bwapd_tune_opts o;
	struct bwapd_tune_result r;
	struct bwm_profile prof;
	double canon[BWM_MAX_NODES], fa[BWM_MAX_NODES] = { 1, 0, 0, 0 };
	double floor = -1, iso_a, iso_b, alone_a, alone_b, co_a, co_b;
	uint8_t w1[BWAPD_MAX_NODES] = { 0 }, own[BWAPD_MAX_NODES] = { 1, 0, 0, 0 };
	struct bwapd_migration mig;

	ASSERT_EQ(0, bwm_test_load("bwap-b", "latency-bound", 0x1, &m, &wl[0]));
	ASSERT_EQ(0, bwm_test_load("bwap-b", "bandwidth-bound", 0xc, &m, &wl[1]));
	ASSERT_EQ(0, bwm_profile_run(&m, 0xc, 1, 0, NULL, &prof));
	ASSERT_EQ(0, bwm_canonical_fractions(prof.bw, 4, 0xc, canon));
	bwapd_tune_opts_default(&o);
	/* B on its own nodes only: A undisturbed */
	ASSERT_EQ(0, bwapd_dwp_weights(canon, 4, 0xc, 1, o.u8_err, w1));
	corun_gbps(&m, wl, fa, w1, &iso_a, &iso_b);

	/* B tuned as if alone */
	ASSERT_EQ(0, bwapd_target_model_group(t, 2, &m, wl, 5, 0.01, NULL));
	ASSERT_EQ(0, t[0].ops->migrate(&t[0], own, 4, &o.migrate, &mig));
	ASSERT_EQ(0, bwapd_tune(&t[1], canon, &o, &r));
	corun_gbps(&m, wl, fa, r.weights, &alone_a, &alone_b);
	fprintf(stderr, "# alone: B at DWP %.3f: A %.3f GB/s (%.3f of isolated), B %.3f (%.3f)\n",
		r.dwp, alone_a, alone_a / iso_a, alone_b, alone_b / iso_b);
	bwapd_target_close(&t[0]);
	bwapd_target_close(&t[1]);

	/* co-scheduled */
	ASSERT_EQ(0, bwapd_target_model_group(t, 2, &m, wl, 5, 0.01, NULL));
	ASSERT_EQ(0, t[0].ops->migrate(&t[0], own, 4, &o.migrate, &mig));
	ASSERT_EQ(0, bwapd_tune_cosched(&t[0], &t[1], canon, &o, &r, &floor));
	corun_gbps(&m, wl, fa, r.weights, &co_a, &co_b);
	fprintf(stderr, "# co-scheduled: floor %.3f, B at DWP %.3f: A %.3f GB/s (%.3f of isolated), B %.3f (%.3f)\n",
		floor, r.dwp, co_a, co_a / iso_a, co_b, co_b / iso_b);
	EXPECT_GE(r.dwp, floor);
	EXPECT_GE(co_a, 0.97 * iso_a);
	EXPECT_GE(co_b, iso_b);
	EXPECT_GT_D(co_a, alone_a);
	bwapd_target_close(&t[0]);
	bwapd_target_close(&t[1]);
}

TEST_HARNESS_MAIN
