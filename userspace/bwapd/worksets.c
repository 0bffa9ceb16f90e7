// SPDX-License-Identifier: GPL-2.0
/*
 * Which worker sets to profile.  The paper's two filters: sets that are
 * the same as another one under the machine's symmetry (a permutation of
 * the nodes that keeps every distance, CPU count, memory size and HMAT
 * figure), and sets that a rational user would not pick because they are
 * spread farther apart than sets of the same size need to be.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "worksets.h"

/* Enough for every symmetry of machines up to 8 nodes; more are not used. */
#define MAX_AUTOMORPHISMS	4096

struct search {
	const struct bwapd_topology *t;
	int8_t perm[BWAPD_MAX_NODES];
	uint32_t used;
	int nr;
	int8_t (*found)[BWAPD_MAX_NODES];
};

/* Nodes i and j look alike on their own. */
static int same_node(const struct bwapd_topology *t, int i, int j)
{
	const struct bwapd_node *a = &t->node[i], *b = &t->node[j];

	return a->nr_cpus == b->nr_cpus &&
	       ((a->mem_bytes + (1ULL << 29)) >> 30) ==
	       ((b->mem_bytes + (1ULL << 29)) >> 30) &&
	       !a->mem_bytes == !b->mem_bytes &&
	       a->read_bw == b->read_bw && a->write_bw == b->write_bw &&
	       a->read_lat == b->read_lat && a->write_lat == b->write_lat;
}

static void search(struct search *s, int i)
{
	const struct bwapd_topology *t = s->t;
	int j, k;

	if (s->nr >= MAX_AUTOMORPHISMS)
		return;
	if (i == t->nr_nodes) {
		memcpy(s->found[s->nr++], s->perm, sizeof(s->perm));
		return;
	}
	for (j = 0; j < t->nr_nodes; j++) {
		if ((s->used & (1u << j)) || !same_node(t, i, j))
			continue;
		for (k = 0; k < i; k++) {
			int pk = s->perm[k];

			if (t->node[i].distance[k] != t->node[j].distance[pk] ||
			    t->node[k].distance[i] != t->node[pk].distance[j])
				break;
		}
		if (k < i || t->node[i].distance[i] != t->node[j].distance[j])
			continue;
		/* HMAT initiators map onto initiators */
		for (k = 0; k < i; k++) {
			int pk = s->perm[k];

			if (!(t->node[i].initiators >> k & 1) !=
			    !(t->node[j].initiators >> pk & 1) ||
			    !(t->node[k].initiators >> i & 1) !=
			    !(t->node[pk].initiators >> j & 1))
				break;
		}
		if (k < i)
			continue;
		s->perm[i] = (int8_t)j;
		s->used |= 1u << j;
		search(s, i + 1);
		s->used &= ~(1u << j);
	}
}

static uint32_t image(const int8_t *perm, uint32_t set, int n)
{
	uint32_t out = 0;
	int i;

	for (i = 0; i < n; i++)
		if (set & (1u << i))
			out |= 1u << perm[i];
	return out;
}

static int diameter(const struct bwapd_topology *t, uint32_t set)
{
	int i, j, d = 0;

	for (i = 0; i < t->nr_nodes; i++) {
		if (!(set & (1u << i)))
			continue;
		for (j = 0; j < t->nr_nodes; j++)
			if (set & (1u << j) && t->node[i].distance[j] > d)
				d = t->node[i].distance[j];
	}
	return d;
}

const char *bwapd_skip_name(enum bwapd_skip s)
{
	switch (s) {
	case BWAPD_PROFILE:
		return "profile";
	case BWAPD_SKIP_SYMMETRIC:
		return "symmetric";
	case BWAPD_SKIP_SPREAD:
		return "spread";
	}
	return "?";
}

int bwapd_sets_enumerate(const struct bwapd_topology *t,
			 const struct bwapd_set_opts *o, struct bwapd_sets *s)
{
	int8_t (*autos)[BWAPD_MAX_NODES];
	int index[BWAPD_MAX_SETS];
	int mind[BWAPD_MAX_NODES + 1];
	struct search srch = { .t = t };
	int n = t->nr_nodes, size, i, a;
	uint32_t set;

	if (!t->cpu_nodes)
		return -ENODEV;
	autos = calloc(MAX_AUTOMORPHISMS, sizeof(*autos));
	if (!autos)
		return -ENOMEM;
	srch.found = autos;
	if (!o->no_symmetry)
		search(&srch, 0);
	memset(s, 0, offsetof(struct bwapd_sets, set));
	s->nr_automorphisms = srch.nr;

	for (size = 0; size <= n; size++)
		mind[size] = 1 << 30;
	for (set = 1; set < (1u << n); set++)
		if ((set & t->cpu_nodes) == set) {
			int d = diameter(t, set);

			size = __builtin_popcount(set);
			if (d < mind[size])
				mind[size] = d;
		}

	for (size = 1; size <= n; size++) {
		if (o->max_size && size > o->max_size)
			break;
		for (set = 1; set < (1u << n); set++) {
			struct bwapd_set *e;

			if ((set & t->cpu_nodes) != set ||
			    __builtin_popcount(set) != size)
				continue;
			e = &s->set[s->nr];
			memset(e, 0, sizeof(*e));
			index[set] = s->nr++;
			e->workers = set;
			e->same_as = set;
			e->diameter = diameter(t, set);
			for (i = 0; i < n; i++)
				e->map[i] = (int8_t)i;
			if (!o->all && e->diameter > mind[size]) {
				e->skip = BWAPD_SKIP_SPREAD;
				s->nr_spread++;
				continue;
			}
			for (a = 0; a < srch.nr; a++) {
				uint32_t img = image(autos[a], set, n);

				if (img < set && (img & t->cpu_nodes) == img &&
				    __builtin_popcount(img) == size &&
				    s->set[index[img]].skip == BWAPD_PROFILE) {
					e->skip = BWAPD_SKIP_SYMMETRIC;
					e->same_as = img;
					memcpy(e->map, autos[a], sizeof(e->map));
					s->nr_symmetric++;
					break;
				}
			}
			if (e->skip == BWAPD_PROFILE)
				s->nr_profile++;
		}
	}
	free(autos);
	return 0;
}
