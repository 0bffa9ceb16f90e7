// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd apply: set the global weights to the canonical weights of a
 * worker set, writing only those that change; with --per-initiator, each
 * CPU node's row to the canonical weights of that node alone, then
 * per_initiator on.  All or nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "json_out.h"
#include "log.h"

/* A row of the kernel's weights to write, and whose weights go in. */
struct row {
	int row;			/* BWAPD_DEFAULT_ROW or a CPU node */
	uint32_t workers;
	uint8_t old[BWAPD_MAX_NODES], want[BWAPD_MAX_NODES];
};

struct plan {
	int nr;
	struct row row[BWAPD_MAX_NODES + 1];	/* the CPU nodes', then the default */
	uint8_t base[BWAPD_MAX_NODES];		/* the default row before */
	int per_initiator;			/* before: 1, 0; -1: left alone */
	int automatic;				/* auto before: 1, 0; -1: none */
	int changed;				/* weights that change */
};

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

/*
 * An entry to write: a weight that changes; in a CPU node's row every
 * weight, so that the row no longer follows the default row.
 */
static int to_write(const struct row *r, int i)
{
	return r->want[i] && (r->row != BWAPD_DEFAULT_ROW || r->want[i] != r->old[i]);
}

/*
 * What an entry was: the kernel reads an entry of a CPU node's row that
 * follows the default row as the default's weight, so one that read so
 * goes back to following it.
 */
static uint8_t put_back(const struct plan *p, const struct row *r, int i)
{
	return r->row != BWAPD_DEFAULT_ROW && r->old[i] == p->base[i] ? 0 :
	       r->old[i];
}

/*
 * Write the plan's rows, then per_initiator on if it was off: 0, or
 * -errno with every entry written put back and *what naming what failed.
 */
static int write_plan(struct bwapd_backend *b, const struct bwapd_topology *t,
		      const struct plan *p, const char **what)
{
	struct { int8_t k, i; } done[(BWAPD_MAX_NODES + 1) * BWAPD_MAX_NODES];
	int k, i, nr_done = 0, ret = 0;

	*what = "a weight";
	for (k = 0; !ret && k < p->nr; k++) {
		const struct row *r = &p->row[k];

		for (i = 0; !ret && i < t->nr_nodes; i++) {
			if (!t->node[i].has_weight || !to_write(r, i))
				continue;
			ret = b->ops->weight_set(b, r->row, i, r->want[i]);
			if (!ret) {
				done[nr_done].k = (int8_t)k;
				done[nr_done++].i = (int8_t)i;
			}
		}
	}
	if (!ret && p->per_initiator == 0) {
		*what = "per_initiator";
		ret = b->ops->weights_switch(b, "per_initiator", 1);
	}
	while (ret && nr_done--) {
		const struct row *r = &p->row[done[nr_done].k];

		i = done[nr_done].i;
		b->ops->weight_set(b, r->row, i, put_back(p, r, i));
	}
	/* a write ended auto mode: the kernel derives all it had again */
	if (ret && p->automatic == 1)
		b->ops->weights_switch(b, "auto", 1);
	return ret;
}

/* "1", "1 and 3", "1, 2 and 3": the nodes of mask one by one. */
static char *node_words(uint32_t mask, char *buf, size_t len)
{
	size_t off = 0;
	int i, left = __builtin_popcount(mask);

	buf[0] = 0;
	for (i = 0; i < BWAPD_MAX_NODES && off < len; i++) {
		if (!(mask & (1u << i)))
			continue;
		left--;
		off += (size_t)snprintf(buf + off, len - off, "%d%s", i,
					!left ? "" : left == 1 ? " and " : ", ");
	}
	return buf;
}

/*
 * The rows of every CPU node from the sets of each alone: 0, or 1 with
 * a message naming the sets the file lacks and the profile that measures
 * them.
 */
static int plan_rows(const struct opts *o, const struct bwapd_file *f,
		     const struct bwapd_topology *t, struct plan *p)
{
	uint32_t missing = 0;
	char list[96], why[2048];
	int c;

	for (c = 0; c < t->nr_nodes; c++) {
		const struct bwapd_result *r;

		if (!(t->cpu_nodes & (1u << c)))
			continue;
		r = bwapd_file_find(f, 1u << c);
		if (!r) {
			missing |= 1u << c;
			continue;
		}
		p->row[p->nr].row = c;
		p->row[p->nr].workers = 1u << c;
		memcpy(p->row[p->nr++].want, r->weights, BWAPD_MAX_NODES);
	}
	if (!missing)
		return 0;
	snprintf(why, sizeof(why), "no canonical weights for workers %s alone in "
		 "%s: a row is the weights of its CPU node alone; \"bwapd%s%s%s%s%s%s "
		 "profile\" measures every CPU node's; nothing written",
		 node_words(missing, list, sizeof(list)), o->file,
		 o->model ? " --model " : "", o->model ? o->model : "",
		 *o->root ? " --root " : "", o->root,
		 strcmp(o->file, BWAPD_DEFAULT_FILE) ? " --file " : "",
		 strcmp(o->file, BWAPD_DEFAULT_FILE) ? o->file : "");
	return cmd_error("apply --per-initiator", -ENOENT, why);
}

/*
 * What is there now, and what the kernel lacks for the plan: 0, or 1
 * with a message (nothing written).
 */
static int plan_old(struct bwapd_backend *b, const struct bwapd_topology *t,
		    struct plan *p)
{
	const char *what = "apply";
	char why[512] = "";
	int k, i, ret;

	b->ops->weights_get(b, BWAPD_DEFAULT_ROW, p->base, BWAPD_MAX_NODES);
	p->automatic = b->ops->weights_switch(b, "auto", -1);
	if (p->per_initiator >= 0) {
		what = "apply --per-initiator";
		ret = b->ops->weights_switch(b, "per_initiator", -1);
		if (ret == -ENOENT)
			snprintf(why, sizeof(why), "the kernel has no %s/per_initiator: "
				 "its weights are one row that every CPU follows "
				 "(\"bwapd apply WORKERS\" sets it); nothing written",
				 BWAPD_WEIGHTS_DIR);
		if (ret < 0)
			return cmd_error(what, ret, why);
		p->per_initiator = ret;
	}
	for (k = 0; k < p->nr; k++) {
		struct row *r = &p->row[k];

		ret = b->ops->weights_get(b, r->row, r->old, BWAPD_MAX_NODES);
		if (ret) {
			snprintf(why, sizeof(why), "the kernel has no row for the "
				 "CPUs of node %d (%s/initiator%d); nothing written",
				 r->row, BWAPD_WEIGHTS_DIR, r->row);
			return cmd_error(what, ret, why);
		}
		for (i = 0; i < t->nr_nodes; i++) {
			if (!r->want[i] || t->node[i].has_weight)
				continue;
			snprintf(why, sizeof(why), "node %d has no %s/node%d (kernel "
				 "without weighted interleave?); nothing written",
				 i, BWAPD_WEIGHTS_DIR, i);
			return cmd_error(what, -ENOENT, why);
		}
		for (i = 0; i < t->nr_nodes; i++)
			p->changed += t->node[i].has_weight && r->want[i] &&
				      r->want[i] != r->old[i];
	}
	return 0;
}

static json_object *nodes_json(const struct row *r,
			       const struct bwapd_topology *t)
{
	json_object *nodes = json_object_new_array();
	int i;

	for (i = 0; i < t->nr_nodes; i++) {
		json_object *jn;

		if (!t->node[i].has_weight)
			continue;
		jn = json_object_new_object();
		bj_int(jn, "node", i);
		bj_int(jn, "old", r->old[i]);
		bj_int(jn, "new", r->want[i] ? r->want[i] : r->old[i]);
		json_object_array_add(nodes, jn);
	}
	return nodes;
}

/* The default row as a table: a node a line, old and new. */
static void print_global(const struct opts *o, const char *arg,
			 const struct row *r, const struct bwapd_topology *t)
{
	int i;

	/* the model's weights are not this machine's */
	printf("%sworkers %s: global weights (%s)\n%-6s %4s %4s\n",
	       o->dry_run ? "dry run: " : "", arg, o->model ?
	       "of the model only; this machine's are as they were" :
	       BWAPD_WEIGHTS_DIR, "node", "old", "new");
	for (i = 0; i < t->nr_nodes; i++) {
		if (!t->node[i].has_weight)
			continue;
		printf("%-6d %4u %4u%s\n", i, r->old[i],
		       r->want[i] ? r->want[i] : r->old[i],
		       !r->want[i] ? "  (no pages: left as is)" :
		       r->want[i] == r->old[i] ? "" : "  changed");
	}
}

/* The rows as a table: two lines a row, old and new, a node a column. */
static void print_rows(const struct opts *o, const struct plan *p,
		       const struct bwapd_topology *t)
{
	char list[64], name[16];
	int k, i, n;

	printf("%sa row of weights per CPU node, from the canonical weights of "
	       "the node alone (%s)\n", o->dry_run ? "dry run: " : "", o->model ?
	       "of the model only; this machine's are as they were" :
	       BWAPD_WEIGHTS_DIR "/initiatorC/nodeN");
	printf("%-10s %-8s %-3s", "row", "workers", "");
	for (i = 0; i < t->nr_nodes; i++)
		printf(" %5s%d", "node", i);
	printf("\n");
	for (k = 0; k < p->nr; k++) {
		const struct row *r = &p->row[k];

		if (r->row == BWAPD_DEFAULT_ROW)
			snprintf(name, sizeof(name), "default");
		else
			snprintf(name, sizeof(name), "initiator%d", r->row);
		for (n = 0; n < 2; n++) {
			printf("%-10s %-8s %-3s", n ? "" : name, n ? "" :
			       bwapd_nodelist_format(r->workers, list, sizeof(list)),
			       n ? "new" : "old");
			for (i = 0; i < t->nr_nodes; i++) {
				if (!t->node[i].has_weight)
					printf(" %6s", "-");
				else
					printf(" %6u", n && r->want[i] ? r->want[i] : r->old[i]);
			}
			printf("\n");
		}
	}
	printf("per_initiator: %s\n", p->per_initiator ? "on, as it was" :
	       o->dry_run ? "off, would be turned on" : "off, turned on");
}

static void print_json(const struct opts *o, const char *arg,
		       const struct plan *p, const struct bwapd_topology *t)
{
	json_object *doc = json_object_new_object(), *rows, *pi;
	char list[64];
	int k;

	if (arg)
		bj_str(doc, "workers", arg);
	else
		json_object_object_add(doc, "workers", NULL);
	bj_bool(doc, "dry_run", o->dry_run);
	if (p->per_initiator < 0) {
		json_object_object_add(doc, "nodes", nodes_json(&p->row[0], t));
	} else {
		rows = json_object_new_array();
		for (k = 0; k < p->nr; k++) {
			const struct row *r = &p->row[k];
			json_object *jr = json_object_new_object();

			/* null: the default row */
			if (r->row == BWAPD_DEFAULT_ROW)
				json_object_object_add(jr, "initiator", NULL);
			else
				bj_int(jr, "initiator", r->row);
			bj_str(jr, "workers", bwapd_nodelist_format(r->workers,
					list, sizeof(list)));
			json_object_object_add(jr, "nodes", nodes_json(r, t));
			json_object_array_add(rows, jr);
		}
		json_object_object_add(doc, "rows", rows);
		pi = json_object_new_object();
		bj_bool(pi, "old", p->per_initiator);
		bj_bool(pi, "new", 1);
		json_object_object_add(doc, "per_initiator", pi);
	}
	bj_int(doc, "changed", p->changed);
	bj_print(doc);
}

int cmd_apply(const struct opts *o, const char *arg)
{
	struct bwapd_file f;
	struct plan p;
	const struct bwapd_result *r = NULL;
	struct bwapd_backend b;
	struct bwapd_topology t;
	uint32_t workers = 0;
	const char *what;
	int ret;

	if (!arg && !o->per_initiator) {
		opts_usage(stderr, C_APPLY);
		return EXIT_USAGE;
	}
	if (arg && cmd_parse_workers("apply", arg, &workers))
		return EXIT_USAGE;
	if (cmd_load_file(o, &b, &t, &f))
		return 1;
	memset(&p, 0, sizeof(p));
	p.per_initiator = o->per_initiator ? 0 : -1;
	ret = o->per_initiator ? plan_rows(o, &f, &t, &p) : 0;
	if (!ret && arg) {
		r = bwapd_file_find(&f, workers);
		if (!r)
			ret = cmd_unknown_set(&f, arg);
	}
	if (ret) {
		bwapd_backend_destroy(&b);
		bwapd_file_free(&f);
		return ret;
	}
	if (r) {
		p.row[p.nr].row = BWAPD_DEFAULT_ROW;
		p.row[p.nr].workers = workers;
		memcpy(p.row[p.nr++].want, r->weights, BWAPD_MAX_NODES);
		same_weights(arg, r->weights, t.nr_nodes);
	}
	bwapd_file_free(&f);
	if (!o->dry_run && !o->model && geteuid() != 0) {
		bwapd_backend_destroy(&b);
		return cmd_error("apply", -EPERM,
				 "the global weights can only be set by root; nothing written "
				 "(--dry-run shows what would change)");
	}
	if (plan_old(&b, &t, &p)) {
		bwapd_backend_destroy(&b);
		return 1;
	}
	if (!o->json && p.per_initiator < 0)
		print_global(o, arg, &p.row[0], &t);
	else if (!o->json)
		print_rows(o, &p, &t);
	ret = o->dry_run ? 0 : write_plan(&b, &t, &p, &what);
	bwapd_backend_destroy(&b);
	if (ret == -EACCES || ret == -EPERM)
		return cmd_error("apply", ret, "cannot write the sysfs weights "
				 "(root only); nothing written");
	if (ret) {
		char why[128];

		snprintf(why, sizeof(why), "writing %s failed: %s; the old "
			 "weights are back", what, strerror(-ret));
		return cmd_error("apply", ret, why);
	}
	if (o->json)
		print_json(o, arg, &p, &t);
	else
		printf("%d of %d weights %s%s%s\n", p.changed,
		       p.nr * __builtin_popcount(t.mem_nodes),
		       o->dry_run ? "would change" : "changed",
		       p.per_initiator == 0 ? (o->dry_run ?
		       ", per_initiator would be on" : ", per_initiator on") : "",
		       o->model ? " in the model" : "");
	return 0;
}
