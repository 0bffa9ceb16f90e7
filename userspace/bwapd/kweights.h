/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's weighted-interleave weights in sysfs (kweights.c), below a
 * root ("" for /): the default row (BWAPD_WEIGHTS_DIR/nodeN), which every
 * allocation follows while per_initiator is off; the rows of the CPU
 * nodes (initiatorC/nodeN), which the private allocations of node C's
 * CPUs follow while it is on; and the switches per_initiator and auto
 * (the weights derived from firmware).  Kernels without rows have no
 * per_initiator file.
 */
#ifndef BWAPD_KWEIGHTS_H
#define BWAPD_KWEIGHTS_H

#include "topology.h"

/*
 * Write node's weight in row (BWAPD_DEFAULT_ROW, or a CPU node): 1..255;
 * 0 in a CPU node's row puts the entry back to following the default
 * row.  0 or -errno.
 */
int bwapd_weight_write(const char *root, int row, int node, uint8_t w);
/*
 * The weights in force of row into w[0..nr-1], 0 where a node has none:
 * 0, or -ENOENT for a CPU node's row the kernel does not have.
 */
int bwapd_weights_read(const char *root, int row, uint8_t *w, int nr);
/*
 * Write the default row's weights w[0..nr-1] but those that are 0 (nodes
 * the weights leave out), all or nothing: 0, or -errno with the file and
 * the reason in why, every weight as it was.
 */
int bwapd_weights_write(const char *root, const uint8_t *w, int nr,
			char *why, size_t len);
/*
 * A switch of the directory, "per_initiator" or "auto": 1 on, 0 off,
 * -ENOENT where the kernel has none, or another -errno.
 */
int bwapd_switch_read(const char *root, const char *name);
int bwapd_switch_write(const char *root, const char *name, int on);

#endif /* BWAPD_KWEIGHTS_H */
