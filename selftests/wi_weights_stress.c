// SPDX-License-Identifier: GPL-2.0
/*
 * Rewrite the weights of a process from another process while its threads
 * fault memory under weighted interleave.
 *
 * The target runs four threads that allocate, fault and free memory under
 * weighted interleave task and VMA policies and read their own weights.
 * The weights a thread reads must always be one of the vectors the writer
 * publishes, never a mix, and every page must land on a node of the
 * policy.  Once the writer is done, the target's allocations must follow
 * the last weights exactly.  The debug kernel (lockdep, KASAN, DEBUG_VM)
 * reports any locking or memory error on the console, which fails the run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wi_harness.h"
#include "wi_weights.h"

#define THREADS		4
#define VECTORS		4
#define CHUNK_PAGES	64
/*
 * Rewrites; WI_STRESS_REWRITES in the environment overrides it.  Under the
 * debug kernel in the emulated machine a rewrite takes about a millisecond
 * while four threads fault: 25000 of them give each thread thousands of
 * allocations under changing weights.
 */
#define REWRITES	25000

struct shared {
	atomic_int stop;
	atomic_long rounds;
	atomic_long torn;
	atomic_long stray;
	atomic_long errors;
};

struct target {
	struct shared *sh;
	const int *nodes;
	int nr;
	long n;
	uint8_t vecs[VECTORS][WI_WEIGHTS_MAX_NODES];
	int id;
};

static bool is_published(struct target *t, const uint8_t *w)
{
	int i;

	for (i = 0; i < VECTORS; i++)
		if (!memcmp(w, t->vecs[i], t->n))
			return true;
	return false;
}

static void *fault_loop(void *arg)
{
	struct target *t = arg;
	const size_t len = CHUNK_PAGES * WI_PAGE_SIZE;
	int where[CHUNK_PAGES], i, j;
	uint8_t w[WI_WEIGHTS_MAX_NODES];
	struct wi_mask mask;
	long round;

	wi_mask_from_nodes(&mask, t->nodes, t->nr);
	/* Half the threads use the task policy, half a VMA policy. */
	if (t->id & 1 && wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &mask))
		atomic_fetch_add(&t->sh->errors, 1);

	for (round = 0; !atomic_load(&t->sh->stop); round++) {
		char *p = wi_mmap_anon(len);

		if (!p) {
			atomic_fetch_add(&t->sh->errors, 1);
			break;
		}
		if (!(t->id & 1) &&
		    wi_mbind(p, len, MPOL_WEIGHTED_INTERLEAVE, &mask, 0))
			atomic_fetch_add(&t->sh->errors, 1);
		wi_fault_pages(p, CHUNK_PAGES, WI_PAGE_SIZE);
		if (wi_page_nodes(p, CHUNK_PAGES, WI_PAGE_SIZE, where))
			atomic_fetch_add(&t->sh->errors, 1);
		for (i = 0; i < CHUNK_PAGES; i++) {
			for (j = 0; j < t->nr && where[i] != t->nodes[j]; j++)
				;
			if (j == t->nr)
				atomic_fetch_add(&t->sh->stray, 1);
		}
		munmap(p, len);

		if (wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, w, t->n, 0)
		    != t->n)
			atomic_fetch_add(&t->sh->errors, 1);
		else if (!is_published(t, w))
			atomic_fetch_add(&t->sh->torn, 1);
		atomic_fetch_add(&t->sh->rounds, 1);
	}
	return NULL;
}

static int run_target(struct target *proto, int go_fd, const unsigned int *last)
{
	struct target t[THREADS];
	pthread_t tid[THREADS];
	char c;
	int i;

	for (i = 0; i < THREADS; i++) {
		t[i] = *proto;
		t[i].id = i;
		if (pthread_create(&tid[i], NULL, fault_loop, &t[i]))
			return 20;
	}
	/* The writer closes its end when it is done. */
	while (read(go_fd, &c, 1) > 0)
		;
	atomic_store(&proto->sh->stop, 1);
	for (i = 0; i < THREADS; i++)
		pthread_join(tid[i], NULL);
	return wi_vma_misplaced(proto->nodes, last, proto->nr) ? 21 : 0;
}

FIXTURE(stress) {
	bool setup_skipped;
	int nr;
	int nodes[WI_MAX_NODES];
	long n;
};

FIXTURE_SETUP(stress)
{
	self->setup_skipped = false;
	if (wi_task_weights_supported() != 1)
		WI_SETUP_SKIP("kernel without per-process weights");
	self->nr = wi_pick_nodes(4, self->nodes);
	if (self->nr < 2)
		WI_SETUP_SKIP("needs 2 memory nodes, have %d", self->nr);
	self->n = wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0, 0);
}

FIXTURE_TEARDOWN(stress)
{
}

TEST_F_TIMEOUT(stress, rewrite_while_faulting, 3600)
{
	static const unsigned int w[VECTORS][4] = {
		{ 5, 3, 1, 1 }, { 1, 1, 1, 1 }, { 1, 9, 2, 7 }, { 255, 1, 0, 3 },
	};
	const char *env = getenv("WI_STRESS_REWRITES");
	long rewrites = env ? atol(env) : REWRITES, i;
	struct timespec t0, t1;
	struct target proto;
	struct shared *sh;
	int pipefd[2], pidfd, status;
	unsigned int last[4];
	double secs;
	pid_t pid;

	WI_TEST_START();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));

	memset(&proto, 0, sizeof(proto));
	proto.sh = sh;
	proto.nodes = self->nodes;
	proto.nr = self->nr;
	proto.n = self->n;
	for (i = 0; i < VECTORS; i++)
		wi_weights_vec(proto.vecs[i], sizeof(proto.vecs[i]),
			       self->nodes, w[i], self->nr);
	/* The last vector written is vecs[(rewrites - 1) % VECTORS]. */
	for (i = 0; i < self->nr; i++) {
		unsigned int v = w[(rewrites - 1) % VECTORS][i];

		last[i] = v ? v : (unsigned int)wi_read_weight(self->nodes[i]);
	}
	/* Start from a published vector, so that every read must match. */
	ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP,
					 proto.vecs[VECTORS - 1], self->n, 0));

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pipefd[1]);
		_exit(run_target(&proto, pipefd[0], last));
	}
	close(pipefd[0]);
	pidfd = wi_pidfd_open(pid);
	ASSERT_LE(0, pidfd);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < rewrites; i++) {
		if (wi_set_task_weights(pidfd, proto.vecs[i % VECTORS],
					self->n, 0)) {
			TH_LOG("rewrite %ld failed: %s", i, strerror(errno));
			break;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_EQ(rewrites, i);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	close(pipefd[1]);

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(pidfd);
	TH_LOG("%ld rewrites in %.1f s while the target ran %ld rounds of %d pages",
	       i, secs, atomic_load(&sh->rounds), CHUNK_PAGES);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_LT(0, atomic_load(&sh->rounds));
	EXPECT_EQ(0, atomic_load(&sh->torn));
	EXPECT_EQ(0, atomic_load(&sh->stray));
	EXPECT_EQ(0, atomic_load(&sh->errors));
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
