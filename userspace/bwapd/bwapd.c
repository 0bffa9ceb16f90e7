// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd: canonical weights for weighted interleave, the admin path, and
 * the DWP tuner.
 *
 *   bwapd COMMAND [OPTIONS] [ARGS]
 *
 * main() parses the command line (opts.c) and runs the command, whose
 * front end is cmd_COMMAND.c; here too is what the commands share.
 * Documentation/man8/bwapd.8 and Documentation/bwapd.md describe it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "placement.h"
#include "rules.h"
#include "status.h"

/* ---- shared by the commands ---- */

const char *cmd_damon_dir(const struct opts *o)
{
	return o->run_dir && *o->run_dir ? o->run_dir : BWAPD_RUN_DIR;
}

int cmd_error(const char *what, int ret, const char *why)
{
	if (why && *why)
		bwapd_log(BWAPD_LOG_ERR, "%s: %s", what, why);
	else
		bwapd_log(BWAPD_LOG_ERR, "%s: %s", what, strerror(-ret));
	return 1;
}

int cmd_open_backend(const struct opts *o, struct bwapd_backend *b,
		     struct bwapd_topology *t)
{
	char why[512] = "";
	int ret;

	if (o->model)
		ret = bwapd_backend_model(b, o->model, o->seed, o->noise, why,
					  sizeof(why));
	else
		ret = bwapd_backend_real(b, o->root);
	if (!ret && !o->model && o->pmu_root)
		ret = bwapd_backend_real_pmu_root(b, o->pmu_root);
	if (ret)
		return cmd_error("backend", ret, why);
	ret = b->ops->topology(b, t, why, sizeof(why));
	if (ret) {
		bwapd_backend_destroy(b);
		return cmd_error("topology", ret, why);
	}
	bwapd_log(BWAPD_LOG_DEBUG, "backend %s: %d nodes, %s", b->ops->name,
		  t->nr_nodes, t->cpu_model);
	return 0;
}

/* This machine, even with --model: a process runs here. */
int cmd_open_here(const struct opts *o, struct bwapd_backend *b,
		  struct bwapd_topology *t)
{
	struct opts here = *o;

	here.model = NULL;
	return cmd_open_backend(&here, b, t);
}

const char *cmd_fallback_name(const struct bwapd_topology *t)
{
	int i;

	for (i = 0; i < t->nr_nodes; i++)
		if ((t->mem_nodes & (1u << i)) && !t->node[i].initiators)
			return "slit";
	return "hmat";
}

int cmd_load_file(const struct opts *o, struct bwapd_backend *b,
		  struct bwapd_topology *t, struct bwapd_file *f)
{
	char why[512] = "";
	int ret;

	if (cmd_open_backend(o, b, t))
		return 1;
	ret = bwapd_file_read(o->file, t, f, why, sizeof(why));
	if (ret) {
		bwapd_backend_destroy(b);
		return cmd_error(ret == -ESTALE ? "stale weights file" : "weights file",
				 ret, why);
	}
	return 0;
}

int cmd_parse_workers(const char *what, const char *arg, uint32_t *w)
{
	if (bwapd_nodelist_parse(arg, w)) {
		bwapd_log(BWAPD_LOG_ERR, "%s: '%s' is not a node list (e.g. 0-1 "
			  "or 0,2)", what, arg);
		return 1;
	}
	return 0;
}

int cmd_check_nodes(const char *what, uint32_t mask, int nr_nodes)
{
	uint32_t extra = (uint32_t)(mask & ~((1ull << nr_nodes) - 1));
	char list[64];

	if (!extra)
		return 0;
	bwapd_log(BWAPD_LOG_ERR, "%s: node%s %s do%s not exist (the machine has "
		  "nodes 0-%d)", what, extra & (extra - 1) ? "s" : "",
		  bwapd_nodelist_format(extra, list, sizeof(list)),
		  extra & (extra - 1) ? "" : "es", nr_nodes - 1);
	return EXIT_USAGE;
}

int cmd_unknown_set(const struct bwapd_file *f, const char *arg)
{
	uint32_t mask;
	char what[96];

	snprintf(what, sizeof(what), "workers %s", arg);
	if (!bwapd_nodelist_parse(arg, &mask) &&
	    cmd_check_nodes(what, mask, f->nr_nodes))
		return EXIT_USAGE;
	bwapd_log(BWAPD_LOG_ERR,
		"no canonical weights for workers %s in the file (%d sets;"
		" \"bwapd show\" lists them, \"bwapd profile --all\" profiles"
		" spread-out sets too)", arg, f->nr_results);
	return 1;
}

/* ---- main ---- */

int main(int argc, char **argv)
{
	struct opts o = {
		.file = BWAPD_DEFAULT_FILE, .root = "", .seed = 1,
		.run_dir = BWAPD_RUN_DIR, .rules = BWAPD_RULES_FILE, .scan = 5,
		.seconds = 2, .u8_err = BWM_DEFAULT_U8_ERR, .interval = 0.05,
		.log_level = BWAPD_LOG_INFO, .placement = BWAPD_PLACE_AUTO,
	};
	int seen[NR_OPTS] = { 0 };
	char preset[4][BWAPD_PATH_MAX];
	const char *arg;
	struct words w;
	int c, cmd;

	bwapd_tune_opts_default(&o.tune);
	o.watch = -1;
	bwapd_log_init(BWAPD_LOG_INFO);

	c = opts_parse(argc, argv, &o, seen, &w);
	bwapd_log_init(o.log_level);
	if (c)
		return c;
	for (cmd = 0; w.nr && cmd < NR_CMDS; cmd++)
		if (!strcmp(w.word[0], opts_cmd_name(cmd)))
			break;
	if (seen[opts_index("version")]) {
		printf("bwapd %s\n", BWAPD_VERSION);
		return 0;
	}
	if (seen[opts_index("help")] && (!w.nr || cmd < NR_CMDS)) {
		opts_usage(stdout, w.nr ? cmd : -1);
		return 0;
	}
	if (!w.nr || cmd == NR_CMDS) {
		if (w.nr)
			bwapd_log(BWAPD_LOG_ERR, "%s: no such command", w.word[0]);
		opts_usage(stderr, -1);
		return EXIT_USAGE;
	}
	if (opts_check(seen, cmd, opts_cmd_name(cmd)))
		return EXIT_USAGE;
	if (opts_metric(seen, &o, opts_cmd_name(cmd)))
		return EXIT_USAGE;
	/* a tuning of the model's workload touches nothing of this machine's */
	if (cmd == C_TUNE && !o.pid && !seen[opts_index("run-dir")])
		o.run_dir = "";
	if ((cmd == C_TUNE || cmd == C_EXEC || cmd == C_DAEMON) &&
	    bwapd_tune_opts_check(&o.tune)) {
		bwapd_log(BWAPD_LOG_ERR, "bad tuner parameters (samples 1-1000 with "
			  "2 x trim fewer, period > 0, steps in (0, 1], max-steps "
			  "up to 126, rate >= 0)");
		return EXIT_USAGE;
	}
	if (opts_presets(&o, preset))
		return EXIT_USAGE;
	if (cmd == C_EXEC)
		return cmd_exec(&o, seen, &w);
	if (cmd == C_INSPECT && w.rest && w.nr == 1)
		return cmd_inspect_exec(&o, w.rest);
	arg = w.nr > 1 ? w.word[1] : NULL;
	if (w.rest || w.nr > ((cmd == C_SHOW || cmd == C_APPLY) ? 2 : 1)) {
		bwapd_log(BWAPD_LOG_ERR, "%s: too many arguments (\"bwapd %s --help\")",
			  opts_cmd_name(cmd), opts_cmd_name(cmd));
		return EXIT_USAGE;
	}
	switch (cmd) {
	case C_TOPOLOGY:
		return cmd_topology(&o);
	case C_PROFILE:
		return cmd_profile(&o);
	case C_SHOW:
		return cmd_show(&o, arg);
	case C_APPLY:
		return cmd_apply(&o, arg);
	case C_TUNE:
		return cmd_tune(&o);
	case C_STATUS:
		return cmd_status(&o);
	case C_INSPECT:
		return cmd_inspect(&o);
	default:
		return cmd_daemon(&o);
	}
}
