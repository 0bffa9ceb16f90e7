// SPDX-License-Identifier: GPL-2.0
/*
 * wi_sweep MIB: map MIB MiB of private anonymous memory, write every
 * page, say "ready", then write one byte of every page, over and over,
 * until SIGTERM.  On SIGUSR1 it prints the sweeps done so far, its CPU
 * time and the clock: a benchmark takes the difference of two such
 * lines around what it measures.  The load of bwapd inspect's
 * benchmark: every page written in every time slice, as in wi_inspect.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

static volatile sig_atomic_t report, done;

static void on_usr1(int sig)
{
	(void)sig;
	report = 1;
}

static void on_term(int sig)
{
	(void)sig;
	done = 1;
}

static void print(long sweeps)
{
	struct timespec ts;
	struct rusage ru;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	getrusage(RUSAGE_SELF, &ru);
	printf("sweeps %ld cpu_s %.6f clock_s %.6f\n", sweeps,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
	       ts.tv_sec + ts.tv_nsec / 1e9);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct sigaction usr1 = { .sa_handler = on_usr1 };
	struct sigaction term = { .sa_handler = on_term };
	long mib = argc == 2 ? strtol(argv[1], NULL, 10) : 0, sweeps = 0;
	size_t len, off;
	char *p;

	if (mib <= 0) {
		fprintf(stderr, "usage: wi_sweep MIB\n");
		return 2;
	}
	len = (size_t)mib << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		perror("wi_sweep: mmap");
		return 1;
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	for (off = 0; off < len; off += 4096)
		p[off] = 1;
	sigaction(SIGUSR1, &usr1, NULL);
	sigaction(SIGTERM, &term, NULL);
	printf("ready\n");
	fflush(stdout);
	while (!done) {
		for (off = 0; off < len; off += 4096)
			((volatile char *)p)[off]++;
		sweeps++;
		if (report) {
			report = 0;
			print(sweeps);
		}
	}
	return 0;
}
