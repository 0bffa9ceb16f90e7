// SPDX-License-Identifier: GPL-2.0
/*
 * The weights system calls under a seccomp filter shaped like a
 * container's or a hardened unit's allow-list (helpers/wi_seccomp.c):
 * libseccomp, through which such filters name what they allow, does not
 * know set_mempolicy_weights(2) and get_mempolicy_weights(2), so the filter
 * answers them ENOSYS (runc, systemd 255 and later) or EPERM (systemd
 * before 255).  numactl --weights then fails cleanly, saying that the
 * filter blocks the call and what to allow, and works once the filter
 * allows the two numbers (Documentation/seccomp.md).  bwapd's side is in
 * bwapd/bwapd.sh, which has the weights files bwapd exec needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wi_harness.h"
#include "wi_weights.h"

#define HELPER	"/usr/lib/wi/wi_seccomp"
#define NUMACTL	"/usr/bin/numactl"
/* What the command under numactl leaves behind when it runs */
#define RAN	"/tmp/wi_seccomp.ran"

/*
 * Run as "WI_SECCOMP_PROBE=1 wi_seccomp": exit with the errno of
 * get_mempolicy_weights(2) on this process, 0 if it succeeded.
 */
__attribute__((constructor)) static void probe(void)
{
	if (!getenv("WI_SECCOMP_PROBE"))
		return;
	_exit(wi_get_task_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0, 0) < 0 ?
	      errno : 0);
}

/* Run argv, its stderr into err[]; the exit status, or -1. */
static int run(char *const argv[], char *err, size_t len)
{
	int p[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(p[0]);
		dup2(p[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (got < (ssize_t)len - 1 &&
	       (n = read(p[0], err + got, len - 1 - got)) > 0)
		got += n;
	err[got] = '\0';
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

FIXTURE(seccomp) {
	bool setup_skipped;
	int nr;
	int nodes[WI_MAX_NODES];
	char wi[32], weights[32];
};

FIXTURE_SETUP(seccomp)
{
	self->setup_skipped = false;
	if (access(HELPER, X_OK))
		WI_SETUP_SKIP("no %s", HELPER);
	if (wi_task_weights_supported() != 1)
		WI_SETUP_SKIP("kernel without per-process weights");
	{
		char *probe[] = { HELPER, "ENOSYS", "/bin/true", NULL };
		char err[256];

		if (run(probe, err, sizeof(err)))
			WI_SETUP_SKIP("no seccomp filters: %s", err);
	}
	self->nr = wi_pick_nodes(2, self->nodes);
	if (self->nr < 2)
		WI_SETUP_SKIP("needs 2 memory nodes, have %d", self->nr);
	snprintf(self->wi, sizeof(self->wi), "--weighted-interleave=%d,%d",
		 self->nodes[0], self->nodes[1]);
	snprintf(self->weights, sizeof(self->weights), "--weights=3,1");
}

FIXTURE_TEARDOWN(seccomp)
{
}

FIXTURE_VARIANT(seccomp) {
	const char *err;
	int errnum;
};

FIXTURE_VARIANT_ADD(seccomp, enosys) {
	.err = "ENOSYS",
	.errnum = ENOSYS,
};

FIXTURE_VARIANT_ADD(seccomp, eperm) {
	.err = "EPERM",
	.errnum = EPERM,
};

/* The filter answers the calls as said, and lets them through once told. */
TEST_F(seccomp, filter_shape)
{
	char self_exe[256] = "";
	char *blocked[] = { HELPER, (char *)variant->err, self_exe, NULL };
	char *allowed[] = { HELPER, (char *)variant->err, "--allow-weights",
			    self_exe, NULL };
	char err[4096];

	WI_TEST_START();
	/* This program, to run as the probe under the helper's filter */
	ASSERT_LT(0, readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1));
	ASSERT_EQ(0, setenv("WI_SECCOMP_PROBE", "1", 1));
	EXPECT_EQ(variant->errnum, run(blocked, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0, run(allowed, err, sizeof(err))) TH_LOG("%s", err);
	unsetenv("WI_SECCOMP_PROBE");
}

/*
 * numactl --weights under the filter: exit status 1, and the message
 * names the filter, not a kernel without the call; the command does not
 * run.  With the two numbers allowed it runs.
 */
TEST_F(seccomp, numactl_weights)
{
	char *blocked[] = { HELPER, (char *)variant->err, NUMACTL, self->wi,
			    self->weights, "/bin/touch", RAN, NULL };
	char *allowed[] = { HELPER, (char *)variant->err, "--allow-weights",
			    NUMACTL, self->wi, self->weights, "/bin/touch",
			    RAN, NULL };
	char err[4096];

	WI_TEST_START();
	if (access(NUMACTL, X_OK))
		SKIP(return, "no %s", NUMACTL);
	unlink(RAN);
	EXPECT_EQ(1, run(blocked, err, sizeof(err)));
	TH_LOG("numactl said: %s", err);
	EXPECT_NE(NULL, strstr(err, "the seccomp filter this process runs under blocks set_mempolicy_weights(2)"));
	EXPECT_NE(NULL, strstr(err, "1000 and 1001"));
	EXPECT_NE(0, access(RAN, F_OK)) TH_LOG("the command ran");
	EXPECT_EQ(0, run(allowed, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0, access(RAN, F_OK)) TH_LOG("the command did not run");
	unlink(RAN);
}

TEST_HARNESS_MAIN
