/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kselftest_harness.h plus helpers shared by bwapd's tests: model
 * backends on the presets, and fake sysfs trees for the real backend.
 * Include this once, from the test's .c file.
 */
#ifndef BWAPD_TEST_H
#define BWAPD_TEST_H

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* the harness and EXPECT_NEAR, shared with the model's tests */
#include "bwm_test.h"

static inline const char *preset(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/machines/%s.json", BWM_DATADIR, name);
	return buf;
}

/*
 * A workload of a preset bound to its workers, and the canonical
 * fractions of those workers (Eq. 5 on the benchmark's noise-free
 * profiling run, what the model backend's profile measures):
 * where the tuner's tests start.  0, or -1 with the reason on stderr.
 */
static inline int model_canonical(const char *machine, const char *workload,
				  uint32_t workers, struct bwm_machine *m,
				  struct bwm_workload *wl, double *canon)
{
	if (bwm_test_load(machine, workload, workers, m, wl) ||
	    bwm_bench_canonical(m, workers, canon))
		return -1;
	return 0;
}

/* Write text (printf format) to root/path, making the directories. */
static inline int put(const char *root, const char *path, const char *fmt, ...)
{
	char full[4096], *p;
	va_list ap;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (p = full + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(full, 0755);
		*p = '/';
	}
	f = fopen(full, "w");
	if (!f)
		return -errno;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	return fclose(f) ? -errno : 0;
}

/*
 * A fake sysfs of the test machine's numa4 topology: four nodes with
 * one CPU and 384 MiB each, asymmetric SLIT, HMAT from the distances
 * (bandwidth 240000/d MB/s, latency 10 ns per unit), weight files.
 */
static inline int fake_numa4(const char *root, int hmat, int weights)
{
	static const int d[4][4] = {
		{ 10, 12, 20, 28 }, { 14, 10, 22, 26 },
		{ 24, 21, 10, 16 }, { 32, 30, 18, 10 },
	};
	char p[256];
	int i, ret;

	ret = put(root, "sys/devices/system/node/online", "0-3\n");
	ret |= put(root, "sys/bus/event_source/devices/software/type", "1\n");
	ret |= put(root, "proc/cpuinfo", "processor\t: 0\nmodel name\t: QEMU Virtual CPU version 2.5+\n");
	for (i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "sys/devices/system/node/node%d/cpulist", i);
		ret |= put(root, p, "%d\n", i);
		snprintf(p, sizeof(p), "sys/devices/system/node/node%d/meminfo", i);
		ret |= put(root, p, "Node %d MemTotal:         393216 kB\nNode %d MemFree: 1 kB\n",
			   i, i);
		snprintf(p, sizeof(p), "sys/devices/system/node/node%d/distance", i);
		ret |= put(root, p, "%d %d %d %d\n", d[i][0], d[i][1], d[i][2],
			   d[i][3]);
		if (hmat) {
			const char *a = "access0/initiators";

			snprintf(p, sizeof(p), "sys/devices/system/node/node%d/%s/read_bandwidth", i, a);
			ret |= put(root, p, "24000\n");
			snprintf(p, sizeof(p), "sys/devices/system/node/node%d/%s/write_bandwidth", i, a);
			ret |= put(root, p, "24000\n");
			snprintf(p, sizeof(p), "sys/devices/system/node/node%d/%s/read_latency", i, a);
			ret |= put(root, p, "100\n");
			snprintf(p, sizeof(p), "sys/devices/system/node/node%d/%s/write_latency", i, a);
			ret |= put(root, p, "100\n");
			snprintf(p, sizeof(p), "sys/devices/system/node/node%d/%s/node%d/x", i, a, i);
			ret |= put(root, p, "");
		}
		if (weights) {
			snprintf(p, sizeof(p), "sys/kernel/mm/mempolicy/weighted_interleave/node%d", i);
			ret |= put(root, p, "1\n");
		}
	}
	return ret;
}

/*
 * The rows per initiator in a fake tree's weighted_interleave directory,
 * as the kernel lays them out: per_initiator ("false"), and for each CPU
 * node C of cpu_nodes a directory initiatorC with nodeN for each of the
 * nodes nodes (all with memory), every weight 1.
 */
static inline int fake_rows(const char *root, int nodes, uint32_t cpu_nodes)
{
	const char *wi = "sys/kernel/mm/mempolicy/weighted_interleave";
	char p[256];
	int c, n, ret;

	ret = put(root, "sys/kernel/mm/mempolicy/weighted_interleave/per_initiator",
		  "false\n");
	for (c = 0; c < nodes; c++) {
		if (!(cpu_nodes & (1u << c)))
			continue;
		for (n = 0; n < nodes; n++) {
			snprintf(p, sizeof(p), "%s/initiator%d/node%d", wi, c, n);
			ret |= put(root, p, "1\n");
		}
	}
	return ret;
}

/*
 * A fake sysfs of a machine with one CPU per node (CPU i on node i, so
 * that the host's CPUs 0 and 1 can carry real counters), 'per_pkg' nodes
 * per package (2: sub-NUMA clustering), 1 GiB per node, SLIT 10/21.
 */
static inline int fake_machine(const char *root, int nodes, int per_pkg)
{
	char p[256], row[128];
	int i, j, ret;

	ret = put(root, "sys/devices/system/node/online", "0-%d\n", nodes - 1);
	for (i = 0; i < nodes; i++) {
		size_t off = 0;

		for (j = 0; j < nodes; j++)
			off += (size_t)snprintf(row + off, sizeof(row) - off, "%s%d",
						j ? " " : "", i == j ? 10 : 21);
		snprintf(p, sizeof(p), "sys/devices/system/node/node%d/cpulist", i);
		ret |= put(root, p, "%d\n", i);
		snprintf(p, sizeof(p), "sys/devices/system/node/node%d/meminfo", i);
		ret |= put(root, p, "Node %d MemTotal:        1048576 kB\n", i);
		snprintf(p, sizeof(p), "sys/devices/system/node/node%d/distance", i);
		ret |= put(root, p, "%s\n", row);
		snprintf(p, sizeof(p),
			 "sys/devices/system/cpu/cpu%d/topology/physical_package_id", i);
		ret |= put(root, p, "%d\n", i / per_pkg);
	}
	return ret;
}

#ifdef BWAPD_FIXTURE
/* PMUs of a real machine's shape (tests/pmu-fixture.sh) below root. */
static inline int pmu_fixture(const char *root, const char *shape,
			      const char *cpus, int standin)
{
	char cmd[4400];

	snprintf(cmd, sizeof(cmd), "sh %s %s '%s' %s '%s'", BWAPD_FIXTURE,
		 standin ? "--standin" : "", root, shape, cpus);
	return system(cmd) ? -EIO : 0;
}
#endif

/* Can this process open system-wide counters on CPUs 0 and 1? */
static inline int can_count(char *why, size_t len)
{
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK };
	int cpu;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		snprintf(why, len, "needs 2 CPUs");
		return 0;
	}
	for (cpu = 0; cpu < 2; cpu++) {
		long fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0UL);

		if (fd < 0) {
			snprintf(why, len, "system-wide cpu-clock on CPU %d: %s "
				 "(needs CAP_PERFMON or perf_event_paranoid <= 0)",
				 cpu, strerror(errno));
			return 0;
		}
		close((int)fd);
	}
	return 1;
}

/* A fresh directory under /tmp (caller removes it with rm_tree). */
static inline char *temp_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/bwapd-test.XXXXXX");
	return mkdtemp(buf);
}

/*
 * The same in memory (/dev/shm), where there is one, as /run is: for a
 * file rewritten thousands of times (ext4 writes out at once a file
 * renamed over another, and the test would wait for the disk).
 */
static inline char *temp_dir_shm(char *buf, size_t len)
{
	snprintf(buf, len, "/dev/shm/bwapd-test.XXXXXX");
	return mkdtemp(buf) ? buf : temp_dir(buf, len);
}

static inline void rm_tree(const char *dir)
{
	char cmd[4200];

	if (strncmp(dir, "/tmp/bwapd-test.", 16) &&
	    strncmp(dir, "/dev/shm/bwapd-test.", 20))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", dir);
}

#endif /* BWAPD_TEST_H */
