/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kselftest_harness.h plus helpers shared by the model's tests.  Include
 * this once, from the test's .c file.
 */
#ifndef BWM_TEST_H
#define BWM_TEST_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Older harness versions trip -Wunused-parameter in their own code. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bwmodel.h"

/*
 * Time limits that a loaded machine does not break.  The harness ends a
 * test after TEST_TIMEOUT_DEFAULT seconds (30) of wall-clock time, which
 * two CPU-bound neighbours on a two-core machine stretch past for a test
 * that needs 20 s of CPU.  Here each test is limited by the CPU time it
 * uses instead: RLIMIT_CPU, set before the harness forks the test (the
 * limit is per process, and a forked child starts from zero).  The limit
 * is BWM_TEST_CPU_SECONDS, several times what the largest test uses on
 * the reference machine, scaled by how much slower this machine runs a
 * fixed computation (never made smaller).  The wall-clock limit is kept
 * only to end a test that blocks, far above any test's run time under
 * load.  A test file may define BWM_TEST_CPU_SECONDS before including
 * this.
 */
#ifndef BWM_TEST_CPU_SECONDS
#define BWM_TEST_CPU_SECONDS 240
#endif
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 1800
/* CPU time of bwm_test_reference_work() on the reference machine */
#define BWM_TEST_REFERENCE_NS 22000000.0

static inline double bwm_test_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* a fixed computation: floating point and memory, as the tests do */
static inline double bwm_test_reference_work(void)
{
	double buf[4096] = { 0 };
	double acc = 0;
	int i;

	for (i = 0; i < 4000000; i++) {
		buf[(i * 7) & 4095] += acc * 0.5 + i;
		acc = buf[(i * 13) & 4095] * 1e-9 + acc * 0.999;
	}
	return acc;
}

static void bwm_test_cpu_exceeded(int sig)
{
	static const char msg[] =
		"# test used its CPU time limit (bwm_test.h): stopped\n";

	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void __attribute__((constructor)) bwm_test_cpu_limit(void)
{
	double t0 = bwm_test_cpu_ns(), slower;
	volatile double sink = bwm_test_reference_work();
	struct rlimit rl;

	(void)sink;
	slower = (bwm_test_cpu_ns() - t0) / BWM_TEST_REFERENCE_NS;
	if (!(slower > 1))
		slower = 1;
	rl.rlim_cur = (rlim_t)(BWM_TEST_CPU_SECONDS * slower);
	rl.rlim_max = rl.rlim_cur + 10;
	signal(SIGXCPU, bwm_test_cpu_exceeded);
	if (setrlimit(RLIMIT_CPU, &rl))
		fprintf(stderr, "# setrlimit(RLIMIT_CPU): %s\n", strerror(errno));
}

/* |expected - seen| <= tol, printing both as doubles on failure. */
#define EXPECT_NEAR(expected, seen, tol) do {				\
	double __e = (expected), __s = (seen);				\
	EXPECT_TRUE(fabs(__e - __s) <= (tol))				\
		TH_LOG("%s = %.9g, expected %.9g (+-%g)", #seen, __s,	\
		       __e, (double)(tol));				\
} while (0)

/* a > b as doubles */
#define EXPECT_GT_D(a, b) do {						\
	double __a = (a), __b = (b);					\
	EXPECT_TRUE(__a > __b)						\
		TH_LOG("%s = %.9g is not > %s = %.9g", #a, __a, #b, __b); \
} while (0)

/* A preset machine and workload, bound to 'workers' (0: the file's). */
static inline int bwm_test_load(const char *machine, const char *workload,
				uint32_t workers, struct bwm_machine *m,
				struct bwm_workload *wl)
{
	char msg[512];
	int ret = bwm_preset_load(BWM_DATADIR, machine, workload, workers, m,
				  wl, msg, sizeof(msg));

	if (ret)
		fprintf(stderr, "# %s\n", msg);
	return ret;
}

/*
 * The BWAP paper's idealised machine: bandwidth only on the paths
 * (controllers and interconnect never limit), no queueing.
 */
static inline void bwm_test_ideal_machine(struct bwm_machine *m, int n,
					  const double bw[][4])
{
	int i, j;

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "ideal");
	m->nr_nodes = n;
	m->cpu_ghz = 2;
	m->queue_factor = 0;
	for (i = 0; i < n; i++) {
		m->node[i].cpus = 4;
		m->node[i].ctrl_read_gbps = 1e6;
		m->node[i].ctrl_write_gbps = 1e6;
		for (j = 0; j < n; j++) {
			m->read_gbps[i][j] = bw[i][j];
			m->write_gbps[i][j] = bw[i][j];
			m->latency_ns[i][j] = 100;
		}
	}
}

/* The canonical application: read-only, shared, bandwidth-bound. */
static inline void bwm_test_canonical_app(struct bwm_workload *wl,
					  uint32_t workers, int threads)
{
	int i;

	memset(wl, 0, sizeof(*wl));
	snprintf(wl->name, sizeof(wl->name), "canonical");
	wl->workers = workers;
	for (i = 0; i < BWM_MAX_NODES; i++)
		wl->threads[i] = workers & (1u << i) ? threads : 0;
	wl->demand_gbps = 1e6;
	wl->mlp = 1e6;
	wl->shared = 1;
	wl->read = 1;
	wl->work_gb = 1;
	wl->first_touch_node = -1;
}

#endif /* BWM_TEST_H */
