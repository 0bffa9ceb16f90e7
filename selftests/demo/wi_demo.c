// SPDX-License-Identifier: GPL-2.0
/*
 * wi_demo - show pages landing on NUMA nodes in proportion to weights.
 *
 * Sets global weights in sysfs, faults a region under MPOL_INTERLEAVE and
 * under MPOL_WEIGHTED_INTERLEAVE, and prints where its pages went; then
 * does the same with per-process weights if the kernel has them, and with
 * rows of weights per initiator, from a CPU of one node and then, the same
 * task moved, from a CPU of another.  The global weights are put back at
 * exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wi_common.h"
#include "wi_weights.h"

#define REGION_MB	40
#define BAR_WIDTH	40

static void show(const char *title, int mode, const int *nodes,
		 const unsigned int *w, int nr)
{
	const size_t npages = (REGION_MB << 20) / WI_PAGE_SIZE;
	static long count[WI_MAX_NODES];
	unsigned int sum = 0;
	struct wi_mask mask;
	char line[512];
	int *where, i, j;
	char *p;

	where = calloc(npages, sizeof(*where));
	p = wi_mmap_anon(npages * WI_PAGE_SIZE);
	if (!where || !p) {
		fprintf(stderr, "wi_demo: out of memory\n");
		exit(1);
	}
	wi_mask_from_nodes(&mask, nodes, nr);
	if (wi_mbind(p, npages * WI_PAGE_SIZE, mode, &mask, 0)) {
		fprintf(stderr, "wi_demo: mbind: %s\n", strerror(errno));
		exit(1);
	}
	wi_fault_pages(p, npages, WI_PAGE_SIZE);
	if (wi_page_nodes(p, npages, WI_PAGE_SIZE, where)) {
		fprintf(stderr, "wi_demo: move_pages: %s\n", strerror(errno));
		exit(1);
	}
	wi_count_nodes(where, npages, count);
	for (i = 0; i < nr; i++)
		sum += mode == MPOL_WEIGHTED_INTERLEAVE ? w[i] : 1;

	printf("\n%s: %d MiB faulted\n", title, REGION_MB);
	printf("  node  weight  expected    pages   share\n");
	for (i = 0; i < nr; i++) {
		unsigned int wt = mode == MPOL_WEIGHTED_INTERLEAVE ? w[i] : 1;
		double share = 100.0 * count[nodes[i]] / npages;

		printf("  %4d  %6u  %7.1f%%  %7ld  %5.1f%%  ", nodes[i], wt,
		       100.0 * wt / sum, count[nodes[i]], share);
		for (j = 0; j < (int)(share * BAR_WIDTH / 100 + 0.5); j++)
			putchar('#');
		putchar('\n');
	}
	if (!wi_numa_maps_line(p, line, sizeof(line)))
		printf("  numa_maps: %s\n", line);
	munmap(p, npages * WI_PAGE_SIZE);
	free(where);
}

/* Run on a CPU of @node; 0 or -1. */
static int run_on_node(int node)
{
	int cpu = wi_node_first_cpu(node);
	cpu_set_t set;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Rows per initiator: one row leaning on the first node, written for the
 * first node with CPUs, one leaning on the last for the last such node;
 * the same task faults a region on a CPU of each.
 */
static int show_rows(const int *nodes, int nr)
{
	static const unsigned int lean[] = { 4, 1, 2, 1 };
	unsigned int row[2][WI_MAX_NODES];
	int ini[WI_MAX_NODES], n, i, k;
	char title[160];

	n = wi_row_initiators(ini, WI_MAX_NODES);
	if (n < 2) {
		printf("\nNo rows per initiator in this kernel (or fewer than two nodes with CPUs): not shown.\n");
		return 0;
	}
	ini[1] = ini[n - 1];
	for (i = 0; i < nr; i++) {
		row[0][i] = i < 4 ? lean[i] : 1;
		row[1][nr - 1 - i] = row[0][i];
	}
	for (k = 0; k < 2; k++)
		for (i = 0; i < nr; i++)
			if (wi_set_row(ini[k], nodes[i], row[k][i]))
				return -1;
	if (wi_set_per_initiator(true))
		return -1;
	printf("\nRows per initiator written, per_initiator true:\n");
	for (k = 0; k < 2; k++) {
		printf("  initiator%d:", ini[k]);
		for (i = 0; i < nr; i++)
			printf(" node%d=%d", nodes[i], wi_read_row(ini[k], nodes[i]));
		printf("\n");
	}
	for (k = 0; k < 2; k++) {
		if (run_on_node(ini[k]))
			return -1;
		snprintf(title, sizeof(title),
			 "mbind(MPOL_WEIGHTED_INTERLEAVE), this task on a CPU of node %d: row %d",
			 ini[k], ini[k]);
		show(title, MPOL_WEIGHTED_INTERLEAVE, nodes, row[k], nr);
	}
	return 0;
}

int main(void)
{
	static const unsigned int weights[] = { 5, 3, 1, 1 };
	static const unsigned int own[] = { 1, 1, 2, 6 };
	unsigned int w[WI_MAX_NODES], o[WI_MAX_NODES];
	uint8_t vec[WI_WEIGHTS_MAX_NODES];
	int nodes[WI_MAX_NODES], nr, i;
	char buf[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!wi_sysfs_present()) {
		fprintf(stderr, "wi_demo: %s missing: kernel without weighted interleave\n",
			WI_SYSFS_DIR);
		return 1;
	}
	nr = wi_pick_nodes(4, nodes);
	if (nr < 2) {
		fprintf(stderr, "wi_demo: needs at least 2 memory nodes\n");
		return 1;
	}
	for (i = 0; i < nr; i++) {
		w[i] = i < 4 ? weights[i] : 1;
		o[i] = i < 4 ? own[i] : 1;
	}

	wi_state_save();
	wi_restore_at_exit();
	printf("Weighted interleave demo on nodes %s",
	       wi_nodes_str(nodes, nr, buf, sizeof(buf)));
	i = wi_first_cpuless_node();
	if (i >= 0)
		printf(" (node %d has no CPU, like a CXL memory expander)", i);
	printf("\n");

	if (wi_set_weights(nodes, w, nr)) {
		fprintf(stderr, "wi_demo: cannot write %s: %s\n", WI_SYSFS_DIR,
			strerror(errno));
		return 1;
	}
	printf("\nGlobal weights written to %s:\n ", WI_SYSFS_DIR);
	for (i = 0; i < nr; i++)
		printf(" node%d=%d", nodes[i], wi_read_weight(nodes[i]));
	printf("\n");

	show("mbind(MPOL_INTERLEAVE)", MPOL_INTERLEAVE, nodes, w, nr);
	show("mbind(MPOL_WEIGHTED_INTERLEAVE), global weights",
	     MPOL_WEIGHTED_INTERLEAVE, nodes, w, nr);

	if (wi_task_weights_supported() == 1) {
		wi_weights_vec(vec, sizeof(vec), nodes, o, nr);
		if (wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
					nodes[nr - 1] + 1, 0)) {
			fprintf(stderr, "wi_demo: set_mempolicy_weights: %s\n",
				strerror(errno));
			return 1;
		}
		show("mbind(MPOL_WEIGHTED_INTERLEAVE), this process's weights from set_mempolicy_weights(2)",
		     MPOL_WEIGHTED_INTERLEAVE, nodes, o, nr);
		/* the rows below are global weights: no weights of its own */
		wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0, 0);
	} else {
		printf("\nNo set_mempolicy_weights(2) in this kernel: per-process weights not shown.\n");
	}
	if (show_rows(nodes, nr)) {
		fprintf(stderr, "wi_demo: rows per initiator: %s\n",
			strerror(errno));
		return 1;
	}

	if (wi_state_restore()) {
		fprintf(stderr, "wi_demo: could not restore the global weights\n");
		return 1;
	}
	printf("\nGlobal weights restored.\n");
	return 0;
}
