/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The worker sets (worksets.c): every set of CPU nodes, and which are
 * worth profiling - not those symmetric to a set profiled before, nor
 * those spread farther apart than a set of their size needs.
 */
#ifndef BWAPD_WORKSETS_H
#define BWAPD_WORKSETS_H

#include "topology.h"

#define BWAPD_MAX_SETS		(1 << BWAPD_MAX_NODES)

enum bwapd_skip {
	BWAPD_PROFILE = 0,		/* profiled */
	BWAPD_SKIP_SYMMETRIC,		/* same as another set under a symmetry */
	BWAPD_SKIP_SPREAD,		/* farther apart than needed for its size */
};

struct bwapd_set {
	uint32_t workers;
	enum bwapd_skip skip;
	uint32_t same_as;		/* the profiled set it maps to */
	int8_t map[BWAPD_MAX_NODES];	/* node i of this set = map[i] of same_as */
	int diameter;			/* largest SLIT distance inside */
};

struct bwapd_sets {
	int nr;
	int nr_profile, nr_symmetric, nr_spread;
	int nr_automorphisms;
	struct bwapd_set set[BWAPD_MAX_SETS];
};

struct bwapd_set_opts {
	int no_symmetry;		/* profile symmetric sets too */
	int all;			/* keep sets no rational user picks */
	int max_size;			/* 0: all sizes */
};

/*
 * Every non-empty set of CPU nodes, classified.  A set is "spread" when
 * its diameter exceeds the smallest diameter of sets of its size; it is
 * "symmetric" when a permutation of the nodes that keeps distances, CPU
 * counts, memory and HMAT figures maps it onto a set profiled before.
 */
int bwapd_sets_enumerate(const struct bwapd_topology *t,
			 const struct bwapd_set_opts *o, struct bwapd_sets *s);
const char *bwapd_skip_name(enum bwapd_skip s);

#endif /* BWAPD_WORKSETS_H */
