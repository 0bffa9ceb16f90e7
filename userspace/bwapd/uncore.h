/* SPDX-License-Identifier: GPL-2.0 */
/* Memory controller counters from uncore PMUs (uncore.c, uncore_events.c). */
#ifndef BWAPD_UNCORE_H
#define BWAPD_UNCORE_H

#include "topology.h"

#define UNCORE_MAX_PMUS		64
#define UNCORE_MAX_EVENTS	48	/* AMD Zen 4 DF: 12 stations x 4 */
#define UNCORE_MAX_PKGS		16	/* CPUs in one PMU's cpumask */
/*
 * File descriptors: one per event per CPU of a PMU's cpumask, at most
 * this many (a 2-socket Zen 4 on 6.1: 2 x 48; 8-socket Skylake-SP:
 * 6 PMUs x 8 x 2).  They come on top of the process's other files.
 */
#define UNCORE_MAX_COUNTERS	1024

enum uncore_family {
	UNCORE_IMC_FREE,		/* Intel uncore_imc_free_running[_N] */
	UNCORE_IMC,			/* Intel uncore_imc[_N] */
	UNCORE_UMC,			/* AMD amd_umc_N (Linux 6.9+) */
	UNCORE_DF,			/* AMD amd_df (Zen; Linux 6.1) */
	UNCORE_NR_FAMILIES,
};

enum uncore_dir { UNCORE_READ, UNCORE_WRITE, UNCORE_BOTH };

/* The CPU, from /proc/cpuinfo: which documented encodings apply. */
struct uncore_cpu {
	int amd, intel;
	int family, model;
};

struct uncore_event {
	const char *name;		/* sysfs alias or documented name */
	char terms[48];			/* "event=0x04,umask=0x03" */
	enum uncore_dir dir;
	double scale;			/* bytes per count */
	uint64_t config[3];		/* config, config1, config2 */
};

struct uncore_pmu {
	char name[64];
	enum uncore_family family;
	int index;			/* N of name_N; -1 without */
	uint32_t type;
	int nr_cpus;
	int cpu[UNCORE_MAX_PKGS];	/* the cpumask: one CPU per package */
	int node[UNCORE_MAX_PKGS];	/* the node it counts on that CPU */
	int nr_events;
	struct uncore_event ev[UNCORE_MAX_EVENTS];
};

struct uncore_counter {
	int pmu, ev, cpu, node, fd;
};

struct uncore {
	int nr;
	uint32_t nodes;			/* nodes some PMU counts */
	enum uncore_family family;
	const char *encoding;		/* where the encodings come from */
	struct uncore_pmu pmu[UNCORE_MAX_PMUS];
	int nr_counters;
	struct uncore_counter c[UNCORE_MAX_COUNTERS];
};

/* Terms "event=0x04,umask=0x03" of PMU pmu into config, config1, config2. */
int uncore_encode(const char *root, const char *pmu, const char *terms,
		  uint64_t cfg[3]);
/* vendor, family and model of root/proc/cpuinfo (zeros if unknown). */
void uncore_cpu_read(const char *root, struct uncore_cpu *c);
/*
 * The read and write events of a PMU of a family: the sysfs aliases where
 * the kernel has them, documented raw encodings otherwise.  Returns the
 * number of events, 0 if neither exists; *source says where they are from.
 */
int uncore_events(const char *root, const char *pmu, enum uncore_family f,
		  const struct uncore_cpu *cpu, struct uncore_event *ev,
		  int max, const char **source);
/*
 * Sub-NUMA clustering: the cluster (0..k-1 within its package) whose
 * memory PMU instance 'index' counts, or -1 if not known for this CPU.
 */
int uncore_snc_cluster(const struct uncore_cpu *cpu, enum uncore_family f,
		       int index, int k);

/*
 * Find the PMUs below pmu_root, map every instance and CPU of its cpumask
 * to a node (packages from topo_root's sysfs); -ENODEV with a reason when
 * they cannot count every node with memory.
 */
int uncore_discover(struct uncore *u, const char *pmu_root,
		    const char *topo_root, const struct bwapd_topology *t,
		    char *why, size_t len);
/* Open one counter per event per CPU; -EACCES etc. with a reason. */
int uncore_open(struct uncore *u, const char *root, char *why, size_t len);
/* Bytes node's controllers moved since the open, scaled for multiplexing. */
int uncore_read(const struct uncore *u, int node, uint64_t *read,
		uint64_t *write);
/* A counter value scaled by time enabled / time running (0 if never ran). */
double uncore_scale(uint64_t count, uint64_t enabled, uint64_t running);
void uncore_close(struct uncore *u);

#endif /* BWAPD_UNCORE_H */
