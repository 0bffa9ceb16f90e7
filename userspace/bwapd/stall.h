/* SPDX-License-Identifier: GPL-2.0 */
/* Stall, cycle, instruction and cache-miss counters of a process (stall.c). */
#ifndef BWAPD_STALL_H
#define BWAPD_STALL_H

#include <linux/perf_event.h>

#include "bwapd.h"

#define STALL_MAX_THREADS	4096

enum { STALL_EV_STALLS, STALL_EV_CYCLES, STALL_EV_INSNS, STALL_EV_MISSES,
       STALL_NR_EVENTS };

struct stall_thread {
	pid_t tid;
	int fd[STALL_NR_EVENTS];	/* -1: not counted */
};

struct stall {
	pid_t pid;
	int have[STALL_NR_EVENTS];	/* the event could be encoded */
	struct perf_event_attr attr[STALL_NR_EVENTS];
	char stall_event[96];		/* what counts stalls */
	int nr;
	struct stall_thread thread[STALL_MAX_THREADS];
};

/*
 * Find the events and open them on every thread of pid.  Returns 0 when
 * the stall event counts; -EOPNOTSUPP (no PMU for it) or -EACCES (not
 * allowed) with a reason otherwise; the other events are best effort.
 */
int stall_open(struct stall *s, pid_t pid, char *why, size_t len);
/* Pick up threads created since; read the cumulative counts. */
int stall_read(struct stall *s, struct bwapd_counters *c);
void stall_close(struct stall *s);

#endif /* BWAPD_STALL_H */
