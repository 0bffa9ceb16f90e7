// SPDX-License-Identifier: GPL-2.0
/*
 * The "global" placement (--global): the global weights, which every
 * process under weighted interleave without weights of its own follows.
 * For a machine dedicated to the one process, on kernels that give it
 * no weights of its own.  Its pages are moved to their shares; the pages
 * it allocates follow the new weights by themselves.
 */
#include "process.h"
#include "kweights.h"

static int global_set_weights(struct bwapd_place *pl, const uint8_t *w,
			      int nr)
{
	return bwapd_weights_write("", w, nr, pl->t->why, sizeof(pl->t->why));
}

static int global_place(struct bwapd_place *pl, const uint8_t *w, int nr,
			const struct bwapd_migrate_opts *o,
			struct bwapd_migration *m)
{
	return bwapd_process_to_shares(pl->t, w, nr, o, m);
}

const struct bwapd_place_ops bwapd_place_global = {
	.name = "global",
	.policies = BWAPD_POL_WEIGHTED,
	.leave_out = 0,
	.new_pages_follow = 1,
	.set_weights = global_set_weights,
	.place = global_place,
};
