// SPDX-License-Identifier: GPL-2.0
/*
 * wi_bench - cost of weighted interleave in the page fault path and of the
 * weights system calls, measured side by side in one boot.
 *
 *   wi_bench [-s MiB] [-r rounds] [-n calls]
 *
 * Faults a region page by page under each policy, rounds interleaved so
 * that drift hits every variant alike, and reports the median time per
 * page and the ratios weighted / plain interleave, per-process / global
 * weights and, where the kernel has rows of weights per initiator, with
 * per_initiator true / false (every row holding the global weights, so that
 * only the lookup differs).  Then the vmalloc() of a large file descriptor table (the bulk
 * page allocator) under weighted and plain interleave, and
 * set_mempolicy(2) against set_mempolicy_weights(2) on the caller and on
 * another process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wi_common.h"
#include "wi_weights.h"

#define MAX_ROUNDS	64

enum scope { TASK, VMA };

struct variant {
	const char *name;
	int mode;
	enum scope scope;
	bool own_weights;	/* per-process weights instead of global */
	bool rows;		/* per_initiator true */
	double ns[MAX_ROUNDS];
	double median;
};

struct bench {
	int nodes[WI_MAX_NODES];
	int nr;
	long nr_node_ids;
	uint8_t vec[WI_WEIGHTS_MAX_NODES];
	size_t npages;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void die(const char *what)
{
	fprintf(stderr, "wi_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Nanoseconds per page to fault the region under the variant's policy. */
static double fault_ns(struct bench *b, const struct variant *v)
{
	const size_t len = b->npages * WI_PAGE_SIZE;
	struct wi_mask mask;
	double t0, t1;
	char *p;

	wi_mask_from_nodes(&mask, b->nodes, b->nr);
	if (v->own_weights &&
	    wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, b->vec,
				b->nr_node_ids, 0))
		die("set_mempolicy_weights");
	if (v->rows && wi_set_per_initiator(true))
		die("per_initiator");
	p = wi_mmap_anon(len);
	if (!p)
		die("mmap");
	if (v->scope == VMA && v->mode != MPOL_DEFAULT &&
	    wi_mbind(p, len, v->mode, &mask, 0))
		die("mbind");
	if (v->scope == TASK && v->mode != MPOL_DEFAULT &&
	    wi_set_mempolicy(v->mode, &mask))
		die("set_mempolicy");

	t0 = now_ns();
	wi_fault_pages(p, b->npages, WI_PAGE_SIZE);
	t1 = now_ns();

	wi_set_mempolicy(MPOL_DEFAULT, NULL);
	munmap(p, len);
	if (v->own_weights)
		wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0, 0);
	if (v->rows)
		wi_set_per_initiator(false);
	return (t1 - t0) / b->npages;
}

static struct variant *find(struct variant *v, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static void ratio(struct variant *v, int n, const char *num, const char *den,
		  const char *label)
{
	struct variant *a = find(v, n, num), *b = find(v, n, den);

	if (a && b)
		printf("  %-48s %.3f\n", label, a->median / b->median);
}

/*
 * vmalloc(): growing the file descriptor table to NR_FDS entries makes the
 * kernel vmalloc() an 8 MiB table for the task, in 4 KiB pages from the
 * bulk allocator under the task policy when booted with nohugevmalloc.
 */
#define NR_FDS		(1L << 20)
#define TABLE_PAGES	(NR_FDS * sizeof(void *) / WI_PAGE_SIZE)

/* Nanoseconds per table page for one growth, in a child (fresh table). */
static double vmalloc_ns(struct bench *b, int mode)
{
	struct rlimit rl = { NR_FDS, NR_FDS };
	struct wi_mask mask;
	double t[2] = { 0, 0 };
	int pipefd[2], status;
	pid_t pid;

	if (pipe(pipefd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		wi_mask_from_nodes(&mask, b->nodes, b->nr);
		if (setrlimit(RLIMIT_NOFILE, &rl) ||
		    wi_set_mempolicy(mode, &mask))
			_exit(1);
		t[0] = now_ns();
		if (dup2(0, NR_FDS - 1) != NR_FDS - 1)
			_exit(2);
		t[1] = now_ns();
		_exit(write(pipefd[1], t, sizeof(t)) == sizeof(t) ? 0 : 3);
	}
	close(pipefd[1]);
	if (read(pipefd[0], t, sizeof(t)) != sizeof(t))
		t[0] = t[1] = -1;
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return (t[1] - t[0]) / TABLE_PAGES;
}

/*
 * Weighted against plain interleave for the vmalloc() of a large file
 * descriptor table, median of rounds alternating the two.  Returns the
 * ratio, or 0 where it cannot be measured.
 */
static double bench_vmalloc(struct bench *b, int rounds)
{
	double wi[MAX_ROUNDS], il[MAX_ROUNDS];
	char cmdline[4096] = "";
	int r;

	wi_read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	if (!strstr(cmdline, "nohugevmalloc") ||
	    wi_read_long("/proc/sys/fs/nr_open") < NR_FDS) {
		printf("\nvmalloc: not measured (needs nohugevmalloc and nr_open >= %ld)\n",
		       NR_FDS);
		return 0;
	}
	for (r = 0; r < rounds; r++) {
		if (r & 1) {
			wi[r] = vmalloc_ns(b, MPOL_WEIGHTED_INTERLEAVE);
			il[r] = vmalloc_ns(b, MPOL_INTERLEAVE);
		} else {
			il[r] = vmalloc_ns(b, MPOL_INTERLEAVE);
			wi[r] = vmalloc_ns(b, MPOL_WEIGHTED_INTERLEAVE);
		}
		if (wi[r] < 0 || il[r] < 0)
			die("growing the file descriptor table");
	}
	printf("\nvmalloc of a %lu-page file descriptor table (median of %d rounds):\n",
	       TABLE_PAGES, rounds);
	printf("  %-48s %8.1f ns/page\n", "interleave, task", median(il, rounds));
	printf("  %-48s %8.1f ns/page\n", "weighted, task", median(wi, rounds));
	return median(wi, rounds) / median(il, rounds);
}

/* Nanoseconds per call of fn over n calls. */
static double per_call(long (*fn)(struct bench *, int), struct bench *b,
		       int arg, long n)
{
	double t0;
	long i;

	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (fn(b, arg))
			die("system call");
	return (now_ns() - t0) / n;
}

static long call_set_mempolicy(struct bench *b, int unused)
{
	struct wi_mask mask;

	(void)unused;
	wi_mask_from_nodes(&mask, b->nodes, b->nr);
	return wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &mask);
}

static long call_set_weights(struct bench *b, int pidfd)
{
	return wi_set_task_weights(pidfd, b->vec, b->nr_node_ids, 0);
}

static long call_get_weights(struct bench *b, int pidfd)
{
	uint8_t w[WI_WEIGHTS_MAX_NODES];

	return wi_get_task_weights(pidfd, w, b->nr_node_ids,
				   MPOL_WEIGHTS_EFFECTIVE) < 0;
}

static void bench_syscalls(struct bench *b, long calls)
{
	double base, self, other, get;
	int pidfd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		pause();
		_exit(0);
	}
	pidfd = wi_pidfd_open(pid);
	if (pidfd < 0)
		die("pidfd_open");

	/* Warm up, then measure each call the same number of times. */
	per_call(call_set_mempolicy, b, 0, calls / 10);
	base = per_call(call_set_mempolicy, b, 0, calls);
	self = per_call(call_set_weights, b, PIDFD_SELF_THREAD_GROUP, calls);
	other = per_call(call_set_weights, b, pidfd, calls);
	get = per_call(call_get_weights, b, pidfd, calls);
	wi_set_mempolicy(MPOL_DEFAULT, NULL);
	wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0, 0);

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(pidfd);

	printf("\nSystem calls, %ld calls each:\n", calls);
	printf("  %-48s %8.0f ns\n", "set_mempolicy(WEIGHTED_INTERLEAVE)", base);
	printf("  %-48s %8.0f ns  %.2fx\n", "set_mempolicy_weights(self)", self,
	       self / base);
	printf("  %-48s %8.0f ns  %.2fx\n", "set_mempolicy_weights(other process)",
	       other, other / base);
	printf("  %-48s %8.0f ns  %.2fx\n",
	       "get_mempolicy_weights(other, EFFECTIVE)", get, get / base);
}

/* The ratios reported: numerator, denominator, label. */
static const char *const ratios[][3] = {
	{ "weighted, task", "interleave, task",
	  "weighted / interleave, task policy" },
	{ "weighted, vma", "interleave, vma",
	  "weighted / interleave, VMA policy" },
	{ "weighted, task, own weights", "weighted, task",
	  "own / global weights, task policy" },
	{ "weighted, vma, own weights", "weighted, vma",
	  "own / global weights, VMA policy" },
	{ "weighted, task, rows per initiator", "weighted, task",
	  "rows on / off, task policy" },
	{ "weighted, vma, rows per initiator", "weighted, vma",
	  "rows on / off, VMA policy" },
	{ "weighted, task, rows per initiator", "interleave, task",
	  "rows on / interleave, task policy" },
	{ "weighted, vma, rows per initiator", "interleave, vma",
	  "rows on / interleave, VMA policy" },
};

int main(int argc, char **argv)
{
	static const unsigned int weights[] = { 5, 3, 1, 1 };
#define VARIANT(n, m, s, o, w) { .name = n, .mode = m, .scope = s, \
				.own_weights = o, .rows = w }
	struct variant v[] = {
		VARIANT("default (local)", MPOL_DEFAULT, TASK, false, false),
		VARIANT("interleave, task", MPOL_INTERLEAVE, TASK, false, false),
		VARIANT("weighted, task", MPOL_WEIGHTED_INTERLEAVE, TASK, false,
			false),
		VARIANT("weighted, task, own weights", MPOL_WEIGHTED_INTERLEAVE,
			TASK, true, false),
		VARIANT("weighted, task, rows per initiator",
			MPOL_WEIGHTED_INTERLEAVE, TASK, false, true),
		VARIANT("interleave, vma", MPOL_INTERLEAVE, VMA, false, false),
		VARIANT("weighted, vma", MPOL_WEIGHTED_INTERLEAVE, VMA, false,
			false),
		VARIANT("weighted, vma, own weights", MPOL_WEIGHTED_INTERLEAVE,
			VMA, true, false),
		VARIANT("weighted, vma, rows per initiator",
			MPOL_WEIGHTED_INTERLEAVE, VMA, false, true),
	};
	int nv = sizeof(v) / sizeof(v[0]), rounds = 7, r, i, k, opt;
	int ini[WI_MAX_NODES], nini;
	unsigned int w[WI_MAX_NODES];
	long mib = 128, calls = 20000;
	double vmalloc_ratio;
	bool own, rows;
	struct bench b;
	char buf[256];

	while ((opt = getopt(argc, argv, "s:r:n:")) != -1) {
		switch (opt) {
		case 's':
			mib = atol(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'n':
			calls = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: wi_bench [-s MiB] [-r rounds] [-n calls]\n");
			return 2;
		}
	}
	if (mib <= 0 || rounds < 1 || rounds > MAX_ROUNDS || calls < 10) {
		fprintf(stderr, "wi_bench: bad option value\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!wi_sysfs_present()) {
		fprintf(stderr, "wi_bench: kernel without weighted interleave\n");
		return 1;
	}
	b.nr = wi_pick_nodes(4, b.nodes);
	if (b.nr < 2) {
		fprintf(stderr, "wi_bench: needs at least 2 memory nodes\n");
		return 1;
	}
	b.npages = (mib << 20) / WI_PAGE_SIZE;
	for (i = 0; i < b.nr; i++)
		w[i] = i < 4 ? weights[i] : 1;
	own = wi_task_weights_supported() == 1;
	if (own) {
		b.nr_node_ids = wi_get_task_weights(PIDFD_SELF_THREAD_GROUP,
						    NULL, 0, 0);
		wi_weights_vec(b.vec, sizeof(b.vec), b.nodes, w, b.nr);
	}
	rows = wi_per_initiator() >= 0;
	/* Keep only the variants this kernel has. */
	for (i = r = 0; i < nv; i++)
		if ((own || !v[i].own_weights) && (rows || !v[i].rows))
			v[r++] = v[i];
	nv = r;

	wi_state_save();
	wi_restore_at_exit();
	/*
	 * Same weights globally, per process and in every row: only the
	 * lookup differs.
	 */
	if (wi_set_weights(b.nodes, w, b.nr))
		die("writing the global weights");
	nini = rows ? wi_row_initiators(ini, WI_MAX_NODES) : 0;
	for (k = 0; k < nini; k++)
		for (i = 0; i < b.nr; i++)
			if (wi_set_row(ini[k], b.nodes[i], w[i]))
				die("writing a row per initiator");

	printf("wi_bench: %ld MiB faulted page by page, %d rounds, nodes %s, weights",
	       mib, rounds, wi_nodes_str(b.nodes, b.nr, buf, sizeof(buf)));
	for (i = 0; i < b.nr; i++)
		printf("%c%u", i ? ':' : ' ', w[i]);
	printf("\n");

	for (r = 0; r < rounds; r++)
		for (i = 0; i < nv; i++) {
			struct variant *x = &v[(i + r) % nv];

			x->ns[r] = fault_ns(&b, x);
		}

	printf("\nPage faults (median of %d rounds):\n", rounds);
	for (i = 0; i < nv; i++) {
		v[i].median = median(v[i].ns, rounds);
		printf("  %-48s %8.1f ns/page\n", v[i].name, v[i].median);
	}
	vmalloc_ratio = bench_vmalloc(&b, rounds);

	printf("\nRatios:\n");
	for (i = 0; i < (int)(sizeof(ratios) / sizeof(ratios[0])); i++)
		ratio(v, nv, ratios[i][0], ratios[i][1], ratios[i][2]);
	if (vmalloc_ratio > 0)
		printf("  %-48s %.3f\n", "weighted / interleave, vmalloc",
		       vmalloc_ratio);

	if (own)
		bench_syscalls(&b, calls);
	else
		printf("\nNo set_mempolicy_weights(2): system calls not timed.\n");

	return wi_state_restore() ? 1 : 0;
}
