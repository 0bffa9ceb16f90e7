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
 * Where the kernel has no per-process weights, DAMON's weighted
 * migration (damon.h) places the same mappings' pages instead: the
 * weights become the process's scheme, and a migration waits until
 * DAMON has moved them, or has stopped moving them.  The process's new
 * pages follow the global weights until DAMON moves them too.
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
#include "damon.h"
#include "nodemem.h"
#include "log.h"
#include "seccomp.h"
#include "stall.h"
#include "target.h"

#ifndef SYS_set_mempolicy_weights
#define SYS_set_mempolicy_weights	1000
#endif
#ifndef SYS_get_mempolicy_weights
#define SYS_get_mempolicy_weights	1001
#endif
#define PIDFD_SELF_PROCESS		-10001
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
	struct bwapd_damon *damon;	/* weights: DAMON's scheme */
	int use_damon;
	char damon_dir[4096];		/* DAMON's record */
	struct bwapd_damon_place place;	/* the scheme last set */
	uint64_t applied0;		/* bytes DAMON had moved before it */
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

static int damon_set_weights(struct bwapd_target *t, const uint8_t *w, int nr);
static int damon_migrate(struct bwapd_target *t, const uint8_t *w, int nr,
			 struct bwapd_migration *m);

static int task_set_weights(struct bwapd_target *t, const uint8_t *w, int nr)
{
	struct task *k = task_of(t);
	int err;

	if (k->global)
		return bwapd_weights_write("", w, nr, t->why, sizeof(t->why));
	if (k->use_damon)
		return damon_set_weights(t, w, nr);
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
	t->placement = "global";
	t->leave_out = 0;
}

void bwapd_target_process_damon(struct bwapd_target *t, const char *dir,
				double pages_per_s)
{
	struct task *k = task_of(t);

	k->use_damon = 1;
	k->place.bytes_per_s = pages_per_s > 0 ?
			       (uint64_t)(pages_per_s * (double)k->page_size) : 0;
	snprintf(k->damon_dir, sizeof(k->damon_dir), "%s", dir);
	t->placement = "damon";
	t->leave_out = 1;
}

/* Does the kernel have the weights calls (or a filter in their way)? */
static int kernel_weights(void)
{
	char why[512];

	/* reading one's own weights: any kernel that has the calls allows it */
	return syscall(SYS_get_mempolicy_weights, PIDFD_SELF_PROCESS, NULL, 0UL,
		       0U) >= 1 || errno != ENOSYS ||
	       bwapd_seccomp_why(ENOSYS, why, sizeof(why));
}

int bwapd_placement_look(char *why, size_t len)
{
	int ret;

	if (kernel_weights())
		return BWAPD_PLACE_WEIGHTS;
	ret = bwapd_damon_look(why, len);
	return ret ? ret : BWAPD_PLACE_DAMON;
}

int bwapd_placement_here(const char *dir, char *why, size_t len)
{
	char dwhy[512];
	int ret;

	if (kernel_weights())
		return BWAPD_PLACE_WEIGHTS;	/* which say what blocks them */
	ret = bwapd_damon_probe(dir, dwhy, sizeof(dwhy));
	if (!ret)
		return BWAPD_PLACE_DAMON;
	if (ret == -EOPNOTSUPP)
		snprintf(why, len, "the kernel has neither set_mempolicy_weights(2) "
			 "nor DAMON's weighted migration (Linux 6.17 or later), so "
			 "it cannot give one process weights of its own (%s); on a "
			 "machine dedicated to this application, --global tunes "
			 "the global weights instead", dwhy);
	else
		snprintf(why, len, "the kernel has no set_mempolicy_weights(2), and "
			 "DAMON's weighted migration, which would give one process "
			 "weights of its own, cannot be used: %s; on a machine "
			 "dedicated to this application, --global tunes the global "
			 "weights instead", dwhy);
	return ret;
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

	if (task_of(t)->damon)
		return damon_migrate(t, w, nr, m);
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

/* ---- DAMON ---- */

/*
 * The scheme for weights w: the mappings the tuner steers, adjacent ones
 * as one range; past BWAPD_DAMON_MAX_RANGES, those with the most pages.
 * With pages, also their pages per node, and in *slack how far from the
 * weights' shares DAMON's placement may leave them: it places a range's
 * pages in runs of the weights' sum along their offsets, so a range is
 * off by up to half that sum, or its own pages where it has fewer.
 */
static int damon_place(struct bwapd_target *t, const uint8_t *w, int nr,
		       struct bwapd_damon_place *p, uint64_t *pages,
		       double *slack)
{
	struct task *k = task_of(t);
	struct bwapd_damon_range r[BWAPD_DAMON_MAX_RANGES];
	uint64_t rp[BWAPD_DAMON_MAX_RANGES], vp;
	struct vmas vs;
	int i, j, n = 0, ret;

	ret = read_vmas(t, &vs, 1);
	if (ret)
		return ret;
	memset(p, 0, sizeof(*p));
	p->nr_nodes = nr < t->nr_nodes ? nr : t->nr_nodes;
	memcpy(p->weights, w, (size_t)p->nr_nodes);
	p->bytes_per_s = k->place.bytes_per_s;
	for (i = 0; i < vs.nr; i++) {
		const struct vma *v = &vs.v[i];

		if (v->end <= v->start)
			continue;
		for (j = 0, vp = 0; j < t->nr_nodes; j++)
			vp += v->pages[j];
		if (n && r[n - 1].end == v->start) {
			r[n - 1].end = v->end;
			rp[n - 1] += vp;
			continue;
		}
		if (n == BWAPD_DAMON_MAX_RANGES) {
			int least = 0;

			for (j = 1; j < n; j++)
				if (rp[j] < rp[least])
					least = j;
			if (rp[least] >= vp)
				continue;
			memmove(&r[least], &r[least + 1], sizeof(*r) * (size_t)(n - least - 1));
			memmove(&rp[least], &rp[least + 1], sizeof(*rp) * (size_t)(n - least - 1));
			n--;
		}
		r[n].start = v->start;
		r[n].end = v->end;
		rp[n++] = vp;
	}
	p->nr_ranges = n;
	memcpy(p->range, r, sizeof(*r) * (size_t)n);
	if (pages)
		memcpy(pages, vs.pages, sizeof(*pages) * (size_t)t->nr_nodes);
	if (slack) {
		double half = 0;

		for (j = 0; j < p->nr_nodes; j++)
			half += w[j] / 2.0;
		*slack = (double)vs.total / 1000;
		for (i = 0; i < n; i++)
			*slack += fmin((double)rp[i], half);
	}
	free(vs.v);
	return 0;
}

static int damon_commit(struct bwapd_target *t, const struct bwapd_damon_place *p)
{
	struct task *k = task_of(t);
	int ret = 0;

	if (!k->damon)
		ret = bwapd_damon_open(&k->damon, k->damon_dir, t->pid, t->why,
				       sizeof(t->why));
	if (!ret)
		ret = bwapd_damon_set(k->damon, p, t->why, sizeof(t->why));
	if (ret && task_alive(t))
		ret = -ESRCH;
	if (!ret)
		k->place = *p;
	return ret;
}

static int damon_set_weights(struct bwapd_target *t, const uint8_t *w, int nr)
{
	struct task *k = task_of(t);
	struct bwapd_damon_stats s = { 0 };
	struct bwapd_damon_place p;
	int ret = damon_place(t, w, nr, &p, NULL, NULL);

	/*
	 * What DAMON moved so far, read before the new weights reach it: the
	 * kdamond may act on them before the migration looks.  A new scheme
	 * starts from 0.
	 */
	if (!ret && k->place.nr_nodes)
		ret = bwapd_damon_stats(k->damon, &s, t->why, sizeof(t->why));
	if (!ret)
		ret = damon_commit(t, &p);
	k->applied0 = s.sz_applied;
	return ret;
}

/*
 * Pages off their share of the weights: what the nodes above their share
 * hold too many.  DAMON places a mapping's pages in runs of the weights'
 * sum along its offsets, so each mapping may be that much off.
 */
static uint64_t off_share(const uint64_t *pages, const uint8_t *w, int n,
			  uint64_t *total)
{
	double wsum = 0, off = 0;
	int j;

	*total = 0;
	for (j = 0; j < n; j++) {
		wsum += w[j];
		*total += pages[j];
	}
	for (j = 0; j < n && wsum > 0; j++) {
		double share = (double)*total * w[j] / wsum;

		if ((double)pages[j] > share)
			off += (double)pages[j] - share;
	}
	return (uint64_t)(off + 0.5);
}

/* Why DAMON stopped short: the quota, a full node, or unmovable pages. */
static void damon_short(struct bwapd_target *t, const uint64_t *pages,
			const uint8_t *w, uint64_t total, uint64_t off,
			int quota)
{
	uint64_t mem_total[BWAPD_MAX_NODES], mem_free[BWAPD_MAX_NODES];
	struct task *k = task_of(t);
	char full[128] = "";
	size_t o = 0;
	double wsum = 0;
	int j;

	for (j = 0; j < t->nr_nodes; j++)
		wsum += w[j];
	/* one read of every node's free memory */
	if (bwapd_node_memory("", mem_total, mem_free) < 0)
		wsum = 0;
	for (j = 0; j < t->nr_nodes && wsum > 0; j++) {
		double need = (double)total * w[j] / wsum - (double)pages[j];

		if (need <= 0 || !mem_total[j])
			continue;
		if ((double)mem_free[j] * 1024 < need * (double)k->page_size * 2 &&
		    o < sizeof(full))
			o += (size_t)snprintf(full + o, sizeof(full) - o, "%s%d",
					      o ? "," : "", j);
	}
	bwapd_log(BWAPD_LOG_WARNING, "process %d: DAMON stopped with %llu of %llu "
		  "pages off their nodes' shares: %s", (int)t->pid,
		  (unsigned long long)off, (unsigned long long)total,
		  quota ? "its quota (--rate) held it back" :
		  full[0] ? "too little free memory on node(s)" :
		  "the kernel would not move them (pinned, shared or busy pages)");
	if (!quota && full[0])
		bwapd_log(BWAPD_LOG_WARNING, "process %d: full: node(s) %s",
			  (int)t->pid, full);
}

/*
 * Wait until DAMON has placed the pages by w: until they are in their
 * shares, or three passes of the scheme moved nothing more (fifteen
 * where the quota stopped them: it lets more through every second).
 */
static int damon_migrate(struct bwapd_target *t, const uint8_t *w, int nr,
			 struct bwapd_migration *m)
{
	struct task *k = task_of(t);
	struct bwapd_damon_stats s0, s;
	uint64_t pages[BWAPD_MAX_NODES] = { 0 }, total = 0, off = 0;
	uint64_t best = UINT64_MAX;
	uint64_t tried, qt;
	int paced;
	double start = now_s(), slack = 0;
	int idle = 0, polls = 0, n = nr < t->nr_nodes ? nr : t->nr_nodes;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = bwapd_damon_stats(k->damon, &s0, t->why, sizeof(t->why));
	if (ret)
		return task_alive(t) ? -ESRCH : ret;
	s = s0;
	s0.sz_applied = k->applied0;
	tried = s0.nr_tried;
	qt = s0.qt_exceeds;
	m->damon = 1;
	for (;;) {
		struct bwapd_damon_place p;

		ret = damon_place(t, w, nr, &p, pages, &slack);
		if (ret)
			break;
		off = off_share(pages, w, n, &total);
		bwapd_log(BWAPD_LOG_DEBUG, "process %d: DAMON: %llu of %llu pages "
			  "off their shares (%.0f allowed), %llu regions tried",
			  (int)t->pid, (unsigned long long)off,
			  (unsigned long long)total, slack,
			  (unsigned long long)s.nr_tried);
		if ((double)off <= slack)
			break;
		ret = bwapd_damon_stats(k->damon, &s, t->why, sizeof(t->why));
		if (!ret && !s.on) {
			snprintf(t->why, sizeof(t->why), "bwapd's kdamond stopped "
				 "(%s/kdamonds)", BWAPD_DAMON_SYSFS);
			ret = -EIO;
		}
		if (ret)
			break;
		if (s.nr_tried > tried) {
			/*
			 * A pass that moved nothing closer.  Where the quota
			 * stopped it, the next quota interval (1 s) goes on:
			 * wait for three of them.
			 */
			paced = s.qt_exceeds > qt;
			tried = s.nr_tried;
			qt = s.qt_exceeds;
			polls = 0;
			if (off < best) {
				best = off;
				idle = 0;
			} else if (++idle == (paced ? 15 : 3)) {
				damon_short(t, pages, w, total, off, paced);
				m->failed = off;
				break;
			}
		} else if (++polls > 600) {
			snprintf(t->why, sizeof(t->why), "bwapd's kdamond did not "
				 "apply the scheme of process %d for 60 s", (int)t->pid);
			ret = -ETIMEDOUT;
			break;
		}
		sleep_s(0.1);
	}
	/* what DAMON moved, the last pass included */
	if (!ret)
		ret = bwapd_damon_stats(k->damon, &s, t->why, sizeof(t->why));
	if (ret && task_alive(t))
		ret = -ESRCH;
	m->pages = total;
	if (s.sz_applied > s0.sz_applied) {
		m->damon_applied = s.sz_applied - s0.sz_applied;
		m->moved = m->damon_applied / (uint64_t)k->page_size;
	}
	if (s.nr_tried > s0.nr_tried)
		m->damon_tried = s.nr_tried - s0.nr_tried;
	if (s.qt_exceeds > s0.qt_exceeds)
		m->damon_quota = s.qt_exceeds - s0.qt_exceeds;
	m->seconds = now_s() - start;
	return ret;
}

static int task_wait(struct bwapd_target *t, double seconds)
{
	struct task *k = task_of(t);
	struct bwapd_damon_place p;
	int ret;

	sleep_s(seconds);
	ret = task_alive(t);
	if (ret || !k->damon)
		return ret;
	/* mappings made since: their pages are the scheme's too */
	ret = damon_place(t, k->place.weights, k->place.nr_nodes, &p, NULL,
			  NULL);
	if (!ret && (p.nr_ranges != k->place.nr_ranges ||
		     memcmp(p.range, k->place.range,
			    sizeof(p.range[0]) * (size_t)p.nr_ranges)))
		ret = damon_commit(t, &p);
	return ret;
}

static void task_close(struct bwapd_target *t)
{
	struct task *k = task_of(t);

	if (!k)
		return;
	if (k->have_stall)
		stall_close(&k->stall);
	bwapd_damon_close(k->damon);
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
	t->placement = "weights";
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
	if (k->have_stall)
		snprintf(t->stall_event, sizeof(t->stall_event), "%s",
			 k->stall.stall_event);
	return 0;
}

void bwapd_target_close(struct bwapd_target *t)
{
	if (t->ops && t->ops->close)
		t->ops->close(t);
	t->ops = NULL;
}
