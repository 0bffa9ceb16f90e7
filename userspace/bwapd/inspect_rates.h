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
 * lengths' sum.  The rates each group of the slices gives alone
 * (inspect_estimate.h) tell how much the weighing varies: pages are not
 * sampled independently of each other when their writers pause.
 */
#ifndef BWAPD_INSPECT_RATES_H
#define BWAPD_INSPECT_RATES_H

#include "inspect_estimate.h"

/*
 * The rate (writes a second) of each of the n pages of sl into rate[i],
 * and into group[g][i] the rate the slices of group g give alone (when
 * sl has group_hits); saturated[i] is set for a page sampled in every
 * slice after its first.  A page never sampled has rate 0.  0, or
 * -ENOMEM.
 */
int inspect_rates(const struct inspect_slices *sl, long n, double *rate,
		  double *group[INSPECT_SLICE_GROUPS], char *saturated);

#endif /* BWAPD_INSPECT_RATES_H */
