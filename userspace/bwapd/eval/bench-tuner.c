// SPDX-License-Identifier: GPL-2.0
/*
 * bench-tuner: the tuner against the exhaustive weight-vector optimum
 * on the model (make bench-tuner).  For every machine preset x worker
 * set x workload preset, 'seeds' tunings with 'noise' on every counter
 * read, in each mode: the predicting tuner with the machine's model
 * (on a target whose weights can leave nodes out, as DAMON's and the
 * model's; and on one whose weights cannot, as the kernel's per-process
 * weights), the same with a model off by up to 'off' in every bandwidth
 * and latency, the DWP search (no model), and the paper's forward-only
 * search.  Per
 * case the worst fraction of the optimum and the most steps; then worst,
 * median and mean over all runs, for the presets the tuner was tuned on,
 * for those held out, and for those no version of it has seen.
 *
 *   bench-tuner [--seeds N] [--noise X] [--off X] [--only MACHINE]
 */
#include <getopt.h>

#include "tune_eval.h"

#define MAX_RUNS	4096

enum { COL_PREDICT, COL_KEEP, COL_OFF, COL_DWP, COL_PAPER, NR_COLS };

static const char *const col_name[NR_COLS] = {
	"predict", "keep nodes", "model off", "dwp search", "paper",
};

struct acc {
	int n, steps, sum_steps;
	double v[MAX_RUNS];
};

static void add(struct acc *a, const struct tev_run *r)
{
	if (a->n < MAX_RUNS)
		a->v[a->n++] = r->of_opt;
	if (r->steps > a->steps)
		a->steps = r->steps;
	a->sum_steps += r->steps;
}

int main(int argc, char **argv)
{
	static struct acc all[3][NR_COLS];
	static const char *const group[3] = {
		"tuned on", "held out", "unseen",
	};
	static const struct option lo[] = {
		{ "seeds", required_argument, NULL, 's' },
		{ "noise", required_argument, NULL, 'n' },
		{ "off", required_argument, NULL, 'o' },
		{ "only", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *only = NULL;
	char why[512];
	double noise = 0.01, off = 0.15;
	int seeds = 5, c, h, i, k, s, col;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			seeds = atoi(optarg);
			break;
		case 'n':
			noise = atof(optarg);
			break;
		case 'o':
			off = atof(optarg);
			break;
		case 'm':
			only = optarg;
			break;
		default:
			fprintf(stderr, "usage: bench-tuner [--seeds N] [--noise X] [--off X] [--only MACHINE]\n");
			return 2;
		}
	}
	if (seeds < 1 || seeds > 100 || !(noise >= 0) || !(off >= 0 && off < 1)) {
		fprintf(stderr, "bench-tuner: --seeds 1..100, --noise >= 0, --off 0..1\n");
		return 2;
	}
	printf("# %d seeds, %.1f %% counter noise; model off by up to %.0f %%\n",
	       seeds, noise * 100, off * 100);
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

		for (i = 0; i < nm; i++) {
			struct bwm_machine m;
			uint32_t sets[3];
			int ns;

			if (only && strcmp(only, mach[i]))
				continue;
			if (tev_load(mach[i], NULL, 0, &m, NULL, why)) {
				fprintf(stderr, "bench-tuner: %s\n", why);
				return 1;
			}
			ns = tev_worker_sets(&m, sets);
			for (k = 0; k < TEV_NR(tev_workloads); k++) {
				int w;

				for (w = 0; w < ns; w++) {
					struct bwm_workload wl;
					double canon[BWM_MAX_NODES], opt;
					struct acc cs[NR_COLS];
					char list[64];
					int j, off_n = 0;

					if (tev_load(mach[i], tev_workloads[k],
						     sets[w], &m, &wl, why) ||
					    tev_canonical(&m, sets[w], canon)) {
						fprintf(stderr, "bench-tuner: %s\n", why);
						return 1;
					}
					opt = tev_optimum(&m, &wl);
					memset(cs, 0, sizeof(cs));
					for (s = 0; s < seeds; s++) {
						for (col = 0; col < NR_COLS; col++) {
							static const enum tev_mode mode[NR_COLS] = {
								TEV_PREDICT, TEV_KEEP_NODES, TEV_PREDICT,
								TEV_DWP, TEV_PAPER,
							};
							struct bwm_machine view;
							struct tev_run r;

							if (col == COL_OFF)
								tev_perturb(&m, off, 1000 + s, &view);
							if (tev_tune(&m, col == COL_OFF ? &view : NULL,
								     &wl, canon, opt, mode[col],
								     11 + s, noise, &r, why,
								     sizeof(why))) {
								fprintf(stderr, "%s %s: %s\n", mach[i],
									tev_workloads[k], why);
								return 1;
							}
							add(&cs[col], &r);
							add(&all[h][col], &r);
						}
					}
					list[0] = 0;
					for (j = 0; j < m.nr_nodes; j++)
						if (sets[w] & (1u << j))
							snprintf(list + strlen(list),
								 sizeof(list) - strlen(list),
								 "%s%d", off_n++ ? "," : "", j);
					printf("%-15s %-16s %-8s %8.2f |", mach[i],
					       tev_workloads[k], list, opt);
					for (col = 0; col < NR_COLS; col++) {
						double worst, med, mean;

						tev_stats(cs[col].v, cs[col].n, &worst,
							  &med, &mean);
						printf(" %10.4f %5d |", worst,
						       cs[col].steps);
					}
					printf("\n");
					fflush(stdout);
				}
			}
		}
	}
	for (h = 0; h < 3; h++) {
		for (col = 0; col < NR_COLS; col++) {
			double worst, med, mean;

			if (!all[h][col].n)
				continue;
			tev_stats(all[h][col].v, all[h][col].n, &worst, &med,
				  &mean);
			printf("# %-9s %-10s: %4d runs, worst %.4f, median %.4f, mean %.4f of the optimum; steps %.1f on average, %d at most\n",
			       group[h], col_name[col],
			       all[h][col].n, worst, med, mean,
			       (double)all[h][col].sum_steps / all[h][col].n,
			       all[h][col].steps);
		}
	}
	return 0;
}
