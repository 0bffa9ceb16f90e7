// SPDX-License-Identifier: GPL-2.0
/*
 * The "damon" placement: DAMON's weighted migration (damon.h) places the
 * process's pages.  The weights become the process's scheme, and a
 * placement waits until DAMON has moved the pages, or has stopped moving
 * them.  The process's new pages follow its own policy (the global
 * weights) until DAMON moves them too; new mappings join the scheme
 * between steps.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damon.h"
#include "log.h"
#include "nodemem.h"
#include "process.h"

struct dplace {
	struct bwapd_damon *damon;	/* bwapd's kdamond, once started */
	struct bwapd_damon_place place;	/* the scheme last set */
	uint64_t applied0;		/* bytes DAMON had moved before it */
	uint64_t bytes_per_s;		/* its quota; 0: none */
};

/*
 * The scheme for weights w: the mappings the tuner steers, adjacent ones
 * as one range; past BWAPD_DAMON_MAX_RANGES, those with the most pages.
 * With pages, also their pages per node, and in *slack how far from the
 * weights' shares DAMON's placement may leave them: it places a range's
 * pages in runs of the weights' sum along their offsets, so a range is
 * off by up to half that sum, or its own pages where it has fewer.
 */
static int damon_place(struct bwapd_place *pl, const uint8_t *w, int nr,
		       struct bwapd_damon_place *p, uint64_t *pages,
		       double *slack)
{
	struct bwapd_target *t = pl->t;
	struct dplace *k = pl->priv;
	struct bwapd_damon_range r[BWAPD_DAMON_MAX_RANGES];
	uint64_t rp[BWAPD_DAMON_MAX_RANGES], vp;
	struct bwapd_vmas vs;
	int i, j, n = 0, ret;

	ret = bwapd_process_vmas(t, &vs, 1);
	if (ret)
		return ret;
	memset(p, 0, sizeof(*p));
	p->nr_nodes = nr < t->nr_nodes ? nr : t->nr_nodes;
	memcpy(p->weights, w, (size_t)p->nr_nodes);
	p->bytes_per_s = k->bytes_per_s;
	for (i = 0; i < vs.nr; i++) {
		const struct bwapd_vma *v = &vs.v[i];

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

static int damon_commit(struct bwapd_place *pl, const struct bwapd_damon_place *p)
{
	struct bwapd_target *t = pl->t;
	struct dplace *k = pl->priv;
	int ret = 0;

	if (!k->damon)
		ret = bwapd_damon_open(&k->damon, pl->damon_dir, t->pid, t->why,
				       sizeof(t->why));
	if (!ret)
		ret = bwapd_damon_set(k->damon, p, t->why, sizeof(t->why));
	if (ret && bwapd_process_alive(t))
		ret = -ESRCH;
	if (!ret)
		k->place = *p;
	return ret;
}

static int damon_set_weights(struct bwapd_place *pl, const uint8_t *w, int nr)
{
	struct bwapd_target *t = pl->t;
	struct dplace *k = pl->priv;
	struct bwapd_damon_stats s = { 0 };
	struct bwapd_damon_place p;
	int ret = damon_place(pl, w, nr, &p, NULL, NULL);

	/*
	 * What DAMON moved so far, read before the new weights reach it: the
	 * kdamond may act on them before the migration looks.  A new scheme
	 * starts from 0.
	 */
	if (!ret && k->place.nr_nodes)
		ret = bwapd_damon_stats(k->damon, &s, t->why, sizeof(t->why));
	if (!ret)
		ret = damon_commit(pl, &p);
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
	long page_size = bwapd_process_page_size(t);
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
		if ((double)mem_free[j] * 1024 < need * (double)page_size * 2 &&
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
 * shares and stay there, or three passes of the scheme moved nothing more
 * (fifteen where the quota stopped them: it lets more through every
 * second).  While DAMON moves a range, numa_maps can show the pages in
 * their shares for a moment and out of them again (it leaves out the
 * pages being moved, and a range's pages go to every node at once): the
 * shares count only once a pass of the scheme has moved nothing between
 * two looks that both found them.
 */
static int damon_migrate(struct bwapd_place *pl, const uint8_t *w, int nr,
			 const struct bwapd_migrate_opts *o,
			 struct bwapd_migration *m)
{
	struct bwapd_target *t = pl->t;
	struct dplace *k = pl->priv;
	struct bwapd_damon_stats s0, s;
	uint64_t pages[BWAPD_MAX_NODES] = { 0 }, total = 0, off = 0;
	uint64_t best = UINT64_MAX;
	uint64_t tried, qt, calm_tried = 0, calm_applied = 0;
	int paced, calm = 0;
	double start = bwapd_now(), slack = 0;
	int idle = 0, polls = 0, n = nr < t->nr_nodes ? nr : t->nr_nodes;
	int ret;

	(void)o;	/* DAMON paces itself: its quota, set with the weights */
	memset(m, 0, sizeof(*m));
	if (!k || !k->damon)
		return -EINVAL;		/* no weights set yet */
	ret = bwapd_damon_stats(k->damon, &s0, t->why, sizeof(t->why));
	if (ret)
		return bwapd_process_alive(t) ? -ESRCH : ret;
	s = s0;
	s0.sz_applied = k->applied0;
	tried = s0.nr_tried;
	qt = s0.qt_exceeds;
	m->damon = 1;
	for (;;) {
		struct bwapd_damon_place p;

		/* what DAMON had done before the look at the pages */
		ret = bwapd_damon_stats(k->damon, &s, t->why, sizeof(t->why));
		if (!ret && !s.on) {
			snprintf(t->why, sizeof(t->why), "bwapd's kdamond stopped "
				 "(%s/kdamonds)", BWAPD_DAMON_SYSFS);
			ret = -EIO;
		}
		if (!ret)
			ret = damon_place(pl, w, nr, &p, pages, &slack);
		if (ret)
			break;
		off = off_share(pages, w, n, &total);
		bwapd_log(BWAPD_LOG_DEBUG, "process %d: DAMON: %llu of %llu pages "
			  "off their shares (%.0f allowed), %llu regions tried",
			  (int)t->pid, (unsigned long long)off,
			  (unsigned long long)total, slack,
			  (unsigned long long)s.nr_tried);
		if ((double)off > slack) {
			calm = 0;
		} else if (!calm || s.sz_applied != calm_applied) {
			calm = 1;
			calm_tried = s.nr_tried;
			calm_applied = s.sz_applied;
		} else if (s.nr_tried > calm_tried) {
			break;
		}
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
				/* in their shares, with DAMON still at work */
				if ((double)off > slack) {
					damon_short(t, pages, w, total, off, paced);
					m->failed = off;
				}
				break;
			}
		} else if (++polls > 600) {
			snprintf(t->why, sizeof(t->why), "bwapd's kdamond did not "
				 "apply the scheme of process %d for 60 s", (int)t->pid);
			ret = -ETIMEDOUT;
			break;
		}
		bwapd_sleep(0.1);
	}
	/* what DAMON moved, the last pass included */
	if (!ret)
		ret = bwapd_damon_stats(k->damon, &s, t->why, sizeof(t->why));
	if (ret && bwapd_process_alive(t))
		ret = -ESRCH;
	m->pages = total;
	if (s.sz_applied > s0.sz_applied) {
		m->damon_applied = s.sz_applied - s0.sz_applied;
		m->moved = m->damon_applied /
			   (uint64_t)bwapd_process_page_size(t);
	}
	if (s.nr_tried > s0.nr_tried)
		m->damon_tried = s.nr_tried - s0.nr_tried;
	if (s.qt_exceeds > s0.qt_exceeds)
		m->damon_quota = s.qt_exceeds - s0.qt_exceeds;
	m->seconds = bwapd_now() - start;
	return ret;
}

/* Mappings made since the last step: their pages are the scheme's too. */
static int damon_tick(struct bwapd_place *pl)
{
	struct dplace *k = pl->priv;
	struct bwapd_damon_place p;
	int ret;

	if (!k || !k->damon)
		return 0;
	ret = damon_place(pl, k->place.weights, k->place.nr_nodes, &p, NULL,
			  NULL);
	if (!ret && (p.nr_ranges != k->place.nr_ranges ||
		     memcmp(p.range, k->place.range,
			    sizeof(p.range[0]) * (size_t)p.nr_ranges)))
		ret = damon_commit(pl, &p);
	return ret;
}

static int damon_open(struct bwapd_place *pl)
{
	struct dplace *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	k->bytes_per_s = pl->pages_per_s > 0 ?
			 (uint64_t)(pl->pages_per_s *
				    (double)bwapd_process_page_size(pl->t)) : 0;
	pl->priv = k;
	return 0;
}

static int damon_set(struct bwapd_place *pl, const uint8_t *w, int nr)
{
	int ret = pl->priv ? 0 : damon_open(pl);

	return ret ? ret : damon_set_weights(pl, w, nr);
}

static void damon_close(struct bwapd_place *pl)
{
	struct dplace *k = pl->priv;

	if (!k)
		return;
	bwapd_damon_close(k->damon);
	free(k);
	pl->priv = NULL;
}

const struct bwapd_place_ops bwapd_place_damon = {
	.name = "damon",
	.policies = BWAPD_POL_WEIGHTED,
	.leave_out = 1,
	.new_pages_follow = 0,
	.set_weights = damon_set,
	.place = damon_migrate,
	.tick = damon_tick,
	.close = damon_close,
};
