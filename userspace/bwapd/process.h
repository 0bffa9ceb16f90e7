/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the placements (place_*.c) use of a process target (task.c): its
 * pidfd, the mappings whose pages they place with their pages per node,
 * and move_pages(2) in batches with a rate limit.
 */
#ifndef BWAPD_PROCESS_H
#define BWAPD_PROCESS_H

#include "placement.h"
#include "target.h"

/* One mapping the placement steers: where it is, its pages per node. */
struct bwapd_vma {
	unsigned long start, end;	/* end 0: gone since numa_maps */
	uint64_t pages[BWAPD_MAX_NODES];
};

struct bwapd_vmas {
	int nr, cap;
	struct bwapd_vma *v;		/* with 'ranges' only */
	uint64_t pages[BWAPD_MAX_NODES];
	uint64_t total;
};

/*
 * The anonymous mappings under the policies the target's placement
 * steers (not the stack, not hugetlb) and their pages per node, from
 * /proc/PID/numa_maps; with 'ranges' also where each mapping is.  Free
 * vs->v.
 */
int bwapd_process_vmas(struct bwapd_target *t, struct bwapd_vmas *vs,
		       int ranges);
/*
 * fn(arg, s, e) for the present pages of [start, end) of t's memory, in
 * ranges, through PAGEMAP_SCAN (Linux 6.7), which skips what was never
 * faulted in (a runtime's large reservations are mostly that); on older
 * kernels once, for the whole range.  0, fn's error, or -errno.
 */
int bwapd_process_present(struct bwapd_target *t, unsigned long start,
			  unsigned long end,
			  int (*fn)(void *arg, unsigned long s, unsigned long e),
			  void *arg);
/* -ESRCH when the process has exited or is on its way out, else 0. */
int bwapd_process_alive(struct bwapd_target *t);
int bwapd_process_exiting(struct bwapd_target *t);
int bwapd_process_pidfd(const struct bwapd_target *t);
long bwapd_process_page_size(const struct bwapd_target *t);
double bwapd_now(void);
void bwapd_sleep(double s);

/* Batches of move_pages(2) on one process, paced to o->pages_per_s. */
struct bwapd_mover {
	struct bwapd_target *t;
	const struct bwapd_migrate_opts *o;
	struct bwapd_migration *m;
	double start;
	unsigned int batch, queued;
	void **addr;			/* 2 x batch: moves, then queries */
	int *nodes, *status;
};

int bwapd_mover_init(struct bwapd_mover *mv, struct bwapd_target *t,
		     const struct bwapd_migrate_opts *o,
		     struct bwapd_migration *m);
void bwapd_mover_free(struct bwapd_mover *mv);
/* Queue moving the page at addr to node; moves a full batch. */
int bwapd_mover_queue(struct bwapd_mover *mv, void *addr, int node);
int bwapd_mover_flush(struct bwapd_mover *mv);
/*
 * Where the cnt pages at addr[] are (move_pages(2) without nodes): a
 * node, or -errno (-ENOENT: not present).
 */
int bwapd_mover_where(struct bwapd_mover *mv, void **addr, unsigned int cnt,
		      int *status);
/*
 * Move pages so that every node holds its share of w[] (pages off their
 * share only, picked evenly along each node's pages): the own and global
 * weights, whose new pages follow by themselves.
 */
int bwapd_process_to_shares(struct bwapd_target *t, const uint8_t *w, int nr,
			    const struct bwapd_migrate_opts *o,
			    struct bwapd_migration *m);

#endif /* BWAPD_PROCESS_H */
