// SPDX-License-Identifier: GPL-2.0
/*
 * A workload of the NUMA bandwidth model as the DWP tuner's target.
 *
 * Alone, the model is the whole application: its pages sit where the
 * last migration put them (uniformly interleaved at the start), its
 * counters are the model's, and its clock is the model's (waiting costs
 * no time).  The model has no instruction stream; it is made of the
 * workload's demand: a thread that never waits for memory retires one
 * instruction per cycle while it moves its demand (bwm_thread_demand), so
 * every byte moved stands for cpu_ghz / demand instructions, and every 64
 * bytes is one last-level cache miss.  The memory controllers' counters split the
 * traffic into reads and writes (as uncore counters do for a machine
 * that runs one application).  Stalls and instructions are counted by
 * worker node too (node_run).  All are as noisy as the other counters.
 *
 * An application (bwm_app, bwapd_target_model_app) has more than its
 * workload: two phases that take turns, threads that are not equal,
 * prefetches that no demand miss counts, write-backs that no miss counts
 * either, and stalls that are not memory stalls.  Its counters are what
 * a real program's would be: the misses count the demand reads only,
 * the controllers all of the traffic, the stall counter every stalled
 * cycle, the instructions its progress.  Nothing of it is in the family
 * of workloads the tuner fits (bestshot.c).
 *
 * Several workloads can share the machine (co-scheduled jobs on disjoint
 * nodes, bwm_predict_corun): each is a target of its own, and time runs
 * for all of them whenever one of them waits.
 *
 * In front of a real process, the weights and the migrations are the
 * process's (set_mempolicy_weights(2), move_pages(2)), time is real,
 * and only the counters come from the model, computed from where the
 * process's pages actually are (read back from the kernel after every
 * interval).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

/* Pages of a modelled application: 4 GiB of 4 KiB pages. */
#define MODEL_PAGES	(1ULL << 20)

/* The machine and the workloads on it. */
struct world {
	struct bwm_machine m;
	int nr, refs;
	struct bwm_workload wl[BWM_MAX_CORUN];
	double frac[BWM_MAX_CORUN][BWAPD_MAX_NODES];	/* where pages are */
	struct bwm_prediction pred[BWM_MAX_CORUN];
	double now;
	uint64_t stalls[BWM_MAX_CORUN], cycles[BWM_MAX_CORUN];
	uint64_t insns[BWM_MAX_CORUN], accesses[BWM_MAX_CORUN];
	uint64_t reads[BWM_MAX_CORUN], writes[BWM_MAX_CORUN];
	/* by worker node, adding up to the above; split by node_rng */
	uint64_t node_stalls[BWM_MAX_CORUN][BWAPD_MAX_NODES];
	uint64_t node_insns[BWM_MAX_CORUN][BWAPD_MAX_NODES];
	struct bwapd_target *real;	/* one workload in front of a process */
	/* one application beyond its workload; wl[0] is its phase 0 */
	int has_app, phase;
	struct bwm_app app;
	struct bwm_prediction app_pred[BWM_APP_PHASES];
	double left;			/* instructions left in the phase */
	double noise;
	struct bwm_rng rng, node_rng;
};

struct mtarget {
	struct world *w;
	int i;
};

static struct mtarget *mt(struct bwapd_target *t)
{
	return t->priv;
}

static int update(struct world *w)
{
	const struct bwm_workload *wl[BWM_MAX_CORUN];
	const struct bwm_placement *pp[BWM_MAX_CORUN];
	struct bwm_placement pl[BWM_MAX_CORUN];
	int i;

	for (i = 0; i < w->nr; i++) {
		bwm_placement_interleave(&pl[i], w->m.nr_nodes, w->frac[i]);
		wl[i] = &w->wl[i];
		pp[i] = &pl[i];
	}
	if (w->has_app) {
		int p, ret = 0;

		for (p = 0; p < w->app.nr_phases && !ret; p++)
			ret = bwm_predict(&w->m, &w->app.phase[p], &pl[0],
					  &w->app_pred[p]);
		return ret;
	}
	return bwm_predict_corun(&w->m, w->nr, wl, pp, w->pred);
}

/* Workload i's pages now sit by frac. */
static int place(struct world *w, int i, const double *frac)
{
	double old[BWAPD_MAX_NODES];
	size_t sz = sizeof(double) * (size_t)w->m.nr_nodes;
	int ret;

	memcpy(old, w->frac[i], sz);
	memcpy(w->frac[i], frac, sz);
	ret = update(w);
	if (ret) {
		memcpy(w->frac[i], old, sz);
		update(w);
	}
	return ret;
}

/* In front of a process: the model follows its actual placement. */
static int follow(struct bwapd_target *t)
{
	struct world *w = mt(t)->w;
	uint64_t pages[BWAPD_MAX_NODES], total = 0;
	double frac[BWAPD_MAX_NODES];
	int j, ret;

	if (!w->real)
		return 0;
	ret = w->real->ops->pages(w->real, pages, w->m.nr_nodes);
	if (ret) {
		memcpy(t->why, w->real->why, sizeof(t->why));
		return ret;
	}
	for (j = 0; j < w->m.nr_nodes; j++)
		total += pages[j];
	if (!total)
		return 0;	/* nothing resident yet: keep the last */
	for (j = 0; j < w->m.nr_nodes; j++)
		frac[j] = (double)pages[j] / (double)total;
	return place(w, 0, frac);
}

static uint64_t noisy(struct world *w, double v)
{
	return (uint64_t)(v * bwm_noise_factor(&w->rng, w->noise) + 0.5);
}

/*
 * Count inc split over the nodes as want[] says, each part as noisy as a
 * counter (node_rng): the parts add up to inc.
 */
static void split(struct world *w, uint64_t inc, const double *want,
		  uint64_t *to)
{
	double share[BWAPD_MAX_NODES], sum = 0;
	uint64_t given = 0;
	int c, last = -1;

	for (c = 0; c < w->m.nr_nodes; c++)
		if (want[c] > 0) {
			share[c] = want[c] * bwm_noise_factor(&w->node_rng, w->noise);
			sum += share[c];
			last = c;
		}
	for (c = 0; c < last && sum > 0; c++)
		if (want[c] > 0) {
			uint64_t v = (uint64_t)((double)inc * share[c] / sum + 0.5);

			v = v < inc - given ? v : inc - given;
			to[c] += v;
			given += v;
		}
	if (last >= 0)
		to[last] += inc - given;
}

/*
 * The stalls and instructions of workload i's threads (stalls, insns:
 * what all of them counted over 'seconds') by worker node: a node's
 * threads stall as their own rate lets them (the prediction's
 * thread_gbps), and share the cycles 'unwaited' of all threads that did
 * not wait for memory by their number (the application goes as its
 * slowest thread: the faster ones wait for it, and retire no more than
 * it does); 'other' of those stall anyway, the rest retire.
 */
static void node_run(struct world *w, int i, const struct bwm_workload *wl,
		     const struct bwm_prediction *pr, double seconds,
		     double unwaited, double other, uint64_t stalls,
		     uint64_t insns)
{
	double n = bwm_workload_nr_threads(wl), hz = w->m.cpu_ghz * 1e9;
	double demand = bwm_thread_demand(&w->m, wl);
	double st[BWAPD_MAX_NODES] = { 0 }, in[BWAPD_MAX_NODES] = { 0 };
	int c;

	for (c = 0; c < w->m.nr_nodes; c++) {
		double nt = wl->threads[c], mine = unwaited * nt / n;

		if (!(nt > 0))
			continue;
		st[c] = nt * hz * fmax(0, 1 - pr->thread_gbps[c] / demand) *
			seconds + other * mine;
		in[c] = (1 - other) * mine;
	}
	split(w, stalls, st, w->node_stalls[i]);
	split(w, insns, in, w->node_insns[i]);
}

/* seconds of the application's phase p: its counters go up */
static void app_run(struct world *w, int p, double seconds)
{
	const struct bwm_workload *wl = &w->app.phase[p];
	const struct bwm_prediction *pr = &w->app_pred[p];
	double bytes = pr->throughput_gbps * 1e9 * seconds;
	/* cycles a thread did not wait for memory */
	double unwaited = bytes * w->m.cpu_ghz / bwm_thread_demand(&w->m, wl);
	double os = w->app.other_stalls;

	uint64_t stalls = noisy(w, pr->stall_rate * seconds + os * unwaited);
	uint64_t insns;

	w->stalls[0] += stalls;
	w->cycles[0] += (uint64_t)(bwm_workload_nr_threads(wl) *
				   w->m.cpu_ghz * 1e9 * seconds + 0.5);
	insns = noisy(w, (1 - os) * unwaited);
	w->insns[0] += insns;
	node_run(w, 0, wl, pr, seconds, unwaited, os, stalls, insns);
	/* demand misses: reads and stores' reads, less what prefetches brought */
	w->accesses[0] += noisy(w, bytes * wl->read * (1 - w->app.prefetch) /
				   BWM_LINE_BYTES);
	w->reads[0] += noisy(w, bytes * wl->read);
	w->writes[0] += noisy(w, bytes * (1 - wl->read));
}

/* The application runs through its phases for 'seconds'. */
static void app_advance(struct world *w, double seconds)
{
	while (seconds > 0) {
		int p = w->phase;
		double ips = bwm_app_phase_ips(&w->m, &w->app, p,
					       w->app_pred[p].throughput_gbps);
		double t = ips > 0 ? w->left / ips : seconds;

		if (t > seconds) {
			app_run(w, p, seconds);
			w->left -= ips * seconds;
			return;
		}
		app_run(w, p, t);
		seconds -= t;
		w->phase = (p + 1) % w->app.nr_phases;
		w->left = w->app.insns[w->phase];
	}
}

/* Time passes for every workload: the counters go up. */
static int run(struct world *w, double seconds)
{
	int i;

	if (!(seconds >= 0))
		return -EINVAL;
	if (w->has_app) {
		app_advance(w, seconds);
		w->now += seconds;
		return 0;
	}
	for (i = 0; i < w->nr; i++) {
		const struct bwm_workload *wl = &w->wl[i];
		double bytes = w->pred[i].throughput_gbps * 1e9 * seconds;
		double unwaited = bytes * w->m.cpu_ghz / bwm_thread_demand(&w->m, wl);
		uint64_t stalls = noisy(w, w->pred[i].stall_rate * seconds);
		uint64_t insns;

		w->stalls[i] += stalls;
		w->cycles[i] += (uint64_t)(bwm_workload_nr_threads(wl) *
					   w->m.cpu_ghz * 1e9 * seconds + 0.5);
		insns = noisy(w, unwaited);
		w->insns[i] += insns;
		node_run(w, i, wl, &w->pred[i], seconds, unwaited, 0, stalls,
			 insns);
		w->accesses[i] += noisy(w, bytes / BWM_LINE_BYTES);
		w->reads[i] += noisy(w, bytes * wl->read);
		w->writes[i] += noisy(w, bytes * (1 - wl->read));
	}
	w->now += seconds;
	return 0;
}

static int m_counters(struct bwapd_target *t, struct bwapd_counters *c)
{
	struct world *w = mt(t)->w;
	int i = mt(t)->i;

	/* the placement was read back when time last passed or pages moved */
	memset(c, 0, sizeof(*c));
	c->seconds = w->now;
	c->stall_cycles = w->stalls[i];
	c->cycles = w->cycles[i];
	c->instructions = w->insns[i];
	c->mem_accesses = w->accesses[i];
	c->read_bytes = w->reads[i];
	c->write_bytes = w->writes[i];
	memcpy(c->node_stall_cycles, w->node_stalls[i], sizeof(c->node_stall_cycles));
	memcpy(c->node_instructions, w->node_insns[i], sizeof(c->node_instructions));
	c->have = BWAPD_HAVE_STALLS | BWAPD_HAVE_MAPI | BWAPD_HAVE_RW |
		  BWAPD_HAVE_NODES;
	return 0;
}

static int m_set_weights(struct bwapd_target *t, const uint8_t *w, int nr)
{
	struct world *wd = mt(t)->w;
	double frac[BWAPD_MAX_NODES];

	if (wd->real) {
		int ret = wd->real->ops->set_weights(wd->real, w, nr);

		if (ret)
			memcpy(t->why, wd->real->why, sizeof(t->why));
		return ret;
	}
	/* the kernel's checks: a weight per node of the machine, not all 0 */
	if (nr > wd->m.nr_nodes || bwm_weights_to_fractions(w, nr, frac))
		return -EINVAL;
	return 0;
}

static int m_migrate(struct bwapd_target *t, const uint8_t *w, int nr,
		     const struct bwapd_migrate_opts *o,
		     struct bwapd_migration *m)
{
	struct world *wd = mt(t)->w;
	double frac[BWAPD_MAX_NODES] = { 0 }, moved = 0;
	int i = mt(t)->i, j, ret;

	if (wd->real) {
		ret = wd->real->ops->migrate(wd->real, w, nr, o, m);
		if (ret)
			memcpy(t->why, wd->real->why, sizeof(t->why));
		return ret ? ret : follow(t);
	}
	memset(m, 0, sizeof(*m));
	if (nr > wd->m.nr_nodes || bwm_weights_to_fractions(w, nr, frac))
		return -EINVAL;
	for (j = 0; j < wd->m.nr_nodes; j++)
		if (frac[j] > wd->frac[i][j])
			moved += frac[j] - wd->frac[i][j];
	m->pages = MODEL_PAGES;
	m->moved = (uint64_t)(moved * MODEL_PAGES + 0.5);
	if (o->pages_per_s > 0)
		m->seconds = (double)m->moved / o->pages_per_s;
	ret = place(wd, i, frac);
	/* the application runs on while its pages move */
	return ret ? ret : run(wd, m->seconds);
}

static int m_pages(struct bwapd_target *t, uint64_t *pages, int nr)
{
	struct world *w = mt(t)->w;
	int j;

	if (w->real)
		return w->real->ops->pages(w->real, pages, nr);
	for (j = 0; j < nr; j++)
		pages[j] = j < w->m.nr_nodes ?
			   (uint64_t)(w->frac[mt(t)->i][j] * MODEL_PAGES + 0.5) : 0;
	return 0;
}

static int m_wait(struct bwapd_target *t, double seconds)
{
	struct world *w = mt(t)->w;
	int ret = 0;

	/* a process runs in real time: the model keeps pace with it */
	if (w->real) {
		ret = w->real->ops->wait(w->real, seconds);
		if (ret)
			memcpy(t->why, w->real->why, sizeof(t->why));
	}
	if (!ret)
		ret = follow(t);
	return ret ? ret : run(w, seconds);
}

static int m_threads(struct bwapd_target *t, int *threads, int nr)
{
	struct world *w = mt(t)->w;
	const struct bwm_workload *wl = w->has_app ? &w->app.phase[0] :
					&w->wl[mt(t)->i];
	int j;

	for (j = 0; j < nr; j++)
		threads[j] = j < w->m.nr_nodes ? wl->threads[j] : 0;
	return 0;
}

static void m_close(struct bwapd_target *t)
{
	struct mtarget *p = mt(t);

	if (p && !--p->w->refs)
		free(p->w);
	free(p);
	t->priv = NULL;
}

static const struct bwapd_target_ops model_target_ops = {
	.name = "model",
	.close = m_close,
	.counters = m_counters,
	.set_weights = m_set_weights,
	.migrate = m_migrate,
	.pages = m_pages,
	.wait = m_wait,
	.threads = m_threads,
};

static int model_open(struct bwapd_target *t, int nr,
		      const struct bwm_machine *m,
		      const struct bwm_workload *wl, const struct bwm_app *app,
		      uint64_t seed, double noise, struct bwapd_target *real)
{
	struct mtarget *p[BWM_MAX_CORUN] = { NULL };
	struct world *w;
	int i, j, ret;

	if (nr < 1 || nr > BWM_MAX_CORUN || (real && nr != 1) ||
	    (app && (nr != 1 || real || app->nr_phases < 1 ||
		     app->nr_phases > BWM_APP_PHASES)))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->m = *m;
	w->nr = nr;
	w->real = real;
	w->noise = noise;
	bwm_rng_seed(&w->rng, seed);
	bwm_rng_seed(&w->node_rng, seed ^ 0x6e6f6465);
	ret = 0;
	if (app) {
		w->has_app = 1;
		w->app = *app;
		w->left = app->insns[0];
		for (i = 1; i < app->nr_phases && !ret; i++)
			ret = app->phase[i].workers == wl->workers ?
			      bwm_workload_check(m, &app->phase[i], NULL) :
			      -EINVAL;
	}
	for (i = 0; i < nr && !ret; i++) {
		w->wl[i] = wl[i];
		ret = bwm_workload_check(m, &wl[i], NULL);
		/* uniform interleave to start with */
		for (j = 0; j < m->nr_nodes; j++)
			w->frac[i][j] = 1.0 / m->nr_nodes;
	}
	if (!ret)
		ret = update(w);
	for (i = 0; i < nr && !ret; i++) {
		p[i] = calloc(1, sizeof(*p[i]));
		ret = p[i] ? 0 : -ENOMEM;
	}
	if (ret) {
		for (i = 0; i < nr; i++)
			free(p[i]);
		free(w);
		return ret;
	}
	for (i = 0; i < nr; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		p[i]->w = w;
		p[i]->i = i;
		t[i].ops = &model_target_ops;
		t[i].priv = p[i];
		t[i].pid = real ? real->pid : 0;
		t[i].leave_out = real ? real->leave_out : 1;
		t[i].workers = wl[i].workers;
		t[i].nr_nodes = m->nr_nodes;
		snprintf(t[i].stall_event, sizeof(t[i].stall_event),
			 "the model's stall cycles");
	}
	w->refs = nr;
	return 0;
}

int bwapd_target_model_group(struct bwapd_target *t, int nr,
			     const struct bwm_machine *m,
			     const struct bwm_workload *wl, uint64_t seed,
			     double noise, struct bwapd_target *real)
{
	return model_open(t, nr, m, wl, NULL, seed, noise, real);
}

int bwapd_target_model_app(struct bwapd_target *t, const struct bwm_machine *m,
			   const struct bwm_app *app, uint64_t seed,
			   double noise)
{
	return model_open(t, 1, m, &app->phase[0], app, seed, noise, NULL);
}

int bwapd_target_model(struct bwapd_target *t, const struct bwm_machine *m,
		       const struct bwm_workload *wl, uint64_t seed,
		       double noise, struct bwapd_target *real)
{
	return bwapd_target_model_group(t, 1, m, wl, seed, noise, real);
}

int bwapd_target_model_workload(struct bwapd_target *t,
				const struct bwm_workload *wl)
{
	struct world *w = mt(t)->w;
	int i = mt(t)->i, ret;
	struct bwm_workload old = w->wl[i];

	if (wl->workers != old.workers || w->has_app)
		return -EINVAL;
	w->wl[i] = *wl;
	ret = update(w);
	if (ret) {
		w->wl[i] = old;
		update(w);
	}
	return ret;
}
