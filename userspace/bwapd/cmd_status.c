// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd status: what every tuner is doing, from their status files.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "json_out.h"
#include "status.h"

static json_object *status_json(const struct bwapd_status *s)
{
	json_object *e = json_object_new_object();

	bj_int(e, "pid", s->pid);
	bj_int(e, "tuner", s->tuner);
	bj_str(e, "command", s->command);
	bj_str(e, "target", s->target);
	bj_str(e, "placement", s->placement);
	bj_str(e, "workers", s->workers);
	bj_str(e, "state", s->state);
	bj_bool(e, "stale", s->stale);
	bj_num(e, "dwp", s->dwp, "%.4f");
	bj_str(e, "metric", s->metric);
	bj_num(e, "stalls", s->stalls, "%.6g");
	bj_int(e, "steps", s->steps);
	bj_int(e, "tunings", s->tunings);
	bj_int(e, "pages_moved", (int64_t)s->moved);
	bj_int(e, "updated", (int64_t)s->updated);
	bj_u8s(e, "weights", s->weights, s->nr_nodes);
	return e;
}

int cmd_status(const struct opts *o)
{
	static struct bwapd_status st[256];
	json_object *doc, *list;
	char w[4 * BWM_MAX_NODES], cmd[64];
	struct stat sb;
	int i, j, n;

	/* no tuner has run yet where they run by default; elsewhere, a typo */
	if (strcmp(o->run_dir, BWAPD_RUN_DIR) && stat(o->run_dir, &sb)) {
		char why[512];

		snprintf(why, sizeof(why), "%s: %s", o->run_dir, strerror(errno));
		return cmd_error("--run-dir", -errno, why);
	}
	n = bwapd_status_list(o->run_dir, st, 256);
	if (n < 0)
		return cmd_error("status", n, NULL);
	if (o->json) {
		doc = json_object_new_object();
		list = json_object_new_array();
		for (i = 0; i < n; i++)
			json_object_array_add(list, status_json(&st[i]));
		json_object_object_add(doc, "tuners", list);
		return bj_print(doc) ? 1 : 0;
	}
	if (n)
		printf("%-7s %-7s %-15s %-8s %-9s %6s %-12s %5s %10s  %-15s %s\n",
		       "pid", "tuner", "command", "workers", "state", "DWP",
		       "stalls", "steps", "pages", "weights", "placement");
	else
		printf("no process is being tuned (%s)\n", o->run_dir);
	for (i = 0; i < n; i++) {
		const struct bwapd_status *s = &st[i];
		char pid[16];

		bwm_weights_format(s->weights, s->nr_nodes, w, sizeof(w));
		/* a command name is any bytes: no terminal controls */
		snprintf(cmd, sizeof(cmd), "%s", s->command);
		for (j = 0; cmd[j]; j++)
			if ((unsigned char)cmd[j] < 0x20 || cmd[j] == 0x7f)
				cmd[j] = '?';
		snprintf(pid, sizeof(pid), "%d", (int)s->pid);
		printf("%-7s %-7d %-15s %-8s %-9s %6.3f %-12.4g %5d %10llu  %-15s %s\n",
		       s->pid ? pid : "model", (int)s->tuner, cmd,
		       s->workers, s->stale ? "stale" : s->state, s->dwp,
		       s->stalls, s->steps, (unsigned long long)s->moved, w,
		       s->placement[0] ? s->placement : "-");
	}
	return 0;
}
