// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd inspect: a report on how an application uses memory and what
 * placement would serve it - for a workload of the model (--model,
 * --workload), or a running process (--pid).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "inspect_exec.h"
#include "inspect_model.h"
#include "inspect_proc.h"
#include "log.h"

static int print(const struct opts *o, const struct inspect_report *r)
{
	if (o->json)
		return inspect_print_json(r, o->verbose) ? 1 : 0;
	inspect_print_text(r, o->verbose);
	return 0;
}

static int inspect_workload(const struct opts *o)
{
	static struct inspect_report r;
	enum inspect_policy policy = INSPECT_FIRST_TOUCH;
	struct bwm_workload wl;
	struct bwm_machine m;
	struct bwm_error err;
	uint32_t workers = 0;
	char msg[512];
	int ret;

	if (o->range) {
		bwapd_log(BWAPD_LOG_ERR, "--range is for a process's addresses: "
			  "a workload of the model has none");
		return EXIT_USAGE;
	}
	if (o->policy) {
		if (!strcmp(o->policy, "interleave"))
			policy = INSPECT_INTERLEAVE;
		else if (!strcmp(o->policy, "parallel-init"))
			policy = INSPECT_PARALLEL_INIT;
		else if (strcmp(o->policy, "first-touch")) {
			bwapd_log(BWAPD_LOG_ERR, "--policy %s: want first-touch, "
				  "parallel-init or interleave", o->policy);
			return EXIT_USAGE;
		}
	}
	if (o->workers && cmd_parse_workers("--workers", o->workers, &workers))
		return EXIT_USAGE;
	if (bwm_machine_load(o->model, &m, &err)) {
		bwapd_log(BWAPD_LOG_ERR, "--model: %s",
			  bwm_error_format(&err, o->model, msg, sizeof(msg)));
		return 1;
	}
	if (cmd_check_nodes("--workers", workers, m.nr_nodes))
		return EXIT_USAGE;
	if (bwm_workload_load(o->workload, &wl, &err) ||
	    bwm_workload_bind(&m, &wl, workers, 0, &err)) {
		bwapd_log(BWAPD_LOG_ERR, "%s",
			  bwm_error_format(&err, o->workload, msg, sizeof(msg)));
		return 1;
	}
	ret = inspect_model(&m, &wl, policy, o->seconds, o->noise, o->seed,
			    o->u8_err, &r);
	if (ret)
		return cmd_error("inspect", ret, NULL);
	return print(o, &r);
}

/* The machine and the workload class of a prediction, if both given. */
static int prediction_model(const struct opts *o, struct inspect_proc_opts *po,
			    struct bwm_machine *m, struct bwm_workload *wl)
{
	struct bwm_error err;
	char msg[512];

	if (!o->model != !o->workload) {
		bwapd_log(BWAPD_LOG_ERR, "a process's prediction needs both "
			  "--model and --workload");
		return EXIT_USAGE;
	}
	if (!o->model)
		return 0;
	if (bwm_machine_load(o->model, m, &err)) {
		bwapd_log(BWAPD_LOG_ERR, "%s", bwm_error_format(&err, o->model,
			  msg, sizeof(msg)));
		return 1;
	}
	if (bwm_workload_load(o->workload, wl, &err)) {
		bwapd_log(BWAPD_LOG_ERR, "%s", bwm_error_format(&err, o->workload,
			  msg, sizeof(msg)));
		return 1;
	}
	po->machine = m;
	po->workload = wl;
	return 0;
}

/* Two slices at least in the sampling time. */
static int check_interval(const struct opts *o)
{
	if (o->interval * 2 <= o->seconds)
		return 0;
	bwapd_log(BWAPD_LOG_ERR, "--interval %g: at least two slices must fit "
		  "in --seconds %g", o->interval, o->seconds);
	return EXIT_USAGE;
}

/* --range START-END: two hex addresses, START below END. */
static int parse_range(const char *s, struct inspect_proc_opts *po)
{
	unsigned long long a, b;
	char *end;

	errno = 0;
	a = strtoull(s, &end, 16);
	if (end != s && *end == '-' && !errno) {
		const char *t = end + 1;

		b = strtoull(t, &end, 16);
		if (end != t && !*end && !errno && a < b) {
			po->start = a;
			po->end = b;
			return 0;
		}
	}
	bwapd_log(BWAPD_LOG_ERR, "--range %s: expected START-END, two hex "
		  "addresses with START below END (7f0000000000-7f0000100000)",
		  s);
	return EXIT_USAGE;
}

/*
 * What a process and a program share: the sampling options, the model
 * of a prediction, this machine's topology.  0, or the exit status.
 */
static int prepare(const struct opts *o, struct inspect_proc_opts *po,
		   struct bwm_machine *m, struct bwm_workload *wl,
		   struct bwapd_topology *topo)
{
	struct bwapd_backend b;
	int ret;

	memset(po, 0, sizeof(*po));
	po->seconds = o->seconds;
	po->interval = o->interval;
	po->u8_err = o->u8_err;
	if (check_interval(o) || (o->range && parse_range(o->range, po)))
		return EXIT_USAGE;
	ret = prediction_model(o, po, m, wl);
	if (ret)
		return ret;
	if (cmd_open_here(o, &b, topo))
		return 1;
	bwapd_backend_destroy(&b);
	return 0;
}

/* A running process; --model and --workload give the prediction. */
static int inspect_pid(const struct opts *o)
{
	static struct inspect_report r;
	static struct bwm_machine m;
	struct inspect_proc_opts po;
	struct bwapd_topology topo;
	struct bwm_workload wl;
	char why[512] = "";
	int ret;

	if (o->policy || o->workers) {
		bwapd_log(BWAPD_LOG_ERR, "--%s is for a workload of the model: a "
			  "process runs where it runs", o->policy ? "policy" :
			  "workers");
		return EXIT_USAGE;
	}
	ret = prepare(o, &po, &m, &wl, &topo);
	if (ret)
		return ret;
	ret = inspect_process(o->pid, &topo, &po, &r, why, sizeof(why));
	if (ret)
		return cmd_error("inspect", ret, why);
	return print(o, &r);
}

int cmd_inspect_exec(const struct opts *o, char **argv)
{
	static struct inspect_report r;
	static struct bwm_machine m;
	struct inspect_proc_opts po;
	struct bwapd_topology topo;
	struct bwm_workload wl;
	char why[512] = "";
	uint32_t nodes;
	int ret;

	if (!argv[0]) {
		bwapd_log(BWAPD_LOG_ERR, "inspect --: no command");
		return EXIT_USAGE;
	}
	if (o->pid || o->policy) {
		bwapd_log(BWAPD_LOG_ERR, "inspect -- COMMAND runs the command: "
			  "no --%s", o->pid ? "pid" : "policy");
		return EXIT_USAGE;
	}
	ret = prepare(o, &po, &m, &wl, &topo);
	if (ret)
		return ret;
	if (o->workers) {
		if (cmd_parse_workers("--workers", o->workers, &nodes) ||
		    cmd_check_nodes("--workers", nodes, topo.nr_nodes))
			return EXIT_USAGE;
	} else if (bwapd_process_workers(0, &topo, &nodes)) {
		return cmd_error("inspect", -EINVAL, "bwapd's own CPUs");
	}
	ret = inspect_exec(argv, &topo, nodes, &po, &r, why, sizeof(why));
	if (ret)
		return cmd_error("inspect", ret, why);
	return print(o, &r);
}

int cmd_inspect(const struct opts *o)
{
	if (o->pid)
		return inspect_pid(o);
	if (o->workload) {
		if (!o->model) {
			bwapd_log(BWAPD_LOG_ERR, "--workload needs --model");
			return EXIT_USAGE;
		}
		return inspect_workload(o);
	}
	bwapd_log(BWAPD_LOG_ERR, "inspect needs --pid PID, or --model MACHINE "
		  "--workload FILE");
	return EXIT_USAGE;
}
