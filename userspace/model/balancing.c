// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic placement policies, modelled from how they work: Linux NUMA
 * balancing ("autonuma", a baseline of the BWAP paper) and a
 * Carrefour-like policy (Dashti et al., as the survey in the project's
 * reading list describes it).  Each gives the placement it settles on
 * for a workload and the share of the threads' time its own work takes.
 *
 * NUMA balancing (kernel/sched/fair.c task_numa_work, mm/memory.c
 * do_numa_page, should_numa_migrate_memory): every scan period the
 * kernel makes scan_size of the address space inaccessible; the next
 * access to each such page is a hinting fault, and a page is migrated to
 * the faulting node when the previous hinting fault on it came from that
 * node too (the two-fault filter).  Threads stay where they are pinned
 * (as in the BWAP paper's runs), so no task moves.  A private page
 * settles on its thread's node.  A shared page accessed by the worker
 * nodes in shares a_c keeps moving: from node m to node c at a rate
 * proportional to a_c^2, whose stationary distribution puts the page on
 * node c with probability a_c^2 / sum(a^2) - over the workers only, none
 * on other nodes or on memory without CPUs.  Per hinting fault on a
 * shared page, the chance of a migration is sum(a^2) - sum(a^4)/sum(a^2).
 * Faults and migrations cost time; migrations keep the scan period at
 * its minimum.
 *
 * Carrefour, per process and from counters measured under the current
 * placement (first-touch to start with): inactive below MAPTU memory
 * accesses per microsecond; replication of the shared pages on every
 * worker node when the read ratio is above MRR; interleaving of the
 * shared pages over the worker nodes when the controllers' imbalance is
 * above MC_IMB; co-location of private pages with their thread when the
 * local access ratio is below LAR (the survey's Table 1 has the four
 * thresholds).  It decides again on the new placement until nothing
 * changes.  Its cost is the access sampling that feeds it.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model.h"

void bwm_balancing_default(struct bwm_balancing *b)
{
	memset(b, 0, sizeof(*b));
	b->scan_mb = 256;		/* numa_balancing_scan_size_mb */
	b->scan_period_s = 1;		/* numa_balancing_scan_period_min_ms */
	b->fault_us = 1.5;
	b->migrate_us = 20;
	b->maptu = 50;
	b->mrr = 0.95;
	b->mc_imb = 0.35;
	b->lar = 0.80;
	b->sample_overhead = 0.02;
}

/* Each worker node's share of the workload's traffic (threads). */
static void access_shares(const struct bwm_machine *m,
			  const struct bwm_workload *wl, double *a)
{
	int j, nt = bwm_workload_nr_threads(wl);

	for (j = 0; j < m->nr_nodes; j++)
		a[j] = wl->workers & (1u << j) ? (double)wl->threads[j] / nt : 0;
}

int bwm_autonuma(const struct bwm_machine *m, const struct bwm_workload *wl,
		 const struct bwm_balancing *b, struct bwm_placement *pl,
		 double *overhead)
{
	double a[BWM_MAX_NODES], a2 = 0, a4 = 0, pages, faults, moves;
	double footprint = wl->footprint_gb > 0 ? wl->footprint_gb : 1;
	int n = m->nr_nodes, j, ret;

	ret = bwm_workload_check(m, wl, NULL);
	if (ret)
		return ret;
	if (!(b->scan_mb > 0 && b->scan_period_s > 0 && b->fault_us >= 0 &&
	      b->migrate_us >= 0))
		return -EINVAL;
	access_shares(m, wl, a);
	for (j = 0; j < n; j++) {
		a2 += a[j] * a[j];
		a4 += a[j] * a[j] * a[j] * a[j];
	}
	memset(pl, 0, sizeof(*pl));
	for (j = 0; j < n; j++) {
		pl->shared[j] = a[j] * a[j] / a2;
		pl->priv[j][j] = 1;
	}
	/* pages made inaccessible per second, at most the footprint */
	pages = fmin(b->scan_mb * (1 << 20), footprint * 1e9) / 4096 /
		b->scan_period_s;
	faults = pages;
	moves = pages * wl->shared * (a2 - a4 / a2);
	*overhead = (faults * b->fault_us + moves * b->migrate_us) * 1e-6 /
		    bwm_workload_nr_threads(wl);
	*overhead = fmin(*overhead, 0.99);
	return 0;
}

/*
 * Carrefour's counters under placement pl: accesses per microsecond,
 * the controllers' imbalance (standard deviation over the mean, over
 * the nodes serving the process) and the local access ratio.
 */
static int carrefour_look(const struct bwm_machine *m,
			  const struct bwm_workload *wl,
			  const struct bwm_placement *pl, double *maptu,
			  double *imb, double *lar)
{
	struct bwm_prediction p;
	double mean = 0, var = 0, local = 0, total = 0, t[BWM_MAX_NODES];
	int n = m->nr_nodes, j, used = 0, ret;

	ret = bwm_predict(m, wl, pl, &p);
	if (ret)
		return ret;
	for (j = 0; j < n; j++) {
		t[j] = p.ctrl_read_gbps[j] + p.ctrl_write_gbps[j];
		total += t[j];
		local += p.ctrl_local_gbps[j];
		if (t[j] > 0 || (wl->workers & (1u << j))) {
			mean += t[j];
			used++;
		} else {
			t[j] = -1;	/* not a node of the process */
		}
	}
	mean /= used;
	for (j = 0; j < n; j++)
		if (t[j] >= 0)
			var += (t[j] - mean) * (t[j] - mean);
	*imb = mean > 0 ? sqrt(var / used) / mean : 0;
	*lar = total > 0 ? local / total : 1;
	*maptu = total * 1e9 / BWM_LINE_BYTES / 1e6;
	return 0;
}

int bwm_carrefour(const struct bwm_machine *m, const struct bwm_workload *wl,
		  const struct bwm_balancing *b, struct bwm_placement *pl,
		  struct bwm_workload *eff, unsigned int *mechanisms,
		  double *overhead)
{
	int n = m->nr_nodes, j, ft, it, nw = 0, ret;
	double maptu, imb, lar;

	ret = bwm_workload_check(m, wl, NULL);
	if (ret)
		return ret;
	*eff = *wl;
	*mechanisms = 0;
	*overhead = 0;
	ft = bwm_workload_first_touch(wl);
	bwm_placement_first_touch(pl, n, ft);
	for (j = 0; j < n; j++)
		nw += !!(wl->workers & (1u << j));
	for (it = 0; it < 4; it++) {
		unsigned int want = *mechanisms;

		ret = carrefour_look(m, eff, pl, &maptu, &imb, &lar);
		if (ret)
			return ret;
		if (maptu <= b->maptu)
			break;
		*overhead = b->sample_overhead;
		if (wl->read > b->mrr)
			want |= BWM_CARREFOUR_REPLICATE;
		if (imb > b->mc_imb)
			want |= BWM_CARREFOUR_INTERLEAVE;
		if (lar < b->lar)
			want |= BWM_CARREFOUR_COLOCATE;
		if (want == *mechanisms)
			break;
		*mechanisms = want;
		/* replicas: every worker reads the shared pages locally */
		if (want & BWM_CARREFOUR_REPLICATE) {
			eff->shared = 0;
			for (j = 0; j < n; j++)
				pl->shared[j] = j == ft;
		} else if (want & BWM_CARREFOUR_INTERLEAVE) {
			for (j = 0; j < n; j++)
				pl->shared[j] = wl->workers & (1u << j) ?
						1.0 / nw : 0;
		}
		if (want & BWM_CARREFOUR_COLOCATE)
			for (j = 0; j < n; j++) {
				memset(pl->priv[j], 0, sizeof(pl->priv[j]));
				pl->priv[j][j] = 1;
			}
	}
	return 0;
}
