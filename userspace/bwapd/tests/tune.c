// SPDX-License-Identifier: GPL-2.0
/*
 * The tuner against the model.  Predicting with the model bwapd profile
 * measures of the machine (the simulated machine answers the profile's
 * benchmark with the counters' noise: what a real machine gets, never
 * the machine itself), on every machine preset its parameters were
 * chosen on and the four held out, every worker set and workload class,
 * with 1 % noise on every counter read and two seeds, its final weights
 * reach 0.98 of the exhaustive weight-vector optimum in every run and
 * 0.995 in the median, in six steps at most on the presets it was
 * tuned on.  On the machines no version of it was developed
 * on ("unseen") the median is held to 0.995 too; their worst case is
 * printed, not held (Documentation/benchmarks.md).  Without a model, the DWP search
 * ends within 2 % of the best DWP and 5 % of the optimum in at most 10
 * steps, and the paper's forward-only search runs beside it.  With a
 * wrong model - the machine off in every figure and in its structure,
 * or another machine's measured profile - the tuner ends no more than
 * 1 % below the DWP search on any case, and no lower in the median.  The
 * fit recovers a workload's parameters; nodes are left out where the
 * weights can do it.  Then: a phase change makes it tune again; the
 * weights it leaves are always those of a measured setting; bad
 * parameters are refused.  bench-tuner (make bench-tuner) prints the
 * full table with more seeds, the profile's measured model among them,
 * and the steps.
 */
#include "bwapd_test.h"
#include "bestshot.h"
#include "tune_eval.h"

#define SEEDS		2
#define MAX_RUNS	1024

/* Every case of a list of presets: fn(machine, workload, workers). */
typedef void (*case_fn)(struct __test_metadata *_metadata, void *arg,
			const char *mach, const char *work, uint32_t workers);

static void each_case(struct __test_metadata *_metadata,
		      const char *const *mach, int nm, case_fn fn, void *arg)
{
	int i, k, s;

	for (i = 0; i < nm; i++) {
		struct bwm_machine m;
		uint32_t sets[3];
		int ns;

		ASSERT_EQ(0, bwm_test_load(mach[i], NULL, 0, &m, NULL));
		ns = tev_worker_sets(&m, sets);
		for (k = 0; k < TEV_NR(tev_workloads); k++)
			for (s = 0; s < ns; s++)
				fn(_metadata, arg, mach[i], tev_workloads[k],
				   sets[s]);
	}
}

struct tally {
	int nr, steps, group;
	int near;			/* cases held to the DWP floor */
	struct tev_led led;
	double v[MAX_RUNS];
};

/* The model bwapd profile measures of mach, once a machine. */
static const struct bwm_machine *profiled(struct __test_metadata *_metadata,
					  const char *mach)
{
	static struct bwm_machine prof;
	static char of[64];
	char why[256];

	if (strcmp(of, mach)) {
		of[0] = 0;
		if (tev_profile_model(mach, 1, 0.01, &prof, why, sizeof(why))) {
			TH_LOG("%s: %s", mach, why);
			return NULL;
		}
		snprintf(of, sizeof(of), "%s", mach);
	}
	return &prof;
}

/* The tuner predicting with mach's measured profile on one case, SEEDS times. */
static void predict_case(struct __test_metadata *_metadata, void *arg,
			 const char *mach, const char *work, uint32_t workers)
{
	static const char *const group[3] = { "tuned on", "held out", "unseen" };
	struct tally *ty = arg;
	struct bwm_machine m;
	struct bwm_workload wl;
	const struct bwm_machine *view = profiled(_metadata, mach);
	double canon[BWM_MAX_NODES], opt, worst = 2;
	int s, steps = 0;

	ASSERT_NE(NULL, view);
	ASSERT_EQ(0, bwm_test_load(mach, work, workers, &m, &wl));
	ASSERT_EQ(0, tev_canonical(&m, workers, canon));
	opt = tev_optimum(&m, &wl);
	ASSERT_LT(0, opt);
	for (s = 0; s < SEEDS; s++) {
		struct tev_run r;
		char why[256];

		ASSERT_EQ(0, tev_tune(&m, view, &wl, canon, opt, TEV_PREDICT,
				      11 + s, 0.01, &r, why, sizeof(why)))
			TH_LOG("%s", why);
		if (ty->group < 2)
			EXPECT_GE(r.of_opt, 0.98)
				TH_LOG("%s %s workers %x seed %d: %.4f of the optimum",
				       mach, work, workers, s, r.of_opt);
		/* the optimum is one: no weights pass it (beyond its 0.1 % steps) */
		EXPECT_LE(r.of_opt, 1.003)
			TH_LOG("%s %s workers %x seed %d: %.4f of the optimum",
			       mach, work, workers, s, r.of_opt);
		/* where the model kept the lead: its steps, the check included */
		tev_led_add(&ty->led, &r);
		worst = fmin(worst, r.of_opt);
		steps = r.steps > steps ? r.steps : steps;
		if (ty->nr < MAX_RUNS)
			ty->v[ty->nr++] = r.of_opt;
		ty->steps = r.steps > ty->steps ? r.steps : ty->steps;
	}
	fprintf(stderr, "# %-8s %-15s %-16s %-4x | %8.2f | %6.4f %5d\n",
		group[ty->group], mach, work, workers, opt, worst, steps);
}

/*
 * One group of presets (0 tuned on, 1 held out, 2 unseen), a test of its
 * own: each has the CPU time a test may use (bwm_test.h) to itself.
 */
static void predict_group(struct __test_metadata *_metadata, int h)
{
	static const char *const *const mach[3] = {
		tev_tuned, tev_held_out, tev_unseen,
	};
	static const int nm[3] = {
		TEV_NR(tev_tuned), TEV_NR(tev_held_out), TEV_NR(tev_unseen),
	};
	static const char *const group[3] = { "tuned on", "held out", "unseen" };
	double worst, median, mean;
	static struct tally ty;

	memset(&ty, 0, sizeof(ty));
	fprintf(stderr, "# %-8s %-15s %-16s %-4s | %8s | %6s %5s\n", "presets",
		"machine", "workload", "set", "optimum", "worst", "steps");
	ty.group = h;
	each_case(_metadata, mach[h], nm[h], predict_case, &ty);
	tev_stats(ty.v, ty.nr, &worst, &median, &mean);
	fprintf(stderr, "# %s: %d runs, worst %.4f, median %.4f of the optimum, at most %d steps; "
		"the model kept the lead in %d runs, at most %d steps\n",
		group[h], ty.nr, worst, median, ty.steps, ty.led.runs,
		ty.led.steps);
	EXPECT_GE(median, 0.995);
	EXPECT_LT(30, ty.nr);
	/* six measured steps at most, where its parameters were chosen */
	if (h == 0)
		EXPECT_LE(ty.steps, 6);
}

TEST(predicting_tuner_reaches_the_optimum_tuned_on)
{
	predict_group(_metadata, 0);
}

TEST(predicting_tuner_reaches_the_optimum_held_out)
{
	predict_group(_metadata, 1);
}

TEST(predicting_tuner_reaches_the_optimum_unseen)
{
	predict_group(_metadata, 2);
}

/*
 * Without the model: the DWP search within 2 % of the best DWP (1 %
 * grid) in at most 10 steps, and within 5 % of the optimum on the
 * presets it was tuned on before the tuner predicted (not ladder-8,
 * whose optimum often lies off the DWP line, up to 16 % above the
 * line's best); the paper's forward-only search still runs (its figures
 * are in bench-tuner).
 */
static const char *const dwp_floor[] = {
	"bwap-a", "bwap-b", "haswell-2s-8c", "haswell-2s-18c", "dram-cxl",
};

static int on_dwp_floor(const char *mach)
{
	int i;

	for (i = 0; i < TEV_NR(dwp_floor); i++)
		if (!strcmp(dwp_floor[i], mach))
			return 1;
	return 0;
}

static void dwp_case(struct __test_metadata *_metadata, void *arg,
		     const char *mach, const char *work, uint32_t workers)
{
	struct tally *ty = arg;
	struct bwm_machine m;
	struct bwm_workload wl;
	double canon[BWM_MAX_NODES], d[128], g[128], best_dwp, dwp_gbps = 0;
	double opt;
	struct tev_run r, paper;
	struct bwapd_tune_opts o;
	char why[256];
	int i, n;

	ASSERT_EQ(0, bwm_test_load(mach, work, workers, &m, &wl));
	ASSERT_EQ(0, tev_canonical(&m, workers, canon));
	opt = tev_optimum(&m, &wl);
	/* the line of the weights the tuner writes (its u8 error) */
	bwapd_tune_opts_default(&o);
	n = bwm_dwp_sweep(&m, &wl, canon, 0.01, o.u8_err, d, g, NULL, 128,
			  &best_dwp);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++)
		dwp_gbps = fmax(dwp_gbps, g[i]);
	ASSERT_EQ(0, tev_tune(&m, NULL, &wl, canon, opt, TEV_DWP, 11, 0.01,
			      &r, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, tev_tune(&m, NULL, &wl, canon, opt, TEV_PAPER, 11, 0.01,
			      &paper, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_GE(r.of_opt * opt, 0.98 * dwp_gbps)
		TH_LOG("%s %s workers %x: DWP %.3f, best %.2f", mach, work,
		       workers, r.dwp, best_dwp);
	if (on_dwp_floor(mach)) {
		EXPECT_GE(r.of_opt, 0.95);
		ty->near++;
	}
	EXPECT_LE(r.steps, 10);
	EXPECT_LE(paper.steps, 10);
	fprintf(stderr, "# %-15s %-16s %-4x | line %6.4f | dwp %5.3f %6.4f %2d | paper %5.3f %6.4f %2d\n",
		mach, work, workers, dwp_gbps / opt, r.dwp, r.of_opt, r.steps,
		paper.dwp, paper.of_opt, paper.steps);
	ty->nr++;
}

TEST(dwp_search_without_a_model)
{
	struct tally ty;

	memset(&ty, 0, sizeof(ty));
	each_case(_metadata, tev_tuned, TEV_NR(tev_tuned), dwp_case, &ty);
	EXPECT_LT(30, ty.nr);
	EXPECT_LT(30, ty.near);
}

/*
 * A wrong model of the machine: the machine with every figure off by up
 * to 30 % and its structure changed (two controllers swapped, a link
 * missing), and the model bwapd profile measures of another machine of
 * the same shape.  On every preset, worker set and workload, the tuner
 * with it ends no more than 1 % below the DWP search's result on the
 * same case, which needs no model, and no lower in the median.
 */
struct wrong {
	int nr;
	double ratio[MAX_RUNS];		/* wrong model's result / DWP search's */
};

static void wrong_case(struct __test_metadata *_metadata, void *arg,
		       const char *mach, const char *work, uint32_t workers)
{
	static struct bwm_machine m, view;
	struct wrong *wr = arg;
	struct bwm_workload wl;
	double canon[BWM_MAX_NODES];
	const char *other = tev_other_machine(mach);
	struct tev_run dwp, r;
	char why[256];
	int k;

	ASSERT_EQ(0, bwm_test_load(mach, work, workers, &m, &wl));
	ASSERT_EQ(0, tev_canonical(&m, workers, canon));
	/* throughput in GB/s: the optimum is not needed to compare */
	ASSERT_EQ(0, tev_tune(&m, NULL, &wl, canon, 1, TEV_DWP, 11, 0.01,
			      &dwp, why, sizeof(why))) TH_LOG("%s", why);
	for (k = 0; k < 2; k++) {
		if (k == 0) {
			tev_wrong_structure(&m, 0.30, 2000 + wr->nr, &view);
		} else {
			/* measured once a machine, as an operator profiles */
			const struct bwm_machine *prof;

			if (!other)
				continue;
			prof = profiled(_metadata, other);
			ASSERT_NE(NULL, prof);
			view = *prof;
		}
		ASSERT_EQ(0, tev_tune(&m, &view, &wl, canon, 1, TEV_PREDICT, 11,
				      0.01, &r, why, sizeof(why))) TH_LOG("%s", why);
		EXPECT_GE(r.of_opt, 0.99 * dwp.of_opt)
			TH_LOG("%s %s workers %x, %s: %.2f GB/s, the DWP search %.2f",
			       mach, work, workers,
			       k ? "another machine's profile" : "figures and structure off",
			       r.of_opt, dwp.of_opt);
		if (wr->nr < MAX_RUNS)
			wr->ratio[wr->nr++] = r.of_opt / dwp.of_opt;
	}
}

TEST(wrong_model_no_worse_than_the_dwp_search)
{
	double worst, median, mean;
	struct wrong wr;

	memset(&wr, 0, sizeof(wr));
	each_case(_metadata, tev_tuned, TEV_NR(tev_tuned), wrong_case, &wr);
	each_case(_metadata, tev_held_out, TEV_NR(tev_held_out), wrong_case, &wr);
	each_case(_metadata, tev_unseen, TEV_NR(tev_unseen), wrong_case, &wr);
	tev_stats(wr.ratio, wr.nr, &worst, &median, &mean);
	fprintf(stderr, "# a wrong model: %d runs; against the DWP search worst %.4f, median %.4f, mean %.4f\n",
		wr.nr, worst, median, mean);
	EXPECT_GE(median, 1.0);
	EXPECT_LT(60, wr.nr);
}

/*
 * One case with a wrong model, seeds first to first + n - 1 as in
 * bench-tuner (--first-seed: the application's counters seeded 11 on):
 * seed by seed no more than 1 % below the DWP search.  The model:
 * 'other''s measured profile, or (NULL) the machine off in its figures
 * and its structure as bench-tuner perturbs it (seeds 1000 on).
 */
static void wrong_seed_range(struct __test_metadata *_metadata,
			     const char *mach, const char *work,
			     uint32_t workers, const char *other, int first,
			     int n)
{
	struct bwm_machine m, view;
	struct bwm_workload wl;
	double canon[BWM_MAX_NODES];
	struct tev_run dwp, r;
	char why[256];
	int s;

	ASSERT_EQ(0, bwm_test_load(mach, work, workers, &m, &wl));
	ASSERT_EQ(0, tev_canonical(&m, workers, canon));
	if (other) {
		const struct bwm_machine *prof = profiled(_metadata, other);

		ASSERT_NE(NULL, prof);
		view = *prof;
	}
	for (s = first; s < first + n; s++) {
		if (!other)
			tev_wrong_structure(&m, 0.30, 1000 + s, &view);
		ASSERT_EQ(0, tev_tune(&m, NULL, &wl, canon, 1, TEV_DWP, 11 + s,
				      0.01, &dwp, why, sizeof(why))) TH_LOG("%s", why);
		ASSERT_EQ(0, tev_tune(&m, &view, &wl, canon, 1, TEV_PREDICT,
				      11 + s, 0.01, &r, why, sizeof(why)))
			TH_LOG("%s", why);
		EXPECT_GE(r.of_opt, 0.99 * dwp.of_opt)
			TH_LOG("seed %d: %.2f GB/s after %d steps, the DWP search %.2f",
			       s, r.of_opt, r.steps, dwp.of_opt);
	}
}

/* The same, seeds 0-4 (bench-tuner's default). */
static void wrong_seeds(struct __test_metadata *_metadata, const char *mach,
			const char *work, uint32_t workers, const char *other)
{
	wrong_seed_range(_metadata, mach, work, workers, other, 0, 5);
}

/*
 * A wrong model whose settings never beat the start: gh-2s,
 * latency-bound on both superchips.  With one seed the model's best shot
 * is far worse than the start and nothing it proposes after helps; the
 * DWP line, flat within the noise for half its length, rises to DWP 1.
 * The DWP search walks the flat stretch; the tuner, having learnt
 * nothing from the model, must walk it too.
 */
TEST(model_that_never_helps_costs_no_more_than_the_dwp_search)
{
	wrong_seeds(_metadata, "gh-2s", "latency-bound", 3, NULL);
}

/*
 * A check that has measured no setting of the line but the start has
 * not tried the model on the line, and leaves nothing out on it:
 * bwap-a, private-heavy on four workers, the machine off in its figures
 * and structure, seed 38 (bench-tuner --first-seed 38).  The model's
 * shot moved 48.3 GB/s and its next setting 48.9, 0.8 % above the
 * start, and the line's setting nearest them is the start.  Fitted to
 * those three points, each within 2.1 % of what the others predicted,
 * the model had the line fall 4 % by DWP 0.1 and the check measured
 * nothing (0.9751 of the optimum); the line rises 2 % by then, and the
 * DWP search ends at DWP 0.125, 0.9865 of the optimum.
 */
TEST(model_tried_only_at_the_start_rules_nothing_out)
{
	wrong_seed_range(_metadata, "bwap-a", "private-heavy", 0xf, NULL, 38, 1);
}

/*
 * The check leaves out a setting of the DWP line that its model rules
 * out, only when the model stood where it was not fitted.  A wrong model
 * can stand at the points it was fitted to and at the check's first
 * setting, and still be wrong along the line: snc-2s, private-heavy on
 * both sockets, seed 1001: the shot (0.89 of the optimum) and the line
 * next to it each within 1.5 % of what the model, fitted to the points
 * before them, predicted, the line predicted to fall 4 to 6 % either
 * way; it rises to the optimum at DWP 0.5.  Fitted to the other points,
 * the model misses the start by 27 %: it rules nothing out.
 */
TEST(wrong_model_that_predicted_its_points_is_not_trusted_with_the_line)
{
	wrong_seeds(_metadata, "snc-2s", "private-heavy", 3, NULL);
}

/*
 * A model that puts its best at the start has proposed nothing the
 * check's line does not measure, and rules nothing out along it.  apu-4,
 * mixed on die 0, with bwap-b's measured profile (agreeing with the
 * canonical shares, calibrated to them): it predicts no setting better
 * than the start, and the check climbs the DWP line from there, rising
 * some 1.4 % a step to DWP 1; fitted to the line's first five points,
 * which it followed, the model said the line falls at 0.5, and the check
 * stopped at 0.4 or 0.45 in two seeds of five (0.92 and 0.94 of the
 * optimum, the DWP search 0.997).
 */
TEST(model_that_proposed_nothing_rules_nothing_out)
{
	wrong_seeds(_metadata, "apu-4", "mixed", 0x1, "bwap-b");
}

/*
 * A check whose line beat the model's best beyond doubt has shown the
 * model wrong, and goes on as the DWP search.  haswell-2s-8c, mixed on
 * socket 0, the machine off in its figures and structure (seed 1003):
 * the model predicts nothing better than the start; the DWP line from
 * there falls 2.5 % in stalls by DWP 0.4, then is flat within the noise
 * and falls again to DWP 1.  The check stopped at the first setting
 * that did not help (DWP 0.5) and ended at 0.9884 of the optimum, 1.1 %
 * below the DWP search.
 */
TEST(line_that_beat_the_model_goes_on_as_the_dwp_search)
{
	wrong_seeds(_metadata, "haswell-2s-8c", "mixed", 0x1, NULL);
}

/*
 * One case with mach's measured profile, n seeds (NULL: 0 on): within 1 %
 * of the optimum in at most 'steps' steps, the model keeping the lead if
 * 'led'.
 */
static void profile_in_steps(struct __test_metadata *_metadata,
			     const char *mach, const char *work,
			     uint32_t workers, int steps, const int *seeds,
			     int n, int led)
{
	const struct bwm_machine *view = profiled(_metadata, mach);
	struct bwm_machine m;
	struct bwm_workload wl;
	double canon[BWM_MAX_NODES], opt;
	struct tev_run r;
	char why[256];
	int i;

	ASSERT_NE(NULL, view);
	ASSERT_EQ(0, bwm_test_load(mach, work, workers, &m, &wl));
	ASSERT_EQ(0, tev_canonical(&m, workers, canon));
	opt = tev_optimum(&m, &wl);
	for (i = 0; i < n; i++) {
		int s = seeds ? seeds[i] : i;

		ASSERT_EQ(0, tev_tune(&m, view, &wl, canon, opt, TEV_PREDICT,
				      11 + s, 0.01, &r, why, sizeof(why)))
			TH_LOG("%s", why);
		EXPECT_TRUE((r.led || !led) && r.steps <= steps &&
			    r.of_opt >= 0.99)
			TH_LOG("seed %d: %.4f of the optimum after %d steps, %s",
			       s, r.of_opt, r.steps,
			       r.led ? "the model led" : "the model did not lead");
	}
}

/* The same, seeds 0-4, the model keeping the lead. */
static void led_in_steps(struct __test_metadata *_metadata,
			 const char *mach, const char *work, uint32_t workers,
			 int steps)
{
	profile_in_steps(_metadata, mach, work, workers, steps, NULL, 5, 1);
}

/*
 * Where the points leave the application's parallelism open, the tuner
 * predicts with the view that promises most; a miss that another view
 * the points allow explains is that view ruled out, not the machine's
 * model wrong.  On ring-8, private-heavy on four workers, with the
 * profile's model, the view of the largest parallelism predicted 83.0
 * GB/s and the setting gave 76.4; taken for a wrong model, the tuning
 * went to the DWP search in two seeds of five (12 steps, 0.9821 of the
 * optimum).  The model keeps the lead, within 1 % of the optimum, in at
 * most 8 steps.
 */
TEST(open_parallelism_miss_keeps_the_model)
{
	led_in_steps(_metadata, "ring-8", "private-heavy", 0xf, 8);
}

/*
 * The check climbs the DWP line from the model's best to find a better
 * setting; a line far below it, helping a little each step, cannot get
 * there, and every step of it is seconds of the application in a worse
 * placement.  nps4-cxl, mixed on quadrant 0, with the profile's model:
 * the shot is the best setting (28.4 GB/s), the line's setting nearest
 * it 6 % below, the next one up 1.5 % better, and without this rule the
 * check climbed on while the line helped (6 steps in every seed).
 * Where even helping as much at every step to the end of the line it
 * could not reach the shot, the check stops: the shot, the line's
 * setting nearest it and one step.
 */
TEST(check_stops_where_the_line_cannot_reach_the_model)
{
	led_in_steps(_metadata, "nps4-cxl", "mixed", 0x1, 3);
}

/*
 * The check measures the DWP line next to the model's best, then each
 * direction from there.  A model that stood at every point where it was
 * not fitted, that one included, and predicts the line to fall both ways
 * leaves those steps out: bwap-a, private-heavy on four workers, with
 * the profile's model: the shot and the line's setting next to it
 * (without this rule the check took a step more, 3 in all, and ended on
 * the shot).
 */
TEST(check_leaves_out_what_its_model_rules_out)
{
	led_in_steps(_metadata, "bwap-a", "private-heavy", 0xf, 2);
}

/*
 * A best shot taken with the view of the application that promises most
 * (where one point leaves its parallelism open) and missing only that
 * view has taught the parallelism, not shown the model wrong: bwap-b,
 * bandwidth-bound on nodes 0-1, with the profile's model: the start is
 * within 0.5 % of the optimum, the shot (predicted 87.8 GB/s, within
 * what the views allowed) moved 73.3, and the model, fitted again,
 * predicted nothing better than the start.  Taken for a model that
 * taught nothing, the tuning went to the DWP search (8 steps in two
 * seeds of five); the check of the start takes 4 at most.
 */
TEST(shot_that_missed_only_its_view_keeps_the_model)
{
	led_in_steps(_metadata, "bwap-b", "bandwidth-bound", 0x3, 4);
}

/*
 * The model's best beaten by the line beyond doubt in the metric, but by
 * less than min_gain in traffic, has not been shown wrong: bwap-b,
 * bandwidth-bound on node 0, with the profile's model, which predicts
 * nothing better than the start (within 0.3 % of the optimum).  The
 * line's next setting is 0.2 % faster, and 1.2 % fewer stalls per
 * instruction tell it apart beyond doubt in seeds 6, 14 and 23 of the
 * counters (bench-tuner --first-seed); taken for a wrong model, the
 * check went on as the DWP search and refined the flat stretch around
 * it, 7 or 8 steps.  Within 1 % of the optimum in at most 6.
 */
TEST(line_within_min_gain_of_the_model_keeps_the_check)
{
	static const int seeds[] = { 6, 14, 23 };

	profile_in_steps(_metadata, "bwap-b", "bandwidth-bound", 0x1, 6,
			 seeds, TEV_NR(seeds), 0);
}

/*
 * Once a prediction has helped, one that did not and promised no more
 * than a step shows beyond its noise ends the predictions: ring-8,
 * private-heavy on four workers, with the profile's model: after the
 * third prediction helped, two more promised 0.7 % over it each (three
 * standard errors of a step's difference were 2.3 %), neither helped,
 * and the check followed them: 7 steps in one seed of five.  At most 6.
 * (ring-8 is held out; for this rule it counts as tuned on.)
 */
TEST(prediction_within_the_noise_that_did_not_help_ends_the_predictions)
{
	led_in_steps(_metadata, "ring-8", "private-heavy", 0xf, 6);
}

/*
 * wl tuned on m with the model 'view', counters seeded 'seed' with 1 %
 * noise, every step logged to log(arg); the weights left in *r.
 */
static int logged_tune(const struct bwm_machine *m,
		       const struct bwm_workload *wl, const double *canon,
		       const struct bwm_machine *view, uint64_t seed,
		       void (*log)(void *, const struct bwapd_tune_step *),
		       void *arg, struct bwapd_tune_result *r, char *why,
		       size_t len)
{
	struct bwapd_tune_opts o;
	struct bwapd_target t;
	int ret = bwapd_target_model(&t, m, wl, seed, 0.01, NULL);

	if (ret)
		return ret;
	bwapd_tune_opts_default(&o);
	o.machine = view;
	o.log = log;
	o.log_arg = arg;
	ret = bwapd_tune(&t, canon, &o, r);
	snprintf(why, len, "%s", t.why);
	bwapd_target_close(&t);
	return ret;
}

/*
 * The tuner ends on the fastest setting it measured, within the noise.
 * Its application's threads progress as its slowest worker node lets
 * them (bwm_prediction: threads x the slowest thread), so on worker
 * nodes that are not alike (cxl-lopsided-2s: one socket has the CXL
 * expander; chain-2x2: the dies at the ends of a line) the setting
 * that does most work can have more stalled cycles per instruction,
 * over all threads, than one that does less.  Every case of both with
 * the profile's model, five seeds: what it leaves is within 2 % of the
 * best it measured, four standard errors of the difference of two
 * settings' means at 1 % counter noise (10 samples kept a setting).
 */

/* The true throughput of every setting the tuner measured, and the best. */
struct measured_steps {
	const struct bwm_machine *m;
	const struct bwm_workload *wl;
	double best;
};

static void measured_step(void *arg, const struct bwapd_tune_step *st)
{
	struct measured_steps *ms = arg;

	if (st->stall_rate >= 0)
		ms->best = fmax(ms->best, tev_weights_gbps(ms->m, ms->wl,
							   st->weights));
}

/* One case of tuner_keeps_the_fastest_setting_it_measured, five seeds. */
static void fastest_case(struct __test_metadata *_metadata, void *arg,
			 const char *mach, const char *work, uint32_t workers)
{
	const struct bwm_machine *view = profiled(_metadata, mach);
	double canon[BWM_MAX_NODES];
	struct bwm_workload wl;
	struct bwm_machine m;
	int *nr = arg, s;

	ASSERT_NE(NULL, view);
	ASSERT_EQ(0, bwm_test_load(mach, work, workers, &m, &wl));
	ASSERT_EQ(0, tev_canonical(&m, workers, canon));
	for (s = 0; s < 5; s++) {
		struct measured_steps ms = { &m, &wl, 0 };
		struct bwapd_tune_result r;
		char why[256];
		double g;

		ASSERT_EQ(0, logged_tune(&m, &wl, canon, view, 11 + s,
					 measured_step, &ms, &r, why, sizeof(why)))
			TH_LOG("%s", why);
		g = tev_weights_gbps(&m, &wl, r.weights);
		EXPECT_GE(g, 0.98 * ms.best)
			TH_LOG("%s %s workers %x seed %d: left %.2f GB/s, measured %.2f",
			       mach, work, workers, s, g, ms.best);
		(*nr)++;
	}
}

TEST(tuner_keeps_the_fastest_setting_it_measured)
{
	static const char *const mach[] = { "cxl-lopsided-2s", "chain-2x2" };
	int nr = 0;

	each_case(_metadata, mach, TEV_NR(mach), fastest_case, &nr);
	EXPECT_LT(30, nr);
}

/*
 * A prediction is worth a step only where it moves 1 % of the pages or
 * more from every setting measured: less is a difference the
 * measurements cannot tell.  ring-8, private-heavy on four workers,
 * with the profile's model: two predictions in a row 0.3 % of the pages
 * apart, each over 1 % from the best setting measured, which was all
 * the old tuner held them against (seed 11: 7 steps).
 */
struct settings {
	int nr, near;
	uint8_t w[64][BWAPD_MAX_NODES];
	int n;
};

static void setting_step(void *arg, const struct bwapd_tune_step *st)
{
	struct settings *ss = arg;
	double f[BWAPD_MAX_NODES], g[BWAPD_MAX_NODES];
	int i, j;

	if (st->stall_rate < 0 || ss->nr == 64)
		return;
	if (!strcmp(st->what, "shot") || !strcmp(st->what, "predict"))
		for (i = 0; i < ss->nr; i++) {
			double moved = 0;

			if (bwm_weights_to_fractions(st->weights, ss->n, f) ||
			    bwm_weights_to_fractions(ss->w[i], ss->n, g))
				continue;
			for (j = 0; j < ss->n; j++)
				moved += fabs(f[j] - g[j]) / 2;
			ss->near += moved < 0.01;
		}
	memcpy(ss->w[ss->nr++], st->weights, sizeof(st->weights));
}

TEST(prediction_moves_from_every_setting_measured)
{
	const struct bwm_machine *view = profiled(_metadata, "ring-8");
	double canon[BWM_MAX_NODES];
	struct bwm_workload wl;
	struct bwm_machine m;
	int s;

	ASSERT_NE(NULL, view);
	ASSERT_EQ(0, bwm_test_load("ring-8", "private-heavy", 0xf, &m, &wl));
	ASSERT_EQ(0, tev_canonical(&m, 0xf, canon));
	for (s = 0; s < 5; s++) {
		struct settings ss = { .n = m.nr_nodes };
		struct bwapd_tune_result r;
		char why[256];

		ASSERT_EQ(0, logged_tune(&m, &wl, canon, view, 11 + s,
					 setting_step, &ss, &r, why, sizeof(why)))
			TH_LOG("%s", why);
		EXPECT_LT(2, ss.nr);
		EXPECT_EQ(0, ss.near)
			TH_LOG("seed %d: %d predictions within 1 %% of the pages of a setting measured",
			       s, ss.near);
	}
}

/* What the counters give at n settings on the DWP line: wl's own figures. */
static int measure(const struct bwm_machine *m, const struct bwm_workload *wl,
		   const double *canon, const double *dwp, int n,
		   struct bwapd_point *p)
{
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++) {
		struct bwm_placement pl;
		struct bwm_prediction pr;

		ret = bwm_apply_dwp(canon, m->nr_nodes, wl->workers, dwp[i],
				    p[i].frac);
		if (ret)
			break;
		bwm_placement_interleave(&pl, m->nr_nodes, p[i].frac);
		ret = bwm_predict(m, wl, &pl, &pr);
		p[i].gbps = pr.throughput_gbps;
		p[i].busy = 1 - pr.stall_fraction;
		p[i].read = wl->read;
	}
	return ret;
}

/*
 * The fit: from the counters at two placements of a preset workload,
 * the demand within 2 %, the read share as counted, and a parallelism
 * whose predictions match the workload's own at a third placement.
 */
TEST(fit_recovers_the_workload)
{
	struct bwm_machine m;
	struct bwm_workload wl, fit, one;
	struct bwapd_point p[2];
	double canon[BWM_MAX_NODES], third[BWM_MAX_NODES], rms, range[2];
	double dwp[2] = { 0, 0.5 };

	ASSERT_EQ(0, bwm_test_load("bwap-b", "mixed", 1, &m, &wl));
	ASSERT_EQ(0, tev_canonical(&m, 1, canon));
	ASSERT_EQ(0, measure(&m, &wl, canon, dwp, 2, p));
	ASSERT_EQ(0, bwapd_fit(&m, 1, NULL, p, 2, &fit, &rms, range));
	EXPECT_NEAR(wl.demand_gbps, fit.demand_gbps, 0.02 * wl.demand_gbps);
	EXPECT_NEAR(wl.read, fit.read, 1e-9);
	EXPECT_LT(rms, 0.005);
	EXPECT_LE(range[0], fit.mlp);
	EXPECT_GE(range[1], fit.mlp);
	ASSERT_EQ(0, bwm_apply_dwp(canon, m.nr_nodes, 1, 1, third));
	EXPECT_NEAR(bwapd_fit_gbps(&m, &wl, third),
		    bwapd_fit_gbps(&m, &fit, third),
		    0.01 * bwapd_fit_gbps(&m, &wl, third));
	/* a period without traffic is passed over; alone, nothing to fit */
	p[0].gbps = 0;
	ASSERT_EQ(0, bwapd_fit(&m, 1, NULL, p, 2, &fit, NULL, NULL));
	ASSERT_EQ(0, bwapd_fit(&m, 1, NULL, &p[1], 1, &one, NULL, NULL));
	EXPECT_NEAR(one.mlp, fit.mlp, 0);
	EXPECT_NEAR(one.demand_gbps, fit.demand_gbps, 0);
	EXPECT_EQ(-EINVAL, bwapd_fit(&m, 1, NULL, p, 1, &fit, NULL, NULL));
}

/*
 * Threads that are not equal: a workload on nodes 0 and 1 whose node 1
 * runs half its cores' threads.  Told the threads each node runs, the
 * fit predicts a placement it did not see within 1 %; taking every core
 * as a thread, it does not.
 */
TEST(fit_takes_the_threads_each_node_runs)
{
	struct bwm_machine m;
	struct bwm_workload wl, fit;
	struct bwapd_point p[3];
	double canon[BWM_MAX_NODES], third[BWM_MAX_NODES];
	double dwp[3] = { 0, 0.5, 1 }, truth, told, blind;
	int i, threads[BWM_MAX_NODES] = { 0 }, cores;

	ASSERT_EQ(0, bwm_test_load("bwap-b", "bandwidth-bound", 3, &m, &wl));
	cores = wl.threads[1];
	ASSERT_LT(1, cores);
	wl.threads[1] = cores / 2;
	memcpy(threads, wl.threads, sizeof(int) * (size_t)m.nr_nodes);
	ASSERT_EQ(0, tev_canonical(&m, 3, canon));
	ASSERT_EQ(0, measure(&m, &wl, canon, dwp, 3, p));
	/* a placement off the DWP line: node 1 holds most pages */
	for (i = 0; i < m.nr_nodes; i++)
		third[i] = i == 1 ? 0.7 : 0.3 / (m.nr_nodes - 1);
	truth = bwapd_fit_gbps(&m, &wl, third);
	ASSERT_EQ(0, bwapd_fit(&m, 3, threads, p, 2, &fit, NULL, NULL));
	EXPECT_EQ(wl.threads[0], fit.threads[0]);
	EXPECT_EQ(wl.threads[1], fit.threads[1]);
	told = bwapd_fit_gbps(&m, &fit, third);
	EXPECT_NEAR(truth, told, 0.01 * truth);
	ASSERT_EQ(0, bwapd_fit(&m, 3, NULL, p, 2, &fit, NULL, NULL));
	EXPECT_EQ(cores, fit.threads[1]);
	blind = bwapd_fit_gbps(&m, &fit, third);
	EXPECT_LT(0.01 * truth, fabs(blind - truth))
		TH_LOG("every core as a thread: %.2f GB/s, truth %.2f", blind,
		       truth);
}

/*
 * A latency-bound workload on node 0 of the CXL machine: where weights
 * can leave nodes out (DAMON's destinations, the model) the expanders
 * get no page; where they cannot (the kernel's per-process weights, 0
 * meaning the global weight) every node keeps a weight of at least 1.
 */
TEST(nodes_left_out_only_where_the_weights_can)
{
	struct bwm_machine m;
	struct bwm_workload wl;
	double canon[BWM_MAX_NODES];
	int keep, j;

	ASSERT_EQ(0, bwm_test_load("dram-cxl", "latency-bound", 1, &m, &wl));
	ASSERT_EQ(0, tev_canonical(&m, 1, canon));
	for (keep = 0; keep < 2; keep++) {
		struct bwapd_tune_opts o;
		struct bwapd_tune_result r;
		struct bwapd_target t;

		bwapd_tune_opts_default(&o);
		o.machine = &m;
		ASSERT_EQ(0, bwapd_target_model(&t, &m, &wl, 3, 0.01, NULL));
		t.leave_out = !keep;
		ASSERT_EQ(0, bwapd_tune(&t, canon, &o, &r)) TH_LOG("%s", t.why);
		bwapd_target_close(&t);
		EXPECT_EQ(1, r.predicted);
		EXPECT_LE(1, r.weights[0]);
		/* as little as u8 weights give: 1 in more than 200 */
		if (keep) {
			EXPECT_LT(200, r.weights[0]);
		}
		for (j = 2; j < 4; j++) {
			if (keep) {
				EXPECT_LE(1, r.weights[j]);
			} else {
				EXPECT_EQ(0, r.weights[j]);
			}
		}
	}
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
	EXPECT_GE(tev_weights_gbps(&self->m, &self->wl, self->r.weights),
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

/*
 * The standard error a measurement gives is the spread of measurements:
 * 400 of one setting (20 samples each, the 5 highest and 5 lowest
 * dropped), each sample's counters 1 % noisy.  Their standard deviation
 * and the mean standard error given agree within a fifth of the spread
 * (which 400 measurements give within about 4 %).
 */
TEST_F(target, standard_error_is_the_spread_of_measurements)
{
	double rate[400], mapi, se, sum = 0, se_sum = 0, var = 0, sd;
	int i, n = 400;

	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, bwapd_measure(&self->t, &self->o, &rate[i], &mapi,
					   &se));
		sum += rate[i];
		se_sum += se;
	}
	for (i = 0; i < n; i++)
		var += (rate[i] - sum / n) * (rate[i] - sum / n);
	sd = sqrt(var / (n - 1));
	EXPECT_NEAR(sd, se_sum / n, 0.2 * sd);
}

/* Bad parameters: refused before anything is set. */
TEST_F(target, bad_parameters_change_nothing)
{
	struct bwapd_tune_opts bad[6];
	struct bwm_machine other;
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
	/* a model of another machine: 8 nodes for a target of 4 */
	ASSERT_EQ(0, bwm_test_load("bwap-a", NULL, 0, &other, NULL));
	bad[0] = self->o;
	bad[0].machine = &other;
	EXPECT_EQ(-EINVAL, bwapd_tune(&self->t, self->canon, &bad[0],
				      &self->r));
	EXPECT_STREQ("the model of the machine has 8 nodes, the target 4",
		     self->t.why);
	EXPECT_EQ(0, self->f.sets);
	EXPECT_EQ(0, self->f.migrations);
}

/* DWP 1 keeps every node in the weights: a weight of 0 means "global". */
/*
 * An application beyond the workload: its counters are not those of
 * the fit's family.  The misses count less than the controllers read
 * (prefetches) and nothing of what they write (write-backs); the stall
 * counter more than the memory stalls; phases take turns.
 */
TEST(application_counters_are_not_the_fits)
{
	struct bwm_machine m;
	struct bwm_workload a, b;
	struct bwm_app app;
	struct bwapd_target t;
	struct bwapd_counters c0, c1;
	struct bwm_placement pl;
	struct bwm_prediction p0;
	double f[BWM_MAX_NODES], misses, mem_stalls, seconds;
	int j, s, phases = 0;

	ASSERT_EQ(0, bwm_test_load("bwap-b", "mixed", 0x3, &m, &a));
	ASSERT_EQ(0, bwm_test_load("bwap-b", "latency-bound", 0x3, &m, &b));
	memset(&app, 0, sizeof(app));
	for (s = 0; s < 20 && !(app.prefetch > 0.1); s++)
		ASSERT_EQ(0, bwm_app_draw(&m, &a, &b, (uint64_t)s, &app));
	ASSERT_LT(0.1, app.prefetch);
	ASSERT_EQ(0, bwapd_target_model_app(&t, &m, &app, 1, 0));
	ASSERT_EQ(0, t.ops->counters(&t, &c0));
	/* a slice well inside the first phase */
	for (j = 0; j < m.nr_nodes; j++)
		f[j] = 1.0 / m.nr_nodes;
	bwm_placement_interleave(&pl, m.nr_nodes, f);
	ASSERT_EQ(0, bwm_predict(&m, &app.phase[0], &pl, &p0));
	seconds = app.insns[0] / bwm_app_phase_ips(&m, &app, 0,
						   p0.throughput_gbps) / 4;
	ASSERT_EQ(0, t.ops->wait(&t, seconds));
	ASSERT_EQ(0, t.ops->counters(&t, &c1));
	misses = (double)(c1.mem_accesses - c0.mem_accesses) * BWM_LINE_BYTES;
	EXPECT_NEAR(misses, (double)(c1.read_bytes - c0.read_bytes) *
		    (1 - app.prefetch), 1e-6 * misses);
	EXPECT_LT(c0.write_bytes, c1.write_bytes);
	mem_stalls = p0.stall_rate * seconds;
	EXPECT_LT(mem_stalls * 1.01, (double)(c1.stall_cycles - c0.stall_cycles));
	EXPECT_NEAR(p0.throughput_gbps * seconds * 1e9,
		    (double)(c1.read_bytes - c0.read_bytes +
			     c1.write_bytes - c0.write_bytes), 1e-3 * 1e9);
	/* a round and more: the other phase's traffic shows */
	for (j = 0; j < 40; j++) {
		double g0, g1;

		c0 = c1;
		ASSERT_EQ(0, t.ops->wait(&t, seconds));
		ASSERT_EQ(0, t.ops->counters(&t, &c1));
		g0 = (double)(c1.read_bytes - c0.read_bytes +
			      c1.write_bytes - c0.write_bytes) / seconds / 1e9;
		g1 = p0.throughput_gbps;
		phases += fabs(g0 - g1) > 0.01 * g1;
	}
	EXPECT_LT(0, phases);
	EXPECT_GT(40, phases);
	bwapd_target_close(&t);
}

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
	double canon[BWM_MAX_NODES], fa[BWM_MAX_NODES] = { 1, 0, 0, 0 };
	double floor = -1, iso_a, iso_b, alone_a, alone_b, co_a, co_b;
	uint8_t w1[BWAPD_MAX_NODES] = { 0 }, own[BWAPD_MAX_NODES] = { 1, 0, 0, 0 };
	struct bwapd_migration mig;

	ASSERT_EQ(0, bwm_test_load("bwap-b", "latency-bound", 0x1, &m, &wl[0]));
	ASSERT_EQ(0, bwm_test_load("bwap-b", "bandwidth-bound", 0xc, &m, &wl[1]));
	ASSERT_EQ(0, bwm_bench_canonical(&m, 0xc, canon));
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
