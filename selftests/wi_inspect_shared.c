// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd inspect's exclusivity and locality on a program whose shared
 * pages several threads write at known, unequal rates.
 *
 * One thread pinned to each CPU node writes pages chosen at random, at
 * fixed rates in time: its own private pages (bound to its node), and
 * the shared pages (bound to the second CPU node), which the first
 * node's thread writes twice as often as each of the others.  A write
 * is the increment of the writer's own counter in the page, so the
 * pages count their writes, and bwapd is asked for the samples of these
 * pages alone (--range), not of the threads' stacks, whose writes no one
 * counts.  The truth is Diener et al.'s
 * Eq. 2 and 9 on those counts over the time bwapd samples: a shared
 * page's most-writing node is the first one, whose share is 2/(T+1),
 * and it is not the node the page is on.
 *
 * The rates keep most pages unwritten in some slices (about one write
 * a slice per private page, one and a half per shared page), so that
 * how often a page is sampled tells its rate; slices of 0.1 s keep the
 * soft-dirty clear, which takes up to tens of milliseconds in an
 * emulated machine, a small part of each.  bwapd must hold the truths
 * of exclusivity and locality within the ranges it reports, and report
 * an exclusivity range narrow enough to mean something.  Both regions
 * have a policy of their own, which NUMA balancing does not scan: the
 * samples are the soft-dirty write faults alone.
 *
 * Runs wherever bwapd is on PATH and the machine has two CPU nodes or
 * more, on this project's kernels and on Debian's stock ones.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "wi_harness.h"
#include "wi_bwapd.h"
#include "wi_writes.h"

#define MAX_T		8
#define PRIV_PAGES	64		/* per thread */
#define SHARED_PAGES	256
#define SECONDS		"8"
#define INTERVAL	"0.1"
#define SLICES_PER_S	10		/* 1 / INTERVAL */
/* writes a second to each page: a private one, a shared one by a thread */
#define PRIV_RATE	(1.0 * SLICES_PER_S)
#define SHARED_RATE	(0.3 * SLICES_PER_S)
/* the counts are kept every SNAP_NS, for up to MAX_SNAPS */
#define SNAP_NS		10000000L
#define MAX_SNAPS	2048
/* bwapd's samples a page, below which a run is made again */
#define MIN_PER_PAGE	10.0
/* the widest exclusivity range that still says something */
#define MAX_EXCL_RANGE	0.10

static volatile int stop;

FIXTURE(shared) {
	int nodes[MAX_T], nr_nodes, t;
	struct wi_writer *w;
	char *all, *shared;		/* every page; the shared ones */
	size_t len;
	int perf_fd;			/* keeps perf's static keys on */
	bool setup_skipped;
};

FIXTURE_SETUP(shared)
{
	struct wi_mask one;
	int i;

	stop = 0;
	self->t = 0;
	self->perf_fd = -1;
	self->w = NULL;
	if (!have_bwapd())
		WI_SETUP_SKIP("bwapd is not on PATH");
	self->nr_nodes = wi_cpu_nodes(self->nodes, MAX_T);
	if (self->nr_nodes < 2)
		WI_SETUP_SKIP("needs two CPU nodes");
	self->perf_fd = hold_perf_keys();
	self->w = calloc(self->nr_nodes, sizeof(*self->w));
	ASSERT_NE(NULL, self->w);
	/* one mapping: the private pages of each thread, then the shared */
	self->len = (size_t)(self->nr_nodes * PRIV_PAGES + SHARED_PAGES) *
		    WI_PAGE_SIZE;
	self->all = wi_mmap_anon(self->len);
	ASSERT_NE(NULL, self->all);
	madvise(self->all, self->len, MADV_NOHUGEPAGE);
	self->shared = self->all + self->nr_nodes * PRIV_PAGES * WI_PAGE_SIZE;
	wi_mask_from_nodes(&one, &self->nodes[1], 1);
	ASSERT_EQ(0, wi_mbind(self->shared, SHARED_PAGES * WI_PAGE_SIZE,
			      MPOL_BIND, &one, 0));
	memset(self->shared, 0, SHARED_PAGES * WI_PAGE_SIZE);
	for (i = 0; i < self->nr_nodes; i++) {
		struct wi_writer *w = &self->w[i];

		w->index = i;
		w->node = self->nodes[i];
		w->cpu = wi_node_first_cpu(w->node);
		w->stop = &stop;
		w->set[0] = (struct wi_pages){
			.base = self->all + i * PRIV_PAGES * WI_PAGE_SIZE,
			.nr = PRIV_PAGES, .rate = PRIV_RATE,
		};
		w->set[1] = (struct wi_pages){
			.base = self->shared, .nr = SHARED_PAGES,
			.rate = (i ? 1 : 2) * SHARED_RATE, .slot = i,
		};
		w->sets = 2;
		wi_mask_from_nodes(&one, &w->node, 1);
		ASSERT_EQ(0, wi_mbind(w->set[0].base, PRIV_PAGES * WI_PAGE_SIZE,
				      MPOL_BIND, &one, 0));
		memset(w->set[0].base, 0, PRIV_PAGES * WI_PAGE_SIZE);
	}
	for (i = 0; i < self->nr_nodes; i++) {
		ASSERT_EQ(0, wi_writer_start(&self->w[i]));
		self->t++;
	}
}

FIXTURE_TEARDOWN(shared)
{
	int i;

	stop = 1;
	for (i = 0; i < self->t; i++)
		wi_writer_join(&self->w[i]);
	free(self->w);
	if (self->perf_fd >= 0)
		close(self->perf_fd);
}

/*
 * Every thread's write counts now, page by page, thread by thread (a
 * read: it makes no sample).
 */
static void counts(const struct wi_writer *w, int T, char *shared,
		   unsigned long *c)
{
	int i, k, n = PRIV_PAGES + SHARED_PAGES;

	for (k = 0; k < T; k++)
		for (i = 0; i < n; i++)
			c[k * n + i] = i < PRIV_PAGES ?
				*wi_counter(w[k].set[0].base + i * WI_PAGE_SIZE,
					    0) :
				*wi_counter(shared + (i - PRIV_PAGES) *
					    WI_PAGE_SIZE, k);
}

/*
 * The counts every SNAP_NS with the time (CLOCK_MONOTONIC), so that the
 * truth is taken over the very time bwapd sampled.
 */
struct snaps {
	const struct wi_writer *w;
	int T, nr;
	char *shared;
	volatile int stop;
	double t[MAX_SNAPS];
	unsigned long *c;		/* MAX_SNAPS x T x pages */
};

static void *keep_counts(void *arg)
{
	struct snaps *sn = arg;
	size_t one = (size_t)sn->T * (PRIV_PAGES + SHARED_PAGES);
	const struct timespec every = { 0, SNAP_NS };

	while (!sn->stop && sn->nr < MAX_SNAPS) {
		sn->t[sn->nr] = wi_now();
		counts(sn->w, sn->T, sn->shared, sn->c + sn->nr * one);
		sn->nr++;
		nanosleep(&every, NULL);
	}
	return NULL;
}

/* The counts at time t: the last kept at or before it (first, last). */
static const unsigned long *counts_at(const struct snaps *sn, double t)
{
	size_t one = (size_t)sn->T * (PRIV_PAGES + SHARED_PAGES);
	int i = 0;

	while (i + 1 < sn->nr && sn->t[i + 1] <= t)
		i++;
	return sn->c + i * one;
}

/*
 * Eq. 2 and 9 on the writes between two counts: a page's most-writing
 * thread, and whether the page is on that thread's node.
 */
static void truth(FIXTURE_DATA(shared) *self, const unsigned long *c0,
		  const unsigned long *c1, const int *shared_nodes,
		  double *excl, double *loc)
{
	int T = self->nr_nodes, n = PRIV_PAGES + SHARED_PAGES, i, k, best;
	double all = 0, top = 0, local = 0;

	/* private pages: one writer, on its node (bound there) */
	for (k = 0; k < T; k++)
		for (i = 0; i < PRIV_PAGES; i++) {
			double d = (double)(c1[k * n + i] - c0[k * n + i]);

			all += d;
			top += d;
			local += d;
		}
	for (i = PRIV_PAGES; i < n; i++) {
		double m, t = wi_writes_between(c0 + i, c1 + i, T, n, &m, &best);

		all += t;
		top += m;
		if (shared_nodes[i - PRIV_PAGES] == self->nodes[best])
			local += t;
	}
	*excl = top / all;
	*loc = local / all;
}

TEST_F_TIMEOUT(shared, range_holds_the_truth, 600)
{
	int T = self->nr_nodes, n = PRIV_PAGES + SHARED_PAGES, i, attempt, ret;
	static struct snaps sn;
	pthread_t keeper;
	double from, seconds;
	static int nodes[SHARED_PAGES], priv_nodes[PRIV_PAGES];
	static char out[1 << 16];
	double excl, loc, range[2] = { 0 }, lrange[2], per_page = 0, got;
	char pid[16], addr[64];
	const char *const args[] = {
		"bwapd", "inspect", "--pid", pid, "--seconds", SECONDS,
		"--interval", INTERVAL, "--range", addr, "--json", NULL,
	};

	WI_TEST_START();
	sn.w = self->w;
	sn.T = T;
	sn.shared = self->shared;
	sn.c = calloc((size_t)MAX_SNAPS * T * n, sizeof(*sn.c));
	ASSERT_NE(NULL, sn.c);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	/* the program's pages alone: not the threads' stacks */
	snprintf(addr, sizeof(addr), "%lx-%lx", (unsigned long)self->all,
		 (unsigned long)(self->all + self->len));
	/* the pages are where their policy put them */
	ASSERT_EQ(0, wi_page_nodes(self->shared, SHARED_PAGES, WI_PAGE_SIZE,
				   nodes));
	for (i = 0; i < SHARED_PAGES; i++)
		ASSERT_EQ(self->nodes[1], nodes[i]);
	for (i = 0; i < T; i++) {
		int j;

		ASSERT_EQ(0, wi_page_nodes(self->w[i].set[0].base, PRIV_PAGES,
					   WI_PAGE_SIZE, priv_nodes));
		for (j = 0; j < PRIV_PAGES; j++)
			ASSERT_EQ(self->nodes[i], priv_nodes[j]);
	}
	/*
	 * A run is made again, up to three times, only where bwapd's samples
	 * came to fewer than MIN_PER_PAGE a page: under emulation on a
	 * loaded host the writers' virtual CPUs may stand still for seconds.
	 * Everything below is asserted on the last run.
	 */
	for (attempt = 0; attempt < 3; attempt++) {
		sn.nr = 0;
		sn.stop = 0;
		ASSERT_EQ(0, pthread_create(&keeper, NULL, keep_counts, &sn));
		ret = bwapd(out, sizeof(out), args);
		sn.stop = 1;
		pthread_join(keeper, NULL);
		ASSERT_EQ(0, ret);
		ASSERT_NE(NULL, strstr(out, "\"samples\": {"));
		per_page = jnum(strstr(out, "\"samples\": {"), "per_page");
		TH_LOG("run %d: %.1f samples a page", attempt + 1, per_page);
		if (per_page >= MIN_PER_PAGE)
			break;
	}
	TH_LOG("%s", out);
	ASSERT_GE(per_page, MIN_PER_PAGE);
	/* the truth over the time bwapd sampled */
	from = jnum(strstr(out, "\"samples\": {"), "from_monotonic");
	seconds = jnum(strstr(out, "\"samples\": {"), "seconds");
	ASSERT_TRUE(from > 0 && seconds > 0);
	ASSERT_LT(sn.nr, MAX_SNAPS);
	TH_LOG("counts kept %d times from %.3f to %.3f; sampled from %.3f for %.3f s",
	       sn.nr, sn.t[0], sn.t[sn.nr - 1], from, seconds);
	truth(self, counts_at(&sn, from), counts_at(&sn, from + seconds),
	      nodes, &excl, &loc);

	got = jnum(out, "exclusivity");
	i = jarray(out, "exclusivity_range", range, 2);
	TH_LOG("exclusivity %.3f (%.3f .. %.3f), truth %.3f", got,
	       i == 2 ? range[0] : NAN, i == 2 ? range[1] : NAN, excl);
	ASSERT_EQ(2, i);
	EXPECT_TRUE(excl >= range[0] && excl <= range[1]);
	EXPECT_LE(range[1] - range[0], MAX_EXCL_RANGE);
	ASSERT_EQ(2, jarray(out, "locality_range", lrange, 2));
	got = jnum(out, "locality");
	TH_LOG("locality %.3f (%.3f .. %.3f), truth %.3f", got, lrange[0],
	       lrange[1], loc);
	EXPECT_TRUE(loc >= lrange[0] && loc <= lrange[1]);
	/* most pages are not written in every slice: rates are resolved */
	got = jnum(strstr(out, "\"samples\": {"), "unresolved");
	TH_LOG("%.3f of the weight on pages sampled in every slice", got);
	EXPECT_LT(got, 0.2);
	free(sn.c);
}

TEST_HARNESS_MAIN
