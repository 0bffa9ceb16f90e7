/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bwapd: canonical weighted-interleave weights for a NUMA machine, the
 * admin path that applies them, and the DWP tuner that adapts them to
 * each application.
 *
 * What every part shares: the limits and a few small helpers.  Each part
 * has its own header (topology.h, kweights.h, worksets.h, backend.h,
 * profile.h, wfile.h, target.h, tune.h, status.h, rules.h; the command
 * line: opts.h and cmd.h); Documentation/bwapd.md says which file holds
 * what.
 *
 * No global state; functions return 0 or a negative errno and leave
 * printing to the caller (a reason string where a number is not enough).
 */
#ifndef BWAPD_H
#define BWAPD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bwmodel.h"

#define BWAPD_MAX_NODES		BWM_MAX_NODES
#define BWAPD_MAX_CPUS		1024

/* ---- small helpers (topology.c) ---------------------------------------- */

/* Read a small text file below root into buf; trailing newline removed. */
int bwapd_read_text(const char *root, const char *path, char *buf,
		    size_t len);
uint64_t bwapd_fnv1a(uint64_t h, const void *data, size_t len);
/* mkdir -p dir (0755); 0 or -errno. */
int bwapd_mkdirs(const char *dir);

#endif /* BWAPD_H */
