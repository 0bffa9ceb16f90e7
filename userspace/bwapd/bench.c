// SPDX-License-Identifier: GPL-2.0
/*
 * The canonical tuner's benchmark: threads pinned to every CPU of the
 * worker nodes stream reads over a shared array whose pages are
 * interleaved uniformly over all memory nodes (mbind MPOL_INTERLEAVE).
 * Each thread walks NR_STREAMS pages at once, each line by line from
 * its second line to its last, then a new page picked at random: the
 * order a streaming application reads in, which the cores' prefetchers
 * follow within a page, keeping many lines in flight; random lines
 * alone would keep only what a core's miss buffers hold, too few to
 * fill a wide route (an HBM node, a CXL link at a far latency).
 *
 * A thread that reads all nodes at once asks every node for the same
 * number of lines, so every controller would serve the same traffic
 * whatever its bandwidth.  The run is therefore split into one phase per
 * memory node: in phase i every thread reads only the array's pages on
 * node i (move_pages tells which), so node i's counters and the threads'
 * own counts show what node i delivers to each worker.
 *
 * bwapd profile's model of the machine runs it on several routes at once
 * (bench_flows): the threads of each CPU node stream loads or stores over
 * the pages of the nodes their flow names, and one of them chases
 * pointers there, one load in flight, which times the latency that
 * traffic leaves.  The chase follows a random cycle through the pages of
 * each node (a pointer in the first line of every page); streams never
 * touch that line.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
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
#define MB_PER_NODE	64UL		/* at least, per memory node */
#define L3_TIMES	4		/* the array: 4 x all L3 caches */
#define MEM_SHARE	4		/* at most 1/4 of a node's memory */
#define MPOL_INTERLEAVE_MODE	3	/* uapi/linux/mempolicy.h */
#define NR_STREAMS	4		/* pages a thread walks at once */

/* A page walked line by line; line 0: a new page is due. */
struct stream {
	char *page;
	unsigned int line;
};

struct bench_thread {
	struct bench *b;
	pthread_t tid;
	int cpu, node, started;
	int lead;				/* its node's first thread */
	uint64_t lines[BWAPD_MAX_NODES];
	uint64_t sink;
	struct stream st[NR_STREAMS];
	/* flows: lines moved and pages chased, and the phase last seen over */
	atomic_ullong flow_lines, chased;
	atomic_int done;
};

/* The phase in which every thread follows its node's flow. */
#define PHASE_FLOWS	BWAPD_MAX_NODES

struct bench_flow {
	uint32_t mem;				/* 0: the node's threads idle */
	int write, chase;
};

struct bench {
	char *mem;
	size_t pages;
	uint32_t *list[BWAPD_MAX_NODES];	/* page numbers on each node */
	size_t nr_list[BWAPD_MAX_NODES];
	atomic_int phase;			/* the node read; -1 idle */
	atomic_int stop;
	atomic_int gen;				/* phases of flows so far */
	struct bench_flow flow[BWAPD_MAX_NODES];	/* per CPU node */
	double busy[BWAPD_MAX_NODES];
	int node_threads[BWAPD_MAX_NODES];
	int nr_threads;
	struct bench_thread *th;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * The next line of stream s, over the pages of nodes[0..nr-1] (a new page
 * of a node picked at random when the last one is done); never a page's
 * first line, which holds the chase's pointer.
 */
static char *stream_next(struct bench *b, const int *nodes, int nr,
			 struct stream *s, uint64_t *x)
{
	if (!s->line || s->line >= PAGE / LINE) {
		int node = nodes[xorshift(x) % (uint64_t)nr];
		size_t pg = b->list[node][(xorshift(x) >> 8) % b->nr_list[node]];

		s->page = b->mem + pg * PAGE;
		s->line = 1;
	}
	return s->page + (size_t)s->line++ * LINE;
}

/* Every stream starts a new page: the nodes they walk have changed. */
static void streams_reset(struct bench_thread *th)
{
	int k;

	for (k = 0; k < NR_STREAMS; k++)
		th->st[k].line = 0;
}

/*
 * One batch of the thread's flow.  A chasing flow: its node's first thread
 * follows the pointers, the others idle.  A streaming flow: loads or
 * stores of the streams' lines over the flow's nodes' pages; where the
 * node has more than one thread, its first one chases instead, which
 * times the latency under the others' traffic.
 */
static void flow_batch(struct bench_thread *th, uint64_t *x, uint64_t *sum,
		       char **chase)
{
	struct bench *b = th->b;
	const struct bench_flow *f = &b->flow[th->node];
	int nodes[BWAPD_MAX_NODES], nr = 0, k;

	for (k = 0; k < BWAPD_MAX_NODES; k++)
		if (f->mem & (1u << k) && b->nr_list[k])
			nodes[nr++] = k;
	if (!nr || (f->chase && !th->lead))
		return;
	if (th->lead && (f->chase || b->node_threads[th->node] > 1)) {
		char *p = *chase;

		if (!p)
			p = b->mem + (size_t)b->list[nodes[0]][0] * PAGE;
		for (k = 0; k < BATCH; k++)
			p = *(char *volatile *)p;
		*chase = p;
		atomic_fetch_add_explicit(&th->chased, BATCH,
					  memory_order_relaxed);
		return;
	}
	for (k = 0; k < BATCH; k++) {
		char *line = stream_next(b, nodes, nr,
					 &th->st[k % NR_STREAMS], x);

		if (f->write)
			*(volatile uint64_t *)line = *x;
		else
			*sum += *(volatile uint64_t *)line;
	}
	atomic_fetch_add_explicit(&th->flow_lines, BATCH, memory_order_relaxed);
}

static void *reader(void *arg)
{
	struct bench_thread *th = arg;
	struct bench *b = th->b;
	uint64_t x = 0x9e3779b97f4a7c15ULL ^ (uint64_t)th->cpu, sum = 0;
	char *chase = NULL;
	int last = -1;

	while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
		int ph = atomic_load_explicit(&b->phase, memory_order_acquire);
		int k;

		if (ph != last) {
			streams_reset(th);
			last = ph;
		}
		if (ph < 0) {
			struct timespec ts = { 0, 1000000 };

			atomic_store_explicit(&th->done,
					      atomic_load(&b->gen),
					      memory_order_release);
			chase = NULL;
			nanosleep(&ts, NULL);
			continue;
		}
		if (ph == PHASE_FLOWS) {
			flow_batch(th, &x, &sum, &chase);
			continue;
		}
		for (k = 0; k < BATCH; k++)
			sum += *(volatile uint64_t *)
				stream_next(b, &ph, 1, &th->st[k % NR_STREAMS], &x);
		th->lines[ph] += BATCH;
	}
	th->sink = sum;
	return NULL;
}

/* The chase's cycle through node's pages, in a random order. */
static void chain(struct bench *b, int node)
{
	size_t n = b->nr_list[node], i;
	uint32_t *order = malloc(n * sizeof(*order));
	uint64_t x = 0x2545f4914f6cdd1dULL + (uint64_t)node;

	if (!order || !n) {
		free(order);
		return;
	}
	memcpy(order, b->list[node], n * sizeof(*order));
	for (i = n - 1; i > 0; i--) {
		size_t j = xorshift(&x) % (i + 1);
		uint32_t v = order[i];

		order[i] = order[j];
		order[j] = v;
	}
	for (i = 0; i < n; i++)
		*(char **)(b->mem + (size_t)order[i] * PAGE) =
			b->mem + (size_t)order[(i + 1) % n] * PAGE;
	/* the chase starts at the first page listed: it is on the cycle */
	free(order);
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
		if ((t->mem_nodes & (1u << i)) && !b->nr_list[i]) {
			ret = -ENOMEM;	/* the node had no free page */
			goto out;
		}
	for (i = 0; i < t->nr_nodes; i++)
		chain(b, i);
out:
	free(addr);
	free(status);
	return ret;
}

/* Sum of the L3 caches below root, each counted once; 0 if unknown. */
static uint64_t l3_bytes(const char *root, const struct bwapd_topology *t)
{
	char seen[64][64], path[128], buf[64];
	int nr = 0, cpu, idx, k;
	uint64_t sum = 0;

	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		for (idx = 0; idx < 8; idx++) {
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/cache/index%d/level",
				 cpu, idx);
			if (bwapd_read_text(root, path, buf, sizeof(buf)))
				break;
			if (atoi(buf) != 3)
				continue;
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
				 cpu, idx);
			if (bwapd_read_text(root, path, buf, sizeof(buf)))
				continue;
			for (k = 0; k < nr && strcmp(seen[k], buf); k++)
				;
			if (k < nr || nr == 64)
				continue;
			snprintf(seen[nr++], sizeof(seen[0]), "%s", buf);
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/cache/index%d/size",
				 cpu, idx);
			if (!bwapd_read_text(root, path, buf, sizeof(buf)))
				sum += strtoull(buf, NULL, 10) << 10;	/* "32768K" */
		}
	}
	return sum;
}

size_t bench_array_bytes(const char *root, const struct bwapd_topology *t)
{
	int nr_mem = __builtin_popcount(t->mem_nodes), i;
	uint64_t want = L3_TIMES * l3_bytes(root, t), least, most = UINT64_MAX;

	least = (MB_PER_NODE << 20) * (uint64_t)nr_mem;
	if (want < least)
		want = least;
	for (i = 0; i < t->nr_nodes; i++)
		if ((t->mem_nodes & (1u << i)) &&
		    t->node[i].mem_bytes / MEM_SHARE * (uint64_t)nr_mem < most)
			most = t->node[i].mem_bytes / MEM_SHARE * (uint64_t)nr_mem;
	if (want > most)
		want = most;
	return (size_t)(want / PAGE * PAGE);
}

int bench_start(const struct bwapd_topology *t, uint32_t workers,
		size_t bytes, struct bench **out)
{
	struct bench *b;
	int cpu, ret, nr_mem = __builtin_popcount(t->mem_nodes);

	if (!workers || (workers & t->cpu_nodes) != workers || !nr_mem ||
	    bytes < PAGE)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	atomic_init(&b->phase, -1);
	atomic_init(&b->stop, 0);
	atomic_init(&b->gen, 0);
	b->pages = bytes / PAGE;
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
		th->lead = !b->node_threads[th->node]++;
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
	*out = b;
	return 0;
}

int bench_run(struct bench *b, int node, double seconds)
{
	struct timespec ts;
	double t0;

	if (node < 0 || node >= BWAPD_MAX_NODES || !b->nr_list[node] ||
	    !(seconds > 0))
		return -EINVAL;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	t0 = now_s();
	atomic_store(&b->phase, node);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	atomic_store(&b->phase, -1);
	b->busy[node] += now_s() - t0;
	return 0;
}

/* Until every thread has seen the end of phase gen. */
static void wait_idle(struct bench *b, int gen)
{
	struct timespec ts = { 0, 200000 };
	int i;

	for (i = 0; i < b->nr_threads; i++)
		while (atomic_load_explicit(&b->th[i].done,
					    memory_order_acquire) < gen)
			nanosleep(&ts, NULL);
}

int bench_flows(struct bench *b, const struct bwm_flow *f, int nf,
		double seconds, struct bwm_flow_result *r)
{
	uint64_t lines[BWAPD_MAX_NODES] = { 0 }, chased[BWAPD_MAX_NODES] = { 0 };
	struct timespec ts;
	double t0, dt;
	int i, k, gen;

	if (nf < 1 || nf > BWAPD_MAX_NODES || !(seconds > 0))
		return -EINVAL;
	memset(b->flow, 0, sizeof(b->flow));
	for (i = 0; i < nf; i++) {
		if (f[i].cpu < 0 || f[i].cpu >= BWAPD_MAX_NODES ||
		    !b->node_threads[f[i].cpu] || b->flow[f[i].cpu].mem || !f[i].mem)
			return -EINVAL;
		for (k = 0; k < BWAPD_MAX_NODES; k++)
			if ((f[i].mem & (1u << k)) && !b->nr_list[k])
				return -EINVAL;
		b->flow[f[i].cpu].mem = f[i].mem;
		b->flow[f[i].cpu].write = f[i].write;
		b->flow[f[i].cpu].chase = f[i].chase;
	}
	for (i = 0; i < b->nr_threads; i++) {
		atomic_store(&b->th[i].flow_lines, 0);
		atomic_store(&b->th[i].chased, 0);
	}
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	t0 = now_s();
	atomic_store_explicit(&b->phase, PHASE_FLOWS, memory_order_release);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	gen = atomic_fetch_add(&b->gen, 1) + 1;
	atomic_store_explicit(&b->phase, -1, memory_order_release);
	dt = now_s() - t0;
	wait_idle(b, gen);
	for (i = 0; i < b->nr_threads; i++) {
		lines[b->th[i].node] += atomic_load(&b->th[i].flow_lines);
		chased[b->th[i].node] += atomic_load(&b->th[i].chased);
	}
	for (i = 0; i < nf; i++) {
		int c = f[i].cpu;

		r[i].gbps = (double)(f[i].chase ? chased[c] : lines[c]) * LINE /
			    dt / 1e9;
		/* without a chasing thread the latency is not known: 0 */
		r[i].latency_ns = chased[c] ? dt * 1e9 / (double)chased[c] : 0;
	}
	return 0;
}

int bench_stop(struct bench *b, struct bwapd_bench_result *r)
{
	int i, j;

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
