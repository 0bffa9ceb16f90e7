// SPDX-License-Identifier: GPL-2.0
/*
 * bwmodel-bench: predictions per second and the time of an exhaustive
 * search over placements, on BWAP machine A.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bwmodel.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int load(struct bwm_machine *m, struct bwm_workload *wl,
		const char *wname, uint32_t workers)
{
	char msg[512];
	int ret = bwm_preset_load(BWM_DATADIR, "bwap-a", wname, workers, m, wl,
				  msg, sizeof(msg));

	if (ret)
		fprintf(stderr, "bwmodel-bench: %s\n", msg);
	return ret;
}

int main(void)
{
	/* the third: machine A without its links, to show what they cost */
	static const char *const wls[] = {
		"bandwidth-bound", "latency-bound", "bandwidth-bound",
	};
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_placement pl;
	struct bwm_prediction pred;
	double frac[BWM_MAX_NODES], best[BWM_MAX_NODES], g, t0, t, sink = 0;
	long n, i;
	int w, j;

	printf("bwmodel-bench: BWAP machine A (8 nodes)\n");
	for (w = 0; w < 3; w++) {
		if (load(&m, &wl, wls[w], 0x3))
			return 1;
		if (w == 2) {
			m.nr_links = 0;
			if (bwm_machine_routes(&m, NULL))
				return 1;
		}
		n = 0;
		t0 = now_s();
		do {
			for (i = 0; i < 10000; i++, n++) {
				for (j = 0; j < m.nr_nodes; j++)
					frac[j] = (1.0 + (n + j) % 7) /
						  (m.nr_nodes * 4.0);
				g = 0;
				for (j = 0; j < m.nr_nodes; j++)
					g += frac[j];
				for (j = 0; j < m.nr_nodes; j++)
					frac[j] /= g;
				bwm_placement_interleave(&pl, m.nr_nodes, frac);
				bwm_predict(&m, &wl, &pl, &pred);
				sink += pred.throughput_gbps;
			}
			t = now_s() - t0;
		} while (t < 1.0);
		printf("  %-16s 2 workers%s: %9.0f predictions/s (%.2f us each)\n",
		       wls[w], w == 2 ? ", no links" : "", n / t,
		       t / n * 1e6);
	}
	for (w = 0; w < 2; w++) {
		uint32_t workers = w ? 0xff : 0x3;

		if (load(&m, &wl, "bandwidth-bound", workers))
			return 1;
		t0 = now_s();
		n = bwm_search(&m, &wl, 20, best, &g);
		t = now_s() - t0;
		if (n < 0)
			return 1;
		printf("  exhaustive search, 5%% steps, %d workers: %ld placements in %.2f s (%.0f/s), best %.2f GB/s\n",
		       w ? 8 : 2, n, t, n / t, g);
	}
	return sink > 0 ? 0 : 1;
}
