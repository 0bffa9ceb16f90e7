// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd inspect -- COMMAND: the program run twice, as the Oracle Labs
 * paper runs an application to fit its bandwidth signature: started on
 * the first node, its busy threads then pinned evenly over the nodes
 * (the symmetric run), or unevenly (the asymmetric run).  Each run is sampled like a running
 * process (inspect_proc.c); its samples from each node to pages on each
 * node, per thread of the node, stand for the memory controllers' local
 * and remote traffic.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inspect_exec.h"
#include "threads.h"
#include "log.h"

#define SETTLE_S	0.5	/* the same threads, this long */
#define BUSY_S		1.0	/* CPU time measured over this */
#define START_MAX_S	30.0	/* at most this long to get there */
#define BUSY_SHARE	4	/* busy: CPU time over 1/4 of the busiest's */
#define MAX_TIDS	256

static void sleep_s(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - (time_t)t) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int pin(pid_t tid, const struct bwapd_topology *topo, uint32_t nodes)
{
	cpu_set_t set;
	int cpu;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < topo->nr_cpus && cpu < CPU_SETSIZE; cpu++)
		if (topo->cpu_node[cpu] != BWAPD_NO_NODE &&
		    (nodes & (1u << topo->cpu_node[cpu])))
			CPU_SET(cpu, &set);
	return sched_setaffinity(tid, sizeof(set), &set) ? -errno : 0;
}

/* Wait until the program keeps the same threads for SETTLE_S. */
static int settle(pid_t pid, char *why, size_t len)
{
	static struct bwapd_thread a[MAX_TIDS], b[MAX_TIDS];
	double waited = 0;
	int na, nb = 0, i, k;

	na = bwapd_process_threads(pid, a, MAX_TIDS);
	for (; na >= 0 && waited < START_MAX_S; waited += SETTLE_S) {
		sleep_s(SETTLE_S);
		nb = bwapd_process_threads(pid, b, MAX_TIDS);
		if (nb < 0)
			break;
		for (i = 0; i < nb && nb == na; i++) {
			for (k = 0; k < na && a[k].tid != b[i].tid; k++)
				;
			if (k == na)
				break;		/* a new thread */
		}
		if (nb == na && i == nb)
			return 0;
		memcpy(a, b, sizeof(a[0]) * (size_t)nb);
		na = nb;
	}
	if (na < 0 || nb < 0) {
		snprintf(why, len, "the program exited before its threads settled");
		return -ESRCH;
	}
	snprintf(why, len, "the program's threads did not settle in %.0f s",
		 START_MAX_S);
	return -ETIMEDOUT;
}

/*
 * Its busy threads, free to run on every node for BUSY_S so that none is
 * held back by another on the same CPU: those with at least a
 * BUSY_SHARE-th of the CPU time of the busiest.  How many, or -errno.
 */
static int busy_threads(pid_t pid, const struct bwapd_topology *topo,
			uint32_t all, pid_t *busy, char *why, size_t len)
{
	static struct bwapd_thread a[MAX_TIDS], b[MAX_TIDS];
	long delta[MAX_TIDS], most = 0;
	int na, nb, i, k, n = 0;

	na = bwapd_process_threads(pid, a, MAX_TIDS);
	for (i = 0; i < na; i++)
		pin(a[i].tid, topo, all);
	na = bwapd_process_threads(pid, a, MAX_TIDS);
	sleep_s(BUSY_S);
	nb = bwapd_process_threads(pid, b, MAX_TIDS);
	if (na < 0 || nb < 0) {
		snprintf(why, len, "the program exited before its threads settled");
		return -ESRCH;
	}
	for (i = 0; i < nb; i++) {
		delta[i] = 0;
		for (k = 0; k < na && a[k].tid != b[i].tid; k++)
			;
		if (k < na)
			delta[i] = b[i].ticks - a[k].ticks;
		if (delta[i] > most)
			most = delta[i];
	}
	for (i = 0; most > 0 && i < nb; i++)
		if (delta[i] * BUSY_SHARE >= most)
			busy[n++] = b[i].tid;
	if (!n)
		snprintf(why, len, "no thread of the program was busy");
	return n ? n : -ETIMEDOUT;
}

/*
 * The paper's two placements of B busy threads on the nodes: the most
 * nodes that B divides evenly (symmetric), then one thread moved from
 * the last of them to the first (asymmetric; the last may be left
 * without threads when three nodes or more remain).
 */
static int plan(int B, const int *nodes, int m, int *sym, int *asym,
		int nr_nodes, char *why, size_t len)
{
	int s, j;

	for (s = m < B ? m : B; s >= 2 && B % s; s--)
		;
	if (s < 2 || (s == 2 && B / s < 2)) {
		snprintf(why, len, "%d busy threads on %d nodes: the runs need "
			 "as many threads on two nodes or more, and then one "
			 "node with more (4 threads on 2 nodes, 3 on 3)", B, m);
		return -EINVAL;
	}
	memset(sym, 0, sizeof(int) * nr_nodes);
	for (j = 0; j < s; j++)
		sym[nodes[j]] = B / s;
	memcpy(asym, sym, sizeof(int) * nr_nodes);
	asym[nodes[0]]++;
	asym[nodes[s - 1]]--;
	return 0;
}

/* Start argv on the CPUs of nodes; the exec's error through a pipe. */
static int launch(char **argv, const struct bwapd_topology *topo,
		  uint32_t nodes, pid_t *pid, char *why, size_t len)
{
	int p[2], err = 0;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	*pid = fork();
	if (*pid < 0) {
		err = errno;
		close(p[0]);
		close(p[1]);
		return -err;
	}
	if (!*pid) {
		close(p[0]);
		/* a run ends with bwapd, however bwapd ends */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* standard output stays bwapd's (--json) */
		dup2(2, 1);
		err = -pin(0, topo, nodes);
		if (!err) {
			execvp(argv[0], argv);
			err = errno;
		}
		if (write(p[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], &err, sizeof(err));
	close(p[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(*pid, NULL, 0);
		snprintf(why, len, "%s: %s", argv[0], strerror(err));
		return -err;
	}
	return 0;
}

static void stop(pid_t pid)
{
	int i;

	kill(pid, SIGTERM);
	for (i = 0; i < 20; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		sleep_s(0.05);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * The bank view of a run: each node's samples to pages on each node as
 * a share of the node's, per thread (the paper's normalisation by the
 * rate of work), times the node's threads.
 */
static void bank_of(const struct bwm_page *p, long n, const int *threads,
		    int nr, struct bwm_bank_run *run)
{
	static double cnt[BWAPD_MAX_NODES][BWAPD_MAX_NODES];
	double row[BWAPD_MAX_NODES] = { 0 };
	long i;
	int c, j;

	memset(cnt, 0, sizeof(cnt));
	memset(run, 0, sizeof(*run));
	for (i = 0; i < n; i++) {
		if (p[i].node < 0 || p[i].node >= nr)
			continue;
		for (c = 0; c < nr; c++) {
			cnt[c][p[i].node] += p[i].acc[c];
			row[c] += p[i].acc[c];
		}
	}
	for (c = 0; c < nr; c++) {
		char line[256];
		size_t off = 0;

		for (j = 0; j < nr && off < sizeof(line); j++)
			off += (size_t)snprintf(line + off, sizeof(line) - off,
						" %.0f", cnt[c][j]);
		bwapd_log(BWAPD_LOG_DEBUG, "node %d, %d threads: samples to each "
			  "node:%s", c, threads[c], line);
	}
	for (j = 0; j < nr; j++) {
		run->threads[j] = threads[j];
		for (c = 0; c < nr; c++) {
			double v;

			if (!threads[c] || !(row[c] > 0))
				continue;
			v = threads[c] * cnt[c][j] / row[c];
			if (c == j)
				run->local[j] += v;
			else
				run->remote[j] += v;
		}
	}
}

/* One run: start, place the busy threads by per_node[], sample, stop. */
static int one_run(char **argv, const struct bwapd_topology *topo,
		   const struct inspect_proc_opts *o, const int *nodes, int m,
		   int asym, int *threads, struct bwm_bank_run *run,
		   struct inspect_report *r, char *why, size_t len)
{
	pid_t pid = 0, busy[MAX_TIDS];
	int sym[BWAPD_MAX_NODES], as[BWAPD_MAX_NODES], *use;
	struct bwm_page *pages = NULL;
	uint32_t all = 0;
	int nbusy, i, j, ret;
	long n = 0;

	/*
	 * The program starts on the first node, so that what it does before
	 * its threads are placed (the static data its first thread fills)
	 * lands on the same node in both runs; once its threads settle they
	 * may run anywhere for a second, to tell the busy ones, which are
	 * then placed, and the others go back to the first node.
	 */
	for (i = 0; i < m; i++)
		all |= 1u << nodes[i];
	ret = launch(argv, topo, 1u << nodes[0], &pid, why, len);
	if (ret)
		return ret;
	ret = settle(pid, why, len);
	nbusy = ret ? ret : busy_threads(pid, topo, all, busy, why, len);
	ret = nbusy < 0 ? nbusy : plan(nbusy, nodes, m, sym, as, topo->nr_nodes,
				       why, len);
	use = asym ? as : sym;
	/* busy thread k to the k-th free place of the plan */
	for (j = 0, i = 0; !ret && j < topo->nr_nodes; j++) {
		int k;

		for (k = 0; k < use[j] && !ret; k++) {
			bwapd_log(BWAPD_LOG_DEBUG, "thread %d to node %d",
				  (int)busy[i], j);
			ret = pin(busy[i++], topo, 1u << j);
		}
	}
	/* the others back to the first node */
	if (!ret) {
		static struct bwapd_thread t[MAX_TIDS];
		int nt = bwapd_process_threads(pid, t, MAX_TIDS), k;

		for (i = 0; i < nt; i++) {
			for (k = 0; k < nbusy && busy[k] != t[i].tid; k++)
				;
			if (k == nbusy)
				pin(t[i].tid, topo, 1u << nodes[0]);
		}
	}
	if (ret) {
		if (!why[0])
			snprintf(why, len, "placing the program's threads: %s",
				 strerror(-ret));
		stop(pid);
		return ret;
	}
	memcpy(threads, use, sizeof(int) * topo->nr_nodes);
	ret = inspect_process_pages(pid, topo, o, r, &pages, &n, why, len);
	stop(pid);
	if (!ret)
		bank_of(pages, n, use, topo->nr_nodes, run);
	free(pages);
	return ret;
}

int inspect_exec(char **argv, const struct bwapd_topology *topo,
		 uint32_t nodes, const struct inspect_proc_opts *o,
		 struct inspect_report *r, char *why, size_t len)
{
	static struct inspect_report second;
	int ts[BWAPD_MAX_NODES] = { 0 }, ta[BWAPD_MAX_NODES] = { 0 };
	struct bwm_bank_run sym, asym;
	int list[BWAPD_MAX_NODES], m = 0, j, ret;

	for (j = 0; j < topo->nr_nodes; j++)
		if ((nodes & (1u << j)) && (topo->cpu_nodes & (1u << j)))
			list[m++] = j;
	if (m < 2) {
		snprintf(why, len, "the signature's runs need two nodes with "
			 "CPUs or more (--workers)");
		return -EINVAL;
	}
	ret = one_run(argv, topo, o, list, m, 0, ts, &sym, r, why, len);
	if (!ret)
		ret = one_run(argv, topo, o, list, m, 1, ta, &asym, &second, why,
			      len);
	if (ret)
		return ret;
	memcpy(r->sym_threads, ts, sizeof(ts));
	memcpy(r->asym_threads, ta, sizeof(ta));
	inspect_fit(r, topo->nr_nodes, &sym, &asym, "sampled");
	inspect_verdict(r);
	return 0;
}
