// SPDX-License-Identifier: GPL-2.0
/*
 * A running process as the DWP tuner's target: its pidfd, its counters
 * (stall.c), the mappings whose pages its placement steers (numa_maps),
 * and move_pages(2) for the placements (process.h).  How its pages get
 * their weights is its placement's (placement.h, place_*.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "log.h"
#include "process.h"
#include "stall.h"
#include "threads.h"
#include "wi_abi.h"

#define TASK_MAX_THREADS	4096	/* looked at, for the running ones */

struct task {
	int pidfd;
	int pagemap;			/* /proc/PID/pagemap; -1: not yet, -2: no scan */
	long page_size;
	struct stall stall;
	int have_stall;
	char no_stall[256];		/* why there are no counters */
	double t0;
	struct bwapd_place place;	/* how its pages get their weights */
	char damon_dir[4096];		/* DAMON's record, for "damon" */
	int nr_cpus;
	uint16_t cpu_node[BWAPD_MAX_CPUS];	/* the topology's, at the open */
};

static struct task *task_of(struct bwapd_target *t)
{
	return t->priv;
}

double bwapd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void bwapd_sleep(double s)
{
	struct timespec ts;

	if (!(s > 0))
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int bwapd_process_alive(struct bwapd_target *t)
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
int bwapd_process_exiting(struct bwapd_target *t)
{
	struct pollfd p = { .fd = task_of(t)->pidfd, .events = POLLIN };

	return bwapd_process_alive(t) || poll(&p, 1, 10000) > 0;
}

int bwapd_process_pidfd(const struct bwapd_target *t)
{
	return ((const struct task *)t->priv)->pidfd;
}

long bwapd_process_page_size(const struct bwapd_target *t)
{
	return ((const struct task *)t->priv)->page_size;
}

static int task_set_weights(struct bwapd_target *t, const uint8_t *w, int nr)
{
	struct bwapd_place *pl = &task_of(t)->place;

	return pl->ops->set_weights(pl, w, nr);
}

static int task_counters(struct bwapd_target *t, struct bwapd_counters *c)
{
	struct task *k = task_of(t);
	int ret;

	memset(c, 0, sizeof(*c));
	ret = bwapd_process_alive(t);
	if (ret)
		return ret;
	c->seconds = bwapd_now() - k->t0;
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

/* ---- numa_maps ---- */

/* The policy of a numa_maps line (BWAPD_POL_*), its length in *len. */
static unsigned int line_policy(const char *tok, size_t *len)
{
	if (!strncmp(tok, "weighted interleave", 19) ||
	    !strncmp(tok, "weighted_interleave", 19)) {
		*len = 19;
		return BWAPD_POL_WEIGHTED;
	}
	if (!strncmp(tok, "interleave", 10)) {
		*len = 10;
		return BWAPD_POL_INTERLEAVE;
	}
	return 0;
}

/*
 * A numa_maps line of memory the tuner steers: a policy of 'policies',
 * anonymous (no file=), not the stack, not hugetlb.  Fills the start and
 * the pages on every node (base pages, also for transparent huge pages).
 */
static int parse_line(char *line, struct bwapd_vma *v, int nr_nodes,
		      unsigned int policies)
{
	char *tok, *save = NULL;
	size_t len = 0;
	int n = 0;

	memset(v, 0, sizeof(*v));
	v->start = strtoul(line, &tok, 16);
	if (*tok != ' ')
		return 0;
	tok++;
	if (!(line_policy(tok, &len) & policies))
		return 0;
	if (strstr(tok, " file=") || strstr(tok, " stack") ||
	    strstr(tok, " huge") || !strstr(tok, " anon="))
		return 0;
	for (tok = strtok_r(tok + len, " \n", &save); tok;
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

/*
 * The end of every mapping from /proc/PID/maps, matched by start.  The
 * process may have exited since numa_maps was read: -ESRCH.
 */
static int read_ends(pid_t pid, struct bwapd_vmas *vs)
{
	char path[64], line[512];
	FILE *f;
	int i = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
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

int bwapd_process_vmas(struct bwapd_target *t, struct bwapd_vmas *vs,
		       int ranges)
{
	unsigned int policies = task_of(t)->place.ops->policies;
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
		struct bwapd_vma v;

		if (!parse_line(line, &v, t->nr_nodes, policies))
			continue;
		for (j = 0; j < t->nr_nodes; j++) {
			vs->pages[j] += v.pages[j];
			vs->total += v.pages[j];
		}
		if (!ranges)
			continue;
		if (vs->nr == vs->cap) {
			struct bwapd_vma *nv;

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
		snprintf(t->why, sizeof(t->why), "/proc/%d/maps: %s",
			 (int)t->pid, strerror(ret == -ESRCH ? ENOENT : -ret));
		free(vs->v);
		vs->v = NULL;
	}
	return ret;
}

static int task_pages(struct bwapd_target *t, uint64_t *pages, int nr)
{
	struct bwapd_vmas vs;
	int ret = bwapd_process_vmas(t, &vs, 0);

	if (ret)
		return ret;
	memset(pages, 0, sizeof(*pages) * (size_t)nr);
	memcpy(pages, vs.pages, sizeof(*pages) *
	       (size_t)(nr < t->nr_nodes ? nr : t->nr_nodes));
	return 0;
}

/* ---- present pages ---- */

/* PAGEMAP_SCAN (Linux 6.7, include/uapi/linux/fs.h), for older headers */
#ifndef PAGEMAP_SCAN
#define PAGE_IS_PRESENT		(1 << 3)
struct page_region {
	uint64_t start, end, categories;
};
struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask;
	uint64_t return_mask;
};
#define PAGEMAP_SCAN		_IOWR('f', 16, struct pm_scan_arg)
#endif

int bwapd_process_present(struct bwapd_target *t, unsigned long start,
			  unsigned long end,
			  int (*fn)(void *arg, unsigned long s, unsigned long e),
			  void *arg)
{
	struct task *k = task_of(t);
	struct page_region r[256];
	struct pm_scan_arg a;
	char path[64];
	long n, i;
	int ret;

	if (k->pagemap == -1) {
		snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)t->pid);
		k->pagemap = open(path, O_RDONLY | O_CLOEXEC);
		if (k->pagemap < 0)
			k->pagemap = -2;
	}
	while (k->pagemap >= 0 && start < end) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.start = start;
		a.end = end;
		a.vec = (uintptr_t)r;
		a.vec_len = sizeof(r) / sizeof(r[0]);
		a.category_mask = PAGE_IS_PRESENT;
		a.return_mask = PAGE_IS_PRESENT;
		n = ioctl(k->pagemap, PAGEMAP_SCAN, &a);
		if (n < 0 && (errno == ENOTTY || errno == EINVAL)) {
			/* a kernel before 6.7: every page is asked */
			close(k->pagemap);
			k->pagemap = -2;
			break;
		}
		if (n < 0)
			return bwapd_process_exiting(t) ? -ESRCH : -errno;
		for (i = 0; i < n; i++) {
			ret = fn(arg, r[i].start, r[i].end);
			if (ret)
				return ret;
		}
		if (a.walk_end <= start)
			return -EIO;
		start = a.walk_end;
	}
	return start < end ? fn(arg, start, end) : 0;
}

/* ---- moving pages ---- */

int bwapd_mover_init(struct bwapd_mover *mv, struct bwapd_target *t,
		     const struct bwapd_migrate_opts *o,
		     struct bwapd_migration *m)
{
	memset(mv, 0, sizeof(*mv));
	mv->t = t;
	mv->o = o;
	mv->m = m;
	mv->start = bwapd_now();
	mv->batch = o->batch ? o->batch : 1024;
	mv->addr = calloc(2 * (size_t)mv->batch, sizeof(*mv->addr));
	mv->nodes = calloc(mv->batch, sizeof(*mv->nodes));
	mv->status = calloc(2 * (size_t)mv->batch, sizeof(*mv->status));
	if (mv->addr && mv->nodes && mv->status)
		return 0;
	bwapd_mover_free(mv);
	return -ENOMEM;
}

void bwapd_mover_free(struct bwapd_mover *mv)
{
	free(mv->addr);
	free(mv->nodes);
	free(mv->status);
	mv->addr = NULL;
	mv->nodes = mv->status = NULL;
}

int bwapd_mover_flush(struct bwapd_mover *mv)
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
		return ret == -ESRCH || bwapd_process_exiting(mv->t) ? -ESRCH :
		       (int)ret;
	}
	for (i = 0; i < mv->queued; i++) {
		if (mv->status[i] == mv->nodes[i])
			mv->m->moved++;
		else if (mv->status[i] != -EBUSY)
			mv->m->failed++;
		/* -EBUSY: a huge page moving already, by an earlier address */
	}
	mv->queued = 0;
	if (mv->o->pages_per_s > 0) {
		double due = mv->start + (double)(mv->m->moved + mv->m->failed) /
			     mv->o->pages_per_s;

		bwapd_sleep(due - bwapd_now());
	}
	return 0;
}

int bwapd_mover_queue(struct bwapd_mover *mv, void *addr, int node)
{
	mv->addr[mv->queued] = addr;
	mv->nodes[mv->queued] = node;
	return ++mv->queued == mv->batch ? bwapd_mover_flush(mv) : 0;
}

int bwapd_mover_where(struct bwapd_mover *mv, void **addr, unsigned int cnt,
		      int *status)
{
	long r = syscall(SYS_move_pages, mv->t->pid, (unsigned long)cnt, addr,
			 NULL, status, 0);

	if (r < 0) {
		int err = errno;

		snprintf(mv->t->why, sizeof(mv->t->why),
			 "move_pages(process %d): %s", (int)mv->t->pid,
			 strerror(err));
		return err == ESRCH || bwapd_process_exiting(mv->t) ? -ESRCH :
		       -err;
	}
	return 0;
}

/* ---- pages to their shares ---- */

/*
 * A node holding more than its share of the weights gives up its
 * surplus, picked evenly along its pages so that what stays is still
 * spread over the address space, and the nodes short of their share
 * receive them in a weighted round robin.
 */
struct shares {
	struct bwapd_mover mv;
	int n;
	/* fraction of each node's pages that leave, and the accumulators */
	double leave[BWAPD_MAX_NODES], acc[BWAPD_MAX_NODES];
	/* pages each node still has to receive */
	double need[BWAPD_MAX_NODES];
};

/* A receiving node: the one furthest behind its share (round robin). */
static int pick_dest(struct shares *sh)
{
	int j, best = -1;

	for (j = 0; j < sh->n; j++)
		if (sh->need[j] >= 0.5 && (best < 0 || sh->need[j] > sh->need[best]))
			best = j;
	if (best >= 0)
		sh->need[best] -= 1;
	return best;
}

/* Where the pages of [start, end) are, a batch at a time; queue moves. */
static int shares_range(void *arg, unsigned long start, unsigned long end)
{
	struct shares *sh = arg;
	struct bwapd_mover *mv = &sh->mv;
	long page = bwapd_process_page_size(mv->t);
	void **q = mv->addr + mv->batch;	/* query half of the buffers */
	int *qs = mv->status + mv->batch;
	unsigned long a;
	int ret;

	for (a = start; a < end;) {
		unsigned int i, cnt = 0;

		for (; a < end && cnt < mv->batch; a += (unsigned long)page)
			q[cnt++] = (void *)a;
		ret = bwapd_mover_where(mv, q, cnt, qs);
		if (ret)
			return ret;
		mv->m->asked += cnt;
		for (i = 0; i < cnt; i++) {
			int from = qs[i], to;

			if (from < 0 || from >= sh->n)
				continue;	/* not present */
			mv->m->pages++;
			sh->acc[from] += sh->leave[from];
			if (sh->acc[from] < 1)
				continue;
			sh->acc[from] -= 1;
			to = pick_dest(sh);
			if (to < 0)
				continue;
			ret = bwapd_mover_queue(mv, q[i], to);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int bwapd_process_to_shares(struct bwapd_target *t, const uint8_t *w, int nr,
			    const struct bwapd_migrate_opts *o,
			    struct bwapd_migration *m)
{
	struct shares sh = { .n = t->nr_nodes };
	double wsum = 0;
	struct bwapd_vmas vs;
	int i, j, ret;

	memset(m, 0, sizeof(*m));
	ret = bwapd_process_vmas(t, &vs, 1);
	if (ret || !vs.total)
		return ret;
	for (j = 0; j < sh.n && j < nr; j++)
		wsum += w[j];
	if (!(wsum > 0)) {
		free(vs.v);
		return -EINVAL;
	}
	for (j = 0; j < sh.n; j++) {
		double share = j < nr ? (double)vs.total * w[j] / wsum : 0;
		double surplus = (double)vs.pages[j] - share;

		sh.leave[j] = surplus > 0 && vs.pages[j] ?
			      surplus / (double)vs.pages[j] : 0;
		sh.need[j] = surplus < 0 ? -surplus : 0;
		sh.acc[j] = 0.5;	/* rounds the count of leavers */
	}
	ret = bwapd_mover_init(&sh.mv, t, o, m);
	for (i = 0; !ret && i < vs.nr; i++)
		if (vs.v[i].end > vs.v[i].start)
			ret = bwapd_process_present(t, vs.v[i].start,
						    vs.v[i].end, shares_range,
						    &sh);
	if (!ret)
		ret = bwapd_mover_flush(&sh.mv);
	m->seconds = bwapd_now() - sh.mv.start;
	bwapd_mover_free(&sh.mv);
	free(vs.v);
	return ret;
}

static int task_migrate(struct bwapd_target *t, const uint8_t *w, int nr,
			const struct bwapd_migrate_opts *o,
			struct bwapd_migration *m)
{
	struct bwapd_place *pl = &task_of(t)->place;

	return pl->ops->place(pl, w, nr, o, m);
}

static int task_wait(struct bwapd_target *t, double seconds)
{
	struct bwapd_place *pl = &task_of(t)->place;
	int ret;

	bwapd_sleep(seconds);
	ret = bwapd_process_alive(t);
	if (!ret && pl->ops->tick)
		ret = pl->ops->tick(pl);
	return ret;
}

static void task_close(struct bwapd_target *t)
{
	struct task *k = task_of(t);

	if (!k)
		return;
	if (k->have_stall)
		stall_close(&k->stall);
	if (k->place.ops->close)
		k->place.ops->close(&k->place);
	if (k->pidfd >= 0)
		close(k->pidfd);
	if (k->pagemap >= 0)
		close(k->pagemap);
	free(k);
	t->priv = NULL;
}

/* Threads running now (state R), by the node of the CPU they are on. */
static int task_threads(struct bwapd_target *t, int *threads, int nr)
{
	struct bwapd_thread *th = malloc(sizeof(*th) * TASK_MAX_THREADS);
	struct task *k = task_of(t);
	int n, i, seen = 0;

	if (!th)
		return -ENOMEM;
	n = bwapd_process_threads(t->pid, th, TASK_MAX_THREADS);
	if (n < 0) {
		free(th);
		return n;
	}
	memset(threads, 0, sizeof(*threads) * (size_t)nr);
	for (i = 0; i < n; i++) {
		int node;

		if (th[i].state != 'R' || th[i].cpu < 0 || th[i].cpu >= k->nr_cpus)
			continue;
		node = k->cpu_node[th[i].cpu];
		if (node != BWAPD_NO_NODE && node < nr) {
			threads[node]++;
			seen++;
		}
	}
	free(th);
	return seen ? 0 : -ENODATA;
}

static const struct bwapd_target_ops task_ops = {
	.name = "process",
	.close = task_close,
	.counters = task_counters,
	.set_weights = task_set_weights,
	.migrate = task_migrate,
	.pages = task_pages,
	.wait = task_wait,
	.threads = task_threads,
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
	k->pagemap = -1;
	k->nr_cpus = topo->nr_cpus < BWAPD_MAX_CPUS ? topo->nr_cpus : BWAPD_MAX_CPUS;
	memcpy(k->cpu_node, topo->cpu_node, sizeof(k->cpu_node[0]) * (size_t)k->nr_cpus);
	k->t0 = bwapd_now();
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
	k->place.t = t;
	bwapd_target_process_place(t, BWAPD_PLACE_WEIGHTS, "", 0);
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
	if (k->have_stall) {
		snprintf(t->stall_event, sizeof(t->stall_event), "%s",
			 k->stall.stall_event);
		stall_by_node(&k->stall, k->cpu_node, k->nr_cpus);
	}
	return 0;
}

void bwapd_target_process_place(struct bwapd_target *t, int kind,
				const char *damon_dir, double pages_per_s)
{
	static const struct bwapd_place_ops *const ops[] = {
		[BWAPD_PLACE_WEIGHTS] = &bwapd_place_own,
		[BWAPD_PLACE_DAMON] = &bwapd_place_damon,
		[BWAPD_PLACE_MIGRATE] = &bwapd_place_migrate,
		[BWAPD_PLACE_GLOBAL] = &bwapd_place_global,
	};
	struct task *k = task_of(t);

	if (k->place.ops && k->place.ops->close)
		k->place.ops->close(&k->place);
	k->place.ops = ops[kind];
	snprintf(k->damon_dir, sizeof(k->damon_dir), "%s", damon_dir);
	k->place.damon_dir = k->damon_dir;
	k->place.pages_per_s = pages_per_s;
	t->placement = k->place.ops->name;
	t->leave_out = k->place.ops->leave_out;
}

void bwapd_target_close(struct bwapd_target *t)
{
	if (t->ops && t->ops->close)
		t->ops->close(t);
	t->ops = NULL;
}
