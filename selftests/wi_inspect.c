// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd inspect on a real process whose memory access is known by
 * construction: one thread pinned to each CPU node writes its private
 * pages and every shared page, over and over; the shared pages were
 * filled by the main thread on the first node.  Under first touch and
 * under interleave, bwapd inspect --pid samples this very process, and
 * its report is compared with the truth the process computes from its
 * own layout and the nodes of its pages (move_pages(2)).
 *
 * A fault samples the first write to a page in a slice, and bwapd
 * weighs a page by the rate its sampled slices give, for writes at
 * random times.  These sweeps are not random: every thread writes each
 * shared page once a sweep, and threads that sweep in step write it
 * within moments of each other, a burst that a slice sees as one write.
 * So the truth lies between two weighings: every page alike (bursts)
 * and every page by its writes (Eq. 2).  The writes are counted, not
 * assumed: each worker counts its sweeps, and a sweep writes each of its
 * private pages and each shared page once.  A loaded host stops the
 * vCPUs of some workers for a while, so the workers' counts differ: a
 * private page weighs its worker's sweeps, a shared one all workers'
 * (T times a private one where they ran alike).  A shared page is
 * written by every node: its exclusivity lies between 1/T (the first
 * writers after the clears alike) and the busiest worker's share of the
 * sweeps (1/T where they ran alike), and its most-writing node is any of
 * them, so its locality lies anywhere between 0 and 1.
 *
 * A third region is only read (filled first by the main thread): its
 * reads are seen only through NUMA balancing's hinting faults, so where
 * it is on, the exclusivity's truth also spans those pages counted not
 * at all and as often as the shared ones.  Under
 * first touch, where NUMA balancing is off (this project's test kernels
 * leave it out), nothing may move; where it is on (Debian's default on a
 * NUMA machine), its hinting faults are samples too, reads included, and
 * it moves pages towards the threads that fault.  Interleaved memory it
 * does not scan.  The tests never switch it: a switch patches the
 * kernel's text, which an emulated machine has been seen to get wrong.
 * For the same reason each test keeps a page-fault event of its own open,
 * so that bwapd's events never switch perf's static keys either.
 *
 * wi_signature_runs does the same for bwapd inspect -- COMMAND.
 *
 * Runs wherever bwapd is on PATH and the machine has two CPU nodes or
 * more, on this project's kernels and on Debian's stock ones.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wi_harness.h"
#include "wi_bwapd.h"

#define MAX_T		8
#define PRIV_PAGES	256		/* per thread */
#define SHARED_PAGES	256
#define READ_PAGES	256		/* only read */
#define INTERVAL	"0.05"
/*
 * bwapd's exclusivity range at most this wide: it does not ask to
 * sample longer (inspect.c's UNSETTLED).
 */
#define SETTLED		0.1

/* Tolerances of the sampled metrics against the truth. */
#define TOL_EXCL	0.08
#define TOL_LOC		0.08
#define TOL_BACC	25.0		/* percentage points */
/*
 * A sampling run in which the workers ran: a sweep or more a slice each,
 * and samples of ten slices or more a page.
 */
#define MIN_SWEEPS	40
#define MIN_PER_PAGE	10.0

struct worker {
	pthread_t th;
	int cpu, node;
	char *priv;
	char *shared;
	const char *ro;
	volatile long sweeps;
	long sum;
};

static volatile int stop;

static void *work(void *arg)
{
	struct worker *w = arg;
	long i;

	if (wi_pin_cpu(w->cpu))
		return NULL;
	/* first touch of its own pages, from its own node */
	memset(w->priv, 1, PRIV_PAGES * WI_PAGE_SIZE);
	while (!stop) {
		for (i = 0; i < PRIV_PAGES; i++)
			w->priv[i * WI_PAGE_SIZE + 64]++;
		for (i = 0; i < SHARED_PAGES; i++)
			__atomic_fetch_add(&w->shared[i * WI_PAGE_SIZE +
						      64 * (1 + w->node % 32)],
					   1, __ATOMIC_RELAXED);
		for (i = 0; i < READ_PAGES; i++)
			w->sum += ((volatile const char *)w->ro)[i * WI_PAGE_SIZE];
		w->sweeps++;
	}
	return NULL;
}

/*
 * A counter of /proc/vmstat: numa_pages_migrated (NUMA balancing's
 * migrations), numa_hint_faults (its hinting faults, every process's).
 */
static long vmstat(const char *name)
{
	char line[128], key[64];
	long v;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", key, &v) == 2 && !strcmp(key, name)) {
			fclose(f);
			return v;
		}
	fclose(f);
	return 0;
}

FIXTURE(inspect) {
	int nodes[MAX_T], nr_nodes, t;
	cpu_set_t cpus;
	struct worker w[MAX_T];
	char *shared, *ro;
	int perf_fd;			/* keeps perf's static keys on */
	bool setup_skipped;
};

FIXTURE_VARIANT(inspect) {
	bool interleave;
	int numa_balancing;		/* needs it: 0 off, 1 on, -1 either */
};

FIXTURE_VARIANT_ADD(inspect, first_touch) {
	.interleave = false, .numa_balancing = 0,
};
FIXTURE_VARIANT_ADD(inspect, interleave) {
	.interleave = true, .numa_balancing = -1,
};
FIXTURE_VARIANT_ADD(inspect, first_touch_numa_balancing) {
	.interleave = false, .numa_balancing = 1,
};

FIXTURE_SETUP(inspect)
{
	int mem[WI_MAX_NODES], nmem, i;
	struct wi_mask all;

	stop = 0;
	self->t = 0;
	self->perf_fd = -1;
	if (!have_bwapd())
		WI_SETUP_SKIP("bwapd is not on PATH");
	self->nr_nodes = wi_cpu_nodes(self->nodes, MAX_T);
	if (self->nr_nodes < 2)
		WI_SETUP_SKIP("needs two CPU nodes");
	if (variant->numa_balancing >= 0 &&
	    variant->numa_balancing != numa_balancing_on())
		WI_SETUP_SKIP("NUMA balancing is %s here",
			      numa_balancing_on() ? "on" : "off");
	self->perf_fd = hold_perf_keys();
	nmem = wi_memory_nodes(mem, WI_MAX_NODES);
	wi_mask_from_nodes(&all, mem, nmem);
	self->shared = wi_mmap_anon(SHARED_PAGES * WI_PAGE_SIZE);
	ASSERT_NE(NULL, self->shared);
	madvise(self->shared, SHARED_PAGES * WI_PAGE_SIZE, MADV_NOHUGEPAGE);
	self->ro = wi_mmap_anon(READ_PAGES * WI_PAGE_SIZE);
	ASSERT_NE(NULL, self->ro);
	madvise(self->ro, READ_PAGES * WI_PAGE_SIZE, MADV_NOHUGEPAGE);
	for (i = 0; i < self->nr_nodes; i++) {
		struct worker *w = &self->w[i];

		w->node = self->nodes[i];
		w->cpu = wi_node_first_cpu(w->node);
		w->shared = self->shared;
		w->ro = self->ro;
		w->sweeps = 0;
		w->priv = wi_mmap_anon(PRIV_PAGES * WI_PAGE_SIZE);
		ASSERT_NE(NULL, w->priv);
		madvise(w->priv, PRIV_PAGES * WI_PAGE_SIZE, MADV_NOHUGEPAGE);
		if (variant->interleave)
			ASSERT_EQ(0, wi_mbind(w->priv, PRIV_PAGES * WI_PAGE_SIZE,
					      MPOL_INTERLEAVE, &all, 0));
	}
	if (variant->interleave)
		ASSERT_EQ(0, wi_mbind(self->shared, SHARED_PAGES * WI_PAGE_SIZE,
				      MPOL_INTERLEAVE, &all, 0));
	/* the main thread fills the shared pages from the first node */
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(self->cpus), &self->cpus));
	ASSERT_EQ(0, wi_pin_cpu(self->w[0].cpu));
	memset(self->shared, 0, SHARED_PAGES * WI_PAGE_SIZE);
	memset(self->ro, 1, READ_PAGES * WI_PAGE_SIZE);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(self->cpus), &self->cpus));
	for (i = 0; i < self->nr_nodes; i++) {
		ASSERT_EQ(0, pthread_create(&self->w[i].th, NULL, work,
					    &self->w[i]));
		self->t++;
	}
	for (i = 0; i < self->nr_nodes; i++)
		while (!self->w[i].sweeps)
			usleep(10000);
}

FIXTURE_TEARDOWN(inspect)
{
	int i;

	stop = 1;
	for (i = 0; i < self->t; i++)
		pthread_join(self->w[i].th, NULL);
	if (self->perf_fd >= 0)
		close(self->perf_fd);
}

/*
 * Run bwapd on the CPUs no worker runs on, where the machine has any: a
 * sampler on a worker's CPU clears the soft-dirty bits while that worker
 * waits, and the others then make every first write after the clear, to
 * every shared page, slice after slice (an exclusivity of 1.00 for
 * shared pages that two workers write alike, seen on the 4-CPU cxl
 * machine).  That is the sampler's place, not its estimate; the test
 * judges the estimate.  Back to 'all' afterwards.
 */
static int off_the_workers(FIXTURE_DATA(inspect) *self, int on)
{
	cpu_set_t set = self->cpus;
	int i;

	if (on) {
		for (i = 0; i < self->t; i++)
			CPU_CLR(self->w[i].cpu, &set);
		if (!CPU_COUNT(&set))
			return 0;
	}
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The nodes of the program's own pages: private blocks, then shared. */
static int layout_nodes(FIXTURE_DATA(inspect) *self, int *nodes)
{
	int i;

	for (i = 0; i < self->nr_nodes; i++)
		if (wi_page_nodes(self->w[i].priv, PRIV_PAGES, WI_PAGE_SIZE,
				  nodes + i * PRIV_PAGES))
			return -1;
	return wi_page_nodes(self->shared, SHARED_PAGES, WI_PAGE_SIZE,
			     nodes + self->nr_nodes * PRIV_PAGES);
}

/*
 * Does bwapd's figure 'key' hold the truth lo..hi (within tol)?  Its
 * estimate must lie there.  With NUMA balancing on (nb), the hinting
 * faults sample the pages that every node reads and writes as the
 * kernel moves them from node to node, and which node's thread faults
 * first decides the sample: there bwapd reports a wide range (0.25 to
 * 0.56 for an exclusivity whose truth is 0.50 to 0.86, in one run), and
 * the range, widened by tol, must meet the truth instead.
 */
static bool held(const char *out, const char *key, int nb, double lo,
		 double hi, double tol)
{
	char rkey[32];
	double got = jnum(out, key), r[2];

	if (got >= lo - tol && got <= hi + tol)
		return true;
	snprintf(rkey, sizeof(rkey), "%s_range", key);
	if (!nb || jarray(out, rkey, r, 2) != 2)
		return false;
	fprintf(stderr, "# %s %.3f outside the truth; its range %.3f to %.3f "
		"(NUMA balancing's faults)\n", key, got, r[0], r[1]);
	return r[0] - tol <= hi && r[1] + tol >= lo;
}

TEST_F_TIMEOUT(inspect, metrics_match_the_layout, 600)
{
	static int before[MAX_T * PRIV_PAGES + SHARED_PAGES];
	static int after[MAX_T * PRIV_PAGES + SHARED_PAGES];
	static int mem[WI_MAX_NODES];
	static char out[1 << 16];
	double excl[2][2] = { { 0 } }, loc[2] = { 0 }, loc_hi[2] = { 0 };
	double wsum[2] = { 0 };
	double pages[64];
	double acc_lo[2][MAX_T] = { { 0 } }, acc_hi[2][MAX_T] = { { 0 } };
	double bacc_lo[2], bacc_hi[2];
	double got, lo, hi;
	long sweeps[MAX_T], ran[MAX_T], ran_all = 0, ran_top = 0;
	int T = self->nr_nodes, n = T * PRIV_PAGES + SHARED_PAGES;
	int i, j, k, moved = 0, nb, np, attempt, scanned;
	long migrated, hints = 0, least = 0;
	double per_page = 0, range[2] = { 0, 1 };
	char pid[16], seconds[16];
	const char *const args[] = {
		"bwapd", "inspect", "--pid", pid, "--seconds", seconds,
		"--interval", INTERVAL, "--json", NULL,
	};
	const char *const text[] = {
		"bwapd", "inspect", "--pid", pid, "--seconds", "1", "--verbose",
		NULL,
	};

	WI_TEST_START();
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	/*
	 * bwapd samples for a time, and a run is judged only if there was
	 * enough to sample in it; otherwise it is made again, up to three
	 * times (4, 8 and 8 s: longer, most pages are sampled in every slice,
	 * which the slices cannot resolve), and every assertion below is on
	 * the last run:
	 * - the workers ran: under emulation on a loaded host their virtual
	 *   CPUs may stand still for seconds (one run saw a single slice of
	 *   samples in 4 s, where there are 60 samples a page);
	 * - bwapd's samples come to MIN_PER_PAGE a page or more;
	 * - bwapd did not ask to sample longer: its exclusivity range is
	 *   SETTLED (a user would sample longer too; the last run is judged
	 *   against the truth whatever its range);
	 * - with NUMA balancing on, the kernel took a hinting fault for every
	 *   page it scans or more (numa_hint_faults; it does not scan
	 *   interleaved memory): its scan follows its own clock, and the pages
	 *   only read can be sampled through its faults alone.  That count is
	 *   the kernel's, not bwapd's: whether bwapd saw those faults is
	 *   asserted below, on the judged run.
	 */
	nb = numa_balancing_on();
	scanned = READ_PAGES + (variant->interleave ? 0 : n);
	for (attempt = 0; attempt < 3; attempt++) {
		int changed = 0;

		snprintf(seconds, sizeof(seconds), "%d", attempt ? 8 : 4);
		for (i = 0; i < T; i++)
			sweeps[i] = self->w[i].sweeps;
		migrated = vmstat("numa_pages_migrated");
		hints = vmstat("numa_hint_faults");
		ASSERT_EQ(0, layout_nodes(self, before));
		ASSERT_EQ(0, off_the_workers(self, 1));
		ASSERT_EQ(0, bwapd(out, sizeof(out), args));
		ASSERT_EQ(0, off_the_workers(self, 0));
		ASSERT_EQ(0, layout_nodes(self, after));
		migrated = vmstat("numa_pages_migrated") - migrated;
		hints = vmstat("numa_hint_faults") - hints;
		least = LONG_MAX;
		for (i = 0; i < T; i++) {
			ran[i] = self->w[i].sweeps - sweeps[i];
			if (ran[i] < least)
				least = ran[i];
		}
		per_page = jnum(strstr(out, "\"samples\": {") + 1, "samples") /
			   jnum(strstr(out, "\"samples\": {") + 1, "pages");
		for (i = 0; i < n; i++)
			changed += before[i] != after[i];
		if (jarray(out, "exclusivity_range", range, 2) != 2) {
			range[0] = 0;
			range[1] = 1;
		}
		TH_LOG("run %d (%s s): %.1f samples a page; every worker swept "
		       "its pages %ld times or more; %d pages changed node; %ld "
		       "hinting faults; exclusivity range %.3f to %.3f",
		       attempt + 1, seconds, per_page, least, changed, hints,
		       range[0], range[1]);
		if (least >= MIN_SWEEPS && per_page >= MIN_PER_PAGE &&
		    (!nb || hints >= scanned) && range[1] - range[0] <= SETTLED)
			break;
	}
	ASSERT_GE(least, MIN_SWEEPS);
	ASSERT_TRUE(per_page >= MIN_PER_PAGE);
	if (nb)
		ASSERT_GE(hints, scanned);
	TH_LOG("%s", out);
	for (i = 0; i < T; i++) {
		ran_all += ran[i];
		ran_top = ran[i] > ran_top ? ran[i] : ran_top;
		TH_LOG("worker %d (node %d) swept its pages %ld times",
		       i, self->nodes[i], ran[i]);
	}

	/*
	 * Sampling moves nothing: every page that moved, NUMA balancing
	 * moved (it may still finish work it began before it was turned
	 * off); it counts its migrations, bwapd would not be counted there.
	 */
	for (i = 0; i < n; i++) {
		if (before[i] == after[i])
			continue;
		/* a page being compacted has no node for a moment */
		if (before[i] < 0 || after[i] < 0) {
			TH_LOG("page %d: node %d, then %d", i, before[i], after[i]);
			continue;
		}
		moved++;
		TH_LOG("page %d moved: node %d, then %d", i, before[i], after[i]);
	}
	TH_LOG("%d pages moved while sampled, NUMA balancing moved %ld",
	       moved, migrated);
	EXPECT_LE(moved, migrated);
	if (!nb) {
		EXPECT_NE(NULL, strstr(out, "no reads (NUMA balancing is off)"));
	} else {
		EXPECT_NE(NULL, strstr(out, "NUMA balancing was on"));
		EXPECT_NE(NULL, strstr(out, "hinting faults"));
	}

	/*
	 * The truth, every page alike [0] and by its writes [1], the sweeps
	 * each worker made while bwapd sampled
	 */
	for (i = 0; i < n; i++) {
		int owner = i < T * PRIV_PAGES ? i / PRIV_PAGES : -1;
		int local = owner >= 0 && after[i] == self->nodes[owner];

		for (j = 0; j < 2; j++) {
			double w = !j ? 1 : owner >= 0 ? ran[owner] : ran_all;

			wsum[j] += w;
			excl[j][0] += w * (owner >= 0 ? 1 : 1.0 / T);
			excl[j][1] += w * (owner >= 0 ? 1 : (double)ran_top / ran_all);
			loc[j] += w * local;
			loc_hi[j] += w * (owner >= 0 ? local : 1);
			for (k = 0; k < T; k++) {
				int a = after[i] == self->nodes[k];
				int b = before[i] == self->nodes[k];

				/*
				 * a page that moved while it was sampled was
				 * accessed on its node before and after, in
				 * shares the test cannot know
				 */
				acc_lo[j][k] += w * (a && b);
				acc_hi[j][k] += w * (a || b);
			}
		}
	}
	for (j = 0; j < 2; j++) {
		double lo_max = 0, hi_max = 0;

		excl[j][0] /= wsum[j];
		excl[j][1] /= wsum[j];
		loc[j] /= wsum[j];
		loc_hi[j] /= wsum[j];
		/*
		 * B_Acc, (busiest / mean - 1) x 100: it grows with the
		 * busiest node's weight; the total stays
		 */
		for (k = 0; k < T; k++) {
			lo_max = acc_lo[j][k] > lo_max ? acc_lo[j][k] : lo_max;
			hi_max = acc_hi[j][k] > hi_max ? acc_hi[j][k] : hi_max;
		}
		bacc_lo[j] = (lo_max / (wsum[j] / T) - 1) * 100;
		bacc_hi[j] = (hi_max / (wsum[j] / T) - 1) * 100;
	}

	got = jnum(out, "exclusivity");
	lo = 1;
	hi = 0;
	for (j = 0; j < 4; j++) {
		double e = (&excl[0][0])[j];	/* both weighings, both ends */

		lo = e < lo ? e : lo;
		hi = e > hi ? e : hi;
	}
	TH_LOG("exclusivity %.3f, truth %.3f to %.3f (pages alike %.3f to %.3f, "
	       "by writes %.3f to %.3f)", got, lo, hi, excl[0][0], excl[0][1],
	       excl[1][0], excl[1][1]);
	/*
	 * With NUMA balancing on, the pages only read are sampled too, as far
	 * as its scan catches them (its hinting faults): between not at all
	 * and as often as the shared pages, which every worker also reads
	 * once a sweep.  Each is read by every node: its exclusivity lies
	 * between 1/T and the busiest worker's share, as a shared page's.
	 */
	if (nb) {
		for (j = 0; j < 2; j++) {
			double w = (!j ? 1 : ran_all) * READ_PAGES;
			double all = wsum[j] + w;
			double e_lo = (excl[j][0] * wsum[j] + w / T) / all;
			double e_hi = (excl[j][1] * wsum[j] +
				       w * (double)ran_top / ran_all) / all;

			lo = e_lo < lo ? e_lo : lo;
			hi = e_hi > hi ? e_hi : hi;
		}
		TH_LOG("with the pages only read: truth %.3f to %.3f", lo, hi);
	}
	EXPECT_TRUE(held(out, "exclusivity", nb, lo, hi, TOL_EXCL));
	got = jnum(out, "locality");
	lo = loc[0] < loc[1] ? loc[0] : loc[1];
	hi = loc_hi[0] > loc_hi[1] ? loc_hi[0] : loc_hi[1];
	TH_LOG("locality %.3f, truth %.3f to %.3f", got, lo, hi);
	EXPECT_TRUE(held(out, "locality", nb, lo, hi, TOL_LOC));
	got = jnum(out, "access_balance");
	/* the layout's, widened by the pages that moved while sampled */
	lo = bacc_lo[0] < bacc_lo[1] ? bacc_lo[0] : bacc_lo[1];
	hi = bacc_hi[0] > bacc_hi[1] ? bacc_hi[0] : bacc_hi[1];
	lo = lo < 0 ? 0 : lo;
	TH_LOG("access balance %.1f%%, truth %.1f%% to %.1f%%", got, lo, hi);
	/* B_Acc is over every node: the truth's are the CPU nodes */
	if (T == wi_memory_nodes(mem, WI_MAX_NODES))
		EXPECT_TRUE(got >= lo - TOL_BACC && got <= hi + TOL_BACC);
	/*
	 * Nearly every written page sampled; the pages only read, through
	 * NUMA balancing's hinting faults alone.
	 */
	ASSERT_NE(NULL, strstr(out, "\"samples\": {"));
	got = jnum(strstr(out, "\"samples\": {"), "pages");
	TH_LOG("%.0f pages sampled: %d written, %d only read", got, n,
	       READ_PAGES);
	EXPECT_GE(got, 0.9 * n);
	if (nb) {
		EXPECT_GE(got, n + READ_PAGES / 2);
	} else {
		EXPECT_LE(got, n + READ_PAGES / 4);
	}
	/*
	 * Every node holds at least the program's pages there, counted when
	 * bwapd ended: those that were there before and after it ran, but
	 * for a page that NUMA balancing moved away and back meanwhile (two
	 * of its migrations).
	 */
	np = jarray(out, "pages", pages, 64);
	ASSERT_GE(np, T);
	for (j = 0; j < T; j++) {
		long mine = 0;

		for (i = 0; i < n; i++)
			mine += before[i] == self->nodes[j] &&
				after[i] == self->nodes[j];
		EXPECT_GE(pages[self->nodes[j]] + migrated / 2, mine);
	}
	/* dynamicity rests on slices in a row */
	EXPECT_GT(jnum(out, "compared"), 0);
	EXPECT_NE(NULL, strstr(out, "soft-dirty bits cleared"));

	/* the same for people, every mapping too */
	ASSERT_EQ(0, bwapd(out, sizeof(out), text));
	TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "wi_inspect"));
	EXPECT_NE(NULL, strstr(out, "\nverdict: "));
}

TEST_HARNESS_MAIN
