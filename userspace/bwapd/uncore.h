/* SPDX-License-Identifier: GPL-2.0 */
/* Memory controller counters from uncore PMUs (uncore.c). */
#ifndef BWAPD_UNCORE_H
#define BWAPD_UNCORE_H

#include "bwapd.h"

#define UNCORE_MAX_PMUS		64

struct uncore_pmu {
	char name[64];
	uint32_t type;
	int cpu, node;
	uint64_t config[2][3];		/* [read/write][config, config1, 2] */
	double scale[2];		/* bytes per count */
	int fd[2];
};

struct uncore {
	int nr;
	uint32_t nodes;			/* nodes with a PMU */
	struct uncore_pmu pmu[UNCORE_MAX_PMUS];
};

/* Terms "event=0x04,umask=0x03" of PMU pmu into config, config1, config2. */
int uncore_encode(const char *root, const char *pmu, const char *terms,
		  uint64_t cfg[3]);
/* Find the PMUs; -ENODEV with a reason when they cannot count every node. */
int uncore_discover(struct uncore *u, const char *root,
		    const struct bwapd_topology *t, char *why, size_t len);
/* Open the events; -EACCES with the privileges needed. */
int uncore_open(struct uncore *u, const char *root, char *why, size_t len);
int uncore_read(const struct uncore *u, int node, uint64_t *read,
		uint64_t *write);
void uncore_close(struct uncore *u);

#endif /* BWAPD_UNCORE_H */
