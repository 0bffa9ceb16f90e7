// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers for the MPOL_WEIGHTED_INTERLEAVE selftests.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "wi_common.h"

/* ------------------------------------------------------------------ */
/* Node masks                                                          */

void wi_mask_zero(struct wi_mask *m)
{
	memset(m, 0, sizeof(*m));
}

void wi_mask_set(struct wi_mask *m, int node)
{
	if (node < 0 || node >= WI_MAX_NODES)
		return;
	m->bits[node / WI_BITS_PER_LONG] |= 1UL << (node % WI_BITS_PER_LONG);
}

bool wi_mask_test(const struct wi_mask *m, int node)
{
	if (node < 0 || node >= WI_MAX_NODES)
		return false;
	return m->bits[node / WI_BITS_PER_LONG] &
		(1UL << (node % WI_BITS_PER_LONG));
}

bool wi_mask_equal(const struct wi_mask *a, const struct wi_mask *b)
{
	return !memcmp(a, b, sizeof(*a));
}

int wi_mask_weight(const struct wi_mask *m)
{
	int i, n = 0;

	for (i = 0; i < WI_MASK_LONGS; i++)
		n += __builtin_popcountl(m->bits[i]);
	return n;
}

void wi_mask_from_nodes(struct wi_mask *m, const int *nodes, int nr)
{
	int i;

	wi_mask_zero(m);
	for (i = 0; i < nr; i++)
		wi_mask_set(m, nodes[i]);
}

int wi_mask_to_nodes(const struct wi_mask *m, int *nodes, int max)
{
	int i, n = 0;

	for (i = 0; i < WI_MAX_NODES && n < max; i++)
		if (wi_mask_test(m, i))
			nodes[n++] = i;
	return n;
}

char *wi_mask_str(const struct wi_mask *m, char *buf, size_t len)
{
	size_t off = 0;
	int i = 0;

	buf[0] = '\0';
	while (i < WI_MAX_NODES) {
		int start, end;

		if (!wi_mask_test(m, i)) {
			i++;
			continue;
		}
		start = i;
		while (i + 1 < WI_MAX_NODES && wi_mask_test(m, i + 1))
			i++;
		end = i++;
		if (start == end)
			off += snprintf(buf + off, off < len ? len - off : 0,
					"%s%d", off ? "," : "", start);
		else
			off += snprintf(buf + off, off < len ? len - off : 0,
					"%s%d-%d", off ? "," : "", start, end);
	}
	return buf;
}

char *wi_nodes_str(const int *nodes, int nr, char *buf, size_t len)
{
	struct wi_mask m;

	wi_mask_from_nodes(&m, nodes, nr);
	return wi_mask_str(&m, buf, len);
}

/* ------------------------------------------------------------------ */
/* System calls                                                        */

long wi_set_mempolicy(int mode, const struct wi_mask *m)
{
	return syscall(SYS_set_mempolicy, mode, m ? m->bits : NULL,
		       m ? (unsigned long)WI_MAXNODE : 0UL);
}

long wi_get_mempolicy(int *mode, struct wi_mask *m, void *addr,
		      unsigned long flags)
{
	if (m)
		wi_mask_zero(m);
	return syscall(SYS_get_mempolicy, mode, m ? m->bits : NULL,
		       m ? (unsigned long)WI_MAXNODE : 0UL, addr, flags);
}

long wi_mbind(void *addr, size_t len, int mode, const struct wi_mask *m,
	      unsigned int flags)
{
	return syscall(SYS_mbind, addr, len, mode, m ? m->bits : NULL,
		       m ? (unsigned long)WI_MAXNODE : 0UL, flags);
}

/*
 * Pages asked about per move_pages(2) call.  A 32-bit program asks at most
 * 16 at a time: the kernel's compat path of move_pages(2) without nodes
 * (do_pages_stat()) steps through the array of 32-bit pointers 16 native
 * pointers at a time, so from the 17th page on it reads the wrong entries
 * (6.1 and 6.12 alike).
 */
#if __SIZEOF_POINTER__ == 4
#define WI_MOVE_CHUNK	16
#else
#define WI_MOVE_CHUNK	512
#endif

int wi_page_nodes(const void *base, size_t npages, size_t stride, int *nodes)
{
	return wi_pid_page_nodes(0, base, npages, stride, nodes);
}

int wi_pid_page_nodes(pid_t pid, const void *base, size_t npages,
		      size_t stride, int *nodes)
{
	void *pages[WI_MOVE_CHUNK];
	size_t done = 0;

	while (done < npages) {
		size_t i, n = npages - done;

		if (n > WI_MOVE_CHUNK)
			n = WI_MOVE_CHUNK;
		for (i = 0; i < n; i++)
			pages[i] = (char *)base + (done + i) * stride;
		if (syscall(SYS_move_pages, pid, n, pages, NULL, nodes + done,
			    0))
			return -errno;
		done += n;
	}
	return 0;
}

void wi_fault_pages(void *base, size_t npages, size_t stride)
{
	volatile char *p = base;
	size_t i;

	for (i = 0; i < npages; i++)
		p[i * stride] = (char)(i + 1);
}

void wi_read_pages(const void *base, size_t npages, size_t stride)
{
	const volatile char *p = base;
	size_t i;

	for (i = 0; i < npages; i++)
		(void)p[i * stride];
}

void *wi_mmap_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* Base-page tests must not be turned into THPs behind our back. */
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

void *wi_mmap_aligned(size_t len, size_t align, void **raw, size_t *rawlen)
{
	uintptr_t start;
	void *p;

	*rawlen = len + align;
	p = mmap(NULL, *rawlen, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	*raw = p;
	start = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	return (void *)start;
}

void wi_count_nodes(const int *nodes, size_t n, long *count)
{
	size_t i;

	memset(count, 0, sizeof(long) * WI_MAX_NODES);
	for (i = 0; i < n; i++)
		if (nodes[i] >= 0 && nodes[i] < WI_MAX_NODES)
			count[nodes[i]]++;
}

/* ------------------------------------------------------------------ */
/* Interleave arithmetic                                               */

unsigned int wi_weight_sum(const unsigned int *weights, int nr)
{
	unsigned int sum = 0;
	int i;

	for (i = 0; i < nr; i++)
		sum += weights[i];
	return sum;
}

int wi_weighted_node(const int *nodes, const unsigned int *weights, int nr,
		     unsigned long ilx)
{
	unsigned long target;
	int i;

	if (nr <= 0)
		return -1;
	target = ilx % wi_weight_sum(weights, nr);
	for (i = 0; i < nr; i++) {
		if (target < weights[i])
			return nodes[i];
		target -= weights[i];
	}
	return -1;
}

int wi_interleave_node(const int *nodes, int nr, unsigned long ilx)
{
	if (nr <= 0)
		return -1;
	return nodes[ilx % nr];
}

long wi_expected_share(const unsigned int *weights, int nr, int i, long n)
{
	return n * (long)weights[i] / (long)wi_weight_sum(weights, nr);
}

/* ------------------------------------------------------------------ */
/* Topology                                                            */

static int parse_nodelist(const char *s, int *nodes, int max)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a, b;

		a = strtol(s, &end, 10);
		if (end == s)
			return -EINVAL;
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			b = strtol(s, &end, 10);
			if (end == s)
				return -EINVAL;
			s = end;
		}
		for (; a <= b && n < max; a++)
			nodes[n++] = (int)a;
		if (*s == ',')
			s++;
	}
	return n;
}

int wi_read_nodelist(const char *path, int *nodes, int max)
{
	char buf[4096];
	long ret;

	ret = wi_read_file(path, buf, sizeof(buf));
	if (ret < 0)
		return (int)ret;
	return parse_nodelist(buf, nodes, max);
}

int wi_memory_nodes(int *nodes, int max)
{
	return wi_read_nodelist("/sys/devices/system/node/has_memory",
				nodes, max);
}

int wi_cpu_nodes(int *nodes, int max)
{
	return wi_read_nodelist("/sys/devices/system/node/has_cpu", nodes, max);
}

int wi_possible_nodes(int *nodes, int max)
{
	return wi_read_nodelist("/sys/devices/system/node/possible",
				nodes, max);
}

bool wi_node_has_cpu(int node)
{
	int nodes[WI_MAX_NODES];
	int i, n = wi_cpu_nodes(nodes, WI_MAX_NODES);

	for (i = 0; i < n; i++)
		if (nodes[i] == node)
			return true;
	return false;
}

int wi_node_first_cpu(int node)
{
	char path[128];
	int cpus[1];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	if (wi_read_nodelist(path, cpus, 1) < 1)
		return -1;
	return cpus[0];
}

int wi_first_cpuless_node(void)
{
	int nodes[WI_MAX_NODES];
	int i, n = wi_memory_nodes(nodes, WI_MAX_NODES);

	for (i = 0; i < n; i++)
		if (!wi_node_has_cpu(nodes[i]))
			return nodes[i];
	return -1;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int wi_pick_nodes(int want, int *out)
{
	int mem[WI_MAX_NODES];
	int i, n, cpuless, picked = 0;

	n = wi_memory_nodes(mem, WI_MAX_NODES);
	if (n <= 0)
		return 0;
	if (n <= want) {
		memcpy(out, mem, sizeof(int) * n);
		return n;
	}
	cpuless = wi_first_cpuless_node();
	if (cpuless >= 0)
		out[picked++] = cpuless;
	for (i = 0; i < n && picked < want; i++)
		if (mem[i] != cpuless)
			out[picked++] = mem[i];
	qsort(out, picked, sizeof(int), cmp_int);
	return picked;
}

bool wi_node_has_normal_memory(int node)
{
	char line[256];
	bool in_node = false, in_zone = false;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return true;
	while (fgets(line, sizeof(line), f)) {
		int nid;
		char zone[32];

		if (sscanf(line, "Node %d, zone %31s", &nid, zone) == 2) {
			in_node = nid == node;
			in_zone = in_node && strcmp(zone, "Movable") &&
				  strcmp(zone, "Device");
			continue;
		}
		if (in_zone) {
			long managed;

			if (sscanf(line, " managed %ld", &managed) == 1 &&
			    managed > 0) {
				fclose(f);
				return true;
			}
		}
	}
	fclose(f);
	return false;
}

/* ------------------------------------------------------------------ */
/* Weights                                                             */

bool wi_sysfs_present(void)
{
	struct stat st;

	return !stat(WI_SYSFS_DIR, &st) && S_ISDIR(st.st_mode);
}

void wi_row_path(int initiator, int node, char *buf, size_t len)
{
	if (initiator < 0)
		snprintf(buf, len, WI_SYSFS_DIR "/node%d", node);
	else
		snprintf(buf, len, WI_SYSFS_DIR "/initiator%d/node%d",
			 initiator, node);
}

void wi_weight_path(int node, char *buf, size_t len)
{
	wi_row_path(-1, node, buf, len);
}

int wi_read_row(int initiator, int node)
{
	char path[128];

	wi_row_path(initiator, node, path, sizeof(path));
	return (int)wi_read_long(path);
}

int wi_set_row(int initiator, int node, unsigned int weight)
{
	char path[128], buf[16];

	wi_row_path(initiator, node, path, sizeof(path));
	snprintf(buf, sizeof(buf), "%u", weight);
	return wi_write_file(path, buf);
}

/* A true/false switch of the sysfs directory: 1, 0, or -1 if absent. */
static int read_switch(const char *name)
{
	char path[128], buf[16];

	snprintf(path, sizeof(path), WI_SYSFS_DIR "/%s", name);
	if (wi_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return !strcmp(buf, "true\n");
}

int wi_per_initiator(void)
{
	return read_switch("per_initiator");
}

int wi_set_per_initiator(bool on)
{
	return wi_write_file(WI_SYSFS_DIR "/per_initiator",
			     on ? "true" : "false");
}

/* Is name prefix followed by a number ("node3", "initiator0")? */
static bool is_numbered(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	const char *p;

	if (strncmp(name, prefix, len) || !name[len])
		return false;
	for (p = name + len; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

void *wi_memfd_weighted(size_t len, const int *nodes, int nr, int *fd,
			unsigned long *ino)
{
	struct wi_mask mask;
	struct stat st;
	void *map;

	*fd = memfd_create("wi_memfd", 0);
	if (*fd < 0)
		return NULL;
	if (ftruncate(*fd, len) || fstat(*fd, &st))
		goto fail;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (map == MAP_FAILED)
		goto fail;
	wi_mask_from_nodes(&mask, nodes, nr);
	if (wi_mbind(map, len, MPOL_WEIGHTED_INTERLEAVE, &mask, 0)) {
		munmap(map, len);
		goto fail;
	}
	*ino = st.st_ino;
	return map;
fail:
	close(*fd);
	*fd = -1;
	return NULL;
}

int wi_row_initiators(int *nodes, int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(WI_SYSFS_DIR);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max)
		if (is_numbered(de->d_name, "initiator"))
			nodes[n++] = atoi(de->d_name + strlen("initiator"));
	closedir(d);
	qsort(nodes, n, sizeof(*nodes), cmp_int);
	return n;
}

int wi_read_weight(int node)
{
	char path[128];

	wi_weight_path(node, path, sizeof(path));
	return (int)wi_read_long(path);
}

long wi_write_weight_raw(int node, const void *buf, size_t len)
{
	char path[128];
	long ret;
	int fd;

	wi_weight_path(node, path, sizeof(path));
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len);
	if (ret < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int wi_set_weight(int node, unsigned int weight)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", weight);
	long ret = wi_write_weight_raw(node, buf, len);

	if (ret < 0)
		return (int)ret;
	return ret == len ? 0 : -EIO;
}

int wi_set_weights(const int *nodes, const unsigned int *weights, int nr)
{
	int i, ret;

	for (i = 0; i < nr; i++) {
		ret = wi_set_weight(nodes[i], weights[i]);
		if (ret)
			return ret;
	}
	return 0;
}

#define WI_MAX_EXTRA 8
static struct {
	int nr;
	char name[WI_MAX_EXTRA][256];
	char value[WI_MAX_EXTRA][64];
} wi_saved;

int wi_auto_mode(void)
{
	return read_switch("auto");
}

/* min(read, write) bandwidth from CPUs (access class 1), 0 if unknown */
long wi_node_bandwidth(int node)
{
	char path[128];
	long r, w;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d/access1/initiators/read_bandwidth",
		 node);
	r = wi_read_long(path);
	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d/access1/initiators/write_bandwidth",
		 node);
	w = wi_read_long(path);
	if (r <= 0 || w <= 0)
		return 0;
	return r < w ? r : w;
}

static unsigned int gcd_u(unsigned int a, unsigned int b)
{
	while (b) {
		unsigned int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

void wi_weights_from_bw(const long *bw, unsigned int *w)
{
	int mem[WI_MAX_NODES], n, i;
	unsigned int div = 0;
	long total = 0;

	for (i = 0; i < WI_MAX_NODES; i++)
		w[i] = 1;
	n = wi_memory_nodes(mem, WI_MAX_NODES);
	for (i = 0; i < n; i++)
		total += bw[mem[i]];
	for (i = 0; i < n && total; i++) {
		long x = bw[mem[i]] * WI_AUTO_SCALE / total;

		if (bw[mem[i]])
			w[mem[i]] = x < 1 ? 1 : x;
		div = gcd_u(div, w[mem[i]]);
	}
	for (i = 0; i < n && div; i++)
		w[mem[i]] /= div;
}

int wi_auto_weights(unsigned int *w)
{
	static long bw[WI_MAX_NODES];
	int mem[WI_MAX_NODES], n, i;
	long total = 0;

	memset(bw, 0, sizeof(bw));
	n = wi_memory_nodes(mem, WI_MAX_NODES);
	if (n <= 0)
		return -1;
	for (i = 0; i < n; i++) {
		bw[mem[i]] = wi_node_bandwidth(mem[i]);
		total += bw[mem[i]];
	}
	if (!total)
		return -1;
	wi_weights_from_bw(bw, w);
	return 0;
}

void wi_state_save(void)
{
	struct dirent *de;
	DIR *d;

	wi_saved.nr = 0;
	d = opendir(WI_SYSFS_DIR);
	if (!d)
		return;
	while ((de = readdir(d)) && wi_saved.nr < WI_MAX_EXTRA) {
		char path[PATH_MAX];
		int i = wi_saved.nr;

		if (de->d_name[0] == '.' || is_numbered(de->d_name, "node"))
			continue;
		snprintf(path, sizeof(path), WI_SYSFS_DIR "/%s", de->d_name);
		if (wi_read_file(path, wi_saved.value[i],
				 sizeof(wi_saved.value[i])) <= 0)
			continue;
		snprintf(wi_saved.name[i], sizeof(wi_saved.name[i]), "%s",
			 de->d_name);
		wi_saved.nr++;
	}
	closedir(d);
}

int wi_state_restore(void)
{
	int ini[WI_MAX_NODES], mem[WI_MAX_NODES], n, m, i, j, err = 0;
	struct dirent *de;
	DIR *d;

	d = opendir(WI_SYSFS_DIR);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int node;

		if (!is_numbered(de->d_name, "node"))
			continue;
		node = atoi(de->d_name + 4);
		if (wi_read_weight(node) != 1 && wi_set_weight(node, 1))
			err = -EIO;
	}
	closedir(d);
	/* every row entry back to following the default row */
	n = wi_row_initiators(ini, WI_MAX_NODES);
	m = wi_memory_nodes(mem, WI_MAX_NODES);
	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++)
			if (wi_set_row(ini[i], mem[j], 0))
				err = -EIO;
	for (i = 0; i < wi_saved.nr; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), WI_SYSFS_DIR "/%s",
			 wi_saved.name[i]);
		wi_write_file(path, wi_saved.value[i]);
	}
	return err;
}

static pid_t wi_exit_pid;

static void wi_exit_restore(void)
{
	if (getpid() == wi_exit_pid)
		wi_state_restore();
}

void wi_restore_at_exit(void)
{
	if (geteuid() || !wi_sysfs_present())
		return;
	wi_state_save();
	wi_exit_pid = getpid();
	atexit(wi_exit_restore);
}

/* ------------------------------------------------------------------ */
/* Kernel identification                                               */

bool wi_is_project_kernel(void)
{
	struct utsname u;

	if (uname(&u))
		return false;
	return strstr(u.release, "-wi") != NULL;
}

void wi_kernel_version(int *major, int *minor)
{
	struct utsname u;

	*major = *minor = 0;
	if (!uname(&u))
		sscanf(u.release, "%d.%d", major, minor);
}

bool wi_upstream_at_least(int major, int minor)
{
	int ma, mi;

	if (wi_is_project_kernel())
		return false;
	wi_kernel_version(&ma, &mi);
	return ma > major || (ma == major && mi >= minor);
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

long wi_read_file(const char *path, char *buf, size_t len)
{
	long ret, off = 0;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((size_t)off < len - 1) {
		ret = read(fd, buf + off, len - 1 - off);
		if (ret < 0) {
			ret = -errno;
			close(fd);
			return ret;
		}
		if (!ret)
			break;
		off += ret;
	}
	buf[off] = '\0';
	close(fd);
	return off;
}

int wi_write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	long ret;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, s, len);
	if (ret < 0)
		ret = -errno;
	close(fd);
	if (ret < 0)
		return (int)ret;
	return (size_t)ret == len ? 0 : -EIO;
}

long wi_read_long(const char *path)
{
	char buf[64], *end;
	long ret, val;

	ret = wi_read_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	errno = 0;
	val = strtol(buf, &end, 0);
	if (end == buf || errno)
		return -EINVAL;
	return val;
}

int wi_write_long(const char *path, long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", val);
	return wi_write_file(path, buf);
}

long wi_numastat(int node, const char *field)
{
	char path[128], line[128];
	size_t flen = strlen(field);
	long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/numastat",
		 node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, flen) && line[flen] == ' ') {
			val = strtol(line + flen, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

int wi_numa_maps_line(const void *addr, char *buf, size_t len)
{
	unsigned long best = 0, a = (unsigned long)addr;
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/numa_maps", "r");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		unsigned long start = strtoul(line, NULL, 16);

		if (start <= a && start >= best) {
			best = start;
			snprintf(buf, len, "%s", line);
			found = true;
		}
	}
	free(line);
	fclose(f);
	if (!found)
		return -ENOENT;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

long wi_numa_maps_count(const char *line, int node)
{
	char key[24];
	const char *p = line;
	size_t klen;

	klen = snprintf(key, sizeof(key), " N%d=", node);
	p = strstr(p, key);
	return p ? strtol(p + klen, NULL, 10) : 0;
}

int wi_vma_lookup(const void *addr, unsigned long *start, unsigned long *end,
		  unsigned long long *offset)
{
	unsigned long a = (unsigned long)addr;
	char line[512];
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		unsigned long long off;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s %llx", &s, &e, perms, &off) != 4)
			continue;
		if (a >= s && a < e) {
			*start = s;
			*end = e;
			*offset = off;
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return -ENOENT;
}

long wi_smaps_field_kb(const void *addr, const char *field)
{
	unsigned long a = (unsigned long)addr;
	size_t flen = strlen(field);
	bool in_vma = false;
	char line[512];
	long val = -1;
	FILE *f;

	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		/* Field lines ("AnonHugePages:") never parse as a range. */
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2) {
			in_vma = a >= s && a < e;
			continue;
		}
		if (in_vma && !strncmp(line, field, flen)) {
			val = strtol(line + flen, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

bool wi_thp_enabled(void)
{
	char buf[128];

	if (wi_read_file("/sys/kernel/mm/transparent_hugepage/enabled",
			 buf, sizeof(buf)) <= 0)
		return false;
	return !strstr(buf, "[never]");
}

/* ------------------------------------------------------------------ */
/* hugetlb                                                             */

static void hugetlb_node_path(int node, char *buf, size_t len)
{
	snprintf(buf, len,
		 "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages",
		 node);
}

int wi_hugetlb_reserve(struct wi_hugetlb *h, const int *nodes,
		       const long *extra, int nr)
{
	char path[256];
	int i;

	h->nr = 0;
	for (i = 0; i < nr; i++) {
		long cur;

		hugetlb_node_path(nodes[i], path, sizeof(path));
		cur = wi_read_long(path);
		if (cur < 0) {
			wi_hugetlb_restore(h);
			return -ENOENT;
		}
		h->node[h->nr] = nodes[i];
		h->orig[h->nr] = cur;
		h->nr++;
		if (wi_write_long(path, cur + extra[i]) ||
		    wi_read_long(path) < cur + extra[i]) {
			wi_hugetlb_restore(h);
			return -ENOMEM;
		}
	}
	return 0;
}

void wi_hugetlb_restore(struct wi_hugetlb *h)
{
	char path[256];
	int i;

	for (i = 0; i < h->nr; i++) {
		hugetlb_node_path(h->node[i], path, sizeof(path));
		wi_write_long(path, h->orig[i]);
	}
	h->nr = 0;
}

/* ------------------------------------------------------------------ */
/* Mounts, CPUs                                                        */

int wi_mount_scratch(char *dir, size_t len, const char *fstype,
		     const char *data)
{
	int err;

	snprintf(dir, len, "/tmp/wi_%s.XXXXXX", fstype);
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -errno;
	}
	if (mount(fstype, dir, fstype, 0, data)) {
		err = -errno;
		rmdir(dir);
		dir[0] = '\0';
		return err;
	}
	return 0;
}

void wi_umount_scratch(const char *dir)
{
	if (!dir[0])
		return;
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

int wi_file_write_page(int fd, size_t idx)
{
	static __thread char page[WI_PAGE_SIZE];
	ssize_t ret;

	memset(page, (int)(idx & 0xff) | 1, sizeof(page));
	ret = pwrite(fd, page, sizeof(page), (off_t)(idx * WI_PAGE_SIZE));
	if (ret < 0)
		return -errno;
	return ret == (ssize_t)sizeof(page) ? 0 : -EIO;
}

int wi_file_page_nodes(int fd, size_t npages, int *nodes)
{
	size_t len = npages * WI_PAGE_SIZE;
	void *p;
	int ret;

	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	wi_read_pages(p, npages, WI_PAGE_SIZE);
	ret = wi_page_nodes(p, npages, WI_PAGE_SIZE, nodes);
	munmap(p, len);
	return ret;
}

int wi_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int wi_current_node(void)
{
	unsigned int cpu, node;

	if (syscall(SYS_getcpu, &cpu, &node, NULL))
		return -errno;
	return (int)node;
}
