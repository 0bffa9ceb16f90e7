// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd daemon: look at the processes every few seconds and fork a
 * tuner for each one a rule names; stop the tuners on SIGTERM.  A
 * process a rule does not name is looked at again at the next scan, so
 * one that enters a named unit or cgroup later is tuned from then on.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "damon.h"
#include "log.h"
#include "placement.h"
#include "rules.h"

#define MAX_TUNERS	256
#define MAX_GIVEN_UP	1024

static volatile sig_atomic_t daemon_stop;

static void on_daemon_signal(int sig)
{
	(void)sig;
	daemon_stop = 1;
}

struct daemon {
	const struct opts *o;
	struct bwapd_rule rules[128];
	int nr_rules;
	pid_t target[MAX_TUNERS], tuner[MAX_TUNERS];
	int nr;
	pid_t given_up[MAX_GIVEN_UP];	/* tuner failed: not again */
	int nr_given_up;
};

/*
 * The options of a rule on top of the daemon's, preset names made paths
 * as on the command line (into a buffer of the last call: a tuner is
 * forked before the next); 0 or EXIT_USAGE.
 */
static int rule_opts(const struct opts *o, const struct bwapd_rule *r,
		     struct opts *ro)
{
	static char preset[4][BWAPD_PATH_MAX];
	char *argv[BWAPD_RULE_ARGS + 1], where[4200];
	int seen[NR_OPTS] = { 0 }, ret;
	struct words w;

	*ro = *o;
	memcpy(argv, r->argv, sizeof(argv[0]) * (size_t)(r->argc + 1));
	snprintf(where, sizeof(where), "%s:%d", o->rules, r->line);
	ret = opts_parse(r->argc, argv, ro, seen, &w);
	if (!ret && (w.nr || w.rest)) {
		bwapd_log(BWAPD_LOG_ERR, "%s: not an option: %s", where,
			  w.nr ? w.word[0] : "--");
		ret = EXIT_USAGE;
	}
	if (!ret)
		ret = opts_check(seen, C_RULE, where) ||
		      opts_metric(seen, ro, where);
	if (!ret && ro->placement == BWAPD_PLACE_GLOBAL) {
		bwapd_log(BWAPD_LOG_ERR, "%s: --placement global: the daemon's "
			  "processes would fight over one set of global weights",
			  where);
		ret = EXIT_USAGE;
	}
	if (!ret && opts_presets(ro, preset))
		ret = EXIT_USAGE;
	if (!ret && bwapd_tune_opts_check(&ro->tune)) {
		bwapd_log(BWAPD_LOG_ERR, "%s: bad tuner parameters", where);
		ret = EXIT_USAGE;
	}
	if (!seen[opts_index("watch")])
		ro->watch = 0;	/* until the process exits */
	ro->json = 0;
	return ret ? EXIT_USAGE : 0;
}

static int known(const pid_t *list, int n, pid_t pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (list[i] == pid)
			return 1;
	return 0;
}

static void reap(struct daemon *d)
{
	char p[16];
	const char *kv[] = { "BWAPD_EVENT", "end", "BWAPD_RESULT", NULL,
			     "BWAPD_PID", p, NULL };
	int status, i;
	pid_t c;

	while ((c = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < d->nr && d->tuner[i] != c; i++)
			;
		if (i == d->nr)
			continue;
		snprintf(p, sizeof(p), "%d", (int)d->target[i]);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			kv[3] = "failed";
			bwapd_log_kv(BWAPD_LOG_WARNING, kv, "process %d: tuner failed; not tuned again",
				     (int)d->target[i]);
			if (d->nr_given_up < MAX_GIVEN_UP)
				d->given_up[d->nr_given_up++] = d->target[i];
		} else {
			kv[3] = "exited";
			bwapd_log_kv(BWAPD_LOG_INFO, kv, "process %d: tuned until it exited",
				     (int)d->target[i]);
		}
		d->target[i] = d->target[--d->nr];
		d->tuner[i] = d->tuner[d->nr];
	}
	/* forget the processes that are gone */
	for (i = 0; i < d->nr_given_up; i++)
		if (kill(d->given_up[i], 0) && errno == ESRCH)
			d->given_up[i--] = d->given_up[--d->nr_given_up];
	fflush(stdout);
}

/* "process PID (COMM, UNIT) matches rule N", with its fields in the journal */
static void match_log(pid_t pid, const struct bwapd_who *who,
		      const struct bwapd_rule *r)
{
	char p[16], line[16];
	const char *kv[] = {
		"BWAPD_EVENT", "match", "BWAPD_PID", p, "BWAPD_COMM", who->comm,
		"BWAPD_UNIT", bwapd_who_unit(who),
		"BWAPD_CGROUP", who->cgroup, "BWAPD_RULE", line,
		"BWAPD_PATTERN", r->pattern, NULL,
	};

	snprintf(p, sizeof(p), "%d", (int)pid);
	snprintf(line, sizeof(line), "%d", r->line);
	bwapd_log_kv(BWAPD_LOG_INFO, kv, "process %d (%s, %s) matches rule %d (%s): tuning it",
		     (int)pid, who->comm, bwapd_who_service(who), r->line,
		     r->pattern);
}

static void scan(struct daemon *d)
{
	struct dirent *de;
	DIR *dir = opendir("/proc");

	if (!dir)
		return;
	while (!daemon_stop && (de = readdir(dir)) && d->nr < MAX_TUNERS) {
		const struct bwapd_rule *r;
		struct bwapd_who who;
		struct opts ro;
		pid_t pid = (pid_t)atoi(de->d_name), c;

		if (pid <= 0 || pid == getpid() || known(d->target, d->nr, pid) ||
		    known(d->tuner, d->nr, pid) ||
		    known(d->given_up, d->nr_given_up, pid))
			continue;
		if (bwapd_who_read("/proc", pid, &who) || who.kthread)
			continue;
		r = bwapd_rules_match(d->rules, d->nr_rules, &who);
		if (!r || rule_opts(d->o, r, &ro))
			continue;
		match_log(pid, &who, r);
		fflush(stdout);
		c = fork();
		if (c < 0)
			break;
		if (!c) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			_exit(cmd_tune_target(&ro, pid, NULL));
		}
		d->target[d->nr] = pid;
		d->tuner[d->nr++] = c;
	}
	closedir(dir);
}

int cmd_daemon(const struct opts *o)
{
	static struct daemon d;
	char why[512] = "";
	struct sigaction sa;
	int i, ret;

	if (o->placement == BWAPD_PLACE_GLOBAL) {
		bwapd_log(BWAPD_LOG_ERR, "daemon: --placement global: its processes "
			  "would fight over one set of global weights");
		return EXIT_USAGE;
	}
	memset(&d, 0, sizeof(d));
	d.o = o;
	/* a log (journald under systemd): whole lines, also from the tuners */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = bwapd_rules_read(o->rules, d.rules, 128, why, sizeof(why));
	if (ret < 0)
		return cmd_error("rules", ret, why);
	d.nr_rules = ret;
	if (!d.nr_rules) {
		/* the file as the package ships it: every rule a comment */
		bwapd_log(BWAPD_LOG_INFO, "no rules in %s: nothing to tune; add "
			  "one (the daemon command in bwapd(8)), then start the "
			  "daemon again", o->rules);
		return 0;
	}
	for (i = 0; i < d.nr_rules; i++) {
		struct opts ro;

		if (rule_opts(o, &d.rules[i], &ro)) {
			bwapd_log(BWAPD_LOG_ERR, "%s:%d: bad options in this rule; not started",
				o->rules, d.rules[i].line);
			return EXIT_USAGE;
		}
	}
	/* what tuners killed outright (SIGKILL) left in DAMON */
	if (bwapd_damon_prune(cmd_damon_dir(o), why, sizeof(why)))
		bwapd_log(BWAPD_LOG_WARNING, "DAMON: %s", why);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_daemon_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	bwapd_log(BWAPD_LOG_INFO, "%d rules from %s; looking for processes every %g s",
	       d.nr_rules, o->rules, o->scan);
	fflush(stdout);
	while (!daemon_stop) {
		struct timespec ts = { (time_t)o->scan,
			(long)((o->scan - (double)(time_t)o->scan) * 1e9) };

		reap(&d);
		scan(&d);
		nanosleep(&ts, NULL);
	}
	/* the tuners remove their status; the processes keep their weights */
	for (i = 0; i < d.nr; i++)
		kill(d.tuner[i], SIGTERM);
	while (d.nr && wait(NULL) > 0)
		;
	bwapd_log(BWAPD_LOG_INFO, "stopped; %d tuners stopped, their processes keep their weights",
	       d.nr);
	return 0;
}
