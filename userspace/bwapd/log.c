// SPDX-License-Identifier: GPL-2.0
/*
 * Messages with priorities (log.h).  The journal is recognised as
 * sd_journal_stream_fd(3) and systemd.exec(5) describe: JOURNAL_STREAM
 * is "DEVICE:INODE" of the stream systemd connected, and only when
 * standard error is still that stream are prefixes wanted (a command
 * run from a unit's shell script may have its stderr redirected).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"

/* Set once by bwapd_log_init() from main, read after. */
static struct {
	int level;
	int journal;
} logcfg = { BWAPD_LOG_INFO, 0 };

static int stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char end;

	if (!js || sscanf(js, "%llu:%llu%c", &dev, &ino, &end) != 2 ||
	    fstat(2, &st))
		return 0;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void bwapd_log_init(int level)
{
	logcfg.level = level;
	logcfg.journal = stderr_is_journal();
}

void bwapd_log(int prio, const char *fmt, ...)
{
	char buf[4096], *line, *nl;
	va_list ap;

	if (prio > logcfg.level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (line = buf; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		if (logcfg.journal)
			fprintf(stderr, "<%d>%s\n", prio, line);
		else
			fprintf(stderr, "bwapd: %s\n", line);
		if (nl && !*nl)
			break;
	}
}
