/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether a seccomp filter, rather than the kernel, keeps this process
 * from the weights system calls.  Container runtimes (runc, crun) and
 * systemd's SystemCallFilter= allow-lists name system calls through
 * libseccomp, which does not know set_mempolicy_weights(2) and
 * get_mempolicy_weights(2): under such a filter the calls fail with
 * ENOSYS or EPERM, as on a kernel without them.  bwapd(8) and
 * Documentation/seccomp.md say how to let them through.
 */
#ifndef BWAPD_SECCOMP_H
#define BWAPD_SECCOMP_H

#include <stddef.h>

/*
 * If @err (a positive errno) from a weights system call of this process
 * comes from a seccomp filter, or may, write the reason into @buf and
 * return 1; return 0 otherwise (no filter, or an error a filter does not
 * give).  "Seccomp: 2" in /proc/self/status tells that a filter is on,
 * get_mempolicy_weights(2) on this process (which the kernel never
 * refuses) that it lets the calls through or not, and the calls' entry
 * points in /proc/kallsyms, or the release of this project's kernels,
 * that the kernel has them.
 */
int bwapd_seccomp_why(int err, char *buf, size_t len);
/*
 * Does the running kernel have set_mempolicy_weights(2)?  1 yes, 0 no,
 * -1 unknown (/proc/kallsyms hidden, as systemd's ProtectKernelTunables=
 * hides it, on a kernel of another release than this project's).
 */
int bwapd_kernel_has_weights(void);

#endif /* BWAPD_SECCOMP_H */
