// SPDX-License-Identifier: GPL-2.0
/*
 * Memory controller traffic from uncore PMUs with perf_event_open.
 *
 * Event encodings come from the kernel's sysfs aliases, as perf uses
 * them: /sys/bus/event_source/devices/PMU/events/NAME holds terms like
 * "event=0x04,umask=0x03", PMU/format/TERM says which bits of
 * perf_event_attr.config* each term fills, NAME.scale and NAME.unit turn
 * counts into bytes.  Every PMU instance counts on the CPU its cpumask
 * names; that CPU's node is the node of its memory controller.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uncore.h"

/* PMU name prefix, its read and write event; the kernel names these. */
static const struct {
	const char *prefix, *read, *write;
} families[] = {
	{ "uncore_imc_free_running", "data_read", "data_write" },
	{ "uncore_imc", "cas_count_read", "cas_count_write" },
	{ "amd_umc", "umc_cas_cmd.rd", "umc_cas_cmd.wr" },
};

/* One "config:0-7,32-35" format into mask pieces; value placed into cfg[]. */
static int place(const char *fmt, uint64_t value, uint64_t cfg[3])
{
	const char *p = strchr(fmt, ':');
	int which;

	if (!strncmp(fmt, "config1:", 8))
		which = 1;
	else if (!strncmp(fmt, "config2:", 8))
		which = 2;
	else if (!strncmp(fmt, "config:", 7))
		which = 0;
	else
		return -EINVAL;
	p++;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		int bits;

		if (end == p || lo < 0 || lo > 63)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi > 63)
				return -EINVAL;
		}
		bits = (int)(hi - lo + 1);
		cfg[which] |= (bits == 64 ? value : value & ((1ULL << bits) - 1))
			      << lo;
		value = bits == 64 ? 0 : value >> bits;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return value ? -ERANGE : 0;
}

int uncore_encode(const char *root, const char *pmu, const char *terms,
		  uint64_t cfg[3])
{
	char buf[256], path[512], fmt[128];
	char *save, *tok;

	cfg[0] = cfg[1] = cfg[2] = 0;
	snprintf(buf, sizeof(buf), "%s", terms);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t v = 1;
		int ret;

		if (eq) {
			*eq = 0;
			v = strtoull(eq + 1, NULL, 0);
		}
		snprintf(path, sizeof(path),
			 "/sys/bus/event_source/devices/%s/format/%s", pmu, tok);
		ret = bwapd_read_text(root, path, fmt, sizeof(fmt));
		if (!ret)
			ret = place(fmt, v, cfg);
		if (ret)
			return ret;
	}
	return 0;
}

/* Bytes per count: NAME.scale in NAME.unit; one 64-byte line without. */
static double bytes_per_count(const char *root, const char *pmu,
			      const char *ev)
{
	char path[512], buf[64];
	double scale = 1, unit = 64;

	snprintf(path, sizeof(path),
		 "/sys/bus/event_source/devices/%s/events/%s.scale", pmu, ev);
	if (!bwapd_read_text(root, path, buf, sizeof(buf))) {
		scale = strtod(buf, NULL);
		unit = 1;
		snprintf(path, sizeof(path),
			 "/sys/bus/event_source/devices/%s/events/%s.unit",
			 pmu, ev);
		if (!bwapd_read_text(root, path, buf, sizeof(buf))) {
			if (!strcmp(buf, "MiB"))
				unit = 1048576;
			else if (!strcmp(buf, "MB"))
				unit = 1e6;
			else if (!strcmp(buf, "KiB"))
				unit = 1024;
		}
	}
	return scale * unit;
}

static int add_pmu(struct uncore *u, const char *root, const char *pmu,
		   int fam, const struct bwapd_topology *t)
{
	const char *ev[2] = { families[fam].read, families[fam].write };
	char path[512], buf[256];
	struct uncore_pmu *p;
	int k, ret, cpu;

	if (u->nr >= UNCORE_MAX_PMUS)
		return -E2BIG;
	p = &u->pmu[u->nr];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%.63s", pmu);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 pmu);
	ret = bwapd_read_text(root, path, buf, sizeof(buf));
	if (ret)
		return ret;
	p->type = (uint32_t)strtoul(buf, NULL, 10);
	snprintf(path, sizeof(path),
		 "/sys/bus/event_source/devices/%s/cpumask", pmu);
	ret = bwapd_read_text(root, path, buf, sizeof(buf));
	if (ret)
		return ret;
	cpu = atoi(buf);
	if (cpu < 0 || cpu >= BWAPD_MAX_CPUS ||
	    t->cpu_node[cpu] == BWAPD_NO_NODE)
		return -ENODEV;
	p->cpu = cpu;
	p->node = t->cpu_node[cpu];
	for (k = 0; k < 2; k++) {
		p->fd[k] = -1;
		snprintf(path, sizeof(path),
			 "/sys/bus/event_source/devices/%s/events/%s", pmu,
			 ev[k]);
		ret = bwapd_read_text(root, path, buf, sizeof(buf));
		if (!ret)
			ret = uncore_encode(root, pmu, buf, p->config[k]);
		if (ret)
			return ret == -ENOENT ? -ENOENT : -EINVAL;
		p->scale[k] = bytes_per_count(root, pmu, ev[k]);
	}
	u->nr++;
	return 0;
}

int uncore_discover(struct uncore *u, const char *root,
		    const struct bwapd_topology *t, char *why, size_t len)
{
	char dir[512], seen[256] = "";
	struct dirent *de;
	DIR *d;
	int i;

	memset(u, 0, sizeof(*u));
	snprintf(dir, sizeof(dir), "%s/sys/bus/event_source/devices", root);
	/* the first family with PMUs: a machine has one kind of controller */
	for (i = 0; !u->nr && i < (int)(sizeof(families) / sizeof(families[0]));
	     i++) {
		size_t n = strlen(families[i].prefix);

		d = opendir(dir);
		if (!d) {
			snprintf(why, len, "%s: %s", dir, strerror(errno));
			return -ENODEV;
		}
		while ((de = readdir(d))) {
			if (!strncmp(de->d_name, "amd_df", 6) ||
			    !strncmp(de->d_name, "amd_umc", 7))
				snprintf(seen, sizeof(seen), "%s", de->d_name);
			/* uncore_imc_N, not uncore_imc_free_running_N */
			if (strncmp(de->d_name, families[i].prefix, n) ||
			    de->d_name[n] != '_' ||
			    (i && !strncmp(de->d_name, families[0].prefix,
					   strlen(families[0].prefix))))
				continue;
			if (add_pmu(u, root, de->d_name, i, t) == 0)
				u->nodes |= 1u << u->pmu[u->nr - 1].node;
		}
		closedir(d);
	}
	if (!u->nr) {
		if (seen[0])
			snprintf(why, len,
				 "%s has no named DRAM read/write events in sysfs; "
				 "no memory controller counters", seen);
		else
			snprintf(why, len,
				 "no memory controller PMU in %s (uncore_imc_*, "
				 "uncore_imc_free_running_*, amd_umc_*)", dir);
		return -ENODEV;
	}
	for (i = 0; i < t->nr_nodes; i++)
		if ((t->mem_nodes & (1u << i)) && !(u->nodes & (1u << i))) {
			snprintf(why, len,
				 "node %d has memory but no memory controller "
				 "PMU counts it%s", i,
				 t->cpu_nodes & (1u << i) ? "" :
				 " (a CPU-less node such as CXL memory)");
			return -ENODEV;
		}
	return 0;
}

static long perf_open(struct perf_event_attr *a, int cpu)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, -1, 0UL);
}

int uncore_open(struct uncore *u, const char *root, char *why, size_t len)
{
	int i, k;

	for (i = 0; i < u->nr; i++) {
		for (k = 0; k < 2; k++) {
			struct uncore_pmu *p = &u->pmu[i];
			struct perf_event_attr a;
			char buf[32];
			long fd;

			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			a.type = p->type;
			a.config = p->config[k][0];
			a.config1 = p->config[k][1];
			a.config2 = p->config[k][2];
			fd = perf_open(&a, p->cpu);
			if (fd >= 0) {
				p->fd[k] = (int)fd;
				continue;
			}
			if (errno == EACCES || errno == EPERM) {
				if (bwapd_read_text(root,
						    "/proc/sys/kernel/perf_event_paranoid",
						    buf, sizeof(buf)))
					snprintf(buf, sizeof(buf), "?");
				snprintf(why, len,
					 "perf_event_open(%s): %s: system-wide uncore "
					 "counters need CAP_PERFMON (or CAP_SYS_ADMIN), "
					 "or kernel.perf_event_paranoid <= 0 (it is %s)",
					 p->name, strerror(errno), buf);
				uncore_close(u);
				return -EACCES;
			}
			snprintf(why, len, "perf_event_open(%s on CPU %d): %s",
				 p->name, p->cpu, strerror(errno));
			uncore_close(u);
			return -errno;
		}
	}
	return 0;
}

int uncore_read(const struct uncore *u, int node, uint64_t *read,
		uint64_t *write)
{
	double sum[2] = { 0, 0 };
	int i, k;

	for (i = 0; i < u->nr; i++) {
		if (u->pmu[i].node != node)
			continue;
		for (k = 0; k < 2; k++) {
			uint64_t c;

			if (u->pmu[i].fd[k] < 0)
				return -EBADF;
			if (pread(u->pmu[i].fd[k], &c, sizeof(c), 0) !=
			    sizeof(c))
				return -EIO;
			sum[k] += (double)c * u->pmu[i].scale[k];
		}
	}
	*read = (uint64_t)sum[0];
	*write = (uint64_t)sum[1];
	return 0;
}

void uncore_close(struct uncore *u)
{
	int i, k;

	for (i = 0; i < u->nr; i++)
		for (k = 0; k < 2; k++)
			if (u->pmu[i].fd[k] >= 0) {
				close(u->pmu[i].fd[k]);
				u->pmu[i].fd[k] = -1;
			}
}
