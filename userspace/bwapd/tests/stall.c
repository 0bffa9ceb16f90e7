// SPDX-License-Identifier: GPL-2.0
/*
 * A process's counters for the DWP tuner, on real perf fds: the kernel's
 * software events stand in for the CPU's (this host may have no PMU).
 * One event group per thread, read as a group; new threads picked up on
 * the rescan clock, not at every read; a group that cannot be opened is
 * an error with the reason, not a thread that counts 0.  Counts by node
 * go to the node of the CPU each thread runs on.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "bwapd_test.h"
#include "stall.h"

static struct stall s;

/*
 * Countable stand-ins: page faults lead (the stall event), minor faults
 * stand for cache misses.  (The clocks count 0 as members of a group
 * led by another software PMU, so none is used.)
 */
static void events(struct perf_event_attr *a, int *have)
{
	static const uint64_t cfg[STALL_NR_EVENTS] = {
		PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CONTEXT_SWITCHES,
		PERF_COUNT_SW_CPU_MIGRATIONS, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	};
	int k;

	memset(a, 0, sizeof(*a) * STALL_NR_EVENTS);
	for (k = 0; k < STALL_NR_EVENTS; k++) {
		a[k].type = PERF_TYPE_SOFTWARE;
		a[k].config = cfg[k];
		have[k] = 1;
	}
}

/* The groups on this process's threads. */
static int open_self(char *why, size_t len)
{
	struct perf_event_attr a[STALL_NR_EVENTS];
	int have[STALL_NR_EVENTS];

	events(a, have);
	return stall_open_events(&s, getpid(), a, have, why, len);
}

static int can_count_self(char *why, size_t len)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_PAGE_FAULTS };
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0UL);

	if (fd < 0) {
		snprintf(why, len, "perf_event_open on itself: %s", strerror(errno));
		return 0;
	}
	close((int)fd);
	return 1;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int go;

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!go)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void release(pthread_t t)
{
	pthread_mutex_lock(&lock);
	go = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
	go = 0;
}

TEST(one_group_per_thread)
{
	struct bwapd_counters c0, c1;
	int k, i;
	uint64_t v[3 + STALL_NR_EVENTS];
	char why[256];
	char *p;

	if (!can_count_self(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, open_self(why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(1, s.nr);
	/* the leader reads the whole group: four values, one time pair */
	ASSERT_EQ((ssize_t)sizeof(v), read(s.thread[0].fd[0], v, sizeof(v)));
	EXPECT_EQ(4u, v[0]);
	for (k = 0; k < STALL_NR_EVENTS; k++)
		EXPECT_LE(0, s.thread[0].fd[k]);
	/* the counts move with what the thread does: 64 new pages, 64 faults */
	ASSERT_EQ(0, stall_read(&s, &c0));
	p = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < 64; i++)
		p[i * 4096] = 1;
	ASSERT_EQ(0, stall_read(&s, &c1));
	EXPECT_LE(c0.mem_accesses + 64, c1.mem_accesses);
	EXPECT_LE(c0.stall_cycles + 64, c1.stall_cycles);
	EXPECT_EQ(BWAPD_HAVE_STALLS | BWAPD_HAVE_MAPI, c1.have);
	munmap(p, 64 * 4096);
	stall_close(&s);
}

/* New threads: on the rescan clock, not at every 10 ms sample. */
TEST(threads_rescanned_on_a_slower_clock)
{
	int scans;
	struct bwapd_counters c;
	char why[256];
	pthread_t t;

	if (!can_count_self(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, open_self(why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(1.0, s.scan_s);
	s.scan_s = 1e9;		/* never again */
	scans = s.scans;
	ASSERT_EQ(0, pthread_create(&t, NULL, waiter, NULL));
	ASSERT_EQ(0, stall_read(&s, &c));
	ASSERT_EQ(0, stall_read(&s, &c));
	EXPECT_EQ(scans, s.scans);
	EXPECT_EQ(1, s.nr);
	s.scan_s = 0;		/* due: the new thread gets its group */
	ASSERT_EQ(0, stall_read(&s, &c));
	EXPECT_EQ(scans + 1, s.scans);
	EXPECT_EQ(2, s.nr);
	release(t);
	stall_close(&s);
}

/* Touch n new pages: n page faults, the stand-in stall event. */
static void fault_pages(int n)
{
	char *p = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		return;
	for (i = 0; i < n; i++)
		((volatile char *)p)[i * 4096] = 1;
	munmap(p, (size_t)n * 4096);
}

static int phase;

static void wait_phase(int want)
{
	pthread_mutex_lock(&lock);
	while (phase < want)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void set_phase(int now)
{
	pthread_mutex_lock(&lock);
	phase = now;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static int pin(pthread_t t, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(t, sizeof(set), &set);
}

static int far_cpu;

/* On its own CPU: 256 faults once told, then it waits to be let go. */
static void *far_thread(void *arg)
{
	int *ok = arg;

	*ok = !pin(pthread_self(), far_cpu);
	set_phase(1);
	wait_phase(2);
	fault_pages(256);
	set_phase(3);
	wait_phase(4);
	return NULL;
}

/*
 * Two threads on two CPUs the test puts on two nodes: each one's faults
 * count on its own node, and the nodes add up to the whole.
 */
TEST(counts_by_the_node_of_the_cpu)
{
	static uint16_t cpu_node[BWAPD_MAX_CPUS];
	struct bwapd_counters c0, c1;
	int cpu[2], n = 0, i, ok = 0;
	uint64_t sum = 0;
	cpu_set_t old;
	char why[256];
	pthread_t t;

	if (!can_count_self(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pthread_getaffinity_np(pthread_self(), sizeof(old), &old));
	for (i = 0; i < CPU_SETSIZE && i < BWAPD_MAX_CPUS && n < 2; i++)
		if (CPU_ISSET(i, &old))
			cpu[n++] = i;
	if (n < 2)
		SKIP(return, "one CPU to run on");
	for (i = 0; i < BWAPD_MAX_CPUS; i++)
		cpu_node[i] = BWAPD_NO_NODE;
	cpu_node[cpu[0]] = 0;
	cpu_node[cpu[1]] = 1;
	far_cpu = cpu[1];
	ASSERT_EQ(0, pin(pthread_self(), cpu[0]));
	phase = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, far_thread, &ok));
	wait_phase(1);
	ASSERT_EQ(1, ok);
	ASSERT_EQ(0, open_self(why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(2, s.nr);
	stall_by_node(&s, cpu_node, BWAPD_MAX_CPUS);
	ASSERT_EQ(0, stall_read(&s, &c0));
	EXPECT_NE(0u, c0.have & BWAPD_HAVE_NODES);
	set_phase(2);
	wait_phase(3);
	fault_pages(32);
	ASSERT_EQ(0, stall_read(&s, &c1));
	set_phase(4);
	pthread_join(t, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	EXPECT_LE(c0.node_stall_cycles[1] + 256, c1.node_stall_cycles[1]);
	EXPECT_LE(c0.node_stall_cycles[0] + 32, c1.node_stall_cycles[0]);
	EXPECT_GT(c0.node_stall_cycles[0] + 256, c1.node_stall_cycles[0]);
	for (i = 0; i < BWAPD_MAX_NODES; i++)
		sum += c1.node_stall_cycles[i];
	EXPECT_EQ(c1.stall_cycles, sum);
	stall_close(&s);
}

/* Out of file descriptors: an error that says so, not a silent 0. */
TEST(open_failure_is_an_error)
{
	int fd, ret;
	struct bwapd_counters c;
	struct rlimit old, r;
	char why[256];
	pthread_t t;

	if (!can_count_self(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, open_self(why, sizeof(why))) TH_LOG("%s", why);
	s.scan_s = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, waiter, NULL));
	/* one descriptor left (for /proc/PID/task), none for the group */
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &old));
	fd = dup(0);
	ASSERT_LE(0, fd);
	close(fd);
	r = old;
	r.rlim_cur = (rlim_t)fd + 1;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &r));
	ret = stall_read(&s, &c);
	setrlimit(RLIMIT_NOFILE, &old);
	EXPECT_EQ(-EMFILE, ret);
	EXPECT_NE(NULL, strstr(s.why, "4 file descriptors each")) TH_LOG("%s", s.why);
	release(t);
	stall_close(&s);
}

TEST_HARNESS_MAIN
