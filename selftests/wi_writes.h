/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Threads that write pages chosen at random at known rates, and count
 * every write in the page itself (wi_inspect.c, wi_inspect_shared.c):
 * the truth that bwapd inspect's samples are judged against.
 *
 * A write is the increment of the writer's counter in the page, at
 * WI_COUNTER x (1 + slot), so that counting writes writes nothing else
 * and a page several threads write keeps each one's count.  Reads (a
 * set marked so) are not counted: every set is paced by the same clock,
 * so a thread's reads are its writes to another set times the ratio of
 * their rates.  Besides those pages, a thread writes its own stack
 * alone, which is on its node: a process sampled whole shows its
 * threads' stacks as private, local pages, written in every slice.
 */
#ifndef WI_WRITES_H
#define WI_WRITES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "wi_common.h"

#define WI_COUNTER	64
#define WI_WRITER_SETS	4

/* Pages one thread accesses: each at 'rate' a second. */
struct wi_pages {
	char *base;
	long nr;
	double rate;
	int slot;			/* its counter in each page */
	bool read;			/* reads, not writes */
	bool touch;			/* the thread's first touch (zeroes) */
};

struct wi_writer {
	pthread_t th;
	int cpu, node, index;
	struct wi_pages set[WI_WRITER_SETS];
	int sets;
	volatile int *stop;
	volatile int ready;		/* pinned, its pages touched */
	void *stack;
};

#define WI_WRITER_STACK	(256 * 1024)

static inline volatile uint64_t *wi_counter(char *page, int slot)
{
	return (volatile uint64_t *)(page + WI_COUNTER * (1 + slot));
}

static inline double wi_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline uint64_t wi_xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Accesses at random times: every millisecond, the accesses due since
 * the last (rate x time, the fraction carried), each to a page chosen
 * at random.  A thread that did not run for a while does not catch up,
 * so no burst follows a stall.
 */
static inline void *wi_write_pages(void *arg)
{
	struct wi_writer *w = arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (w->index + 1);
	double t0, due[WI_WRITER_SETS] = { 0 };
	const struct timespec ms = { 0, 1000000 };
	int s;

	if (wi_pin_cpu(w->cpu))
		return NULL;
	for (s = 0; s < w->sets; s++)
		if (w->set[s].touch)
			memset(w->set[s].base, 0, w->set[s].nr * WI_PAGE_SIZE);
	w->ready = 1;
	t0 = wi_now();
	while (!*w->stop) {
		double t = wi_now(), dt = t - t0 < 0.01 ? t - t0 : 0.01;

		t0 = t;
		for (s = 0; s < w->sets; s++) {
			const struct wi_pages *p = &w->set[s];

			for (due[s] += dt * p->rate * p->nr; due[s] >= 1;
			     due[s] -= 1) {
				char *page = p->base + (long)(wi_xorshift(&x) %
					     (uint64_t)p->nr) * WI_PAGE_SIZE;

				if (p->read)
					(void)*(volatile const char *)page;
				else
					(*wi_counter(page, p->slot))++;
			}
		}
		nanosleep(&ms, NULL);
	}
	return NULL;
}

/*
 * The writes to one page between two counts c0 and c1, thread k's at
 * [k x stride] of each: their sum; the most-writing thread's writes in
 * *top and that thread in *best.
 */
static inline double wi_writes_between(const unsigned long *c0,
				       const unsigned long *c1, int T,
				       long stride, double *top, int *best)
{
	double sum = 0;
	int k;

	*top = -1;
	*best = 0;
	for (k = 0; k < T; k++) {
		double d = (double)(c1[k * stride] - c0[k * stride]);

		sum += d;
		if (d > *top) {
			*top = d;
			*best = k;
		}
	}
	return sum;
}

/* Start w's thread, its stack bound to its node. */
static inline int wi_writer_start(struct wi_writer *w)
{
	struct wi_mask node;
	pthread_attr_t a;
	int ret;

	w->ready = 0;
	w->stack = wi_mmap_anon(WI_WRITER_STACK);
	if (!w->stack)
		return -1;
	wi_mask_from_nodes(&node, &w->node, 1);
	if (wi_mbind(w->stack, WI_WRITER_STACK, MPOL_BIND, &node, 0))
		return -1;
	if (pthread_attr_init(&a))
		return -1;
	ret = pthread_attr_setstack(&a, w->stack, WI_WRITER_STACK) ?:
	      pthread_create(&w->th, &a, wi_write_pages, w);
	pthread_attr_destroy(&a);
	return ret ? -1 : 0;
}

/* Wait for w's thread to end (*w->stop set); free its stack. */
static inline void wi_writer_join(struct wi_writer *w)
{
	pthread_join(w->th, NULL);
	munmap(w->stack, WI_WRITER_STACK);
}

#endif /* WI_WRITES_H */
