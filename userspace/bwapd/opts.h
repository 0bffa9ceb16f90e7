/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line (opts.c): the commands, every option with the
 * commands it belongs to (one table, which also gives the help texts),
 * and their parsing - shared by main() and by the daemon's rules, which
 * take tuner options.
 */
#ifndef BWAPD_OPTS_H
#define BWAPD_OPTS_H

#include <stdio.h>

#include "tune.h"
#include "worksets.h"

#define EXIT_USAGE	2

/*
 * The model's preset machines and workloads (DIR/machines/NAME.json,
 * DIR/workloads/NAME.json), as bwap-eval finds them; BWMODEL_DATA
 * overrides it, as for bwap-eval.
 */
#define BWAPD_MODEL_DIR	"/usr/share/bwapd/model"
#define BWAPD_PATH_MAX	4096

/* Every command's options; main() sets the defaults. */
struct opts {
	const char *file;
	const char *model;
	const char *root;
	const char *pmu_root;
	uint64_t seed;
	double noise;
	int json, dry_run, no_counters;
	int per_initiator;		/* apply: a row per CPU node */
	double seconds, u8_err;
	int seconds_given;		/* --seconds on the command line */
	struct bwapd_set_opts sets;
	/* tune and exec */
	pid_t pid;
	const char *workload;
	const char *workers;
	const char *range;		/* inspect --pid: START-END */
	const char *run_dir;
	const char *plot;
	const char *rules;
	const char *canonical;
	const char *predict_with;
	const char *corun, *corun_workers;
	pid_t hi_pid;
	double watch, delay, scan;
	int wait_stable;
	int global;
	int placement;			/* BWAPD_PLACE_*, placement.h */
	int log_level;
	/* inspect */
	int verbose;
	const char *policy;
	double interval;
	struct bwapd_tune_opts tune;
};

/* The commands; a daemon's rule takes the options C_RULE names. */
enum { C_TOPOLOGY, C_PROFILE, C_SHOW, C_APPLY, C_TUNE, C_EXEC, C_STATUS,
       C_DAEMON, C_INSPECT, NR_CMDS, C_RULE = NR_CMDS };

/* The options in the table of opts.c (which checks the count). */
#define NR_OPTS		52

/* The words of the command line that are not options. */
struct words {
	int nr;
	char *word[4];		/* the command and its arguments */
	char **rest;		/* after "--" (NULL: none) */
};

/*
 * A preset name (no '/', no ".json") in --model, --predict-with,
 * --workload or --corun becomes the preset's file, in buf (one of 4 per
 * option, BWAPD_PATH_MAX each).  0, or EXIT_USAGE for a name that is no
 * preset.
 */
int opts_presets(struct opts *o, char (*buf)[BWAPD_PATH_MAX]);
/* The name of command cmd ("tune"). */
const char *opts_cmd_name(int cmd);
/* bwapd --help (cmd < 0), or the options of one command. */
void opts_usage(FILE *f, int cmd);
/*
 * The options of argv into o, anywhere before "--"; seen[i] counts
 * option i and w gets the other words.  0 or EXIT_USAGE.
 */
int opts_parse(int argc, char **argv, struct opts *o, int *seen,
	       struct words *w);
/* The index in seen[] of the option called name ("watch"). */
int opts_index(const char *name);
/* --u8-err holds for the tuner too; --forward-only is stalls per second. */
int opts_metric(const int *seen, struct opts *o, const char *where);
/* Every option seen is one of cmd's: 0, or EXIT_USAGE with a message. */
int opts_check(const int *seen, int cmd, const char *where);

#endif /* BWAPD_OPTS_H */
