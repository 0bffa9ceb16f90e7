/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bwapd inspect -- COMMAND (inspect_exec.c): a program run twice, with
 * its busy threads placed as the Oracle Labs paper places them, for its
 * bandwidth signature.
 */
#ifndef BWAPD_INSPECT_EXEC_H
#define BWAPD_INSPECT_EXEC_H

#include "inspect_proc.h"

/*
 * Run argv twice, started on the CPUs of the first of nodes, its busy
 * threads then placed evenly over the most nodes their number divides,
 * or with one of them moved from the last of those nodes to the first; sample each run for o->seconds like a
 * running process; fit the signature to the two runs' samples.  r is the
 * first run's report with the signature.  0, or -errno with why.
 */
int inspect_exec(char **argv, const struct bwapd_topology *topo,
		 uint32_t nodes, const struct inspect_proc_opts *o,
		 struct inspect_report *r, char *why, size_t len);

#endif /* BWAPD_INSPECT_EXEC_H */
