// SPDX-License-Identifier: GPL-2.0
/*
 * A seccomp filter in the way of the weights system calls (seccomp.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "caps.h"
#include "seccomp.h"
#include "wi_abi.h"

/* The Seccomp: field of /proc/self/status: 0 off, 1 strict, 2 filter. */
static int seccomp_mode(void)
{
	int mode = 0;

	bwapd_self_status("Seccomp: %d", &mode);
	return mode;
}

/*
 * Its entry points are named in /proc/kallsyms (names are shown whatever
 * kptr_restrict hides); this project's kernels end their release in
 * "-wi".
 */
int bwapd_kernel_has_weights(void)
{
	char line[256];
	struct utsname u;
	int found = 0, any = 0;
	FILE *f;

	if (!uname(&u) && strstr(u.release, "-wi"))
		return 1;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		any = 1;
		found = strstr(line, "sys_set_mempolicy_weights") != NULL;
	}
	fclose(f);
	return found ? 1 : any ? 0 : -1;
}

int bwapd_seccomp_why(int err, char *buf, size_t len)
{
	int has;

	if ((err != ENOSYS && err != EPERM) || seccomp_mode() != 2)
		return 0;
	/* Reading one's own weights is always allowed: not the filter. */
	if (wi_get_mempolicy_weights(PIDFD_SELF_THREAD_GROUP, NULL, 0UL, 0U) >= 1)
		return 0;
	has = bwapd_kernel_has_weights();
	if (has == 0 && err == ENOSYS)
		return 0;
	if (has == 1)
		snprintf(buf, len, "set_mempolicy_weights(2) is blocked by the "
			 "seccomp filter this process runs under (%s from the "
			 "filter; the kernel has the call): the filter must allow "
			 "system calls 1000 and 1001 (x86-64 and i386), see "
			 "bwapd(8)", strerrorname_np(err));
	else
		snprintf(buf, len, "set_mempolicy_weights(2) failed with %s: "
			 "the kernel lacks it, or the seccomp filter this process "
			 "runs under blocks it (system calls 1000 and 1001, see "
			 "bwapd(8))", strerrorname_np(err));
	return 1;
}
