// SPDX-License-Identifier: GPL-2.0
/*
 * A running process as the DWP tuner's target.
 *
 * Weights: set_mempolicy_weights(2) on a pidfd, so the weights stay with
 * the process that was opened even if its PID is reused.
 *
 * Pages: the tuner steers the process's private anonymous memory (heap,
 * anonymous mappings) under weighted interleave; /proc/PID/numa_maps
 * names those mappings (the policy column shows the task policy where a
 * mapping has none) and counts their pages per node.  A migration moves
 * only the pages it must: a node holding more than its share of the
 * weights gives up its surplus, picked evenly along its pages so that
 * what stays is still spread over the address space, and the nodes short
 * of their share receive them in a weighted round robin.  move_pages(2)
 * in batches, with a rate limit.
 *
 * Counters: stall.c.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "seccomp.h"
#include "stall.h"
#include "target.h"

#ifndef SYS_set_mempolicy_weights
#define SYS_set_mempolicy_weights	1000
#endif
#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE			(1 << 1)
#endif

struct task {
	int pidfd;
	long page_size;
	struct stall stall;
	int have_stall;
	char no_stall[256];		/* why there are no counters */
	double t0;
	int global;			/* weights: the global ones */
};

static struct task *task_of(struct bwapd_target *t)
{
	return t->priv;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (!(s > 0))
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ESRCH when the process has exited (or is a zombie), else 0. */
static int task_alive(struct bwapd_target *t)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)t->pid);
	f = fopen(path, "r");
	if (!f)
		return -ESRCH;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X' ? 0 : -ESRCH;
}

/*
 * After a failed call on the process: is it on its way out?  An exiting
 * process loses its memory before it is a zombie (move_pages(2) then
 * says EINVAL); its pidfd turns readable once it has exited.  The rest
 * of the exit can take long on a loaded machine (200 ms were not always
 * enough in the test machine), and the wait ends as soon as it has
 * exited: a process that stays is a real error, reported after 10 s.
 */
static int task_exiting(struct bwapd_target *t)
{
	struct pollfd p = { .fd = task_of(t)->pidfd, .events = POLLIN };

	return task_alive(t) || poll(&p, 1, 10000) > 0;
}

static int task_counters(struct bwapd_target *t, struct bwapd_counters *c)
{
	struct task *k = task_of(t);
	int ret;

	memset(c, 0, sizeof(*c));
	ret = task_alive(t);
	if (ret)
		return ret;
	c->seconds = now_s() - k->t0;
	if (!k->have_stall) {
		snprintf(t->why, sizeof(t->why), "%s", k->no_stall);
		return 0;
	}
	ret = stall_read(&k->stall, c);
	if (ret && ret != -ESRCH)
		snprintf(t->why, sizeof(t->why), "%s", k->stall.why[0] ?
			 k->stall.why : strerror(-ret));
	return ret;
}

static int task_set_weights(struct bwapd_target *t, const uint8_t *w, int nr)
{
	struct task *k = task_of(t);
	int err;

	if (k->global)
		return bwapd_weights_write("", w, nr, t->why, sizeof(t->why));
	if (syscall(SYS_set_mempolicy_weights, k->pidfd, w,
		    (unsigned long)nr, 0U) == 0)
		return 0;
	err = errno;
	if (bwapd_seccomp_why(err, t->why, sizeof(t->why)))
		return -err;
	switch (err) {
	case ENOSYS:
		snprintf(t->why, sizeof(t->why),
			 "the kernel has no set_mempolicy_weights(2), so it cannot "
			 "give one process weights of its own (upstream kernels have "
			 "the global weights only; Documentation/kernel.md); on a "
			 "machine dedicated to this application, --global tunes the "
			 "global weights instead");
		break;
	case EPERM: {
		char what[96];

		snprintf(what, sizeof(what), "set_mempolicy_weights(process "
			 "%d): not allowed: another user's process", (int)t->pid);
		bwapd_caps_why(t->why, sizeof(t->why), what,
			       BWAPD_CAP(CAP_SYS_PTRACE) | BWAPD_CAP(CAP_SYS_NICE));
		break;
	}
	default:
		snprintf(t->why, sizeof(t->why),
			 "set_mempolicy_weights(process %d): %s", (int)t->pid,
			 strerror(err));
	}
	return -err;
}

void bwapd_target_process_global(struct bwapd_target *t)
{
	task_of(t)->global = 1;
}

/* ---- numa_maps ---- */

struct vma {
	unsigned long start, end;
	uint64_t pages[BWAPD_MAX_NODES];
};

struct vmas {
	int nr, cap;
	struct vma *v;
	uint64_t pages[BWAPD_MAX_NODES];
	uint64_t total;
};

/*
 * A numa_maps line of memory the tuner steers: weighted interleave,
 * anonymous (no file=), not the stack, not hugetlb.  Fills the start and
 * the pages on every node (base pages, also for transparent huge pages).
 */
static int parse_line(char *line, struct vma *v, int nr_nodes)
{
	char *tok, *save = NULL;
	int n = 0;

	memset(v, 0, sizeof(*v));
	v->start = strtoul(line, &tok, 16);
	if (*tok != ' ')
		return 0;
	tok++;
	if (strncmp(tok, "weighted interleave", 19) &&
	    strncmp(tok, "weighted_interleave", 19))
		return 0;
	if (strstr(tok, " file=") || strstr(tok, " stack") ||
	    strstr(tok, " huge") || !strstr(tok, " anon="))
		return 0;
	for (tok = strtok_r(tok + 19, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		char *end;
		long node;

		if (tok[0] != 'N' || tok[1] < '0' || tok[1] > '9')
			continue;
		node = strtol(tok + 1, &end, 10);
		if (*end != '=' || node < 0 || node >= nr_nodes)
			continue;
		v->pages[node] = strtoull(end + 1, NULL, 10);
		n++;
	}
	return n > 0;
}

/* The end of every mapping from /proc/PID/maps, matched by start. */
static int read_ends(pid_t pid, struct vmas *vs)
{
	char path[64], line[512];
	FILE *f;
	int i = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && i < vs->nr) {
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		while (i < vs->nr && vs->v[i].start < start)
			vs->v[i++].end = 0;	/* gone since */
		if (i < vs->nr && vs->v[i].start == start)
			vs->v[i++].end = end;
	}
	fclose(f);
	return 0;
}

/*
 * The mappings the tuner steers and their pages per node; with 'ranges'
 * also where each mapping is (for moving its pages).
 */
static int read_vmas(struct bwapd_target *t, struct vmas *vs, int ranges)
{
	char path[64], line[4096];
	FILE *f;
	int j, ret;

	memset(vs, 0, sizeof(*vs));
	snprintf(path, sizeof(path), "/proc/%d/numa_maps", (int)t->pid);
	f = fopen(path, "r");
	if (!f) {
		ret = errno == ENOENT ? -ESRCH : -errno;
		if (ret == -EACCES || ret == -EPERM) {
			char what[128];

			snprintf(what, sizeof(what), "%s: %s: another user's "
				 "process", path, strerror(-ret));
			bwapd_caps_why(t->why, sizeof(t->why), what,
				       BWAPD_CAP(CAP_SYS_PTRACE));
		} else {
			snprintf(t->why, sizeof(t->why), "%s: %s", path,
				 strerror(-ret));
		}
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		struct vma v;

		if (!parse_line(line, &v, t->nr_nodes))
			continue;
		for (j = 0; j < t->nr_nodes; j++) {
			vs->pages[j] += v.pages[j];
			vs->total += v.pages[j];
		}
		if (!ranges)
			continue;
		if (vs->nr == vs->cap) {
			struct vma *nv;

			vs->cap = vs->cap ? 2 * vs->cap : 64;
			nv = realloc(vs->v, sizeof(*nv) * (size_t)vs->cap);
			if (!nv) {
				fclose(f);
				free(vs->v);
				return -ENOMEM;
			}
			vs->v = nv;
		}
		vs->v[vs->nr++] = v;
	}
	fclose(f);
	if (!ranges || !vs->total)
		return 0;
	ret = read_ends(t->pid, vs);
	if (ret) {
		free(vs->v);
		vs->v = NULL;
	}
	return ret;
}

static int task_pages(struct bwapd_target *t, uint64_t *pages, int nr)
{
	struct vmas vs;
	int ret = read_vmas(t, &vs, 0);

	if (ret)
		return ret;
	memset(pages, 0, sizeof(*pages) * (size_t)nr);
	memcpy(pages, vs.pages, sizeof(*pages) *
	       (size_t)(nr < t->nr_nodes ? nr : t->nr_nodes));
	return 0;
}

/* ---- migration ---- */

struct mover {
	struct bwapd_target *t;
	const struct bwapd_migrate_opts *o;
	struct bwapd_migration *m;
	int n;
	/* fraction of each node's pages that leave, and the accumulators */
	double leave[BWAPD_MAX_NODES], acc[BWAPD_MAX_NODES];
	/* pages each node still has to receive */
	double need[BWAPD_MAX_NODES];
	double start;
	void **addr;
	int *nodes, *status;
	unsigned int batch, queued;
};

/* A receiving node: the one furthest behind its share (round robin). */
static int pick_dest(struct mover *mv)
{
	int j, best = -1;

	for (j = 0; j < mv->n; j++)
		if (mv->need[j] >= 0.5 && (best < 0 || mv->need[j] > mv->need[best]))
			best = j;
	if (best >= 0)
		mv->need[best] -= 1;
	return best;
}

static int flush(struct mover *mv)
{
	unsigned int i;
	long ret;

	if (!mv->queued)
		return 0;
	ret = syscall(SYS_move_pages, mv->t->pid, (unsigned long)mv->queued,
		      mv->addr, mv->nodes, mv->status, MPOL_MF_MOVE);
	if (ret < 0 && errno == ENOMEM) {
		/* a node is full: these pages stay where they are */
		mv->m->failed += mv->queued;
		mv->queued = 0;
		return 0;
	}
	if (ret < 0) {
		char what[96];

		ret = -errno;
		snprintf(what, sizeof(what), "move_pages(process %d): %s",
			 (int)mv->t->pid, strerror(errno));
		if (ret == -EPERM) {
			strncat(what, ": another user's process",
				sizeof(what) - strlen(what) - 1);
			bwapd_caps_why(mv->t->why, sizeof(mv->t->why), what,
				       BWAPD_CAP(CAP_SYS_PTRACE));
		} else {
			snprintf(mv->t->why, sizeof(mv->t->why), "%s", what);
		}
		return ret == -ESRCH || task_exiting(mv->t) ? -ESRCH : (int)ret;
	}
	for (i = 0; i < mv->queued; i++) {
		if (mv->status[i] == mv->nodes[i])
			mv->m->moved++;
		else
			mv->m->failed++;
	}
	mv->queued = 0;
	if (mv->o->pages_per_s > 0) {
		double due = mv->start + (double)(mv->m->moved + mv->m->failed) /
			     mv->o->pages_per_s;

		sleep_s(due - now_s());
	}
	return 0;
}

/* Where the pages of [start, end) are, a batch at a time; queue moves. */
static int move_range(struct mover *mv, unsigned long start, unsigned long end)
{
	struct task *k = task_of(mv->t);
	unsigned long a;
	void **q = mv->addr + mv->batch;	/* query half of the buffers */
	int *qs = mv->status + mv->batch;
	int ret;

	for (a = start; a < end;) {
		unsigned int i, cnt = 0;
		long r;

		for (; a < end && cnt < mv->batch; a += (unsigned long)k->page_size)
			q[cnt++] = (void *)a;
		r = syscall(SYS_move_pages, mv->t->pid, (unsigned long)cnt, q,
			    NULL, qs, 0);
		if (r < 0) {
			int err = errno;

			snprintf(mv->t->why, sizeof(mv->t->why),
				 "move_pages(process %d): %s", (int)mv->t->pid,
				 strerror(err));
			return err == ESRCH || task_exiting(mv->t) ? -ESRCH :
			       -err;
		}
		for (i = 0; i < cnt; i++) {
			int from = qs[i], to;

			if (from < 0 || from >= mv->n)
				continue;	/* not present */
			mv->m->pages++;
			mv->acc[from] += mv->leave[from];
			if (mv->acc[from] < 1)
				continue;
			mv->acc[from] -= 1;
			to = pick_dest(mv);
			if (to < 0)
				continue;
			mv->addr[mv->queued] = q[i];
			mv->nodes[mv->queued] = to;
			if (++mv->queued == mv->batch) {
				ret = flush(mv);
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}

static int task_migrate(struct bwapd_target *t, const uint8_t *w, int nr,
			const struct bwapd_migrate_opts *o,
			struct bwapd_migration *m)
{
	struct mover mv = { .t = t, .o = o, .m = m, .n = t->nr_nodes };
	double wsum = 0;
	struct vmas vs;
	int i, j, ret;

	memset(m, 0, sizeof(*m));
	mv.start = now_s();
	ret = read_vmas(t, &vs, 1);
	if (ret || !vs.total)
		return ret;
	for (j = 0; j < mv.n && j < nr; j++)
		wsum += w[j];
	if (!(wsum > 0)) {
		free(vs.v);
		return -EINVAL;
	}
	for (j = 0; j < mv.n; j++) {
		double share = j < nr ? (double)vs.total * w[j] / wsum : 0;
		double surplus = (double)vs.pages[j] - share;

		mv.leave[j] = surplus > 0 && vs.pages[j] ?
			      surplus / (double)vs.pages[j] : 0;
		mv.need[j] = surplus < 0 ? -surplus : 0;
		mv.acc[j] = 0.5;	/* rounds the count of leavers */
	}
	mv.batch = o->batch ? o->batch : 1024;
	mv.addr = calloc(2 * (size_t)mv.batch, sizeof(*mv.addr));
	mv.nodes = calloc(mv.batch, sizeof(*mv.nodes));
	mv.status = calloc(2 * (size_t)mv.batch, sizeof(*mv.status));
	ret = mv.addr && mv.nodes && mv.status ? 0 : -ENOMEM;
	for (i = 0; !ret && i < vs.nr; i++)
		if (vs.v[i].end > vs.v[i].start)
			ret = move_range(&mv, vs.v[i].start, vs.v[i].end);
	if (!ret)
		ret = flush(&mv);
	m->seconds = now_s() - mv.start;
	free(mv.addr);
	free(mv.nodes);
	free(mv.status);
	free(vs.v);
	return ret;
}

static int task_wait(struct bwapd_target *t, double seconds)
{
	sleep_s(seconds);
	return task_alive(t);
}

static void task_close(struct bwapd_target *t)
{
	struct task *k = task_of(t);

	if (!k)
		return;
	if (k->have_stall)
		stall_close(&k->stall);
	if (k->pidfd >= 0)
		close(k->pidfd);
	free(k);
	t->priv = NULL;
}

static const struct bwapd_target_ops task_ops = {
	.name = "process",
	.close = task_close,
	.counters = task_counters,
	.set_weights = task_set_weights,
	.migrate = task_migrate,
	.pages = task_pages,
	.wait = task_wait,
};

int bwapd_process_workers(pid_t pid, const struct bwapd_topology *topo,
			  uint32_t *workers)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(pid, sizeof(set), &set))
		return -errno;
	*workers = 0;
	for (cpu = 0; cpu < topo->nr_cpus && cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && topo->cpu_node[cpu] != BWAPD_NO_NODE)
			*workers |= 1u << topo->cpu_node[cpu];
	return *workers ? 0 : -EINVAL;
}

int bwapd_target_process(struct bwapd_target *t, pid_t pid, int nr_nodes,
			 const struct bwapd_topology *topo)
{
	struct task *k;
	int ret;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->nr_nodes = nr_nodes;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->page_size = sysconf(_SC_PAGESIZE);
	k->t0 = now_s();
	k->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (k->pidfd < 0) {
		ret = -errno;
		snprintf(t->why, sizeof(t->why), "process %d: %s", (int)pid,
			 strerror(errno));
		free(k);
		return ret;
	}
	t->ops = &task_ops;
	t->priv = k;
	ret = bwapd_process_workers(pid, topo, &t->workers);
	if (ret) {
		snprintf(t->why, sizeof(t->why),
			 "process %d: cannot read its CPU affinity: %s",
			 (int)pid, strerror(-ret));
		task_close(t);
		return ret;
	}
	/* without counters the target is still steerable (closed loop) */
	k->have_stall = !stall_open(&k->stall, pid, k->no_stall,
				     sizeof(k->no_stall));
	return 0;
}

void bwapd_target_close(struct bwapd_target *t)
{
	if (t->ops && t->ops->close)
		t->ops->close(t);
	t->ops = NULL;
}
