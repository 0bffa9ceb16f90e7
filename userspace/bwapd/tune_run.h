/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One tuning run of a target, the loop that tune, exec and the daemon's
 * tuners share (through cmd_tune_target()): the tuner's steps, then,
 * with --watch, the watching and a new tuning after each phase change,
 * until the target exits, a signal stops bwapd or the watching ends.
 * What it says: each step and the result (text or JSON Lines, with a
 * summary last), the status file "bwapd status" reads, and --plot.
 */
#ifndef BWAPD_TUNE_RUN_H
#define BWAPD_TUNE_RUN_H

#include <sys/types.h>

#include "cgroup.h"
#include "opts.h"
#include "profile.h"
#include "target.h"
#include "tune.h"

struct tune_run {
	const struct opts *o;		/* --json, --run-dir, --watch, --plot */
	pid_t pid;			/* the process; 0: a workload of the model */
	const char *name;		/* the target in the output: its PID, "model" */
	const char *command;		/* its command name, or the workload's */
	const struct bwapd_who *who;	/* the process's units, or NULL */
	const char *placement;		/* how its pages get their weights */
	uint32_t workers;		/* the nodes it runs on */
	struct bwapd_target *t;		/* what is tuned */
	struct bwapd_target *hi;	/* a high-priority job kept fast, or NULL */
	const struct bwapd_result *canon; /* the workers' canonical weights */
	const uint8_t *w0;		/* them at DWP 0, as the tuner writes them */
};

/*
 * Tune run->t from DWP to.start with the tuner's options to (to.log is
 * the run's own).  The exit status: 0 when it ended as it should (tuned,
 * or the process exited), 1 after an error, which it logs.
 */
int tune_run(const struct tune_run *run, struct bwapd_tune_opts to);

#endif
