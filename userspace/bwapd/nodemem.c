// SPDX-License-Identifier: GPL-2.0
/*
 * Memory per node (nodemem.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodemem.h"

/* The number after 'key' in a meminfo text; -1 if it is not there. */
static long long meminfo_kb(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

int bwapd_node_memory(const char *root, uint64_t total_kb[BWAPD_MAX_NODES],
		      uint64_t free_kb[BWAPD_MAX_NODES])
{
	char path[96], buf[4096];
	int j, last = -1;

	for (j = 0; j < BWAPD_MAX_NODES; j++) {
		long long t, f;

		total_kb[j] = 0;
		free_kb[j] = 0;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/meminfo", j);
		if (bwapd_read_text(root, path, buf, sizeof(buf)))
			continue;
		t = meminfo_kb(buf, "MemTotal:");
		f = meminfo_kb(buf, "MemFree:");
		if (t < 0 || f < 0)
			continue;
		total_kb[j] = (uint64_t)t;
		free_kb[j] = (uint64_t)f;
		last = j;
	}
	return last < 0 ? -ENOENT : last + 1;
}

/*
 * The pages of one numa_maps line on each node, in kB: its N<node>=<pages>
 * fields times its kernelpagesize_kB (4 where it is not given).
 */
static void add_line(const char *line, int nr_nodes, uint64_t *kb)
{
	const char *p = strstr(line, " kernelpagesize_kB=");
	unsigned long long page = p ? strtoull(p + 19, NULL, 10) : 4;

	for (p = strstr(line, " N"); p; p = strstr(p + 1, " N")) {
		char *end;
		long node = strtol(p + 2, &end, 10);

		if (end == p + 2 || *end != '=' || node < 0 || node >= nr_nodes)
			continue;
		kb[node] += strtoull(end + 1, NULL, 10) * page;
	}
}

int bwapd_process_node_kb(pid_t pid, int nr_nodes, uint64_t *kb, char *why,
			  size_t len)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int j;

	for (j = 0; j < nr_nodes; j++)
		kb[j] = 0;
	snprintf(path, sizeof(path), "/proc/%d/numa_maps", (int)pid);
	f = fopen(path, "r");
	if (!f) {
		int ret = -errno;

		snprintf(why, len, "%s: %s%s", path, strerror(-ret),
			 ret == -EACCES ? " (another user's process)" : "");
		return ret;
	}
	while (getline(&line, &cap, f) > 0)
		add_line(line, nr_nodes, kb);
	free(line);
	fclose(f);
	return 0;
}
