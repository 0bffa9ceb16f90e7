// SPDX-License-Identifier: GPL-2.0
/*
 * Page access behaviour, after Diener, Cruz and Navaux, "Modeling memory
 * access behavior for data mapping": page and application exclusivity
 * (Eq. 1-2), page and memory access balance (Eq. 3-5), the locality of
 * a mapping (Eq. 8-9), dynamicity (Eq. 6-7), and the data mapping
 * policies built on them.  Documentation/model.md says where the paper's
 * printed equations and its text differ and which one is followed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static double page_total(const struct bwm_page *p, int nr_nodes)
{
	double t = 0;
	int n;

	for (n = 0; n < nr_nodes; n++)
		t += p->acc[n];
	return t;
}

/* The node with the most accesses (the lowest of ties); -1 if none. */
int bwm_page_argmax(const struct bwm_page *p, int nr_nodes)
{
	int n, best = -1;

	for (n = 0; n < nr_nodes; n++)
		if (p->acc[n] > 0 && (best < 0 || p->acc[n] > p->acc[best]))
			best = n;
	return best;
}

double bwm_page_exclusivity(const struct bwm_page *p, int nr_nodes)
{
	double t = page_total(p, nr_nodes);
	int best = bwm_page_argmax(p, nr_nodes);

	return best < 0 ? 0 : p->acc[best] / t;
}

double bwm_imbalance(const double *v, int n)
{
	double sum = 0, max = 0;
	int i;

	for (i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] > max)
			max = v[i];
	}
	return sum > 0 ? (max / (sum / n) - 1) * 100 : 0;
}

int bwm_access_metrics(const struct bwm_page *p, long n, int nr_nodes,
		       struct bwm_access_metrics *out)
{
	double excl = 0, loc = 0, located_acc = 0;
	long i, local_pages = 0;

	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES || n < 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		double t = page_total(&p[i], nr_nodes);
		int best = bwm_page_argmax(&p[i], nr_nodes);

		if (p[i].node >= nr_nodes)
			return -EINVAL;
		if (p[i].node >= 0)
			out->node_pages[p[i].node]++;
		if (!(t > 0))
			continue;
		out->pages++;
		out->accesses += t;
		excl += p[i].acc[best];		/* E_Page x accesses */
		if (p[i].node < 0)
			continue;
		out->located++;
		located_acc += t;
		out->node_acc[p[i].node] += t;
		if (p[i].node == best) {
			loc += t;
			local_pages++;
		}
	}
	if (out->accesses > 0)
		out->exclusivity = excl / out->accesses;
	if (located_acc > 0)
		out->locality = loc / located_acc;
	if (out->located)
		out->page_locality = (double)local_pages / out->located;
	out->page_balance = bwm_imbalance(out->node_pages, nr_nodes);
	out->access_balance = bwm_imbalance(out->node_acc, nr_nodes);
	return 0;
}

/* Is node n among the nodes with the most accesses to p? */
static int among_max(const struct bwm_page *p, int nr_nodes, int n)
{
	int best = bwm_page_argmax(p, nr_nodes);

	return best >= 0 && p->acc[n] >= p->acc[best];
}

long bwm_page_migrations(const struct bwm_page *prev,
			 const struct bwm_page *cur, long n, int nr_nodes,
			 long *compared)
{
	long i, moves = 0, both = 0;

	for (i = 0; i < n; i++) {
		int was = bwm_page_argmax(&prev[i], nr_nodes);

		if (was < 0 || bwm_page_argmax(&cur[i], nr_nodes) < 0)
			continue;
		both++;
		/* a tie that still includes the old node moves nothing */
		if (!among_max(&cur[i], nr_nodes, was))
			moves++;
	}
	if (compared)
		*compared = both;
	return moves;
}

static const char *const mapping_names[BWM_NR_MAPPINGS] = {
	[BWM_MAP_FIRST_TOUCH] = "first-touch",
	[BWM_MAP_RANDOM] = "random",
	[BWM_MAP_ROUND_ROBIN] = "round-robin",
	[BWM_MAP_INTERLEAVE] = "interleave",
	[BWM_MAP_LOCALITY] = "locality",
	[BWM_MAP_REMOTE] = "remote",
	[BWM_MAP_BALANCED] = "balanced",
	[BWM_MAP_MIXED] = "mixed",
};

const char *bwm_mapping_name(enum bwm_mapping m)
{
	return (unsigned int)m < BWM_NR_MAPPINGS ? mapping_names[m] : "?";
}

static int argmin(const struct bwm_page *p, int nr_nodes)
{
	int n, best = 0;

	for (n = 1; n < nr_nodes; n++)
		if (p->acc[n] < p->acc[best])
			best = n;
	return best;
}

struct by_accesses {
	long page;
	double total;
};

static int cmp_accesses(const void *a, const void *b)
{
	const struct by_accesses *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->page < y->page ? -1 : x->page > y->page;
}

/*
 * Balanced: the pages by accesses, most first, each to the node with the
 * most accesses to it among those not overloaded, a node being
 * overloaded once it serves its share (1/N) of all accesses.  Some node
 * is always below its share until the last page is placed.
 */
static int map_balanced(struct bwm_page *p, long n, int nr_nodes)
{
	double load[BWM_MAX_NODES] = { 0 }, total = 0, cap;
	struct by_accesses *order = calloc(n ? n : 1, sizeof(*order));
	long i;
	int k;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		order[i].page = i;
		order[i].total = page_total(&p[i], nr_nodes);
		total += order[i].total;
	}
	qsort(order, n, sizeof(*order), cmp_accesses);
	cap = total / nr_nodes;
	for (i = 0; i < n; i++) {
		struct bwm_page *pg = &p[order[i].page];
		int best = -1;

		for (k = 0; k < nr_nodes; k++) {
			if (load[k] >= cap && order[i].total > 0)
				continue;
			if (best < 0 || pg->acc[k] > pg->acc[best] ||
			    (pg->acc[k] == pg->acc[best] && load[k] < load[best]))
				best = k;
		}
		if (best < 0) {		/* rounding: the least loaded */
			best = 0;
			for (k = 1; k < nr_nodes; k++)
				if (load[k] < load[best])
					best = k;
		}
		pg->node = best;
		load[best] += order[i].total;
	}
	free(order);
	return 0;
}

int bwm_map_pages(struct bwm_page *p, long n, int nr_nodes,
		  enum bwm_mapping policy, double min_excl,
		  struct bwm_rng *rng)
{
	long i;

	if (nr_nodes < 1 || nr_nodes > BWM_MAX_NODES || n < 0 ||
	    (unsigned int)policy >= BWM_NR_MAPPINGS ||
	    (policy == BWM_MAP_RANDOM && !rng) ||
	    !(min_excl >= 0 && min_excl <= 1))
		return -EINVAL;
	if (policy == BWM_MAP_BALANCED)
		return map_balanced(p, n, nr_nodes);
	for (i = 0; i < n; i++) {
		int best = bwm_page_argmax(&p[i], nr_nodes);
		int il = (int)(p[i].addr % (uint64_t)nr_nodes);

		switch (policy) {
		case BWM_MAP_FIRST_TOUCH:
			if (p[i].first_node < 0 || p[i].first_node >= nr_nodes)
				return -EINVAL;
			p[i].node = p[i].first_node;
			break;
		case BWM_MAP_RANDOM:
			p[i].node = (int)(bwm_rng_next(rng) % nr_nodes);
			break;
		case BWM_MAP_ROUND_ROBIN:	/* in first-access order */
			p[i].node = (int)(i % nr_nodes);
			break;
		case BWM_MAP_INTERLEAVE:
			p[i].node = il;
			break;
		case BWM_MAP_LOCALITY:
			p[i].node = best < 0 ? il : best;
			break;
		case BWM_MAP_REMOTE:
			p[i].node = argmin(&p[i], nr_nodes);
			break;
		case BWM_MAP_MIXED:		/* Eq. 10 */
			p[i].node = best >= 0 &&
				    bwm_page_exclusivity(&p[i], nr_nodes) >
				    min_excl ? best : il;
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
}
