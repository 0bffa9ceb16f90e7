// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd tune: what one tuning run of a target needs - a process, a
 * process whose counters come from the model, or a workload of the model;
 * the canonical weights of its workers, the model the tuner predicts
 * with, how its pages get their weights - then the run (tune_run.c).
 * exec and the daemon's tuners come through here too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "log.h"
#include "placement.h"
#include "tune_run.h"

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
			/* Eq. 5 on the benchmark run on the model */
			memset(canon, 0, sizeof(*canon));
			canon->workers = workers;
			ret = bwm_bench_canonical(&f.model->m, workers, frac);
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
	struct bwapd_backend b;
	struct bwapd_topology topo;
	struct bwm_workload wl;
	struct bwm_error err;
	struct bwapd_result canon;
	uint8_t w0[BWAPD_MAX_NODES];
	uint64_t pages[BWAPD_MAX_NODES], total = 0;
	uint32_t workers = 0;
	struct bwapd_who who;
	char name[32];
	int ret, j, rc = 1;

	if (cmd_check_plot(o))
		return 1;
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
		if (bwapd_who_read("/proc", pid, &who))
			snprintf(who.comm, sizeof(who.comm), "?");
	}
	{
		const struct tune_run run = {
			.o = o, .pid = pid, .name = name, .t = t, .hi = hi,
			.workers = workers, .canon = &canon, .w0 = w0,
			.placement = pid ? proc.placement : "model",
			.command = pid ? who.comm : wl.name,
			.who = pid ? &who : NULL,
		};

		rc = tune_run(&run, to);
	}
out:
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
