// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd topology: the nodes with their CPUs, memory, distances and HMAT
 * figures, and whether memory controller counters can be read.
 */
#include <stdio.h>

#include "cmd.h"
#include "json_out.h"

/* Whether the firmware's HMAT gives the node any figure. */
static int has_hmat(const struct bwapd_node *n)
{
	return n->initiators || n->read_bw || n->write_bw || n->read_lat ||
	       n->write_lat;
}

int cmd_topology(const struct opts *o)
{
	struct bwapd_backend b;
	struct bwapd_topology t;
	char why[512] = "", list[64];
	int ret, i, j, counters;

	if (cmd_open_backend(o, &b, &t))
		return 1;
	ret = b.ops->ctrl_open(&b, why, sizeof(why));
	counters = !ret;
	if (o->json) {
		json_object *doc = json_object_new_object(), *c, *nodes, *h;

		bj_int(doc, "nodes", t.nr_nodes);
		bj_str(doc, "cpu_model", t.cpu_model);
		bj_str(doc, "backend", b.ops->name);
		c = json_object_new_object();
		bj_bool(c, "available", counters);
		bj_str(c, "source", counters ? b.ops->ctrl_source(&b) : why);
		bj_str(c, "fallback", cmd_fallback_name(&t));
		json_object_object_add(doc, "counters", c);
		nodes = json_object_new_array();
		for (i = 0; i < t.nr_nodes; i++) {
			const struct bwapd_node *n = &t.node[i];
			json_object *jn = json_object_new_object(), *d;

			bj_int(jn, "id", i);
			bj_int(jn, "cpus", n->nr_cpus);
			bj_int(jn, "memory_mib", (int64_t)(n->mem_bytes >> 20));
			bj_bool(jn, "weight_file", n->has_weight);
			d = json_object_new_array();
			for (j = 0; j < t.nr_nodes; j++)
				json_object_array_add(d, json_object_new_int(n->distance[j]));
			json_object_object_add(jn, "distance", d);
			/* null: the firmware gives no HMAT figures for it */
			h = NULL;
			if (has_hmat(n)) {
				h = json_object_new_object();
				bj_str(h, "initiators", bwapd_nodelist_format(n->initiators, list, sizeof(list)));
				bj_int(h, "read_bandwidth", n->read_bw);
				bj_int(h, "write_bandwidth", n->write_bw);
				bj_int(h, "read_latency", n->read_lat);
				bj_int(h, "write_latency", n->write_lat);
			}
			json_object_object_add(jn, "hmat", h);
			json_object_array_add(nodes, jn);
		}
		json_object_object_add(doc, "node", nodes);
		bj_print(doc);
	} else {
		printf("machine: %d nodes, %s (backend %s)\n", t.nr_nodes,
		       t.cpu_model, b.ops->name);
		printf("%-5s %5s %10s  %-11s %9s %9s %7s %7s\n", "node",
		       "cpus", "memory", "initiators", "read MB/s",
		       "write MB/s", "rd ns", "wr ns");
		for (i = 0; i < t.nr_nodes; i++) {
			const struct bwapd_node *n = &t.node[i];

			printf("%-5d %5d %7llu MiB  %-11s ", i, n->nr_cpus,
			       (unsigned long long)(n->mem_bytes >> 20),
			       n->initiators ? bwapd_nodelist_format(n->initiators, list, sizeof(list)) : "-");
			if (has_hmat(n))
				printf("%9u %9u %7u %7u", n->read_bw, n->write_bw,
				       n->read_lat, n->write_lat);
			else
				printf("%9s %9s %7s %7s", "-", "-", "-", "-");
			printf("\n");
		}
		/* as numactl --hardware labels them: from the row, to the column */
		printf("node distances (SLIT):\nnode ");
		for (j = 0; j < t.nr_nodes; j++)
			printf(" %3d", j);
		printf("\n");
		for (i = 0; i < t.nr_nodes; i++) {
			printf("%3d: ", i);
			for (j = 0; j < t.nr_nodes; j++)
				printf(" %3d", t.node[i].distance[j]);
			printf("\n");
		}
		if (counters)
			printf("counters: %s\n", b.ops->ctrl_source(&b));
		else
			printf("counters: unavailable: %s\n"
			       "          profiling falls back to %s\n", why,
			       cmd_fallback_name(&t));
	}
	bwapd_backend_destroy(&b);
	return 0;
}
