// SPDX-License-Identifier: GPL-2.0
/*
 * The canonical tuner's benchmark: threads pinned to every CPU of the
 * worker nodes make random reads of a shared array whose pages are
 * interleaved uniformly over all memory nodes (mbind MPOL_INTERLEAVE).
 *
 * A thread that reads all nodes at once asks every node for the same
 * number of lines, so every controller would serve the same traffic
 * whatever its bandwidth.  The run is therefore split into one phase per
 * memory node: in phase i every thread reads only the array's pages on
 * node i (move_pages tells which), so node i's counters and the threads'
 * own counts show what node i delivers to each worker.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define PAGE		4096UL
#define LINE		64UL
#define BATCH		64
#define MB_PER_NODE	64UL
#define MPOL_INTERLEAVE_MODE	3	/* uapi/linux/mempolicy.h */

struct bench_thread {
	struct bench *b;
	pthread_t tid;
	int cpu, node, started;
	uint64_t lines[BWAPD_MAX_NODES];
	uint64_t sink;
};

struct bench {
	char *mem;
	size_t pages;
	uint32_t *list[BWAPD_MAX_NODES];	/* page numbers on each node */
	size_t nr_list[BWAPD_MAX_NODES];
	int order[BWAPD_MAX_NODES], nr_order;
	atomic_int phase;			/* index into order[]; -1 idle */
	atomic_int stop;
	double phase_s, phase_start, busy[BWAPD_MAX_NODES];
	int nr_threads;
	struct bench_thread *th;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *reader(void *arg)
{
	struct bench_thread *th = arg;
	struct bench *b = th->b;
	uint64_t x = 0x9e3779b97f4a7c15ULL ^ (uint64_t)th->cpu, sum = 0;

	while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
		int ph = atomic_load_explicit(&b->phase, memory_order_relaxed);
		const uint32_t *list;
		size_t n;
		int k;

		if (ph < 0) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
			continue;
		}
		list = b->list[b->order[ph]];
		n = b->nr_list[b->order[ph]];
		for (k = 0; k < BATCH; k++) {
			size_t pg, off;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			pg = list[(x >> 8) % n];
			off = (x & (PAGE / LINE - 1)) * LINE;
			sum += *(volatile uint64_t *)(b->mem + pg * PAGE + off);
		}
		th->lines[b->order[ph]] += BATCH;
	}
	th->sink = sum;
	return NULL;
}

static int place_pages(struct bench *b, const struct bwapd_topology *t)
{
	unsigned long mask = t->mem_nodes;
	void **addr;
	int *status, ret = 0, i;
	size_t p;

	if (syscall(SYS_mbind, b->mem, b->pages * PAGE, MPOL_INTERLEAVE_MODE,
		    &mask, (unsigned long)BWAPD_MAX_NODES + 1, 0))
		return -errno;
	memset(b->mem, 1, b->pages * PAGE);
	addr = calloc(b->pages, sizeof(*addr));
	status = calloc(b->pages, sizeof(*status));
	for (i = 0; addr && status && i < t->nr_nodes; i++) {
		b->list[i] = calloc(b->pages, sizeof(uint32_t));
		if (!b->list[i])
			ret = -ENOMEM;
	}
	if (!addr || !status || ret) {
		ret = -ENOMEM;
		goto out;
	}
	for (p = 0; p < b->pages; p++)
		addr[p] = b->mem + p * PAGE;
	if (syscall(SYS_move_pages, 0, b->pages, addr, NULL, status, 0)) {
		ret = -errno;
		goto out;
	}
	for (p = 0; p < b->pages; p++)
		if (status[p] >= 0 && status[p] < t->nr_nodes)
			b->list[status[p]][b->nr_list[status[p]]++] = (uint32_t)p;
	for (i = 0; i < t->nr_nodes; i++)
		if (t->mem_nodes & (1u << i)) {
			if (!b->nr_list[i]) {
				ret = -ENOMEM;	/* the node had no free page */
				goto out;
			}
			b->order[b->nr_order++] = i;
		}
out:
	free(addr);
	free(status);
	return ret;
}

int bench_start(const struct bwapd_topology *t, uint32_t workers,
		double seconds, struct bench **out)
{
	struct bench *b;
	int cpu, ret, nr_mem = __builtin_popcount(t->mem_nodes);

	if (!workers || (workers & t->cpu_nodes) != workers || !nr_mem ||
	    !(seconds > 0))
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	atomic_init(&b->phase, -1);
	atomic_init(&b->stop, 0);
	b->pages = MB_PER_NODE * (1 << 20) / PAGE * (size_t)nr_mem;
	b->mem = mmap(NULL, b->pages * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->mem == MAP_FAILED) {
		b->mem = NULL;
		bench_destroy(b);
		return -ENOMEM;
	}
	ret = place_pages(b, t);
	b->th = calloc((size_t)t->nr_cpus, sizeof(*b->th));
	if (!ret && !b->th)
		ret = -ENOMEM;
	for (cpu = 0; !ret && cpu < t->nr_cpus; cpu++) {
		struct bench_thread *th = &b->th[b->nr_threads];
		pthread_attr_t attr;
		cpu_set_t set;

		if (t->cpu_node[cpu] == BWAPD_NO_NODE ||
		    !(workers & (1u << t->cpu_node[cpu])))
			continue;
		th->b = b;
		th->cpu = cpu;
		th->node = t->cpu_node[cpu];
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		ret = -pthread_create(&th->tid, &attr, reader, th);
		pthread_attr_destroy(&attr);
		if (!ret) {
			th->started = 1;
			b->nr_threads++;
		}
	}
	if (ret) {
		bench_destroy(b);
		return ret;
	}
	b->phase_s = seconds / b->nr_order;
	b->phase_start = now_s();
	atomic_store(&b->phase, 0);
	*out = b;
	return 0;
}

int bench_wait(struct bench *b, double seconds)
{
	double end = now_s() + seconds;

	for (;;) {
		double now = now_s(), until;
		int ph = atomic_load(&b->phase);
		struct timespec ts;

		if (ph >= 0 && now - b->phase_start >= b->phase_s) {
			b->busy[b->order[ph]] += now - b->phase_start;
			b->phase_start = now;
			atomic_store(&b->phase, ph + 1 < b->nr_order ? ph + 1 : -1);
			continue;
		}
		if (now >= end)
			return 0;
		until = end;
		if (ph >= 0 && b->phase_start + b->phase_s < until)
			until = b->phase_start + b->phase_s;
		ts.tv_sec = (time_t)(until - now);
		ts.tv_nsec = (long)((until - now - ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
}

int bench_stop(struct bench *b, struct bwapd_bench_result *r)
{
	int ph = atomic_load(&b->phase), i, j;

	if (ph >= 0)
		b->busy[b->order[ph]] += now_s() - b->phase_start;
	atomic_store(&b->stop, 1);
	memset(r, 0, sizeof(*r));
	for (i = 0; i < b->nr_threads; i++) {
		pthread_join(b->th[i].tid, NULL);
		b->th[i].started = 0;
		for (j = 0; j < BWAPD_MAX_NODES; j++)
			r->bytes[j][b->th[i].node] += (double)b->th[i].lines[j] * LINE;
	}
	memcpy(r->busy_s, b->busy, sizeof(r->busy_s));
	r->threads = b->nr_threads;
	return 0;
}

void bench_destroy(struct bench *b)
{
	int i;

	atomic_store(&b->stop, 1);
	for (i = 0; b->th && i < b->nr_threads; i++)
		if (b->th[i].started)
			pthread_join(b->th[i].tid, NULL);
	free(b->th);
	for (i = 0; i < BWAPD_MAX_NODES; i++)
		free(b->list[i]);
	if (b->mem)
		munmap(b->mem, b->pages * PAGE);
	free(b);
}
