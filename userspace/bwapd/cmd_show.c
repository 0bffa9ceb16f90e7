// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd show: the canonical weights of the file and the machine's model
 * as bandwidth and latency matrices, as tables or as JSON (profile
 * prints what it wrote the same way).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "json_out.h"
#include "placement.h"

/*
 * The weights the kernel uses now, next to bwapd's: on a real machine
 * with weight files, and whether the kernel derived them itself ("auto",
 * Linux 6.16 and this project's series) or an admin or bwapd set them.
 */
struct kernel_weights {
	int real;			/* the running machine's kernel */
	int have;			/* its global weights (weighted interleave) */
	int automatic;			/* 1, 0, or -1: no auto file */
	uint8_t w[BWAPD_MAX_NODES];
	/* 1, 0, or -1: no per_initiator file (a kernel without rows) */
	int per_initiator;
	uint32_t rows;			/* the CPU nodes whose row was read */
	uint8_t row[BWAPD_MAX_NODES][BWAPD_MAX_NODES];
	int placement;			/* bwapd_place_look() */
#define PLACEMENT_UNKNOWN	1000
	char why[512];
};

static void kernel_weights(const struct opts *o, struct bwapd_backend *b,
			   const struct bwapd_topology *t,
			   struct kernel_weights *k)
{
	int i;

	memset(k, 0, sizeof(*k));
	k->per_initiator = -1;
	if (strcmp(b->ops->name, "real"))
		return;
	k->real = 1;
	/*
	 * what gives one process its own weights: only the running kernel,
	 * and with or without weighted interleave (Debian 12's 6.1)
	 */
	k->placement = o->root && *o->root ? PLACEMENT_UNKNOWN :
		       bwapd_place_look(k->why, sizeof(k->why));
	for (i = 0; i < t->nr_nodes; i++)
		k->have |= t->node[i].has_weight;
	if (!k->have || b->ops->weights_get(b, BWAPD_DEFAULT_ROW, k->w,
					    t->nr_nodes)) {
		k->have = 0;
		return;
	}
	k->automatic = b->ops->weights_switch(b, "auto", -1);
	if (k->automatic < 0)
		k->automatic = -1;
	k->per_initiator = b->ops->weights_switch(b, "per_initiator", -1);
	if (k->per_initiator < 0) {
		k->per_initiator = -1;
		return;
	}
	for (i = 0; i < t->nr_nodes; i++)
		if ((t->cpu_nodes & (1u << i)) &&
		    !b->ops->weights_get(b, i, k->row[i], t->nr_nodes))
			k->rows |= 1u << i;
}

/*
 * The rows per initiator under the kernel's row of the table: a row
 * each, and what per_initiator makes of them.
 */
static void kernel_rows(const struct kernel_weights *k, int nr_nodes)
{
	char name[16];
	int i, j;

	for (i = 0; i < nr_nodes; i++) {
		if (!(k->rows & (1u << i)))
			continue;
		snprintf(name, sizeof(name), "initiator%d", i);
		printf("%-10s %-9s", name, "row");
		for (j = 0; j < nr_nodes; j++)
			printf(" %6u", k->row[i][j]);
		printf(" %6s  %s\n", "-", k->per_initiator ?
		       "the private memory of its CPUs" : "not used");
	}
	printf("per_initiator %s\n", k->per_initiator ?
	       "on: private memory follows the row of its CPU's node, shared "
	       "memory the kernel's" : "off: every allocation follows the "
	       "kernel's row");
}

static const char *kernel_source(const struct kernel_weights *k)
{
	return k->automatic > 0 ? "auto" : "set";
}

static void show_table(const struct bwapd_file *f, int nr_nodes,
		       uint32_t only, const struct kernel_weights *k)
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
		printf(" %6d  %s\n", r->cycle, r->same_as != r->workers ?
		       bwapd_nodelist_format(r->same_as, list, sizeof(list)) :
		       r->source == BWAPD_SRC_COUNTERS ? "measured" :
		       "firmware table");
	}
	if (!k || !k->real)
		return;
	/* the kernel's global weights, as a row of the same table */
	if (k->have) {
		printf("%-10s %-9s", "kernel", kernel_source(k));
		for (j = 0; j < nr_nodes; j++)
			printf(" %6u", k->w[j]);
		printf(" %6s  %s\n", "-", k->automatic > 0 ?
		       "the kernel's own (auto)" : k->automatic == 0 ?
		       "written (auto off)" : "written (no auto)");
		if (k->per_initiator >= 0)
			kernel_rows(k, nr_nodes);
	} else {
		printf("%-10s %-9s no global weights: the kernel has no weighted "
		       "interleave (%s)\n", "kernel", "none", BWAPD_WEIGHTS_DIR);
	}
	if (k->placement == BWAPD_PLACE_WEIGHTS)
		printf("one process's own weights: set_mempolicy_weights(2)\n");
	else if (k->placement == BWAPD_PLACE_DAMON)
		printf("one process's own weights: DAMON's weighted migration (the "
		       "kernel has no set_mempolicy_weights(2))\n");
	else if (k->placement != PLACEMENT_UNKNOWN)
		printf("one process's own weights: bwapd moves its pages "
		       "(move_pages(2)): no set_mempolicy_weights(2), and %s\n",
		       k->why);
}

/*
 * The machine's model as Intel MLC prints its matrices: a CPU node per
 * row, a memory node per column.  Each figure no benchmark measured is
 * marked with where it came from.
 */
enum { MX_READ, MX_WRITE, MX_LATENCY, MX_NR };

static const struct {
	const char *key, *title;
} matrix[MX_NR] = {
	[MX_READ] = { "read_gbps", "read bandwidth (GB/s): every core of a CPU node (row) loading from one memory node (column)" },
	[MX_WRITE] = { "write_gbps", "write bandwidth (GB/s): every core of a CPU node storing to one memory node" },
	[MX_LATENCY] = { "latency_ns", "idle latency (ns): one thread of a CPU node chasing pointers in one memory node" },
};

static double mx_value(const struct bwapd_machine_model *mm, int k, int mem,
		       int cpu, enum bwapd_origin *origin)
{
	const struct bwapd_figure *f = k == MX_READ ? &mm->read[mem][cpu] :
				       k == MX_WRITE ? &mm->write[mem][cpu] :
				       &mm->latency[mem][cpu];

	*origin = f->origin;
	return k == MX_READ ? mm->m.read_gbps[mem][cpu] :
	       k == MX_WRITE ? mm->m.write_gbps[mem][cpu] :
	       mm->m.latency_ns[mem][cpu];
}

/* A mark for a figure's origin: none for measured. */
static const char *origin_mark(enum bwapd_origin o)
{
	return o == BWAPD_ORIGIN_MEASURED ? " " :
	       o == BWAPD_ORIGIN_HMAT ? "h" :
	       o == BWAPD_ORIGIN_SLIT ? "s" :
	       o == BWAPD_ORIGIN_AT_LEAST ? "+" : "a";
}

void cmd_show_matrix(const struct bwapd_file *f, const struct bwapd_topology *t)
{
	const struct bwapd_machine_model *mm = f->model;
	int k, c, m, marked = 0;

	if (!mm) {
		printf("no model of the machine in this file (written before "
		       "bwapd profile measured one): no bandwidth matrix\n");
		return;
	}
	for (k = 0; k < MX_NR; k++) {
		printf("%s\n%-9s", matrix[k].title, "");
		for (m = 0; m < t->nr_nodes; m++)
			if (t->mem_nodes & (1u << m))
				printf(" %7s%d", "node", m);
		printf("\n");
		for (c = 0; c < t->nr_nodes; c++) {
			if (!(t->cpu_nodes & (1u << c)))
				continue;
			printf("  node%-3d", c);
			for (m = 0; m < t->nr_nodes; m++) {
				enum bwapd_origin o;
				double v;

				if (!(t->mem_nodes & (1u << m)))
					continue;
				v = mx_value(mm, k, m, c, &o);
				marked |= o != BWAPD_ORIGIN_MEASURED;
				printf(" %7.*f%s", k == MX_LATENCY ? 0 : 1, v,
				       origin_mark(o));
			}
			printf("\n");
		}
	}
	if (marked)
		printf("not measured: h from HMAT, s from SLIT on an assumed "
		       "scale, a assumed, + at least (the benchmark never "
		       "reached it)\n");
}

void cmd_show_table(const struct bwapd_file *f, int nr_nodes, uint32_t only)
{
	show_table(f, nr_nodes, only, NULL);
}

/*
 * The matrices in JSON: "cpu_nodes" and "mem_nodes" name the rows and
 * columns; null where the file has no model, with "matrix_why".
 */
static void matrix_json(json_object *doc, const struct bwapd_file *f,
			const struct bwapd_topology *t)
{
	const struct bwapd_machine_model *mm = f->model;
	json_object *mx, *cpus, *mems, *origins;
	int k, c, m;

	if (!mm) {
		json_object_object_add(doc, "matrix", NULL);
		bj_str(doc, "matrix_why", "no model of the machine in this "
		       "file: bwapd profile measures one");
		return;
	}
	mx = json_object_new_object();
	cpus = json_object_new_array();
	mems = json_object_new_array();
	origins = json_object_new_object();
	for (m = 0; m < t->nr_nodes; m++) {
		if (t->cpu_nodes & (1u << m))
			json_object_array_add(cpus, json_object_new_int(m));
		if (t->mem_nodes & (1u << m))
			json_object_array_add(mems, json_object_new_int(m));
	}
	json_object_object_add(mx, "cpu_nodes", cpus);
	json_object_object_add(mx, "mem_nodes", mems);
	for (k = 0; k < MX_NR; k++) {
		json_object *rows = json_object_new_array();
		json_object *orows = json_object_new_array();

		for (c = 0; c < t->nr_nodes; c++) {
			json_object *row, *orow;

			if (!(t->cpu_nodes & (1u << c)))
				continue;
			row = json_object_new_array();
			orow = json_object_new_array();
			for (m = 0; m < t->nr_nodes; m++) {
				enum bwapd_origin o;

				if (!(t->mem_nodes & (1u << m)))
					continue;
				json_object_array_add(row, bj_new_num(
					mx_value(mm, k, m, c, &o), "%.6g"));
				json_object_array_add(orow, json_object_new_string(
					bwapd_origin_name(o)));
			}
			json_object_array_add(rows, row);
			json_object_array_add(orows, orow);
		}
		json_object_object_add(mx, matrix[k].key, rows);
		json_object_object_add(origins, matrix[k].key, orows);
	}
	json_object_object_add(mx, "origin", origins);
	json_object_object_add(doc, "matrix", mx);
}

/*
 * per_initiator and the rows ("initiator": the CPU node); both null on a
 * kernel without rows.
 */
static void rows_json(json_object *kw, const struct kernel_weights *k,
		      int nr_nodes)
{
	json_object *rows;
	int i;

	if (!k->have || k->per_initiator < 0) {
		json_object_object_add(kw, "per_initiator", NULL);
		json_object_object_add(kw, "rows", NULL);
		return;
	}
	bj_bool(kw, "per_initiator", k->per_initiator);
	rows = json_object_new_array();
	for (i = 0; i < nr_nodes; i++) {
		json_object *jr;

		if (!(k->rows & (1u << i)))
			continue;
		jr = json_object_new_object();
		bj_int(jr, "initiator", i);
		bj_u8s(jr, "weights", k->row[i], nr_nodes);
		json_object_array_add(rows, jr);
	}
	json_object_object_add(kw, "rows", rows);
}

static void show_json(const struct bwapd_file *f,
		      const struct bwapd_topology *t, uint32_t only,
		      const struct kernel_weights *k)
{
	int nr_nodes = t->nr_nodes;
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
		/* null: its own weights, not another set's */
		if (r->same_as == r->workers)
			json_object_object_add(js, "same_as", NULL);
		else
			bj_str(js, "same_as", bwapd_nodelist_format(r->same_as,
					list, sizeof(list)));
		bj_u8s(js, "weights", r->weights, nr_nodes);
		bj_nums(js, "fractions", r->frac, nr_nodes, "%.6f");
		bj_nums(js, "minbw", r->minbw, nr_nodes, "%.6g");
		bj_int(js, "cycle", r->cycle);
		bj_num(js, "max_error", r->u8_err, "%.6f");
		json_object_array_add(sets, js);
	}
	json_object_object_add(doc, "worker_sets", sets);
	matrix_json(doc, f, t);
	if (k && k->real) {
		json_object *kw = json_object_new_object();

		/* null, null: no weighted interleave in the kernel */
		if (k->have)
			bj_u8s(kw, "weights", k->w, nr_nodes);
		else
			json_object_object_add(kw, "weights", NULL);
		if (k->automatic < 0 || !k->have)
			json_object_object_add(kw, "auto", NULL);
		else
			bj_bool(kw, "auto", k->automatic);
		rows_json(kw, k, nr_nodes);
		if (k->placement != PLACEMENT_UNKNOWN)
			bj_str(kw, "placement",
			       bwapd_place_kind_name(k->placement));
		if (k->placement == BWAPD_PLACE_MIGRATE)
			bj_str(kw, "placement_why", k->why);
		json_object_object_add(doc, "kernel", kw);
	}
	bj_print(doc);
}

void cmd_show_json(const struct bwapd_file *f, const struct bwapd_topology *t,
		   uint32_t only)
{
	show_json(f, t, only, NULL);
}

int cmd_show(const struct opts *o, const char *arg)
{
	struct kernel_weights k;
	struct bwapd_file f;
	struct bwapd_backend b;
	struct bwapd_topology t;
	uint32_t only = 0;
	int rc = 0;

	if (arg && cmd_parse_workers("show", arg, &only))
		return EXIT_USAGE;
	if (cmd_load_file(o, &b, &t, &f))
		return 1;
	kernel_weights(o, &b, &t, &k);
	bwapd_backend_destroy(&b);
	if (only && !bwapd_file_find(&f, only)) {
		rc = cmd_unknown_set(&f, arg);
	} else if (o->json) {
		show_json(&f, &t, only, &k);
	} else {
		printf("canonical weights: %s (backend %s, %s)\n", o->file,
		       f.backend, f.created);
		show_table(&f, t.nr_nodes, only, &k);
		printf("%d sets skipped when profiling: %d symmetric (listed, derived), %d spread out\n",
		       f.nr_symmetric + f.nr_spread, f.nr_symmetric, f.nr_spread);
		if (!only)
			cmd_show_matrix(&f, &t);
	}
	bwapd_file_free(&f);
	return rc;
}
