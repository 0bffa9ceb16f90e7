/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory per node, as numastat shows it (nodemem.c): the machine's,
 * from /sys/devices/system/node/nodeN/meminfo, and one process's, from
 * /proc/PID/numa_maps.
 */
#ifndef BWAPD_NODEMEM_H
#define BWAPD_NODEMEM_H

#include <stdint.h>
#include <sys/types.h>

#include "bwapd.h"

/*
 * Each node's total and free memory (kB) under root ("" for /); a node
 * that is not there (offline, or past the last) has total 0.  The number
 * of nodes up to the last one there, or -errno (no node at all).
 */
int bwapd_node_memory(const char *root, uint64_t total_kb[BWAPD_MAX_NODES],
		      uint64_t free_kb[BWAPD_MAX_NODES]);

/*
 * The memory of process pid on each of nr_nodes nodes (kB): every page
 * its mappings have there, in the mapping's page size.  0, or -errno and
 * why says what failed.
 */
int bwapd_process_node_kb(pid_t pid, int nr_nodes, uint64_t *kb, char *why,
			  size_t len);

#endif /* BWAPD_NODEMEM_H */
