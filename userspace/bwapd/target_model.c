// SPDX-License-Identifier: GPL-2.0
/*
 * A workload of the NUMA bandwidth model as the DWP tuner's target.
 *
 * Alone, the model is the whole application: its pages sit where the
 * last migration put them (uniformly interleaved at the start), its
 * counters are the model's, and its clock is the model's (waiting costs
 * no time).  The model has no instruction stream; it is made of the
 * workload's demand: a thread that never waits for memory retires one
 * instruction per cycle while it moves demand_gbps, so every byte moved
 * stands for cpu_ghz / demand_gbps instructions, and every 64 bytes is
 * one last-level cache miss.  Both are as noisy as the other counters.
 *
 * In front of a real process, the weights and the migrations are the
 * process's (set_mempolicy_weights(2), move_pages(2)), time is real,
 * and only the counters come from the model, computed from where the
 * process's pages actually are (read back from the kernel after every
 * interval).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bwapd.h"

/* Pages of the modelled application: 4 GiB of 4 KiB pages. */
#define MODEL_PAGES	(1ULL << 20)

struct mtarget {
	struct bwm_machine m;
	struct bwm_sim sim;
	struct bwapd_target *real;
	double frac[BWAPD_MAX_NODES];	/* where the pages are */
	double noise;
	struct bwm_rng rng;
	uint64_t instructions, accesses;
};

static struct mtarget *mt(struct bwapd_target *t)
{
	return t->priv;
}

static int place(struct mtarget *p, const double *frac)
{
	struct bwm_placement pl;

	bwm_placement_interleave(&pl, p->m.nr_nodes, frac);
	memcpy(p->frac, frac, sizeof(double) * (size_t)p->m.nr_nodes);
	return bwm_sim_set_placement(&p->sim, &pl);
}

/* In front of a process: the model follows its actual placement. */
static int follow(struct bwapd_target *t)
{
	struct mtarget *p = mt(t);
	uint64_t pages[BWAPD_MAX_NODES], total = 0;
	double frac[BWAPD_MAX_NODES];
	int j, ret;

	if (!p->real)
		return 0;
	ret = p->real->ops->pages(p->real, pages, p->m.nr_nodes);
	if (ret) {
		memcpy(t->why, p->real->why, sizeof(t->why));
		return ret;
	}
	for (j = 0; j < p->m.nr_nodes; j++)
		total += pages[j];
	if (!total)
		return 0;	/* nothing resident yet: keep the last */
	for (j = 0; j < p->m.nr_nodes; j++)
		frac[j] = (double)pages[j] / (double)total;
	return place(p, frac);
}

static uint64_t noisy(struct mtarget *p, double v)
{
	double f = p->noise > 0 ? 1 + p->noise * bwm_rng_normal(&p->rng) : 1;

	return v * f > 0 ? (uint64_t)(v * f + 0.5) : 0;
}

/* Let the application run: the model's counters and its instructions. */
static int run(struct mtarget *p, double seconds)
{
	double bytes = p->sim.pred.throughput_gbps * 1e9 * seconds;
	int ret = bwm_sim_run(&p->sim, seconds);

	if (ret)
		return ret;
	p->instructions += noisy(p, bytes * p->m.cpu_ghz /
				    p->sim.wl.demand_gbps);
	p->accesses += noisy(p, bytes / BWM_LINE_BYTES);
	return 0;
}

static int m_counters(struct bwapd_target *t, struct bwapd_counters *c)
{
	struct mtarget *p = mt(t);
	int ret = follow(t);

	if (ret)
		return ret;
	memset(c, 0, sizeof(*c));
	c->seconds = p->sim.now_s;
	c->stall_cycles = p->sim.stall_cycles;
	c->cycles = p->sim.cycles;
	c->instructions = p->instructions;
	c->mem_accesses = p->accesses;
	c->have = BWAPD_HAVE_STALLS | BWAPD_HAVE_MAPI;
	return 0;
}

static int m_set_weights(struct bwapd_target *t, const uint8_t *w, int nr)
{
	struct mtarget *p = mt(t);
	double frac[BWAPD_MAX_NODES];

	if (p->real) {
		int ret = p->real->ops->set_weights(p->real, w, nr);

		if (ret)
			memcpy(t->why, p->real->why, sizeof(t->why));
		return ret;
	}
	/* the kernel's checks: a weight per node of the machine, not all 0 */
	if (nr > p->m.nr_nodes || bwm_weights_to_fractions(w, nr, frac))
		return -EINVAL;
	return 0;
}

static int m_migrate(struct bwapd_target *t, const uint8_t *w, int nr,
		     const struct bwapd_migrate_opts *o,
		     struct bwapd_migration *m)
{
	struct mtarget *p = mt(t);
	double frac[BWAPD_MAX_NODES] = { 0 }, moved = 0;
	int j, ret;

	if (p->real) {
		ret = p->real->ops->migrate(p->real, w, nr, o, m);
		if (ret)
			memcpy(t->why, p->real->why, sizeof(t->why));
		return ret ? ret : follow(t);
	}
	memset(m, 0, sizeof(*m));
	if (nr > p->m.nr_nodes || bwm_weights_to_fractions(w, nr, frac))
		return -EINVAL;
	for (j = 0; j < p->m.nr_nodes; j++)
		if (frac[j] > p->frac[j])
			moved += frac[j] - p->frac[j];
	m->pages = MODEL_PAGES;
	m->moved = (uint64_t)(moved * MODEL_PAGES + 0.5);
	if (o->pages_per_s > 0)
		m->seconds = (double)m->moved / o->pages_per_s;
	ret = place(p, frac);
	/* the application runs on while its pages move */
	return ret ? ret : run(p, m->seconds);
}

static int m_pages(struct bwapd_target *t, uint64_t *pages, int nr)
{
	struct mtarget *p = mt(t);
	int j;

	if (p->real)
		return p->real->ops->pages(p->real, pages, nr);
	for (j = 0; j < nr; j++)
		pages[j] = j < p->m.nr_nodes ?
			   (uint64_t)(p->frac[j] * MODEL_PAGES + 0.5) : 0;
	return 0;
}

static int m_wait(struct bwapd_target *t, double seconds)
{
	struct mtarget *p = mt(t);
	int ret = 0;

	/* a process runs in real time: the model keeps pace with it */
	if (p->real) {
		ret = p->real->ops->wait(p->real, seconds);
		if (ret)
			memcpy(t->why, p->real->why, sizeof(t->why));
	}
	if (!ret)
		ret = follow(t);
	return ret ? ret : run(p, seconds);
}

static void m_close(struct bwapd_target *t)
{
	free(t->priv);
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
};

int bwapd_target_model(struct bwapd_target *t, const struct bwm_machine *m,
		       const struct bwm_workload *wl, uint64_t seed,
		       double noise, struct bwapd_target *real)
{
	double frac[BWAPD_MAX_NODES];
	struct mtarget *p;
	int j, ret;

	memset(t, 0, sizeof(*t));
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->m = *m;
	p->real = real;
	p->noise = noise;
	bwm_rng_seed(&p->rng, seed ^ 0x5eedULL);
	ret = bwm_sim_init(&p->sim, &p->m, wl, seed, noise);
	for (j = 0; j < m->nr_nodes; j++)
		frac[j] = 1.0 / m->nr_nodes;
	if (!ret)
		ret = place(p, frac);
	if (ret) {
		free(p);
		return ret;
	}
	t->ops = &model_target_ops;
	t->priv = p;
	t->pid = real ? real->pid : 0;
	t->workers = wl->workers;
	t->nr_nodes = m->nr_nodes;
	return 0;
}

int bwapd_target_model_workload(struct bwapd_target *t,
				const struct bwm_workload *wl)
{
	struct mtarget *p = mt(t);
	struct bwm_workload old = p->sim.wl;
	int ret;

	if (wl->workers != old.workers)
		return -EINVAL;
	p->sim.wl = *wl;
	ret = place(p, p->frac);
	if (ret) {
		p->sim.wl = old;
		place(p, p->frac);
	}
	return ret;
}
