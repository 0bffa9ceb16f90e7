/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Canonical profiling (profile.c): a worker set's bandwidth from every
 * node, from a profiling run's counters, HMAT or SLIT, and the canonical
 * weights it gives (Eq. 5).
 */
#ifndef BWAPD_PROFILE_H
#define BWAPD_PROFILE_H

#include "backend.h"
#include "worksets.h"

enum bwapd_source {
	BWAPD_SRC_COUNTERS,		/* benchmark + memory controller counters */
	BWAPD_SRC_HMAT,			/* HMAT access bandwidth, SLIT-scaled */
	BWAPD_SRC_SLIT,			/* SLIT distances only */
};

const char *bwapd_source_name(enum bwapd_source s);
/* Does HMAT name an initiator for every memory node? */
int bwapd_have_hmat(const struct bwapd_topology *t);

struct bwapd_result {
	uint32_t workers;
	enum bwapd_source source;
	double seconds;				/* of the benchmark; 0: none */
	double minbw[BWAPD_MAX_NODES];		/* GB/s, or relative (SLIT) */
	double frac[BWAPD_MAX_NODES];		/* Eq. 5 */
	uint8_t weights[BWAPD_MAX_NODES];	/* u8, 0 = node not used */
	int cycle;				/* sum of weights */
	double u8_err;				/* largest page-share error */
	uint32_t same_as;			/* set it was derived from */
};

struct bwapd_profile_opts {
	double seconds;			/* per worker set */
	double u8_err;			/* bwm_fractions_to_u8 tolerance */
	int no_counters;		/* use the fallbacks */
	/* called about every 0.1 s of benchmark time; may be NULL */
	void (*progress)(void *arg, double done_s);
	void *progress_arg;
};

/*
 * The benchmark time of each of nr worker sets: 'seconds' where it was
 * given, or where the sets take BWAPD_SETS_SECONDS at most with it;
 * otherwise shortened to share that, down to BWAPD_SET_MIN_SECONDS.
 */
#define BWAPD_SETS_SECONDS	90.0
#define BWAPD_SET_MIN_SECONDS	0.5
double bwapd_profile_set_seconds(int nr, double seconds, int given);

/*
 * Estimate bw(i -> w) for the workers and fill r: from the counters when
 * counters_ok, else from HMAT, else SLIT.
 */
int bwapd_profile_set(struct bwapd_backend *b, const struct bwapd_topology *t,
		      uint32_t workers, int counters_ok,
		      const struct bwapd_profile_opts *o,
		      struct bwapd_result *r);
/* Fractions from minbw[] by Eq. 5, then u8 weights; for every source. */
int bwapd_result_finish(const struct bwapd_topology *t, double u8_err,
			struct bwapd_result *r);
/* The result of a symmetric set: r of its representative, permuted. */
void bwapd_result_permute(const struct bwapd_result *from,
			  const struct bwapd_set *s, int nr_nodes,
			  struct bwapd_result *to);

#endif /* BWAPD_PROFILE_H */
