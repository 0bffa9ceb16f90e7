/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bwapd's messages for people (log.c), on standard error.  Under
 * systemd, when standard error is the journal's stream (JOURNAL_STREAM
 * names its device and inode), every line starts with its priority the
 * way sd-daemon(3) says, <3> to <7>; otherwise with "bwapd: ".  Set once
 * by main; messages less important than the level chosen are dropped.
 */
#ifndef BWAPD_LOG_H
#define BWAPD_LOG_H

/* syslog(3) priorities */
#define BWAPD_LOG_ERR		3
#define BWAPD_LOG_WARNING	4
#define BWAPD_LOG_INFO		6
#define BWAPD_LOG_DEBUG		7

/* level: the least important priority written. */
void bwapd_log_init(int level);
/* One message; a newline in it starts a new line with the same prefix. */
void bwapd_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* BWAPD_LOG_H */
