/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's rules (rules.c): a shell pattern on a process's command
 * name, systemd unit or cgroup, then the tuner options for the processes
 * it matches.
 */
#ifndef BWAPD_RULES_H
#define BWAPD_RULES_H

#include "bwapd.h"
#include "cgroup.h"

#define BWAPD_RULES_FILE	"/etc/bwapd/rules"
#define BWAPD_RULE_LEN		512
#define BWAPD_RULE_ARGS		32

enum bwapd_rule_on {
	BWAPD_RULE_COMM,		/* "PATTERN", "comm=PATTERN" */
	BWAPD_RULE_UNIT,		/* "unit=PATTERN" */
	BWAPD_RULE_CGROUP,		/* "cgroup=PATTERN" */
};

struct bwapd_rule {
	int line;
	enum bwapd_rule_on on;
	char pattern[BWAPD_CGROUP_LEN];	/* fnmatch(3), as written */
	char glob[BWAPD_CGROUP_LEN];	/* what is matched: a unit's type added */
	int argc;			/* argv[0] is "rule" */
	char *argv[BWAPD_RULE_ARGS];
	char buf[BWAPD_RULE_LEN];
	size_t used;
};

/* The rules of path (up to max); their number or -errno (why says where). */
int bwapd_rules_read(const char *path, struct bwapd_rule *rules, int max,
		     char *why, size_t len);
/* The first rule that matches who, or NULL. */
const struct bwapd_rule *bwapd_rules_match(const struct bwapd_rule *rules,
					   int nr, const struct bwapd_who *who);

#endif /* BWAPD_RULES_H */
