// SPDX-License-Identifier: GPL-2.0
/*
 * wi_seccomp ENOSYS|EPERM [--allow-weights] COMMAND [ARG...]: run COMMAND
 * under a seccomp filter shaped like a container's or a hardened systemd
 * unit's: an allow-list of the system calls its authors knew of, which is
 * every x86-64 number below 512 here, and the given error for any other
 * number, so for set_mempolicy_weights(2) and get_mempolicy_weights(2)
 * (1000 and 1001).  runc and systemd 255 and later answer ENOSYS for
 * numbers past the ones they know, systemd before 255 EPERM.
 * --allow-weights adds the two numbers to the list, which is what
 * Documentation/seccomp.md asks of such a filter.  Other architectures
 * (i386 programs) pass unfiltered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wi_abi.h"

static int install(int err, int allow_weights)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 512, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* the addition: the two numbers of the weights calls */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_set_mempolicy_weights,
			 allow_weights ? 2 : 0, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_get_mempolicy_weights,
			 allow_weights ? 1 : 0, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO |
			 (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(f) / sizeof(f[0]),
		.filter = f,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

int main(int argc, char **argv)
{
	int err = 0, allow = 0, i = 2;

	if (argc > 1 && !strcmp(argv[1], "ENOSYS"))
		err = ENOSYS;
	else if (argc > 1 && !strcmp(argv[1], "EPERM"))
		err = EPERM;
	if (argc > i && !strcmp(argv[i], "--allow-weights")) {
		allow = 1;
		i++;
	}
	if (!err || i >= argc) {
		fprintf(stderr, "usage: wi_seccomp ENOSYS|EPERM [--allow-weights] COMMAND [ARG...]\n");
		return 2;
	}
	if (install(err, allow)) {
		perror("wi_seccomp: seccomp");
		return 1;
	}
	execvp(argv[i], argv + i);
	perror(argv[i]);
	return 127;
}
