// SPDX-License-Identifier: GPL-2.0
/*
 * The "migrate" placement: bwapd keeps the process's pages in the layout
 * weighted interleave gives, moving them itself with move_pages(2), on
 * any kernel.  A page's node follows from its virtual page number modulo
 * the weights' sum, as the kernel's interleave places an anonymous
 * mapping (its offset is its address); nodes of weight 0 are left out.
 * A 2 MiB block whose pages are all present on one node (a transparent
 * huge page, which the kernel moves whole) is placed as one unit, by its
 * huge page number.
 *
 * Each pass (a step of the tuner, and between steps) reads numa_maps,
 * skips the mappings whose pages per node are what the last pass left,
 * and asks where the pages of the others are (move_pages(2) without
 * nodes), moving those out of place in batches at --rate at most.  The
 * process's new pages follow its own policy (interleave, or weighted
 * interleave with the global weights) until the next pass.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "process.h"

#define HUGE_SHIFT	21		/* a PMD-sized transparent huge page */

struct mplace {
	uint8_t w[BWAPD_MAX_NODES];
	int nr;
	/* the layout: weight prefix sums over the nodes */
	unsigned int cum[BWAPD_MAX_NODES + 1];
	/* the mappings as the last pass left them, to skip the unchanged */
	struct bwapd_vma *seen;
	int nr_seen;
	int have_opts;
	struct bwapd_migrate_opts o;	/* for the passes between steps */
	double last;			/* when the last pass began */
};

/* Between steps, a pass at most this often (seconds). */
#define TICK_EVERY	1.0

/* The node of unit number u (a page's, or a huge page's, number). */
static int layout_node(const struct mplace *k, unsigned long u)
{
	unsigned int r = (unsigned int)(u % k->cum[k->nr]);
	int j;

	for (j = 0; j < k->nr; j++)
		if (r < k->cum[j + 1])
			return j;
	return k->nr - 1;
}

static int migrate_set_weights(struct bwapd_place *pl, const uint8_t *w,
			       int nr)
{
	struct mplace *k = pl->priv;
	unsigned int sum = 0;
	int j;

	if (nr > pl->t->nr_nodes)
		nr = pl->t->nr_nodes;
	for (j = 0; j < nr; j++)
		sum += w[j];
	if (nr < 1 || !sum) {
		snprintf(pl->t->why, sizeof(pl->t->why),
			 "weights that leave out every node");
		return -EINVAL;
	}
	if (!k) {
		k = calloc(1, sizeof(*k));
		if (!k)
			return -ENOMEM;
		pl->priv = k;
	}
	if (k->nr != nr || memcmp(k->w, w, (size_t)nr))
		k->nr_seen = 0;		/* every page must be looked at again */
	memcpy(k->w, w, (size_t)nr);
	k->nr = nr;
	for (j = 0; j < nr; j++)
		k->cum[j + 1] = k->cum[j] + w[j];
	return 0;
}

/* Are the mapping's pages per node what the last pass left? */
static int unchanged(const struct mplace *k, const struct bwapd_vma *v,
		     int nr_nodes)
{
	int i;

	for (i = 0; i < k->nr_seen; i++)
		if (k->seen[i].start == v->start && k->seen[i].end == v->end)
			return !memcmp(k->seen[i].pages, v->pages,
				       sizeof(v->pages[0]) * (size_t)nr_nodes);
	return 0;
}

/*
 * One block of at most 2 MiB, [a, end): where its pages are, and the moves
 * of those out of place.
 */
static int place_block(struct bwapd_mover *mv, const struct mplace *k,
		       unsigned long a, unsigned long end, long page)
{
	void *q[1 << (HUGE_SHIFT - 12)];
	int st[1 << (HUGE_SHIFT - 12)];
	unsigned int cnt = 0, i, present = 0;
	int ret, huge;

	for (; a < end && cnt < sizeof(q) / sizeof(q[0]); a += (unsigned long)page)
		q[cnt++] = (void *)a;
	ret = bwapd_mover_where(mv, q, cnt, st);
	if (ret)
		return ret;
	mv->m->asked += cnt;
	for (i = 0; i < cnt; i++)
		present += st[i] >= 0 && st[i] < mv->t->nr_nodes;
	mv->m->pages += present;
	/* a whole aligned block on one node: a huge page, placed as one */
	huge = present == cnt && cnt == (1u << HUGE_SHIFT) / (unsigned long)page &&
	       !((unsigned long)q[0] & ((1ul << HUGE_SHIFT) - 1));
	for (i = 1; huge && i < cnt; i++)
		huge = st[i] == st[0];
	for (i = 0; i < cnt; i++) {
		unsigned long u = huge ? (unsigned long)q[0] >> HUGE_SHIFT :
			(unsigned long)q[i] / (unsigned long)page;
		int to = layout_node(k, u);

		if (st[i] < 0 || st[i] >= mv->t->nr_nodes || st[i] == to)
			continue;
		ret = bwapd_mover_queue(mv, q[i], to);
		if (ret)
			return ret;
	}
	return 0;
}

struct range_arg {
	struct bwapd_mover *mv;
	const struct mplace *k;
	long page;
};

/* Present pages [start, end), a block of at most 2 MiB at a time. */
static int place_range(void *arg, unsigned long start, unsigned long end)
{
	struct range_arg *ra = arg;
	unsigned long a, next;
	int ret = 0;

	for (a = start; !ret && a < end; a = next) {
		next = ((a >> HUGE_SHIFT) + 1) << HUGE_SHIFT;
		if (next > end)
			next = end;
		ret = place_block(ra->mv, ra->k, a, next, ra->page);
	}
	return ret;
}

static int pass(struct bwapd_place *pl, const struct bwapd_migrate_opts *o,
		struct bwapd_migration *m)
{
	struct mplace *k = pl->priv;
	struct bwapd_target *t = pl->t;
	long page = bwapd_process_page_size(t);
	struct bwapd_mover mv;
	struct bwapd_vmas vs, after;
	int i, ret, skipped = 0;

	memset(m, 0, sizeof(*m));
	if (!k)
		return -EINVAL;		/* no weights set yet */
	k->last = bwapd_now();
	ret = bwapd_mover_init(&mv, t, o, m);
	if (!ret)
		ret = bwapd_process_vmas(t, &vs, 1);
	if (ret) {
		bwapd_mover_free(&mv);
		return ret;
	}
	for (i = 0; !ret && i < vs.nr; i++) {
		const struct bwapd_vma *v = &vs.v[i];
		struct range_arg ra = { .mv = &mv, .k = k, .page = page };
		int j;

		if (v->end <= v->start)
			continue;
		if (unchanged(k, v, t->nr_nodes)) {
			for (j = 0; j < t->nr_nodes; j++)
				m->pages += v->pages[j];
			skipped++;
			continue;
		}
		ret = bwapd_process_present(t, v->start, v->end, place_range,
					    &ra);
	}
	if (!ret)
		ret = bwapd_mover_flush(&mv);
	m->seconds = bwapd_now() - mv.start;
	bwapd_mover_free(&mv);
	/* what this pass left, for the next one to skip */
	if (!ret && !m->moved && !m->failed) {
		free(k->seen);
		k->seen = vs.v;
		k->nr_seen = vs.nr;
		vs.v = NULL;
	} else if (!ret && !bwapd_process_vmas(t, &after, 1)) {
		free(k->seen);
		k->seen = after.v;
		k->nr_seen = after.nr;
	}
	free(vs.v);
	if (!ret)
		bwapd_log(BWAPD_LOG_DEBUG, "process %d: a pass of bwapd's migration: "
			  "%llu pages, %llu moved, %llu not, %d of %d mappings "
			  "unchanged, %.3f s", (int)t->pid,
			  (unsigned long long)m->pages,
			  (unsigned long long)m->moved,
			  (unsigned long long)m->failed, skipped, vs.nr,
			  m->seconds);
	return ret;
}

static int migrate_place(struct bwapd_place *pl, const uint8_t *w, int nr,
			 const struct bwapd_migrate_opts *o,
			 struct bwapd_migration *m)
{
	struct mplace *k;
	int ret = migrate_set_weights(pl, w, nr);

	if (ret)
		return ret;
	k = pl->priv;
	k->o = *o;
	k->have_opts = 1;
	return pass(pl, o, m);
}

/* Between steps: the pages faulted since the last pass. */
static int migrate_tick(struct bwapd_place *pl)
{
	struct mplace *k = pl->priv;
	struct bwapd_migration m;

	if (!k || !k->have_opts || bwapd_now() - k->last < TICK_EVERY)
		return 0;
	return pass(pl, &k->o, &m);
}

static void migrate_close(struct bwapd_place *pl)
{
	struct mplace *k = pl->priv;

	if (!k)
		return;
	free(k->seen);
	free(k);
	pl->priv = NULL;
}

const struct bwapd_place_ops bwapd_place_migrate = {
	.name = "migrate",
	.policies = BWAPD_POL_WEIGHTED | BWAPD_POL_INTERLEAVE,
	.leave_out = 1,
	.new_pages_follow = 0,
	.set_weights = migrate_set_weights,
	.place = migrate_place,
	.tick = migrate_tick,
	.close = migrate_close,
};
