// SPDX-License-Identifier: GPL-2.0
/*
 * wi_pages - fault pages and print on which node each landed, through the
 * weighted interleave calls of libnuma (the names upstream numactl has).
 *
 *   wi_pages task PAGES          under the task policy (set by numactl -w)
 *   wi_pages mask PAGES NODES    numa_set_weighted_interleave_mask(NODES),
 *                                then as "task"; prints the mask read back
 *   wi_pages alloc PAGES NODES   numa_alloc_weighted_interleaved_subset()
 *   wi_pages allocall PAGES      numa_alloc_weighted_interleaved()
 *   wi_pages memory PAGES NODES  mmap() + numa_weighted_interleave_memory()
 *   wi_pages file PATH           map PATH shared, fault every page of it
 *
 * Private memory is kept out of transparent huge pages (MADV_NOHUGEPAGE),
 * which would put 512 pages at a time on one node.
 *
 * Prints "N:COUNT" for every node with memory, in node order, on one line.
 * Exits 1 with a message on any error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "wi_pages: %s: %s\n", what, strerror(errno));
	exit(1);
}

static struct bitmask *nodes_arg(const char *s)
{
	struct bitmask *b = numa_parse_nodestring(s);

	if (!b) {
		fprintf(stderr, "wi_pages: bad node list '%s'\n", s);
		exit(2);
	}
	return b;
}

/* Touch every page, then count the pages per node with move_pages(2). */
static void report(char *mem, long npages, long psz)
{
	int *status = calloc(npages, sizeof(*status));
	void **pages = calloc(npages, sizeof(*pages));
	long *count = calloc(numa_max_node() + 1, sizeof(*count));
	long i;
	int n;

	if (!status || !pages || !count)
		die("calloc");
	for (i = 0; i < npages; i++) {
		mem[i * psz] = 1;
		pages[i] = mem + i * psz;
	}
	if (numa_move_pages(0, npages, pages, NULL, status, 0))
		die("move_pages");
	for (i = 0; i < npages; i++) {
		if (status[i] < 0 || status[i] > numa_max_node()) {
			errno = -status[i];
			die("page status");
		}
		count[status[i]]++;
	}
	for (n = 0; n <= numa_max_node(); n++)
		if (numa_bitmask_isbitset(numa_all_nodes_ptr, n))
			printf("%s%d:%ld", n ? " " : "", n, count[n]);
	printf("\n");
}

int main(int argc, char **argv)
{
	long psz = numa_pagesize(), npages = 0;
	const char *op = argc > 1 ? argv[1] : "";
	struct bitmask *b;
	char *mem = NULL;

	if (numa_available() < 0) {
		fprintf(stderr, "wi_pages: no NUMA\n");
		return 1;
	}
	if (argc > 2 && strcmp(op, "file"))
		npages = atol(argv[2]);
	if (!strcmp(op, "task") && argc == 3) {
		mem = mmap(NULL, npages * psz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else if (!strcmp(op, "mask") && argc == 4) {
		struct bitmask *got;

		b = nodes_arg(argv[3]);
		numa_set_weighted_interleave_mask(b);
		got = numa_get_weighted_interleave_mask();
		if (!numa_bitmask_equal(b, got)) {
			fprintf(stderr, "wi_pages: mask read back differs\n");
			return 1;
		}
		mem = mmap(NULL, npages * psz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else if (!strcmp(op, "alloc") && argc == 4) {
		b = nodes_arg(argv[3]);
		mem = numa_alloc_weighted_interleaved_subset(npages * psz, b);
	} else if (!strcmp(op, "allocall") && argc == 3) {
		mem = numa_alloc_weighted_interleaved(npages * psz);
	} else if (!strcmp(op, "memory") && argc == 4) {
		b = nodes_arg(argv[3]);
		mem = mmap(NULL, npages * psz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem != MAP_FAILED)
			numa_weighted_interleave_memory(mem, npages * psz, b);
	} else if (!strcmp(op, "file") && argc == 3) {
		struct stat st;
		int fd = open(argv[2], O_RDWR);

		if (fd < 0 || fstat(fd, &st))
			die(argv[2]);
		npages = st.st_size / psz;
		mem = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE,
			   MAP_SHARED, fd, 0);
		close(fd);
	} else {
		fprintf(stderr, "usage: wi_pages task|mask|alloc|allocall|memory|file ...\n");
		return 2;
	}
	if (!mem || mem == MAP_FAILED)
		die("allocating");
	if (npages <= 0) {
		fprintf(stderr, "wi_pages: no pages\n");
		return 2;
	}
	if (strcmp(op, "file") && madvise(mem, npages * psz, MADV_NOHUGEPAGE))
		die("madvise");
	report(mem, npages, psz);
	return 0;
}
