/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backends: the machine's counters and actuators behind one interface,
 * the real machine (backend_real.c: sysfs, uncore PMUs, the benchmark)
 * or the NUMA bandwidth model (backend_model.c).
 */
#ifndef BWAPD_BACKEND_H
#define BWAPD_BACKEND_H

#include "topology.h"

/* What the load generator counted itself while it ran. */
struct bwapd_bench_result {
	double busy_s[BWAPD_MAX_NODES];	/* time node i's pages were read */
	/* bytes read by worker w's threads from node i: [i][w] */
	double bytes[BWAPD_MAX_NODES][BWAPD_MAX_NODES];
	int threads;
};

struct bwapd_backend;

struct bwapd_backend_ops {
	const char *name;
	void (*destroy)(struct bwapd_backend *b);
	int (*topology)(struct bwapd_backend *b, struct bwapd_topology *t,
			char *why, size_t len);

	/* Counters: per-node memory controller traffic, cumulative bytes. */
	int (*ctrl_open)(struct bwapd_backend *b, char *why, size_t len);
	int (*ctrl_bytes)(struct bwapd_backend *b, int node, uint64_t *read,
			  uint64_t *write);
	/* A description of the counters opened ("uncore_imc_0..5 ..."). */
	const char *(*ctrl_source)(struct bwapd_backend *b);

	/*
	 * The bandwidth benchmark on every CPU of 'workers', pages
	 * interleaved uniformly over all memory nodes.  start() allocates
	 * and initialises the array: that traffic is over when it returns.
	 * run() makes the threads read only node's pages for 'seconds'
	 * more; stop() ends it and says what it counted.
	 */
	int (*bench_start)(struct bwapd_backend *b, uint32_t workers);
	int (*bench_run)(struct bwapd_backend *b, int node, double seconds);
	int (*bench_stop)(struct bwapd_backend *b,
			  struct bwapd_bench_result *r);

	/*
	 * The benchmark on several routes at once (bwm_flow: threads of a
	 * CPU node streaming loads or stores over some nodes' pages, or one
	 * of them chasing pointers there) for 'seconds': what each flow
	 * moved, counted by the benchmark itself, and the latency its loads
	 * saw.  bwapd profile measures the machine's model with it.
	 */
	int (*bench_flows)(struct bwapd_backend *b, const struct bwm_flow *f,
			   int nf, double seconds, struct bwm_flow_result *r);

	/*
	 * Actuators: the kernel's weights, a row at a time: the default row
	 * (BWAPD_DEFAULT_ROW), or CPU node row's, which the private
	 * allocations of its CPUs follow while per_initiator is on.  get:
	 * the weights in force, 0 where a node has none; -ENOENT for a row
	 * the kernel does not have.  set: 1..255; 0 puts an entry of a CPU
	 * node's row back to following the default row.
	 */
	int (*weights_get)(struct bwapd_backend *b, int row, uint8_t *w, int nr);
	int (*weight_set)(struct bwapd_backend *b, int row, int node, uint8_t w);
	/*
	 * A switch of the weights, "per_initiator" or "auto" (derived from
	 * firmware): on < 0 reads it (1, 0, or -ENOENT: none here); 0 or 1
	 * writes it (0 or -errno).
	 */
	int (*weights_switch)(struct bwapd_backend *b, const char *name, int on);
};

struct bwapd_backend {
	const struct bwapd_backend_ops *ops;
	void *priv;
};

/* The running machine below root ("" for /). */
int bwapd_backend_real(struct bwapd_backend *b, const char *root);
/*
 * Where the real backend finds the memory controller PMUs
 * (dir/sys/bus/event_source/devices) and the CPU they belong to
 * (dir/proc/cpuinfo); root by default.  Tests point it at a tree shaped
 * like another machine's.
 */
int bwapd_backend_real_pmu_root(struct bwapd_backend *b, const char *dir);
/* The model of a machine preset; noise is relative (0.01 = 1 %). */
int bwapd_backend_model(struct bwapd_backend *b, const char *machine_json,
			uint64_t seed, double noise, char *why, size_t len);
void bwapd_backend_destroy(struct bwapd_backend *b);

/* Model topology as the kernel would show the machine (tests use it). */
int bwapd_model_topology(const struct bwm_machine *m,
			 struct bwapd_topology *t);

#endif /* BWAPD_BACKEND_H */
