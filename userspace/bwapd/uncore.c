// SPDX-License-Identifier: GPL-2.0
/*
 * Memory controller traffic from uncore PMUs with perf_event_open.
 *
 * The families, in the order tried: Intel uncore_imc_free_running[_N]
 * (not with sub-NUMA clustering: which cluster a free-running instance
 * counts is not known), Intel uncore_imc[_N], AMD amd_umc_N, AMD amd_df.
 * The first family whose PMUs have read and write events
 * (uncore_events.c) is used.
 *
 * Mapping to nodes: an uncore PMU's cpumask names one CPU per package
 * (die on multi-die packages), and the same instance counts that
 * package's controller on that CPU.  So every (instance, CPU) pair is one
 * counter, counting the memory of the package of the CPU: its node when
 * the package has one node with CPUs; with several (Intel SNC, AMD NPS)
 * the node of the cluster the instance belongs to (uncore_snc_cluster,
 * clusters in the order of their node ids), or no counters at all if
 * that is not known.  A node's traffic is the sum of its counters.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "uncore.h"

static const char *const prefix[UNCORE_NR_FAMILIES] = {
	[UNCORE_IMC_FREE] = "uncore_imc_free_running",
	[UNCORE_IMC] = "uncore_imc",
	[UNCORE_UMC] = "amd_umc",
	[UNCORE_DF] = "amd_df",
};

/* name is prefix or prefix_N: the N (-1 without); -2 if not the family. */
static int family_index(const char *name, enum uncore_family f)
{
	size_t n = strlen(prefix[f]);
	char *end;
	long i;

	if (strncmp(name, prefix[f], n))
		return -2;
	if (!name[n])
		return -1;
	if (name[n] != '_' || name[n + 1] < '0' || name[n + 1] > '9')
		return -2;
	i = strtol(name + n + 1, &end, 10);
	return *end || i > 4096 ? -2 : (int)i;
}

/* Package (and die) of a CPU; its node where sysfs does not say. */
static int cpu_package(const char *root, const struct bwapd_topology *t,
		       int cpu)
{
	char path[128], buf[32];
	int pkg, die = 0;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
	if (bwapd_read_text(root, path, buf, sizeof(buf)))
		return 0x10000 + t->cpu_node[cpu];
	pkg = atoi(buf);
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/die_id", cpu);
	if (!bwapd_read_text(root, path, buf, sizeof(buf)))
		die = atoi(buf);
	return pkg * 256 + die;
}

/* The nodes with CPUs in the package of cpu, ascending; their number. */
static int package_nodes(const char *root, const struct bwapd_topology *t,
			 int cpu, int nodes[BWAPD_MAX_NODES])
{
	int pkg = cpu_package(root, t, cpu), n = 0, i;

	for (i = 0; i < t->nr_nodes; i++)
		if (t->node[i].first_cpu >= 0 &&
		    cpu_package(root, t, t->node[i].first_cpu) == pkg)
			nodes[n++] = i;
	return n;
}

static int map_cpu(struct uncore_pmu *p, int k, const char *topo_root,
		   const struct bwapd_topology *t, const struct uncore_cpu *cpu,
		   char *why, size_t len)
{
	int nodes[BWAPD_MAX_NODES], n, cl, c = p->cpu[k];

	if (c < 0 || c >= BWAPD_MAX_CPUS || t->cpu_node[c] == BWAPD_NO_NODE) {
		snprintf(why, len, "%s: CPU %d of its cpumask is offline",
			 p->name, c);
		return -ENODEV;
	}
	n = package_nodes(topo_root, t, c, nodes);
	if (n <= 1) {
		p->node[k] = t->cpu_node[c];
		return 0;
	}
	cl = uncore_snc_cluster(cpu, p->family, p->index, n);
	if (cl < 0 || cl >= n) {
		snprintf(why, len,
			 "%d nodes share the package of CPU %d (sub-NUMA "
			 "clustering or NPS): which of them %s counts is not "
			 "known for this CPU (family %d model %d)",
			 n, c, p->name, cpu->family, cpu->model);
		return -ENODEV;
	}
	p->node[k] = nodes[cl];
	return 0;
}

static int add_pmu(struct uncore *u, const char *root, const char *topo_root,
		   const char *name, enum uncore_family f, int index,
		   const struct bwapd_topology *t, const struct uncore_cpu *cpu,
		   char *why, size_t len)
{
	char path[512], buf[256];
	struct uncore_pmu *p;
	int k, ret;

	if (u->nr >= UNCORE_MAX_PMUS)
		return -E2BIG;
	p = &u->pmu[u->nr];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%.63s", name);
	p->family = f;
	p->index = index;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name);
	ret = bwapd_read_text(root, path, buf, sizeof(buf));
	if (ret)
		return ret;
	p->type = (uint32_t)strtoul(buf, NULL, 10);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/cpumask",
		 name);
	ret = bwapd_read_text(root, path, buf, sizeof(buf));
	if (!ret)
		ret = bwapd_cpulist_parse(buf, p->cpu, UNCORE_MAX_PKGS);
	if (ret <= 0)
		return ret ? ret : -ENODEV;
	p->nr_cpus = ret;
	ret = uncore_events(root, name, f, cpu, p->ev, UNCORE_MAX_EVENTS,
			    &u->encoding);
	if (ret < 0) {
		snprintf(why, len, "%s: its format/ cannot encode %s", name,
			 u->encoding);
		return -EINVAL;
	}
	if (!ret) {
		snprintf(why, len, "%s has no memory read/write events in sysfs "
			 "and none are documented here for this CPU (%s family "
			 "%d model %d)", name, cpu->amd ? "AMD" : cpu->intel ?
			 "Intel" : "unknown vendor", cpu->family, cpu->model);
		return -ENODATA;
	}
	p->nr_events = ret;
	for (k = 0; k < p->nr_cpus; k++) {
		ret = map_cpu(p, k, topo_root, t, cpu, why, len);
		if (ret)
			return ret;
		u->nodes |= 1u << p->node[k];
	}
	u->nr++;
	return 0;
}

static int by_index(const void *a, const void *b)
{
	const struct uncore_pmu *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* The PMUs of one family, by instance number; -ENOENT if there are none. */
static int add_family(struct uncore *u, const char *root,
		      const char *topo_root, enum uncore_family f,
		      const struct bwapd_topology *t,
		      const struct uncore_cpu *cpu, char *why, size_t len)
{
	char dir[512];
	struct dirent *de;
	int ret = -ENOENT;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/bus/event_source/devices", root);
	d = opendir(dir);
	if (!d) {
		snprintf(why, len, "%s: %s", dir, strerror(errno));
		return -ENODEV;
	}
	while ((de = readdir(d))) {
		int index = family_index(de->d_name, f);

		if (index == -2 || (f == UNCORE_IMC &&
				    family_index(de->d_name, UNCORE_IMC_FREE) != -2))
			continue;
		ret = add_pmu(u, root, topo_root, de->d_name, f, index, t, cpu,
			      why, len);
		if (ret)
			break;
	}
	closedir(d);
	if (!ret)
		qsort(u->pmu, (size_t)u->nr, sizeof(u->pmu[0]), by_index);
	return ret;
}

static int max_package_nodes(const char *topo_root,
			     const struct bwapd_topology *t)
{
	int nodes[BWAPD_MAX_NODES], i, n, most = 1;

	for (i = 0; i < t->nr_nodes; i++)
		if (t->node[i].first_cpu >= 0) {
			n = package_nodes(topo_root, t, t->node[i].first_cpu, nodes);
			if (n > most)
				most = n;
		}
	return most;
}

static int check_nodes(const struct uncore *u, const struct bwapd_topology *t,
		       char *why, size_t len)
{
	int i;

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

int uncore_discover(struct uncore *u, const char *pmu_root,
		    const char *topo_root, const struct bwapd_topology *t,
		    char *why, size_t len)
{
	struct uncore_cpu cpu;
	int f, ret = -ENOENT, snc;
	char first[512] = "";

	memset(u, 0, sizeof(*u));
	uncore_cpu_read(pmu_root, &cpu);
	snc = max_package_nodes(topo_root, t);
	for (f = 0; f < UNCORE_NR_FAMILIES; f++) {
		if (f == UNCORE_IMC_FREE && snc > 1)
			continue;
		u->nr = 0;
		u->nodes = 0;
		ret = add_family(u, pmu_root, topo_root, f, t, &cpu, why, len);
		if (!ret) {
			u->family = f;
			return check_nodes(u, t, why, len);
		}
		if (ret != -ENOENT && !first[0])
			snprintf(first, sizeof(first), "%s", why);
	}
	if (first[0])
		snprintf(why, len, "%s", first);
	else
		snprintf(why, len,
			 "no memory controller PMU in %s/sys/bus/event_source/"
			 "devices (uncore_imc_*, uncore_imc_free_running_*, "
			 "amd_umc_*, amd_df)", pmu_root);
	return -ENODEV;
}

static long perf_open(struct perf_event_attr *a, int cpu)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, -1, 0UL);
}

static int open_error(struct uncore *u, const char *root,
		      const struct uncore_pmu *p, int cpu, int err,
		      char *why, size_t len)
{
	char buf[32];

	if (err == EACCES || err == EPERM) {
		char what[192];

		if (bwapd_read_text(root, "/proc/sys/kernel/perf_event_paranoid",
				    buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "-1");
		snprintf(what, sizeof(what), "perf_event_open(%s): %s: "
			 "system-wide uncore counters", p->name, strerror(err));
		bwapd_perf_why(why, len, what, atoi(buf), BWAPD_CAP(CAP_PERFMON));
		err = EACCES;
	} else if (err == EMFILE || err == ENFILE) {
		snprintf(why, len,
			 "perf_event_open(%s on CPU %d): %s: %d counters need "
			 "as many file descriptors; raise the limit (ulimit -n)",
			 p->name, cpu, strerror(err), u->nr_counters + 1);
	} else {
		snprintf(why, len, "perf_event_open(%s on CPU %d): %s",
			 p->name, cpu, strerror(err));
	}
	uncore_close(u);
	return -err;
}

int uncore_open(struct uncore *u, const char *root, char *why, size_t len)
{
	int i, k, e;

	u->nr_counters = 0;
	for (i = 0; i < u->nr; i++) {
		struct uncore_pmu *p = &u->pmu[i];

		for (k = 0; k < p->nr_cpus; k++)
			for (e = 0; e < p->nr_events; e++) {
				struct uncore_counter *c = &u->c[u->nr_counters];
				struct perf_event_attr a;
				long fd;

				if (u->nr_counters == UNCORE_MAX_COUNTERS)
					return open_error(u, root, p, p->cpu[k],
							  EMFILE, why, len);
				memset(&a, 0, sizeof(a));
				a.size = sizeof(a);
				a.type = p->type;
				a.config = p->ev[e].config[0];
				a.config1 = p->ev[e].config[1];
				a.config2 = p->ev[e].config[2];
				a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
						PERF_FORMAT_TOTAL_TIME_RUNNING;
				fd = perf_open(&a, p->cpu[k]);
				if (fd < 0)
					return open_error(u, root, p, p->cpu[k],
							  errno, why, len);
				c->pmu = i;
				c->ev = e;
				c->cpu = p->cpu[k];
				c->node = p->node[k];
				c->fd = (int)fd;
				u->nr_counters++;
			}
	}
	return 0;
}

double uncore_scale(uint64_t count, uint64_t enabled, uint64_t running)
{
	if (!running)
		return 0;
	if (running >= enabled)
		return (double)count;
	return (double)count * (double)enabled / (double)running;
}

int uncore_read(const struct uncore *u, int node, uint64_t *rd,
		uint64_t *wr)
{
	double sum[2] = { 0, 0 };
	int i;

	for (i = 0; i < u->nr_counters; i++) {
		const struct uncore_counter *c = &u->c[i];
		const struct uncore_event *e = &u->pmu[c->pmu].ev[c->ev];
		uint64_t v[3];

		if (c->node != node)
			continue;
		/* perf fds are not seekable: read(), never pread() */
		if (read(c->fd, v, sizeof(v)) != (ssize_t)sizeof(v))
			return -EIO;
		sum[e->dir == UNCORE_WRITE] +=
			uncore_scale(v[0], v[1], v[2]) * e->scale;
	}
	*rd = (uint64_t)sum[0];
	*wr = (uint64_t)sum[1];
	return 0;
}

void uncore_close(struct uncore *u)
{
	int i;

	for (i = 0; i < u->nr_counters; i++)
		if (u->c[i].fd >= 0)
			close(u->c[i].fd);
	u->nr_counters = 0;
}
