// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd: canonical weights for weighted interleave, and the admin path.
 *
 *   bwapd [OPTIONS] topology|profile|show|apply ...
 *
 * Documentation/man8/bwapd.8 and Documentation/bwapd.md describe it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "json_out.h"
#include "log.h"
#include "profile.h"
#include "rules.h"
#include "status.h"
#include "svg.h"
#include "target.h"
#include "tune.h"
#include "wfile.h"
#include "worksets.h"

#define EXIT_USAGE	2

struct opts {
	const char *file;
	const char *model;
	const char *root;
	const char *pmu_root;
	uint64_t seed;
	double noise;
	int json, dry_run, no_counters;
	double seconds, u8_err;
	struct bwapd_set_opts sets;
	/* tune and exec */
	pid_t pid;
	const char *workload;
	const char *workers;
	const char *run_dir;
	const char *plot;
	const char *rules;
	const char *canonical;
	const char *corun, *corun_workers;
	pid_t hi_pid;
	double watch, delay, scan;
	int wait_stable;
	int log_level;
	struct bwapd_tune_opts tune;
};

struct progress {
	int tty;
	int set, nr_sets;
	double seconds;
	char workers[64];
};

/* ---- the command line ---- */

enum { C_TOPOLOGY, C_PROFILE, C_SHOW, C_APPLY, C_TUNE, C_EXEC, C_STATUS,
       C_DAEMON, NR_CMDS, C_RULE = NR_CMDS };

static const struct cmd_def {
	const char *name, *args, *what;
} cmds[NR_CMDS] = {
	[C_TOPOLOGY] = { "topology", "", "nodes, CPUs, memory, distances, HMAT, counters" },
	[C_PROFILE] = { "profile", "", "measure every worker set, write the weights file" },
	[C_SHOW] = { "show", " [WORKERS]", "the canonical weights of the file" },
	[C_APPLY] = { "apply", " WORKERS", "set the global weights to those of WORKERS (root)" },
	[C_TUNE] = { "tune", "", "tune a process's own weights (--pid), or a model's workload" },
	[C_EXEC] = { "exec", " -- COMMAND [ARG...]", "run COMMAND under weighted interleave and tune it" },
	[C_STATUS] = { "status", "", "the processes being tuned" },
	[C_DAEMON] = { "daemon", "", "tune the processes the rules name" },
};

#define B(c)		(1u << (c))
#define ALL		(B(NR_CMDS) - 1)
#define BACKEND		(ALL & ~B(C_STATUS))	/* --model, --root, ... */
#define TUNERS		(B(C_TUNE) | B(C_EXEC) | B(C_DAEMON) | B(C_RULE))
#define USES_FILE	(B(C_PROFILE) | B(C_SHOW) | B(C_APPLY) | TUNERS)
#define JSON_OUT	(ALL & ~B(C_DAEMON))

enum kind { K_FLAG, K_STR, K_INT, K_DBL, K_U64, K_METRIC, K_LEVEL, K_HELP,
	    K_VERSION };

#define O(f)	offsetof(struct opts, f)

static const struct optdef {
	const char *name;
	enum kind kind;
	size_t off;
	double min, max;
	unsigned int cmds;
	const char *arg, *help;
} optdefs[] = {
	{ "file", K_STR, O(file), 0, 0, USES_FILE & ~B(C_RULE), "PATH",
	  "canonical-weights file (default " BWAPD_DEFAULT_FILE ")" },
	{ "model", K_STR, O(model), 0, 0, BACKEND, "MACHINE.json",
	  "a machine of the NUMA bandwidth model instead of this one" },
	{ "root", K_STR, O(root), 0, 0, BACKEND, "DIR",
	  "read sysfs and /proc below DIR (a machine's tree, for tests)" },
	{ "pmu-root", K_STR, O(pmu_root), 0, 0, BACKEND, "DIR",
	  "memory controller PMUs from DIR/sys/bus/event_source and\n"
	  "DIR/proc/cpuinfo (a machine's shape, for tests)" },
	{ "seed", K_U64, O(seed), 0, 0, BACKEND, "N",
	  "seed of the model's counter noise (default 1)" },
	{ "noise", K_DBL, O(noise), 0, 0.999999, BACKEND, "R",
	  "the model's relative counter noise, 0 to 1 (default 0)" },
	{ "json", K_FLAG, O(json), 0, 0, JSON_OUT, NULL,
	  "JSON on standard output (one document, or JSON Lines for tune and exec)" },
	{ "dry-run", K_FLAG, O(dry_run), 0, 0, B(C_APPLY), NULL,
	  "show what would change, write nothing" },
	{ "no-counters", K_FLAG, O(no_counters), 0, 0, B(C_PROFILE), NULL,
	  "no counters: weights from HMAT or SLIT" },
	{ "seconds", K_DBL, O(seconds), 0.1, 3600, B(C_PROFILE) | TUNERS, "S",
	  "benchmark time per worker set, 0.1 to 3600 (default 2)" },
	{ "u8-err", K_DBL, O(u8_err), 0, 0.999999, B(C_PROFILE) | TUNERS, "E",
	  "largest page-share error of integer weights (default 0.005)" },
	{ "all", K_FLAG, O(sets.all), 0, 0, B(C_PROFILE), NULL,
	  "profile spread-out sets too" },
	{ "no-symmetry", K_FLAG, O(sets.no_symmetry), 0, 0, B(C_PROFILE), NULL,
	  "profile symmetric sets too" },
	{ "max-size", K_INT, O(sets.max_size), 1, BWAPD_MAX_NODES, B(C_PROFILE), "K",
	  "only sets of up to K nodes" },
	{ "pid", K_INT, O(pid), 1, INT_MAX, B(C_TUNE), "PID", "the process to tune" },
	{ "workload", K_STR, O(workload), 0, 0, TUNERS, "W.json",
	  "a workload of the model (with --model): tuned, or what counts a\n"
	  "process's stalls" },
	{ "workers", K_STR, O(workers), 0, 0, B(C_TUNE), "NODES",
	  "the workload's worker nodes" },
	{ "samples", K_INT, O(tune.samples), 1, 1000, TUNERS, "N",
	  "measurements per step (default 20)" },
	{ "trim", K_INT, O(tune.trim), 0, 499, TUNERS, "C",
	  "highest and lowest measurements dropped (default 5)" },
	{ "period", K_DBL, O(tune.period), 0.001, 3600, TUNERS, "T",
	  "seconds per step (default 0.2)" },
	{ "step", K_DBL, O(tune.step), 0.001, 1, TUNERS, "X",
	  "DWP step (default 0.1)" },
	{ "fine-step", K_DBL, O(tune.fine_step), 0, 1, TUNERS, "X",
	  "step near the best setting (default 0.025; 0: none)" },
	{ "max-steps", K_INT, O(tune.max_steps), 0, 126, TUNERS, "K",
	  "settings tried after the start (default 10)" },
	{ "forward-only", K_FLAG, O(tune.forward_only), 0, 0, TUNERS, NULL,
	  "the paper's search: raise DWP only; stalls per second" },
	{ "metric", K_METRIC, O(tune.metric), 0, 0, TUNERS, "rate|instruction",
	  "stalled cycles per second, or per instruction" },
	{ "min-mapi", K_DBL, O(tune.min_mapi), 0, 1e9, TUNERS, "M",
	  "below M memory accesses per instruction: left at DWP 0" },
	{ "rate", K_DBL, O(tune.migrate.pages_per_s), 0, 1e12, TUNERS, "PAGES",
	  "pages moved per second at most (0: no limit)" },
	{ "delay", K_DBL, O(delay), 0, 1e9, B(C_EXEC), "S",
	  "seconds to wait before tuning" },
	{ "wait-stable", K_FLAG, O(wait_stable), 0, 0, B(C_EXEC), NULL,
	  "tune once the program calls bwapd_stable()" },
	{ "watch", K_DBL, O(watch), 0, 1e12, TUNERS, "S",
	  "then watch S seconds for phase changes (0: until the process exits)" },
	{ "plot", K_STR, O(plot), 0, 0, B(C_TUNE) | B(C_EXEC), "FILE.svg",
	  "draw the run when the tuner stops" },
	{ "high-priority", K_INT, O(hi_pid), 1, INT_MAX, B(C_TUNE), "PID",
	  "a high-priority process on other nodes to protect" },
	{ "protect", K_DBL, O(tune.protect), 0, 0.999999, B(C_TUNE), "P",
	  "share of its speed the high-priority job may lose (default 0.02)" },
	{ "corun", K_STR, O(corun), 0, 0, B(C_TUNE), "W.json",
	  "the model's high-priority workload beside the one tuned" },
	{ "corun-workers", K_STR, O(corun_workers), 0, 0, B(C_TUNE), "NODES",
	  "its worker nodes" },
	{ "canonical", K_STR, O(canonical), 0, 0, TUNERS, "W0:W1:...",
	  "canonical weights to start from, instead of the file's" },
	{ "rules", K_STR, O(rules), 0, 0, B(C_DAEMON), "FILE",
	  "the rules (default " BWAPD_RULES_FILE ")" },
	{ "scan", K_DBL, O(scan), 0.1, 3600, B(C_DAEMON), "S",
	  "look for new processes every S seconds (default 5)" },
	{ "run-dir", K_STR, O(run_dir), 0, 0,
	  (TUNERS | B(C_STATUS)) & ~B(C_RULE), "DIR",
	  "the tuners' status files (default " BWAPD_RUN_DIR "; '': none)" },
	{ "log-level", K_LEVEL, O(log_level), 0, 0, ALL, "LEVEL",
	  "err, warning, info or debug: the least important messages logged\n"
	  "(default info)" },
	{ "help", K_HELP, 0, 0, 0, ALL, NULL, "this text" },
	{ "version", K_VERSION, 0, 0, 0, ALL, NULL, "bwapd's version" },
};

#define NR_OPTS		(sizeof(optdefs) / sizeof(optdefs[0]))

static void opt_help(FILE *f, const struct optdef *d)
{
	char left[64];
	const char *h, *nl;

	snprintf(left, sizeof(left), "--%s%s%s", d->name, d->arg ? " " : "",
		 d->arg ? d->arg : "");
	for (h = d->help; h; h = nl ? nl + 1 : NULL) {
		nl = strchr(h, '\n');
		fprintf(f, "  %-28s %.*s\n", h == d->help ? left : "",
			nl ? (int)(nl - h) : (int)strlen(h), h);
	}
}

/* bwapd --help (cmd < 0), or the options of one command. */
static void usage(FILE *f, int cmd)
{
	unsigned int i;

	if (cmd < 0) {
		fprintf(f, "usage: bwapd COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
		for (i = 0; i < NR_CMDS; i++)
			fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].what);
		fprintf(f, "\n\"bwapd COMMAND --help\" lists the options of a command.\n"
			"WORKERS and NODES are node lists such as 0-1 or 0,2.\n\n"
			"options of every command:\n");
	} else {
		fprintf(f, "usage: bwapd %s [OPTIONS]%s\n%s\n\noptions:\n",
			cmds[cmd].name, cmds[cmd].args, cmds[cmd].what);
	}
	for (i = 0; i < NR_OPTS; i++)
		if (cmd < 0 ? optdefs[i].cmds == ALL :
		    (optdefs[i].cmds & B(cmd)))
			opt_help(f, &optdefs[i]);
}

static const char *const level_names[] = { "err", "warning", "info", "debug" };
static const int level_values[] = { BWAPD_LOG_ERR, BWAPD_LOG_WARNING,
				    BWAPD_LOG_INFO, BWAPD_LOG_DEBUG };

/* The value of option d in o: 0, or EXIT_USAGE with a message. */
static int opt_value(const struct optdef *d, const char *arg, struct opts *o)
{
	char *p = (char *)o + d->off, *end;
	unsigned int i;
	double v;
	long l;

	errno = 0;
	switch (d->kind) {
	case K_STR:
		*(const char **)p = arg;
		return 0;
	case K_INT:
		l = strtol(arg, &end, 10);
		if (end == arg || *end || errno || l < d->min || l > d->max)
			break;
		*(int *)p = (int)l;
		return 0;
	case K_DBL:
		v = strtod(arg, &end);
		if (end == arg || *end || errno || !(v >= d->min && v <= d->max))
			break;
		*(double *)p = v;
		return 0;
	case K_U64:
		if (arg[strspn(arg, " \t")] == '-')
			break;
		*(uint64_t *)p = strtoull(arg, &end, 0);
		if (end == arg || *end || errno)
			break;
		return 0;
	case K_METRIC:
		if (!strcmp(arg, "rate"))
			o->tune.metric = BWAPD_STALL_RATE;
		else if (!strcmp(arg, "instruction"))
			o->tune.metric = BWAPD_STALLS_PER_INSN;
		else
			break;
		return 0;
	case K_LEVEL:
		for (i = 0; i < 4; i++)
			if (!strcmp(arg, level_names[i]))
				return o->log_level = level_values[i], 0;
		break;
	default:
		*(int *)p = 1;
		return 0;
	}
	if (d->kind == K_INT || d->kind == K_DBL)
		bwapd_log(BWAPD_LOG_ERR, "--%s: bad value '%s': want %s from %g to %g",
			d->name, arg, d->kind == K_INT ? "a whole number" : "a number",
			d->min, d->max);
	else
		bwapd_log(BWAPD_LOG_ERR, "--%s: bad value '%s'%s%s", d->name, arg,
			d->arg ? ": want " : "", d->kind == K_U64 ?
			"a whole number, not negative" : d->arg);
	return EXIT_USAGE;
}

struct words {
	int nr;
	char *word[4];		/* the command and its arguments */
	char **rest;		/* after "--" (NULL: none) */
};

/*
 * The options of argv into o, anywhere before "--"; seen[i] counts
 * optdefs[i] and w gets the other words.  0 or EXIT_USAGE.
 */
static int parse_opts(int argc, char **argv, struct opts *o, int *seen,
		      struct words *w)
{
	struct option lo[NR_OPTS + 1];
	unsigned int i;
	int c;

	memset(lo, 0, sizeof(lo));
	memset(w, 0, sizeof(*w));
	for (i = 0; i < NR_OPTS; i++) {
		lo[i].name = optdefs[i].name;
		lo[i].has_arg = optdefs[i].arg ? required_argument : no_argument;
		lo[i].val = 1000 + (int)i;
	}
	optind = 0;	/* GNU getopt: start over */
	opterr = 0;
	for (;;) {
		if (optind && optind < argc && !strcmp(argv[optind], "--")) {
			w->rest = argv + optind + 1;
			break;
		}
		c = getopt_long(argc, argv, "+:", lo, NULL);
		if (c == -1) {
			if (optind >= argc)
				break;
			if (w->nr == 4) {
				bwapd_log(BWAPD_LOG_ERR, "too many arguments");
				return EXIT_USAGE;
			}
			w->word[w->nr++] = argv[optind++];
			continue;
		}
		if (c < 1000) {
			bwapd_log(BWAPD_LOG_ERR, "%s: %s (\"bwapd --help\")",
				argv[optind - 1], c == ':' ? "needs a value" :
				"no such option");
			return EXIT_USAGE;
		}
		i = (unsigned int)(c - 1000);
		seen[i]++;
		if (opt_value(&optdefs[i], optarg, o))
			return EXIT_USAGE;
	}
	return 0;
}

static int opt_index(const char *name)
{
	unsigned int i;

	for (i = 0; strcmp(optdefs[i].name, name); i++)
		;
	return (int)i;
}

/* --forward-only is stalls per second: --metric instruction contradicts it. */
static int metric_opts(const int *seen, struct opts *o, const char *where)
{
	if (!seen[opt_index("forward-only")])
		return 0;
	if (seen[opt_index("metric")] && o->tune.metric != BWAPD_STALL_RATE) {
		bwapd_log(BWAPD_LOG_ERR, "%s: --forward-only measures stalls per "
			  "second: it does not go with --metric instruction",
			  where);
		return EXIT_USAGE;
	}
	o->tune.metric = BWAPD_STALL_RATE;
	return 0;
}

/* Every option seen is one of cmd's: 0, or EXIT_USAGE with a message. */
static int check_opts(const int *seen, int cmd, const char *where)
{
	unsigned int i;

	for (i = 0; i < NR_OPTS; i++) {
		if (seen[i] && !(optdefs[i].cmds & B(cmd))) {
			bwapd_log(BWAPD_LOG_ERR, "%s: --%s is not an option of %s "
				"(\"bwapd %s --help\" lists them)", where,
				optdefs[i].name, cmd == C_RULE ? "a rule" :
				cmds[cmd].name, cmd == C_RULE ? "daemon" :
				cmds[cmd].name);
			return EXIT_USAGE;
		}
	}
	return 0;
}


static int error(const char *what, int ret, const char *why)
{
	if (why && *why)
		bwapd_log(BWAPD_LOG_ERR, "%s: %s", what, why);
	else
		bwapd_log(BWAPD_LOG_ERR, "%s: %s", what, strerror(-ret));
	return 1;
}

static int open_backend(const struct opts *o, struct bwapd_backend *b,
			struct bwapd_topology *t)
{
	char why[512] = "";
	int ret;

	if (o->model)
		ret = bwapd_backend_model(b, o->model, o->seed, o->noise, why,
					  sizeof(why));
	else
		ret = bwapd_backend_real(b, o->root);
	if (!ret && !o->model && o->pmu_root)
		ret = bwapd_backend_real_pmu_root(b, o->pmu_root);
	if (ret)
		return error("backend", ret, why);
	ret = b->ops->topology(b, t, why, sizeof(why));
	if (ret) {
		bwapd_backend_destroy(b);
		return error("topology", ret, why);
	}
	bwapd_log(BWAPD_LOG_DEBUG, "backend %s: %d nodes, %s", b->ops->name,
		  t->nr_nodes, t->cpu_model);
	return 0;
}

/* This machine, even with --model: a process runs here. */
static int open_here(const struct opts *o, struct bwapd_backend *b,
		     struct bwapd_topology *t)
{
	struct opts here = *o;

	here.model = NULL;
	return open_backend(&here, b, t);
}

static const char *fallback_name(const struct bwapd_topology *t)
{
	int i;

	for (i = 0; i < t->nr_nodes; i++)
		if ((t->mem_nodes & (1u << i)) && !t->node[i].initiators)
			return "slit";
	return "hmat";
}

/* ---- topology ---- */

static int cmd_topology(const struct opts *o)
{
	struct bwapd_backend b;
	struct bwapd_topology t;
	char why[512] = "", list[64];
	int ret, i, j, counters;

	if (open_backend(o, &b, &t))
		return 1;
	ret = b.ops->ctrl_open(&b, why, sizeof(why));
	counters = !ret;
	if (o->json) {
		json_object *doc = json_object_new_object(), *c, *nodes, *h;

		bj_int(doc, "nodes", t.nr_nodes);
		bj_str(doc, "cpu_model", t.cpu_model);
		bj_str(doc, "backend", b.ops->name);
		c = json_object_new_object();
		bj_bool(c, "available", counters);
		bj_str(c, "source", counters ? b.ops->ctrl_source(&b) : why);
		bj_str(c, "fallback", fallback_name(&t));
		json_object_object_add(doc, "counters", c);
		nodes = json_object_new_array();
		for (i = 0; i < t.nr_nodes; i++) {
			const struct bwapd_node *n = &t.node[i];
			json_object *jn = json_object_new_object(), *d;

			bj_int(jn, "id", i);
			bj_int(jn, "cpus", n->nr_cpus);
			bj_int(jn, "memory_mib", (int64_t)(n->mem_bytes >> 20));
			bj_bool(jn, "weight_file", n->has_weight);
			d = json_object_new_array();
			for (j = 0; j < t.nr_nodes; j++)
				json_object_array_add(d, json_object_new_int(n->distance[j]));
			json_object_object_add(jn, "distance", d);
			h = json_object_new_object();
			bj_str(h, "initiators", bwapd_nodelist_format(n->initiators, list, sizeof(list)));
			bj_int(h, "read_bandwidth", n->read_bw);
			bj_int(h, "write_bandwidth", n->write_bw);
			bj_int(h, "read_latency", n->read_lat);
			bj_int(h, "write_latency", n->write_lat);
			json_object_object_add(jn, "hmat", h);
			json_object_array_add(nodes, jn);
		}
		json_object_object_add(doc, "node", nodes);
		bj_print(doc);
	} else {
		printf("machine: %d nodes, %s (backend %s)\n", t.nr_nodes,
		       t.cpu_model, b.ops->name);
		printf("%-5s %5s %10s  %-11s %9s %9s %7s %7s  %s\n", "node",
		       "cpus", "memory", "initiators", "read MB/s",
		       "write MB/s", "rd ns", "wr ns", "distances");
		for (i = 0; i < t.nr_nodes; i++) {
			const struct bwapd_node *n = &t.node[i];

			printf("%-5d %5d %7llu MiB  %-11s %9u %9u %7u %7u ", i,
			       n->nr_cpus,
			       (unsigned long long)(n->mem_bytes >> 20),
			       n->initiators ? bwapd_nodelist_format(n->initiators, list, sizeof(list)) : "-",
			       n->read_bw, n->write_bw, n->read_lat,
			       n->write_lat);
			for (j = 0; j < t.nr_nodes; j++)
				printf(" %3d", n->distance[j]);
			printf("\n");
		}
		if (counters)
			printf("counters: %s\n", b.ops->ctrl_source(&b));
		else
			printf("counters: unavailable: %s\n"
			       "          profiling falls back to %s\n", why,
			       fallback_name(&t));
	}
	bwapd_backend_destroy(&b);
	return 0;
}

/* ---- profile ---- */

static void show_progress(void *arg, double done)
{
	struct progress *p = arg;
	double frac = ((p->set - 1) + done / p->seconds) / p->nr_sets;
	int width = 30, fill = (int)lround(frac * width), i;

	if (!p->tty)
		return;
	fprintf(stderr, "\r[");
	for (i = 0; i < width; i++)
		fputc(i < fill ? '#' : '.', stderr);
	fprintf(stderr, "] set %d/%d (workers %s), %.0f s left   ", p->set,
		p->nr_sets, p->workers,
		(p->nr_sets - p->set + 1) * p->seconds - done);
	fflush(stderr);
}

static void print_table(const struct bwapd_file *f, int nr_nodes,
			uint32_t only)
{
	char list[64];
	int i, j;

	printf("%-10s %-9s", "workers", "source");
	for (j = 0; j < nr_nodes; j++)
		printf(" %5s%d", "node", j);
	printf(" %6s  %s\n", "cycle", "from");
	for (i = 0; i < f->nr_results; i++) {
		const struct bwapd_result *r = &f->result[i];

		if (only && r->workers != only)
			continue;
		printf("%-10s %-9s",
		       bwapd_nodelist_format(r->workers, list, sizeof(list)),
		       bwapd_source_name(r->source));
		for (j = 0; j < nr_nodes; j++)
			printf(" %6u", r->weights[j]);
		printf(" %6d  %s\n", r->cycle, r->same_as == r->workers ?
		       "measured" : bwapd_nodelist_format(r->same_as, list,
							  sizeof(list)));
	}
}

static void print_json(const struct bwapd_file *f, int nr_nodes, uint32_t only)
{
	json_object *doc = json_object_new_object(), *sk, *sets;
	char list[64];
	int i;

	bj_str(doc, "backend", f->backend);
	bj_str(doc, "created", f->created);
	sk = json_object_new_object();
	bj_int(sk, "symmetric", f->nr_symmetric);
	bj_int(sk, "spread", f->nr_spread);
	json_object_object_add(doc, "skipped", sk);
	sets = json_object_new_array();
	for (i = 0; i < f->nr_results; i++) {
		const struct bwapd_result *r = &f->result[i];
		json_object *js;

		if (only && r->workers != only)
			continue;
		js = json_object_new_object();
		bj_str(js, "workers", bwapd_nodelist_format(r->workers, list, sizeof(list)));
		bj_str(js, "source", bwapd_source_name(r->source));
		bj_str(js, "same_as", bwapd_nodelist_format(r->same_as, list, sizeof(list)));
		bj_u8s(js, "weights", r->weights, nr_nodes);
		bj_nums(js, "fractions", r->frac, nr_nodes, "%.6f");
		bj_nums(js, "minbw", r->minbw, nr_nodes, "%.6g");
		bj_int(js, "cycle", r->cycle);
		bj_num(js, "max_error", r->u8_err, "%.6f");
		json_object_array_add(sets, js);
	}
	json_object_object_add(doc, "worker_sets", sets);
	bj_print(doc);
}

static int cmd_profile(const struct opts *o)
{
	static struct bwapd_sets sets;
	struct bwapd_file file;
	struct bwapd_profile_opts po = {
		.seconds = o->seconds, .u8_err = o->u8_err,
		.no_counters = o->no_counters,
	};
	struct progress prog = { .tty = isatty(2), .seconds = o->seconds };
	int index[BWAPD_MAX_SETS];
	struct bwapd_backend b;
	struct bwapd_topology t;
	char why[512] = "";
	int ret, i, counters = 0;
	time_t now = time(NULL);

	if (open_backend(o, &b, &t))
		return 1;
	ret = bwapd_sets_enumerate(&t, &o->sets, &sets);
	if (ret) {
		bwapd_backend_destroy(&b);
		return error("worker sets", ret, "no node has CPUs");
	}
	bwapd_log(BWAPD_LOG_INFO,
		"%d worker sets: %d to profile, %d skipped as symmetric to a "
		"profiled set (%d symmetries of the distances), %d skipped as spread "
		"out (nodes farther apart than a set of that size needs)",
		sets.nr, sets.nr_profile, sets.nr_symmetric,
		sets.nr_automorphisms, sets.nr_spread);
	if (o->no_counters) {
		bwapd_log(BWAPD_LOG_INFO, "counters: not used (--no-counters); weights from %s",
			fallback_name(&t));
	} else {
		ret = b.ops->ctrl_open(&b, why, sizeof(why));
		counters = !ret;
		if (counters)
			bwapd_log(BWAPD_LOG_INFO, "counters: %s",
				b.ops->ctrl_source(&b));
		else
			bwapd_log(BWAPD_LOG_WARNING,
				"counters: unavailable: %s\n"
				"weights from %s (fallback)", why,
				fallback_name(&t));
	}
	po.progress = show_progress;
	po.progress_arg = &prog;
	prog.nr_sets = counters ? sets.nr_profile : 0;

	ret = bwapd_file_init(&file, sets.nr_profile + sets.nr_symmetric);
	if (ret) {
		bwapd_backend_destroy(&b);
		return error("profile", ret, NULL);
	}
	snprintf(file.backend, sizeof(file.backend), "%s%s%s", b.ops->name,
		 o->model ? " " : "", o->model ? o->model : "");
	strftime(file.created, sizeof(file.created), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime(&now));
	file.nr_symmetric = sets.nr_symmetric;
	file.nr_spread = sets.nr_spread;
	for (i = 0; i < sets.nr; i++) {
		const struct bwapd_set *s = &sets.set[i];
		struct bwapd_result *r = &file.result[file.nr_results];

		if (s->skip == BWAPD_SKIP_SPREAD)
			continue;
		if (s->skip == BWAPD_SKIP_SYMMETRIC) {
			bwapd_result_permute(&file.result[index[s->same_as]], s,
					     t.nr_nodes, r);
		} else {
			prog.set++;
			bwapd_nodelist_format(s->workers, prog.workers,
					      sizeof(prog.workers));
			ret = bwapd_profile_set(&b, &t, s->workers, counters,
						&po, r);
			if (ret) {
				if (prog.tty && counters)
					fputc('\n', stderr);
				bwapd_backend_destroy(&b);
				bwapd_file_free(&file);
				snprintf(why, sizeof(why),
					 "workers %s: %s; nothing written",
					 prog.workers, strerror(-ret));
				return error("profile", ret, why);
			}
		}
		index[s->workers] = file.nr_results++;
	}
	if (prog.tty && counters)
		fputc('\n', stderr);
	bwapd_backend_destroy(&b);
	ret = bwapd_file_write(o->file, &t, &file, why, sizeof(why));
	if (ret) {
		bwapd_file_free(&file);
		return error("write", ret, why);
	}
	if (o->json) {
		print_json(&file, t.nr_nodes, 0);
	} else {
		print_table(&file, t.nr_nodes, 0);
		printf("written to %s\n", o->file);
	}
	bwapd_file_free(&file);
	return 0;
}

/* ---- show and apply ---- */

static int load(const struct opts *o, struct bwapd_backend *b,
		struct bwapd_topology *t, struct bwapd_file *f)
{
	char why[512] = "";
	int ret;

	if (open_backend(o, b, t))
		return 1;
	ret = bwapd_file_read(o->file, t, f, why, sizeof(why));
	if (ret) {
		bwapd_backend_destroy(b);
		return error(ret == -ESTALE ? "stale weights file" : "weights file",
			     ret, why);
	}
	return 0;
}

static int parse_workers(const char *arg, uint32_t *w)
{
	if (bwapd_nodelist_parse(arg, w)) {
		bwapd_log(BWAPD_LOG_ERR, "'%s' is not a node list (e.g. 0-1 or 0,2)",
			arg);
		return 1;
	}
	return 0;
}

static int unknown_set(const struct bwapd_file *f, const char *arg)
{
	bwapd_log(BWAPD_LOG_ERR,
		"no canonical weights for workers %s in the file (%d sets;"
		" \"bwapd show\" lists them, \"bwapd profile --all\" profiles"
		" spread-out sets too)", arg, f->nr_results);
	return 1;
}

static int cmd_show(const struct opts *o, const char *arg)
{
	struct bwapd_file f;
	struct bwapd_backend b;
	struct bwapd_topology t;
	uint32_t only = 0;
	int rc = 0;

	if (arg && parse_workers(arg, &only))
		return EXIT_USAGE;
	if (load(o, &b, &t, &f))
		return 1;
	bwapd_backend_destroy(&b);
	if (only && !bwapd_file_find(&f, only)) {
		rc = unknown_set(&f, arg);
	} else if (o->json) {
		print_json(&f, t.nr_nodes, only);
	} else {
		printf("canonical weights: %s (backend %s, %s)\n", o->file,
		       f.backend, f.created);
		print_table(&f, t.nr_nodes, only);
		printf("%d sets skipped when profiling: %d symmetric (listed, derived), %d spread out\n",
		       f.nr_symmetric + f.nr_spread, f.nr_symmetric, f.nr_spread);
	}
	bwapd_file_free(&f);
	return rc;
}

static int cmd_apply(const struct opts *o, const char *arg)
{
	struct bwapd_file f;
	const struct bwapd_result *r;
	struct bwapd_backend b;
	struct bwapd_topology t;
	uint8_t want[BWAPD_MAX_NODES], old[BWAPD_MAX_NODES];
	uint8_t done[BWAPD_MAX_NODES];
	uint32_t workers;
	int i, ret = 0, changed = 0, nr_done = 0;
	json_object *doc = NULL, *nodes = NULL;
	char why[256];

	if (!arg) {
		usage(stderr, C_APPLY);
		return EXIT_USAGE;
	}
	if (parse_workers(arg, &workers))
		return EXIT_USAGE;
	if (load(o, &b, &t, &f))
		return 1;
	r = bwapd_file_find(&f, workers);
	if (!r) {
		bwapd_backend_destroy(&b);
		ret = unknown_set(&f, arg);
		bwapd_file_free(&f);
		return ret;
	}
	memcpy(want, r->weights, sizeof(want));
	bwapd_file_free(&f);
	if (!o->dry_run && !o->model && geteuid() != 0) {
		bwapd_backend_destroy(&b);
		return error("apply", -EPERM,
			     "the global weights can only be set by root; nothing written "
			     "(--dry-run shows what would change)");
	}
	b.ops->weights_get(&b, old, BWAPD_MAX_NODES);
	for (i = 0; i < t.nr_nodes; i++) {
		if (want[i] && !t.node[i].has_weight) {
			bwapd_backend_destroy(&b);
			snprintf(why, sizeof(why),
				 "node %d has no %s/node%d (kernel without weighted "
				 "interleave?); nothing written", i,
				 BWAPD_WEIGHTS_DIR, i);
			return error("apply", -ENOENT, why);
		}
	}
	if (o->json) {
		doc = json_object_new_object();
		bj_str(doc, "workers", arg);
		bj_bool(doc, "dry_run", o->dry_run);
		nodes = json_object_new_array();
		json_object_object_add(doc, "nodes", nodes);
	} else {
		printf("%sworkers %s: global weights (%s)\n%-6s %4s %4s\n",
		       o->dry_run ? "dry run: " : "", arg, BWAPD_WEIGHTS_DIR,
		       "node", "old", "new");
	}
	for (i = 0; i < t.nr_nodes; i++) {
		int keep = !want[i] || want[i] == old[i];

		if (!t.node[i].has_weight)
			continue;
		if (o->json) {
			json_object *jn = json_object_new_object();

			bj_int(jn, "node", i);
			bj_int(jn, "old", old[i]);
			bj_int(jn, "new", want[i] ? want[i] : old[i]);
			json_object_array_add(nodes, jn);
		} else {
			printf("%-6d %4u %4u%s\n", i, old[i],
			       want[i] ? want[i] : old[i],
			       !want[i] ? "  (no pages: left as is)" :
			       keep ? "" : "  changed");
		}
		if (keep)
			continue;
		changed++;
		if (o->dry_run || ret)
			continue;
		ret = b.ops->weight_set(&b, i, want[i]);
		if (!ret)
			done[nr_done++] = (uint8_t)i;
	}
	if (ret) {
		json_object_put(doc);
		/* put back what was written: all or nothing */
		for (i = 0; i < nr_done; i++)
			b.ops->weight_set(&b, done[i], old[done[i]]);
		bwapd_backend_destroy(&b);
		return error("apply", ret, ret == -EACCES || ret == -EPERM ?
			     "cannot write the sysfs weights (root only); nothing written" :
			     "writing a weight failed; the old weights are back");
	}
	bwapd_backend_destroy(&b);
	if (o->json) {
		bj_int(doc, "changed", changed);
		bj_print(doc);
	} else {
		printf("%d of %d weights %s\n", changed,
		       __builtin_popcount(t.mem_nodes),
		       o->dry_run ? "would change" : "changed");
	}
	return 0;
}

/* ---- tune and exec ---- */

#define MPOL_WEIGHTED_INTERLEAVE_MODE	6	/* uapi/linux/mempolicy.h */
#ifndef SYS_set_mempolicy_weights
#define SYS_set_mempolicy_weights	1000
#endif
#ifndef PIDFD_SELF_THREAD_GROUP
#define PIDFD_SELF_THREAD_GROUP		-10001
#endif

struct tune_log {
	int json;
	int nr_nodes;
	const char *name;
	const char *run_dir;		/* NULL: no status file */
	int started;			/* the tuning began: a summary at the end */
	struct bwapd_status st;
	/* the run, for --plot */
#define PLOT_POINTS	4096
	int nr;
	double t[PLOT_POINTS], dwp[PLOT_POINTS], stalls[PLOT_POINTS];
};

/* DWP and the stall metric over time; measured steps only for the metric. */
static int write_plot(const char *path, const struct tune_log *l,
		      const char *title)
{
	double tmax = 0, smax = 0, ts[PLOT_POINTS], ss[PLOT_POINTS];
	int i, n = 0, ret;
	FILE *f;

	for (i = 0; i < l->nr; i++) {
		tmax = fmax(tmax, l->t[i]);
		if (l->stalls[i] >= 0) {
			ts[n] = l->t[i];
			ss[n++] = l->stalls[i];
			smax = fmax(smax, l->stalls[i]);
		}
	}
	f = fopen(path, "w");
	if (!f)
		return -errno;
	bwm_svg_begin(f, title);
	bwm_svg_yaxis(f, 1, "DWP", 0);
	smax = bwm_svg_yaxis(f, smax, l->st.metric, 1);
	tmax = bwm_svg_xaxis(f, tmax, "seconds");
	bwm_svg_polyline(f, l->t, l->dwp, l->nr, tmax, 1, bwm_svg_colours[1]);
	bwm_svg_polyline(f, ts, ss, n, tmax, smax, bwm_svg_colours[4]);
	bwm_svg_legend(f, 0, "DWP", bwm_svg_colours[1]);
	bwm_svg_legend(f, 1, "stalls", bwm_svg_colours[4]);
	ret = bwm_svg_end(f);
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/*
 * Stopped by a signal: the target holds valid weights at every moment
 * (pages half way through a move stay where they are), so only the
 * status file has to go.  unlink() and _exit() are async-signal-safe.
 */
static char status_file[4200];

static void on_signal(int sig)
{
	if (status_file[0])
		unlink(status_file);
	_exit(128 + sig);
}

static void status_update(struct tune_log *l, const char *state)
{
	if (!l->run_dir)
		return;
	snprintf(l->st.state, sizeof(l->st.state), "%s", state);
	l->st.updated = time(NULL);
	if (bwapd_status_write(l->run_dir, &l->st)) {
		bwapd_log(BWAPD_LOG_WARNING, "cannot write the status in %s: %s "
			"(\"bwapd status\" will not show this tuner)",
			l->run_dir, strerror(errno));
		l->run_dir = NULL;
	}
}

/* A --json event of the tuning stream: {"target": ..., "event": what, ...} */
static json_object *tune_event(const struct tune_log *l, const char *what)
{
	json_object *e = json_object_new_object();

	bj_str(e, "target", l->name);
	bj_str(e, "event", what);
	return e;
}

/* The last line of "tune --json": how it ended and where it left the target. */
static void tune_summary(const struct tune_log *l,
			 const struct bwapd_tune_result *r, const char *result)
{
	json_object *e = tune_event(l, "summary");

	bj_str(e, "result", result);
	bj_str(e, "command", l->st.command);
	bj_str(e, "workers", l->st.workers);
	bj_str(e, "metric", l->st.metric);
	bj_num(e, "dwp", l->st.dwp, "%.4f");
	bj_num(e, "stalls", l->st.stalls, "%.6g");
	bj_num(e, "mapi", r->mapi, "%.6g");
	bj_bool(e, "skipped", r->skipped);
	bj_int(e, "steps", l->st.steps);
	bj_int(e, "tunings", l->st.tunings);
	bj_int(e, "pages_moved", (int64_t)l->st.moved);
	bj_int(e, "pages_failed", (int64_t)r->failed);
	bj_u8s(e, "weights", l->st.weights, l->nr_nodes);
	bj_print(e);
}

static void log_step(void *arg, const struct bwapd_tune_step *st)
{
	struct tune_log *l = arg;
	int j;

	if (l->nr < PLOT_POINTS) {
		l->t[l->nr] = st->seconds;
		l->dwp[l->nr] = st->dwp;
		l->stalls[l->nr++] = st->stall_rate;
	}
	bwapd_status_step(&l->st, st);
	status_update(l, l->st.state);

	if (l->json) {
		json_object *e = json_object_new_object();

		bj_str(e, "target", l->name);
		bj_int(e, "step", st->step);
		bj_str(e, "what", st->what);
		bj_num(e, "seconds", st->seconds, "%.3f");
		bj_num(e, "dwp", st->dwp, "%.4f");
		bj_num(e, "stalls", st->stall_rate, "%.6g");
		bj_num(e, "mapi", st->mapi, "%.6g");
		bj_int(e, "moved", (int64_t)st->migration.moved);
		bj_u8s(e, "weights", st->weights, l->nr_nodes);
		bj_print(e);
		return;
	} else {
		char stalls[32] = "-";

		if (st->stall_rate >= 0)
			snprintf(stalls, sizeof(stalls), "%.4g", st->stall_rate);
		printf("%-8s step %2d %-6s t=%8.3fs  DWP %.3f  stalls %-10s pages moved %-8llu weights",
		       l->name, st->step, st->what, st->seconds, st->dwp,
		       stalls, (unsigned long long)st->migration.moved);
		for (j = 0; j < l->nr_nodes; j++)
			printf("%s%u", j ? ":" : " ", st->weights[j]);
		printf("\n");
	}
	fflush(stdout);
}

/* The canonical shares of the workers: the file's, or measured now. */
static int canonical_of(const struct opts *o, struct bwapd_backend *b,
			const struct bwapd_topology *t, uint32_t workers,
			double *frac)
{
	struct bwapd_file f;
	const struct bwapd_result *r = NULL;
	struct bwapd_result now;
	struct bwapd_profile_opts po = { .seconds = o->seconds,
					 .u8_err = o->u8_err };
	char why[512] = "", list[64];
	int ret;

	bwapd_nodelist_format(workers, list, sizeof(list));
	if (o->canonical) {
		uint8_t w[BWAPD_MAX_NODES] = { 0 };
		int n = 0;
		const char *p = o->canonical;
		char *end;

		while (*p && n < t->nr_nodes) {
			long v = strtol(p, &end, 10);

			if (end == p || v < 0 || v > 255 || (*end && *end != ':'))
				break;
			w[n++] = (uint8_t)v;
			p = *end ? end + 1 : end;
		}
		if (*p || n != t->nr_nodes ||
		    bwm_weights_to_fractions(w, n, frac)) {
			bwapd_log(BWAPD_LOG_ERR, "--canonical %s: want %d weights 0-255 "
				"separated by ':', not all 0", o->canonical,
				t->nr_nodes);
			return -EINVAL;
		}
		return 0;
	}
	ret = bwapd_file_read(o->file, t, &f, why, sizeof(why));
	if (!ret) {
		r = bwapd_file_find(&f, workers);
		if (!r) {
			bwapd_log(BWAPD_LOG_ERR, "no canonical weights for workers %s in %s",
				list, o->file);
			bwapd_file_free(&f);
			return -ENOENT;
		}
	} else if (ret == -ENOENT) {
		char cwhy[512] = "";
		int counters = !b->ops->ctrl_open(b, cwhy, sizeof(cwhy));

		bwapd_log(BWAPD_LOG_WARNING, "%s does not exist: canonical weights of workers %s from %s",
			o->file, list, counters ? "a profiling run now" :
			"the firmware tables (no counters)");
		ret = bwapd_profile_set(b, t, workers, counters, &po, &now);
		if (ret) {
			bwapd_log(BWAPD_LOG_ERR, "profiling workers %s: %s", list,
				strerror(-ret));
			return ret;
		}
		r = &now;
	} else {
		error(ret == -ESTALE ? "stale weights file" : "weights file",
		      ret, why);
		return ret;
	}
	memcpy(frac, r->frac, sizeof(r->frac));
	bwapd_file_free(&f);
	return 0;
}

static int load_workload(const char *path, const struct bwm_machine *m,
			 uint32_t workers, struct bwm_workload *wl)
{
	struct bwm_error err;
	char msg[512];

	if (bwm_workload_load(path, wl, &err) ||
	    bwm_workload_bind(m, wl, workers, 0, &err)) {
		bwapd_log(BWAPD_LOG_ERR, "%s",
			bwm_error_format(&err, path, msg, sizeof(msg)));
		return -EINVAL;
	}
	return 0;
}

/*
 * --corun: the high-priority workload (group[0], pages on its own
 * nodes) beside the one tuned (group[1]) on the model; 0, 1 or EXIT_USAGE.
 */
static int corun_targets(const struct opts *o, const struct bwm_machine *m,
			 const struct bwm_workload *wl,
			 struct bwapd_target *group)
{
	uint8_t own[BWAPD_MAX_NODES] = { 0 };
	struct bwm_workload two[2];
	struct bwapd_migration mig;
	uint32_t hw;
	int j, ret;

	if (!o->corun_workers) {
		bwapd_log(BWAPD_LOG_ERR, "--corun needs --corun-workers, and no --pid");
		return EXIT_USAGE;
	}
	if (parse_workers(o->corun_workers, &hw) ||
	    load_workload(o->corun, m, hw, &two[0]))
		return EXIT_USAGE;
	two[1] = *wl;
	ret = bwapd_target_model_group(group, 2, m, two, o->seed, o->noise,
				       NULL);
	for (j = 0; !ret && j < m->nr_nodes; j++)
		own[j] = hw & (1u << j) ? 1 : 0;
	if (!ret)
		ret = group[0].ops->migrate(&group[0], own, m->nr_nodes,
					    &o->tune.migrate, &mig);
	if (ret)
		return error("model", ret, "the workloads must run on different nodes");
	return 0;
}

static void process_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (bwapd_read_text("", path, buf, len))
		snprintf(buf, len, "?");
}

/*
 * Tune a target: a process (pid), a process whose counters come from the
 * model (pid and --model/--workload), or a workload of the model.
 */
static int tune_target(const struct opts *o, pid_t pid)
{
	static struct bwm_machine m;
	struct bwapd_target proc = { 0 }, model = { 0 }, *t;
	struct bwapd_target hiproc = { 0 }, group[2] = { { 0 } }, *hi = NULL;
	struct bwapd_tune_opts to = o->tune;
	struct bwapd_tune_result r = { 0 };
	static struct tune_log l;
	struct bwapd_backend b;
	struct bwapd_topology topo;
	struct bwm_workload wl;
	struct bwm_error err;
	double canon[BWAPD_MAX_NODES];
	uint64_t pages[BWAPD_MAX_NODES], total = 0;
	uint32_t workers = 0;
	char name[32], list[64];
	const char *result = "failed";
	int ret, j, changed, rc = 1;

	memset(&l, 0, sizeof(l));
	l.json = o->json;
	/* a process: this machine's topology and weights, whatever counts */
	if (pid ? open_here(o, &b, &topo) : open_backend(o, &b, &topo))
		return 1;
	if (o->model && bwm_machine_load(o->model, &m, &err)) {
		char msg[512];

		bwapd_log(BWAPD_LOG_ERR, "--model: %s",
			  bwm_error_format(&err, o->model, msg, sizeof(msg)));
		bwapd_backend_destroy(&b);
		return 1;
	}
	if (o->workers && parse_workers(o->workers, &workers)) {
		bwapd_backend_destroy(&b);
		return EXIT_USAGE;
	}
	if (pid) {
		snprintf(name, sizeof(name), "%d", (int)pid);
		ret = bwapd_target_process(&proc, pid, topo.nr_nodes, &topo);
		if (ret) {
			error("target", ret, proc.why);
			goto out;
		}
		workers = proc.workers;
		t = &proc;
	} else {
		snprintf(name, sizeof(name), "model");
		t = NULL;
	}
	if (o->workload) {
		if (!o->model) {
			bwapd_log(BWAPD_LOG_ERR, "--workload needs --model");
			rc = EXIT_USAGE;
			goto out;
		}
		if (pid && m.nr_nodes != topo.nr_nodes) {
			bwapd_log(BWAPD_LOG_ERR, "the model has %d nodes, the machine %d",
				m.nr_nodes, topo.nr_nodes);
			goto out;
		}
		if (load_workload(o->workload, &m, workers, &wl))
			goto out;
		workers = wl.workers;
		if (o->corun) {
			if (pid) {
				bwapd_log(BWAPD_LOG_ERR, "--corun is for the model, not --pid");
				rc = EXIT_USAGE;
				goto out;
			}
			rc = corun_targets(o, &m, &wl, group);
			if (rc)
				goto out;
			rc = 1;
			hi = &group[0];
			t = &group[1];
		} else {
			ret = bwapd_target_model(&model, &m, &wl, o->seed,
						 o->noise, pid ? &proc : NULL);
			if (ret) {
				error("model", ret, NULL);
				goto out;
			}
			t = &model;
		}
	} else if (!pid) {
		bwapd_log(BWAPD_LOG_ERR, "tune needs --pid PID or --workload FILE");
		rc = EXIT_USAGE;
		goto out;
	}
	if (!pid && o->watch == 0) {
		bwapd_log(BWAPD_LOG_ERR, "--watch 0 follows a process until it exits; a "
			"model never does: give seconds");
		rc = EXIT_USAGE;
		goto out;
	}
	if (o->hi_pid) {
		if (!pid || o->corun) {
			bwapd_log(BWAPD_LOG_ERR, "--high-priority needs --pid");
			rc = EXIT_USAGE;
			goto out;
		}
		ret = bwapd_target_process(&hiproc, o->hi_pid, topo.nr_nodes,
					   &topo);
		if (ret) {
			error("high-priority process", ret, hiproc.why);
			goto out;
		}
		if (hiproc.workers & workers) {
			bwapd_log(BWAPD_LOG_ERR, "processes %d and %d share nodes; "
				"co-scheduling wants them apart", (int)o->hi_pid,
				(int)pid);
			goto out;
		}
		hi = &hiproc;
	}
	l.nr_nodes = t->nr_nodes;
	l.name = name;
	if (canonical_of(o, &b, &topo, workers, canon))
		goto out;
	if (pid) {
		ret = proc.ops->pages(&proc, pages, topo.nr_nodes);
		for (j = 0; !ret && j < topo.nr_nodes; j++)
			total += pages[j];
		if (ret) {
			bwapd_log(BWAPD_LOG_ERR, "cannot see the pages of process %d: %s%s",
				(int)pid, proc.why, ret == -EACCES || ret == -EPERM ?
				" (another user's process needs ptrace read access and "
				"CAP_SYS_NICE); nothing changed" : "");
			goto out;
		}
		if (!total) {
			bwapd_log(BWAPD_LOG_ERR, "process %d has no anonymous memory under weighted "
				"interleave (start it with \"bwapd exec\" or \"numactl "
				"--weighted-interleave\")", (int)pid);
			goto out;
		}
	}
	bwapd_nodelist_format(workers, list, sizeof(list));
	to.log = log_step;
	to.log_arg = &l;
	l.run_dir = *o->run_dir ? o->run_dir : NULL;
	l.st.pid = pid;
	l.st.tuner = getpid();
	l.st.nr_nodes = t->nr_nodes;
	snprintf(l.st.target, sizeof(l.st.target), "%s", t->ops->name);
	snprintf(l.st.workers, sizeof(l.st.workers), "%s", list);
	{
		struct bwapd_counters c;
		int per_insn = to.metric == BWAPD_STALLS_PER_INSN ||
			       (to.metric == BWAPD_METRIC_AUTO &&
				!t->ops->counters(t, &c) &&
				(c.have & BWAPD_HAVE_MAPI));

		snprintf(l.st.metric, sizeof(l.st.metric), "%s",
			 per_insn ? "stalls/instruction" : "stalls/s");
	}
	if (pid)
		process_comm(pid, l.st.command, sizeof(l.st.command));
	else
		snprintf(l.st.command, sizeof(l.st.command), "%s", wl.name);
	l.started = 1;
	if (o->json) {
		json_object *e = tune_event(&l, "start");

		bj_str(e, "command", l.st.command);
		bj_str(e, "workers", list);
		bj_str(e, "source", t->ops->name);
		bj_str(e, "metric", l.st.metric);
		bj_print(e);
	} else {
		printf("tuning %s on workers %s (%s)\n", pid ? name : "the model",
		       list, t->ops->name);
	}
	if (l.run_dir) {
		if (pid)
			snprintf(status_file, sizeof(status_file), "%s/%d.json",
				 l.run_dir, (int)pid);
		else
			snprintf(status_file, sizeof(status_file), "%s/model-%d.json",
				 l.run_dir, (int)getpid());
		signal(SIGTERM, on_signal);
		signal(SIGINT, on_signal);
		signal(SIGHUP, on_signal);
	}
	for (;;) {
		l.st.tunings++;
		status_update(&l, "tuning");
		if (hi && l.st.tunings == 1) {
			double floor = 0;

			ret = bwapd_tune_cosched(hi, t, canon, &to, &r, &floor);
			if (!ret && o->json) {
				json_object *e = tune_event(&l, "co-scheduled");

				bj_num(e, "floor", floor, "%.4f");
				bj_num(e, "protect", to.protect, "%.4g");
				bj_print(e);
			} else if (!ret) {
				printf("%s: co-scheduled: DWP %.3f or more keeps the high-priority "
				       "job within %.0f %% of its speed\n", name, floor,
				       to.protect * 100);
			}
			/* re-tuning keeps the floor */
			to.floor = floor;
		} else {
			ret = bwapd_tune(t, canon, &to, &r);
		}
		if (ret == -ESRCH) {
			bwapd_log(BWAPD_LOG_INFO, "process %d exited while it was tuned",
				(int)pid);
			result = "exited";
			rc = 0;
			goto out;
		}
		if (ret) {
			error("tune", ret, t->why);
			bwapd_log(BWAPD_LOG_ERR, "the target keeps weights of DWP %.3f",
				r.dwp);
			goto out;
		}
		if (o->json) {
			json_object *e = tune_event(&l, r.skipped ?
						    "not-memory-intensive" : "tuned");

			bj_num(e, "dwp", r.dwp, "%.4f");
			bj_int(e, "steps", r.steps);
			bj_int(e, "moved", (int64_t)r.moved);
			bj_int(e, "failed", (int64_t)r.failed);
			bj_num(e, "mapi", r.mapi, "%.6g");
			if (r.skipped)
				bj_num(e, "min_mapi", to.min_mapi, "%.6g");
			bj_print(e);
		} else if (r.skipped)
			printf("%s: %.4g memory accesses per instruction, below %.4g: not "
			       "memory-intensive, left at DWP 0\n", name, r.mapi,
			       to.min_mapi);
		else
			printf("%s: DWP %.3f after %d steps, %llu pages moved%s\n",
			       name, r.dwp, r.steps, (unsigned long long)r.moved,
			       r.failed ? " (some could not move: a node was full)" : "");
		l.st.dwp = r.dwp;
		if (!(o->watch >= 0) || r.skipped)
			break;
		status_update(&l, "watching");
		ret = bwapd_tune_watch(t, &to, r.stall_rate, o->watch, &changed);
		if (ret == -ESRCH) {
			result = "exited";
			rc = 0;
			goto out;
		}
		if (ret || !changed)
			break;
		if (o->json) {
			json_object *e = tune_event(&l, "phase-change");

			bj_num(e, "threshold", to.phase_change, "%.4g");
			bj_print(e);
		} else {
			printf("%s: phase change: stalls moved by more than %.0f %%; tuning again\n",
			       name, to.phase_change * 100);
		}
		to.start = r.dwp;
	}
	rc = ret ? 1 : 0;
	result = ret ? "failed" : "done";
	if (o->plot) {
		char title[256];

		snprintf(title, sizeof(title), "tuning %s (%s) on workers %s",
			 l.st.command, pid ? name : "model", list);
		ret = write_plot(o->plot, &l, title);
		if (ret)
			rc = error(o->plot, ret, NULL);
	}
out:
	if (l.started && o->json)
		tune_summary(&l, &r, result);
	if (l.run_dir)
		bwapd_status_remove(l.run_dir, &l.st);
	status_file[0] = 0;
	if (model.ops)
		bwapd_target_close(&model);
	for (j = 0; j < 2; j++)
		if (group[j].ops)
			bwapd_target_close(&group[j]);
	if (hiproc.ops)
		bwapd_target_close(&hiproc);
	if (proc.ops)
		bwapd_target_close(&proc);
	bwapd_backend_destroy(&b);
	return rc;
}

static json_object *status_json(const struct bwapd_status *s)
{
	json_object *e = json_object_new_object();

	bj_int(e, "pid", s->pid);
	bj_int(e, "tuner", s->tuner);
	bj_str(e, "command", s->command);
	bj_str(e, "target", s->target);
	bj_str(e, "workers", s->workers);
	bj_str(e, "state", s->state);
	bj_bool(e, "stale", s->stale);
	bj_num(e, "dwp", s->dwp, "%.4f");
	bj_str(e, "metric", s->metric);
	bj_num(e, "stalls", s->stalls, "%.6g");
	bj_int(e, "steps", s->steps);
	bj_int(e, "tunings", s->tunings);
	bj_int(e, "pages_moved", (int64_t)s->moved);
	bj_int(e, "updated", (int64_t)s->updated);
	bj_u8s(e, "weights", s->weights, s->nr_nodes);
	return e;
}

static int cmd_status(const struct opts *o)
{
	static struct bwapd_status st[256];
	json_object *doc, *list;
	char w[8 * BWAPD_MAX_NODES], cmd[64];
	int i, j, n;
	size_t off;

	n = bwapd_status_list(o->run_dir, st, 256);
	if (n < 0)
		return error("status", n, NULL);
	if (o->json) {
		doc = json_object_new_object();
		list = json_object_new_array();
		for (i = 0; i < n; i++)
			json_object_array_add(list, status_json(&st[i]));
		json_object_object_add(doc, "tuners", list);
		return bj_print(doc) ? 1 : 0;
	}
	if (n)
		printf("%-7s %-7s %-15s %-8s %-9s %6s %-12s %5s %10s  %s\n", "pid",
		       "tuner", "command", "workers", "state", "DWP", "stalls",
		       "steps", "pages", "weights");
	else
		printf("no process is being tuned (%s)\n", o->run_dir);
	for (i = 0; i < n; i++) {
		const struct bwapd_status *s = &st[i];
		char pid[16];

		for (j = 0, off = 0; j < s->nr_nodes && off < sizeof(w); j++)
			off += (size_t)snprintf(w + off, sizeof(w) - off, "%s%u",
						j ? ":" : "", s->weights[j]);
		if (!s->nr_nodes)
			w[0] = 0;
		/* a command name is any bytes: no terminal controls */
		snprintf(cmd, sizeof(cmd), "%s", s->command);
		for (j = 0; cmd[j]; j++)
			if ((unsigned char)cmd[j] < 0x20 || cmd[j] == 0x7f)
				cmd[j] = '?';
		snprintf(pid, sizeof(pid), "%d", (int)s->pid);
		printf("%-7s %-7d %-15s %-8s %-9s %6.3f %-12.4g %5d %10llu  %s\n",
		       s->pid ? pid : "model", (int)s->tuner, cmd,
		       s->workers, s->stale ? "stale" : s->state, s->dwp,
		       s->stalls, s->steps, (unsigned long long)s->moved, w);
	}
	return 0;
}

static int cmd_tune(const struct opts *o)
{
	if (o->pid < 0)
		return EXIT_USAGE;
	return tune_target(o, o->pid);
}

/* ---- daemon ---- */

#define MAX_TUNERS	256
#define MAX_GIVEN_UP	1024

static volatile sig_atomic_t daemon_stop;

static void on_daemon_signal(int sig)
{
	(void)sig;
	daemon_stop = 1;
}

struct daemon {
	const struct opts *o;
	struct bwapd_rule rules[128];
	int nr_rules;
	pid_t target[MAX_TUNERS], tuner[MAX_TUNERS];
	int nr;
	pid_t given_up[MAX_GIVEN_UP];	/* tuner failed: not again */
	int nr_given_up;
};

/* The options of a rule on top of the daemon's; 0 or EXIT_USAGE. */
static int rule_opts(const struct opts *o, const struct bwapd_rule *r,
		     struct opts *ro)
{
	char *argv[BWAPD_RULE_ARGS + 1], where[4200];
	int seen[NR_OPTS] = { 0 }, ret;
	struct words w;

	*ro = *o;
	memcpy(argv, r->argv, sizeof(argv[0]) * (size_t)(r->argc + 1));
	snprintf(where, sizeof(where), "%s:%d", o->rules, r->line);
	ret = parse_opts(r->argc, argv, ro, seen, &w);
	if (!ret && (w.nr || w.rest)) {
		bwapd_log(BWAPD_LOG_ERR, "%s: not an option: %s", where,
			  w.nr ? w.word[0] : "--");
		ret = EXIT_USAGE;
	}
	if (!ret)
		ret = check_opts(seen, C_RULE, where) ||
		      metric_opts(seen, ro, where);
	if (!ret && bwapd_tune_opts_check(&ro->tune)) {
		bwapd_log(BWAPD_LOG_ERR, "%s: bad tuner parameters", where);
		ret = EXIT_USAGE;
	}
	if (!seen[opt_index("watch")])
		ro->watch = 0;	/* until the process exits */
	ro->json = 0;
	return ret ? EXIT_USAGE : 0;
}

static int known(const pid_t *list, int n, pid_t pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (list[i] == pid)
			return 1;
	return 0;
}

static void reap(struct daemon *d)
{
	int status, i;
	pid_t c;

	while ((c = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < d->nr && d->tuner[i] != c; i++)
			;
		if (i == d->nr)
			continue;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			bwapd_log(BWAPD_LOG_WARNING, "process %d: tuner failed; not tuned again",
			       (int)d->target[i]);
			if (d->nr_given_up < MAX_GIVEN_UP)
				d->given_up[d->nr_given_up++] = d->target[i];
		} else {
			bwapd_log(BWAPD_LOG_INFO, "process %d: tuned until it exited",
			       (int)d->target[i]);
		}
		d->target[i] = d->target[--d->nr];
		d->tuner[i] = d->tuner[d->nr];
	}
	/* forget the processes that are gone */
	for (i = 0; i < d->nr_given_up; i++)
		if (kill(d->given_up[i], 0) && errno == ESRCH)
			d->given_up[i--] = d->given_up[--d->nr_given_up];
	fflush(stdout);
}

static void scan(struct daemon *d)
{
	struct dirent *de;
	DIR *dir = opendir("/proc");

	if (!dir)
		return;
	while (!daemon_stop && (de = readdir(dir)) && d->nr < MAX_TUNERS) {
		const struct bwapd_rule *r;
		char comm[64], path[64];
		struct opts ro;
		pid_t pid = (pid_t)atoi(de->d_name), c;

		if (pid <= 0 || pid == getpid() || known(d->target, d->nr, pid) ||
		    known(d->tuner, d->nr, pid) ||
		    known(d->given_up, d->nr_given_up, pid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if (bwapd_read_text("", path, comm, sizeof(comm)))
			continue;
		r = bwapd_rules_match(d->rules, d->nr_rules, comm);
		if (!r || rule_opts(d->o, r, &ro))
			continue;
		bwapd_log(BWAPD_LOG_INFO, "process %d (%s) matches rule %d (%s): tuning it",
		       (int)pid, comm, r->line, r->pattern);
		fflush(stdout);
		c = fork();
		if (c < 0)
			break;
		if (!c) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			_exit(tune_target(&ro, pid));
		}
		d->target[d->nr] = pid;
		d->tuner[d->nr++] = c;
	}
	closedir(dir);
}

static int cmd_daemon(const struct opts *o)
{
	static struct daemon d;
	char why[512] = "";
	struct sigaction sa;
	int i, ret;

	memset(&d, 0, sizeof(d));
	d.o = o;
	/* a log (journald under systemd): whole lines, also from the tuners */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = bwapd_rules_read(o->rules, d.rules, 128, why, sizeof(why));
	if (ret < 0)
		return error("rules", ret, why);
	d.nr_rules = ret;
	for (i = 0; i < d.nr_rules; i++) {
		struct opts ro;

		if (rule_opts(o, &d.rules[i], &ro)) {
			bwapd_log(BWAPD_LOG_ERR, "%s:%d: bad options in this rule; not started",
				o->rules, d.rules[i].line);
			return EXIT_USAGE;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_daemon_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	bwapd_log(BWAPD_LOG_INFO, "%d rules from %s; looking for processes every %g s",
	       d.nr_rules, o->rules, o->scan);
	fflush(stdout);
	while (!daemon_stop) {
		struct timespec ts = { (time_t)o->scan,
			(long)((o->scan - (double)(time_t)o->scan) * 1e9) };

		reap(&d);
		scan(&d);
		nanosleep(&ts, NULL);
	}
	/* the tuners remove their status; the processes keep their weights */
	for (i = 0; i < d.nr; i++)
		kill(d.tuner[i], SIGTERM);
	while (d.nr && wait(NULL) > 0)
		;
	bwapd_log(BWAPD_LOG_INFO, "stopped; %d tuners stopped, their processes keep their weights",
	       d.nr);
	return 0;
}

/* Weighted interleave over every memory node, the canonical DWP 0 weights. */
static int exec_policy(const uint8_t *w, int nr,
		       unsigned long *mask)
{
	if (syscall(SYS_set_mempolicy, MPOL_WEIGHTED_INTERLEAVE_MODE, mask,
		    8 * sizeof(*mask) + 1) ||
	    syscall(SYS_set_mempolicy_weights, PIDFD_SELF_THREAD_GROUP, w,
		    (unsigned long)nr, 0U))
		return -errno;
	return 0;
}

static int cmd_exec(struct opts *o, char **argv)
{
	struct bwapd_backend b;
	struct bwapd_topology topo;
	double canon[BWAPD_MAX_NODES];
	uint8_t w[BWAPD_MAX_NODES];
	unsigned long mask = 0;
	uint32_t workers;
	int status, rc, p[2], notify[2] = { -1, -1 }, err = 0;
	ssize_t n;
	pid_t pid;

	/* a real program on this machine, whatever counts its stalls */
	if (open_here(o, &b, &topo))
		return 1;
	if (bwapd_process_workers(0, &topo, &workers) ||
	    canonical_of(o, &b, &topo, workers, canon) ||
	    bwapd_dwp_weights(canon, topo.nr_nodes, workers, 0,
			      o->tune.u8_err, w)) {
		bwapd_backend_destroy(&b);
		return 1;
	}
	bwapd_backend_destroy(&b);
	mask = topo.mem_nodes;
	/* closed by a successful exec; the child's errno otherwise */
	if (pipe2(p, O_CLOEXEC) || (o->wait_stable && pipe2(notify, O_CLOEXEC)))
		return error("exec", -errno, NULL);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return error("fork", -errno, NULL);
	if (!pid) {
		int err = -exec_policy(w, topo.nr_nodes, &mask);

		close(p[0]);
		if (!err && o->wait_stable) {
			/* the program tells when it is steady: bwapd_stable() */
			char fd[16];

			snprintf(fd, sizeof(fd), "%d", notify[1]);
			close(notify[0]);
			if (fcntl(notify[1], F_SETFD, 0) ||
			    setenv("BWAPD_NOTIFY_FD", fd, 1))
				err = errno;
		}
		if (!err) {
			execvp(argv[0], argv);
			err = errno;
		}
		if (write(p[1], &err, sizeof(err)) != sizeof(err))
			_exit(126);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (n == sizeof(err)) {
		waitpid(pid, &status, 0);
		if (err == ENOSYS || err == EINVAL)
			bwapd_log(BWAPD_LOG_ERR, "cannot put %s under weighted interleave: %s "
				"(a kernel without MPOL_WEIGHTED_INTERLEAVE or "
				"set_mempolicy_weights?)", argv[0], strerror(err));
		else
			bwapd_log(BWAPD_LOG_ERR, "%s: %s", argv[0], strerror(err));
		return 127;
	}
	if (o->wait_stable) {
		char buf[16];

		close(notify[1]);
		while ((n = read(notify[0], buf, sizeof(buf))) < 0 && errno == EINTR)
			;
		close(notify[0]);
		if (n <= 0 && waitpid(pid, &status, WNOHANG) == pid) {
			bwapd_log(BWAPD_LOG_ERR, "%s exited before it said it was stable",
				argv[0]);
			return WIFEXITED(status) ? WEXITSTATUS(status) :
			       128 + WTERMSIG(status);
		}
		if (o->json) {
			json_object *e = json_object_new_object();

			bj_str(e, "event", "stable");
			bj_str(e, "command", argv[0]);
			bj_bool(e, "notified", n > 0);
			bj_print(e);
		} else {
			printf("%s is stable%s\n", argv[0],
			       n > 0 ? "" : " (closed the notification descriptor)");
		}
	}
	if (o->delay > 0) {
		struct timespec ts = { (time_t)o->delay,
			(long)((o->delay - (double)(time_t)o->delay) * 1e9) };

		nanosleep(&ts, NULL);
	}
	rc = tune_target(o, pid);
	if (rc)
		bwapd_log(BWAPD_LOG_WARNING, "%s runs on untuned", argv[0]);
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	if (WIFEXITED(status))
		return rc ? rc : WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.file = BWAPD_DEFAULT_FILE, .root = "", .seed = 1,
		.run_dir = BWAPD_RUN_DIR, .rules = BWAPD_RULES_FILE, .scan = 5,
		.seconds = 2, .u8_err = BWM_DEFAULT_U8_ERR,
		.log_level = BWAPD_LOG_INFO,
	};
	int seen[NR_OPTS] = { 0 };
	const char *arg;
	struct words w;
	int c, cmd;

	bwapd_tune_opts_default(&o.tune);
	o.watch = -1;
	bwapd_log_init(BWAPD_LOG_INFO);

	c = parse_opts(argc, argv, &o, seen, &w);
	bwapd_log_init(o.log_level);
	if (c)
		return c;
	for (cmd = 0; w.nr && cmd < NR_CMDS; cmd++)
		if (!strcmp(w.word[0], cmds[cmd].name))
			break;
	if (seen[opt_index("version")]) {
		printf("bwapd %s\n", BWAPD_VERSION);
		return 0;
	}
	if (seen[opt_index("help")] && (!w.nr || cmd < NR_CMDS)) {
		usage(stdout, w.nr ? cmd : -1);
		return 0;
	}
	if (!w.nr || cmd == NR_CMDS) {
		if (w.nr)
			bwapd_log(BWAPD_LOG_ERR, "%s: no such command", w.word[0]);
		usage(stderr, -1);
		return EXIT_USAGE;
	}
	if (check_opts(seen, cmd, cmds[cmd].name))
		return EXIT_USAGE;
	if (metric_opts(seen, &o, cmds[cmd].name))
		return EXIT_USAGE;
	if ((cmd == C_TUNE || cmd == C_EXEC || cmd == C_DAEMON) &&
	    bwapd_tune_opts_check(&o.tune)) {
		bwapd_log(BWAPD_LOG_ERR, "bad tuner parameters (samples 1-1000 with "
			  "2 x trim fewer, period > 0, steps in (0, 1], max-steps "
			  "up to 126, rate >= 0)");
		return EXIT_USAGE;
	}
	if (cmd == C_EXEC) {
		char **command = w.rest ? w.rest : w.word + 1;

		if (!command[0]) {
			bwapd_log(BWAPD_LOG_ERR, "exec: no command (bwapd exec -- COMMAND)");
			return EXIT_USAGE;
		}
		if (w.rest && w.nr > 1) {
			bwapd_log(BWAPD_LOG_ERR, "exec: %s: the command goes after \"--\"",
				  w.word[1]);
			return EXIT_USAGE;
		}
		/* a launched program is followed until it exits */
		if (!seen[opt_index("watch")])
			o.watch = 0;
		return cmd_exec(&o, command);
	}
	arg = w.nr > 1 ? w.word[1] : NULL;
	if (w.rest || w.nr > ((cmd == C_SHOW || cmd == C_APPLY) ? 2 : 1)) {
		bwapd_log(BWAPD_LOG_ERR, "%s: too many arguments (\"bwapd %s --help\")",
			  cmds[cmd].name, cmds[cmd].name);
		return EXIT_USAGE;
	}
	switch (cmd) {
	case C_TOPOLOGY:
		return cmd_topology(&o);
	case C_PROFILE:
		return cmd_profile(&o);
	case C_SHOW:
		return cmd_show(&o, arg);
	case C_APPLY:
		return cmd_apply(&o, arg);
	case C_TUNE:
		return cmd_tune(&o);
	case C_STATUS:
		return cmd_status(&o);
	default:
		return cmd_daemon(&o);
	}
}
