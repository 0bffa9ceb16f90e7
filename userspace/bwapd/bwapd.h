/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bwapd: canonical weighted-interleave weights for a NUMA machine, and
 * the admin path that applies them.
 *
 * The parts: the machine's topology (sysfs or a model preset), the worker
 * sets worth profiling, a backend that gives counters and actuators (the
 * real machine or the NUMA bandwidth model, behind one interface), the
 * canonical tuner that turns a profiling run into weights, and the
 * canonical-weights file.  Documentation/bwapd.md describes them.
 *
 * No global state; functions return 0 or a negative errno and leave
 * printing to the caller (a reason string where a number is not enough).
 */
#ifndef BWAPD_H
#define BWAPD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "bwmodel.h"

#define BWAPD_MAX_NODES		BWM_MAX_NODES
#define BWAPD_MAX_CPUS		1024
#define BWAPD_MAX_SETS		(1 << BWAPD_MAX_NODES)
#define BWAPD_DEFAULT_FILE	"/var/lib/bwapd/canonical-weights.json"
#define BWAPD_FILE_FORMAT	"bwapd-canonical-weights"
#define BWAPD_FILE_VERSION	1
#define BWAPD_WEIGHTS_DIR	"/sys/kernel/mm/mempolicy/weighted_interleave"

/* ---- topology ----------------------------------------------------------- */

struct bwapd_node {
	int nr_cpus;
	int first_cpu;			/* -1: none */
	uint64_t mem_bytes;		/* MemTotal */
	int distance[BWAPD_MAX_NODES];	/* SLIT row: from this node to j */
	/* HMAT access class 0: the best initiators and what they get */
	uint32_t initiators;		/* bitmask; 0: no HMAT data */
	unsigned int read_bw, write_bw;	/* MB/s */
	unsigned int read_lat, write_lat;	/* ns */
	int has_weight;			/* weighted_interleave/nodeN exists */
};

struct bwapd_topology {
	int nr_nodes;			/* node ids are 0..nr_nodes-1 */
	uint32_t online;		/* nodes present */
	uint32_t cpu_nodes;		/* nodes with CPUs */
	uint32_t mem_nodes;		/* nodes with memory */
	char cpu_model[128];
	struct bwapd_node node[BWAPD_MAX_NODES];
	uint16_t cpu_node[BWAPD_MAX_CPUS];	/* node of every CPU */
#define BWAPD_NO_NODE	0xffff			/* offline or absent CPU */
	int nr_cpus;
};

/*
 * Read the topology below root ("" or "/" for the running system; a test
 * tree otherwise): devices/system/node, devices/system/cpu, the
 * weighted_interleave directory and /proc/cpuinfo's model name
 * (root/proc/cpuinfo).
 */
int bwapd_topology_read(const char *root, struct bwapd_topology *t,
			char *why, size_t len);
/* Identity: a hash of node count, CPUs, memory, distances and CPU model. */
uint64_t bwapd_distance_hash(const struct bwapd_topology *t);
uint64_t bwapd_topology_id(const struct bwapd_topology *t);

/* "0-2,5" <-> bitmask; parse returns -EINVAL on junk. */
int bwapd_nodelist_parse(const char *s, uint32_t *mask);
char *bwapd_nodelist_format(uint32_t mask, char *buf, size_t len);
/* A cpulist "0,28" or "0-3" into cpu[] (at most max); the count or -errno. */
int bwapd_cpulist_parse(const char *s, int *cpu, int max);

/* ---- worker sets -------------------------------------------------------- */

enum bwapd_skip {
	BWAPD_PROFILE = 0,		/* profiled */
	BWAPD_SKIP_SYMMETRIC,		/* same as another set under a symmetry */
	BWAPD_SKIP_SPREAD,		/* farther apart than needed for its size */
};

struct bwapd_set {
	uint32_t workers;
	enum bwapd_skip skip;
	uint32_t same_as;		/* the profiled set it maps to */
	int8_t map[BWAPD_MAX_NODES];	/* node i of this set = map[i] of same_as */
	int diameter;			/* largest SLIT distance inside */
};

struct bwapd_sets {
	int nr;
	int nr_profile, nr_symmetric, nr_spread;
	int nr_automorphisms;
	struct bwapd_set set[BWAPD_MAX_SETS];
};

struct bwapd_set_opts {
	int no_symmetry;		/* profile symmetric sets too */
	int all;			/* keep sets no rational user picks */
	int max_size;			/* 0: all sizes */
};

/*
 * Every non-empty set of CPU nodes, classified.  A set is "spread" when
 * its diameter exceeds the smallest diameter of sets of its size; it is
 * "symmetric" when a permutation of the nodes that keeps distances, CPU
 * counts, memory and HMAT figures maps it onto a set profiled before.
 */
int bwapd_sets_enumerate(const struct bwapd_topology *t,
			 const struct bwapd_set_opts *o, struct bwapd_sets *s);
const char *bwapd_skip_name(enum bwapd_skip s);

/* ---- backends: counters and actuators ----------------------------------- */

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

	/* Actuators: the global weights (0 where a node has no file). */
	int (*weights_get)(struct bwapd_backend *b, uint8_t *w, int nr);
	int (*weight_set)(struct bwapd_backend *b, int node, uint8_t w);

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

/* ---- the canonical tuner ----------------------------------------------- */

enum bwapd_source {
	BWAPD_SRC_COUNTERS,		/* benchmark + memory controller counters */
	BWAPD_SRC_HMAT,			/* HMAT access bandwidth, SLIT-scaled */
	BWAPD_SRC_SLIT,			/* SLIT distances only */
};

const char *bwapd_source_name(enum bwapd_source s);

struct bwapd_result {
	uint32_t workers;
	enum bwapd_source source;
	double seconds;				/* of the benchmark; 0: none */
	double minbw[BWAPD_MAX_NODES];		/* GB/s, or relative (SLIT) */
	double frac[BWAPD_MAX_NODES];		/* Eq. 5 */
	uint8_t weights[BWAPD_MAX_NODES];	/* u8, 0 = node not used */
	int cycle;				/* sum of weights */
	double u8_err;				/* largest page-share error */
	uint32_t same_as;			/* set it was derived from */
};

struct bwapd_profile_opts {
	double seconds;			/* per worker set */
	double u8_err;			/* bwm_fractions_to_u8 tolerance */
	int no_counters;		/* use the fallbacks */
	/* called about every 0.1 s of benchmark time; may be NULL */
	void (*progress)(void *arg, double done_s);
	void *progress_arg;
};

/*
 * Estimate bw(i -> w) for the workers and fill r: from the counters when
 * counters_ok, else from HMAT, else SLIT.
 */
int bwapd_profile_set(struct bwapd_backend *b, const struct bwapd_topology *t,
		      uint32_t workers, int counters_ok,
		      const struct bwapd_profile_opts *o,
		      struct bwapd_result *r);
/* Fractions from minbw[] by Eq. 5, then u8 weights; for every source. */
int bwapd_result_finish(const struct bwapd_topology *t, double u8_err,
			struct bwapd_result *r);
/* The result of a symmetric set: r of its representative, permuted. */
void bwapd_result_permute(const struct bwapd_result *from,
			  const struct bwapd_set *s, int nr_nodes,
			  struct bwapd_result *to);

/* ---- the canonical-weights file ------------------------------------------- */

struct bwapd_file {
	uint64_t topology_id;
	uint64_t distance_hash;
	int nr_nodes;
	char cpu_model[128];
	char backend[96];
	char created[32];
	int nr_results;
	struct bwapd_result *result;	/* nr_results entries, allocated */
	int nr_symmetric, nr_spread;
};

/*
 * An empty file with room for max results (allocated: bwapd_file_free);
 * 0 or -ENOMEM.
 */
int bwapd_file_init(struct bwapd_file *f, int max);
/* Free the results; f is empty afterwards (also after a failed read). */
void bwapd_file_free(struct bwapd_file *f);
int bwapd_file_write(const char *path, const struct bwapd_topology *t,
		     const struct bwapd_file *f, char *why, size_t len);
/*
 * Read and check a file: -EINVAL (corrupt: why says where), -ESTALE (made
 * on another machine: why says what differs), -ENOENT, -ENOMEM.  On
 * success the results are allocated to the file's size: bwapd_file_free.
 */
int bwapd_file_read(const char *path, const struct bwapd_topology *t,
		    struct bwapd_file *f, char *why, size_t len);
/* The entry for exactly these workers, or NULL. */
const struct bwapd_result *bwapd_file_find(const struct bwapd_file *f,
					   uint32_t workers);

/* ---- the online tuner's target: a running application ------------------ */

/* Cumulative counters of all threads of the target; 'have' says which. */
struct bwapd_counters {
	double seconds;			/* when read, on the target's clock */
	uint64_t stall_cycles;
	uint64_t cycles;
	uint64_t instructions;
	uint64_t mem_accesses;		/* last-level cache misses */
	unsigned int have;
#define BWAPD_HAVE_STALLS	(1u << 0)
#define BWAPD_HAVE_MAPI		(1u << 1)	/* instructions and accesses */
};

/* What a migration did. */
struct bwapd_migration {
	uint64_t pages;			/* resident pages it looked at */
	uint64_t moved;			/* pages that changed node */
	uint64_t failed;		/* pages the kernel would not move */
	double seconds;
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
};

struct bwapd_target {
	const struct bwapd_target_ops *ops;
	pid_t pid;			/* 0: a modelled workload */
	uint32_t workers;		/* nodes its CPUs are on */
	int nr_nodes;
	char why[256];			/* the reason of the last error */
	void *priv;
};

/*
 * A running process (task.c): pidfd, set_mempolicy_weights(2),
 * /proc/PID/numa_maps and move_pages(2) for the pages of its mappings
 * under weighted interleave, perf_event_open on its threads.
 * Counters that cannot be opened are left out of 'have' (why says why).
 */
int bwapd_target_process(struct bwapd_target *t, pid_t pid, int nr_nodes,
			 const struct bwapd_topology *topo);
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
/* A model target's application changes phase: another workload, same workers. */
int bwapd_target_model_workload(struct bwapd_target *t,
				const struct bwm_workload *wl);
void bwapd_target_close(struct bwapd_target *t);
/* Worker nodes of a process: the nodes of the CPUs it may run on. */
int bwapd_process_workers(pid_t pid, const struct bwapd_topology *topo,
			  uint32_t *workers);

/* ---- the DWP tuner (BWAP section III-B) ---------------------------------- */

struct bwapd_tune_step;

struct bwapd_tune_opts {
	int samples;			/* n: measurements per step */
	int trim;			/* c: dropped at each end */
	double period;			/* t: seconds per step */
	double step;			/* x: DWP step */
	double fine_step;		/* refinement near the optimum; 0: none */
	int max_steps;			/* DWP settings tried after the start */
	int forward_only;		/* the paper's search: raise DWP only */
	enum bwapd_metric {
		BWAPD_METRIC_AUTO,	/* per instruction where counted */
		BWAPD_STALL_RATE,	/* stalled cycles per second (paper) */
		BWAPD_STALLS_PER_INSN,	/* stalled cycles per instruction */
		BWAPD_CPI,		/* cycles per instruction */
	} metric;
	double start;			/* DWP to start from (re-tuning) */
	double floor;			/* lowest DWP to try (<= start) */
	/* co-scheduled: what the high-priority job may lose, a share */
	double protect;
	double min_mapi;		/* below: not memory-intensive, skip */
	double u8_err;			/* weight conversion tolerance */
	/* phase change: the stall rate moves by more than this share... */
	double phase_change;
	int phase_periods;		/* ...for this many periods in a row */
	struct bwapd_migrate_opts migrate;
	/* called after every measurement; may be NULL */
	void (*log)(void *arg, const struct bwapd_tune_step *s);
	void *log_arg;
};

struct bwapd_tune_step {
	int step;			/* 0: the start */
	double seconds;			/* target clock at the end */
	double dwp;
	double stall_rate;		/* the metric: per second or instruction */
	double mapi;			/* -1: not known */
	uint8_t weights[BWAPD_MAX_NODES];
	struct bwapd_migration migration;
	const char *what;		/* "start", "up", "down", "best", ... */
};

struct bwapd_tune_result {
	double dwp;
	double stall_rate;
	double mapi;
	int steps;
	int skipped;			/* not memory-intensive: left at DWP 0 */
	uint64_t moved;
	uint64_t failed;		/* pages the kernel did not move */
	uint8_t weights[BWAPD_MAX_NODES];
};

void bwapd_tune_opts_default(struct bwapd_tune_opts *o);
/* -EINVAL if a parameter is out of range. */
int bwapd_tune_opts_check(const struct bwapd_tune_opts *o);
/*
 * One period: the trimmed mean of the metric, MAPI (-1: not known) and,
 * if se is not NULL, the standard error of the mean.
 */
int bwapd_measure(struct bwapd_target *t, const struct bwapd_tune_opts *o,
		  double *rate, double *mapi, double *se);
/* Kernel weights for canonical fractions moved towards the workers by dwp. */
int bwapd_dwp_weights(const double *canonical, int nr_nodes, uint32_t workers,
		      double dwp, double u8_err, uint8_t *w);
/*
 * Tune the target: weights for DWP 0 from the canonical fractions, then
 * the search.  The target always holds the weights of a measured DWP:
 * on error those of the best one so far (or of DWP 0).
 */
int bwapd_tune(struct bwapd_target *t, const double *canonical,
	       const struct bwapd_tune_opts *o, struct bwapd_tune_result *r);
/*
 * Co-scheduled jobs on disjoint nodes (BWAP III-B3): *floor is the lowest
 * DWP of the best-effort job at which the high-priority job runs within
 * 'protect' of its speed when the best-effort job keeps to its own nodes;
 * then the best-effort job is tuned from there, not below.
 */
int bwapd_tune_cosched(struct bwapd_target *hi, struct bwapd_target *be,
		       const double *canonical,
		       const struct bwapd_tune_opts *o,
		       struct bwapd_tune_result *r, double *floor);
/*
 * Watch a tuned target for 'seconds' (0: until it exits, -ESRCH): *changed
 * is set when its stall rate left 'rate' by more than phase_change for
 * phase_periods periods in a row (a phase change: tune again).
 */
int bwapd_tune_watch(struct bwapd_target *t, const struct bwapd_tune_opts *o,
		     double rate, double seconds, int *changed);

/* ---- status of the tuners (status.c) ------------------------------------- */

#define BWAPD_RUN_DIR		"/run/bwapd"

struct bwapd_status {
	pid_t pid;			/* the target; 0: a modelled workload */
	pid_t tuner;			/* the bwapd that tunes it */
	char command[64];		/* the target's comm */
	char target[16];		/* "process", "model" */
	char workers[64];
	char state[16];			/* "tuning", "watching", "done", ... */
	char metric[24];
	double dwp, stalls;
	int steps, tunings;
	uint64_t moved;
	int nr_nodes;
	uint8_t weights[BWAPD_MAX_NODES];
	time_t updated;
	int stale;			/* the tuner is gone (from the list) */
};

/* What a step of the tuner changes: DWP, stalls, steps, pages, weights. */
void bwapd_status_step(struct bwapd_status *s, const struct bwapd_tune_step *st);
/* dir/PID.json (dir/model-TUNER.json for a model), replaced atomically. */
int bwapd_status_write(const char *dir, const struct bwapd_status *s);
void bwapd_status_remove(const char *dir, const struct bwapd_status *s);
/* Up to max entries of dir, sorted by file name; -errno on error. */
int bwapd_status_list(const char *dir, struct bwapd_status *out, int max);

/* ---- the daemon's rules (rules.c) -------------------------------------- */

#define BWAPD_RULES_FILE	"/etc/bwapd/rules"
#define BWAPD_RULE_LEN		512
#define BWAPD_RULE_ARGS		32

struct bwapd_rule {
	int line;
	char pattern[64];		/* fnmatch(3) on /proc/PID/comm */
	int argc;			/* argv[0] is "rule" */
	char *argv[BWAPD_RULE_ARGS];
	char buf[BWAPD_RULE_LEN];
	size_t used;
};

/* The rules of path (up to max); their number or -errno (why says where). */
int bwapd_rules_read(const char *path, struct bwapd_rule *rules, int max,
		     char *why, size_t len);
/* The first rule whose pattern matches comm, or NULL. */
const struct bwapd_rule *bwapd_rules_match(const struct bwapd_rule *rules,
					   int nr, const char *comm);

/* ---- small helpers ----------------------------------------------------- */

/* Read a small text file below root into buf; trailing newline removed. */
int bwapd_read_text(const char *root, const char *path, char *buf,
		    size_t len);
uint64_t bwapd_fnv1a(uint64_t h, const void *data, size_t len);
/* mkdir -p dir (0755); 0 or -errno. */
int bwapd_mkdirs(const char *dir);

#endif /* BWAPD_H */
