// SPDX-License-Identifier: GPL-2.0
/*
 * wi_signature CLASS THREADS: THREADS worker threads that write memory
 * over and over, laid out as one of the Oracle Labs paper's synthetic
 * benchmark classes, for bwapd inspect -- COMMAND to fit a signature to:
 *
 *   static        one region, filled by the main thread before the
 *                 workers start, written by every worker;
 *   local         a region per worker, filled by it, written by it;
 *   per-thread    one region, each worker fills its share, every worker
 *                 writes all of it;
 *   interleaved   one region interleaved over the workers' nodes, written
 *                 by every worker;
 *   static+local  both the static region and a region per worker, as
 *                 many pages of each per worker.
 *
 * The workers start working once bwapd has placed them.  bwapd starts the
 * program on one node, lets its threads run anywhere to see which are
 * busy, then places those: the workers spin (busy) until the main thread
 * sees each on the CPUs of one node and not all on the same node (then
 * half a second more; at most 30 s), then each fills what it fills on
 * the node it is on, and when every worker is ready they all write.  The
 * main thread only waits.  Runs until killed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096UL
#define PAGES		64		/* per worker, in each region */
#define MAX_WORKERS	64
#define MPOL_INTERLEAVE	3

enum { STATIC = 1, LOCAL = 2, PER_THREAD = 4, INTERLEAVED = 8 };

static int cls, nr;
static char *shared;
static size_t shared_len;
static int node_of[MAX_WORKERS];
static volatile pid_t tid_of[MAX_WORKERS];
static volatile int go;
static pthread_barrier_t placed, ready;

static void *worker(void *arg)
{
	long id = (long)arg, i;
	unsigned int cpu, node;
	char *own = NULL;
	cpu_set_t set;

	tid_of[id] = (pid_t)syscall(SYS_gettid);
	while (!go)
		;
	/* a new affinity is set before the move: wait to be moved */
	sched_getaffinity(0, sizeof(set), &set);
	while (!CPU_ISSET(sched_getcpu(), &set))
		sched_yield();
	syscall(SYS_getcpu, &cpu, &node, NULL);
	node_of[id] = (int)node;
	pthread_barrier_wait(&placed);
	if (cls & LOCAL) {
		own = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (own == MAP_FAILED)
			exit(1);
		madvise(own, PAGES * PAGE, MADV_NOHUGEPAGE);
		memset(own, 1, PAGES * PAGE);
	}
	if (cls & PER_THREAD)
		memset(shared + id * PAGES * PAGE, 1, PAGES * PAGE);
	pthread_barrier_wait(&ready);
	for (;;) {
		for (i = 0; own && i < PAGES; i++)
			own[i * PAGE + 64]++;
		for (i = 0; shared && i < (long)(shared_len / PAGE); i++)
			__atomic_fetch_add(&shared[i * PAGE + 64 * (1 + id % 32)],
					   1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Each node's CPUs (sysfs), read once: polling stays cheap. */
static cpu_set_t node_cpus[64];

static void read_node_cpus(void)
{
	char path[96], list[256];
	int node;

	for (node = 0; node < 64; node++) {
		char *p = list;
		FILE *f;

		CPU_ZERO(&node_cpus[node]);
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/cpulist", node);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(list, sizeof(list), f))
			list[0] = '\0';
		fclose(f);
		while (*p >= '0' && *p <= '9') {
			long a = strtol(p, &p, 10), b = a;

			if (*p == '-')
				b = strtol(p + 1, &p, 10);
			for (; a <= b && a < CPU_SETSIZE; a++)
				CPU_SET(a, &node_cpus[node]);
			if (*p == ',')
				p++;
		}
	}
}

/* The nodes whose CPUs set holds, as a bit mask. */
static unsigned long set_nodes(const cpu_set_t *set)
{
	unsigned long nodes = 0;
	cpu_set_t both;
	int node;

	for (node = 0; node < 64; node++) {
		CPU_AND(&both, set, &node_cpus[node]);
		if (CPU_COUNT(&both))
			nodes |= 1UL << node;
	}
	return nodes;
}

/*
 * Placed: every worker on the CPUs of one node, and not all on the same
 * one (bwapd first lets them run anywhere, then places them one by one);
 * then 0.5 s more.  At most 30 s.
 */
static void wait_placed(void)
{
	time_t until = time(NULL) + 30;
	unsigned long all, one;
	cpu_set_t set;
	int t, placed = 0;

	read_node_cpus();
	while (!placed && time(NULL) < until) {
		usleep(10000);
		all = 0;
		for (t = 0; t < nr; t++) {
			if (!tid_of[t] ||
			    sched_getaffinity(tid_of[t], sizeof(set), &set))
				break;
			one = set_nodes(&set);
			if (__builtin_popcountl(one) != 1)
				break;
			all |= one;
		}
		placed = t == nr && __builtin_popcountl(all) >= 2;
	}
	usleep(500000);
	go = 1;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int cls; } classes[] = {
		{ "static", STATIC }, { "local", LOCAL },
		{ "per-thread", PER_THREAD }, { "interleaved", INTERLEAVED },
		{ "static+local", STATIC | LOCAL },
	};
	pthread_t th[MAX_WORKERS];
	unsigned long mask[16] = { 0 };
	unsigned int i;
	long t;

	nr = argc == 3 ? atoi(argv[2]) : 0;
	for (i = 0; argc == 3 && i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strcmp(argv[1], classes[i].name))
			cls = classes[i].cls;
	if (!cls || nr < 1 || nr > MAX_WORKERS) {
		fprintf(stderr, "usage: wi_signature static|local|per-thread|"
			"interleaved|static+local THREADS (1-%d)\n", MAX_WORKERS);
		return 2;
	}
	if (cls != LOCAL) {
		shared_len = (size_t)nr * PAGES * PAGE;
		shared = mmap(NULL, shared_len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (shared == MAP_FAILED)
			return 1;
		madvise(shared, shared_len, MADV_NOHUGEPAGE);
	}
	if (cls & STATIC)
		memset(shared, 1, shared_len);
	pthread_barrier_init(&placed, NULL, (unsigned int)nr + 1);
	pthread_barrier_init(&ready, NULL, (unsigned int)nr + 1);
	for (t = 0; t < nr; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)t))
			return 1;
	wait_placed();
	pthread_barrier_wait(&placed);
	if (cls & INTERLEAVED) {
		/* over the nodes the workers were placed on */
		for (t = 0; t < nr; t++)
			mask[node_of[t] / 64] |= 1UL << (node_of[t] % 64);
		if (syscall(SYS_mbind, shared, shared_len, MPOL_INTERLEAVE, mask,
			    16 * 64 + 1, 0))
			return 1;
		memset(shared, 1, shared_len);
	}
	pthread_barrier_wait(&ready);
	pthread_join(th[0], NULL);
	return 0;
}
