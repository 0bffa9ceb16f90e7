// SPDX-License-Identifier: LGPL-2.1-or-later
/* bwapd_stable(): see bwapd_stable.h. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "bwapd_stable.h"

#define BWAPD_NOTIFY_ENV	"BWAPD_NOTIFY_FD"

int bwapd_stable(void)
{
	static const char msg[] = "stable\n";
	const char *env = getenv(BWAPD_NOTIFY_ENV);
	char *end;
	long fd;
	ssize_t n;

	if (!env || !*env)
		return 0;
	fd = strtol(env, &end, 10);
	/* told once: a second call, or a child, finds nothing to tell */
	unsetenv(BWAPD_NOTIFY_ENV);
	if (*end || fd < 0 || fd > 65535) {
		errno = EBADF;
		return -1;
	}
	do
		n = write((int)fd, msg, sizeof(msg) - 1);
	while (n < 0 && errno == EINTR);
	close((int)fd);
	return n == (ssize_t)sizeof(msg) - 1 ? 1 : -1;
}
