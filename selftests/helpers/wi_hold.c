// SPDX-License-Identifier: GPL-2.0
/*
 * wi_hold [--stable] [--seconds S] [--grow G] MIB: map MIB MiB of private
 * anonymous memory, write every page (so that the task's memory policy
 * places it), say "ready" on stdout (and, with --stable, tell bwapd with
 * bwapd_stable()), then keep the pages until killed, or with --seconds
 * for S seconds or until SIGUSR1, when it exits with status 0: a test ends
 * it once what it waits for has happened, not after a guessed time.
 * With --grow, each SIGUSR2 maps and writes G MiB more and says "grown":
 * pages faulted after bwapd tuned the process.
 * A process with real pages for the tests of bwapd's tuner, which moves
 * them.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bwapd_stable.h"

static volatile sig_atomic_t grow;

static void wake(int sig)
{
	(void)sig;
}

static void on_grow(int sig)
{
	(void)sig;
	grow = 1;
}

/* len bytes more, every page written: the policy places them; NULL: none */
static char *fill(size_t len, long page)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t off;

	if (p == MAP_FAILED)
		return NULL;
	/* base pages: the tuner counts and moves pages one by one */
	madvise(p, len, MADV_NOHUGEPAGE);
	for (off = 0; off < len; off += (size_t)page)
		p[off] = 1;
	return p;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = wake }, ga = { .sa_handler = on_grow };
	long page = sysconf(_SC_PAGESIZE), mib = 0, seconds = 0, more = 0;
	sigset_t block, old;
	int i, stable = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stable"))
			stable = 1;
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--grow") && i + 1 < argc)
			more = strtol(argv[++i], NULL, 10);
		else
			mib = strtol(argv[i], NULL, 10);
	}
	if (mib <= 0) {
		fprintf(stderr, "usage: wi_hold [--stable] [--seconds S] [--grow G] MIB\n");
		return 2;
	}
	if (!fill((size_t)mib << 20, page)) {
		perror("wi_hold: mmap");
		return 1;
	}
	/* SIGUSR2 held back until the wait below, so that none is lost */
	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGUSR2, &ga, NULL);
	printf("ready\n");
	fflush(stdout);
	if (stable && bwapd_stable() < 0)
		perror("wi_hold: bwapd_stable");
	if (seconds > 0) {
		/* sleep() returns early when SIGUSR1 arrives */
		sigaction(SIGUSR1, &sa, NULL);
		sleep((unsigned int)seconds);
		return 0;
	}
	for (;;) {
		sigsuspend(&old);
		if (!grow || more <= 0)
			continue;
		grow = 0;
		if (!fill((size_t)more << 20, page)) {
			perror("wi_hold: mmap");
			return 1;
		}
		printf("grown\n");
		fflush(stdout);
	}
}
