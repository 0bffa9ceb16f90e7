// SPDX-License-Identifier: GPL-2.0
/*
 * The "weights" placement: the process's own weights, set with
 * set_mempolicy_weights(2) on its pidfd, so that they stay with the
 * process that was opened even if its PID is reused.  The pages it
 * allocates from then on follow them by themselves; the pages it has are
 * moved to their shares (bwapd_process_to_shares).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "caps.h"
#include "process.h"
#include "seccomp.h"
#include "wi_abi.h"

static int own_set_weights(struct bwapd_place *pl, const uint8_t *w, int nr)
{
	struct bwapd_target *t = pl->t;
	int err;

	if (wi_set_mempolicy_weights(bwapd_process_pidfd(t), w,
				     (unsigned long)nr, 0U) == 0)
		return 0;
	err = errno;
	if (bwapd_seccomp_why(err, t->why, sizeof(t->why)))
		return -err;
	switch (err) {
	case ENOSYS:
		snprintf(t->why, sizeof(t->why),
			 "the kernel has no set_mempolicy_weights(2), so it cannot "
			 "give one process weights of its own (upstream kernels have "
			 "the global weights only; Documentation/kernel.md); "
			 "--placement migrate moves its pages instead");
		break;
	case EPERM: {
		char what[96];

		snprintf(what, sizeof(what), "set_mempolicy_weights(process "
			 "%d): not allowed: another user's process", (int)t->pid);
		bwapd_caps_why(t->why, sizeof(t->why), what,
			       BWAPD_CAP(CAP_SYS_PTRACE) | BWAPD_CAP(CAP_SYS_NICE));
		break;
	}
	default:
		snprintf(t->why, sizeof(t->why),
			 "set_mempolicy_weights(process %d): %s", (int)t->pid,
			 strerror(err));
	}
	return -err;
}

static int own_place(struct bwapd_place *pl, const uint8_t *w, int nr,
		     const struct bwapd_migrate_opts *o,
		     struct bwapd_migration *m)
{
	return bwapd_process_to_shares(pl->t, w, nr, o, m);
}

const struct bwapd_place_ops bwapd_place_own = {
	.name = "weights",
	.policies = BWAPD_POL_WEIGHTED,
	.leave_out = 0,		/* 0 is the global weight of the node */
	.new_pages_follow = 1,
	.set_weights = own_set_weights,
	.place = own_place,
};
