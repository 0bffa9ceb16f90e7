// SPDX-License-Identifier: GPL-2.0
/*
 * A process's threads as bwapd reads them from /proc, on a real process
 * whose threads are known by construction: a main thread that sleeps
 * and two that spin, under a name with a space and parentheses (which
 * /proc/PID/stat does not escape).  The tuner's fit takes the threads
 * that run on each node from this (bestshot.h).
 */
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "bwapd_test.h"
#include "target.h"
#include "threads.h"
#include "topology.h"

#define SPINNERS	2
#define TRIES		2000	/* snapshots until the main thread sleeps */

static void *spin(void *arg)
{
	volatile unsigned long *n = arg;

	for (;;)
		(*n)++;
	return NULL;
}

static pid_t spinner(int ready[2])
{
	static unsigned long count[SPINNERS];
	pid_t pid = fork();
	pthread_t th;
	int i;

	if (pid)
		return pid;
	prctl(PR_SET_NAME, "a) b (c", 0, 0, 0);
	for (i = 0; i < SPINNERS; i++)
		if (pthread_create(&th, NULL, spin, &count[i]))
			_exit(2);
	if (write(ready[1], "r", 1) != 1)
		_exit(3);
	for (;;)
		pause();
}

FIXTURE(proc)
{
	struct bwapd_topology topo;
	int ready[2];
	pid_t pid;
};

FIXTURE_SETUP(proc)
{
	char why[512] = "", c;

	ASSERT_EQ(0, bwapd_topology_read("", &self->topo, why, sizeof(why)))
		TH_LOG("%s", why);
	ASSERT_EQ(0, pipe(self->ready));
	self->pid = spinner(self->ready);
	ASSERT_LT(0, self->pid);
	ASSERT_EQ(1, read(self->ready[0], &c, 1));
}

FIXTURE_TEARDOWN(proc)
{
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
	close(self->ready[0]);
	close(self->ready[1]);
}

/* Every thread, parsed past the name; the spinners run, the main thread does not. */
TEST_F(proc, threads_and_their_states)
{
	struct bwapd_thread t[16];
	int n, i, k, running = 0;

	for (k = 0; k < TRIES; k++) {
		n = bwapd_process_threads(self->pid, t, 16);
		ASSERT_EQ(SPINNERS + 1, n);
		running = 0;
		for (i = 0; i < n; i++) {
			EXPECT_LE(0, t[i].cpu);
			EXPECT_GT(self->topo.nr_cpus, t[i].cpu);
			EXPECT_LE(0, t[i].ticks);
			running += t[i].state == 'R';
		}
		if (running == SPINNERS)
			break;
		usleep(5000);
	}
	EXPECT_EQ(SPINNERS, running);
	/* the main thread is the one with the process's id, asleep */
	for (i = 0; i < n && t[i].tid != self->pid; i++)
		;
	ASSERT_GT(n, i);
	EXPECT_EQ('S', t[i].state);
}

/* The process target counts the running threads by the node of their CPU. */
TEST_F(proc, target_counts_running_threads_by_node)
{
	struct bwapd_target tg;
	int threads[BWAPD_MAX_NODES], k, j, sum = 0;

	ASSERT_EQ(0, bwapd_target_process(&tg, self->pid, self->topo.nr_nodes,
					  &self->topo)) TH_LOG("%s", tg.why);
	ASSERT_NE(NULL, tg.ops->threads);
	for (k = 0; k < TRIES; k++) {
		sum = 0;
		if (!tg.ops->threads(&tg, threads, self->topo.nr_nodes))
			for (j = 0; j < self->topo.nr_nodes; j++)
				sum += threads[j];
		if (sum == SPINNERS)
			break;
		usleep(5000);
	}
	EXPECT_EQ(SPINNERS, sum);
	bwapd_target_close(&tg);
}

TEST(gone_process)
{
	struct bwapd_thread t[4];
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	EXPECT_EQ(-ESRCH, bwapd_process_threads(pid, t, 4));
}

TEST_HARNESS_MAIN
