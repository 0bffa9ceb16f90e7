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

/*
 * Under the journal, one message with fields of its own for journalctl
 * (BWAPD_PID=..., "journalctl -o json"): kv is NULL-terminated pairs of
 * key and value, keys of A-Z, 0-9 and '_'.  Sent by the journal's native
 * protocol (systemd.journal-fields(7)); 0 when sent, -1 when bwapd does
 * not log to the journal or the journal took nothing: the caller then
 * writes the message its own way.
 */
int bwapd_journal_send(int prio, const char *const *kv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Whether standard output goes to the journal too: a result written
 * there may go with fields of its own.
 */
int bwapd_log_stdout_journal(void);
/* The same, else (-1) the message as bwapd_log() writes it. */
void bwapd_log_kv(int prio, const char *const *kv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The datagram of such a message into buf (len bytes at most): its
 * length, or 0 when it does not fit.  A value with a newline goes in the
 * protocol's binary form: key, newline, length (64 bits, little-endian),
 * value, newline.
 */
size_t bwapd_journal_encode(char *buf, size_t len, int prio, const char *msg,
			    const char *const *kv);

#endif /* BWAPD_LOG_H */
