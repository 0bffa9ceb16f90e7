/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Access samples of a process (sample.c): which thread, on which CPU,
 * touched which address.  Every page fault of its threads is a sample
 * (the software page-fault event of perf_event_open(2), with
 * PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU,
 * the time on CLOCK_MONOTONIC); faults come
 * from first touches, from the write faults that follow a clear of the
 * soft-dirty bits (writing 4 to /proc/PID/clear_refs write-protects every
 * page of the process), and from NUMA balancing's hinting faults when it
 * runs.  Documentation/bwapd.md says what each can and cannot see.
 */
#ifndef BWAPD_SAMPLE_H
#define BWAPD_SAMPLE_H

#include <stdint.h>
#include <sys/types.h>

#define SAMPLER_MAX_THREADS	1024
/* Ring buffer of each thread: 1 + 2^n pages. */
#define SAMPLER_RING_PAGES	64

struct access_sample {
	pid_t tid;
	int cpu;
	uint64_t addr;
	uint64_t time;			/* CLOCK_MONOTONIC, ns; 0: not known */
};

struct sampler_thread {
	pid_t tid;
	int fd;
	void *ring;
};

struct sampler {
	pid_t pid;
	int clear_fd;			/* /proc/PID/clear_refs; -1: none */
	size_t page, ring_bytes;
	uint64_t lost;			/* samples the rings dropped */
	int untimed;			/* the kernel gave no sample times */
	int nr;
	struct sampler_thread thread[SAMPLER_MAX_THREADS];
};

/*
 * Open the page-fault sampling on every thread of pid (threads that
 * start later: sampler_scan), and its soft-dirty reset when the kernel
 * has one (soft_dirty set to 1, else 0 with the reason in why).  0, or
 * -errno with the reason in why.
 */
int sampler_open(struct sampler *s, pid_t pid, int *soft_dirty, char *why,
		 size_t len);
/* Pick up the threads created since. */
int sampler_scan(struct sampler *s, char *why, size_t len);
/* Clear the soft-dirty bits: the next write to every page faults. */
int sampler_arm(struct sampler *s);
/* Every sample in the rings, to fn; returns how many, or -errno. */
long sampler_drain(struct sampler *s,
		   void (*fn)(void *arg, const struct access_sample *a),
		   void *arg);
void sampler_close(struct sampler *s);

#endif /* BWAPD_SAMPLE_H */
