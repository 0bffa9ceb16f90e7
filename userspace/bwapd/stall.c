// SPDX-License-Identifier: GPL-2.0
/*
 * Counters of a running process for the DWP tuner: stalled cycles,
 * cycles, instructions and last-level cache misses of all its threads,
 * with perf_event_open on each thread (threads created later are picked
 * up at the next read; a thread that exits keeps its final counts).
 *
 * The stall event is named, not encoded here: libpfm4 turns the name into
 * the perf_event_attr of the CPU it runs on, and the first name the CPU
 * knows wins.  Intel: CYCLE_ACTIVITY:STALLS_TOTAL (Skylake and later),
 * RESOURCE_STALLS:ANY (earlier cores); AMD: DISPATCH_STALLS_1:BE_STALLS
 * (Zen 4), the load and store queue stalls of
 * DISPATCH_RESOURCE_STALL_CYCLES_1 (Zen 2 and 3); then the kernel's
 * generic stalled-cycles-backend event where the CPU driver maps it.
 * The other three are the kernel's generic hardware events.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stall.h"

static const char *const stall_names[] = {
	"CYCLE_ACTIVITY:STALLS_TOTAL",
	"RESOURCE_STALLS:ANY",
	"DISPATCH_STALLS_1:BE_STALLS",
	"DISPATCH_RESOURCE_STALL_CYCLES_1:LOAD_QUEUE_RSRC_STALL:STORE_QUEUE_RSRC_STALL",
};

static const uint64_t generic[STALL_NR_EVENTS] = {
	[STALL_EV_STALLS] = PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	[STALL_EV_CYCLES] = PERF_COUNT_HW_CPU_CYCLES,
	[STALL_EV_INSNS] = PERF_COUNT_HW_INSTRUCTIONS,
	[STALL_EV_MISSES] = PERF_COUNT_HW_CACHE_MISSES,
};

static long perf_open(struct perf_event_attr *a, pid_t tid)
{
	return syscall(SYS_perf_event_open, a, tid, -1, -1, 0UL);
}

static void attr_init(struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* Is the event countable on this thread?  -errno if not. */
static int try_event(struct perf_event_attr *a, pid_t tid)
{
	long fd;

	attr_init(a);
	fd = perf_open(a, tid);
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

static int find_stall_event(struct stall *s, struct perf_event_attr *a)
{
	unsigned int i;
	int ret = -EOPNOTSUPP;

	if (pfm_initialize() == PFM_SUCCESS) {
		for (i = 0; i < sizeof(stall_names) / sizeof(stall_names[0]); i++) {
			pfm_perf_encode_arg_t arg;

			memset(a, 0, sizeof(*a));
			memset(&arg, 0, sizeof(arg));
			arg.attr = a;
			arg.size = sizeof(arg);
			if (pfm_get_os_event_encoding(stall_names[i], PFM_PLM3,
						      PFM_OS_PERF_EVENT,
						      &arg) != PFM_SUCCESS)
				continue;
			ret = try_event(a, s->pid);
			if (!ret) {
				snprintf(s->stall_event, sizeof(s->stall_event),
					 "%s", stall_names[i]);
				return 0;
			}
		}
	}
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_HARDWARE;
	a->config = generic[STALL_EV_STALLS];
	if (try_event(a, s->pid) == 0) {
		snprintf(s->stall_event, sizeof(s->stall_event),
			 "stalled-cycles-backend");
		return 0;
	}
	return ret == -EACCES || ret == -EPERM || errno == EACCES ||
	       errno == EPERM ? -EACCES : -EOPNOTSUPP;
}

static int add_thread(struct stall *s, pid_t tid)
{
	struct stall_thread *th;
	int k;

	for (k = 0; k < s->nr; k++)
		if (s->thread[k].tid == tid)
			return 0;
	if (s->nr == STALL_MAX_THREADS)
		return -ENOSPC;
	th = &s->thread[s->nr];
	th->tid = tid;
	for (k = 0; k < STALL_NR_EVENTS; k++) {
		long fd = -1;

		if (s->have[k])
			fd = perf_open(&s->attr[k], tid);
		th->fd[k] = fd < 0 ? -1 : (int)fd;
	}
	s->nr++;
	return 0;
}

static int scan_threads(struct stall *s)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			add_thread(s, (pid_t)atoi(de->d_name));
	closedir(d);
	return 0;
}

int stall_open(struct stall *s, pid_t pid, char *why, size_t len)
{
	int k, ret;

	memset(s, 0, sizeof(*s));
	s->pid = pid;
	ret = find_stall_event(s, &s->attr[STALL_EV_STALLS]);
	if (ret == -EACCES) {
		char buf[16] = "?";
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				snprintf(buf, sizeof(buf), "?");
			buf[strcspn(buf, "\n")] = 0;
			fclose(f);
		}
		snprintf(why, len,
			 "perf_event_open on process %d: not allowed: counting another "
			 "user's process needs CAP_PERFMON (or CAP_SYS_ADMIN); "
			 "kernel.perf_event_paranoid is %s", (int)pid, buf);
		return ret;
	}
	if (ret) {
		snprintf(why, len,
			 "no stalled-cycles counter: the CPU's PMU has none of %s, "
			 "RESOURCE_STALLS, DISPATCH stalls or stalled-cycles-backend "
			 "(no PMU at all in most virtual machines)",
			 stall_names[0]);
		return ret;
	}
	s->have[STALL_EV_STALLS] = 1;
	for (k = STALL_EV_CYCLES; k < STALL_NR_EVENTS; k++) {
		memset(&s->attr[k], 0, sizeof(s->attr[k]));
		s->attr[k].type = PERF_TYPE_HARDWARE;
		s->attr[k].config = generic[k];
		s->have[k] = !try_event(&s->attr[k], pid);
	}
	attr_init(&s->attr[STALL_EV_STALLS]);
	ret = scan_threads(s);
	if (ret) {
		snprintf(why, len, "process %d: %s", (int)pid, strerror(-ret));
		stall_close(s);
	}
	return ret;
}

/* Scaled for multiplexing: count x enabled / running. */
static uint64_t read_scaled(int fd)
{
	uint64_t v[3];

	if (fd < 0 || read(fd, v, sizeof(v)) != sizeof(v) || !v[2])
		return 0;
	return v[2] == v[1] ? v[0] :
	       (uint64_t)((double)v[0] * (double)v[1] / (double)v[2]);
}

int stall_read(struct stall *s, struct bwapd_counters *c)
{
	uint64_t sum[STALL_NR_EVENTS] = { 0 };
	int i, k, ret;

	ret = scan_threads(s);
	if (ret)
		return ret;
	for (i = 0; i < s->nr; i++)
		for (k = 0; k < STALL_NR_EVENTS; k++)
			sum[k] += read_scaled(s->thread[i].fd[k]);
	c->stall_cycles = sum[STALL_EV_STALLS];
	c->cycles = sum[STALL_EV_CYCLES];
	c->instructions = sum[STALL_EV_INSNS];
	c->mem_accesses = sum[STALL_EV_MISSES];
	c->have = BWAPD_HAVE_STALLS;
	if (s->have[STALL_EV_INSNS] && s->have[STALL_EV_MISSES])
		c->have |= BWAPD_HAVE_MAPI;
	return 0;
}

void stall_close(struct stall *s)
{
	int i, k;

	for (i = 0; i < s->nr; i++)
		for (k = 0; k < STALL_NR_EVENTS; k++)
			if (s->thread[i].fd[k] >= 0)
				close(s->thread[i].fd[k]);
	s->nr = 0;
}
