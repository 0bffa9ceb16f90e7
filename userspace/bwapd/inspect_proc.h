/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bwapd inspect on a running process (inspect_proc.c).
 */
#ifndef BWAPD_INSPECT_PROC_H
#define BWAPD_INSPECT_PROC_H

#include "inspect.h"
#include "target.h"

struct inspect_proc_opts {
	double seconds;			/* sampling time */
	double interval;		/* time slice: soft-dirty clears */
	double u8_err;
	/* samples from [start, end) only; end 0: every address */
	uint64_t start, end;
	/* the prediction needs both: a machine and a workload class */
	const struct bwm_machine *machine;
	const struct bwm_workload *workload;
};

/*
 * Fill r for process pid on this machine (topo): pages per node and per
 * mapping, access samples for o->seconds in slices of o->interval, the
 * metrics, the prediction when o names a machine and a workload class.
 * 0, or -errno with the reason in why.
 */
int inspect_process(pid_t pid, const struct bwapd_topology *topo,
		    const struct inspect_proc_opts *o, struct inspect_report *r,
		    char *why, size_t len);

/*
 * The same, and the sampled pages (*pages, malloc'ed; *n of them) with
 * their nodes and their samples from each node.
 */
int inspect_process_pages(pid_t pid, const struct bwapd_topology *topo,
			  const struct inspect_proc_opts *o,
			  struct inspect_report *r, struct bwm_page **pages,
			  long *n, char *why, size_t len);

/*
 * The prediction for a sampled process: the workload class o->workload
 * on o->machine with the process's threads per node and the shared
 * share of its sampled accesses (pages with exclusivity below
 * BWM_DEFAULT_MIN_EXCL), placed as the pages are.  Without a machine or
 * a workload: none, and why.
 */
int inspect_predict_process(struct inspect_report *r,
			    const struct bwm_page *pages, long n,
			    const struct inspect_proc_opts *o);

#endif /* BWAPD_INSPECT_PROC_H */
