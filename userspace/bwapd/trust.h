/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files bwapd acts on (the daemon's rules, the weights it writes into the
 * global weights) must be trusted: owned by root or by the user running
 * bwapd, and writable by nobody else.
 */
#ifndef BWAPD_TRUST_H
#define BWAPD_TRUST_H

#include <stddef.h>

/*
 * 0 if the file open on @fd (named @path in messages) is a regular file
 * owned by root or the effective user and not writable by group or
 * others; else -EPERM (-EINVAL: not a regular file) with the reason and
 * the fix in @why.
 */
int bwapd_trusted_fd(int fd, const char *path, char *why, size_t len);

/* Open @path for reading if it is trusted: the fd, or -errno. */
int bwapd_open_trusted(const char *path, char *why, size_t len);

#endif
