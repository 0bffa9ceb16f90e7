// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's rules (/etc/bwapd/rules): which processes to tune, and
 * how.  One rule per line: what to match, then tuner options as on the
 * command line; '#' starts a comment.  The first rule that matches wins.
 * What to match is a shell pattern on
 *   - the command name (/proc/PID/comm): "PATTERN" or "comm=PATTERN";
 *   - the systemd unit: "unit=PATTERN", every process of the unit, a
 *     user manager's units too; a name with neither a type nor a
 *     wildcard is a service, as systemctl(1) takes it;
 *   - the cgroup: "cgroup=PATTERN", a cgroup and every cgroup below it
 *     ('*' also matches '/').
 *
 *   stream                      --min-mapi 0.002
 *   mg.[A-D].x                  --step 0.05 --fine-step 0
 *   unit=postgresql@*.service   --step 0.05
 *   cgroup=/system.slice/docker-*.scope
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rules.h"
#include "cgroup.h"
#include "trust.h"

static const char *const rule_on[] = {
	[BWAPD_RULE_COMM] = "comm",
	[BWAPD_RULE_UNIT] = "unit",
	[BWAPD_RULE_CGROUP] = "cgroup",
};

/* The rule's first word, what it matches; 0 or -EINVAL (why says). */
static int rule_what(struct bwapd_rule *r, const char *tok, const char *path,
		     int no, char *why, size_t len)
{
	const char *eq = strchr(tok, '='), *pat = tok;
	size_t k = eq ? (size_t)(eq - tok) : 0, i;

	r->on = BWAPD_RULE_COMM;
	/* "a=b" is a name only when written comm=a=b: a typo is not one */
	if (eq) {
		for (i = 0; i < sizeof(rule_on) / sizeof(rule_on[0]); i++)
			if (strlen(rule_on[i]) == k && !strncmp(tok, rule_on[i], k))
				break;
		if (i == sizeof(rule_on) / sizeof(rule_on[0])) {
			snprintf(why, len, "%s:%d: %.*s=: match comm=, unit= or "
				 "cgroup= (a command name with '=' in it: comm=%s)",
				 path, no, (int)k, tok, tok);
			return -EINVAL;
		}
		r->on = (enum bwapd_rule_on)i;
		pat = eq + 1;
	}
	if (!*pat || strlen(pat) >= sizeof(r->pattern) - 8) {
		snprintf(why, len, "%s:%d: %s: %s pattern", path, no, tok,
			 *pat ? "too long a" : "no");
		return -EINVAL;
	}
	snprintf(r->pattern, sizeof(r->pattern), "%s", tok);
	snprintf(r->glob, sizeof(r->glob), "%s", pat);
	if (r->on == BWAPD_RULE_UNIT && !strpbrk(pat, ".*?["))
		strcat(r->glob, ".service");
	return 0;
}

int bwapd_rules_read(const char *path, struct bwapd_rule *rules, int max,
		     char *why, size_t len)
{
	char line[BWAPD_RULE_LEN];
	int nr = 0, no = 0, fd;
	FILE *f;

	fd = bwapd_open_trusted(path, why, len);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "r");
	if (!f) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		close(fd);
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		struct bwapd_rule *r = &rules[nr];
		char *tok, *save = NULL;

		no++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(why, len, "%s:%d: line longer than %d characters",
				 path, no, BWAPD_RULE_LEN - 2);
			fclose(f);
			return -EINVAL;
		}
		line[strcspn(line, "#\n")] = 0;
		tok = strtok_r(line, " \t", &save);
		if (!tok)
			continue;
		if (nr == max) {
			snprintf(why, len, "%s:%d: more than %d rules", path, no,
				 max);
			fclose(f);
			return -E2BIG;
		}
		memset(r, 0, sizeof(*r));
		r->line = no;
		if (rule_what(r, tok, path, no, why, len)) {
			fclose(f);
			return -EINVAL;
		}
		/* argv[0] is a name, as getopt expects */
		r->argv[r->argc++] = strcpy(r->buf, "rule");
		r->used = 5;
		while ((tok = strtok_r(NULL, " \t", &save))) {
			size_t l = strlen(tok) + 1;

			if (r->argc == BWAPD_RULE_ARGS - 1 ||
			    r->used + l > sizeof(r->buf)) {
				snprintf(why, len, "%s:%d: too many options", path,
					 no);
				fclose(f);
				return -E2BIG;
			}
			r->argv[r->argc++] = memcpy(r->buf + r->used, tok, l);
			r->used += l;
		}
		r->argv[r->argc] = NULL;
		nr++;
	}
	fclose(f);
	return nr;
}

/* glob matches cgroup path or a cgroup above it */
static int cgroup_match(const char *glob, const char *path)
{
	char p[BWAPD_CGROUP_LEN];
	size_t n;

	if (!*path)
		return 0;
	snprintf(p, sizeof(p), "%s", path);
	for (n = strlen(p); n; n--) {
		if (p[n] && p[n] != '/')
			continue;
		p[n] = 0;
		if (!fnmatch(glob, p, 0))
			return 1;
	}
	return 0;
}

static int rule_matches(const struct bwapd_rule *r, const struct bwapd_who *who)
{
	switch (r->on) {
	case BWAPD_RULE_UNIT:
		return (who->unit[0] && !fnmatch(r->glob, who->unit, 0)) ||
		       (who->user_unit[0] && !fnmatch(r->glob, who->user_unit, 0));
	case BWAPD_RULE_CGROUP:
		return cgroup_match(r->glob, who->cgroup);
	default:
		return !fnmatch(r->glob, who->comm, 0);
	}
}

const struct bwapd_rule *bwapd_rules_match(const struct bwapd_rule *rules,
					   int nr, const struct bwapd_who *who)
{
	int i;

	for (i = 0; i < nr; i++)
		if (rule_matches(&rules[i], who))
			return &rules[i];
	return NULL;
}
