/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capabilities bwapd's work on another user's process takes, and the
 * reason of a refusal in words: which of them this process lacks.
 * Established by the test machine's privilege test
 * (selftests/bwapd/bwapd_privileges.sh), not by guess:
 *   CAP_SYS_PTRACE  ptrace read access to another user's process: its
 *                   numa_maps, move_pages(2), per-task counters, and the
 *                   weights' own ptrace rule
 *   CAP_SYS_NICE    the weights of another user's process
 *   CAP_SYS_ADMIN   any perf_event_open(2) at kernel.perf_event_paranoid
 *                   3 (Debian's kernels); CAP_PERFMON system-wide counters
 *                   below it
 */
#ifndef BWAPD_CAPS_H
#define BWAPD_CAPS_H

#include <linux/capability.h>
#include <stddef.h>
#include <stdint.h>

#define BWAPD_CAP(c)	(UINT64_C(1) << (c))

/*
 * Read one field of /proc/self/status: the first line that the sscanf()
 * format @fmt (one conversion, e.g. "CapEff: %llx") matches fills its
 * argument.  Returns 1 if a line matched, 0 otherwise.
 */
int bwapd_self_status(const char *fmt, ...)
	__attribute__((format(scanf, 1, 2)));

/*
 * Write into @buf a sentence that names what @what takes: the
 * capabilities @caps, and which of them this process lacks, e.g.
 * "another user's process takes CAP_SYS_PTRACE and CAP_SYS_NICE; bwapd
 * lacks CAP_SYS_NICE".
 */
void bwapd_caps_why(char *buf, size_t len, const char *what, uint64_t caps);

/* The kernel.perf_event_paranoid level, or -1 if it cannot be read. */
int bwapd_perf_paranoid(void);

/*
 * The reason perf_event_open(2) refused @what at perf_event_paranoid
 * level @paranoid: at 3 and above (Debian's kernels) every event takes
 * CAP_SYS_ADMIN, or the level lowered to 2; below, @what takes @caps.
 */
void bwapd_perf_why(char *buf, size_t len, const char *what, int paranoid,
		    uint64_t caps);

#endif /* BWAPD_CAPS_H */
