// SPDX-License-Identifier: GPL-2.0
/*
 * What the commands (cmd_*.c) share: opening the backend, reading the
 * weights file, parsing worker sets, reporting errors (cmd.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "status.h"

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
