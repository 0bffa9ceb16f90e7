// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd tune: one tuning run of a target - a process, a process whose
 * counters come from the model, or a workload of the model - with its
 * output (text or JSON Lines), status file, plot and phase changes; exec
 * and the daemon's tuners run it too.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "damon.h"
#include "json_out.h"
#include "log.h"
#include "placement.h"
#include "status.h"
#include "svg.h"

struct tune_log {
	int json;
	int nr_nodes;
	const char *name;
	const char *run_dir;		/* NULL: no status file */
	int started;			/* the tuning began: a summary at the end */
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
	char w[4 * BWM_MAX_NODES], gain[128] = "";

	if (l->start_stalls > 0 && r->stall_rate >= 0)
		snprintf(gain, sizeof(gain), "; %s %.4g -> %.4g (%.1f %% %s)",
			 l->st.metric, l->start_stalls, r->stall_rate,
			 100 * fabs(1 - r->stall_rate / l->start_stalls),
			 r->stall_rate <= l->start_stalls ? "fewer" : "more");
	printf("%s: DWP %.3f after %d steps, %llu pages moved; weights %s%s%s\n",
	       l->name, r->dwp, r->steps, (unsigned long long)r->moved,
	       bwm_weights_format(r->weights, l->nr_nodes, w, sizeof(w)), gain,
	       r->failed ? " (some pages could not move: a node was full)" : "");
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

/* The canonical shares of the workers: the file's, or measured now. */
int cmd_canonical_of(const struct opts *o, struct bwapd_backend *b,
		     const struct bwapd_topology *t, uint32_t workers,
		     struct bwapd_result *canon, struct bwapd_machine_model **model)
{
	double *frac = canon->frac;
	struct bwapd_file f;
	const struct bwapd_result *r = NULL;
	struct bwapd_result now;
	struct bwapd_profile_opts po = { .seconds = o->seconds,
					 .u8_err = o->u8_err };
	char why[512] = "", list[64];
	int ret;

	if (model)
		*model = NULL;
	bwapd_nodelist_format(workers, list, sizeof(list));
	if (o->canonical) {
		uint8_t w[BWM_MAX_NODES];
		/* its notation was checked with the options */
		int n = bwm_weights_parse(o->canonical, w, BWM_MAX_NODES, NULL);

		memset(canon, 0, sizeof(*canon));
		canon->workers = workers;
		if (n != t->nr_nodes || bwm_weights_to_fractions(w, n, frac)) {
			bwapd_log(BWAPD_LOG_ERR, "--canonical %s: %d weights for the "
				  "%d nodes of this machine: want one per node, in "
				  "node order", o->canonical, n, t->nr_nodes);
			return -EDOM;
		}
		memcpy(canon->weights, w, sizeof(w[0]) * (size_t)n);
		/* the file's model all the same, where there is one */
		if (model && !bwapd_file_read(o->file, t, &f, why, sizeof(why))) {
			*model = f.model;
			f.model = NULL;
			bwapd_file_free(&f);
		}
		return 0;
	}
	ret = bwapd_file_read(o->file, t, &f, why, sizeof(why));
	if (!ret && model && f.model) {
		/* the caller's now; f keeps a copy while it needs one */
		*model = malloc(sizeof(**model));
		if (*model)
			**model = *f.model;
	}
	if (!ret) {
		r = bwapd_file_find(&f, workers);
		if (!r && f.model) {
			/* Eq. 5 on the model's own profiling run */
			struct bwm_profile prof;

			memset(canon, 0, sizeof(*canon));
			canon->workers = workers;
			ret = bwm_profile_run(&f.model->m, workers, 1, 0, NULL, &prof);
			if (!ret)
				ret = bwm_canonical_fractions(prof.bw, t->nr_nodes,
							      workers, frac);
			if (!ret)
				ret = bwm_fractions_to_u8(frac, t->nr_nodes,
							  o->u8_err,
							  canon->weights,
							  &canon->u8_err);
			ret = ret < 0 ? ret : 0;
			bwapd_file_free(&f);
			if (ret)
				bwapd_log(BWAPD_LOG_ERR, "workers %s: the model in %s "
					  "gives no canonical weights: %s", list,
					  o->file, strerror(-ret));
			else
				bwapd_log(BWAPD_LOG_INFO, "workers %s were not profiled: "
					  "canonical weights from the model in %s",
					  list, o->file);
			return ret;
		}
		if (!r) {
			bwapd_log(BWAPD_LOG_ERR, "no canonical weights for workers %s in %s",
				list, o->file);
			bwapd_file_free(&f);
			return -ENOENT;
		}
	} else if (ret == -ENOENT) {
		char cwhy[512] = "";
		int counters = !b->ops->ctrl_open(b, cwhy, sizeof(cwhy));

		bwapd_log(BWAPD_LOG_WARNING, "%s does not exist: canonical weights of workers %s from %s",
			o->file, list, counters ? "a profiling run now" :
			"the firmware tables (no counters)");
		ret = bwapd_profile_set(b, t, workers, counters, &po, &now);
		if (ret) {
			bwapd_log(BWAPD_LOG_ERR, "profiling workers %s: %s", list,
				strerror(-ret));
			return ret;
		}
		r = &now;
	} else {
		cmd_error(ret == -ESTALE ? "stale weights file" : "weights file",
			  ret, why);
		return ret;
	}
	*canon = *r;
	bwapd_file_free(&f);
	return 0;
}

int cmd_machine_of(const struct opts *o, const struct bwapd_topology *t,
		   const struct bwapd_machine_model *file_model,
		   struct bwm_machine *m)
{
	struct bwapd_machine_model *mm;
	struct bwm_error err;
	char why[512];
	int ret;

	if (o->predict_with) {
		ret = bwm_machine_load(o->predict_with, m, &err);
		if (ret) {
			bwapd_log(BWAPD_LOG_ERR, "--predict-with: %s",
				  bwm_error_format(&err, o->predict_with, why,
						   sizeof(why)));
			return ret;
		}
		if (m->nr_nodes != t->nr_nodes) {
			bwapd_log(BWAPD_LOG_ERR, "--predict-with %s: %d nodes, the "
				  "machine has %d", o->predict_with, m->nr_nodes,
				  t->nr_nodes);
			return -EINVAL;
		}
		bwapd_log(BWAPD_LOG_INFO, "predicting with %s", o->predict_with);
		return 0;
	}
	if (file_model) {
		*m = file_model->m;
		bwapd_log(BWAPD_LOG_INFO, "predicting with the model in %s (%s)",
			  o->file, file_model->seconds > 0 ?
			  "measured by bwapd profile" :
			  "the firmware's description");
		return 0;
	}
	mm = malloc(sizeof(*mm));
	if (!mm)
		return -ENOMEM;
	ret = bwapd_mm_prior(t, mm);
	if (!ret) {
		*m = mm->m;
		bwapd_log(BWAPD_LOG_INFO, "predicting with the firmware's description "
			  "of the machine (%s, uncertain: run bwapd profile to "
			  "measure it)", bwapd_have_hmat(t) ? "HMAT" : "SLIT");
	}
	free(mm);
	return ret;
}

static int load_workload(const char *path, const struct bwm_machine *m,
			 uint32_t workers, struct bwm_workload *wl)
{
	struct bwm_error err;
	char msg[512];

	if (bwm_workload_load(path, wl, &err) ||
	    bwm_workload_bind(m, wl, workers, 0, &err)) {
		bwapd_log(BWAPD_LOG_ERR, "%s",
			bwm_error_format(&err, path, msg, sizeof(msg)));
		return -EINVAL;
	}
	return 0;
}

/*
 * --corun: the high-priority workload (group[0], pages on its own
 * nodes) beside the one tuned (group[1]) on the model; 0, 1 or EXIT_USAGE.
 */
static int corun_targets(const struct opts *o, const struct bwm_machine *m,
			 const struct bwm_workload *wl,
			 struct bwapd_target *group)
{
	uint8_t own[BWAPD_MAX_NODES] = { 0 };
	struct bwm_workload two[2];
	struct bwapd_migration mig;
	uint32_t hw;
	int j, ret;

	if (!o->corun_workers) {
		bwapd_log(BWAPD_LOG_ERR, "--corun needs --corun-workers, and no --pid");
		return EXIT_USAGE;
	}
	if (cmd_parse_workers("--corun-workers", o->corun_workers, &hw) ||
	    cmd_check_nodes("--corun-workers", hw, m->nr_nodes) ||
	    load_workload(o->corun, m, hw, &two[0]))
		return EXIT_USAGE;
	two[1] = *wl;
	ret = bwapd_target_model_group(group, 2, m, two, o->seed, o->noise,
				       NULL);
	for (j = 0; !ret && j < m->nr_nodes; j++)
		own[j] = hw & (1u << j) ? 1 : 0;
	if (!ret)
		ret = group[0].ops->migrate(&group[0], own, m->nr_nodes,
					    &o->tune.migrate, &mig);
	if (ret)
		return cmd_error("model", ret, "the workloads must run on different nodes");
	return 0;
}

/*
 * How the process's pages get their weights: the placement already
 * chosen (exec chose it before it started the program), or --placement,
 * or the best.
 */
static int place_process(const struct opts *o, struct bwapd_target *proc,
			 const struct bwapd_place_choice *chosen)
{
	const char *dir = cmd_damon_dir(o);
	static struct bwapd_place_choice c;
	char why[1024];
	int pid = (int)proc->pid;
	int ret;

	if (!chosen) {
		c.kind = bwapd_place_choose(o->placement, dir, why, sizeof(why),
					    c.note, sizeof(c.note));
		chosen = &c;
	}
	ret = chosen->kind;

	if (ret < 0) {
		bwapd_log(BWAPD_LOG_ERR, "process %d: %s; nothing changed", pid,
			  why);
		return ret;
	}
	bwapd_target_process_place(proc, ret, dir, o->tune.migrate.pages_per_s);
	switch (ret) {
	case BWAPD_PLACE_DAMON:
		bwapd_log(BWAPD_LOG_INFO, "process %d: DAMON moves its pages to its "
			  "weights (the kernel has no set_mempolicy_weights(2)); the "
			  "pages it allocates follow the global weights until DAMON "
			  "moves them too", pid);
		break;
	case BWAPD_PLACE_MIGRATE:
		bwapd_log(BWAPD_LOG_INFO, "process %d: bwapd moves its pages to its "
			  "weights itself (move_pages(2))%s%s%s; the pages it "
			  "allocates follow its own policy until the next pass, "
			  "every second at most", pid, chosen->note[0] ? " (" : "",
			  chosen->note, chosen->note[0] ? ")" : "");
		break;
	case BWAPD_PLACE_GLOBAL:
		bwapd_log(BWAPD_LOG_WARNING, "tuning process %d through the global "
			  "weights: every process under weighted interleave "
			  "without weights of its own follows them", pid);
		break;
	}
	return 0;
}

static void process_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (bwapd_read_text("", path, buf, len))
		snprintf(buf, len, "?");
}

int cmd_check_plot(const struct opts *o)
{
	char dir[BWAPD_PATH_MAX], why[BWAPD_PATH_MAX + 128], *slash;
	const char *bad = o->plot;
	int err;

	if (!o->plot || !access(o->plot, W_OK))
		return 0;
	err = errno;
	if (err == ENOENT) {
		/* a new file: its directory must take it */
		snprintf(dir, sizeof(dir), "%s", o->plot);
		slash = strrchr(dir, '/');
		if (!slash)
			snprintf(dir, sizeof(dir), ".");
		else
			slash[slash == dir] = 0;	/* "/x.svg": "/" */
		if (!access(dir, W_OK | X_OK))
			return 0;
		err = errno;
		bad = dir;
	}
	snprintf(why, sizeof(why), "%s: %s; nothing tuned", bad, strerror(err));
	return cmd_error("--plot", -err, why);
}

/*
 * Tune a target: a process (pid), a process whose counters come from the
 * model (pid and --model/--workload), or a workload of the model.
 */
int cmd_tune_target(const struct opts *o, pid_t pid,
		    const struct bwapd_place_choice *chosen)
{
	static struct bwm_machine m, known;
	struct bwapd_machine_model *file_model = NULL;
	struct bwapd_target proc = { 0 }, model = { 0 }, *t;
	struct bwapd_target hiproc = { 0 }, group[2] = { { 0 } }, *hi = NULL;
	struct bwapd_tune_opts to = o->tune;
	struct bwapd_tune_result r = { 0 };
	static struct tune_log l;
	struct bwapd_backend b;
	struct bwapd_topology topo;
	struct bwm_workload wl;
	struct bwm_error err;
	struct bwapd_result canon;
	uint8_t w0[BWAPD_MAX_NODES];
	uint64_t pages[BWAPD_MAX_NODES], total = 0;
	uint32_t workers = 0;
	char name[32], list[64];
	const char *result = "failed";
	int ret, j, changed, rc = 1;

	if (cmd_check_plot(o))
		return 1;
	memset(&l, 0, sizeof(l));
	l.json = o->json;
	l.from = -1;
	l.min_gain = to.min_gain;
	/* a process: this machine's topology and weights, whatever counts */
	if (pid ? cmd_open_here(o, &b, &topo) : cmd_open_backend(o, &b, &topo))
		return 1;
	if (o->model && bwm_machine_load(o->model, &m, &err)) {
		char msg[512];

		bwapd_log(BWAPD_LOG_ERR, "--model: %s",
			  bwm_error_format(&err, o->model, msg, sizeof(msg)));
		bwapd_backend_destroy(&b);
		return 1;
	}
	if (o->workers && (cmd_parse_workers("--workers", o->workers, &workers) ||
			   cmd_check_nodes("--workers", workers, topo.nr_nodes))) {
		bwapd_backend_destroy(&b);
		return EXIT_USAGE;
	}
	if (o->global && !pid) {
		bwapd_log(BWAPD_LOG_ERR, "--global tunes a process: it needs --pid");
		rc = EXIT_USAGE;
		goto out;
	}
	if (pid) {
		snprintf(name, sizeof(name), "%d", (int)pid);
		ret = bwapd_target_process(&proc, pid, topo.nr_nodes, &topo);
		if (ret) {
			cmd_error("target", ret, proc.why);
			goto out;
		}
		workers = proc.workers;
		t = &proc;
	} else {
		snprintf(name, sizeof(name), "model");
		t = NULL;
	}
	if (o->workload) {
		if (!o->model) {
			bwapd_log(BWAPD_LOG_ERR, "--workload needs --model");
			rc = EXIT_USAGE;
			goto out;
		}
		if (pid && m.nr_nodes != topo.nr_nodes) {
			bwapd_log(BWAPD_LOG_ERR, "the model has %d nodes, the machine %d",
				m.nr_nodes, topo.nr_nodes);
			goto out;
		}
		if (load_workload(o->workload, &m, workers, &wl))
			goto out;
		workers = wl.workers;
		if (o->corun) {
			if (pid) {
				bwapd_log(BWAPD_LOG_ERR, "--corun is for the model, not --pid");
				rc = EXIT_USAGE;
				goto out;
			}
			rc = corun_targets(o, &m, &wl, group);
			if (rc)
				goto out;
			rc = 1;
			hi = &group[0];
			t = &group[1];
		} else {
			ret = bwapd_target_model(&model, &m, &wl, o->seed,
						 o->noise, pid ? &proc : NULL);
			if (ret) {
				cmd_error("model", ret, NULL);
				goto out;
			}
			t = &model;
		}
	} else if (!pid) {
		bwapd_log(BWAPD_LOG_ERR, "tune needs --pid PID or --workload FILE");
		rc = EXIT_USAGE;
		goto out;
	} else if (o->model && m.nr_nodes != topo.nr_nodes) {
		bwapd_log(BWAPD_LOG_ERR, "the model has %d nodes, the machine %d",
			m.nr_nodes, topo.nr_nodes);
		goto out;
	}
	if (!pid && o->watch == 0) {
		bwapd_log(BWAPD_LOG_ERR, "--watch 0 follows a process until it exits; a "
			"model never does: give seconds");
		rc = EXIT_USAGE;
		goto out;
	}
	if (o->hi_pid) {
		if (!pid || o->corun) {
			bwapd_log(BWAPD_LOG_ERR, "--high-priority needs --pid");
			rc = EXIT_USAGE;
			goto out;
		}
		ret = bwapd_target_process(&hiproc, o->hi_pid, topo.nr_nodes,
					   &topo);
		if (ret) {
			cmd_error("high-priority process", ret, hiproc.why);
			goto out;
		}
		if (hiproc.workers & workers) {
			bwapd_log(BWAPD_LOG_ERR, "processes %d and %d share nodes; "
				"co-scheduling wants them apart", (int)o->hi_pid,
				(int)pid);
			goto out;
		}
		hi = &hiproc;
	}
	l.nr_nodes = t->nr_nodes;
	l.name = name;
	ret = cmd_canonical_of(o, &b, &topo, workers, &canon, &file_model);
	if (!ret)
		ret = bwapd_dwp_weights(canon.frac, topo.nr_nodes, workers, 0,
					to.u8_err, w0);
	if (ret) {
		rc = ret == -EDOM ? EXIT_USAGE : 1;	/* --canonical's count */
		goto out;
	}
	/* what the tuner predicts with; --model's machine only plays the hardware */
	if (!to.dwp_only && !to.forward_only) {
		if (cmd_machine_of(o, &topo, file_model, &known))
			goto out;
		to.machine = &known;
	}
	if (pid && place_process(o, &proc, chosen))
		goto out;
	if (pid) {
		ret = proc.ops->pages(&proc, pages, topo.nr_nodes);
		for (j = 0; !ret && j < topo.nr_nodes; j++)
			total += pages[j];
		if (ret) {
			bwapd_log(BWAPD_LOG_ERR, "cannot see the pages of process %d: %s; "
				"nothing changed", (int)pid, proc.why);
			goto out;
		}
		if (!total) {
			int il = proc.placement && !strcmp(proc.placement, "migrate");

			bwapd_log(BWAPD_LOG_ERR, "process %d has no anonymous memory under weighted "
				"interleave%s (start it with \"bwapd exec\" or \"numactl "
				"--weighted-interleave\"%s)", (int)pid,
				il ? " or interleave" : "",
				il ? " or \"numactl --interleave\"" : "");
			goto out;
		}
		/* DAMON's destinations can leave nodes out, the weights not */
		if (t == &model)
			model.leave_out = proc.leave_out;
	}
	bwapd_nodelist_format(workers, list, sizeof(list));
	to.log = log_step;
	to.log_arg = &l;
	l.run_dir = *o->run_dir ? o->run_dir : NULL;
	l.st.pid = pid;
	l.st.tuner = getpid();
	l.st.nr_nodes = t->nr_nodes;
	snprintf(l.st.target, sizeof(l.st.target), "%s", t->ops->name);
	snprintf(l.st.placement, sizeof(l.st.placement), "%s",
		 pid ? proc.placement : "model");
	snprintf(l.st.workers, sizeof(l.st.workers), "%s", list);
	{
		struct bwapd_counters c;
		int per_insn = to.metric == BWAPD_STALLS_PER_INSN ||
			       (to.metric == BWAPD_METRIC_AUTO &&
				!t->ops->counters(t, &c) &&
				(c.have & BWAPD_HAVE_MAPI));

		snprintf(l.st.metric, sizeof(l.st.metric), "%s",
			 per_insn ? "stalls/instruction" : "stalls/s");
	}
	if (pid)
		process_comm(pid, l.st.command, sizeof(l.st.command));
	else
		snprintf(l.st.command, sizeof(l.st.command), "%s", wl.name);
	l.started = 1;
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
		bj_u8s(e, "canonical", canon.weights, topo.nr_nodes);
		bj_num(e, "canonical_max_error", canon.u8_err, "%.6f");
		bj_u8s(e, "dwp0_weights", w0, topo.nr_nodes);
		bj_num(e, "max_error", to.u8_err, "%.6f");
		bj_print(e);
	} else {
		printf("tuning %s on workers %s (%s), %s counted by %s\n",
		       pid ? name : "the model", list, t->ops->name,
		       l.st.metric, t->stall_event[0] ? t->stall_event :
		       "nothing");
		print_canonical(&canon, w0, topo.nr_nodes, to.u8_err);
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
		if (hi && l.st.tunings == 1) {
			double floor = 0;

			ret = bwapd_tune_cosched(hi, t, canon.frac, &to, &r, &floor);
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
			ret = bwapd_tune(t, canon.frac, &to, &r);
		}
		if (ret == -ESRCH) {
			bwapd_log(BWAPD_LOG_INFO, "process %d exited while it was tuned",
				(int)pid);
			result = "exited";
			rc = 0;
			goto out;
		}
		if (ret) {
			cmd_error("tune", ret, t->why);
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
		if (ret)
			rc = cmd_error(o->plot, ret, NULL);
	}
out:
	if (l.started && o->json)
		tune_summary(&l, &r, result);
	if (l.run_dir)
		bwapd_status_remove(l.run_dir, &l.st);
	status_file[0] = 0;
	if (model.ops)
		bwapd_target_close(&model);
	for (j = 0; j < 2; j++)
		if (group[j].ops)
			bwapd_target_close(&group[j]);
	if (hiproc.ops)
		bwapd_target_close(&hiproc);
	if (proc.ops)
		bwapd_target_close(&proc);
	free(file_model);
	bwapd_backend_destroy(&b);
	return rc;
}

int cmd_tune(const struct opts *o)
{
	if (o->pid < 0)
		return EXIT_USAGE;
	return cmd_tune_target(o, o->pid, NULL);
}
