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
 * program on one node and, once it sees the busy threads, spreads them
 * over the nodes: the workers spin (busy) until the main thread sees
 * their CPU affinities differ (then half a second more, for the rest of
 * them to be placed; at most 30 s), then each fills what it fills on the
 * node it is on, and when every worker is ready they all write.  The
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

/* Until the workers' affinities differ, then 0.5 s more; at most 30 s. */
static void wait_placed(void)
{
	time_t until = time(NULL) + 30;
	cpu_set_t first, set;
	int t, spread = 0;

	while (!spread && time(NULL) < until) {
		usleep(10000);
		for (t = 0; t < nr && tid_of[t]; t++)
			;
		if (t < nr || sched_getaffinity(tid_of[0], sizeof(first), &first))
			continue;
		for (t = 1; t < nr && !spread; t++)
			spread = !sched_getaffinity(tid_of[t], sizeof(set), &set) &&
				 !CPU_EQUAL(&set, &first);
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
