/* SPDX-License-Identifier: GPL-2.0 */
/* Stall, cycle, instruction and cache-miss counters of a process (stall.c). */
#ifndef BWAPD_STALL_H
#define BWAPD_STALL_H

#include <linux/perf_event.h>

#include "target.h"

/*
 * File descriptors: one event group per thread, STALL_NR_EVENTS fds each
 * (stall event leading), so up to 4 x STALL_MAX_THREADS = 16384 for a
 * process at the limit.  stall_open() raises the soft RLIMIT_NOFILE to
 * the hard limit; a thread whose group cannot be opened is an error
 * (EMFILE and the budget in why), not a thread that counts nothing.
 */
#define STALL_MAX_THREADS	4096
/* The thread list is rescanned at most this often (seconds). */
#define STALL_SCAN_S		1.0

enum { STALL_EV_STALLS, STALL_EV_CYCLES, STALL_EV_INSNS, STALL_EV_MISSES,
       STALL_NR_EVENTS };

struct stall_thread {
	pid_t tid;
	int fd[STALL_NR_EVENTS];	/* fd[0] leads the group; -1: absent */
	uint64_t last[STALL_NR_EVENTS];	/* its counts at the last read */
	int node;			/* of its CPU then; -1: not known */
};

struct stall {
	pid_t pid;
	int have[STALL_NR_EVENTS];	/* the event is in every group */
	struct perf_event_attr attr[STALL_NR_EVENTS];
	char stall_event[96];		/* what counts stalls */
	double scan_s;			/* rescan interval (STALL_SCAN_S) */
	double last_scan;
	int scans;			/* how often /proc/PID/task was read */
	char why[256];			/* the reason of the last error */
	/* the node of every CPU, for counts by node (stall_by_node) */
	const uint16_t *cpu_node;
	int nr_cpus;
	uint64_t node[BWAPD_MAX_NODES][STALL_NR_EVENTS];
	int nr;
	struct stall_thread thread[STALL_MAX_THREADS];
};

/*
 * Find the events and open them on every thread of pid.  Returns 0 when
 * the stall event counts; -EOPNOTSUPP (no PMU for it) or -EACCES (not
 * allowed) with a reason otherwise; the other events are best effort.
 */
int stall_open(struct stall *s, pid_t pid, char *why, size_t len);
/*
 * The same with the events given: attr[k] where have[k] (the stall
 * event, attr[0], must be there).  Tests use software events.
 */
int stall_open_events(struct stall *s, pid_t pid,
		      const struct perf_event_attr *attr, const int *have,
		      char *why, size_t len);
/*
 * Pick up threads created since (at most every scan_s seconds); read the
 * cumulative counts, each group scaled by its time enabled / running.
 * -EMFILE etc. with s->why when a new thread's group cannot be opened.
 */
int stall_read(struct stall *s, struct bwapd_counters *c);
/*
 * Count by node too: every read adds what each thread counted since the
 * last one to the node of the CPU it last ran on, cpu_node[cpu]
 * (BWAPD_NO_NODE: none; the array must outlive s), as
 * /proc/PID/task/TID/stat said at the last rescan (and at this call).  A
 * thread that moved since is counted where it was.
 */
void stall_by_node(struct stall *s, const uint16_t *cpu_node, int nr_cpus);
void stall_close(struct stall *s);

#endif /* BWAPD_STALL_H */
