/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every tuner is doing (status.c): a small file per target in the
 * run directory, rewritten after every step, that "bwapd status" lists.
 */
#ifndef BWAPD_STATUS_H
#define BWAPD_STATUS_H

#include <time.h>

#include "cgroup.h"
#include "tune.h"

#define BWAPD_RUN_DIR		"/run/bwapd"

struct bwapd_status {
	pid_t pid;			/* the target; 0: a modelled workload */
	pid_t tuner;			/* the bwapd that tunes it */
	char command[64];		/* the target's comm */
	char unit[BWAPD_UNIT_LEN];	/* its unit (a user manager's), or "" */
	char cgroup[BWAPD_CGROUP_LEN];	/* its cgroup, or "" */
	char target[16];		/* "process", "model" */
	char placement[16];		/* "weights", "damon", "global", "model" */
	char workers[64];
	char state[16];			/* "tuning", "watching", "done", ... */
	char metric[48];
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

#endif /* BWAPD_STATUS_H */
