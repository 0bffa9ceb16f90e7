// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's rules (/etc/bwapd/rules): which processes to tune, and
 * how.  One rule per line: a shell pattern matched against the command
 * name (/proc/PID/comm), then tuner options as on the command line;
 * '#' starts a comment.  The first rule that matches wins.
 *
 *   stream            --min-mapi 0.002
 *   mg.[A-D].x        --step 0.05 --fine-step 0
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rules.h"
#include "trust.h"

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
		snprintf(r->pattern, sizeof(r->pattern), "%s", tok);
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

const struct bwapd_rule *bwapd_rules_match(const struct bwapd_rule *rules,
					   int nr, const char *comm)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!fnmatch(rules[i].pattern, comm, 0))
			return &rules[i];
	return NULL;
}
