// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd: canonical weights for weighted interleave, the admin path, and
 * the DWP tuner.
 *
 *   bwapd COMMAND [OPTIONS] [ARGS]
 *
 * main() parses the command line (opts.c) and runs the command, whose
 * front end is cmd_COMMAND.c; what the commands share is cmd_common.c.
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
