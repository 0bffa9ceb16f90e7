/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's threads as /proc/PID/task tells them: their CPU time,
 * their state and the CPU each last ran on.
 */
#ifndef BWAPD_THREADS_H
#define BWAPD_THREADS_H

#include <sys/types.h>

struct bwapd_thread {
	pid_t tid;
	long ticks;			/* user and system time, clock ticks */
	char state;			/* R, S, D, ... */
	int cpu;			/* the CPU it last ran on */
};

/* Thread tid of pid now; -ESRCH once it is gone. */
int bwapd_thread_read(pid_t pid, pid_t tid, struct bwapd_thread *t);
/* Up to max threads of pid; how many, or -ESRCH once it is gone. */
int bwapd_process_threads(pid_t pid, struct bwapd_thread *t, int max);

#endif /* BWAPD_THREADS_H */
