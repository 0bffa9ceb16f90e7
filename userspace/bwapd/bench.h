/* SPDX-License-Identifier: GPL-2.0 */
/* The built-in bandwidth benchmark (bench.c). */
#ifndef BWAPD_BENCH_H
#define BWAPD_BENCH_H

#include "bwapd.h"

struct bench;

/*
 * Threads on every CPU of 'workers' read a shared array interleaved
 * uniformly over the machine's memory nodes; the run takes 'seconds'
 * in all, split into one phase per memory node.
 */
int bench_start(const struct bwapd_topology *t, uint32_t workers,
		double seconds, struct bench **out);
int bench_wait(struct bench *b, double seconds);
int bench_stop(struct bench *b, struct bwapd_bench_result *r);
void bench_destroy(struct bench *b);

#endif /* BWAPD_BENCH_H */
