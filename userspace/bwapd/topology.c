// SPDX-License-Identifier: GPL-2.0
/*
 * The machine as sysfs shows it: nodes, their CPUs and memory, SLIT
 * distances, HMAT access class 0 (best initiators, bandwidth, latency),
 * and which nodes have a weighted-interleave weight.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topology.h"

uint64_t bwapd_fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	if (!h)
		h = 0xcbf29ce484222325ULL;
	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

int bwapd_mkdirs(const char *dir)
{
	char path[4096], *p;

	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

int bwapd_read_text(const char *root, const char *path, char *buf,
		    size_t len)
{
	char full[4096];
	FILE *f;
	size_t n;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[n] = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/* A cpulist/nodelist "0-3,8,10-11" into a callback per member. */
static int list_parse(const char *s, int max, void (*add)(void *, int),
		      void *arg)
{
	const char *p = s;

	while (*p) {
		char *end;
		long a, b;

		a = strtol(p, &end, 10);
		if (end == p || a < 0 || a >= max)
			return -EINVAL;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= max)
				return -EINVAL;
			p = end;
		}
		for (; a <= b; a++)
			add(arg, (int)a);
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

static void add_bit(void *arg, int i)
{
	*(uint32_t *)arg |= 1u << i;
}

int bwapd_nodelist_parse(const char *s, uint32_t *mask)
{
	*mask = 0;
	if (!*s)
		return -EINVAL;
	return list_parse(s, BWAPD_MAX_NODES, add_bit, mask);
}

struct cpu_list {
	int *cpu, max, nr;
};

static void add_list(void *arg, int cpu)
{
	struct cpu_list *l = arg;

	if (l->nr < l->max)
		l->cpu[l->nr] = cpu;
	l->nr++;
}

int bwapd_cpulist_parse(const char *s, int *cpu, int max)
{
	struct cpu_list l = { cpu, max, 0 };
	int ret = list_parse(s, BWAPD_MAX_CPUS, add_list, &l);

	if (ret)
		return ret;
	return l.nr > max ? -E2BIG : l.nr;
}

char *bwapd_nodelist_format(uint32_t mask, char *buf, size_t len)
{
	size_t off = 0;
	int i = 0;

	buf[0] = 0;
	while (i < BWAPD_MAX_NODES) {
		int j = i;

		if (!(mask & (1u << i))) {
			i++;
			continue;
		}
		while (j + 1 < BWAPD_MAX_NODES && (mask & (1u << (j + 1))))
			j++;
		if (j == i)
			off += snprintf(buf + off, len - off, "%s%d",
					off ? "," : "", i);
		else
			off += snprintf(buf + off, len - off, "%s%d-%d",
					off ? "," : "", i, j);
		if (off >= len)
			break;
		i = j + 1;
	}
	return buf;
}

char *bwapd_numactl_args(const uint8_t *w, int nr, char *buf, size_t len)
{
	uint8_t in[BWAPD_MAX_NODES];
	char nodes[64], list[4 * BWAPD_MAX_NODES];
	uint32_t mask = 0;
	int i, n = 0;

	for (i = 0; i < nr && i < BWAPD_MAX_NODES; i++)
		if (w[i]) {
			mask |= 1u << i;
			in[n++] = w[i];
		}
	snprintf(buf, len, "-w %s --weights=%s",
		 bwapd_nodelist_format(mask, nodes, sizeof(nodes)),
		 bwm_weights_format(in, n, list, sizeof(list)));
	return buf;
}

struct cpu_add {
	struct bwapd_topology *t;
	int node;
};

static void add_cpu(void *arg, int cpu)
{
	struct cpu_add *c = arg;
	struct bwapd_node *n = &c->t->node[c->node];

	c->t->cpu_node[cpu] = (uint16_t)c->node;
	if (cpu + 1 > c->t->nr_cpus)
		c->t->nr_cpus = cpu + 1;
	if (n->first_cpu < 0)
		n->first_cpu = cpu;
	n->nr_cpus++;
}

static int read_uint(const char *root, const char *path, unsigned int *v)
{
	char buf[64], *end;
	unsigned long x;
	int ret = bwapd_read_text(root, path, buf, sizeof(buf));

	if (ret)
		return ret;
	x = strtoul(buf, &end, 10);
	if (end == buf || *end)
		return -EINVAL;
	*v = (unsigned int)x;
	return 0;
}

static int read_node(const char *root, struct bwapd_topology *t, int i,
		     char *why, size_t len)
{
	struct bwapd_node *n = &t->node[i];
	struct cpu_add ca = { t, i };
	char path[256], buf[4096], *p, *end;
	unsigned long long kb;
	int j, ret;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 i);
	ret = bwapd_read_text(root, path, buf, sizeof(buf));
	if (!ret && buf[0])
		ret = list_parse(buf, BWAPD_MAX_CPUS, add_cpu, &ca);
	if (ret) {
		snprintf(why, len, "%s%s: %s", root, path, strerror(-ret));
		return ret;
	}
	if (n->nr_cpus)
		t->cpu_nodes |= 1u << i;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo",
		 i);
	ret = bwapd_read_text(root, path, buf, sizeof(buf));
	p = ret ? NULL : strstr(buf, "MemTotal:");
	if (!p) {
		snprintf(why, len, "%s%s: no MemTotal", root, path);
		return ret ? ret : -EINVAL;
	}
	kb = strtoull(p + 9, NULL, 10);
	n->mem_bytes = kb * 1024;
	if (kb)
		t->mem_nodes |= 1u << i;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance",
		 i);
	ret = bwapd_read_text(root, path, buf, sizeof(buf));
	if (ret) {
		snprintf(why, len, "%s%s: %s", root, path, strerror(-ret));
		return ret;
	}
	p = buf;
	for (j = 0; j < t->nr_nodes; j++) {
		long d = strtol(p, &end, 10);

		if (end == p || d < 1 || d > 255) {
			snprintf(why, len, "%s%s: %d distances expected", root,
				 path, t->nr_nodes);
			return -EINVAL;
		}
		n->distance[j] = (int)d;
		p = end;
	}

	/* HMAT access class 0: optional */
	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d/access0/initiators/read_bandwidth",
		 i);
	if (!read_uint(root, path, &n->read_bw)) {
		static const char *const attr[] = {
			"write_bandwidth", "read_latency", "write_latency"
		};
		unsigned int *val[] = { &n->write_bw, &n->read_lat,
					&n->write_lat };

		for (j = 0; j < 3; j++) {
			snprintf(path, sizeof(path),
				 "/sys/devices/system/node/node%d/access0/initiators/%s",
				 i, attr[j]);
			read_uint(root, path, val[j]);
		}
		for (j = 0; j < t->nr_nodes; j++) {
			snprintf(path, sizeof(path),
				 "/sys/devices/system/node/node%d/access0/initiators/node%d",
				 i, j);
			snprintf(buf, sizeof(buf), "%s%s", root, path);
			if (!access(buf, F_OK))
				n->initiators |= 1u << j;
		}
		if (!n->read_bw)
			n->initiators = 0;
	}

	snprintf(path, sizeof(path), "%s%s/node%d", root, BWAPD_WEIGHTS_DIR,
		 i);
	n->has_weight = !access(path, F_OK);
	return 0;
}

int bwapd_topology_read(const char *root, struct bwapd_topology *t,
			char *why, size_t len)
{
	char buf[4096], *p;
	int i, ret;

	if (!strcmp(root, "/"))
		root = "";
	memset(t, 0, sizeof(*t));
	ret = bwapd_read_text(root, "/sys/devices/system/node/online", buf,
			      sizeof(buf));
	if (!ret)
		ret = bwapd_nodelist_parse(buf, &t->online);
	if (ret) {
		snprintf(why, len, "%s/sys/devices/system/node/online: %s",
			 root, ret == -ENOENT ? "missing (no NUMA support?)" :
			 "unreadable or more than 16 nodes");
		return ret;
	}
	for (i = 0; i < BWAPD_MAX_CPUS; i++)
		t->cpu_node[i] = BWAPD_NO_NODE;
	for (i = 0; i < BWAPD_MAX_NODES; i++) {
		t->node[i].first_cpu = -1;
		if (t->online & (1u << i))
			t->nr_nodes = i + 1;
	}
	if (t->online != (1u << t->nr_nodes) - 1) {
		snprintf(why, len, "nodes %s online: node ids with holes are not supported",
			 buf);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < t->nr_nodes; i++) {
		ret = read_node(root, t, i, why, len);
		if (ret)
			return ret;
	}
	snprintf(t->cpu_model, sizeof(t->cpu_model), "unknown");
	if (!bwapd_read_text(root, "/proc/cpuinfo", buf, sizeof(buf)) &&
	    (p = strstr(buf, "model name"))) {
		char *colon = strchr(p, ':'), *nl;

		if (colon) {
			colon += 1 + (colon[1] == ' ');
			nl = strchr(colon, '\n');
			if (nl)
				*nl = 0;
			snprintf(t->cpu_model, sizeof(t->cpu_model), "%s",
				 colon);
		}
	}
	return 0;
}

uint64_t bwapd_distance_hash(const struct bwapd_topology *t)
{
	uint64_t h = 0;
	int i;

	h = bwapd_fnv1a(h, &t->nr_nodes, sizeof(t->nr_nodes));
	for (i = 0; i < t->nr_nodes; i++)
		h = bwapd_fnv1a(h, t->node[i].distance,
				sizeof(int) * (size_t)t->nr_nodes);
	return h;
}

/*
 * Memory sizes enter rounded to 1 GiB steps (at least one step for a node
 * with memory): firmware and crash kernels move MemTotal by megabytes
 * between boots, a stale file means a different machine.
 */
uint64_t bwapd_topology_id(const struct bwapd_topology *t)
{
	uint64_t h = bwapd_distance_hash(t);
	int i;

	for (i = 0; i < t->nr_nodes; i++) {
		uint64_t gib = (t->node[i].mem_bytes + (1ULL << 29)) >> 30;
		int cpus = t->node[i].nr_cpus;

		if (!gib && t->node[i].mem_bytes)
			gib = 1;
		h = bwapd_fnv1a(h, &gib, sizeof(gib));
		h = bwapd_fnv1a(h, &cpus, sizeof(cpus));
	}
	return bwapd_fnv1a(h, t->cpu_model, strlen(t->cpu_model));
}
