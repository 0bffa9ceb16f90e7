/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How one process's pages get the weights the tuner chooses: one small
 * interface, one file for each way.
 *
 *   weights  its own weights, set_mempolicy_weights(2)   place_own.c
 *   damon    DAMON's weighted migration (Linux 6.17)     place_damon.c
 *   migrate  bwapd moves the pages itself, move_pages(2) place_migrate.c
 *   global   the global weights (a dedicated machine)    place_global.c
 *
 * Which one a kernel gives: its own weights where it has them, else
 * DAMON where a kdamond can start, else bwapd's own migration; --placement
 * chooses one explicitly.
 */
#ifndef BWAPD_PLACEMENT_H
#define BWAPD_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "target.h"

enum bwapd_place_kind {
	BWAPD_PLACE_WEIGHTS,
	BWAPD_PLACE_DAMON,
	BWAPD_PLACE_MIGRATE,
	BWAPD_PLACE_GLOBAL,
	BWAPD_PLACE_AUTO,		/* the best this kernel has */
};

struct bwapd_place;

/* Policies of the mappings a placement steers (numa_maps' names). */
#define BWAPD_POL_WEIGHTED	(1u << 0)	/* "weighted interleave" */
#define BWAPD_POL_INTERLEAVE	(1u << 1)	/* "interleave" */

struct bwapd_place_ops {
	const char *name;		/* as --placement and status name it */
	/* the mappings whose pages it places: BWAPD_POL_* */
	unsigned int policies;
	/* may a weight be 0, leaving its node out of the placement? */
	int leave_out;
	/* do the process's new pages follow the weights without bwapd? */
	int new_pages_follow;
	/* the weights the process's pages should follow from now on */
	int (*set_weights)(struct bwapd_place *p, const uint8_t *w, int nr);
	/* bring the pages into place, and say how far that got */
	int (*place)(struct bwapd_place *p, const uint8_t *w, int nr,
		     const struct bwapd_migrate_opts *o,
		     struct bwapd_migration *m);
	/* while the process runs between steps; may be NULL */
	int (*tick)(struct bwapd_place *p);
	/* what it holds goes; may be NULL */
	void (*close)(struct bwapd_place *p);
};

struct bwapd_place {
	const struct bwapd_place_ops *ops;
	struct bwapd_target *t;		/* the process: pid, nr_nodes, why */
	const char *damon_dir;		/* DAMON's record (place_damon.c) */
	double pages_per_s;		/* --rate, for placements that pace */
	void *priv;
};

extern const struct bwapd_place_ops bwapd_place_own, bwapd_place_damon,
	bwapd_place_migrate, bwapd_place_global;

/* "weights", "damon", "migrate", "global", "auto" into a kind; -EINVAL */
int bwapd_place_kind_parse(const char *s);
const char *bwapd_place_kind_name(int kind);
/*
 * The placement this kernel gives one process (want: BWAPD_PLACE_AUTO) or
 * whether it gives the one wanted: the kind, or -errno with why.  dir is
 * DAMON's record.  *note (if not NULL) says why a better one was passed
 * over ("" if none was).
 */
int bwapd_place_choose(int want, const char *dir, char *why, size_t len,
		       char *note, size_t note_len);
/* A placement chosen (a kind), and why a better one was passed over. */
struct bwapd_place_choice {
	int kind;
	char note[1024];
};
/* The same from what can be read without changing anything (bwapd show). */
int bwapd_place_look(char *why, size_t len);

#endif /* BWAPD_PLACEMENT_H */
