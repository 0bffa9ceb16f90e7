/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kselftest_harness.h plus helpers shared by bwapd's tests: model
 * backends on the presets, and fake sysfs trees for the real backend.
 * Include this once, from the test's .c file.
 */
#ifndef BWAPD_TEST_H
#define BWAPD_TEST_H

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the harness and EXPECT_NEAR, shared with the model's tests */
#include "bwm_test.h"
#include "bwapd.h"

static inline const char *preset(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/machines/%s.json", BWM_DATADIR, name);
	return buf;
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

/* A fresh directory under /tmp (caller removes it with rm_tree). */
static inline char *temp_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/bwapd-test.XXXXXX");
	return mkdtemp(buf);
}

static inline void rm_tree(const char *dir)
{
	char cmd[4200];

	if (strncmp(dir, "/tmp/bwapd-test.", 16))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", dir);
}

#endif /* BWAPD_TEST_H */
