// SPDX-License-Identifier: GPL-2.0
/*
 * bench-tuner: the tuner against the exhaustive weight-vector optimum
 * on the model (make bench-tuner).  For every machine preset x worker
 * set x workload preset, 'seeds' tunings with 'noise' on every counter
 * read, the tuner predicting with:
 *
 *   profile    the model bwapd profile measures of the machine
 *              (machine_model.c: the simulated machine answers its
 *              benchmark, with the same noise) - what a real machine gets
 *   exact      the simulated machine itself, for reference only
 *   off        a wrong model: every figure of the machine off by up to
 *              'off' and its structure changed (two controllers swapped,
 *              a link missing)
 *   other      a wrong model: the profile of another preset of the same
 *              shape (none: "-")
 *
 * beside the DWP search (no model) and the paper's forward-only search.
 * By default the weights may leave nodes out (DAMON's destinations, the
 * model's); --keep-nodes tunes weights that keep every node (the
 * kernel's per-process weights) and judges them against the optimum of
 * such weights (tev_optima), saying what that costs against any
 * weights' optimum.  With --app each seed tunes an
 * application beyond the workload (bwm_app_draw: the workload and the
 * next one as two phases, unequal threads, prefetches, write-backs,
 * stalls that are not memory stalls), judged by its instruction rate;
 * the optimum column is then the seeds' mean, in 1e9 instructions a
 * second.  The applications are drawn for seeds from --app-seed on:
 * 500 (the default) are those the tuner may be developed on; 9000 were
 * held out from the fit's threads and are spent, 12000 judged the fan
 * phases of the profile and are spent, 15000 judged the calibration to
 * the canonical weights and are spent, 18000 judged the profile's links
 * and its fit of what routes share and are spent, 21000 judged the
 * check without the probes and are spent, so are 24000 (the profile's
 * streaming benchmark), 27000 (the standard error of a step), 30000
 * and 33000 (the noise rule of the predictions), 36000 (the check
 * that goes on as the DWP search), 39000 (a fit to settle near ties
 * on the DWP line, not kept), 42000 (a line within min_gain of the
 * model's best, and a model tried on the line only at the start) and
 * 45000 (a prediction checked against the gain it promised, not kept);
 * 48000 are held out from the next change of the tuner, run once it is
 * done.  --app-parts
 * keeps only some of what makes an application more than its workload
 * (a comma list of phases, threads, prefetch, stalls), to see what each
 * costs.
 * Per case the worst fraction of the optimum and the most steps; then
 * worst, median and mean over all
 * runs, for the presets the tuner was tuned on, those held out, and
 * those no version of it has seen, and for each model its runs against
 * the DWP search's in the same seed: in how many it ends higher and in
 * how many lower (the sign of the difference, which a median within the
 * noise of the other's does not tell), the least ratio, how many end
 * more than 1 % below (a case's worst seeds need not be the same), and
 * the DWP search's worst and median over the same runs (a model of
 * another machine covers only the presets that have a twin).
 * --first-seed N draws seeds N on instead of 0 on (the counters' seed
 * 11 + N, the wrong model's 1000 + N, the application's --app-seed + N):
 * the same bench on another draw of the noise, to see how much of a
 * figure is the draw's.  --model-seed M draws the perturbed models from
 * seed M on instead (M + s with the counters' 11 + N + s): other wrong
 * models on the same noise.
 *
 *   bench-tuner [--seeds N] [--first-seed N] [--model-seed M] [--noise X]
 *               [--off X] [--only MACHINE] [--keep-nodes] [--app]
 *               [--app-seed N] [--app-parts LIST]
 */
#include <getopt.h>

#include "tune_eval.h"

#define MAX_RUNS	4096

enum { COL_PROFILE, COL_EXACT, COL_OFF, COL_OTHER, COL_DWP, COL_PAPER,
       NR_COLS };

static const char *const col_name[NR_COLS] = {
	"profile", "exact", "off", "other", "dwp search", "paper",
};

struct acc {
	int n, steps, sum_steps;
	struct tev_led led;
	double v[MAX_RUNS];
	/*
	 * against the DWP search in the same seed: the least, how many end
	 * higher, lower and below 0.99 of it
	 */
	int paired, higher, lower, below;
	double least;
	double dwp[MAX_RUNS];		/* the DWP search's runs beside them */
};

/* A run beside the DWP search's in the same seed. */
static void pair(struct acc *a, double of_opt, double dwp)
{
	double r = of_opt / dwp;

	if (!a->paired || r < a->least)
		a->least = r;
	a->higher += r > 1;
	a->lower += r < 1;
	a->below += r < 0.99;
	if (a->paired < MAX_RUNS)
		a->dwp[a->paired++] = dwp;
}

static void add(struct acc *a, const struct tev_run *r)
{
	if (a->n < MAX_RUNS)
		a->v[a->n++] = r->of_opt;
	if (r->steps > a->steps)
		a->steps = r->steps;
	a->sum_steps += r->steps;
	tev_led_add(&a->led, r);
}

struct bench {
	int seeds, first, model_seed, keep, app;
	unsigned int app_parts;
	uint64_t app_seed;
	double noise, off;
	const char *only;
	struct acc all[3][NR_COLS];
	/* --keep-nodes: the least optimum of such weights over any's */
	double keep_cost[3];
	char keep_case[3][96];
};

/* One machine, every worker set and workload; 0 or 1 (said why). */
static int machine(struct bench *be, int h, const char *name)
{
	static struct bwm_machine m, prof, other;
	const char *oname = tev_other_machine(name);
	uint32_t sets[3];
	char why[512];
	int ns, k, w, s, col;

	if (tev_load(name, NULL, 0, &m, NULL, why) ||
	    tev_profile_model(name, 1, be->noise, &prof, why, sizeof(why)) ||
	    (oname && tev_profile_model(oname, 1, be->noise, &other, why,
					sizeof(why)))) {
		fprintf(stderr, "bench-tuner: %s: %s\n", name, why);
		return 1;
	}
	ns = tev_worker_sets(&m, sets);
	for (k = 0; k < TEV_NR(tev_workloads); k++) {
		for (w = 0; w < ns; w++) {
			struct bwm_workload wl;
			double canon[BWM_MAX_NODES], opt, kopt = 0;
			struct acc cs[NR_COLS];
			char list[64];
			int j, nl = 0;

			if (tev_load(name, tev_workloads[k], sets[w], &m, &wl,
				     why) || tev_canonical(&m, sets[w], canon)) {
				fprintf(stderr, "bench-tuner: %s\n", why);
				return 1;
			}
			list[0] = 0;
			for (j = 0; j < m.nr_nodes; j++)
				if (sets[w] & (1u << j))
					snprintf(list + strlen(list),
						 sizeof(list) - strlen(list),
						 "%s%d", nl++ ? "," : "", j);
			opt = be->app ? 0 : tev_optima(&m, &wl,
							 be->keep ? &kopt : NULL);
			if (be->keep && !be->app) {
				double any = opt;

				opt = kopt;
				if (opt / any < be->keep_cost[h]) {
					be->keep_cost[h] = opt / any;
					snprintf(be->keep_case[h],
						 sizeof(be->keep_case[h]),
						 "%s %s on %s", name,
						 tev_workloads[k], list);
				}
			}
			memset(cs, 0, sizeof(cs));
			for (s = 0; s < be->seeds; s++) {
				static struct bwm_app app;
				double app_opt = 0, got[NR_COLS];
				int sd = be->first + s;

				if (be->app) {
					struct bwm_workload o;

					if (tev_load(name, tev_workloads[(k + 1) % TEV_NR(tev_workloads)],
						     sets[w], &m, &o, why) ||
					    bwm_app_draw(&m, &wl, &o, be->app_seed + (uint64_t)sd, &app) ||
					    (tev_app_parts(&app, &wl, be->app_parts), 0) ||
					    !((app_opt = tev_app_optimum(&m, &app)) > 0)) {
						fprintf(stderr, "bench-tuner: %s %s: no application: %s\n",
							name, tev_workloads[k], why);
						return 1;
					}
					opt += app_opt / 1e9 / be->seeds;
				}
				for (col = 0; col < NR_COLS; col++) {
					enum tev_mode mode = be->keep ? TEV_KEEP_NODES :
							     TEV_PREDICT;
					static struct bwm_machine view;
					const struct bwm_machine *v = &view;
					struct tev_run r;

					if (col == COL_DWP)
						mode = TEV_DWP;
					else if (col == COL_PAPER)
						mode = TEV_PAPER;
					if (col == COL_PROFILE)
						view = prof;
					else if (col == COL_EXACT)
						v = NULL;
					else if (col == COL_OFF)
						tev_wrong_structure(&m, be->off,
								    be->model_seed + s, &view);
					else if (col == COL_OTHER && oname)
						view = other;
					else if (col == COL_OTHER)
						continue;
					if (be->app ?
					    tev_tune_app(&m, v, &app, canon, app_opt,
							 mode, 11 + sd, be->noise, &r,
							 why, sizeof(why)) :
					    tev_tune(&m, v, &wl, canon, opt, mode,
						     11 + sd, be->noise, &r, why,
						     sizeof(why))) {
						fprintf(stderr, "%s %s: %s\n", name,
							tev_workloads[k], why);
						return 1;
					}
					add(&cs[col], &r);
					add(&be->all[h][col], &r);
					got[col] = r.of_opt;
				}
				for (col = 0; col < COL_DWP; col++)
					if (col != COL_EXACT && got[COL_DWP] > 0 &&
					    (col != COL_OTHER || oname))
						pair(&be->all[h][col], got[col],
						     got[COL_DWP]);
			}
			printf("%-15s %-16s %-8s %8.2f |", name,
			       tev_workloads[k], list, opt);
			for (col = 0; col < NR_COLS; col++) {
				double worst, med, mean;

				if (!cs[col].n) {
					printf(" %10s %5s |", "-", "-");
					continue;
				}
				tev_stats(cs[col].v, cs[col].n, &worst, &med,
					  &mean);
				printf(" %10.4f %5d |", worst, cs[col].steps);
			}
			printf("\n");
			fflush(stdout);
		}
	}
	return 0;
}

/* "phases,stalls" into TEV_APP_* bits; -1: a word that is none. */
static int parts(const char *list, unsigned int *out)
{
	static const char *const name[] = {
		"phases", "threads", "prefetch", "stalls",
	};
	char buf[128], *tok, *save;
	unsigned int bits = 0;
	int i;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < TEV_NR(name) && strcmp(tok, name[i]); i++)
			;
		if (i == TEV_NR(name))
			return -1;
		bits |= 1u << i;
	}
	*out = bits;
	return 0;
}

int main(int argc, char **argv)
{
	static struct bench be = {
		.seeds = 5, .noise = 0.01, .off = 0.30, .app_seed = 500,
		.app_parts = TEV_APP_ALL, .keep_cost = { 1, 1, 1 },
	};
	static const char *const group[3] = {
		"tuned on", "held out", "unseen",
	};
	static const struct option lo[] = {
		{ "seeds", required_argument, NULL, 's' },
		{ "first-seed", required_argument, NULL, 'f' },
		{ "model-seed", required_argument, NULL, 'M' },
		{ "noise", required_argument, NULL, 'n' },
		{ "off", required_argument, NULL, 'o' },
		{ "only", required_argument, NULL, 'm' },
		{ "keep-nodes", no_argument, NULL, 'k' },
		{ "app", no_argument, NULL, 'a' },
		{ "app-seed", required_argument, NULL, 'A' },
		{ "app-parts", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	int c, h, i, col, model_seed = 0;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			be.seeds = atoi(optarg);
			break;
		case 'f':
			be.first = atoi(optarg);
			break;
		case 'M':
			be.model_seed = atoi(optarg);
			model_seed = 1;
			break;
		case 'n':
			be.noise = atof(optarg);
			break;
		case 'o':
			be.off = atof(optarg);
			break;
		case 'm':
			be.only = optarg;
			break;
		case 'k':
			be.keep = 1;
			break;
		case 'a':
			be.app = 1;
			break;
		case 'A':
			be.app_seed = strtoull(optarg, NULL, 0);
			break;
		case 'P':
			if (parts(optarg, &be.app_parts)) {
				fprintf(stderr, "bench-tuner: --app-parts: '%s': a list of phases, threads, prefetch, stalls\n",
					optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: bench-tuner [--seeds N] [--first-seed N] [--model-seed M] [--noise X] [--off X] [--only MACHINE] [--keep-nodes] [--app] [--app-seed N] [--app-parts LIST]\n");
			return 2;
		}
	}
	if (!model_seed)
		be.model_seed = 1000 + be.first;
	if (be.seeds < 1 || be.seeds > 100 || be.first < 0 ||
	    be.first > 10000 || be.model_seed < 0 ||
	    be.model_seed > 100000 || !(be.noise >= 0) ||
	    !(be.off >= 0 && be.off < 1)) {
		fprintf(stderr, "bench-tuner: --seeds 1..100, --first-seed 0..10000, --model-seed 0..100000, --noise >= 0, --off 0..1\n");
		return 2;
	}
	printf("# %d seeds", be.seeds);
	if (be.first)
		printf(" from %d on", be.first);
	if (model_seed)
		printf(", wrong models from seed %d on", be.model_seed);
	printf(", %.1f %% counter noise; wrong model: figures off by up to %.0f %%, two controllers swapped, a link missing; weights %s",
	       be.noise * 100, be.off * 100,
	       be.keep ? "keep every node" : "may leave nodes out");
	if (be.app)
		printf("; applications beyond the workload (write-backs%s%s%s%s) drawn from seed %llu on",
		       be.app_parts & TEV_APP_PHASES ? ", phases" : "",
		       be.app_parts & TEV_APP_THREADS ? ", unequal threads" : "",
		       be.app_parts & TEV_APP_PREFETCH ? ", prefetches" : "",
		       be.app_parts & TEV_APP_STALLS ? ", other stalls" : "",
		       (unsigned long long)be.app_seed);
	printf("\n");
	printf("%-15s %-16s %-8s %8s |", "machine", "workload", "workers",
	       "optimum");
	for (col = 0; col < NR_COLS; col++)
		printf(" %10s steps |", col_name[col]);
	printf("\n");
	for (h = 0; h < 3; h++) {
		const char *const *mach = h == 2 ? tev_unseen :
					  h ? tev_held_out : tev_tuned;
		int nm = h == 2 ? TEV_NR(tev_unseen) :
			 h ? TEV_NR(tev_held_out) : TEV_NR(tev_tuned);

		for (i = 0; i < nm; i++)
			if ((!be.only || !strcmp(be.only, mach[i])) &&
			    machine(&be, h, mach[i]))
				return 1;
	}
	for (h = 0; h < 3; h++) {
		for (col = 0; col < NR_COLS; col++) {
			struct acc *a = &be.all[h][col];
			double worst, median, mean;

			if (!a->n)
				continue;
			tev_stats(a->v, a->n, &worst, &median, &mean);
			printf("# %-9s %-10s: %4d runs, worst %.4f, median %.4f, mean %.4f of the optimum; steps %.1f on average, %d at most",
			       group[h], col_name[col], a->n, worst, median,
			       mean, (double)a->sum_steps / a->n, a->steps);
			if (col != COL_DWP && col != COL_PAPER)
				printf("; %d led by the model, %d steps at most",
				       a->led.runs, a->led.steps);
			if (a->paired) {
				tev_stats(a->dwp, a->paired, &worst, &median,
					  &mean);
				printf("; against the DWP search seed by seed: higher in %d runs, lower in %d, least %.4f, %d runs more than 1 %% below; the DWP search on the same runs: worst %.4f, median %.4f",
				       a->higher, a->lower, a->least, a->below,
				       worst, median);
			}
			printf("\n");
		}
		if (be.keep && !be.app && be.keep_cost[h] < 1)
			printf("# %-9s the optimum of weights that keep every node is at least %.4f of any weights' (least: %s)\n",
			       group[h], be.keep_cost[h], be.keep_case[h]);
	}
	return 0;
}
