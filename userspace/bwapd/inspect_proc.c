// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd inspect on a running process: its pages per node and per
 * mapping (/proc/PID/numa_maps), access samples from the page faults of
 * its threads (sample.c) in time slices, the nodes of the sampled pages
 * (move_pages(2) without moving), Diener et al.'s metrics on them, and,
 * with a machine and a workload class of the model, the prediction.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "inspect_proc.h"
#include "sample.h"

/* ---- pages per node, per mapping ---- */

/* One numa_maps line: start, policy, name, N<n>=pages. */
static void parse_maps_line(char *line, struct inspect_mapping *m, int nr)
{
	char *tok, *save = NULL, *end;

	memset(m, 0, sizeof(*m));
	m->start = strtoull(line, &end, 16);
	tok = strtok_r(end, " \n", &save);
	snprintf(m->policy, sizeof(m->policy), "%s", tok ? tok : "?");
	snprintf(m->name, sizeof(m->name), "[anon]");
	while ((tok = strtok_r(NULL, " \n", &save))) {
		if (!strncmp(tok, "file=", 5))
			snprintf(m->name, sizeof(m->name), "%s", tok + 5);
		else if (!strcmp(tok, "heap") || !strcmp(tok, "stack") ||
			 !strcmp(tok, "huge"))
			snprintf(m->name, sizeof(m->name), "[%s]", tok);
		else if (tok[0] == 'N' && tok[1] >= '0' && tok[1] <= '9') {
			long n = strtol(tok + 1, &end, 10);

			if (*end == '=' && n >= 0 && n < nr)
				m->pages[n] = strtoull(end + 1, NULL, 10);
		}
	}
}

static int read_pages(struct inspect_report *r)
{
	struct inspect_mapping m;
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int j;

	snprintf(path, sizeof(path), "/proc/%d/numa_maps", (int)r->pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	memset(r->pages, 0, sizeof(r->pages));
	r->nr_mappings = 0;
	r->more_mappings = 0;
	while (getline(&line, &cap, f) > 0) {
		uint64_t sum = 0;

		parse_maps_line(line, &m, r->nr_nodes);
		for (j = 0; j < r->nr_nodes; j++) {
			r->pages[j] += m.pages[j];
			sum += m.pages[j];
		}
		if (!sum)
			continue;
		if (r->nr_mappings < INSPECT_MAX_MAPPINGS)
			r->mapping[r->nr_mappings++] = m;
		else
			r->more_mappings++;
	}
	free(line);
	fclose(f);
	return 0;
}

/* ---- the samples, page by page ---- */

struct page_entry {
	uint64_t page;			/* page number + 1; 0: free slot */
	int slice_of;			/* the slice slice[] counts */
	int prev_slice;			/* the last slice judged ... */
	int prev;			/* ... and its most-sampling node */
	int first_slice;		/* the slice of its first sample */
	int hits;			/* slices in which it was sampled */
	int last_hit, prev_hit;		/* the last two of them */
	/* ... after the first, in each group of slices (inspect_slices) */
	uint16_t group_hits[INSPECT_SLICE_GROUPS];
	float acc[BWAPD_MAX_NODES];	/* samples from each node */
	uint16_t slice[BWAPD_MAX_NODES];
};

struct samples {
	const struct bwapd_topology *topo;
	uint64_t start, end;		/* the addresses taken; end 0: all */
	int *again;			/* per slice, inspect_slices */
	uint32_t *active;		/* per slice, inspect_slices */
	double *arm;			/* when each slice's clear began */
	size_t page_size;
	long cap, used;
	struct page_entry *e;
	long *touched;			/* entries sampled in this slice */
	long nr_touched;
	int cur;			/* the slice */
	uint64_t total, unplaced;	/* samples; ... on CPUs of no node */
	long migrations, compared;
	/* the node each thread was last seen on */
	int nr_threads;
	pid_t tid[SAMPLER_MAX_THREADS];
	int tnode[SAMPLER_MAX_THREADS];
};

static int grow(struct samples *s)
{
	long ncap = s->cap ? s->cap * 2 : 4096, i, k;
	struct page_entry *ne = calloc(ncap, sizeof(*ne));
	long *nt = calloc(ncap, sizeof(*nt));

	if (!ne || !nt) {
		free(ne);
		free(nt);
		return -ENOMEM;
	}
	for (i = 0; i < s->cap; i++) {
		if (!s->e[i].page)
			continue;
		for (k = (long)(inspect_hash(s->e[i].page) & (ncap - 1));
		     ne[k].page; k = (k + 1) & (ncap - 1))
			;
		ne[k] = s->e[i];
	}
	/* the slice's list, rebuilt from slice_of */
	s->nr_touched = 0;
	for (k = 0; k < ncap; k++)
		if (ne[k].page && ne[k].slice_of == s->cur)
			nt[s->nr_touched++] = k;
	free(s->e);
	free(s->touched);
	s->e = ne;
	s->touched = nt;
	s->cap = ncap;
	return 0;
}

/*
 * The slice of a sample: the one whose clear came before the fault
 * (drained with this slice's, a fault may still belong to the one
 * before), when the sample has its time.
 */
static int slice_of(const struct samples *s, const struct access_sample *a)
{
	return a->time && s->cur > 0 && a->time / 1e9 < s->arm[s->cur] ?
	       s->cur - 1 : s->cur;
}

/* A page sampled in slice h. */
static void hit(struct samples *s, struct page_entry *e, int h)
{
	int g;

	if (h == e->last_hit || h == e->prev_hit)
		return;
	if (h > e->last_hit) {
		e->prev_hit = e->last_hit;
		e->last_hit = h;
	} else {
		e->prev_hit = h;
	}
	if (h < e->first_slice)
		e->first_slice = h;
	if (e->hits++) {
		g = h % INSPECT_SLICE_GROUPS;
		s->again[h]++;
		if (e->group_hits[g] < UINT16_MAX)
			e->group_hits[g]++;
	}
}

static void add_sample(void *arg, const struct access_sample *a)
{
	struct samples *s = arg;
	uint64_t page = a->addr / s->page_size + 1;	/* 0 marks a free slot */
	struct page_entry *e;
	int node, h;
	long k;

	if (s->end && (a->addr < s->start || a->addr >= s->end))
		return;
	s->total++;
	node = a->cpu >= 0 && a->cpu < s->topo->nr_cpus ?
	       s->topo->cpu_node[a->cpu] : BWAPD_NO_NODE;
	if (node == BWAPD_NO_NODE || node >= s->topo->nr_nodes) {
		s->unplaced++;
		return;
	}
	for (k = 0; k < s->nr_threads && s->tid[k] != a->tid; k++)
		;
	if (k < SAMPLER_MAX_THREADS) {
		s->tid[k] = a->tid;
		s->tnode[k] = node;
		if (k == s->nr_threads)
			s->nr_threads++;
	}
	if ((s->used + 1) * 2 > s->cap && grow(s))
		return;
	for (k = (long)(inspect_hash(page) & (s->cap - 1)); s->e[k].page &&
	     s->e[k].page != page; k = (k + 1) & (s->cap - 1))
		;
	e = &s->e[k];
	if (!e->page) {
		e->page = page;
		e->slice_of = -1;
		e->prev_slice = -2;
		e->prev = -1;
		e->first_slice = INT_MAX;
		e->last_hit = e->prev_hit = -1;
		s->used++;
	}
	h = slice_of(s, a);
	hit(s, e, h);
	s->active[h] |= 1u << node;
	if (e->slice_of != s->cur) {
		e->slice_of = s->cur;
		memset(e->slice, 0, sizeof(e->slice));
		s->touched[s->nr_touched++] = k;
	}
	e->acc[node] += 1;
	if (e->slice[node] < UINT16_MAX)
		e->slice[node]++;
}

/* The slice ends: Eq. 6 for the pages sampled in it and the one before. */
static void end_slice(struct samples *s, int nr_nodes)
{
	long i;

	for (i = 0; i < s->nr_touched; i++) {
		struct page_entry *e = &s->e[s->touched[i]];
		int n, best = 0;

		for (n = 1; n < nr_nodes; n++)
			if (e->slice[n] > e->slice[best])
				best = n;
		if (e->prev >= 0 && e->prev_slice == s->cur - 1) {
			s->compared++;
			if (e->slice[e->prev] < e->slice[best])
				s->migrations++;
		}
		e->prev = best;
		e->prev_slice = s->cur;
	}
	s->nr_touched = 0;
	s->cur++;
}

/* ---- where the sampled pages are ---- */

/*
 * Ask the kernel the node of every sampled page (nothing moves); its
 * first sampled slice and the slices it was sampled in, for the estimate.
 */
static int locate(pid_t pid, struct samples *s, struct bwm_page *out,
		  int *first, int *hits, uint16_t *group_hits, long *n)
{
	enum { BATCH = 1024 };
	void *addr[BATCH];
	int status[BATCH];
	long i, k, m = 0, batch = 0, base = 0;

	for (i = 0; i < s->cap; i++) {
		if (!s->e[i].page)
			continue;
		memset(&out[m], 0, sizeof(out[m]));
		out[m].addr = s->e[i].page - 1;
		out[m].first_node = -1;
		hits[m] = s->e[i].hits;
		first[m] = s->e[i].first_slice;
		memcpy(&group_hits[m * INSPECT_SLICE_GROUPS], s->e[i].group_hits,
		       sizeof(s->e[i].group_hits));
		for (k = 0; k < BWAPD_MAX_NODES; k++)
			out[m].acc[k] = s->e[i].acc[k];
		addr[batch++] = (void *)(uintptr_t)(out[m].addr * s->page_size);
		m++;
		if (batch == BATCH || m == s->used) {
			if (syscall(SYS_move_pages, pid, batch, addr, NULL,
				    status, 0))
				return -errno;
			for (k = 0; k < batch; k++)
				out[base + k].node = status[k] >= 0 ?
						     status[k] : -1;
			base += batch;
			batch = 0;
		}
	}
	*n = m;
	return 0;
}

/* ---- the whole report ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double t)
{
	struct timespec ts;

	if (t <= 0)
		return;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* kernel.numa_balancing: 0 off, 1 on, 2 memory tiering, 3 both; -1 ?. */
static int numa_balancing(void)
{
	char buf[16] = "";
	FILE *f = fopen("/proc/sys/kernel/numa_balancing", "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] ? atoi(buf) : -1;
}

/* /proc/vmstat's numa_pages_migrated (every process's), or 0. */
static uint64_t pages_migrated(void)
{
	char line[128];
	uint64_t v = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "numa_pages_migrated %llu",
			   (unsigned long long *)&v) == 1)
			break;
	fclose(f);
	return v;
}

static void describe_source(struct inspect_report *r, int soft_dirty,
			    const char *sd_why, int nb, double interval,
			    const struct inspect_proc_opts *o)
{
	size_t off = 0, len = sizeof(r->source);
	char *b = r->source;

	off += (size_t)snprintf(b + off, len - off, "page faults of its threads: ");
	if (soft_dirty)
		off += (size_t)snprintf(b + off, len - off,
					"writes (soft-dirty bits cleared every %.3g s)",
					interval);
	else
		off += (size_t)snprintf(b + off, len - off,
					"no writes (%s)", sd_why);
	if (off < len && nb > 0 && (nb & 1))
		off += (size_t)snprintf(b + off, len - off,
					", reads and writes (NUMA balancing's hinting faults)");
	else if (off < len)
		off += (size_t)snprintf(b + off, len - off,
					", no reads (NUMA balancing is off)");
	if (off < len)
		off += (size_t)snprintf(b + off, len - off, ", first touches");
	if (off < len && o->end)
		snprintf(b + off, len - off, "; addresses %llx-%llx only",
			 (unsigned long long)o->start,
			 (unsigned long long)o->end);
}

int inspect_process(pid_t pid, const struct bwapd_topology *topo,
		    const struct inspect_proc_opts *o, struct inspect_report *r,
		    char *why, size_t len)
{
	struct bwm_page *pages = NULL;
	long n = 0;
	int ret;

	ret = inspect_process_pages(pid, topo, o, r, &pages, &n, why, len);
	free(pages);
	return ret;
}

int inspect_process_pages(pid_t pid, const struct bwapd_topology *topo,
			  const struct inspect_proc_opts *o,
			  struct inspect_report *r, struct bwm_page **pagesp,
			  long *np, char *why, size_t len)
{
	struct samples s = { .topo = topo, .start = o->start, .end = o->end };
	struct bwm_page *pages = NULL;
	int *hits = NULL, *first = NULL;
	uint16_t *group_hits = NULL;
	double *arm;
	struct inspect_slices sl;
	struct sampler *smp;
	char sd_why[160] = "", path[64];
	double t0, next_scan, t, cleared = 0;
	uint64_t migrated0;
	int soft_dirty, nb, j, ret;
	long n = 0;
	FILE *f;

	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->nr_nodes = topo->nr_nodes;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f) {
		snprintf(why, len, "no process %d", (int)pid);
		return -ESRCH;
	}
	if (!fgets(r->name, sizeof(r->name), f))
		r->name[0] = '\0';
	fclose(f);
	r->name[strcspn(r->name, "\n")] = '\0';
	ret = bwapd_process_workers(pid, topo, &r->workers);
	if (!ret)
		ret = read_pages(r);
	if (ret) {
		snprintf(why, len, "process %d: %s", (int)pid, strerror(-ret));
		return ret;
	}

	smp = calloc(1, sizeof(*smp));
	if (!smp)
		return -ENOMEM;
	ret = sampler_open(smp, pid, &soft_dirty, sd_why, sizeof(sd_why));
	if (ret) {
		snprintf(why, len, "%s", sd_why);
		free(smp);
		return ret;
	}
	nb = numa_balancing();
	migrated0 = pages_migrated();
	s.page_size = smp->page;
	ret = grow(&s);
	t0 = now_s();
	next_scan = t0 + 1;
	while (!ret && (t = now_s()) - t0 < o->seconds) {
		if (s.cur % 64 == 0) {
			double *a = realloc(s.arm, (s.cur + 64) * sizeof(*a));
			int *g = a ? realloc(s.again, (s.cur + 64) *
					     sizeof(*g)) : NULL;
			uint32_t *on = g ? realloc(s.active, (s.cur + 64) *
						   sizeof(*on)) : NULL;

			if (a)
				s.arm = a;
			if (g)
				s.again = g;
			if (!on) {
				ret = -ENOMEM;
				break;
			}
			s.active = on;
			memset(g + s.cur, 0, 64 * sizeof(*g));
			memset(on + s.cur, 0, 64 * sizeof(*on));
		}
		s.arm[s.cur] = t;
		ret = sampler_arm(smp);
		if (ret)
			break;
		cleared += now_s() - t;
		sleep_s(o->interval);
		if (sampler_drain(smp, add_sample, &s) < 0)
			ret = -EIO;
		end_slice(&s, topo->nr_nodes);
		if (!ret && now_s() >= next_scan) {
			ret = sampler_scan(smp, why, len);
			next_scan += 1;
		}
	}
	r->sample_seconds = now_s() - t0;
	r->sample_from = t0;
	r->clear_seconds = s.cur ? cleared / s.cur : 0;
	/* the slices' lengths, from one clear to the next (the last: to now) */
	arm = s.arm;
	for (j = 0; j < s.cur; j++)
		arm[j] = (j + 1 < s.cur ? arm[j + 1] : t0 + r->sample_seconds) -
			 arm[j];
	r->samples = s.total;
	r->threads = smp->nr;
	r->lost = smp->lost + s.unplaced;
	sampler_close(smp);
	free(smp);
	if (ret == -ESRCH) {
		snprintf(why, len, "process %d exited while it was sampled",
			 (int)pid);
		goto out;
	}
	if (ret) {
		if (!why[0])
			snprintf(why, len, "sampling: %s", strerror(-ret));
		goto out;
	}
	if (nb > 0 && (nb & 1))
		snprintf(r->side_effects, sizeof(r->side_effects),
			 "NUMA balancing was on (not turned on by bwapd): it "
			 "migrated %llu pages of all processes meanwhile",
			 (unsigned long long)(pages_migrated() - migrated0));

	/* where the sampled pages are, the metrics on them */
	pages = calloc(s.used ? s.used : 1, sizeof(*pages));
	hits = calloc(s.used ? s.used : 1, sizeof(*hits));
	first = calloc(s.used ? s.used : 1, sizeof(*first));
	group_hits = calloc((s.used ? s.used : 1) * INSPECT_SLICE_GROUPS,
			    sizeof(*group_hits));
	ret = pages && hits && first && group_hits ?
	      locate(pid, &s, pages, first, hits, group_hits, &n) : -ENOMEM;
	if (!ret)
		ret = read_pages(r);
	if (ret) {
		snprintf(why, len, "process %d: the nodes of its pages: %s",
			 (int)pid, strerror(-ret));
		goto out;
	}
	describe_source(r, soft_dirty, sd_why, nb, o->interval, o);
	if (s.used) {
		sl = (struct inspect_slices){ .nr = s.cur, .len = arm,
					      .first = first, .hits = hits,
					      .group_hits = group_hits,
					      .again = s.again,
					      .clear = r->clear_seconds,
					      .active = s.active };
		ret = inspect_metrics(pages, n, topo->nr_nodes, &sl, &r->est,
				      &r->metrics);
		if (ret)
			goto out;
		/* NodePages: every resident page of the process */
		for (j = 0; j < topo->nr_nodes; j++)
			r->metrics.node_pages[j] = (double)r->pages[j];
		r->metrics.page_balance = bwm_imbalance(r->metrics.node_pages,
							topo->nr_nodes);
		r->have_metrics = 1;
		r->have_dynamicity = s.compared > 0;
		r->dynamicity = s.migrations / r->sample_seconds;
		r->dyn_compared = s.compared;
		if (!s.compared)
			snprintf(r->metrics_why, sizeof(r->metrics_why),
				 "no page was sampled in two slices in a row");
	} else {
		snprintf(r->metrics_why, sizeof(r->metrics_why),
			 "no access sampled in %.3g s (%s)", r->sample_seconds,
			 r->source);
	}
	for (j = 0; j < s.nr_threads; j++)
		r->thread_nodes[s.tnode[j]]++;
	snprintf(r->signature_why, sizeof(r->signature_why),
		 "a process that already runs cannot be run again with the "
		 "two thread placements the signature needs");
	ret = inspect_predict_process(r, pages, n, o);
	if (!ret)
		inspect_verdict(r);
out:
	if (ret) {
		free(pages);
		pages = NULL;
		n = 0;
	}
	*pagesp = pages;
	*np = n;
	free(hits);
	free(first);
	free(group_hits);
	free(s.arm);
	free(s.again);
	free(s.active);
	free(s.e);
	free(s.touched);
	return ret;
}

int inspect_predict_process(struct inspect_report *r,
			    const struct bwm_page *pages, long n,
			    const struct inspect_proc_opts *o)
{
	double sh[BWM_MAX_NODES] = { 0 }, shsum = 0, all = 0;
	double pr[BWM_MAX_NODES][BWM_MAX_NODES] = { { 0 } };
	struct bwm_placement pl;
	struct bwm_workload wl;
	struct bwm_error err;
	char msg[256];
	long i;
	int c, j, ret;

	if (!o->machine || !o->workload) {
		snprintf(r->prediction_why, sizeof(r->prediction_why),
			 "needs a machine and a workload class of the model "
			 "(--model, --workload): this machine's bandwidths and "
			 "the process's demand are not measured here");
		return 0;
	}
	if (o->machine->nr_nodes != r->nr_nodes) {
		snprintf(r->prediction_why, sizeof(r->prediction_why),
			 "the model has %d nodes, the machine %d",
			 o->machine->nr_nodes, r->nr_nodes);
		return 0;
	}
	wl = *o->workload;
	wl.workers = 0;
	memset(wl.threads, 0, sizeof(wl.threads));
	for (j = 0; j < r->nr_nodes; j++) {
		wl.threads[j] = r->thread_nodes[j];
		if (wl.threads[j])
			wl.workers |= 1u << j;
	}
	/* traffic on shared pages, and where each node's private pages are */
	for (i = 0; i < n; i++) {
		double t = 0;
		int best = bwm_page_argmax(&pages[i], r->nr_nodes);

		for (j = 0; j < r->nr_nodes; j++)
			t += pages[i].acc[j];
		if (best < 0 || pages[i].node < 0)
			continue;
		all += t;
		if (bwm_page_exclusivity(&pages[i], r->nr_nodes) <
		    BWM_DEFAULT_MIN_EXCL) {
			sh[pages[i].node] += t;
			shsum += t;
		} else {
			pr[best][pages[i].node] += t;
		}
	}
	if (!(all > 0) || !wl.workers) {
		snprintf(r->prediction_why, sizeof(r->prediction_why),
			 "no sampled access to place");
		return 0;
	}
	wl.shared = shsum / all;
	memset(&pl, 0, sizeof(pl));
	for (j = 0; j < r->nr_nodes; j++)
		pl.shared[j] = shsum > 0 ? sh[j] / shsum : 1.0 / r->nr_nodes;
	for (c = 0; c < r->nr_nodes; c++) {
		double sum = 0;

		for (j = 0; j < r->nr_nodes; j++)
			sum += pr[c][j];
		for (j = 0; j < r->nr_nodes; j++)
			pl.priv[c][j] = sum > 0 ? pr[c][j] / sum : j == c;
	}
	ret = bwm_workload_check(o->machine, &wl, &err);
	if (ret) {
		snprintf(r->prediction_why, sizeof(r->prediction_why),
			 "the model cannot run it: %s",
			 bwm_error_format(&err, NULL, msg, sizeof(msg)));
		return 0;
	}
	ret = inspect_prediction(r, o->machine, &wl, &pl, o->u8_err);
	if (ret) {
		snprintf(r->prediction_why, sizeof(r->prediction_why),
			 "the model cannot place it (%s)", strerror(-ret));
		return 0;
	}
	snprintf(r->assumes, sizeof(r->assumes),
		 "machine %s, workload class %s, shared share %.2f from the "
		 "samples", o->machine->name, o->workload->name, wl.shared);
	return 0;
}
