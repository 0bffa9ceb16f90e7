// SPDX-License-Identifier: GPL-2.0
/*
 * Counters of a running process for the DWP tuner: stalled cycles,
 * cycles, instructions and last-level cache misses of all its threads.
 * Each thread gets one event group (the stall event leads), so the four
 * are scheduled together and multiplexed together: their ratios hold,
 * and the group's time enabled / running scales all of them.  Threads
 * created later are picked up by a rescan of /proc/PID/task at most every
 * STALL_SCAN_S; a thread that exits keeps its final counts.  By node
 * (stall_by_node), what a thread counted between two reads goes to the
 * node of the CPU it last ran on, looked up at every rescan (reading a
 * stat file per thread at every read would cost more than the reads):
 * the threads of a node that waits for its memory more than the others
 * show apart from them.
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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "stall.h"
#include "threads.h"

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

static long perf_open(struct perf_event_attr *a, pid_t tid, int group)
{
	return syscall(SYS_perf_event_open, a, tid, -1, group, 0UL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void attr_init(struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* Is the event countable on this thread?  -errno if not. */
static int try_event(struct perf_event_attr *a, pid_t tid)
{
	long fd;

	attr_init(a);
	fd = perf_open(a, tid, -1);
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

static void close_group(struct stall_thread *th)
{
	int k;

	for (k = STALL_NR_EVENTS - 1; k >= 0; k--)
		if (th->fd[k] >= 0) {
			close(th->fd[k]);
			th->fd[k] = -1;
		}
}

/* The thread's group: the stall event leads, the others follow. */
static int open_group(struct stall *s, struct stall_thread *th, pid_t tid)
{
	int k;

	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->node = -1;
	for (k = 0; k < STALL_NR_EVENTS; k++)
		th->fd[k] = -1;
	for (k = 0; k < STALL_NR_EVENTS; k++) {
		long fd;

		if (!s->have[k])
			continue;
		fd = perf_open(&s->attr[k], tid, k ? th->fd[0] : -1);
		if (fd < 0) {
			int err = errno;

			close_group(th);
			return -err;
		}
		th->fd[k] = (int)fd;
	}
	return 0;
}

static int add_thread(struct stall *s, pid_t tid)
{
	int k, ret;

	for (k = 0; k < s->nr; k++)
		if (s->thread[k].tid == tid)
			return 0;
	if (s->nr == STALL_MAX_THREADS) {
		snprintf(s->why, sizeof(s->why),
			 "process %d has more than %d threads", (int)s->pid,
			 STALL_MAX_THREADS);
		return -ENOSPC;
	}
	ret = open_group(s, &s->thread[s->nr], tid);
	if (ret == -ESRCH || ret == -ENOENT)
		return 0;	/* the thread exited meanwhile */
	if (ret) {
		snprintf(s->why, sizeof(s->why),
			 "perf_event_open on thread %d of process %d: %s (%d "
			 "threads counted, %d file descriptors each)", (int)tid,
			 (int)s->pid, strerror(-ret), s->nr, STALL_NR_EVENTS);
		return ret;
	}
	s->nr++;
	return 0;
}

/*
 * The node of the CPU every thread last ran on; a thread gone, or not
 * seen on a CPU with a node, keeps the one it had.
 */
static void find_nodes(struct stall *s)
{
	struct bwapd_thread now;
	int i;

	for (i = 0; s->cpu_node && i < s->nr; i++) {
		struct stall_thread *th = &s->thread[i];

		if (!bwapd_thread_read(s->pid, th->tid, &now) && now.cpu >= 0 &&
		    now.cpu < s->nr_cpus && s->cpu_node[now.cpu] < BWAPD_MAX_NODES)
			th->node = s->cpu_node[now.cpu];
	}
}

static int scan_threads(struct stall *s)
{
	char path[64];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
	d = opendir(path);
	if (!d) {
		ret = errno;
		snprintf(s->why, sizeof(s->why), "%s: %s (%d threads counted, "
			 "%d file descriptors each)", path, strerror(ret),
			 s->nr, STALL_NR_EVENTS);
		return ret == ENOENT ? -ESRCH : -ret;
	}
	while (!ret && (de = readdir(d)))
		if (de->d_name[0] != '.')
			ret = add_thread(s, (pid_t)atoi(de->d_name));
	closedir(d);
	find_nodes(s);
	s->scans++;
	s->last_scan = now_s();
	return ret;
}

/* Members the PMU cannot schedule with the leader are left out. */
static void fit_group(struct stall *s)
{
	struct stall_thread th;
	int k;

	for (k = STALL_EV_CYCLES; k < STALL_NR_EVENTS; k++) {
		if (!s->have[k])
			continue;
		if (open_group(s, &th, s->pid))
			s->have[k] = 0;
		else
			close_group(&th);
	}
}

/* As many descriptors as the hard limit allows (a group per thread). */
static void raise_fd_limit(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

int stall_open_events(struct stall *s, pid_t pid,
		      const struct perf_event_attr *attr, const int *have,
		      char *why, size_t len)
{
	int k, ret;

	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->scan_s = STALL_SCAN_S;
	if (!have[STALL_EV_STALLS])
		return -EINVAL;
	for (k = 0; k < STALL_NR_EVENTS; k++) {
		s->attr[k] = attr[k];
		attr_init(&s->attr[k]);
		s->have[k] = have[k];
	}
	raise_fd_limit();
	fit_group(s);
	ret = scan_threads(s);
	if (ret) {
		snprintf(why, len, "%s", s->why[0] ? s->why : strerror(-ret));
		stall_close(s);
	}
	return ret;
}

int stall_open(struct stall *s, pid_t pid, char *why, size_t len)
{
	struct perf_event_attr attr[STALL_NR_EVENTS];
	int have[STALL_NR_EVENTS] = { 1 }, k, ret;
	char name[sizeof(s->stall_event)];

	memset(attr, 0, sizeof(attr));
	s->pid = pid;
	ret = find_stall_event(s, &attr[STALL_EV_STALLS]);
	if (ret == -EACCES) {
		char what[64];

		snprintf(what, sizeof(what), "perf_event_open on process %d: not "
			 "allowed: counting it", (int)pid);
		bwapd_perf_why(why, len, what, bwapd_perf_paranoid(),
			       BWAPD_CAP(CAP_SYS_PTRACE));
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
	for (k = STALL_EV_CYCLES; k < STALL_NR_EVENTS; k++) {
		attr[k].type = PERF_TYPE_HARDWARE;
		attr[k].config = generic[k];
		have[k] = !try_event(&attr[k], pid);
	}
	memcpy(name, s->stall_event, sizeof(name));
	ret = stall_open_events(s, pid, attr, have, why, len);
	memcpy(s->stall_event, name, sizeof(name));
	return ret;
}

/* One group: { nr, time enabled, time running, value[nr] }, scaled. */
static int read_group(const struct stall *s, const struct stall_thread *th,
		      uint64_t val[STALL_NR_EVENTS])
{
	uint64_t v[3 + STALL_NR_EVENTS];
	ssize_t n = read(th->fd[0], v, sizeof(v));
	int k, i = 0;

	if (n < (ssize_t)(3 * sizeof(uint64_t)) ||
	    n < (ssize_t)((3 + v[0]) * sizeof(uint64_t)))
		return -EIO;
	for (k = 0; k < STALL_NR_EVENTS; k++) {
		val[k] = 0;
		if (!s->have[k])
			continue;
		if ((uint64_t)i >= v[0])
			return -EIO;
		if (v[2])
			val[k] = v[2] >= v[1] ? v[3 + i] :
				 (uint64_t)((double)v[3 + i] * (double)v[1] /
					    (double)v[2]);
		i++;
	}
	return 0;
}

/* What thread th counted since the last read goes to its CPU's node. */
static void add_by_node(struct stall *s, struct stall_thread *th,
			const uint64_t val[STALL_NR_EVENTS])
{
	int k;

	for (k = 0; k < STALL_NR_EVENTS; k++) {
		/* scaled counts of a multiplexed group can step back a little */
		if (th->node >= 0 && val[k] > th->last[k])
			s->node[th->node][k] += val[k] - th->last[k];
		if (val[k] > th->last[k])
			th->last[k] = val[k];
	}
}

int stall_read(struct stall *s, struct bwapd_counters *c)
{
	uint64_t sum[STALL_NR_EVENTS] = { 0 }, val[STALL_NR_EVENTS];
	int i, k, ret = 0;

	if (now_s() - s->last_scan >= s->scan_s)
		ret = scan_threads(s);
	for (i = 0; !ret && i < s->nr; i++) {
		ret = read_group(s, &s->thread[i], val);
		for (k = 0; !ret && k < STALL_NR_EVENTS; k++)
			sum[k] += val[k];
		if (!ret && s->cpu_node)
			add_by_node(s, &s->thread[i], val);
	}
	if (ret)
		return ret;
	c->stall_cycles = sum[STALL_EV_STALLS];
	c->cycles = sum[STALL_EV_CYCLES];
	c->instructions = sum[STALL_EV_INSNS];
	c->mem_accesses = sum[STALL_EV_MISSES];
	c->have = BWAPD_HAVE_STALLS;
	if (s->have[STALL_EV_INSNS] && s->have[STALL_EV_MISSES])
		c->have |= BWAPD_HAVE_MAPI;
	if (s->cpu_node && s->have[STALL_EV_INSNS]) {
		for (i = 0; i < BWAPD_MAX_NODES; i++) {
			c->node_stall_cycles[i] = s->node[i][STALL_EV_STALLS];
			c->node_instructions[i] = s->node[i][STALL_EV_INSNS];
		}
		c->have |= BWAPD_HAVE_NODES;
	}
	return 0;
}

void stall_by_node(struct stall *s, const uint16_t *cpu_node, int nr_cpus)
{
	s->cpu_node = cpu_node;
	s->nr_cpus = nr_cpus;
	find_nodes(s);
}

void stall_close(struct stall *s)
{
	int i;

	for (i = 0; i < s->nr; i++)
		close_group(&s->thread[i]);
	s->nr = 0;
}
