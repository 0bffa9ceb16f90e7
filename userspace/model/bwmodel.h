/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libbwmodel: a bandwidth model of a NUMA machine.
 *
 * Given a machine (nodes, memory controllers, directed node-to-node
 * bandwidth, idle latency), a workload (worker nodes, threads, demand,
 * shared/private and read/write mix, memory-level parallelism) and a
 * placement (the fraction of pages on every node), it predicts the traffic
 * on every controller and path, the loaded latency, per-worker throughput
 * (the slowest worker bounds the run), execution time and stall-cycle
 * rate.  Documentation/model.md gives the equations and the file formats.
 *
 * No global state: everything lives in caller-owned structures.  Functions
 * return 0 or a negative errno; parsers also fill a struct bwm_error.
 */
#ifndef BWMODEL_H
#define BWMODEL_H

#include <stddef.h>
#include <stdint.h>

#define BWM_MAX_NODES		16
#define BWM_MAX_LINKS		64
#define BWM_LINE_BYTES		64.0
#define BWM_MAX_STEPS		100	/* finest exhaustive search: 1 % */

/* ---- errors from the file parsers ----------------------------------- */

struct bwm_error {
	int line;		/* 1-based, 0 when not known */
	int column;		/* 1-based, 0 when not known */
	char field[96];		/* e.g. "nodes[2].ctrl_read_gbps" */
	char msg[160];
};

/* "FILE:LINE:COL: FIELD: MSG" into buf; returns buf. */
const char *bwm_error_format(const struct bwm_error *err, const char *file,
			     char *buf, size_t len);

/* ---- machine ---------------------------------------------------------- */

struct bwm_node {
	int cpus;			/* cores; 0 for a memory-only node */
	double ctrl_read_gbps;		/* memory controller, reads only */
	double ctrl_write_gbps;		/* memory controller, writes only */
	/* remote traffic of this node's CPUs, all paths together; 0: none */
	double interconnect_gbps;
};

/* A directed interconnect link: data from node 'from' to node 'to'. */
struct bwm_link {
	int from, to;
	double gbps;
};

/*
 * Matrices are indexed [mem][cpu]: the path that carries data between
 * the memory of node mem and the CPUs of node cpu (the BWAP paper's
 * bw(mem -> cpu)); [m][m] is local access.  Columns of memory-only nodes
 * are 0.
 */
struct bwm_machine {
	char name[64];
	int nr_nodes;
	double cpu_ghz;			/* for stall cycles */
	/* a thread's demand here over its demand_gbps; 0 counts as 1 */
	double core_speed;
	double queue_factor;		/* loaded latency growth (model.md) */
	struct bwm_node node[BWM_MAX_NODES];
	double read_gbps[BWM_MAX_NODES][BWM_MAX_NODES];
	double write_gbps[BWM_MAX_NODES][BWM_MAX_NODES];
	double latency_ns[BWM_MAX_NODES][BWM_MAX_NODES];
	/*
	 * Optional links; when there are any, the data from node a to node
	 * b crosses the links of route[a][b] (bit l: link[l]), which
	 * bwm_machine_routes() fills, and every flow crossing a link shares
	 * its capacity.
	 */
	int nr_links;
	struct bwm_link link[BWM_MAX_LINKS];
	uint64_t route[BWM_MAX_NODES][BWM_MAX_NODES];
	/*
	 * Routes given, not chosen (the file's "routes"): the one from a to
	 * b takes pin_hops[a][b] links through the nodes pin_via[a][b][],
	 * one fewer; 0: chosen by bwm_machine_routes().
	 */
	uint8_t pin_hops[BWM_MAX_NODES][BWM_MAX_NODES];
	uint8_t pin_via[BWM_MAX_NODES][BWM_MAX_NODES][BWM_MAX_NODES - 2];
};

#define BWM_DEFAULT_QUEUE_FACTOR	0.15

/* Consistency checks of a machine built in memory; -EINVAL + err. */
int bwm_machine_check(const struct bwm_machine *m, struct bwm_error *err);
/* Parse a machine file (JSON text); the result has passed the checks. */
int bwm_machine_parse(const char *text, struct bwm_machine *m,
		      struct bwm_error *err);
int bwm_machine_load(const char *path, struct bwm_machine *m,
		     struct bwm_error *err);
/*
 * The machine in the file format, as JSON text (malloc'd; NULL when out
 * of memory) that bwm_machine_parse() reads back to the same machine.
 * description and source may be NULL.
 */
char *bwm_machine_format(const struct bwm_machine *m, const char *description,
			 const char *source);
/*
 * Routes over the links: the fewest hops, then the widest narrowest
 * link, then the link listed first; a pinned route (pin_hops) as given.
 * -EINVAL (err) if a link is invalid, a pinned route crosses a link that
 * is not there, or a node with CPUs cannot reach or be reached by every
 * node.  The parser calls it; a machine built in memory with links must
 * too.
 */
int bwm_machine_routes(struct bwm_machine *m, struct bwm_error *err);
/* Bitmask of the nodes with CPUs. */
uint32_t bwm_cpu_nodes(const struct bwm_machine *m);

/* ---- workload --------------------------------------------------------- */

/* A throughput measured on a preset machine, for the workload's tests. */
struct bwm_measured {
	char machine[64];		/* "": none */
	uint32_t workers;		/* every core of each, first-touch */
	double gbps;
};

struct bwm_workload {
	char name[64];
	char kind[32];			/* free text: "bandwidth-bound", ... */
	uint32_t workers;		/* bitmask of worker nodes */
	int threads[BWM_MAX_NODES];	/* threads on each node */
	int threads_per_worker;		/* 0: every core of the worker */
	/* per thread, with memory for free, on a core of speed 1 */
	double demand_gbps;
	double mlp;			/* outstanding misses per thread */
	double shared;			/* fraction of traffic to shared pages */
	double read;			/* fraction of traffic that reads */
	double work_gb;			/* traffic of one thread over a run */
	double footprint_gb;		/* memory it touches (dynamic policies) */
	int first_touch_node;		/* -1: the lowest worker node */
	struct bwm_measured measured;	/* the file's "measured", if any */
};

int bwm_workload_check(const struct bwm_machine *m,
		       const struct bwm_workload *wl, struct bwm_error *err);
/*
 * Parse a workload file.  Without a machine the worker set is only
 * recorded; bwm_workload_bind() then fills threads[] for a machine.
 */
int bwm_workload_parse(const char *text, struct bwm_workload *wl,
		       struct bwm_error *err);
int bwm_workload_load(const char *path, struct bwm_workload *wl,
		      struct bwm_error *err);
/*
 * Place the workload on machine m with worker set 'workers' (0: keep the
 * file's) and threads_per_worker threads on each (0: every core).
 */
int bwm_workload_bind(const struct bwm_machine *m, struct bwm_workload *wl,
		      uint32_t workers, int threads_per_worker,
		      struct bwm_error *err);
/*
 * A preset machine (DIR/machines/MACHINE.json) and, unless workload is
 * NULL, a preset workload (DIR/workloads/WORKLOAD.json) bound to it with
 * worker set 'workers' (0: the file's), every core of each.  On error
 * msg (len bytes) says which file and what is wrong in it.
 */
int bwm_preset_load(const char *dir, const char *machine,
		    const char *workload, uint32_t workers,
		    struct bwm_machine *m, struct bwm_workload *wl,
		    char *msg, size_t len);
int bwm_workload_nr_threads(const struct bwm_workload *wl);
/* m's core_speed (1 when unset). */
double bwm_core_speed(const struct bwm_machine *m);
/* What a thread of wl asks for on m's cores: demand_gbps x core speed. */
double bwm_thread_demand(const struct bwm_machine *m,
			 const struct bwm_workload *wl);
/* The node that first touches the shared pages (-1: no worker). */
int bwm_workload_first_touch(const struct bwm_workload *wl);
/* The node of thread t, threads numbered node by node; -1: no such. */
int bwm_workload_thread_node(const struct bwm_workload *wl, int t);

/* ---- placement -------------------------------------------------------- */

struct bwm_placement {
	double shared[BWM_MAX_NODES];	/* fraction of shared pages */
	/* [cpu][mem]: where the private pages of a thread on cpu are */
	double priv[BWM_MAX_NODES][BWM_MAX_NODES];
};

/* All pages (shared and private) spread by the fractions frac[]. */
void bwm_placement_interleave(struct bwm_placement *pl, int nr_nodes,
			      const double *frac);
/* Shared pages on one node, private pages local to their thread. */
void bwm_placement_first_touch(struct bwm_placement *pl, int nr_nodes,
			       int shared_node);
/*
 * Kernel weights (1..255; 0 = node not in the policy) turned into
 * fractions, then moved towards the workers by dwp in [0, 1]
 * (bwm_apply_dwp); the placement of a weighted interleave policy.
 */
int bwm_placement_from_weights(struct bwm_placement *pl, int nr_nodes,
			       const uint8_t *weights, uint32_t workers,
			       double dwp);

/* Fractions of weights[]; -EINVAL if all are 0. */
int bwm_weights_to_fractions(const uint8_t *weights, int nr_nodes,
			     double *frac);
/*
 * Data-to-worker proximity: the worker nodes together get
 * S + dwp * (1 - S) of the pages (S: their share in base[]), the others
 * 1 - that; ratios inside each set stay those of base[].
 */
int bwm_apply_dwp(const double *base, int nr_nodes, uint32_t workers,
		  double dwp, double *out);
/*
 * Smallest interleave cycle (sum of weights) whose u8 weights reproduce
 * frac[] within max_err (absolute, in fraction of pages) on every node;
 * nodes with frac > 0 get at least 1, nodes with 0 get 0.  Returns the
 * cycle length, or -EINVAL.  When no cycle reaches max_err the most
 * accurate one is returned (*err_out tells).
 */
int bwm_fractions_to_u8(const double *frac, int nr_nodes, double max_err,
			uint8_t *weights, double *err_out);

#define BWM_DEFAULT_U8_ERR	0.005

/*
 * A weight vector as numactl's --weights takes it: one weight per node in
 * node order, separated by commas ("5,3,1,1").  Up to len - 1 characters,
 * cut after a whole weight; returns buf.
 */
char *bwm_weights_format(const uint8_t *weights, int nr_nodes, char *buf,
			 size_t len);
/*
 * "5,3,1,1" into weights[] (up to max): weights 0-255 in decimal, not all
 * 0.  The older form "5:3:1:1" is read too; *old (if not NULL) says which
 * was given.  Returns the count, -EINVAL for anything else, -E2BIG for
 * more than max.
 */
int bwm_weights_parse(const char *s, uint8_t *weights, int max, int *old);

/* ---- prediction ------------------------------------------------------- */

struct bwm_prediction {
	double throughput_gbps;		/* threads x slowest thread rate */
	double exec_time_s;		/* work_gb / slowest thread rate */
	double stall_rate;		/* stalled cycles per second, all threads */
	double stall_fraction;		/* stalled share of thread time */
	int slowest;			/* worker node that bounds the run */
	int iterations;			/* of the loaded-latency fixed point */
	double thread_gbps[BWM_MAX_NODES];	/* per thread on each worker */
	double worker_gbps[BWM_MAX_NODES];	/* all threads of a worker */
	double ctrl_read_gbps[BWM_MAX_NODES];
	double ctrl_write_gbps[BWM_MAX_NODES];
	double ctrl_local_gbps[BWM_MAX_NODES];	/* from CPUs of the node */
	double ctrl_util[BWM_MAX_NODES];
	double link_util[BWM_MAX_LINKS];	/* all workloads together */
	double path_gbps[BWM_MAX_NODES][BWM_MAX_NODES];	/* [mem][cpu] */
	double path_util[BWM_MAX_NODES][BWM_MAX_NODES];
	double latency_ns[BWM_MAX_NODES][BWM_MAX_NODES];	/* loaded */
};

int bwm_predict(const struct bwm_machine *m, const struct bwm_workload *wl,
		const struct bwm_placement *pl, struct bwm_prediction *out);
/*
 * Workloads running together on disjoint worker nodes, each with its own
 * placement: they share the memory controllers.  out[i] is workload i's
 * prediction (its own traffic; ctrl_util is the controllers' total).
 */
#define BWM_MAX_CORUN		BWM_MAX_NODES	/* a worker node each */
int bwm_predict_corun(const struct bwm_machine *m, int nr,
		      const struct bwm_workload *const *wl,
		      const struct bwm_placement *const *pl,
		      struct bwm_prediction *out);
/* Throughput only (GB/s), for searches; negative errno on error. */
double bwm_predict_throughput(const struct bwm_machine *m,
			      const struct bwm_workload *wl,
			      const struct bwm_placement *pl);

/* ---- an application beyond the workload ------------------------------ */

/*
 * What a real program's counters carry that a workload's do not
 * (model.md, "Applications"): phases that take turns, threads that are
 * not equal (fewer on every worker node but the first), traffic no
 * demand miss counts (prefetches; write-backs, which no last-level miss
 * counts either), and stalls that are not memory stalls.  Its progress
 * is instructions: a phase's cycles not spent waiting for memory are
 * its traffic over a thread's demand, and other_stalls of them retire
 * nothing.  The phases share worker nodes and threads.
 */
#define BWM_APP_PHASES		2
struct bwm_app {
	int nr_phases;
	struct bwm_workload phase[BWM_APP_PHASES];
	double insns[BWM_APP_PHASES];	/* of each phase in one round */
	double prefetch;		/* share of reads no demand miss counts */
	double other_stalls;		/* share of unwaited cycles stalled anyway */
};

/* The ranges bwm_app_draw draws from (uniformly; the round's length log-uniformly). */
#define BWM_APP_PREFETCH_MIN	0.0
#define BWM_APP_PREFETCH_MAX	0.4
#define BWM_APP_OTHER_MIN	0.05
#define BWM_APP_OTHER_MAX	0.35
#define BWM_APP_THREADS_MIN	0.4	/* of a worker's threads, but the first's */
#define BWM_APP_PHASE_MIN	0.15	/* the second phase's share of a round */
#define BWM_APP_PHASE_MAX	0.5
#define BWM_APP_ROUND_MIN_S	0.05	/* a round under uniform interleave */
#define BWM_APP_ROUND_MAX_S	2.0

/*
 * An application drawn for 'seed': phases wl then other (bound to the
 * same workers), the rest from the ranges above.
 */
int bwm_app_draw(const struct bwm_machine *m, const struct bwm_workload *wl,
		 const struct bwm_workload *other, uint64_t seed,
		 struct bwm_app *app);
/* Instructions per second of phase p while it moves gbps. */
double bwm_app_phase_ips(const struct bwm_machine *m,
			 const struct bwm_app *app, int p, double gbps);
/*
 * Instructions per second of the whole program (its rounds), the pages
 * spread by frac[]; negative errno.
 */
double bwm_app_rate(const struct bwm_machine *m, const struct bwm_app *app,
		    const double *frac);
/*
 * The best rate of any placement: the grid of bwm_search_by in steps of
 * 1/steps, then hill climbing from it and from uniform interleave down
 * to 0.1 %.  frac (may be NULL) gets the placement.
 */
double bwm_app_optimum(const struct bwm_machine *m, const struct bwm_app *app,
		       int steps, double *frac);

/* ---- random numbers (caller-owned state) ----------------------------- */

struct bwm_rng {
	uint64_t state;
};

void bwm_rng_seed(struct bwm_rng *rng, uint64_t seed);
uint64_t bwm_rng_next(struct bwm_rng *rng);
double bwm_rng_uniform(struct bwm_rng *rng);	/* [0, 1) */
double bwm_rng_normal(struct bwm_rng *rng);	/* mean 0, sd 1 */
/* Relative noise: 1 + noise * N(0, 1), at least 0; 1 without rng or noise. */
double bwm_noise_factor(struct bwm_rng *rng, double noise);

/* ---- profiling run and canonical weights (BWAP Eq. 5) ---------------- */

/*
 * The canonical tuner's profiling run: a read-only, bandwidth-heavy
 * benchmark on every core of the workers, pages interleaved uniformly
 * over all nodes, each (memory node, worker) transfer proceeding in
 * parallel.  bw[mem][cpu] is what the per-requester controller counters
 * report over 'seconds', divided by the time (GB/s), with relative noise
 * 'noise' drawn from rng (rng may be NULL when noise is 0).
 */
struct bwm_profile {
	uint32_t workers;
	double seconds;
	double bytes[BWM_MAX_NODES][BWM_MAX_NODES];	/* [mem][cpu] */
	double bw[BWM_MAX_NODES][BWM_MAX_NODES];	/* GB/s */
};

int bwm_profile_run(const struct bwm_machine *m, uint32_t workers,
		    double seconds, double noise, struct bwm_rng *rng,
		    struct bwm_profile *out);
/*
 * A phase of a benchmark that loads several routes at once, as bwapd
 * profile's measurement of the machine runs it (Documentation/bwapd.md,
 * "The machine's model"): each flow is threads on one CPU node that
 * stream loads (or stores) over the pages of the nodes in 'mem', evenly,
 * or one thread that chases pointers there (one load in flight).  Flows
 * run on distinct CPU nodes and share what the machine shares.  Per
 * flow: its traffic and the loaded latency of its loads, each with
 * relative noise 'noise' from rng (NULL when noise is 0).
 */
struct bwm_flow {
	int cpu;			/* the node whose cores run it */
	uint32_t mem;			/* the nodes of its pages */
	int write;			/* 1: stores only, 0: loads only */
	int chase;			/* 1: one thread, dependent loads */
};

struct bwm_flow_result {
	double gbps;
	double latency_ns;		/* averaged over its pages' nodes */
};

/*
 * Lines a streaming benchmark thread keeps in flight: it walks pages
 * line by line, which the core's prefetchers follow, as the
 * bandwidth-bound workload's streams do (workloads/bandwidth-bound.json).
 */
#define BWM_BENCH_MLP		48.0

int bwm_bench_flows(const struct bwm_machine *m, int nf,
		    const struct bwm_flow *f, double noise,
		    struct bwm_rng *rng, struct bwm_flow_result *r);
/*
 * The same without noise, and how loaded the phase leaves each
 * controller (ctrl_util[node]) and link (link_util[link]), either NULL.
 */
int bwm_bench_flows_load(const struct bwm_machine *m, int nf,
			 const struct bwm_flow *f, struct bwm_flow_result *r,
			 double *ctrl_util, double *link_util);

/*
 * The profiling run as the benchmark's threads answer it: the phase of
 * node 'node' (gbps[cpu] per worker node, 0 elsewhere), and every phase
 * in turn (the same fields as bwm_profile_run()).  A real machine's
 * profile measures this; bwm_profile_run() is its ideal.
 */
int bwm_bench_phase(const struct bwm_machine *m, uint32_t workers, int node,
		    double noise, struct bwm_rng *rng, double *gbps);
int bwm_profile_bench(const struct bwm_machine *m, uint32_t workers,
		      double seconds, double noise, struct bwm_rng *rng,
		      struct bwm_profile *out);

/* Eq. 2/5 on a bandwidth matrix: frac[i] ~ min over workers bw[i][w]. */
int bwm_canonical_fractions(const double bw[BWM_MAX_NODES][BWM_MAX_NODES],
			    int nr_nodes, uint32_t workers, double *frac);
/* ...on the benchmark's noise-free profiling run (bwm_profile_bench()). */
int bwm_bench_canonical(const struct bwm_machine *m, uint32_t workers,
			double *frac);

/* ---- counters and actuators: the model backend ----------------------- */

/*
 * A running workload on the modelled machine, read and steered like a
 * real one: counters are cumulative (as perf reports them) and noisy when
 * noise > 0; a new placement applies to the whole address space at once.
 */
struct bwm_sim {
	const struct bwm_machine *m;
	struct bwm_workload wl;
	struct bwm_placement pl;
	struct bwm_prediction pred;
	struct bwm_rng rng;
	double noise;
	double now_s;
	double done_gb;			/* per thread of the slowest worker */
	uint64_t ctrl_read_bytes[BWM_MAX_NODES];
	uint64_t ctrl_write_bytes[BWM_MAX_NODES];
	uint64_t ctrl_local_bytes[BWM_MAX_NODES];
	uint64_t stall_cycles;
	uint64_t cycles;
};

/* Starts under uniform interleave over all nodes. */
int bwm_sim_init(struct bwm_sim *sim, const struct bwm_machine *m,
		 const struct bwm_workload *wl, uint64_t seed, double noise);
int bwm_sim_set_weights(struct bwm_sim *sim, const uint8_t *weights,
			double dwp);
int bwm_sim_set_placement(struct bwm_sim *sim, const struct bwm_placement *pl);
/* Advance the clock, accumulating counters. */
int bwm_sim_run(struct bwm_sim *sim, double seconds);
int bwm_sim_ctrl_bytes(const struct bwm_sim *sim, int node,
		       uint64_t *read_bytes, uint64_t *write_bytes);
uint64_t bwm_sim_stall_cycles(const struct bwm_sim *sim);
/* Profiling run on the sim's machine with the sim's noise and rng. */
int bwm_sim_profile(struct bwm_sim *sim, uint32_t workers, double seconds,
		    struct bwm_profile *out);
/* bwm_bench_phase() on the simulated machine, with its counter noise. */
int bwm_sim_bench_phase(struct bwm_sim *sim, uint32_t workers, int node,
			double *gbps);
/* bwm_bench_flows() on the simulated machine, with its counter noise. */
int bwm_sim_bench_flows(struct bwm_sim *sim, int nf, const struct bwm_flow *f,
			struct bwm_flow_result *r);

/* ---- access-pattern signatures (the Oracle Labs counter model) -------- */

/*
 * A bandwidth signature: fractions of a thread's traffic that go to a
 * static allocation on one node, to memory local to the thread's node, to
 * memory each thread allocated locally but every thread uses (per-thread),
 * and (the rest) to memory interleaved over the used nodes.
 */
struct bwm_signature {
	int static_node;
	double static_frac;
	double local_frac;
	double per_thread_frac;
};

/*
 * out[cpu][mem]: fraction of the traffic of a thread on cpu going to mem,
 * for threads[] threads per node.  Rows of used nodes sum to 1.
 */
int bwm_signature_matrix(const struct bwm_signature *sig, int nr_nodes,
			 const int *threads,
			 double out[BWM_MAX_NODES][BWM_MAX_NODES]);
/*
 * What the controllers report ("bank view"): for threads[] threads per
 * node running at relative speed rate[] and sending access[cpu][mem] of
 * their traffic to each node, local[mem] and remote[mem] traffic (units
 * of one full-speed thread).
 */
int bwm_bank_view(int nr_nodes, const int *threads, const double *rate,
		  const double access[BWM_MAX_NODES][BWM_MAX_NODES],
		  double *local, double *remote);
/*
 * Divide each bank's local traffic by the speed (instruction rate) of
 * its own node's threads and its remote traffic by the thread-weighted
 * mean speed of the other nodes' threads: the traffic per unit of work,
 * as the paper normalises it.  Exact under the signature model, where
 * every other node sends a node the same share of its traffic.
 */
int bwm_bank_normalise(int nr_nodes, const int *threads, const double *rate,
		       double *local, double *remote);

/* One profiling run's bank view, normalised: threads per node, traffic. */
struct bwm_bank_run {
	int threads[BWM_MAX_NODES];
	double local[BWM_MAX_NODES];
	double remote[BWM_MAX_NODES];
};

/* How well two runs fit the signature model (the paper's section 6.2.1). */
struct bwm_signature_quality {
	/* spread of the symmetric run's remote shares, static traffic out */
	double asymmetry;
	/* share of both runs' traffic the fitted signature puts elsewhere */
	double residual;
	double per_thread_raw;	/* per-thread interpolation before [0, 1] */
	int fits;		/* both below the limits that follow */
};

#define BWM_SIG_MAX_RESIDUAL	0.05
#define BWM_SIG_MAX_ASYMMETRY	0.05

/*
 * Fit a signature to a symmetric run (the same number of threads on each
 * of two or more used nodes) and an asymmetric one (different numbers),
 * both normalised.  Memory on nodes without threads fits only as the
 * static allocation: interleaved and per-thread memory are over the
 * used nodes.  -EINVAL if the runs do not have these shapes; q (may be
 * NULL) says how well the data fit.
 */
int bwm_signature_fit_runs(int nr_nodes, const struct bwm_bank_run *sym,
			   const struct bwm_bank_run *asym,
			   struct bwm_signature *sig,
			   struct bwm_signature_quality *q);
/* The two-node form of the paper: sym_threads on each node. */
int bwm_signature_fit(int sym_threads, const double sym_local[2],
		      const double sym_remote[2], const int asym_threads[2],
		      const double asym_local[2], const double asym_remote[2],
		      struct bwm_signature *sig);

/* ---- page access behaviour (Diener et al.) --------------------------- */

/*
 * One page: its accesses from each node's CPUs, where it is and where it
 * was first touched from.  Arrays of pages are in first-access order.
 */
struct bwm_page {
	uint64_t addr;			/* page number: address / page size */
	int node;			/* where it is; -1: not known */
	int first_node;			/* first touched from; -1: not known */
	double acc[BWM_MAX_NODES];	/* accesses (or samples) per node */
};

/* The metrics of the paper, over the pages with accesses. */
struct bwm_access_metrics {
	long pages;			/* pages with accesses */
	long located;			/* ... of which the node is known */
	double accesses;
	double exclusivity;		/* E_App (Eq. 2): 1/N .. 1 */
	double locality;		/* Loc_App (Eq. 9): 0 .. 1 */
	double page_locality;		/* mean Loc_Page (Eq. 8): 0 .. 1 */
	double page_balance;		/* B_Pages (Eq. 3), percent */
	double access_balance;		/* B_Acc (Eq. 5), percent */
	double node_pages[BWM_MAX_NODES];	/* NodePages: every located page */
	double node_acc[BWM_MAX_NODES];	/* accesses each node's memory serves */
};

int bwm_access_metrics(const struct bwm_page *p, long n, int nr_nodes,
		       struct bwm_access_metrics *out);
/* The node with the most accesses to p (lowest of ties), -1: none. */
int bwm_page_argmax(const struct bwm_page *p, int nr_nodes);
/* E_Page (Eq. 1); 0 for a page without accesses. */
double bwm_page_exclusivity(const struct bwm_page *p, int nr_nodes);
/* The percent imbalance of Eq. 3 and 5: (max / mean - 1) x 100. */
double bwm_imbalance(const double *v, int n);
/*
 * Eq. 6 between two time slices of the same pages (prev[i] and cur[i]
 * are page i): the pages accessed in both whose most-accessing node in
 * cur is not the one of prev.  *compared: the pages accessed in both.
 */
long bwm_page_migrations(const struct bwm_page *prev,
			 const struct bwm_page *cur, long n, int nr_nodes,
			 long *compared);

/* The data mapping policies of the paper's section "The policies". */
enum bwm_mapping {
	BWM_MAP_FIRST_TOUCH,
	BWM_MAP_RANDOM,
	BWM_MAP_ROUND_ROBIN,
	BWM_MAP_INTERLEAVE,
	BWM_MAP_LOCALITY,
	BWM_MAP_REMOTE,
	BWM_MAP_BALANCED,
	BWM_MAP_MIXED,
	BWM_NR_MAPPINGS
};

#define BWM_DEFAULT_MIN_EXCL	0.9	/* the paper's Mixed, Figures 12-14 */

const char *bwm_mapping_name(enum bwm_mapping m);
/* Set p[].node by policy over nr_nodes nodes; rng for Random only. */
int bwm_map_pages(struct bwm_page *p, long n, int nr_nodes,
		  enum bwm_mapping policy, double min_excl,
		  struct bwm_rng *rng);

/*
 * The pages of a workload of the model, as a trace would show them:
 * 'pages' pages, the workload's shared fraction of the accesses on pages
 * every thread uses (each access drawn from a thread at random), the rest
 * on pages private to one thread, page heat varying around the mean;
 * shared pages first touched from the first-touch node, private ones by
 * their thread.  The shared pages come first; returns their number (or
 * a negative errno).  Deterministic for a seed.
 */
int bwm_workload_pages(const struct bwm_machine *m,
		       const struct bwm_workload *wl, long pages,
		       uint64_t seed, struct bwm_page *out);
/*
 * The placement a page mapping gives workload wl: each worker's traffic
 * to each node as its accesses say, carried as private traffic; *flat is
 * wl with every access on such pages (shared 0), to predict with.
 */
int bwm_pages_placement(const struct bwm_page *p, long n, int nr_nodes,
			const struct bwm_workload *wl,
			struct bwm_placement *pl, struct bwm_workload *flat);

struct bwm_mapping_result {
	struct bwm_access_metrics metrics;
	double throughput_gbps;
	double speedup;			/* over first-touch */
};

/*
 * Every mapping policy for workload wl on m over its pages (from
 * bwm_workload_pages): metrics and predicted throughput of each.
 */
int bwm_evaluate_mappings(const struct bwm_machine *m,
			  const struct bwm_workload *wl,
			  const struct bwm_page *pages, long n,
			  double min_excl, uint64_t seed,
			  struct bwm_mapping_result out[BWM_NR_MAPPINGS]);

/* ---- strategies ------------------------------------------------------- */

enum bwm_strategy {
	BWM_FIRST_TOUCH,
	BWM_UNIFORM_WORKERS,
	BWM_UNIFORM_ALL,
	BWM_CANONICAL,
	BWM_BWAP_UNIFORM,	/* the best DWP from uniform-all (BWAP IV-B) */
	BWM_CANONICAL_DWP,	/* BWAP */
	BWM_OPTIMUM,		/* the best weighted interleave */
	BWM_AUTONUMA,		/* Linux NUMA balancing (bwm_autonuma) */
	BWM_CARREFOUR,		/* a Carrefour-like policy (bwm_carrefour) */
	BWM_NR_STRATEGIES
};

const char *bwm_strategy_name(enum bwm_strategy s);
/* 1 if the strategy is a weighted interleave of every page (weights[]). */
int bwm_strategy_is_weights(enum bwm_strategy s);

/* ---- dynamic policies: NUMA balancing, a Carrefour-like policy ------ */

struct bwm_balancing {
	/* Linux NUMA balancing */
	double scan_mb;		/* made inaccessible per scan period (256) */
	double scan_period_s;	/* the period, at its minimum (1 s) */
	double fault_us;	/* one hinting fault */
	double migrate_us;	/* one page migrated: copy, unmap, shootdown */
	/* Carrefour (the survey's Table 1) */
	double maptu;		/* memory accesses per microsecond to act (50) */
	double mrr;		/* read ratio above which to replicate (0.95) */
	double mc_imb;		/* controller imbalance to interleave (0.35) */
	double lar;		/* local access ratio to co-locate below (0.80) */
	double sample_overhead;	/* share of time its access sampling takes */
};

void bwm_balancing_default(struct bwm_balancing *b);
/*
 * The placement NUMA balancing settles on for wl (private pages local,
 * shared pages over the workers by the square of their access shares)
 * and the share of thread time its hinting faults and migrations take
 * (*overhead).  Balancing.c says how it is derived.
 */
int bwm_autonuma(const struct bwm_machine *m, const struct bwm_workload *wl,
		 const struct bwm_balancing *b, struct bwm_placement *pl,
		 double *overhead);

#define BWM_CARREFOUR_REPLICATE		(1u << 0)
#define BWM_CARREFOUR_INTERLEAVE	(1u << 1)
#define BWM_CARREFOUR_COLOCATE		(1u << 2)
/*
 * Carrefour's decisions for wl from first-touch, until they settle: the
 * placement, the workload as the replicas make it (*eff: shared pages
 * read locally count as private), the mechanisms it turned on and the
 * share of thread time its sampling takes.
 */
int bwm_carrefour(const struct bwm_machine *m, const struct bwm_workload *wl,
		  const struct bwm_balancing *b, struct bwm_placement *pl,
		  struct bwm_workload *eff, unsigned int *mechanisms,
		  double *overhead);

/*
 * Where the optimum is flat: the run of DWPs from base[] (sweep by
 * 'step', weights within u8_err) around the sweep's best whose predicted
 * throughput is within 'tol' of best_gbps (none if the best is not).  Any weights between weights[0] (at dwp[0]) and weights[1]
 * (at dwp[1]) serve about as well, so tools that search differently may
 * name different ones.
 */
#define BWM_FLAT_TOL	0.005
struct bwm_flat {
	int points;				/* within tol; 0: none */
	double dwp[2];				/* lowest, highest */
	uint8_t weights[2][BWM_MAX_NODES];
};
int bwm_flat_dwp(const struct bwm_machine *m, const struct bwm_workload *wl,
		 const double *base, double step, double u8_err,
		 double best_gbps, double tol, struct bwm_flat *f);
struct bwm_eval_opts {
	int search_steps;		/* exhaustive search grid: 1/steps; 0 = skip */
	double dwp_step;		/* DWP sweep step */
	double u8_err;			/* weight conversion tolerance */
	double profile_noise;		/* noise of the profiling run */
	uint64_t seed;
	struct bwm_balancing balancing;	/* autonuma's and Carrefour's */
};

void bwm_eval_opts_default(struct bwm_eval_opts *o);

struct bwm_strategy_result {
	int valid;			/* 0: not computed (search skipped) */
	unsigned int mechanisms;	/* Carrefour's: BWM_CARREFOUR_* */
	double overhead;		/* share of thread time the policy takes */
	double frac[BWM_MAX_NODES];	/* shared pages; first-touch: shared */
	uint8_t weights[BWM_MAX_NODES];	/* kernel weights; 0s for first-touch */
	double dwp;
	double speedup;			/* vs first-touch */
	struct bwm_prediction pred;
};

struct bwm_eval {
	struct bwm_profile profile;
	double canonical[BWM_MAX_NODES];	/* Eq. 5 fractions */
	long searched;				/* placements tried */
	double search_seconds;
	struct bwm_flat flat;			/* near the optimum, on DWP */
	struct bwm_strategy_result r[BWM_NR_STRATEGIES];
};

int bwm_evaluate(const struct bwm_machine *m, const struct bwm_workload *wl,
		 const struct bwm_eval_opts *o, struct bwm_eval *out);

/*
 * Throughput over DWP in [0, 1] by 'step' from the fractions base[]
 * (quantised to u8 weights within u8_err).  Writes up to max points;
 * returns the number of points.  *best_dwp: the best one (first of ties).
 */
int bwm_dwp_sweep(const struct bwm_machine *m, const struct bwm_workload *wl,
		  const double *base, double step, double u8_err,
		  double *dwp, double *gbps, double *stall, int max,
		  double *best_dwp);
/*
 * Exhaustive search over fractions in multiples of 1/steps on every node
 * (shared and private pages alike).  Returns the number of placements
 * tried, or a negative errno; best[] and *best_gbps hold the optimum.
 */
long bwm_search(const struct bwm_machine *m, const struct bwm_workload *wl,
		int steps, double *best, double *best_gbps);

/*
 * Hill climbing from frac[]: move 'step' of the pages from one node to
 * another while that helps, then halve the step down to min_step.
 * Returns the number of placements tried; frac[] and *gbps the result.
 */
long bwm_refine(const struct bwm_machine *m, const struct bwm_workload *wl,
		double step, double min_step, double *frac, double *gbps);
/*
 * Hill climbing along ridges, where two bounds meet and no pair of nodes
 * trading pages helps: 'step' of the pages from one node to two others
 * alike, or from two alike to one, while that helps, then the step
 * halved down to min_step.  Best after bwm_refine, from where it stopped.
 */
long bwm_ridge(const struct bwm_machine *m, const struct bwm_workload *wl,
	       double step, double min_step, double *frac, double *gbps);

/*
 * The same three searches for any objective: f(arg, frac) of the pages
 * spread by frac[] over nr_nodes nodes, larger is better, negative an
 * error (bwm_app_rate, for instance).
 */
typedef double (*bwm_objective)(void *arg, const double *frac);
long bwm_search_by(int nr_nodes, bwm_objective f, void *arg, int steps,
		   double *best, double *best_v);
long bwm_refine_by(int nr_nodes, bwm_objective f, void *arg, double step,
		   double min_step, double *frac, double *v);
long bwm_ridge_by(int nr_nodes, bwm_objective f, void *arg, double step,
		  double min_step, double *frac, double *v);

#endif /* BWMODEL_H */
