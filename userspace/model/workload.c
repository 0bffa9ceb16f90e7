// SPDX-License-Identifier: GPL-2.0
/*
 * Workload descriptions: checks, the workload file parser, and binding a
 * workload to a machine (which nodes run how many threads).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

int bwm_workload_first_touch(const struct bwm_workload *wl)
{
	if (wl->first_touch_node >= 0)
		return wl->first_touch_node;
	return wl->workers ? __builtin_ctz(wl->workers) : -1;
}

int bwm_workload_nr_threads(const struct bwm_workload *wl)
{
	int i, n = 0;

	for (i = 0; i < BWM_MAX_NODES; i++)
		n += wl->threads[i];
	return n;
}

static int check_params(const struct bwm_workload *wl, struct bwm_error *err)
{
	if (!(wl->demand_gbps > 0))
		return bwm_json_fail(err, NULL, "demand_gbps", "must be > 0");
	if (!(wl->mlp > 0))
		return bwm_json_fail(err, NULL, "mlp", "must be > 0");
	if (!(wl->shared >= 0 && wl->shared <= 1))
		return bwm_json_fail(err, NULL, "shared", "must be in [0, 1]");
	if (!(wl->read >= 0 && wl->read <= 1))
		return bwm_json_fail(err, NULL, "read", "must be in [0, 1]");
	if (!(wl->work_gb > 0))
		return bwm_json_fail(err, NULL, "work_gb", "must be > 0");
	if (!wl->workers)
		return bwm_json_fail(err, NULL, "workers", "no worker node");
	return 0;
}

int bwm_workload_check(const struct bwm_machine *m,
		       const struct bwm_workload *wl, struct bwm_error *err)
{
	char field[32];
	int i, ret;

	ret = check_params(wl, err);
	if (ret)
		return ret;
	if (wl->workers >> m->nr_nodes)
		return bwm_json_fail(err, NULL, "workers",
				     "a worker node beyond node %d",
				     m->nr_nodes - 1);
	for (i = 0; i < BWM_MAX_NODES; i++) {
		bool worker = wl->workers & (1u << i);

		snprintf(field, sizeof(field), "threads[%d]", i);
		if (!worker && wl->threads[i])
			return bwm_json_fail(err, NULL, field,
					     "threads on a node that is not a worker");
		if (worker && (wl->threads[i] < 1 ||
			       wl->threads[i] > m->node[i].cpus))
			return bwm_json_fail(err, NULL, field,
					     "%d threads on node %d, which has %d cores",
					     wl->threads[i], i, m->node[i].cpus);
	}
	if (wl->first_touch_node >= m->nr_nodes)
		return bwm_json_fail(err, NULL, "first_touch_node",
				     "no node %d", wl->first_touch_node);
	return 0;
}

int bwm_workload_bind(const struct bwm_machine *m, struct bwm_workload *wl,
		      uint32_t workers, int threads_per_worker,
		      struct bwm_error *err)
{
	int i;

	if (workers)
		wl->workers = workers;
	if (threads_per_worker > 0)
		wl->threads_per_worker = threads_per_worker;
	for (i = 0; i < BWM_MAX_NODES; i++) {
		wl->threads[i] = 0;
		if (!(wl->workers & (1u << i)))
			continue;
		if (i >= m->nr_nodes)
			return bwm_json_fail(err, NULL, "workers",
					     "node %d: the machine has %d nodes",
					     i, m->nr_nodes);
		if (!m->node[i].cpus)
			return bwm_json_fail(err, NULL, "workers",
					     "node %d has no CPUs", i);
		wl->threads[i] = wl->threads_per_worker ?
				 wl->threads_per_worker : m->node[i].cpus;
	}
	return bwm_workload_check(m, wl, err);
}

static const char *const workload_keys[] = {
	"name", "class", "description", "source", "measured", "workers",
	"threads_per_worker",
	"demand_gbps", "mlp", "shared", "read", "work_gb",
	"first_touch_node", "footprint_gb", NULL
};

/*
 * A non-empty array of distinct node numbers at obj[key] into *mask;
 * errors name 'field' (the key with its parents).
 */
static int parse_node_list(const char *text, struct json_object *obj,
			   const char *key, const char *field, uint32_t *mask,
			   struct bwm_error *err)
{
	struct json_object *a;
	char path[48];
	size_t i, n;

	*mask = 0;
	if (!json_object_object_get_ex(obj, key, &a) || !a)
		return bwm_json_fail(err, text, field,
				     "missing (an array of node numbers)");
	if (!json_object_is_type(a, json_type_array) ||
	    !json_object_array_length(a))
		return bwm_json_fail(err, text, field,
				     "must be a non-empty array of node numbers");
	n = json_object_array_length(a);
	for (i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(a, i);
		int64_t node;

		snprintf(path, sizeof(path), "%s[%zu]", field, i);
		if (!v || !json_object_is_type(v, json_type_int))
			return bwm_json_fail(err, text, path,
					     "not a node number");
		node = json_object_get_int64(v);
		if (node < 0 || node >= BWM_MAX_NODES)
			return bwm_json_fail(err, text, path,
					     "node %lld out of range [0, %d]",
					     (long long)node, BWM_MAX_NODES - 1);
		if (*mask & (1u << node))
			return bwm_json_fail(err, text, path,
					     "node %lld listed twice",
					     (long long)node);
		*mask |= 1u << node;
	}
	return 0;
}

static const char *const measured_keys[] = {
	"machine", "workers", "gbps", NULL
};

/* The optional "measured" object: a throughput seen on a preset machine. */
static int parse_measured(const char *text, struct json_object *root,
			  struct bwm_measured *ms, struct bwm_error *err)
{
	struct json_object *o;
	int ret;

	if (!json_object_object_get_ex(root, "measured", &o) || !o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return bwm_json_fail(err, text, "measured", "not an object");
	ret = bwm_json_known_keys(text, o, "measured", measured_keys, err);
	if (!ret)
		ret = bwm_json_string(text, o, "machine", ms->machine,
				      sizeof(ms->machine), err);
	if (!ret && !ms->machine[0])
		ret = bwm_json_fail(err, text, "measured.machine",
				    "missing (a preset machine)");
	if (!ret)
		ret = parse_node_list(text, o, "workers", "measured.workers",
				      &ms->workers, err);
	if (!ret)
		ret = bwm_json_number(text, o, "measured", "gbps", true, 0,
				      1e-6, 1e6, &ms->gbps, err);
	return ret;
}

int bwm_workload_parse(const char *text, struct bwm_workload *wl,
		       struct bwm_error *err)
{
	struct json_object *root = NULL;
	double tpw = 0, ftn = -1;
	int ret;

	memset(wl, 0, sizeof(*wl));
	ret = bwm_json_parse(text, &root, err);
	if (ret)
		return ret;
	if (!json_object_is_type(root, json_type_object)) {
		ret = bwm_json_fail(err, text, "", "not a JSON object");
		goto out;
	}
	ret = bwm_json_known_keys(text, root, "", workload_keys, err);
	if (!ret)
		ret = bwm_json_string(text, root, "name", wl->name,
				      sizeof(wl->name), err);
	if (!ret)
		ret = bwm_json_string(text, root, "class", wl->kind,
				      sizeof(wl->kind), err);
	if (!ret)
		ret = parse_node_list(text, root, "workers", "workers",
				      &wl->workers, err);
	if (!ret)
		ret = parse_measured(text, root, &wl->measured, err);
	if (!ret)
		ret = bwm_json_number(text, root, "", "threads_per_worker",
				      false, 0, 0, 4096, &tpw, err);
	if (!ret && tpw != floor(tpw))
		ret = bwm_json_fail(err, text, "threads_per_worker",
				    "not a whole number");
	if (!ret)
		ret = bwm_json_number(text, root, "", "demand_gbps", true, 0,
				      1e-6, 1e4, &wl->demand_gbps, err);
	if (!ret)
		ret = bwm_json_number(text, root, "", "mlp", true, 0, 0.01,
				      1e4, &wl->mlp, err);
	if (!ret)
		ret = bwm_json_number(text, root, "", "shared", true, 0, 0, 1,
				      &wl->shared, err);
	if (!ret)
		ret = bwm_json_number(text, root, "", "read", false, 1, 0, 1,
				      &wl->read, err);
	if (!ret)
		ret = bwm_json_number(text, root, "", "work_gb", false, 10,
				      1e-9, 1e9, &wl->work_gb, err);
	if (!ret)
		ret = bwm_json_number(text, root, "", "footprint_gb", false, 1,
				      1e-6, 1e6, &wl->footprint_gb, err);
	if (!ret)
		ret = bwm_json_number(text, root, "", "first_touch_node",
				      false, -1, -1, BWM_MAX_NODES - 1, &ftn,
				      err);
	if (!ret && ftn != floor(ftn))
		ret = bwm_json_fail(err, text, "first_touch_node",
				    "not a whole number");
	wl->threads_per_worker = (int)tpw;
	wl->first_touch_node = (int)ftn;
	if (!ret)
		ret = check_params(wl, err);
out:
	json_object_put(root);
	return ret;
}

static int parse_cb(const char *text, void *obj, struct bwm_error *err)
{
	return bwm_workload_parse(text, obj, err);
}

int bwm_workload_load(const char *path, struct bwm_workload *wl,
		       struct bwm_error *err)
{
	return bwm_parse_file(path, parse_cb, wl, err);
}

int bwm_preset_load(const char *dir, const char *machine,
		    const char *workload, uint32_t workers,
		    struct bwm_machine *m, struct bwm_workload *wl,
		    char *msg, size_t len)
{
	struct bwm_error err;
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/machines/%s.json", dir, machine);
	ret = bwm_machine_load(path, m, &err);
	if (!ret && workload) {
		snprintf(path, sizeof(path), "%s/workloads/%s.json", dir,
			 workload);
		ret = bwm_workload_load(path, wl, &err);
		if (!ret)
			ret = bwm_workload_bind(m, wl, workers, 0, &err);
	}
	if (ret)
		bwm_error_format(&err, path, msg, len);
	return ret;
}
