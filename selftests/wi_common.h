/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the MPOL_WEIGHTED_INTERLEAVE selftests.
 *
 * Everything here talks to the kernel through raw system calls and
 * procfs/sysfs files so that the tests do not depend on libnuma.
 */
#ifndef WI_COMMON_H
#define WI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "wi_abi.h"

/* Memory policy ABI (include/uapi/linux/mempolicy.h). */
#ifndef MPOL_DEFAULT
#define MPOL_DEFAULT			0
#endif
#ifndef MPOL_PREFERRED
#define MPOL_PREFERRED			1
#endif
#ifndef MPOL_BIND
#define MPOL_BIND			2
#endif
#ifndef MPOL_LOCAL
#define MPOL_LOCAL			4
#endif
#ifndef MPOL_PREFERRED_MANY
#define MPOL_PREFERRED_MANY		5
#endif
/* First mode number the kernel must reject. */
#define WI_MPOL_FIRST_INVALID		7

#ifndef MPOL_F_STATIC_NODES
#define MPOL_F_STATIC_NODES		(1 << 15)
#endif
#ifndef MPOL_F_RELATIVE_NODES
#define MPOL_F_RELATIVE_NODES		(1 << 14)
#endif
#ifndef MPOL_F_NUMA_BALANCING
#define MPOL_F_NUMA_BALANCING		(1 << 13)
#endif

#ifndef MPOL_F_NODE
#define MPOL_F_NODE			(1 << 0)
#endif
#ifndef MPOL_F_ADDR
#define MPOL_F_ADDR			(1 << 1)
#endif
#ifndef MPOL_F_MEMS_ALLOWED
#define MPOL_F_MEMS_ALLOWED		(1 << 2)
#endif

#ifndef MPOL_MF_STRICT
#define MPOL_MF_STRICT			(1 << 0)
#endif
#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE			(1 << 1)
#endif

#define WI_PAGE_SIZE		4096UL
#define WI_HPAGE_SIZE		(2UL << 20)
#define WI_PAGE_SHIFT		12
#define WI_HPAGE_SHIFT		21

/* Node masks handed to the kernel: 1024 bits, enough for any config. */
#define WI_MAX_NODES		1024
#define WI_BITS_PER_LONG	(8 * (int)sizeof(unsigned long))
#define WI_MASK_LONGS		(WI_MAX_NODES / WI_BITS_PER_LONG)
/* get_nodes() in the kernel drops the last bit of maxnode. */
#define WI_MAXNODE		(WI_MAX_NODES + 1)

struct wi_mask {
	unsigned long bits[WI_MASK_LONGS];
};

void wi_mask_zero(struct wi_mask *m);
void wi_mask_set(struct wi_mask *m, int node);
bool wi_mask_test(const struct wi_mask *m, int node);
bool wi_mask_equal(const struct wi_mask *a, const struct wi_mask *b);
int wi_mask_weight(const struct wi_mask *m);
void wi_mask_from_nodes(struct wi_mask *m, const int *nodes, int nr);
int wi_mask_to_nodes(const struct wi_mask *m, int *nodes, int max);
/* Format like the kernel's "%*pbl": "0-3", "0,2-3", "" for empty. */
char *wi_mask_str(const struct wi_mask *m, char *buf, size_t len);
char *wi_nodes_str(const int *nodes, int nr, char *buf, size_t len);

/* Raw system call wrappers: return -1 and set errno on failure. */
long wi_set_mempolicy(int mode, const struct wi_mask *m);
long wi_get_mempolicy(int *mode, struct wi_mask *m, void *addr,
		      unsigned long flags);
long wi_mbind(void *addr, size_t len, int mode, const struct wi_mask *m,
	      unsigned int flags);

/*
 * Node of npages pages at base, base + stride, ... via move_pages(2) with
 * nodes == NULL.  Returns 0 or -errno if the call itself failed; a page
 * that could not be looked up gets a negative errno in nodes[].
 */
int wi_page_nodes(const void *base, size_t npages, size_t stride, int *nodes);
/* The same for pages of process pid (0: the caller). */
int wi_pid_page_nodes(pid_t pid, const void *base, size_t npages,
		      size_t stride, int *nodes);
/* Write one byte into each of npages pages, one page at a time. */
void wi_fault_pages(void *base, size_t npages, size_t stride);
/* Read one byte of each page. */
void wi_read_pages(const void *base, size_t npages, size_t stride);
/*
 * A memfd of len bytes mapped shared under a weighted interleave policy
 * over nodes[]: the mapping, its fd in *fd and its inode number, where
 * shmem's interleave index starts, in *ino; NULL on failure.
 */
void *wi_memfd_weighted(size_t len, const int *nodes, int nr, int *fd,
			unsigned long *ino);
/* Private anonymous mapping with THP disabled for it; NULL on failure. */
void *wi_mmap_anon(size_t len);
/*
 * Private anonymous mapping of len bytes whose start is aligned to align.
 * *raw / *rawlen describe what must be munmap()ed.
 */
void *wi_mmap_aligned(size_t len, size_t align, void **raw, size_t *rawlen);
void wi_count_nodes(const int *nodes, size_t n, long *count /* WI_MAX_NODES */);

/*
 * Interleave index -> node as done by the kernel.  nodes[] must be in
 * ascending order (the order of the policy's node mask).
 */
int wi_weighted_node(const int *nodes, const unsigned int *weights, int nr,
		     unsigned long ilx);
int wi_interleave_node(const int *nodes, int nr, unsigned long ilx);
/* Pages out of n consecutive interleave indices that land on nodes[i]. */
long wi_expected_share(const unsigned int *weights, int nr, int i, long n);
unsigned int wi_weight_sum(const unsigned int *weights, int nr);

/* Topology. */
int wi_read_nodelist(const char *path, int *nodes, int max);
int wi_memory_nodes(int *nodes, int max);
int wi_cpu_nodes(int *nodes, int max);
int wi_possible_nodes(int *nodes, int max);
bool wi_node_has_cpu(int node);
/* A CPU of node, or -1. */
int wi_node_first_cpu(int node);
/*
 * Up to want memory nodes, ascending.  If the machine has a CPU-less
 * memory node, one is always part of the selection.
 */
int wi_pick_nodes(int want, int *nodes);
/* The first CPU-less memory node, or -1. */
int wi_first_cpuless_node(void);
/* Does the node have memory usable for non-movable allocations? */
bool wi_node_has_normal_memory(int node);

/* Global weights in sysfs. */
#define WI_SYSFS_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"
bool wi_sysfs_present(void);
void wi_weight_path(int node, char *buf, size_t len);
/*
 * The rows per initiator: initiatorC/nodeN, C a node with CPUs; initiator
 * -1 is the default row, the nodeN files.  Writing 0 puts an entry back
 * to following the default row.
 */
void wi_row_path(int initiator, int node, char *buf, size_t len);
int wi_read_row(int initiator, int node);
/* 0 or -errno */
int wi_set_row(int initiator, int node, unsigned int weight);
/* The "per_initiator" switch: 1 true, 0 false, -1 no such file. */
int wi_per_initiator(void);
int wi_set_per_initiator(bool on);
/* The initiators that have a row directory, ascending; or -errno. */
int wi_row_initiators(int *nodes, int max);
int wi_read_weight(int node);
/* One write(2) of len bytes; returns bytes written or -errno. */
long wi_write_weight_raw(int node, const void *buf, size_t len);
int wi_set_weight(int node, unsigned int weight);
int wi_set_weights(const int *nodes, const unsigned int *weights, int nr);
/* The "auto" switch: 1 true, 0 false, -1 no such file. */
int wi_auto_mode(void);
/*
 * The weights auto mode derives, indexed by node id (WI_MAX_NODES
 * entries): each memory node's share of the total bandwidth from the
 * nearest CPUs (access1, min of read and write) scaled to WI_AUTO_SCALE,
 * at least 1, divided by the weights' greatest common divisor; 1 for
 * every other node.  -1 if no node has bandwidth data.
 */
#define WI_AUTO_SCALE	32
int wi_auto_weights(unsigned int *w);
/*
 * The same derivation from bandwidths bw[] indexed by node id (0:
 * unknown), into w[] (WI_MAX_NODES entries).
 */
void wi_weights_from_bw(const long *bw, unsigned int *w);
/* min(read, write) bandwidth from the nearest CPUs (access1), 0: unknown */
long wi_node_bandwidth(int node);
/*
 * Remember the state of the non-node files of the sysfs directory (the
 * "auto" switch) so that it can be put back.
 */
void wi_state_save(void);
/*
 * Write 1 to every nodeN file and 0 to every row entry, then restore what
 * wi_state_save() saw.
 */
int wi_state_restore(void);
/* Restore weights at exit of the process that calls this (safety net). */
void wi_restore_at_exit(void);

/* Kernel identification. */
/* This project's kernel, on any base: its release says "-wi". */
bool wi_is_project_kernel(void);
void wi_kernel_version(int *major, int *minor);
/* True for an upstream kernel (not this project's) at least major.minor. */
bool wi_upstream_at_least(int major, int minor);

/* Files. */
long wi_read_file(const char *path, char *buf, size_t len);
int wi_write_file(const char *path, const char *s);
long wi_read_long(const char *path);
int wi_write_long(const char *path, long val);
/* interleave_hit etc. from /sys/devices/system/node/nodeN/numastat */
long wi_numastat(int node, const char *field);
/* The /proc/self/numa_maps line of the VMA containing addr. */
int wi_numa_maps_line(const void *addr, char *buf, size_t len);
/* The "N<node>=" count of a numa_maps line, 0 if absent. */
long wi_numa_maps_count(const char *line, int node);
/* VMA containing addr from /proc/self/maps. */
int wi_vma_lookup(const void *addr, unsigned long *start, unsigned long *end,
		  unsigned long long *offset);
/* A field (e.g. "AnonHugePages:") of the smaps entry of the VMA, in kB. */
long wi_smaps_field_kb(const void *addr, const char *field);

/* THP: enabled unless "never" (or missing). */
bool wi_thp_enabled(void);

/* Per-node 2 MiB hugetlb pool management. */
struct wi_hugetlb {
	int nr;
	int node[WI_MAX_NODES];
	long orig[WI_MAX_NODES];
};
/*
 * Grow the pool of each node by extra[i] pages.  Returns 0, -ENOENT if
 * hugetlb is not available, -ENOMEM if the pages could not be had (the
 * pool is restored in that case).
 */
int wi_hugetlb_reserve(struct wi_hugetlb *h, const int *nodes,
		       const long *extra, int nr);
void wi_hugetlb_restore(struct wi_hugetlb *h);

/* Scratch mounts under /tmp. */
int wi_mount_scratch(char *dir, size_t len, const char *fstype,
		     const char *data);
void wi_umount_scratch(const char *dir);

/*
 * Page cache of a regular (non-shmem) file, e.g. on ramfs: its pages are
 * allocated without an interleave index, so they follow the task's
 * round-robin.
 */
int wi_file_write_page(int fd, size_t idx);
/* Nodes of the first npages pages of fd (maps the file and reads them). */
int wi_file_page_nodes(int fd, size_t npages, int *nodes);

/* Pin the calling thread to one CPU. */
int wi_pin_cpu(int cpu);
/* NUMA node the calling thread currently runs on. */
int wi_current_node(void);

#endif /* WI_COMMON_H */
