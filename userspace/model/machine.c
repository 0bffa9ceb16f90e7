// SPDX-License-Identifier: GPL-2.0
/*
 * Machine descriptions: checks and the machine file parser.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define MAX_GBPS	100000.0
#define MAX_LATENCY_NS	100000.0

static int check_fail(struct bwm_error *err, const char *field,
		      const char *msg)
{
	return bwm_json_fail(err, NULL, field, "%s", msg);
}

double bwm_core_speed(const struct bwm_machine *m)
{
	return m->core_speed > 0 ? m->core_speed : 1;
}

double bwm_thread_demand(const struct bwm_machine *m,
			 const struct bwm_workload *wl)
{
	return wl->demand_gbps * bwm_core_speed(m);
}

uint32_t bwm_cpu_nodes(const struct bwm_machine *m)
{
	uint32_t mask = 0;
	int i;

	for (i = 0; i < m->nr_nodes; i++)
		if (m->node[i].cpus > 0)
			mask |= 1u << i;
	return mask;
}

static int check_links(const struct bwm_machine *m, struct bwm_error *err)
{
	char field[64];
	int l, k;

	if (m->nr_links < 0 || m->nr_links > BWM_MAX_LINKS)
		return check_fail(err, "links", "at most 64 links");
	for (l = 0; l < m->nr_links; l++) {
		const struct bwm_link *a = &m->link[l];

		snprintf(field, sizeof(field), "links[%d]", l);
		if (a->from < 0 || a->from >= m->nr_nodes || a->to < 0 ||
		    a->to >= m->nr_nodes || a->from == a->to)
			return check_fail(err, field,
					  "from and to must be two different nodes");
		if (!(a->gbps > 0) || !(a->gbps <= MAX_GBPS))
			return check_fail(err, field, "gbps must be > 0");
		for (k = 0; k < l; k++)
			if (m->link[k].from == a->from && m->link[k].to == a->to)
				return check_fail(err, field,
						  "a second link between the same nodes in the same direction");
	}
	return 0;
}

/*
 * Layer by layer (hop count h), each node reached at h - 1 offers its
 * outgoing links; a node not reached yet keeps the offer with the widest
 * narrowest link, then the one over the links the routes found so far
 * load least for their capacity (used[l]: how many routes cross link l),
 * then the first link listed.
 */
static void route_from(const struct bwm_machine *m, int src,
		       const int *used, uint64_t out[BWM_MAX_NODES])
{
	double width[BWM_MAX_NODES], cost[BWM_MAX_NODES];
	int hops[BWM_MAX_NODES];
	int n = m->nr_nodes, h, v, l;

	for (v = 0; v < n; v++) {
		hops[v] = -1;
		width[v] = 0;
		cost[v] = 0;
		out[v] = 0;
	}
	hops[src] = 0;
	width[src] = INFINITY;
	for (h = 1; h < n; h++) {
		uint64_t next[BWM_MAX_NODES];
		double nw[BWM_MAX_NODES], nc[BWM_MAX_NODES];
		bool any = false;

		for (v = 0; v < n; v++)
			nw[v] = 0;
		for (l = 0; l < m->nr_links; l++) {
			const struct bwm_link *a = &m->link[l];
			double w, c;

			if (hops[a->from] != h - 1 ||
			    (hops[a->to] >= 0 && hops[a->to] < h))
				continue;
			w = fmin(width[a->from], a->gbps);
			c = cost[a->from] + used[l] / a->gbps;
			if (w > nw[a->to] || (w == nw[a->to] && c < nc[a->to])) {
				nw[a->to] = w;
				nc[a->to] = c;
				next[a->to] = out[a->from] | (1ull << l);
			}
		}
		for (v = 0; v < n; v++) {
			if (nw[v] > 0 && hops[v] < 0) {
				hops[v] = h;
				width[v] = nw[v];
				cost[v] = nc[v];
				out[v] = next[v];
				any = true;
			}
		}
		if (!any)
			break;
	}
}

/* The index of the link from a to b, or -1. */
static int link_index(const struct bwm_machine *m, int a, int b)
{
	int l;

	for (l = 0; l < m->nr_links; l++)
		if (m->link[l].from == a && m->link[l].to == b)
			return l;
	return -1;
}

/*
 * The links of the route pinned from a to b; -EINVAL (err) where a hop
 * has no link or a node repeats.
 */
static int pinned_route(const struct bwm_machine *m, int a, int b,
			uint64_t *out, struct bwm_error *err)
{
	int hops = m->pin_hops[a][b], from = a, h, l, to;
	uint32_t seen = 1u << a;

	*out = 0;
	for (h = 0; h < hops; h++) {
		to = h == hops - 1 ? b : m->pin_via[a][b][h];
		l = to >= 0 && to < m->nr_nodes ? link_index(m, from, to) : -1;
		if (l < 0 || (seen & (1u << to)))
			return bwm_json_fail(err, NULL, "routes",
					     "the route from node %d to node %d: %s node %d to node %d",
					     a, b, l < 0 ? "no link from" :
					     "a loop from", from, to);
		seen |= 1u << to;
		*out |= 1ull << l;
		from = to;
	}
	return 0;
}

int bwm_machine_routes(struct bwm_machine *m, struct bwm_error *err)
{
	int used[BWM_MAX_LINKS] = { 0 };
	int a, b, l, ret;

	ret = check_links(m, err);
	if (ret)
		return ret;
	memset(m->route, 0, sizeof(m->route));
	if (!m->nr_links) {
		for (a = 0; a < m->nr_nodes; a++)
			for (b = 0; b < m->nr_nodes; b++)
				if (m->pin_hops[a][b])
					return bwm_json_fail(err, NULL, "routes",
							     "routes given without links");
		return 0;
	}
	for (a = 0; a < m->nr_nodes; a++) {
		route_from(m, a, used, m->route[a]);
		for (b = 0; b < m->nr_nodes; b++)
			for (l = 0; l < m->nr_links; l++)
				used[l] += !!(m->route[a][b] & (1ull << l));
	}
	for (a = 0; a < m->nr_nodes; a++)
		for (b = 0; b < m->nr_nodes; b++) {
			if (!m->pin_hops[a][b])
				continue;
			ret = pinned_route(m, a, b, &m->route[a][b], err);
			if (ret)
				return ret;
		}
	for (a = 0; a < m->nr_nodes; a++) {
		for (b = 0; b < m->nr_nodes; b++) {
			if (a == b || m->route[a][b] ||
			    (!m->node[a].cpus && !m->node[b].cpus))
				continue;
			return bwm_json_fail(err, NULL, "links",
					     "no route from node %d to node %d",
					     a, b);
		}
	}
	return 0;
}

int bwm_machine_check(const struct bwm_machine *m, struct bwm_error *err)
{
	char field[64];
	int i, j;

	if (m->nr_nodes < 1 || m->nr_nodes > BWM_MAX_NODES)
		return check_fail(err, "nodes", "1 to 16 nodes");
	if (!(m->cpu_ghz > 0))
		return check_fail(err, "cpu_ghz", "must be > 0");
	if (!(m->queue_factor >= 0))
		return check_fail(err, "queue_factor", "must be >= 0");
	if (!(m->core_speed >= 0))
		return check_fail(err, "core_speed", "must be > 0");
	if (!bwm_cpu_nodes(m))
		return check_fail(err, "nodes", "no node has CPUs");
	for (i = 0; i < m->nr_nodes; i++) {
		const struct bwm_node *n = &m->node[i];

		snprintf(field, sizeof(field), "nodes[%d]", i);
		if (n->cpus < 0 || !(n->ctrl_read_gbps > 0) ||
		    !(n->ctrl_write_gbps > 0) || !(n->interconnect_gbps >= 0) ||
		    !(n->ctrl_read_gbps <= MAX_GBPS) ||
		    !(n->ctrl_write_gbps <= MAX_GBPS) ||
		    !(n->interconnect_gbps <= MAX_GBPS))
			return check_fail(err, field,
					  "cpus >= 0 and controller bandwidth > 0, "
					  "at most 100000 GB/s");
	}
	for (i = 0; i < m->nr_nodes; i++) {
		for (j = 0; j < m->nr_nodes; j++) {
			bool cpu = m->node[j].cpus > 0;

			snprintf(field, sizeof(field), "[%d][%d]", i, j);
			if (cpu && (!(m->read_gbps[i][j] > 0) ||
				    !(m->write_gbps[i][j] > 0) ||
				    !(m->latency_ns[i][j] > 0)))
				return check_fail(err, field,
						  "bandwidth and latency to a node with CPUs must be > 0");
			if (!(m->read_gbps[i][j] <= MAX_GBPS) ||
			    !(m->write_gbps[i][j] <= MAX_GBPS) ||
			    !(m->latency_ns[i][j] <= MAX_LATENCY_NS))
				return check_fail(err, field,
						  "bandwidth at most 100000 GB/s, latency at most 100000 ns");
		}
	}
	return check_links(m, err);
}

static const char *const machine_keys[] = {
	"name", "description", "source", "cpu_ghz", "core_speed",
	"queue_factor", "nodes",
	"read_gbps", "write_gbps", "latency_ns", "links", "routes", NULL
};

static const char *const route_keys[] = {
	"from", "to", "via", "comment", NULL
};

static const char *const link_keys[] = {
	"from", "to", "gbps", "comment", NULL
};

static const char *const node_keys[] = {
	"cpus", "ctrl_read_gbps", "ctrl_write_gbps", "interconnect_gbps",
	"comment", NULL
};

static int parse_nodes(const char *text, struct json_object *root,
		       struct bwm_machine *m, struct bwm_error *err)
{
	struct json_object *nodes;
	char prefix[32];
	size_t i, n;
	int ret;

	if (!json_object_object_get_ex(root, "nodes", &nodes) || !nodes)
		return bwm_json_fail(err, text, "nodes", "missing");
	if (!json_object_is_type(nodes, json_type_array))
		return bwm_json_fail(err, text, "nodes", "not an array");
	n = json_object_array_length(nodes);
	if (n < 1 || n > BWM_MAX_NODES)
		return bwm_json_fail(err, text, "nodes",
				     "%zu nodes; 1 to %d are supported", n,
				     BWM_MAX_NODES);
	m->nr_nodes = (int)n;
	for (i = 0; i < n; i++) {
		struct bwm_node *nd = &m->node[i];
		struct json_object *o;
		double cpus;

		ret = bwm_json_array_object(text, nodes, "nodes", i, node_keys,
					    prefix, sizeof(prefix), &o, err);
		if (!ret)
			ret = bwm_json_number(text, o, prefix, "cpus", true, 0,
					      0, 4096, &cpus, err);
		if (!ret && cpus != floor(cpus))
			ret = bwm_json_fail(err, text, prefix,
					    "cpus: not a whole number");
		if (!ret)
			ret = bwm_json_number(text, o, prefix, "ctrl_read_gbps",
					      true, 0, 1e-3, MAX_GBPS,
					      &nd->ctrl_read_gbps, err);
		if (!ret)
			ret = bwm_json_number(text, o, prefix,
					      "ctrl_write_gbps", false,
					      nd->ctrl_read_gbps, 1e-3,
					      MAX_GBPS, &nd->ctrl_write_gbps,
					      err);
		if (!ret)
			ret = bwm_json_number(text, o, prefix,
					      "interconnect_gbps", false, 0, 0,
					      MAX_GBPS, &nd->interconnect_gbps,
					      err);
		if (ret)
			return ret;
		nd->cpus = (int)cpus;
	}
	return 0;
}

static int parse_links(const char *text, struct json_object *root,
		       struct bwm_machine *m, struct bwm_error *err)
{
	struct json_object *links;
	char prefix[32];
	size_t i, n;
	int ret = 0;

	if (!json_object_object_get_ex(root, "links", &links) || !links)
		return 0;
	if (!json_object_is_type(links, json_type_array))
		return bwm_json_fail(err, text, "links", "not an array");
	n = json_object_array_length(links);
	if (n > BWM_MAX_LINKS)
		return bwm_json_fail(err, text, "links",
				     "%zu links; at most %d are supported", n,
				     BWM_MAX_LINKS);
	for (i = 0; i < n && !ret; i++) {
		struct bwm_link *a = &m->link[i];
		struct json_object *o;
		double from = 0, to = 0;

		ret = bwm_json_array_object(text, links, "links", i, link_keys,
					    prefix, sizeof(prefix), &o, err);
		if (!ret)
			ret = bwm_json_number(text, o, prefix, "from", true, 0,
					      0, m->nr_nodes - 1, &from, err);
		if (!ret)
			ret = bwm_json_number(text, o, prefix, "to", true, 0, 0,
					      m->nr_nodes - 1, &to, err);
		if (!ret && (from != floor(from) || to != floor(to)))
			ret = bwm_json_fail(err, text, prefix,
					    "from and to must be node numbers");
		if (!ret)
			ret = bwm_json_number(text, o, prefix, "gbps", true, 0,
					      1e-3, MAX_GBPS, &a->gbps, err);
		a->from = (int)from;
		a->to = (int)to;
		m->nr_links = (int)i + 1;
	}
	return ret;
}

/* A node number at o[key] (a number already read into v). */
static int node_number(const char *text, const char *prefix, double v,
		       const struct bwm_machine *m, struct bwm_error *err)
{
	if (v != floor(v) || v < 0 || v >= m->nr_nodes)
		return bwm_json_fail(err, text, prefix,
				     "%g is not a node number (0 to %d)", v,
				     m->nr_nodes - 1);
	return 0;
}

/*
 * "routes": the routes given rather than chosen, each from a node to
 * another through the nodes of "via" (the links between them must be
 * listed), at most one for each pair.  Then the routes are made, once
 * the links and these are read.
 */
static int parse_routes(const char *text, struct json_object *root,
			struct bwm_machine *m, struct bwm_error *err)
{
	struct json_object *routes = NULL, *via;
	char prefix[32];
	size_t i, k, n = 0, nv;
	int ret = 0;

	if (json_object_object_get_ex(root, "routes", &routes) && routes &&
	    !json_object_is_type(routes, json_type_array))
		return bwm_json_fail(err, text, "routes", "not an array");
	if (routes)
		n = json_object_array_length(routes);
	for (i = 0; i < n && !ret; i++) {
		struct json_object *o;
		double from = 0, to = 0, v;

		ret = bwm_json_array_object(text, routes, "routes", i,
					    route_keys, prefix, sizeof(prefix),
					    &o, err);
		if (!ret)
			ret = bwm_json_number(text, o, prefix, "from", true, 0,
					      -1e9, 1e9, &from, err);
		if (!ret)
			ret = node_number(text, prefix, from, m, err);
		if (!ret)
			ret = bwm_json_number(text, o, prefix, "to", true, 0,
					      -1e9, 1e9, &to, err);
		if (!ret)
			ret = node_number(text, prefix, to, m, err);
		if (ret)
			break;
		if (from == to)
			return bwm_json_fail(err, text, prefix,
					     "from and to are the same node");
		if (m->pin_hops[(int)from][(int)to])
			return bwm_json_fail(err, text, prefix,
					     "a second route from node %g to node %g",
					     from, to);
		if (!json_object_object_get_ex(o, "via", &via) || !via ||
		    !json_object_is_type(via, json_type_array))
			return bwm_json_fail(err, text, prefix,
					     "via: an array of node numbers is required");
		nv = json_object_array_length(via);
		if (nv > BWM_MAX_NODES - 2)
			return bwm_json_fail(err, text, prefix,
					     "via: at most %d nodes",
					     BWM_MAX_NODES - 2);
		for (k = 0; k < nv && !ret; k++) {
			struct json_object *e = json_object_array_get_idx(via, k);

			if (!e || (!json_object_is_type(e, json_type_int) &&
				   !json_object_is_type(e, json_type_double)))
				return bwm_json_fail(err, text, prefix,
						     "via: not a node number");
			v = json_object_get_double(e);
			ret = node_number(text, prefix, v, m, err);
			m->pin_via[(int)from][(int)to][k] = (uint8_t)v;
		}
		m->pin_hops[(int)from][(int)to] = (uint8_t)(nv + 1);
	}
	if (!ret)
		ret = bwm_machine_routes(m, err);
	if (ret && err && !err->line)
		bwm_json_locate(text, err->field, &err->line, &err->column);
	return ret;
}

/*
 * An n x n matrix [mem][cpu]; entries in columns of memory-only nodes
 * must be 0 or null, the others in (0, max].
 */
static int parse_matrix(const char *text, struct json_object *root,
			const char *key, const struct bwm_machine *m,
			double max, double out[BWM_MAX_NODES][BWM_MAX_NODES],
			struct bwm_error *err)
{
	struct json_object *a;
	char path[64];
	int i, j, n = m->nr_nodes;

	if (!json_object_object_get_ex(root, key, &a) || !a)
		return bwm_json_fail(err, text, key, "missing");
	if (!json_object_is_type(a, json_type_array) ||
	    (int)json_object_array_length(a) != n)
		return bwm_json_fail(err, text, key,
				     "must be an array of %d rows (one per memory node)",
				     n);
	for (i = 0; i < n; i++) {
		struct json_object *row = json_object_array_get_idx(a, i);

		snprintf(path, sizeof(path), "%s[%d]", key, i);
		if (!row || !json_object_is_type(row, json_type_array) ||
		    (int)json_object_array_length(row) != n)
			return bwm_json_fail(err, text, path,
					     "must be an array of %d numbers (one per CPU node)",
					     n);
		for (j = 0; j < n; j++) {
			struct json_object *v = json_object_array_get_idx(row, j);
			bool cpu = m->node[j].cpus > 0;
			double d = 0;

			snprintf(path, sizeof(path), "%s[%d][%d]", key, i, j);
			if (v && !json_object_is_type(v, json_type_double) &&
			    !json_object_is_type(v, json_type_int))
				return bwm_json_fail(err, text, path,
						     "not a number");
			if (v)
				d = json_object_get_double(v);
			if (!cpu && d != 0)
				return bwm_json_fail(err, text, path,
						     "node %d has no CPUs: must be 0 or null",
						     j);
			if (cpu && (!isfinite(d) || d <= 0 || d > max))
				return bwm_json_fail(err, text, path,
						     "%g is out of range (0, %g]",
						     d, max);
			out[i][j] = d;
		}
	}
	return 0;
}

/*
 * A bwapd profile (its "format") holds the model bwapd profile measured
 * under "model": that is the machine.  Its text is parsed as a file of
 * its own, and an error names the member.
 */
#define PROFILE_FORMAT	"bwapd-canonical-weights"

static int parse_profile(struct json_object *root, struct bwm_machine *m,
			 struct bwm_error *err)
{
	struct json_object *model;
	char field[sizeof(err->field) + 8];
	int ret;

	if (!json_object_object_get_ex(root, "model", &model) ||
	    !json_object_is_type(model, json_type_object))
		return bwm_json_fail(err, NULL, "model",
				     "a bwapd profile without a model of the machine (written before bwapd profile measured one): run bwapd profile again");
	ret = bwm_machine_parse(json_object_to_json_string_ext(model,
						JSON_C_TO_STRING_PRETTY), m, err);
	if (ret) {
		snprintf(field, sizeof(field), "model.%s", err->field);
		field[sizeof(err->field) - 1] = 0;
		memcpy(err->field, field, sizeof(err->field));
		err->line = err->column = 0;
	}
	return ret;
}

int bwm_machine_parse(const char *text, struct bwm_machine *m,
		      struct bwm_error *err)
{
	struct json_object *root = NULL, *w, *fmt;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = bwm_json_parse(text, &root, err);
	if (ret)
		return ret;
	if (!json_object_is_type(root, json_type_object)) {
		ret = bwm_json_fail(err, text, "", "not a JSON object");
		goto out;
	}
	if (json_object_object_get_ex(root, "format", &fmt) &&
	    json_object_is_type(fmt, json_type_string) &&
	    !strcmp(json_object_get_string(fmt), PROFILE_FORMAT)) {
		ret = parse_profile(root, m, err);
		goto out;
	}
	ret = bwm_json_known_keys(text, root, "", machine_keys, err);
	if (!ret)
		ret = bwm_json_string(text, root, "name", m->name,
				      sizeof(m->name), err);
	if (!ret)
		ret = bwm_json_number(text, root, "", "cpu_ghz", true, 0, 0.01,
				      100, &m->cpu_ghz, err);
	if (!ret)
		ret = bwm_json_number(text, root, "", "core_speed", false, 1,
				      0.01, 100, &m->core_speed, err);
	if (!ret)
		ret = bwm_json_number(text, root, "", "queue_factor", false,
				      BWM_DEFAULT_QUEUE_FACTOR, 0, 100,
				      &m->queue_factor, err);
	if (!ret)
		ret = parse_nodes(text, root, m, err);
	if (!ret)
		ret = parse_matrix(text, root, "read_gbps", m, MAX_GBPS,
				   m->read_gbps, err);
	if (!ret) {
		if (json_object_object_get_ex(root, "write_gbps", &w) && w)
			ret = parse_matrix(text, root, "write_gbps", m,
					   MAX_GBPS, m->write_gbps, err);
		else
			memcpy(m->write_gbps, m->read_gbps,
			       sizeof(m->write_gbps));
	}
	if (!ret)
		ret = parse_matrix(text, root, "latency_ns", m, MAX_LATENCY_NS,
				   m->latency_ns, err);
	if (!ret && !bwm_cpu_nodes(m))
		ret = bwm_json_fail(err, text, "nodes", "no node has CPUs");
	if (!ret)
		ret = parse_links(text, root, m, err);
	if (!ret)
		ret = parse_routes(text, root, m, err);
	if (!ret)
		ret = bwm_machine_check(m, err);
out:
	json_object_put(root);
	return ret;
}

static int parse_cb(const char *text, void *obj, struct bwm_error *err)
{
	return bwm_machine_parse(text, obj, err);
}

int bwm_machine_load(const char *path, struct bwm_machine *m,
		      struct bwm_error *err)
{
	return bwm_parse_file(path, parse_cb, m, err);
}

static struct json_object *matrix_json(const struct bwm_machine *m,
				       const double v[BWM_MAX_NODES][BWM_MAX_NODES])
{
	struct json_object *a = json_object_new_array();
	int i, j;

	for (i = 0; i < m->nr_nodes; i++) {
		struct json_object *row = json_object_new_array();

		for (j = 0; j < m->nr_nodes; j++)
			json_object_array_add(row, m->node[j].cpus ?
					      json_object_new_double(v[i][j]) :
					      NULL);
		json_object_array_add(a, row);
	}
	return a;
}

/* The pinned routes as the file lists them, or NULL where there are none. */
static struct json_object *routes_json(const struct bwm_machine *m)
{
	struct json_object *a = NULL;
	int i, j, k;

	for (i = 0; i < m->nr_nodes; i++)
		for (j = 0; j < m->nr_nodes; j++) {
			struct json_object *r, *via;

			if (!m->pin_hops[i][j])
				continue;
			if (!a)
				a = json_object_new_array();
			r = json_object_new_object();
			via = json_object_new_array();
			json_object_object_add(r, "from", json_object_new_int(i));
			json_object_object_add(r, "to", json_object_new_int(j));
			for (k = 0; k + 1 < m->pin_hops[i][j]; k++)
				json_object_array_add(via, json_object_new_int(m->pin_via[i][j][k]));
			json_object_object_add(r, "via", via);
			json_object_array_add(a, r);
		}
	return a;
}

char *bwm_machine_format(const struct bwm_machine *m, const char *description,
			 const char *source)
{
	struct json_object *o = json_object_new_object(), *nodes, *links, *routes;
	char *text;
	int i;

	json_object_object_add(o, "name", json_object_new_string(m->name));
	if (description)
		json_object_object_add(o, "description",
				       json_object_new_string(description));
	if (source)
		json_object_object_add(o, "source",
				       json_object_new_string(source));
	json_object_object_add(o, "cpu_ghz", json_object_new_double(m->cpu_ghz));
	json_object_object_add(o, "core_speed",
			       json_object_new_double(bwm_core_speed(m)));
	json_object_object_add(o, "queue_factor",
			       json_object_new_double(m->queue_factor));
	nodes = json_object_new_array();
	for (i = 0; i < m->nr_nodes; i++) {
		const struct bwm_node *nd = &m->node[i];
		struct json_object *n = json_object_new_object();

		json_object_object_add(n, "cpus", json_object_new_int(nd->cpus));
		json_object_object_add(n, "ctrl_read_gbps",
				       json_object_new_double(nd->ctrl_read_gbps));
		json_object_object_add(n, "ctrl_write_gbps",
				       json_object_new_double(nd->ctrl_write_gbps));
		if (nd->interconnect_gbps > 0)
			json_object_object_add(n, "interconnect_gbps",
					       json_object_new_double(nd->interconnect_gbps));
		json_object_array_add(nodes, n);
	}
	json_object_object_add(o, "nodes", nodes);
	json_object_object_add(o, "read_gbps", matrix_json(m, m->read_gbps));
	json_object_object_add(o, "write_gbps", matrix_json(m, m->write_gbps));
	json_object_object_add(o, "latency_ns", matrix_json(m, m->latency_ns));
	if (m->nr_links) {
		links = json_object_new_array();
		for (i = 0; i < m->nr_links; i++) {
			struct json_object *l = json_object_new_object();

			json_object_object_add(l, "from",
					       json_object_new_int(m->link[i].from));
			json_object_object_add(l, "to",
					       json_object_new_int(m->link[i].to));
			json_object_object_add(l, "gbps",
					       json_object_new_double(m->link[i].gbps));
			json_object_array_add(links, l);
		}
		json_object_object_add(o, "links", links);
	}
	routes = routes_json(m);
	if (routes)
		json_object_object_add(o, "routes", routes);
	text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
	return text;
}
