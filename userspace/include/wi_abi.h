/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interface of weighted interleave that C libraries do not
 * carry yet, defined once for bwapd, the selftests and their helpers:
 *
 * - MPOL_INTERLEAVE, and MPOL_WEIGHTED_INTERLEAVE, upstream's mode number
 *   (Linux 6.9, commit fa3bea4e1f82 "mm/mempolicy: introduce
 *   MPOL_WEIGHTED_INTERLEAVE for weighted interleaving"), and
 *   MPOL_MF_MOVE for move_pages(2);
 * - this project's set_mempolicy_weights(2) and get_mempolicy_weights(2),
 *   the same numbers on x86-64 and i386 (kernel-patches/, the patch that
 *   wires them up), and the pidfd selectors they take, upstream's
 *   PIDFD_SELF_THREAD and PIDFD_SELF_THREAD_GROUP (commits f08d0c3a7111
 *   "pidfd: add PIDFD_SELF* sentinels to refer to own thread/process" and
 *   67fcec2919e4 "fcntl/pidfd: redefine PIDFD_SELF_THREAD_GROUP");
 * - thin wrappers, returning what syscall(2) does.
 */
#ifndef WI_ABI_H
#define WI_ABI_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MPOL_INTERLEAVE
#define MPOL_INTERLEAVE			3
#endif
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE	6
#endif
#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE			(1 << 1)
#endif

#ifndef SYS_set_mempolicy_weights
#define SYS_set_mempolicy_weights	1000
#endif
#ifndef SYS_get_mempolicy_weights
#define SYS_get_mempolicy_weights	1001
#endif

#ifndef PIDFD_SELF_THREAD
#define PIDFD_SELF_THREAD		-10000
#endif
#ifndef PIDFD_SELF_THREAD_GROUP
#define PIDFD_SELF_THREAD_GROUP		-10001
#endif

/* get_mempolicy_weights(2): the weights in effect, global ones filled in */
#ifndef MPOL_WEIGHTS_EFFECTIVE
#define MPOL_WEIGHTS_EFFECTIVE		(1 << 0)
#endif

/* The largest nr_nodes the calls accept. */
#define WI_WEIGHTS_MAX_NODES		4096

static inline long wi_set_mempolicy_weights(int pidfd, const uint8_t *weights,
					    unsigned long nr_nodes,
					    unsigned int flags)
{
	return syscall(SYS_set_mempolicy_weights, pidfd, weights, nr_nodes,
		       flags);
}

static inline long wi_get_mempolicy_weights(int pidfd, uint8_t *weights,
					    unsigned long nr_nodes,
					    unsigned int flags)
{
	return syscall(SYS_get_mempolicy_weights, pidfd, weights, nr_nodes,
		       flags);
}

#endif /* WI_ABI_H */
