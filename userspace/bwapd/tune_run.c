// SPDX-License-Identifier: GPL-2.0
/*
 * One tuning run of a target (tune_run.h): the tuner's steps, then the
 * watching and the tunings after a phase change, with their output (text
 * or JSON Lines), status file and plot.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "damon.h"
#include "json_out.h"
#include "log.h"
#include "status.h"
#include "svg.h"
#include "tune_run.h"

struct tune_log {
	int json;
	int nr_nodes;
	const char *name;
	const char *run_dir;		/* NULL: no status file */
	double start_stalls;		/* the metric at the start of a tuning */
	struct bwapd_status st;
	/* the run, for --plot */
#define PLOT_POINTS	4096
	int nr;
	double t[PLOT_POINTS], dwp[PLOT_POINTS], stalls[PLOT_POINTS];
	int from;			/* the point of the last start */
	double min_gain;		/* the tuner's: a gain worth a step */
};

/* DWP and the stall metric over time; measured steps only for the metric. */
static int write_plot(const char *path, const struct tune_log *l,
		      const char *title)
{
	double tmax = 0, smax = 0, ts[PLOT_POINTS], ss[PLOT_POINTS];
	int i, n = 0, ret;
	FILE *f;

	for (i = 0; i < l->nr; i++) {
		tmax = fmax(tmax, l->t[i]);
		if (l->stalls[i] >= 0) {
			ts[n] = l->t[i];
			ss[n++] = l->stalls[i];
			smax = fmax(smax, l->stalls[i]);
		}
	}
	f = fopen(path, "w");
	if (!f)
		return -errno;
	bwm_svg_begin(f, title);
	bwm_svg_yaxis(f, 1, "DWP", 0);
	smax = bwm_svg_yaxis(f, smax, l->st.metric, 1);
	tmax = bwm_svg_xaxis(f, tmax, "seconds");
	bwm_svg_polyline(f, l->t, l->dwp, l->nr, tmax, 1, bwm_svg_colours[1]);
	bwm_svg_polyline(f, ts, ss, n, tmax, smax, bwm_svg_colours[4]);
	bwm_svg_legend(f, 0, "DWP", bwm_svg_colours[1]);
	bwm_svg_legend(f, 1, "stalls", bwm_svg_colours[4]);
	ret = bwm_svg_end(f);
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/*
 * Stopped by a signal: the target holds valid weights at every moment
 * (pages half way through a move stay where they are), so only the
 * status file has to go, and the target out of DAMON where DAMON places
 * its pages (which bwapd_damon_on_signal() waits for).  unlink() and
 * _exit() are async-signal-safe.
 */
static char status_file[4200];

static void on_signal(int sig)
{
	if (status_file[0])
		unlink(status_file);
	bwapd_damon_on_signal();
	_exit(128 + sig);
}

static void status_update(struct tune_log *l, const char *state)
{
	if (!l->run_dir)
		return;
	snprintf(l->st.state, sizeof(l->st.state), "%s", state);
	l->st.updated = time(NULL);
	if (bwapd_status_write(l->run_dir, &l->st)) {
		bwapd_log(BWAPD_LOG_WARNING, "cannot write the status in %s: %s "
			"(\"bwapd status\" will not show this tuner)",
			l->run_dir, strerror(errno));
		l->run_dir = NULL;
	}
}

/*
 * The DWPs of the last tuning's settings that measured within min_gain of
 * its best ('best' stalls): where the optimum is flat, any of them serves
 * about as well, and other tools may name another.  The number of them.
 */
static int flat_range(const struct tune_log *l, double best, double *lo,
		      double *hi)
{
	int i, n = 0;

	*lo = 2;
	*hi = -2;
	for (i = l->from < 0 ? 0 : l->from; i < l->nr; i++) {
		if (!(l->stalls[i] >= 0) ||
		    l->stalls[i] > best * (1 + l->min_gain))
			continue;
		*lo = fmin(*lo, l->dwp[i]);
		*hi = fmax(*hi, l->dwp[i]);
		n++;
	}
	return n;
}

/* The end of a tuning, in words: where it left the weights, what it gained. */
static void print_result(const struct tune_log *l,
			 const struct bwapd_tune_result *r)
{
	double lo, hi;
	char w[4 * BWM_MAX_NODES], gain[128] = "", dwp[16], steps[16], pid[16];
	char line[512];
	const char *kv[] = {
		"BWAPD_EVENT", "tuned", "BWAPD_RESULT", "tuned", "BWAPD_PID", pid,
		"BWAPD_COMM", l->st.command, "BWAPD_UNIT", l->st.unit,
		"BWAPD_CGROUP", l->st.cgroup, "BWAPD_WEIGHTS", w,
		"BWAPD_DWP", dwp, "BWAPD_STEPS", steps, NULL,
	};

	if (l->start_stalls > 0 && r->stall_rate >= 0)
		snprintf(gain, sizeof(gain), "; %s %.4g -> %.4g (%.1f %% %s)",
			 l->st.metric, l->start_stalls, r->stall_rate,
			 100 * fabs(1 - r->stall_rate / l->start_stalls),
			 r->stall_rate <= l->start_stalls ? "fewer" : "more");
	bwm_weights_format(r->weights, l->nr_nodes, w, sizeof(w));
	snprintf(dwp, sizeof(dwp), "%.4f", r->dwp);
	snprintf(steps, sizeof(steps), "%d", r->steps);
	snprintf(pid, sizeof(pid), "%d", (int)l->st.pid);
	/* under the journal, with fields: the process, its unit, its weights */
	snprintf(line, sizeof(line), "%s: DWP %.3f after %d steps, %llu pages moved; weights %s%s%s",
		 l->name, r->dwp, r->steps, (unsigned long long)r->moved, w,
		 gain, r->failed ? " (some pages could not move: a node was full)" : "");
	if (!l->st.pid || !bwapd_log_stdout_journal() ||
	    bwapd_journal_send(BWAPD_LOG_INFO, kv, "%s", line))
		printf("%s\n", line);
	if (r->stall_rate > 0 && flat_range(l, r->stall_rate, &lo, &hi) > 1 &&
	    hi > lo)
		printf("%s: settings from DWP %.3f to %.3f measured within %.1f %% "
		       "of the best: the optimum is flat there, and any of them "
		       "serves about as well\n", l->name, lo, hi,
		       100 * l->min_gain);
}

/*
 * The canonical weights as show and apply give them, and at DWP 0 as the
 * tuner writes them: each share within its own tolerance, so the numbers
 * may differ while the shares agree.
 */
static void print_canonical(const struct bwapd_result *c, const uint8_t *w0,
			    int nr_nodes, double u8_err)
{
	char a[4 * BWM_MAX_NODES], b[4 * BWM_MAX_NODES];

	bwm_weights_format(c->weights, nr_nodes, a, sizeof(a));
	if (!memcmp(c->weights, w0, (size_t)nr_nodes)) {
		printf("canonical weights %s as show and apply give them\n", a);
		return;
	}
	printf("canonical weights %s as show and apply give them (shares off "
	       "by %.1f %% at most); at DWP 0 the tuner writes them as %s "
	       "(within %.1f %%, --u8-err)\n", a, 100 * c->u8_err,
	       bwm_weights_format(w0, nr_nodes, b, sizeof(b)), 100 * u8_err);
}

/* A --json event of the tuning stream: {"target": ..., "event": what, ...} */
static json_object *tune_event(const struct tune_log *l, const char *what)
{
	json_object *e = json_object_new_object();

	bj_str(e, "target", l->name);
	bj_str(e, "event", what);
	return e;
}

/* The last line of "tune --json": how it ended and where it left the target. */
static void tune_summary(const struct tune_log *l,
			 const struct bwapd_tune_result *r, const char *result)
{
	json_object *e = tune_event(l, "summary");

	bj_str(e, "result", result);
	bj_str(e, "command", l->st.command);
	bj_str(e, "workers", l->st.workers);
	bj_str(e, "metric", l->st.metric);
	bj_num(e, "dwp", l->st.dwp, "%.4f");
	bj_num(e, "stalls", l->st.stalls, "%.6g");
	bj_num(e, "mapi", r->mapi, "%.6g");
	bj_bool(e, "skipped", r->skipped);
	bj_int(e, "steps", l->st.steps);
	bj_int(e, "tunings", l->st.tunings);
	bj_int(e, "pages_moved", (int64_t)l->st.moved);
	bj_int(e, "pages_failed", (int64_t)r->failed);
	bj_u8s(e, "weights", l->st.weights, l->nr_nodes);
	bj_print(e);
}

static void log_step(void *arg, const struct bwapd_tune_step *st)
{
	struct tune_log *l = arg;
	char w[4 * BWM_MAX_NODES];

	if (l->nr < PLOT_POINTS) {
		l->t[l->nr] = st->seconds;
		l->dwp[l->nr] = st->dwp;
		l->stalls[l->nr++] = st->stall_rate;
	}
	bwapd_status_step(&l->st, st);
	status_update(l, l->st.state);
	if (!st->step) {
		l->start_stalls = st->stall_rate;
		l->from = l->nr - 1;
	}

	if (l->json) {
		json_object *e = json_object_new_object();

		bj_str(e, "target", l->name);
		bj_int(e, "step", st->step);
		bj_str(e, "what", st->what);
		bj_num(e, "seconds", st->seconds, "%.3f");
		bj_num(e, "dwp", st->dwp, "%.4f");
		bj_num(e, "stalls", st->stall_rate, "%.6g");
		bj_num(e, "mapi", st->mapi, "%.6g");
		if (st->predicted >= 0)
			bj_num(e, "predicted_gbps", st->predicted, "%.4g");
		bj_int(e, "moved", (int64_t)st->migration.moved);
		bj_u8s(e, "weights", st->weights, l->nr_nodes);
		if (st->migration.damon) {
			json_object *d = json_object_new_object();

			bj_int(d, "tried", (int64_t)st->migration.damon_tried);
			bj_int(d, "applied_bytes",
			       (int64_t)st->migration.damon_applied);
			bj_int(d, "quota_exceeds",
			       (int64_t)st->migration.damon_quota);
			json_object_object_add(e, "damon", d);
		}
		bj_print(e);
		return;
	} else {
		char stalls[32] = "-";

		if (st->stall_rate >= 0)
			snprintf(stalls, sizeof(stalls), "%.4g", st->stall_rate);
		printf("%-8s step %2d %-6s t=%8.3fs  DWP %.3f  stalls %-10s pages moved %-8llu weights %s\n",
		       l->name, st->step, st->what, st->seconds, st->dwp,
		       stalls, (unsigned long long)st->migration.moved,
		       bwm_weights_format(st->weights, l->nr_nodes, w, sizeof(w)));
		/* what damo shows of a scheme: its own statistics */
		if (st->migration.damon)
			printf("%-8s         DAMON: %llu regions tried, %.1f MiB "
			       "applied, quota reached %llu times\n", l->name,
			       (unsigned long long)st->migration.damon_tried,
			       (double)st->migration.damon_applied / (1 << 20),
			       (unsigned long long)st->migration.damon_quota);
	}
	fflush(stdout);
}

int tune_run(const struct tune_run *run, struct bwapd_tune_opts to)
{
	const struct opts *o = run->o;
	struct bwapd_target *t = run->t;
	pid_t pid = run->pid;
	const char *name = run->name;
	static struct tune_log l;
	struct bwapd_tune_result r = { 0 };
	const char *result = "failed";
	char list[64];
	int ret, changed, rc = 1;

	memset(&l, 0, sizeof(l));
	l.json = o->json;
	l.from = -1;
	l.min_gain = to.min_gain;
	l.nr_nodes = t->nr_nodes;
	l.name = name;
	bwapd_nodelist_format(run->workers, list, sizeof(list));
	to.log = log_step;
	to.log_arg = &l;
	l.run_dir = *o->run_dir ? o->run_dir : NULL;
	l.st.pid = pid;
	l.st.tuner = getpid();
	l.st.nr_nodes = t->nr_nodes;
	snprintf(l.st.target, sizeof(l.st.target), "%s", t->ops->name);
	snprintf(l.st.placement, sizeof(l.st.placement), "%s",
		 pid ? run->placement : "model");
	snprintf(l.st.workers, sizeof(l.st.workers), "%s", list);
	{
		struct bwapd_counters c;

		if (t->ops->counters(t, &c))
			c.have = 0;
		snprintf(l.st.metric, sizeof(l.st.metric), "%s",
			 bwapd_metric_name(bwapd_metric_of(&to, c.have)));
	}
	snprintf(l.st.command, sizeof(l.st.command), "%s", run->command);
	if (run->who) {
		snprintf(l.st.unit, sizeof(l.st.unit), "%s",
			 bwapd_who_unit(run->who));
		snprintf(l.st.cgroup, sizeof(l.st.cgroup), "%s", run->who->cgroup);
	}
	if (o->json) {
		json_object *e = tune_event(&l, "start");

		bj_str(e, "command", l.st.command);
		bj_str(e, "workers", list);
		bj_str(e, "source", t->ops->name);
		bj_str(e, "placement", l.st.placement);
		bj_str(e, "metric", l.st.metric);
		if (t->stall_event[0])
			bj_str(e, "stall_event", t->stall_event);
		else
			json_object_object_add(e, "stall_event", NULL);
		bj_u8s(e, "canonical", run->canon->weights, t->nr_nodes);
		bj_num(e, "canonical_max_error", run->canon->u8_err, "%.6f");
		bj_u8s(e, "dwp0_weights", run->w0, t->nr_nodes);
		bj_num(e, "max_error", to.u8_err, "%.6f");
		bj_print(e);
	} else {
		printf("tuning %s on workers %s (%s), %s counted by %s\n",
		       pid ? name : "the model", list, t->ops->name,
		       l.st.metric, t->stall_event[0] ? t->stall_event :
		       "nothing");
		print_canonical(run->canon, run->w0, t->nr_nodes, to.u8_err);
	}
	if (to.machine && !to.dwp_only && !to.forward_only && !run->hi) {
		double off = bwapd_model_off(to.machine, run->workers,
					     run->canon->frac);

		if (off > BWAPD_MODEL_AGREE)
			bwapd_log(BWAPD_LOG_INFO, "the model gives workers %s "
				  "canonical shares %.1f %% of the pages away from "
				  "the measured ones (more than %.0f %%): it is not "
				  "of this machine, and the DWP search tunes without "
				  "it", list, 100 * off, 100 * BWAPD_MODEL_AGREE);
	}
	if (l.run_dir) {
		if (pid)
			snprintf(status_file, sizeof(status_file), "%s/%d.json",
				 l.run_dir, (int)pid);
		else
			snprintf(status_file, sizeof(status_file), "%s/model-%d.json",
				 l.run_dir, (int)getpid());
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	for (;;) {
		l.st.tunings++;
		status_update(&l, "tuning");
		if (run->hi && l.st.tunings == 1) {
			double floor = 0;

			ret = bwapd_tune_cosched(run->hi, t, run->canon->frac, &to, &r,
						 &floor);
			if (!ret && o->json) {
				json_object *e = tune_event(&l, "co-scheduled");

				bj_num(e, "floor", floor, "%.4f");
				bj_num(e, "protect", to.protect, "%.4g");
				bj_print(e);
			} else if (!ret) {
				printf("%s: co-scheduled: DWP %.3f or more keeps the high-priority "
				       "job within %.0f %% of its speed\n", name, floor,
				       to.protect * 100);
			}
			/* re-tuning keeps the floor */
			to.floor = floor;
		} else {
			ret = bwapd_tune(t, run->canon->frac, &to, &r);
		}
		if (ret == -ESRCH) {
			bwapd_log(BWAPD_LOG_INFO, "process %d exited while it was tuned",
				(int)pid);
			result = "exited";
			rc = 0;
			goto out;
		}
		if (ret) {
			bwapd_log(BWAPD_LOG_ERR, "tune: %s",
				  t->why[0] ? t->why : strerror(-ret));
			bwapd_log(BWAPD_LOG_ERR, "the target keeps weights of DWP %.3f",
				r.dwp);
			goto out;
		}
		if (o->json) {
			json_object *e = tune_event(&l, r.skipped ?
						    "not-memory-intensive" : "tuned");

			bj_num(e, "dwp", r.dwp, "%.4f");
			if (!r.skipped && r.stall_rate > 0) {
				double fl[2];

				flat_range(&l, r.stall_rate, &fl[0], &fl[1]);
				bj_nums(e, "flat_dwp", fl, 2, "%.4f");
			}
			bj_int(e, "steps", r.steps);
			bj_int(e, "moved", (int64_t)r.moved);
			bj_int(e, "failed", (int64_t)r.failed);
			bj_num(e, "mapi", r.mapi, "%.6g");
			if (r.skipped)
				bj_num(e, "min_mapi", to.min_mapi, "%.6g");
			bj_num(e, "start_stalls", l.start_stalls, "%.6g");
			bj_num(e, "stalls", r.stall_rate, "%.6g");
			bj_u8s(e, "weights", r.weights, l.nr_nodes);
			bj_print(e);
		} else if (r.skipped)
			printf("%s: %.4g memory accesses per instruction, below %.4g: not "
			       "memory-intensive, left at DWP 0\n", name, r.mapi,
			       to.min_mapi);
		else
			print_result(&l, &r);
		/* seen now, not when the watching ends: stdout may be a file */
		fflush(stdout);
		l.st.dwp = r.dwp;
		memcpy(l.st.weights, r.weights, sizeof(l.st.weights));
		if (!(o->watch >= 0) || r.skipped)
			break;
		status_update(&l, "watching");
		ret = bwapd_tune_watch(t, &to, r.stall_rate, o->watch, &changed);
		if (ret == -ESRCH) {
			result = "exited";
			rc = 0;
			goto out;
		}
		if (ret || !changed)
			break;
		if (o->json) {
			json_object *e = tune_event(&l, "phase-change");

			bj_num(e, "threshold", to.phase_change, "%.4g");
			bj_print(e);
		} else {
			printf("%s: phase change: stalls moved by more than %.0f %%; tuning again\n",
			       name, to.phase_change * 100);
		}
		to.start = fmin(1, fmax(to.floor, r.dwp));
	}
	rc = ret ? 1 : 0;
	result = ret ? "failed" : "done";
	if (o->plot) {
		char title[256];

		snprintf(title, sizeof(title), "tuning %s (%s) on workers %s",
			 l.st.command, pid ? name : "model", list);
		ret = write_plot(o->plot, &l, title);
		if (ret) {
			bwapd_log(BWAPD_LOG_ERR, "%s: %s", o->plot, strerror(-ret));
			rc = 1;
		}
	}
out:
	if (o->json)
		tune_summary(&l, &r, result);
	if (l.run_dir)
		bwapd_status_remove(l.run_dir, &l.st);
	status_file[0] = 0;
	return rc;
}
