// SPDX-License-Identifier: GPL-2.0
/*
 * Which placement a kernel gives one process (placement.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "damon.h"
#include "kweights.h"
#include "placement.h"
#include "seccomp.h"
#include "topology.h"
#include "wi_abi.h"

static const char *const kind_names[] = {
	[BWAPD_PLACE_WEIGHTS] = "weights",
	[BWAPD_PLACE_DAMON] = "damon",
	[BWAPD_PLACE_MIGRATE] = "migrate",
	[BWAPD_PLACE_GLOBAL] = "global",
	[BWAPD_PLACE_AUTO] = "auto",
};

int bwapd_place_kind_parse(const char *s)
{
	int i;

	for (i = 0; i <= BWAPD_PLACE_AUTO; i++)
		if (!strcmp(s, kind_names[i]))
			return i;
	/* the process's own weights, by the other name users give them */
	if (!strcmp(s, "own"))
		return BWAPD_PLACE_WEIGHTS;
	return -EINVAL;
}

const char *bwapd_place_kind_name(int kind)
{
	return kind >= 0 && kind <= BWAPD_PLACE_AUTO ? kind_names[kind] : "?";
}

/*
 * Does the kernel have the weights calls (or a filter in their way, which
 * the tuner then reports)?  Reading one's own weights: any kernel that
 * has the calls allows it.  ENOSYS is a kernel without them or a filter
 * that answers as if; where the kernel's symbols are hidden from bwapd
 * (bwapd.service's ProtectKernelTunables=) and its release is not this
 * project's, it cannot tell, and another placement serves.
 */
static int kernel_weights(void)
{
	return wi_get_mempolicy_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0UL,
					0U) >= 1 || errno != ENOSYS ||
	       bwapd_kernel_has_weights() == 1;
}

int bwapd_place_choose(int want, const char *dir, char *why, size_t len,
		       char *note, size_t note_len)
{
	char dwhy[512] = "";
	int ret;

	if (note && note_len)
		*note = 0;
	switch (want) {
	case BWAPD_PLACE_GLOBAL:
		/* the global weights of the running kernel, whatever --root says */
		if (access(BWAPD_WEIGHTS_DIR, F_OK)) {
			snprintf(why, len, "the kernel has no weighted interleave (no %s), "
				 "so it has no global weights to tune (--placement migrate "
				 "moves its pages instead)", BWAPD_WEIGHTS_DIR);
			return -EOPNOTSUPP;
		}
		/* the default row: what the private pages follow with rows off */
		if (bwapd_switch_read("", "per_initiator") != 1)
			return want;
		snprintf(why, len, "the kernel's rows per initiator are on (%s/per_initiator), "
			 "so its private pages follow the row of its CPU's node, not the "
			 "global weights --global tunes (write false there, or give it "
			 "weights of its own)", BWAPD_WEIGHTS_DIR);
		return -EOPNOTSUPP;
	case BWAPD_PLACE_MIGRATE:
		return want;
	case BWAPD_PLACE_WEIGHTS:
		if (kernel_weights())
			return want;
		snprintf(why, len, "the kernel has no set_mempolicy_weights(2), "
			 "so it cannot give one process weights of its own "
			 "(--placement migrate moves its pages instead)");
		return -EOPNOTSUPP;
	case BWAPD_PLACE_DAMON:
		ret = bwapd_damon_probe(dir, dwhy, sizeof(dwhy));
		if (!ret)
			return want;
		snprintf(why, len, "DAMON's weighted migration cannot place one "
			 "process's pages: %s (--placement migrate moves them "
			 "instead)", dwhy);
		return ret;
	}
	/* the best this kernel has: weights (which say what blocks them) */
	if (kernel_weights())
		return BWAPD_PLACE_WEIGHTS;
	ret = bwapd_damon_probe(dir, dwhy, sizeof(dwhy));
	if (!ret)
		return BWAPD_PLACE_DAMON;
	if (note && note_len)
		snprintf(note, note_len, "the kernel has no set_mempolicy_weights(2), "
			 "and DAMON's weighted migration cannot be used: %s", dwhy);
	return BWAPD_PLACE_MIGRATE;
}

int bwapd_place_look(char *why, size_t len)
{
	if (kernel_weights())
		return BWAPD_PLACE_WEIGHTS;
	if (!bwapd_damon_look(why, len))
		return BWAPD_PLACE_DAMON;
	return BWAPD_PLACE_MIGRATE;
}
