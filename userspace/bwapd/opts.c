// SPDX-License-Identifier: GPL-2.0
/*
 * The command line: every command's options in one table, which also
 * gives the help texts, and their parsing - for main() and for the
 * daemon's rules, which take tuner options.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "opts.h"
#include "placement.h"
#include "rules.h"
#include "status.h"
#include "wfile.h"

static const struct cmd_def {
	const char *name, *args, *what;
} cmds[NR_CMDS] = {
	[C_TOPOLOGY] = { "topology", "", "nodes, CPUs, memory, distances, HMAT, counters" },
	[C_PROFILE] = { "profile", "", "measure every worker set, write the weights file" },
	[C_SHOW] = { "show", " [WORKERS]", "the canonical weights of the file" },
	[C_APPLY] = { "apply", " WORKERS | --per-initiator [WORKERS]", "set the global weights to those of WORKERS, or a row per CPU node (root)" },
	[C_TUNE] = { "tune", "", "tune a process's own weights (--pid), or a model's workload" },
	[C_EXEC] = { "exec", " -- COMMAND [ARG...]", "run COMMAND under weighted interleave and tune it" },
	[C_STATUS] = { "status", "", "the processes being tuned" },
	[C_DAEMON] = { "daemon", "", "tune the processes the rules name" },
	[C_INSPECT] = { "inspect", " [-- COMMAND [ARG...]]", "how a process, a program or a model's workload uses memory, what would serve it" },
};

#define B(c)		(1u << (c))
#define ALL		(B(NR_CMDS) - 1)
#define BACKEND		(ALL & ~B(C_STATUS))	/* --model, --root, ... */
#define TUNERS		(B(C_TUNE) | B(C_EXEC) | B(C_DAEMON) | B(C_RULE))
#define USES_FILE	(B(C_PROFILE) | B(C_SHOW) | B(C_APPLY) | TUNERS)
#define JSON_OUT	(ALL & ~B(C_DAEMON))

enum kind { K_FLAG, K_STR, K_INT, K_DBL, K_U64, K_METRIC, K_LEVEL, K_WEIGHTS,
	    K_PLACE, K_HELP, K_VERSION };

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
	  "a machine of the NUMA bandwidth model instead of this one: a\n"
	  "file, or a preset's name (bwap-b)" },
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
	{ "per-initiator", K_FLAG, O(per_initiator), 0, 0, B(C_APPLY), NULL,
	  "a row of weights per CPU node, each the canonical weights of\n"
	  "that node alone, and per_initiator on (kernels with rows); with\n"
	  "WORKERS, the default row (shared memory) from WORKERS" },
	{ "no-counters", K_FLAG, O(no_counters), 0, 0, B(C_PROFILE), NULL,
	  "no counters: weights from HMAT or SLIT" },
	{ "seconds", K_DBL, O(seconds), 0.1, 3600, B(C_PROFILE) | TUNERS | B(C_INSPECT), "S",
	  "benchmark time per worker set; inspect: sampling time, 0.1 to 3600\n"
	  "(default 2; profile: less, down to 0.5, where the sets would take\n"
	  "over 90 s)" },
	{ "u8-err", K_DBL, O(u8_err), 0, 0.999999, B(C_PROFILE) | TUNERS | B(C_INSPECT), "E",
	  "largest page-share error of integer weights (default 0.005; the\n"
	  "tuner's weights 0.001)" },
	{ "all", K_FLAG, O(sets.all), 0, 0, B(C_PROFILE), NULL,
	  "profile spread-out sets too" },
	{ "no-symmetry", K_FLAG, O(sets.no_symmetry), 0, 0, B(C_PROFILE), NULL,
	  "profile symmetric sets too" },
	{ "max-size", K_INT, O(sets.max_size), 1, BWAPD_MAX_NODES, B(C_PROFILE), "K",
	  "only sets of up to K nodes" },
	{ "pid", K_INT, O(pid), 1, INT_MAX, B(C_TUNE) | B(C_INSPECT), "PID",
	  "the process to tune, or to inspect" },
	{ "workload", K_STR, O(workload), 0, 0, TUNERS | B(C_INSPECT), "W.json",
	  "a workload of the model (with --model): tuned, or what counts a\n"
	  "process's stalls; a file, or a preset's name (mixed)" },
	{ "workers", K_STR, O(workers), 0, 0, B(C_TUNE) | B(C_INSPECT), "NODES",
	  "the workload's worker nodes; inspect -- COMMAND: the nodes its\n"
	  "threads are placed on (default: bwapd's own)" },
	{ "policy", K_STR, O(policy), 0, 0, B(C_INSPECT), "POLICY",
	  "the page policy the model's workload runs under: first-touch (one\n"
	  "thread fills the shared data; the default), parallel-init (each\n"
	  "thread fills its share) or interleave (over every node)" },
	{ "verbose", K_FLAG, O(verbose), 0, 0, B(C_INSPECT), NULL,
	  "pages per node of every mapping too" },
	{ "range", K_STR, O(range), 0, 0, B(C_INSPECT), "START-END",
	  "a process's samples from addresses START to END only (hex, END\n"
	  "excluded; a buffer, or mappings --verbose lists)" },
	{ "interval", K_DBL, O(interval), 0.001, 60, B(C_INSPECT), "S",
	  "a process's sampling slices: soft-dirty clears every S seconds,\n"
	  "0.001 to 60 (default 0.05)" },
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
	  "settings tried after the start (default 10; checking a model's\n"
	  "predictions may take as many again)" },
	{ "forward-only", K_FLAG, O(tune.forward_only), 0, 0, TUNERS, NULL,
	  "the paper's search: raise DWP only; stalls per second" },
	{ "dwp-search", K_FLAG, O(tune.dwp_only), 0, 0, TUNERS, NULL,
	  "search DWP only, even with --model (which otherwise predicts the\n"
	  "whole weight vector and refines it)" },
	{ "metric", K_METRIC, O(tune.metric), 0, 0, TUNERS, "rate|instruction|node",
	  "stalled cycles per second, per instruction, or per instruction\n"
	  "of the worker node whose threads stall most (the default where\n"
	  "counted by node, else per instruction where counted)" },
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
	{ "watch-every", K_DBL, O(tune.watch_every), 0, 3600, TUNERS, "S",
	  "while watching, one period every S seconds, 0 to 3600 (default 5;\n"
	  "0: one after the other)" },
	{ "plot", K_STR, O(plot), 0, 0, B(C_TUNE) | B(C_EXEC), "FILE.svg",
	  "draw the run when the tuner stops" },
	{ "high-priority", K_INT, O(hi_pid), 1, INT_MAX, B(C_TUNE), "PID",
	  "a high-priority process on other nodes to protect" },
	{ "protect", K_DBL, O(tune.protect), 0, 0.999999, B(C_TUNE), "P",
	  "share of its speed the high-priority job may lose (default 0.02)" },
	{ "global", K_FLAG, O(global), 0, 0, B(C_TUNE) | B(C_EXEC), NULL,
	  "tune the global weights instead of the process's own (kernels\n"
	  "without per-process weights): every process under weighted\n"
	  "interleave without weights of its own follows them, so only on a\n"
	  "machine dedicated to this application; root (--placement global)" },
	{ "placement", K_PLACE, O(placement), 0, 0, TUNERS, "HOW",
	  "how the process's pages get their weights: weights or own (its\n"
	  "own, set_mempolicy_weights(2)), damon (DAMON's weighted migration),\n"
	  "migrate (bwapd moves them, move_pages(2)), global, or auto (the\n"
	  "first of weights, damon and migrate the kernel gives; default)" },
	{ "corun", K_STR, O(corun), 0, 0, B(C_TUNE), "W.json",
	  "the model's high-priority workload beside the one tuned" },
	{ "corun-workers", K_STR, O(corun_workers), 0, 0, B(C_TUNE), "NODES",
	  "its worker nodes" },
	{ "canonical", K_WEIGHTS, O(canonical), 0, 0, TUNERS, "W0,W1,...",
	  "canonical weights to start from, instead of the file's: one per\n"
	  "node, 0-255, as numactl --weights takes them (5,3,1,1)" },
	{ "predict-with", K_STR, O(predict_with), 0, 0, TUNERS, "MACHINE.json",
	  "the model of the machine the tuner predicts with, instead of the\n"
	  "file's (a machine file, or a profile)" },
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

_Static_assert(sizeof(optdefs) / sizeof(optdefs[0]) == NR_OPTS,
	       "NR_OPTS in opts.h counts the options");

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

const char *opts_cmd_name(int cmd)
{
	return cmds[cmd].name;
}

/* bwapd --help (cmd < 0), or the options of one command. */
void opts_usage(FILE *f, int cmd)
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
	char *p = (char *)o + d->off, *end, list[4 * BWM_MAX_NODES];
	uint8_t w[BWM_MAX_NODES];
	int n, old;
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
		else if (!strcmp(arg, "node"))
			o->tune.metric = BWAPD_NODE_STALLS_PER_INSN;
		else
			break;
		return 0;
	case K_WEIGHTS:
		n = bwm_weights_parse(arg, w, BWM_MAX_NODES, &old);
		if (n < 0)
			break;
		if (old)
			bwapd_log(BWAPD_LOG_WARNING, "--%s %s: the old notation; "
				  "write %s, as numactl --weights does", d->name,
				  arg, bwm_weights_format(w, n, list, sizeof(list)));
		*(const char **)p = arg;
		return 0;
	case K_PLACE:
		n = bwapd_place_kind_parse(arg);
		if (n < 0)
			break;
		*(int *)p = n;
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
			d->arg ? ": want " : "",
			d->kind == K_U64 ? "a whole number, not negative" :
			d->kind == K_LEVEL ? "err, warning, info or debug" :
			d->kind == K_PLACE ? "weights, damon, migrate, global or auto" :
			d->kind == K_WEIGHTS ? "one weight per node, 0-255, "
			"separated by commas (5,3,1,1), not all 0" : d->arg);
	return EXIT_USAGE;
}

/* arg is --name or --name=VALUE: getopt_long takes abbreviations too. */
static int whole_name(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, "--", 2) && !strncmp(arg + 2, name, n) &&
	       (!arg[2 + n] || arg[2 + n] == '=');
}

/*
 * The options of argv into o, anywhere before "--"; seen[i] counts
 * optdefs[i] and w gets the other words.  0 or EXIT_USAGE.
 */
int opts_parse(int argc, char **argv, struct opts *o, int *seen,
	       struct words *w)
{
	struct option lo[NR_OPTS + 1];
	unsigned int i;
	int c, at;

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
		at = optind ? optind : 1;
		c = getopt_long(argc, argv, "+:", lo, NULL);
		if (c >= 1000 && !whole_name(argv[at], optdefs[c - 1000].name)) {
			bwapd_log(BWAPD_LOG_ERR, "%.*s: no such option (\"bwapd "
				  "--help\"; options are spelled out: --%s?)",
				  (int)strcspn(argv[at], "="), argv[at],
				  optdefs[c - 1000].name);
			return EXIT_USAGE;
		}
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

int opts_presets(struct opts *o, char (*buf)[BWAPD_PATH_MAX])
{
	static const struct { size_t off; const char *opt, *kind, *what; } p[] = {
		{ O(model), "model", "machines", "machine" },
		{ O(predict_with), "predict-with", "machines", "machine" },
		{ O(workload), "workload", "workloads", "workload" },
		{ O(corun), "corun", "workloads", "workload" },
	};
	const char *dir = getenv("BWMODEL_DATA");
	unsigned int i;

	if (!dir || !*dir)
		dir = BWAPD_MODEL_DIR;
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		const char **v = (const char **)((char *)o + p[i].off);
		size_t n = *v ? strlen(*v) : 0;

		if (!n || strchr(*v, '/') || (n > 5 && !strcmp(*v + n - 5, ".json")))
			continue;
		snprintf(buf[i], BWAPD_PATH_MAX, "%s/%s/%s.json", dir, p[i].kind, *v);
		if (access(buf[i], R_OK)) {
			bwapd_log(BWAPD_LOG_ERR, "--%s %s: no preset %s \"%s\" in "
				  "%s/%s (a file's name has a '/' or ends in .json)",
				  p[i].opt, *v, p[i].what, *v, dir, p[i].kind);
			return EXIT_USAGE;
		}
		*v = buf[i];
	}
	return 0;
}

int opts_index(const char *name)
{
	unsigned int i;

	for (i = 0; strcmp(optdefs[i].name, name); i++)
		;
	return (int)i;
}

/*
 * What options say of others: --u8-err holds for the tuner's weights too;
 * --forward-only is stalls per second, --metric instruction contradicts it.
 */
int opts_metric(const int *seen, struct opts *o, const char *where)
{
	if (seen[opts_index("u8-err")])
		o->tune.u8_err = o->u8_err;
	o->seconds_given = seen[opts_index("seconds")] > 0;
	if (o->global && seen[opts_index("placement")] &&
	    o->placement != BWAPD_PLACE_GLOBAL) {
		bwapd_log(BWAPD_LOG_ERR, "%s: --global is --placement global: it "
			  "does not go with --placement %s", where,
			  bwapd_place_kind_name(o->placement));
		return EXIT_USAGE;
	}
	if (o->global)
		o->placement = BWAPD_PLACE_GLOBAL;
	o->global = o->placement == BWAPD_PLACE_GLOBAL;
	if (!seen[opts_index("forward-only")])
		return 0;
	if (seen[opts_index("metric")] && o->tune.metric != BWAPD_STALL_RATE) {
		bwapd_log(BWAPD_LOG_ERR, "%s: --forward-only measures stalls per "
			  "second: it does not go with --metric %s", where,
			  o->tune.metric == BWAPD_NODE_STALLS_PER_INSN ?
			  "node" : "instruction");
		return EXIT_USAGE;
	}
	o->tune.metric = BWAPD_STALL_RATE;
	return 0;
}

/* Every option seen is one of cmd's: 0, or EXIT_USAGE with a message. */
int opts_check(const int *seen, int cmd, const char *where)
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
