/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bwapd inspect on a workload of the model (inspect_model.c).
 */
#ifndef BWAPD_INSPECT_MODEL_H
#define BWAPD_INSPECT_MODEL_H

#include "inspect.h"

/* The page policy the modelled application runs under. */
enum inspect_policy {
	INSPECT_FIRST_TOUCH,		/* no policy; one thread fills the shared data */
	INSPECT_PARALLEL_INIT,		/* no policy; each thread fills its share */
	INSPECT_INTERLEAVE,		/* numactl --interleave=all */
};

/*
 * Fill r for workload wl (bound to its workers) on machine m: the page
 * trace's metrics, the signature from two runs of 'seconds' each with
 * relative counter noise 'noise', the prediction, the verdict.
 */
int inspect_model(const struct bwm_machine *m, const struct bwm_workload *wl,
		  enum inspect_policy policy, double seconds, double noise,
		  uint64_t seed, double u8_err, struct inspect_report *r);

#endif /* BWAPD_INSPECT_MODEL_H */
