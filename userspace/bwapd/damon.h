/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One process's weights through DAMON (damon.c), where the kernel has no
 * set_mempolicy_weights(2): from Linux 6.17 on, DAMON's migrate_hot and
 * migrate_cold actions take several destination nodes with weights, and
 * place a page of a mapping by its offset as the weighted-interleave
 * allocator does (mm/damon/vaddr.c).
 *
 * DAMON's sysfs interface adds a kdamond only by rebuilding all of them,
 * and not while one runs.  So bwapd keeps one kdamond of its own for all
 * its tuners, only where it finds none of another program's: one vaddr
 * target and one migrate_hot scheme per process.  A scheme acts on its
 * own target only, on the address ranges of the process's anonymous
 * mappings under weighted interleave, and its destinations are the
 * process's weights.  The record of what bwapd placed, and the lock
 * around every change, are files in the run directory.
 */
#ifndef BWAPD_DAMON_H
#define BWAPD_DAMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "topology.h"

#define BWAPD_DAMON_SYSFS	"/sys/kernel/mm/damon/admin"
#define BWAPD_DAMON_MAX_RANGES	64

struct bwapd_damon_range {
	unsigned long start, end;
};

/* What a process's scheme says. */
struct bwapd_damon_place {
	int nr_nodes;
	uint8_t weights[BWAPD_MAX_NODES];
	int nr_ranges;
	struct bwapd_damon_range range[BWAPD_DAMON_MAX_RANGES];
	uint64_t bytes_per_s;		/* DAMON's size quota; 0: none */
};

/* DAMON's cumulative account of a process's scheme. */
struct bwapd_damon_stats {
	uint64_t nr_tried;		/* regions the action was tried on */
	uint64_t sz_applied;		/* bytes it moved */
	uint64_t qt_exceeds;		/* times the quota stopped it */
	int on;				/* the kdamond runs */
};

struct bwapd_damon;

/*
 * Can DAMON place one process's pages by weights here?  0, or -errno and
 * why: no DAMON sysfs, not root, no weighted destinations (before 6.17),
 * another program's kdamonds.  What it creates to look, it removes.
 */
int bwapd_damon_probe(const char *dir, char *why, size_t len);
/*
 * The same, from what can be read without changing anything (bwapd
 * show): the kdamonds' schemes where there are some, else the kernel's
 * release.
 */
int bwapd_damon_look(char *why, size_t len);
/*
 * Process pid's place in bwapd's kdamond, its record in dir.  A keeper
 * process takes the process out of DAMON when this tuner ends, however
 * it ends (even by SIGKILL).
 */
int bwapd_damon_open(struct bwapd_damon **d, const char *dir, pid_t pid,
		     char *why, size_t len);
/* Set the process's scheme and commit it to the running kdamond. */
int bwapd_damon_set(struct bwapd_damon *d, const struct bwapd_damon_place *p,
		    char *why, size_t len);
int bwapd_damon_stats(struct bwapd_damon *d, struct bwapd_damon_stats *s,
		      char *why, size_t len);
/* Take the process out; the kdamond goes with the last one. */
void bwapd_damon_close(struct bwapd_damon *d);
/*
 * From a signal handler about to _exit(): leave the taking out to the
 * keeper and wait for it.  Async-signal-safe.
 */
void bwapd_damon_on_signal(void);
/*
 * DAMON's sysfs interface and /sys/module below root ("" for the
 * machine's own; a directory for the host tests' fake sysfs).
 */
void bwapd_damon_root(const char *root);
/* Take out the processes whose tuner is gone (bwapd daemon, at start). */
int bwapd_damon_prune(const char *dir, char *why, size_t len);

#endif /* BWAPD_DAMON_H */
