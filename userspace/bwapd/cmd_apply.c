// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd apply: set the global weights to the canonical weights of a
 * worker set, writing only those that change, all or nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "json_out.h"
#include "log.h"

/*
 * Weights all alike are plain interleave: what the set of every node
 * gives on a symmetric machine.  Said, as it is rarely what was meant.
 */
static void same_weights(const char *arg, const uint8_t *w, int n)
{
	int i, nr = 0, first = 0;

	for (i = 0; i < n; i++) {
		if (!w[i])
			continue;
		if (nr++ && w[i] != first)
			return;
		first = w[i];
	}
	if (nr > 1)
		bwapd_log(BWAPD_LOG_WARNING, "workers %s: every node has the same "
			  "weight: weighted interleave then places pages as plain "
			  "interleave does; apply the set of nodes the application "
			  "runs on (\"bwapd show\" lists the sets)", arg);
}

int cmd_apply(const struct opts *o, const char *arg)
{
	struct bwapd_file f;
	const struct bwapd_result *r;
	struct bwapd_backend b;
	struct bwapd_topology t;
	uint8_t want[BWAPD_MAX_NODES], old[BWAPD_MAX_NODES];
	uint8_t done[BWAPD_MAX_NODES];
	uint32_t workers;
	int i, ret = 0, changed = 0, nr_done = 0;
	json_object *doc = NULL, *nodes = NULL;
	char why[256];

	if (!arg) {
		opts_usage(stderr, C_APPLY);
		return EXIT_USAGE;
	}
	if (cmd_parse_workers("apply", arg, &workers))
		return EXIT_USAGE;
	if (cmd_load_file(o, &b, &t, &f))
		return 1;
	r = bwapd_file_find(&f, workers);
	if (!r) {
		bwapd_backend_destroy(&b);
		ret = cmd_unknown_set(&f, arg);
		bwapd_file_free(&f);
		return ret;
	}
	memcpy(want, r->weights, sizeof(want));
	bwapd_file_free(&f);
	same_weights(arg, want, t.nr_nodes);
	if (!o->dry_run && !o->model && geteuid() != 0) {
		bwapd_backend_destroy(&b);
		return cmd_error("apply", -EPERM,
				 "the global weights can only be set by root; nothing written "
				 "(--dry-run shows what would change)");
	}
	b.ops->weights_get(&b, BWAPD_DEFAULT_ROW, old, BWAPD_MAX_NODES);
	for (i = 0; i < t.nr_nodes; i++) {
		if (want[i] && !t.node[i].has_weight) {
			bwapd_backend_destroy(&b);
			snprintf(why, sizeof(why),
				 "node %d has no %s/node%d (kernel without weighted "
				 "interleave?); nothing written", i,
				 BWAPD_WEIGHTS_DIR, i);
			return cmd_error("apply", -ENOENT, why);
		}
	}
	if (o->json) {
		doc = json_object_new_object();
		bj_str(doc, "workers", arg);
		bj_bool(doc, "dry_run", o->dry_run);
		nodes = json_object_new_array();
		json_object_object_add(doc, "nodes", nodes);
	} else {
		/* the model's weights are not this machine's */
		printf("%sworkers %s: global weights (%s)\n%-6s %4s %4s\n",
		       o->dry_run ? "dry run: " : "", arg, o->model ?
		       "of the model only; this machine's are as they were" :
		       BWAPD_WEIGHTS_DIR, "node", "old", "new");
	}
	for (i = 0; i < t.nr_nodes; i++) {
		int keep = !want[i] || want[i] == old[i];

		if (!t.node[i].has_weight)
			continue;
		if (o->json) {
			json_object *jn = json_object_new_object();

			bj_int(jn, "node", i);
			bj_int(jn, "old", old[i]);
			bj_int(jn, "new", want[i] ? want[i] : old[i]);
			json_object_array_add(nodes, jn);
		} else {
			printf("%-6d %4u %4u%s\n", i, old[i],
			       want[i] ? want[i] : old[i],
			       !want[i] ? "  (no pages: left as is)" :
			       keep ? "" : "  changed");
		}
		if (keep)
			continue;
		changed++;
		if (o->dry_run || ret)
			continue;
		ret = b.ops->weight_set(&b, BWAPD_DEFAULT_ROW, i, want[i]);
		if (!ret)
			done[nr_done++] = (uint8_t)i;
	}
	if (ret) {
		json_object_put(doc);
		/* put back what was written: all or nothing */
		for (i = 0; i < nr_done; i++)
			b.ops->weight_set(&b, BWAPD_DEFAULT_ROW, done[i],
					  old[done[i]]);
		bwapd_backend_destroy(&b);
		return cmd_error("apply", ret, ret == -EACCES || ret == -EPERM ?
				 "cannot write the sysfs weights (root only); nothing written" :
				 "writing a weight failed; the old weights are back");
	}
	bwapd_backend_destroy(&b);
	if (o->json) {
		bj_int(doc, "changed", changed);
		bj_print(doc);
	} else {
		printf("%d of %d weights %s%s\n", changed,
		       __builtin_popcount(t.mem_nodes),
		       o->dry_run ? "would change" : "changed",
		       o->model ? " in the model" : "");
	}
	return 0;
}
