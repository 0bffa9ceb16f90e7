/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of bwapd inspect share (wi_inspect.c,
 * wi_signature_runs.c): running bwapd, reading numbers out of its JSON,
 * and the state of NUMA balancing and perf they must not switch.
 */
#ifndef WI_BWAPD_H
#define WI_BWAPD_H

#include <linux/perf_event.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wi_common.h"

#define NB_SYSCTL	"/proc/sys/kernel/numa_balancing"

/*
 * Run bwapd with args; its standard output into out.  Exit status.
 * posix_spawn shares the address space until the exec: a fork would
 * make every page copy-on-write meanwhile, and a worker's write would
 * copy a page to its own node, a move nobody made.
 */
static inline int bwapd(char *out, size_t len, const char *const *args)
{
	posix_spawn_file_actions_t fa;
	int fd[2], st, ret;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(fd))
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	ret = posix_spawnp(&pid, "bwapd", &fa, NULL, (char *const *)args,
			   environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (ret) {
		close(fd[0]);
		return 127;
	}
	while (n + 1 < len && (r = read(fd[0], out + n, len - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fd[0]);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The number after "key": in the JSON text, or NAN. */
static inline double jnum(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	return p ? strtod(p + strlen(pat), NULL) : NAN;
}

/* The array after "key": [ into v[]; how many. */
static inline int jarray(const char *json, const char *key, double *v, int max)
{
	char pat[64], *end;
	const char *p;
	int n = 0;

	snprintf(pat, sizeof(pat), "\"%s\": [", key);
	p = strstr(json, pat);
	if (!p)
		return 0;
	p += strlen(pat);
	while (n < max) {
		v[n] = strtod(p, &end);
		if (end == p)
			break;
		n++;
		p = end + strspn(end, " ,");
	}
	return n;
}

static inline bool have_bwapd(void)
{
	const char *const args[] = { "bwapd", "--version", NULL };
	char out[128];

	return bwapd(out, sizeof(out), args) == 0;
}

/* kernel.numa_balancing's first bit: 0 also when the kernel has none */
static inline int numa_balancing_on(void)
{
	return !access(NB_SYSCTL, F_OK) && (wi_read_long(NB_SYSCTL) & 1);
}

/* A page-fault counter on this thread, left open: see the top. */
static inline int hold_perf_keys(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
	};

	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}


#endif /* WI_BWAPD_H */
