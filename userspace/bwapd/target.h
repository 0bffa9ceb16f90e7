/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The online tuner's target, a running application: its counters, its
 * own weights and its pages.  A process (task.c), a workload of the
 * model (target_model.c), or a process whose counters the model gives.
 */
#ifndef BWAPD_TARGET_H
#define BWAPD_TARGET_H

#include "topology.h"

/* Cumulative counters of all threads of the target; 'have' says which. */
struct bwapd_counters {
	double seconds;			/* when read, on the target's clock */
	uint64_t stall_cycles;
	uint64_t cycles;
	uint64_t instructions;
	uint64_t mem_accesses;		/* last-level cache misses */
	uint64_t read_bytes;		/* the memory controllers' traffic */
	uint64_t write_bytes;
	/*
	 * Stalled cycles and instructions by the node of the CPU each
	 * thread ran on: the threads of the node that holds the others up
	 * show there (BWAPD_HAVE_NODES).
	 */
	uint64_t node_stall_cycles[BWAPD_MAX_NODES];
	uint64_t node_instructions[BWAPD_MAX_NODES];
	unsigned int have;
#define BWAPD_HAVE_STALLS	(1u << 0)
#define BWAPD_HAVE_MAPI		(1u << 1)	/* instructions and accesses */
#define BWAPD_HAVE_RW		(1u << 2)	/* read and write bytes */
#define BWAPD_HAVE_NODES	(1u << 3)	/* the node_ counts */
};

/* What a migration did. */
struct bwapd_migration {
	uint64_t pages;			/* resident pages it looked at */
	uint64_t asked;			/* pages whose node it asked */
	uint64_t moved;			/* pages that changed node */
	uint64_t failed;		/* pages the kernel would not move */
	double seconds;
	/* DAMON's own account of the move, where DAMON moved the pages */
	int damon;
	uint64_t damon_tried;		/* regions its action was tried on */
	uint64_t damon_applied;		/* bytes it moved */
	uint64_t damon_quota;		/* times its quota stopped it */
};

struct bwapd_migrate_opts {
	unsigned int batch;		/* pages per move_pages call */
	double pages_per_s;		/* rate limit; 0: none */
};

struct bwapd_target;

struct bwapd_target_ops {
	const char *name;
	void (*close)(struct bwapd_target *t);
	/* -ESRCH once the target is gone */
	int (*counters)(struct bwapd_target *t, struct bwapd_counters *c);
	/* the target's own weights (set_mempolicy_weights(2)) */
	int (*set_weights)(struct bwapd_target *t, const uint8_t *w, int nr);
	/* move pages so that every node holds its share of w[] */
	int (*migrate)(struct bwapd_target *t, const uint8_t *w, int nr,
		       const struct bwapd_migrate_opts *o,
		       struct bwapd_migration *m);
	/* resident pages per node, of the memory the weights govern */
	int (*pages)(struct bwapd_target *t, uint64_t *pages, int nr);
	/* let the target run; the model advances its clock instead */
	int (*wait)(struct bwapd_target *t, double seconds);
	/*
	 * Its threads that run, by the node of their CPU (threads[node]);
	 * -ENODATA when none is seen running.  May be NULL: not known.
	 */
	int (*threads)(struct bwapd_target *t, int *threads, int nr);
};

struct bwapd_target {
	const struct bwapd_target_ops *ops;
	pid_t pid;			/* 0: a modelled workload */
	uint32_t workers;		/* nodes its CPUs are on */
	/*
	 * How a process's pages get its weights (placement.h): "weights",
	 * "damon", "migrate" or "global"; NULL for a modelled workload.
	 */
	const char *placement;
	/*
	 * A weight of 0 leaves the node out of the placement (DAMON's
	 * destinations, a workload of the model); else 0 means something
	 * else (the global weight) and every node keeps a page in 1/sum.
	 */
	int leave_out;
	int nr_nodes;
	/* what counts its stalls (a PMU event's name); "": nothing */
	char stall_event[96];
	char why[256];			/* the reason of the last error */
	void *priv;
};

/*
 * A running process (task.c): pidfd, /proc/PID/numa_maps and
 * move_pages(2) for the pages of its mappings under weighted interleave
 * (and interleave, for bwapd's own migration), perf_event_open on its
 * threads; its own weights until bwapd_target_process_place says else.
 * Counters that cannot be opened are left out of 'have' (why says why).
 */
int bwapd_target_process(struct bwapd_target *t, pid_t pid, int nr_nodes,
			 const struct bwapd_topology *topo);
/*
 * How process target t's pages get their weights: a placement of
 * placement.h (BWAPD_PLACE_WEIGHTS when opened), DAMON's record in
 * damon_dir, moving at most pages_per_s pages a second (0: no limit)
 * where the placement paces itself.
 */
void bwapd_target_process_place(struct bwapd_target *t, int kind,
				const char *damon_dir, double pages_per_s);
/*
 * A workload of the NUMA bandwidth model on a machine preset: counters
 * from the model, placement from the weights.  With 'real' (a process
 * target) the weights and pages are the real process's and the model
 * only computes the counters, from the process's actual page placement.
 */
int bwapd_target_model(struct bwapd_target *t, const struct bwm_machine *m,
		       const struct bwm_workload *wl, uint64_t seed,
		       double noise, struct bwapd_target *real);
/*
 * nr workloads of the model sharing one machine, on disjoint nodes
 * (co-scheduled jobs): t[i] is workload wl[i]; real as above (nr 1 only).
 */
int bwapd_target_model_group(struct bwapd_target *t, int nr,
			     const struct bwm_machine *m,
			     const struct bwm_workload *wl, uint64_t seed,
			     double noise, struct bwapd_target *real);
/*
 * An application of the model beyond its workload (bwm_app: phases,
 * unequal threads, prefetches, write-backs, stalls that are not memory
 * stalls), its counters as a real program's would be.
 */
int bwapd_target_model_app(struct bwapd_target *t, const struct bwm_machine *m,
			   const struct bwm_app *app, uint64_t seed,
			   double noise);
/* A model target's application changes phase: another workload, same workers. */
int bwapd_target_model_workload(struct bwapd_target *t,
				const struct bwm_workload *wl);
void bwapd_target_close(struct bwapd_target *t);
/* Worker nodes of a process: the nodes of the CPUs it may run on. */
int bwapd_process_workers(pid_t pid, const struct bwapd_topology *topo,
			  uint32_t *workers);

#endif /* BWAPD_TARGET_H */
