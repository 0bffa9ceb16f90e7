// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd show: the canonical weights of the file, as a table or as JSON
 * (profile prints what it wrote the same way).
 */
#include <stdio.h>

#include "cmd.h"
#include "json_out.h"

void cmd_show_table(const struct bwapd_file *f, int nr_nodes,
		    uint32_t only)
{
	char list[64];
	int i, j;

	printf("%-10s %-9s", "workers", "source");
	for (j = 0; j < nr_nodes; j++)
		printf(" %5s%d", "node", j);
	printf(" %6s  %s\n", "cycle", "from");
	for (i = 0; i < f->nr_results; i++) {
		const struct bwapd_result *r = &f->result[i];

		if (only && r->workers != only)
			continue;
		printf("%-10s %-9s",
		       bwapd_nodelist_format(r->workers, list, sizeof(list)),
		       bwapd_source_name(r->source));
		for (j = 0; j < nr_nodes; j++)
			printf(" %6u", r->weights[j]);
		printf(" %6d  %s\n", r->cycle, r->same_as == r->workers ?
		       "measured" : bwapd_nodelist_format(r->same_as, list,
							  sizeof(list)));
	}
}

void cmd_show_json(const struct bwapd_file *f, int nr_nodes, uint32_t only)
{
	json_object *doc = json_object_new_object(), *sk, *sets;
	char list[64];
	int i;

	bj_str(doc, "backend", f->backend);
	bj_str(doc, "created", f->created);
	sk = json_object_new_object();
	bj_int(sk, "symmetric", f->nr_symmetric);
	bj_int(sk, "spread", f->nr_spread);
	json_object_object_add(doc, "skipped", sk);
	sets = json_object_new_array();
	for (i = 0; i < f->nr_results; i++) {
		const struct bwapd_result *r = &f->result[i];
		json_object *js;

		if (only && r->workers != only)
			continue;
		js = json_object_new_object();
		bj_str(js, "workers", bwapd_nodelist_format(r->workers, list, sizeof(list)));
		bj_str(js, "source", bwapd_source_name(r->source));
		bj_str(js, "same_as", bwapd_nodelist_format(r->same_as, list, sizeof(list)));
		bj_u8s(js, "weights", r->weights, nr_nodes);
		bj_nums(js, "fractions", r->frac, nr_nodes, "%.6f");
		bj_nums(js, "minbw", r->minbw, nr_nodes, "%.6g");
		bj_int(js, "cycle", r->cycle);
		bj_num(js, "max_error", r->u8_err, "%.6f");
		json_object_array_add(sets, js);
	}
	json_object_object_add(doc, "worker_sets", sets);
	bj_print(doc);
}

int cmd_show(const struct opts *o, const char *arg)
{
	struct bwapd_file f;
	struct bwapd_backend b;
	struct bwapd_topology t;
	uint32_t only = 0;
	int rc = 0;

	if (arg && cmd_parse_workers(arg, &only))
		return EXIT_USAGE;
	if (cmd_load_file(o, &b, &t, &f))
		return 1;
	bwapd_backend_destroy(&b);
	if (only && !bwapd_file_find(&f, only)) {
		rc = cmd_unknown_set(&f, arg);
	} else if (o->json) {
		cmd_show_json(&f, t.nr_nodes, only);
	} else {
		printf("canonical weights: %s (backend %s, %s)\n", o->file,
		       f.backend, f.created);
		cmd_show_table(&f, t.nr_nodes, only);
		printf("%d sets skipped when profiling: %d symmetric (listed, derived), %d spread out\n",
		       f.nr_symmetric + f.nr_spread, f.nr_symmetric, f.nr_spread);
	}
	bwapd_file_free(&f);
	return rc;
}
