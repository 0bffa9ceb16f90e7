/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Diener et al.'s exclusivity and locality from sampled accesses
 * (inspect_estimate.c): corrected for how the samples are taken, with
 * the range the samples support.
 *
 * A page's samples are draws of the node that accessed it.  From a
 * process, a page gives at most one a slice: the first write after a
 * soft-dirty clear (or a hinting fault of NUMA balancing).  From the
 * model, they are accesses of its trace.  Two biases follow:
 *
 * - Few draws overstate a page's largest share: with one draw it is
 *   always 1.  The estimate of a page's exclusivity is its leave-one-out
 *   share (the share of its draws that the others' most frequent node
 *   predicts), which never overstates it on average and understates it
 *   only where the most-accessing node does not stand out yet; the
 *   largest share of the draws never understates it on average.  The
 *   range runs from the first to the second, each two standard errors
 *   wider.
 * - One sample a slice however often a page is written weighs every page
 *   alike, where E_App and Loc_App weigh pages by their accesses.  The
 *   slices in which a page was sampled give its rate: for writes at
 *   random times at rate r, a slice of length d is sampled with
 *   probability 1 - exp(-r d), and r is the rate at which the slices
 *   after its first sample (their lengths as they were measured) expect
 *   the hits it had (inspect_rates.h).  Pages are weighed by it; the
 *   standard error of the weighing is the spread of what groups of the
 *   slices give alone (a pause of the writers, which moves many pages'
 *   hits at once, shows there).  A page sampled in every
 *   slice is written faster than the slices resolve: such pages are
 *   weighed alike among themselves, at the slowest rate that fits
 *   them.
 *
 * - A clear is not instantaneous: the kernel walks the page tables in
 *   address order.  A page written in the slice before is still
 *   writable until the walk reaches it (or until the walk's TLB flush),
 *   and writes until then make no sample: after a hit, a slice's
 *   exposure is shorter by up to the clear's time, and by how much
 *   depends on where the page lies.  A page's rate is therefore only
 *   known up to a factor: up to the mean slice over the mean slice less
 *   the clear's time on the share of its slices that follow a hit.  The
 *   range spans every weighing within those factors (and, for the pages
 *   sampled in every slice, within four times their rate).
 *
 * A page's locality (is it on its most-accessing node?) is decided where
 * its node's draws and the most frequent other node's differ by more
 * than two standard deviations of their difference; an undecided page
 * counts 0 at the low end of the range and 1 at the high end.
 */
#ifndef BWAPD_INSPECT_ESTIMATE_H
#define BWAPD_INSPECT_ESTIMATE_H

#include <stdint.h>

#include "bwmodel.h"

struct inspect_estimate {
	long pages;			/* pages with samples */
	double samples_per_page;	/* their mean draws */
	double exclusivity, excl_lo, excl_hi;
	int have_locality;		/* some sampled page is located */
	double locality, loc_lo, loc_hi;
	double unresolved;		/* weight on pages sampled every slice */
};

/* Slices are dealt into this many groups (slice k to k mod groups). */
#define INSPECT_SLICE_GROUPS	8

/* A process's slices, and in which of them each page was sampled. */
struct inspect_slices {
	int nr;				/* slices */
	const double *len;		/* their lengths (s) */
	const int *first;		/* a page's first sampled slice */
	const int *hits;		/* slices in which a page was sampled */
	/*
	 * [page x INSPECT_SLICE_GROUPS + group]: the slices of the group
	 * after its first in which a page was sampled; NULL: not known
	 */
	const uint16_t *group_hits;
	/* a slice's pages sampled in an earlier slice too; NULL: unknown */
	const int *again;
	/* how long a clear took, on average (s); 0: no time */
	double clear;
	/*
	 * per slice: the nodes with a sample in it, whose writers ran
	 * then (bit j: node j); NULL: every node in every slice
	 */
	const uint32_t *active;
};

/* A page number's or a key's slot in an open-addressing table. */
static inline uint64_t inspect_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/*
 * From the draws p[i].acc of page i from each node, and, for a process,
 * its slices sl (NULL: the draws are accesses, weighed as they are):
 * the estimates into e, and p[i].acc rewritten as the page's estimated
 * accesses from each node, in the units of its weight, so that
 * bwm_access_metrics() weighs the pages as e does.  0, or -EINVAL.
 */
int inspect_estimate(struct bwm_page *p, long n, int nr_nodes,
		     const struct inspect_slices *sl,
		     struct inspect_estimate *e);

/*
 * inspect_estimate(), then Diener et al.'s metrics on the pages as it
 * weighs them, with its exclusivity and locality; 0 or -errno.
 */
int inspect_metrics(struct bwm_page *p, long n, int nr_nodes,
		    const struct inspect_slices *sl, struct inspect_estimate *e,
		    struct bwm_access_metrics *mt);

#endif /* BWAPD_INSPECT_ESTIMATE_H */
