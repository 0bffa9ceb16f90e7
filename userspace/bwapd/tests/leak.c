// SPDX-License-Identifier: GPL-2.0
/*
 * A tuner runs for as long as the process it tunes: nothing it holds may
 * grow with the steps it takes.  10,000 cycles in one process, each a
 * step of the tuner on a workload of the model (set the weights, migrate
 * the pages, measure) and the status file rewritten, as a tuner does
 * after every step; tunings start from every DWP in turn and the
 * workload changes phase now and then, so that every path of the search
 * is taken.  The open file descriptors and the heap in use at cycle
 * 10,000 are those of cycle 1,000 (warmed up) within a small fixed
 * slack, and LeakSanitizer finds nothing unreachable at the end.  Counts
 * only, never time.
 */
#include <dirent.h>
#include <malloc.h>

#include "bwapd_test.h"
#include "status.h"
#include "target.h"
#include "tune.h"

#define CYCLES		10000
#define WARM		1000		/* the first measurement */
#define FD_SLACK	2
#define HEAP_SLACK	4096		/* bytes: under half a byte a cycle */

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>

/*
 * Under ASan its allocator serves malloc and mallinfo2() says 0 whatever
 * is allocated; ASan's own count of the bytes in use leaves out freed
 * blocks held in quarantine, which RSS would not.
 * (sanitizer/allocator_interface.h declares it; gcc 12 lacks it.)
 */
size_t __sanitizer_get_current_allocated_bytes(void);

static size_t heap_bytes(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#else
static size_t heap_bytes(void)
{
	return mallinfo2().uordblks;
}
#endif

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;		/* not the one reading the directory */
}

struct cycles {
	int n;
	int status_errors;
	const char *run_dir;
	struct bwapd_status st;
	int fds[2];
	size_t heap[2];
};

/* After every step, what a tuner does: its status rewritten. */
static void cycle(void *arg, const struct bwapd_tune_step *s)
{
	struct cycles *c = arg;
	int at;

	bwapd_status_step(&c->st, s);
	c->st.updated = time(NULL);
	if (bwapd_status_write(c->run_dir, &c->st))
		c->status_errors++;
	if (++c->n != WARM && c->n != CYCLES)
		return;
	at = c->n == CYCLES;
	c->fds[at] = open_fds();
	c->heap[at] = heap_bytes();
}

/* The heap measure sees what is allocated and what is freed. */
TEST(heap_measure_works)
{
	size_t before = heap_bytes(), during;
	char *p = malloc(1 << 20);

	ASSERT_NE(NULL, p);
	memset(p, 1, 1 << 20);
	during = heap_bytes();
	free(p);
	EXPECT_LE(before + (1 << 20), during);
	EXPECT_GT(before + HEAP_SLACK, heap_bytes());
}

TEST(ten_thousand_cycles_grow_nothing)
{
	static const char *const phases[] = { "mixed", "latency-bound",
					      "bandwidth-bound" };
	struct bwm_machine m;
	struct bwm_workload wl, other;
	struct bwapd_tune_opts o;
	struct bwapd_tune_result r;
	struct bwapd_target t;
	struct cycles c = { 0 };
	double canon[BWM_MAX_NODES];
	char dir[64];
	int tunings = 0;

	ASSERT_NE(NULL, temp_dir_shm(dir, sizeof(dir)));
	ASSERT_EQ(0, model_canonical("bwap-b", "mixed", 1, &m, &wl, canon));
	ASSERT_EQ(0, bwapd_target_model(&t, &m, &wl, 7, 0.01, NULL));
	bwapd_tune_opts_default(&o);
	o.log = cycle;
	o.log_arg = &c;
	c.run_dir = dir;
	c.st.tuner = getpid();
	c.st.nr_nodes = t.nr_nodes;
	snprintf(c.st.command, sizeof(c.st.command), "%s", wl.name);
	snprintf(c.st.target, sizeof(c.st.target), "%s", t.ops->name);
	snprintf(c.st.workers, sizeof(c.st.workers), "0");
	snprintf(c.st.state, sizeof(c.st.state), "tuning");
	snprintf(c.st.metric, sizeof(c.st.metric), "stalls/instruction");

	while (c.n < CYCLES) {
		/* every start, up and down; a phase change every 7 tunings */
		o.start = (tunings % 11) / 10.0;
		if (tunings && tunings % 7 == 0) {
			ASSERT_EQ(0, bwm_test_load("bwap-b", phases[tunings / 7 % 3],
						   1, &m, &other));
			ASSERT_EQ(0, bwapd_target_model_workload(&t, &other));
		}
		ASSERT_EQ(0, bwapd_tune(&t, canon, &o, &r)) TH_LOG("%s", t.why);
		c.st.tunings = ++tunings;
	}
	bwapd_status_remove(dir, &c.st);
	bwapd_target_close(&t);
	rm_tree(dir);
#ifdef __SANITIZE_ADDRESS__
	/* a test ends in _exit(): LSan's check at exit would not run */
	EXPECT_EQ(0, __lsan_do_recoverable_leak_check());
#endif

	fprintf(stderr, "# %d cycles in %d tunings: fds %d at cycle %d, %d at %d; "
		"heap %zu bytes, then %zu\n", c.n, tunings, c.fds[0], WARM,
		c.fds[1], CYCLES, c.heap[0], c.heap[1]);
	EXPECT_EQ(0, c.status_errors);
	ASSERT_LT(0, c.fds[0]);
	EXPECT_GE(c.fds[0] + FD_SLACK, c.fds[1])
		TH_LOG("%d fds more after %d cycles", c.fds[1] - c.fds[0],
		       CYCLES - WARM);
	EXPECT_GE(c.heap[0] + HEAP_SLACK, c.heap[1])
		TH_LOG("%zd bytes more after %d cycles",
		       (ssize_t)(c.heap[1] - c.heap[0]), CYCLES - WARM);
}

TEST_HARNESS_MAIN
