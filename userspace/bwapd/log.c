// SPDX-License-Identifier: GPL-2.0
/*
 * Messages with priorities (log.h).  The journal is recognised as
 * sd_journal_stream_fd(3) and systemd.exec(5) describe: JOURNAL_STREAM
 * is "DEVICE:INODE" of the stream systemd connected, and only when
 * standard error is still that stream are prefixes wanted (a command
 * run from a unit's shell script may have its stderr redirected).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"

/* Set once by bwapd_log_init() from main, read after. */
static struct {
	int level;
	int journal;		/* standard error is the journal's stream */
	int journal_out;	/* and so is standard output */
} logcfg = { BWAPD_LOG_INFO, 0, 0 };

static int is_journal(int fd)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char end;

	if (!js || sscanf(js, "%llu:%llu%c", &dev, &ino, &end) != 2 ||
	    fstat(fd, &st))
		return 0;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void bwapd_log_init(int level)
{
	logcfg.level = level;
	logcfg.journal = is_journal(2);
	logcfg.journal_out = logcfg.journal && is_journal(1);
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

/* KEY=value, or KEY, newline, le64 length, value where value has a newline */
static size_t put_field(char *buf, size_t len, size_t at, const char *key,
			const char *value)
{
	size_t k = strlen(key), v = strlen(value), i;

	if (!strchr(value, '\n')) {
		if (at + k + v + 2 > len)
			return 0;
		memcpy(buf + at, key, k);
		buf[at + k] = '=';
		memcpy(buf + at + k + 1, value, v);
		buf[at + k + 1 + v] = '\n';
		return at + k + v + 2;
	}
	if (at + k + 1 + 8 + v + 1 > len)
		return 0;
	memcpy(buf + at, key, k);
	at += k;
	buf[at++] = '\n';
	for (i = 0; i < 8; i++)
		buf[at++] = (char)(((uint64_t)v >> (8 * i)) & 0xff);
	memcpy(buf + at, value, v);
	at += v;
	buf[at++] = '\n';
	return at;
}

size_t bwapd_journal_encode(char *buf, size_t len, int prio, const char *msg,
			    const char *const *kv)
{
	char p[4] = { (char)('0' + (prio & 7)), 0 };
	size_t at = 0;

	at = put_field(buf, len, at, "MESSAGE", msg);
	if (at)
		at = put_field(buf, len, at, "PRIORITY", p);
	if (at)
		at = put_field(buf, len, at, "SYSLOG_IDENTIFIER", "bwapd");
	for (; at && kv && kv[0] && kv[1]; kv += 2)
		at = put_field(buf, len, at, kv[0], kv[1]);
	return at;
}

int bwapd_journal_send(int prio, const char *const *kv, const char *fmt, ...)
{
	static const struct sockaddr_un sa = {
		.sun_family = AF_UNIX,
		.sun_path = "/run/systemd/journal/socket",
	};
	char msg[2048], buf[8192];
	va_list ap;
	size_t n;
	ssize_t sent;
	int fd;

	if (!logcfg.journal)
		return -1;
	if (prio > logcfg.level)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = bwapd_journal_encode(buf, sizeof(buf), prio, msg, kv);
	fd = n ? socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0) : -1;
	if (fd < 0)
		return -1;
	sent = sendto(fd, buf, n, MSG_NOSIGNAL, (const struct sockaddr *)&sa,
		      sizeof(sa));
	close(fd);
	return sent == (ssize_t)n ? 0 : -1;
}

void bwapd_log_kv(int prio, const char *const *kv, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (bwapd_journal_send(prio, kv, "%s", msg))
		bwapd_log(prio, "%s", msg);
}

int bwapd_log_stdout_journal(void)
{
	return logcfg.journal_out;
}
