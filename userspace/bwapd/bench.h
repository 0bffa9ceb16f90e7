/* SPDX-License-Identifier: GPL-2.0 */
/* The built-in bandwidth benchmark (bench.c). */
#ifndef BWAPD_BENCH_H
#define BWAPD_BENCH_H

#include "backend.h"

struct bench;

/*
 * Threads on every CPU of 'workers' read a shared array of 'bytes'
 * interleaved uniformly over the machine's memory nodes.  bench_start()
 * writes the array and starts the threads, idle; bench_run() makes them
 * read only node's pages for 'seconds'.
 */
int bench_start(const struct bwapd_topology *t, uint32_t workers,
		size_t bytes, struct bench **out);
int bench_run(struct bench *b, int node, double seconds);
/*
 * Flows on several routes at once for 'seconds' (backend.h's
 * bench_flows): every flow's CPU node among the bench's workers, its
 * nodes among those with pages.  A latency of 0: no thread chased.
 */
int bench_flows(struct bench *b, const struct bwm_flow *f, int nf,
		double seconds, struct bwm_flow_result *r);
/* The array for this machine: 4 x its L3 caches (sysfs below root), at
 * least 64 MiB per memory node, at most a quarter of a node's memory. */
size_t bench_array_bytes(const char *root, const struct bwapd_topology *t);
int bench_stop(struct bench *b, struct bwapd_bench_result *r);
void bench_destroy(struct bench *b);

#endif /* BWAPD_BENCH_H */
