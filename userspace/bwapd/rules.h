/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's rules (rules.c): a shell pattern on a command name, then
 * the tuner options for the processes it matches.
 */
#ifndef BWAPD_RULES_H
#define BWAPD_RULES_H

#include "bwapd.h"

#define BWAPD_RULES_FILE	"/etc/bwapd/rules"
#define BWAPD_RULE_LEN		512
#define BWAPD_RULE_ARGS		32

struct bwapd_rule {
	int line;
	char pattern[64];		/* fnmatch(3) on /proc/PID/comm */
	int argc;			/* argv[0] is "rule" */
	char *argv[BWAPD_RULE_ARGS];
	char buf[BWAPD_RULE_LEN];
	size_t used;
};

/* The rules of path (up to max); their number or -errno (why says where). */
int bwapd_rules_read(const char *path, struct bwapd_rule *rules, int max,
		     char *why, size_t len);
/* The first rule whose pattern matches comm, or NULL. */
const struct bwapd_rule *bwapd_rules_match(const struct bwapd_rule *rules,
					   int nr, const char *comm);

#endif /* BWAPD_RULES_H */
