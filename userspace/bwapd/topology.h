/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine as the kernel shows it (topology.c): nodes, their CPUs and
 * memory, SLIT distances, HMAT access class 0, which nodes have a
 * weighted-interleave weight; its identity; node and CPU lists.
 */
#ifndef BWAPD_TOPOLOGY_H
#define BWAPD_TOPOLOGY_H

#include "bwapd.h"

#define BWAPD_WEIGHTS_DIR	"/sys/kernel/mm/mempolicy/weighted_interleave"
/* The row of weights every allocation follows without per_initiator. */
#define BWAPD_DEFAULT_ROW	(-1)

struct bwapd_node {
	int nr_cpus;
	int first_cpu;			/* -1: none */
	uint64_t mem_bytes;		/* MemTotal */
	int distance[BWAPD_MAX_NODES];	/* SLIT row: from this node to j */
	/* HMAT access class 0: the best initiators and what they get */
	uint32_t initiators;		/* bitmask; 0: no HMAT data */
	unsigned int read_bw, write_bw;	/* MB/s */
	unsigned int read_lat, write_lat;	/* ns */
	int has_weight;			/* weighted_interleave/nodeN exists */
};

struct bwapd_topology {
	int nr_nodes;			/* node ids are 0..nr_nodes-1 */
	uint32_t online;		/* nodes present */
	uint32_t cpu_nodes;		/* nodes with CPUs */
	uint32_t mem_nodes;		/* nodes with memory */
	char cpu_model[128];
	struct bwapd_node node[BWAPD_MAX_NODES];
	uint16_t cpu_node[BWAPD_MAX_CPUS];	/* node of every CPU */
#define BWAPD_NO_NODE	0xffff			/* offline or absent CPU */
	int nr_cpus;
};

/*
 * Read the topology below root ("" or "/" for the running system; a test
 * tree otherwise): devices/system/node, devices/system/cpu, the
 * weighted_interleave directory and /proc/cpuinfo's model name
 * (root/proc/cpuinfo).
 */
int bwapd_topology_read(const char *root, struct bwapd_topology *t,
			char *why, size_t len);
/* Identity: a hash of node count, CPUs, memory, distances and CPU model. */
uint64_t bwapd_distance_hash(const struct bwapd_topology *t);
uint64_t bwapd_topology_id(const struct bwapd_topology *t);

/* "0-2,5" <-> bitmask; parse returns -EINVAL on junk. */
int bwapd_nodelist_parse(const char *s, uint32_t *mask);
char *bwapd_nodelist_format(uint32_t mask, char *buf, size_t len);
/*
 * The weights w[0..nr-1] as numactl's options, which take a weight per
 * node of the -w mask: "-w 0-3 --weights=13,13,1,1"; nodes of weight 0
 * are left out of both.  Returns buf.
 */
char *bwapd_numactl_args(const uint8_t *w, int nr, char *buf, size_t len);
/* A cpulist "0,28" or "0-3" into cpu[] (at most max); the count or -errno. */
int bwapd_cpulist_parse(const char *s, int *cpu, int max);

#endif /* BWAPD_TOPOLOGY_H */
