// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd status: what every tuner is doing, from their status files, and
 * memory per node as numastat shows it: the machine's free and total,
 * and each tuned process's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "json_out.h"
#include "nodemem.h"
#include "status.h"

/* The machine's memory per node, and how many nodes it has. */
struct machine_mem {
	int nr;
	uint64_t total[BWAPD_MAX_NODES], free[BWAPD_MAX_NODES];
};

/* A tuned process's memory per node (kB); -errno and why if unknown. */
static int process_kb(const struct bwapd_status *s, const struct machine_mem *mm,
		      uint64_t *kb, char *why, size_t len)
{
	if (!s->pid) {
		snprintf(why, len, "a model's workload has no memory");
		return -ENOENT;
	}
	if (mm->nr <= 0) {
		snprintf(why, len, "the machine's nodes are not known");
		return -ENOENT;
	}
	return bwapd_process_node_kb(s->pid, mm->nr, kb, why, len);
}

static void memory_json(json_object *doc, const struct machine_mem *mm)
{
	json_object *a = json_object_new_array();
	int j;

	for (j = 0; j < mm->nr; j++) {
		json_object *n;

		if (!mm->total[j])
			continue;
		n = json_object_new_object();
		bj_int(n, "node", j);
		bj_int(n, "total_kb", (int64_t)mm->total[j]);
		bj_int(n, "free_kb", (int64_t)mm->free[j]);
		json_object_array_add(a, n);
	}
	json_object_object_add(doc, "nodes", a);
}

/* A row of MiB per node: the nodes that have memory. */
static void mib_row(const char *label, const struct machine_mem *mm,
		    const uint64_t *kb)
{
	int j;

	printf("  %-22s", label);
	for (j = 0; j < mm->nr; j++)
		if (mm->total[j])
			printf(" %9.1f", (double)kb[j] / 1024);
	printf("\n");
}

static void memory_table(const struct bwapd_status *st, int n,
			 const struct machine_mem *mm)
{
	char label[64], why[256];
	uint64_t kb[BWAPD_MAX_NODES];
	int i, j;

	if (mm->nr <= 0)
		return;
	printf("%-24s", "memory per node (MiB)");
	for (j = 0; j < mm->nr; j++)
		if (mm->total[j]) {
			snprintf(label, sizeof(label), "node%d", j);
			printf(" %9s", label);
		}
	printf("\n");
	mib_row("free", mm, mm->free);
	mib_row("total", mm, mm->total);
	for (i = 0; i < n; i++) {
		if (!st[i].pid || st[i].stale)
			continue;
		snprintf(label, sizeof(label), "%d", (int)st[i].pid);
		if (process_kb(&st[i], mm, kb, why, sizeof(why)))
			printf("  %-22s %s\n", label, why);
		else
			mib_row(label, mm, kb);
	}
}

static void printable(char *out, size_t len, const char *s)
{
	size_t j;

	snprintf(out, len, "%s", s);
	for (j = 0; out[j]; j++)
		if ((unsigned char)out[j] < 0x20 || out[j] == 0x7f)
			out[j] = '?';
}

static json_object *status_json(const struct bwapd_status *s,
				const struct machine_mem *mm)
{
	json_object *e = json_object_new_object();
	uint64_t kb[BWAPD_MAX_NODES];
	char why[256];
	int j;

	bj_int(e, "pid", s->pid);
	bj_int(e, "tuner", s->tuner);
	bj_str(e, "command", s->command);
	if (s->unit[0])
		bj_str(e, "unit", s->unit);
	else
		json_object_object_add(e, "unit", NULL);
	if (s->cgroup[0])
		bj_str(e, "cgroup", s->cgroup);
	else
		json_object_object_add(e, "cgroup", NULL);
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
	if (process_kb(s, mm, kb, why, sizeof(why))) {
		json_object_object_add(e, "node_kb", NULL);
		bj_str(e, "node_kb_why", why);
	} else {
		json_object *a = json_object_new_array();

		for (j = 0; j < mm->nr; j++)
			json_object_array_add(a, json_object_new_int64((int64_t)kb[j]));
		json_object_object_add(e, "node_kb", a);
	}
	return e;
}

int cmd_status(const struct opts *o)
{
	static struct bwapd_status st[256];
	struct machine_mem mm;
	json_object *doc, *list;
	char w[4 * BWM_MAX_NODES], cmd[64], unit[BWAPD_CGROUP_LEN];
	struct stat sb;
	int i, n;

	/* no tuner has run yet where they run by default; elsewhere, a typo */
	if (strcmp(o->run_dir, BWAPD_RUN_DIR) && stat(o->run_dir, &sb)) {
		char why[512];

		snprintf(why, sizeof(why), "%s: %s", o->run_dir, strerror(errno));
		return cmd_error("--run-dir", -errno, why);
	}
	n = bwapd_status_list(o->run_dir, st, 256);
	if (n < 0)
		return cmd_error("status", n, NULL);
	mm.nr = bwapd_node_memory("", mm.total, mm.free);
	if (o->json) {
		doc = json_object_new_object();
		list = json_object_new_array();
		for (i = 0; i < n; i++)
			json_object_array_add(list, status_json(&st[i], &mm));
		json_object_object_add(doc, "tuners", list);
		memory_json(doc, &mm);
		return bj_print(doc) ? 1 : 0;
	}
	if (n)
		printf("%-7s %-7s %-15s %-8s %-9s %6s %-12s %5s %10s  %-15s %-9s %s\n",
		       "pid", "tuner", "command", "workers", "state", "DWP",
		       "stalls", "steps", "pages", "weights", "placement",
		       "unit");
	else
		printf("no process is being tuned (%s)\n", o->run_dir);
	for (i = 0; i < n; i++) {
		const struct bwapd_status *s = &st[i];
		char pid[16];

		bwm_weights_format(s->weights, s->nr_nodes, w, sizeof(w));
		/* names are any bytes: no terminal controls */
		printable(cmd, sizeof(cmd), s->command);
		printable(unit, sizeof(unit), s->unit[0] ? s->unit :
			  s->cgroup[0] ? s->cgroup : "-");
		snprintf(pid, sizeof(pid), "%d", (int)s->pid);
		printf("%-7s %-7d %-15s %-8s %-9s %6.3f %-12.4g %5d %10llu  %-15s %-9s %s\n",
		       s->pid ? pid : "model", (int)s->tuner, cmd,
		       s->workers, s->stale ? "stale" : s->state, s->dwp,
		       s->stalls, s->steps, (unsigned long long)s->moved, w,
		       s->placement[0] ? s->placement : "-", unit);
	}
	memory_table(st, n, &mm);
	return 0;
}
