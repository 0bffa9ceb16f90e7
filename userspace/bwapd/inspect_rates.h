/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The write rates of a process's sampled pages from the slices they were
 * sampled in (inspect_rates.c), for inspect_estimate.c.
 *
 * For writes at random times at rate r, a slice of exposure x is sampled
 * with probability 1 - exp(-r x).  A page's rate is the one at which the
 * slices after its first sample expect the hits it had there.  A slice's
 * exposure is its length as measured, corrected by how many pages it
 * sampled again against what their rates expect: a pause of the whole
 * program, or of the machine under it, is a slice of less exposure.
 * Rates and exposures are fitted in turn; the exposures keep the
 * lengths' sum.
 *
 * The threads of one node may also stop while the others run (a machine
 * with more virtual CPUs than cores, a thread that waits).  A node that
 * made no sample at all in a slice did not run in it, and a page's
 * exposure there is the slice's times the share of the page's samples
 * from the nodes that did run: none where none of its writers ran.  Its
 * rate is the one while all its writers ran, times the share of the time
 * they did: its writes over the whole time.  Without that, a page that
 * several nodes write is sampled in more slices than a page one node
 * writes, and comes out written far more often than it was.
 */
#ifndef BWAPD_INSPECT_RATES_H
#define BWAPD_INSPECT_RATES_H

#include "inspect_estimate.h"

/*
 * The rate (writes a second) of each of the n pages of sl, whose samples
 * from each node are p[i].acc, into rate[i], and into group[g][i] the
 * rate the slices of group g give alone (when sl has group_hits);
 * saturated[i] is set for a page sampled in every slice after its first
 * in which one of its writers ran.  A page never sampled has rate 0.  0,
 * or -ENOMEM.
 */
int inspect_rates(const struct inspect_slices *sl, const struct bwm_page *p,
		  long n, int nr_nodes, double *rate,
		  double *group[INSPECT_SLICE_GROUPS], char *saturated);

#endif /* BWAPD_INSPECT_RATES_H */
