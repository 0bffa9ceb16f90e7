/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-process weighted interleave weights: set_mempolicy_weights(2) and
 * get_mempolicy_weights(2).  No C library wraps them yet.
 */
#ifndef WI_WEIGHTS_H
#define WI_WEIGHTS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wi_abi.h"
#include "wi_common.h"

static inline long wi_set_task_weights(int pidfd, const uint8_t *weights,
				       unsigned long nr_nodes,
				       unsigned int flags)
{
	return wi_set_mempolicy_weights(pidfd, weights, nr_nodes, flags);
}

static inline long wi_get_task_weights(int pidfd, uint8_t *weights,
				       unsigned long nr_nodes,
				       unsigned int flags)
{
	return wi_get_mempolicy_weights(pidfd, weights, nr_nodes, flags);
}

/*
 * Does the kernel have the per-process weights?  1 if it does, 0 if it
 * answers ENOSYS, -errno for any other answer (a kernel that put another
 * system call at that number, for one).  A kernel with the calls returns
 * the number of node ids, which is at least 1.
 */
static inline int wi_task_weights_supported(void)
{
	long ret = wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0, 0);

	if (ret >= 1)
		return 1;
	if (ret < 0 && errno == ENOSYS)
		return 0;
	return ret < 0 ? -errno : -EPROTO;
}

static inline int wi_pidfd_open(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

/* A weights vector indexed by node id from the weights of nodes[]. */
static inline void wi_weights_vec(uint8_t *vec, size_t len, const int *nodes,
				  const unsigned int *w, int nr)
{
	int i;

	memset(vec, 0, len);
	for (i = 0; i < nr; i++)
		vec[nodes[i]] = w[i];
}

/* Pages per layout check: a multiple of every weight sum the tests use. */
#define WI_LAYOUT_PAGES		420

/*
 * Fault WI_LAYOUT_PAGES pages under a weighted interleave VMA policy over
 * nodes[] and count the pages that are not where the weights w[] put
 * them.  Returns that count (0 when all is well), or -1 on a setup error.
 */
static inline int wi_vma_misplaced(const int *nodes, const unsigned int *w,
				   int nr)
{
	const size_t len = WI_LAYOUT_PAGES * WI_PAGE_SIZE;
	struct wi_mask mask;
	int i, bad = -1;
	int *where;
	char *p;

	where = calloc(WI_LAYOUT_PAGES, sizeof(*where));
	p = wi_mmap_anon(len);
	if (!where || !p)
		goto out;
	wi_mask_from_nodes(&mask, nodes, nr);
	if (wi_mbind(p, len, MPOL_WEIGHTED_INTERLEAVE, &mask, 0))
		goto out;
	wi_fault_pages(p, WI_LAYOUT_PAGES, WI_PAGE_SIZE);
	if (wi_page_nodes(p, WI_LAYOUT_PAGES, WI_PAGE_SIZE, where))
		goto out;
	bad = 0;
	for (i = 0; i < WI_LAYOUT_PAGES; i++) {
		unsigned long ilx = ((unsigned long)p >> WI_PAGE_SHIFT) + i;

		if (where[i] != wi_weighted_node(nodes, w, nr, ilx))
			bad++;
	}
out:
	if (p)
		munmap(p, len);
	free(where);
	return bad;
}

/*
 * Fault WI_LAYOUT_PAGES pages under weighted interleave over nodes[] as the
 * task policy and count those not where the weights w[] put them: anonymous
 * faults under the task policy are placed by address too.
 */
static inline int wi_task_misplaced(const int *nodes, const unsigned int *w,
				    int nr)
{
	const size_t len = WI_LAYOUT_PAGES * WI_PAGE_SIZE;
	int where[WI_LAYOUT_PAGES], i, bad = -1;
	struct wi_mask mask;
	char *p;

	p = wi_mmap_anon(len);
	if (!p)
		return -1;
	wi_mask_from_nodes(&mask, nodes, nr);
	if (wi_set_mempolicy(MPOL_WEIGHTED_INTERLEAVE, &mask))
		goto out;
	wi_fault_pages(p, WI_LAYOUT_PAGES, WI_PAGE_SIZE);
	wi_set_mempolicy(MPOL_DEFAULT, NULL);
	if (wi_page_nodes(p, WI_LAYOUT_PAGES, WI_PAGE_SIZE, where))
		goto out;
	bad = 0;
	for (i = 0; i < WI_LAYOUT_PAGES; i++) {
		unsigned long ilx = ((uintptr_t)p >> WI_PAGE_SHIFT) + i;

		if (where[i] != wi_weighted_node(nodes, w, nr, ilx))
			bad++;
	}
out:
	munmap(p, len);
	return bad;
}

#endif /* WI_WEIGHTS_H */
