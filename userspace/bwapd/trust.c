// SPDX-License-Identifier: GPL-2.0
/*
 * Trusted files.  The rules decide whose memory the daemon moves, and a
 * weights file becomes the global weights of every process: a file that
 * another user could have written would let that user steer bwapd.  The
 * check is made on the open file (fstat), so the file checked is the file
 * read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trust.h"

int bwapd_trusted_fd(int fd, const char *path, char *why, size_t len)
{
	struct stat st;

	if (fstat(fd, &st)) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s: not a regular file", path);
		return -EINVAL;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(why, len,
			 "%s: owned by uid %u, not by root%s; run chown root %s",
			 path, (unsigned int)st.st_uid,
			 geteuid() ? " or the user running bwapd" : "", path);
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len,
			 "%s: writable by group or others; run chmod go-w %s",
			 path, path);
		return -EPERM;
	}
	return 0;
}

int bwapd_open_trusted(const char *path, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), ret;

	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	ret = bwapd_trusted_fd(fd, path, why, len);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}
