// SPDX-License-Identifier: GPL-2.0
/*
 * Access samples of a process: the page faults of its threads, read from
 * one perf ring buffer per thread, and the soft-dirty reset that makes
 * the next write to every page fault again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sample.h"

/* Does this kernel keep soft-dirty bits?  Our own fresh mappings say. */
static int have_soft_dirty(void)
{
	char *line = NULL;
	size_t cap = 0;
	int yes = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	while (!yes && getline(&line, &cap, f) > 0)
		if (!strncmp(line, "VmFlags:", 8) && strstr(line, " sd "))
			yes = 1;
	free(line);
	fclose(f);
	return yes;
}

static int open_thread(struct sampler *s, pid_t tid)
{
	struct sampler_thread *th = &s->thread[s->nr];
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	/*
	 * the application's own faults: what it touches.  Faults taken in
	 * the kernel (copy_to_user) would take CAP_PERFMON from
	 * kernel.perf_event_paranoid 2, upstream's default, on.
	 */
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU;
	if (!s->untimed) {
		a.sample_type |= PERF_SAMPLE_TIME;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
	}
	a.wakeup_events = 1 << 30;	/* nobody waits: rings are polled */
	fd = syscall(SYS_perf_event_open, &a, tid, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && !s->untimed && !s->nr) {
		/* a kernel without sample clocks: samples without times */
		s->untimed = 1;
		return open_thread(s, tid);
	}
	if (fd < 0)
		return -errno;
	th->ring = mmap(NULL, s->ring_bytes, PROT_READ | PROT_WRITE,
			MAP_SHARED, (int)fd, 0);
	if (th->ring == MAP_FAILED) {
		int err = errno;

		close((int)fd);
		return -err;
	}
	th->tid = tid;
	th->fd = (int)fd;
	s->nr++;
	return 0;
}

int sampler_scan(struct sampler *s, char *why, size_t len)
{
	char path[64];
	struct dirent *de;
	int ret = 0, k;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
	d = opendir(path);
	if (!d) {
		ret = errno == ENOENT ? -ESRCH : -errno;
		snprintf(why, len, "%s: %s", path, strerror(-ret));
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0)
			continue;
		for (k = 0; k < s->nr && s->thread[k].tid != tid; k++)
			;
		if (k < s->nr)
			continue;
		if (s->nr == SAMPLER_MAX_THREADS) {
			snprintf(why, len, "process %d has more than %d threads",
				 (int)s->pid, SAMPLER_MAX_THREADS);
			ret = -ENOSPC;
			break;
		}
		ret = open_thread(s, tid);
		if (ret == -ESRCH || ret == -ENOENT)
			ret = 0;		/* it exited meanwhile */
		else if (ret)
			snprintf(why, len, "perf_event_open (page faults) on "
				 "thread %d of process %d: %s", (int)tid,
				 (int)s->pid, strerror(-ret));
	}
	closedir(d);
	return ret;
}

int sampler_open(struct sampler *s, pid_t pid, int *soft_dirty, char *why,
		 size_t len)
{
	char path[64];
	int ret;

	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->clear_fd = -1;
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	s->ring_bytes = s->page * (1 + SAMPLER_RING_PAGES);
	ret = sampler_scan(s, why, len);
	if (ret) {
		sampler_close(s);
		return ret;
	}
	*soft_dirty = 0;
	if (!have_soft_dirty()) {
		snprintf(why, len, "this kernel keeps no soft-dirty bits "
			 "(CONFIG_MEM_SOFT_DIRTY)");
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/clear_refs", (int)pid);
	s->clear_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (s->clear_fd < 0)
		snprintf(why, len, "%s: %s", path, strerror(errno));
	else
		*soft_dirty = 1;
	return 0;
}

int sampler_arm(struct sampler *s)
{
	if (s->clear_fd < 0)
		return 0;
	if (pwrite(s->clear_fd, "4", 1, 0) != 1)
		return errno == ESRCH ? -ESRCH : -errno;
	return 0;
}

/* One ring's records, oldest first. */
static long drain_ring(struct sampler *s, struct sampler_thread *th,
		       void (*fn)(void *arg, const struct access_sample *a),
		       void *arg)
{
	struct perf_event_mmap_page *mp = th->ring;
	const unsigned char *data = (const unsigned char *)th->ring + s->page;
	uint64_t size = s->ring_bytes - s->page, head, tail;
	long n = 0;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail < head) {
		unsigned char rec[64];
		struct perf_event_header h;
		uint64_t i;

		for (i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (h.size <= sizeof(rec)) {
			for (i = 0; i < h.size; i++)
				rec[i] = data[(tail + i) % size];
			if (h.type == PERF_RECORD_SAMPLE &&
			    h.size >= (s->untimed ? 32 : 40)) {
				struct access_sample a = { 0 };
				size_t at = 16;
				uint32_t u32[2];

				/* pid, tid; time; addr; cpu, res */
				memcpy(u32, rec + 8, 8);
				a.tid = (pid_t)u32[1];
				if (!s->untimed) {
					memcpy(&a.time, rec + at, 8);
					at += 8;
				}
				memcpy(&a.addr, rec + at, 8);
				memcpy(u32, rec + at + 8, 8);
				a.cpu = (int)u32[0];
				fn(arg, &a);
				n++;
			} else if (h.type == PERF_RECORD_LOST && h.size >= 24) {
				uint64_t lost;

				memcpy(&lost, rec + 16, 8);
				s->lost += lost;
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

long sampler_drain(struct sampler *s,
		   void (*fn)(void *arg, const struct access_sample *a),
		   void *arg)
{
	long n = 0;
	int k;

	for (k = 0; k < s->nr; k++)
		n += drain_ring(s, &s->thread[k], fn, arg);
	return n;
}

void sampler_close(struct sampler *s)
{
	int k;

	for (k = 0; k < s->nr; k++) {
		munmap(s->thread[k].ring, s->ring_bytes);
		close(s->thread[k].fd);
	}
	s->nr = 0;
	if (s->clear_fd >= 0)
		close(s->clear_fd);
	s->clear_fd = -1;
}
