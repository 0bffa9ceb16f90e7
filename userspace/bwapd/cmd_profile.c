// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd profile: enumerate the worker sets, profile every one worth it
 * (a progress bar on a terminal), write the canonical-weights file.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "log.h"

struct progress {
	int tty;
	int set, nr_sets;
	double seconds;
	char workers[64];
};

static void show_progress(void *arg, double done)
{
	struct progress *p = arg;
	double frac = ((p->set - 1) + done / p->seconds) / p->nr_sets;
	int width = 30, fill = (int)lround(frac * width), i;

	if (!p->tty)
		return;
	fprintf(stderr, "\r[");
	for (i = 0; i < width; i++)
		fputc(i < fill ? '#' : '.', stderr);
	fprintf(stderr, "] set %d/%d (workers %s), %.0f s left   ", p->set,
		p->nr_sets, p->workers,
		(p->nr_sets - p->set + 1) * p->seconds - done);
	fflush(stderr);
}

static void show_model_progress(void *arg, int done, int total)
{
	struct progress *p = arg;
	int width = 30, fill = total ? done * width / total : width, i;

	if (!p->tty)
		return;
	fprintf(stderr, "\r[");
	for (i = 0; i < width; i++)
		fputc(i < fill ? '#' : '.', stderr);
	fprintf(stderr, "] the machine's model: phase %d/%d   ", done, total);
	fflush(stderr);
}

/*
 * The machine's model: the firmware's description, then, with counters,
 * what the benchmark measures on top of it.  A measurement that fails
 * leaves the firmware's description, with a warning: the weights are
 * measured all the same.
 */
static int profile_model(struct bwapd_backend *b, const struct bwapd_topology *t,
			 int counters, struct progress *prog,
			 struct bwapd_machine_model **out)
{
	struct bwapd_machine_model *mm = malloc(sizeof(*mm));
	struct bwapd_mm_opts mo;
	char why[256];
	double secs;
	int ret, phases;

	if (!mm)
		return -ENOMEM;
	ret = bwapd_mm_prior(t, mm);
	if (ret) {
		free(mm);
		return ret;
	}
	*out = mm;
	if (!counters) {
		bwapd_log(BWAPD_LOG_INFO, "the machine's model: from %s only (no counters)",
			  bwapd_have_hmat(t) ? "HMAT and SLIT" : "SLIT");
		return 0;
	}
	bwapd_mm_opts_default(&mo);
	mo.progress = show_model_progress;
	mo.progress_arg = prog;
	phases = bwapd_mm_plan(t, &mo, &secs);
	bwapd_log(BWAPD_LOG_INFO, "the machine's model: %d phases, %.0f s of benchmark",
		  phases, secs);
	ret = bwapd_mm_measure(b, t, &mo, mm, why, sizeof(why));
	if (prog->tty)
		fputc('\n', stderr);
	if (ret)
		bwapd_log(BWAPD_LOG_WARNING, "the machine's model: %s; the firmware's "
			  "description is written instead", why);
	else
		bwapd_log(BWAPD_LOG_INFO, "the machine's model: measured in %d "
			  "phases in all (%d over its links), %.0f s of benchmark",
			  mm->phases, mm->phases - phases, mm->seconds);
	return 0;
}

int cmd_profile(const struct opts *o)
{
	static struct bwapd_sets sets;
	struct bwapd_file file;
	struct bwapd_profile_opts po = {
		.seconds = o->seconds, .u8_err = o->u8_err,
		.no_counters = o->no_counters,
	};
	struct progress prog = { .tty = isatty(2), .seconds = o->seconds };
	int index[BWAPD_MAX_SETS];
	struct bwapd_backend b;
	struct bwapd_topology t;
	char why[512] = "";
	int ret, i, counters = 0;
	time_t now = time(NULL);
	double set_s;

	/* where the file goes, before minutes of measuring */
	ret = bwapd_file_dir(o->file, why, sizeof(why));
	if (ret)
		return cmd_error("--file", ret, why);
	if (cmd_open_backend(o, &b, &t))
		return 1;
	ret = bwapd_sets_enumerate(&t, &o->sets, &sets);
	if (ret) {
		bwapd_backend_destroy(&b);
		return cmd_error("worker sets", ret, "no node has CPUs");
	}
	bwapd_log(BWAPD_LOG_INFO,
		"%d worker sets: %d to profile, %d skipped as symmetric to a "
		"profiled set (%d symmetries of the distances), %d skipped as spread "
		"out (nodes farther apart than a set of that size needs)",
		sets.nr, sets.nr_profile, sets.nr_symmetric,
		sets.nr_automorphisms, sets.nr_spread);
	if (o->no_counters) {
		bwapd_log(BWAPD_LOG_INFO, "counters: not used (--no-counters); weights from %s",
			cmd_fallback_name(&t));
	} else {
		ret = b.ops->ctrl_open(&b, why, sizeof(why));
		counters = !ret;
		if (counters)
			bwapd_log(BWAPD_LOG_INFO, "counters: %s",
				b.ops->ctrl_source(&b));
		else
			bwapd_log(BWAPD_LOG_WARNING,
				"counters: unavailable: %s\n"
				"weights from %s (fallback)", why,
				cmd_fallback_name(&t));
	}
	po.progress = show_progress;
	po.progress_arg = &prog;
	prog.nr_sets = counters ? sets.nr_profile : 0;
	/*
	 * The sets' part within BWAPD_SETS_SECONDS unless --seconds says so:
	 * a machine without symmetries profiles five times the sets of one
	 * with four (ladder-8: 127), and the model's phases take over three
	 * minutes of an 8-node machine's five.
	 */
	set_s = bwapd_profile_set_seconds(sets.nr_profile, po.seconds,
					  o->seconds_given);
	if (counters && set_s != po.seconds) {
		po.seconds = prog.seconds = set_s;
		bwapd_log(BWAPD_LOG_INFO, "%.2f s a worker set, %.0f s in all (--seconds "
			  "sets another time)", po.seconds, po.seconds * sets.nr_profile);
	}

	ret = bwapd_file_init(&file, sets.nr_profile + sets.nr_symmetric);
	if (ret) {
		bwapd_backend_destroy(&b);
		return cmd_error("profile", ret, NULL);
	}
	snprintf(file.backend, sizeof(file.backend), "%s%s%s", b.ops->name,
		 o->model ? " " : "", o->model ? o->model : "");
	strftime(file.created, sizeof(file.created), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime(&now));
	file.nr_symmetric = sets.nr_symmetric;
	file.nr_spread = sets.nr_spread;
	for (i = 0; i < sets.nr; i++) {
		const struct bwapd_set *s = &sets.set[i];
		struct bwapd_result *r = &file.result[file.nr_results];

		if (s->skip == BWAPD_SKIP_SPREAD)
			continue;
		if (s->skip == BWAPD_SKIP_SYMMETRIC) {
			bwapd_result_permute(&file.result[index[s->same_as]], s,
					     t.nr_nodes, r);
		} else {
			prog.set++;
			bwapd_nodelist_format(s->workers, prog.workers,
					      sizeof(prog.workers));
			ret = bwapd_profile_set(&b, &t, s->workers, counters,
						&po, r);
			if (ret) {
				if (prog.tty && counters)
					fputc('\n', stderr);
				bwapd_backend_destroy(&b);
				bwapd_file_free(&file);
				snprintf(why, sizeof(why),
					 "workers %s: %s; nothing written",
					 prog.workers, strerror(-ret));
				return cmd_error("profile", ret, why);
			}
		}
		index[s->workers] = file.nr_results++;
	}
	if (prog.tty && counters)
		fputc('\n', stderr);
	ret = profile_model(&b, &t, counters, &prog, &file.model);
	bwapd_backend_destroy(&b);
	if (ret) {
		bwapd_file_free(&file);
		return cmd_error("the machine's model", ret, "nothing written");
	}
	ret = bwapd_file_write(o->file, &t, &file, why, sizeof(why));
	if (ret) {
		bwapd_file_free(&file);
		return cmd_error("write", ret, why);
	}
	if (o->json) {
		cmd_show_json(&file, &t, 0);
	} else {
		cmd_show_table(&file, t.nr_nodes, 0);
		cmd_show_matrix(&file, &t);
		printf("written to %s\n", o->file);
	}
	bwapd_file_free(&file);
	return 0;
}
