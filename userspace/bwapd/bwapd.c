// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd: canonical weights for weighted interleave, and the admin path.
 *
 *   bwapd [OPTIONS] topology|profile|show|apply ...
 *
 * Documentation/man8/bwapd.8 and Documentation/bwapd.md describe it.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bwapd.h"

#define EXIT_USAGE	2

struct opts {
	const char *file;
	const char *model;
	const char *root;
	uint64_t seed;
	double noise;
	int json, dry_run, no_counters;
	double seconds, u8_err;
	struct bwapd_set_opts sets;
};

struct progress {
	int tty;
	int set, nr_sets;
	double seconds;
	char workers[64];
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bwapd [--file PATH] COMMAND [OPTIONS]\n"
		"\n"
		"commands:\n"
		"  topology [--json]         nodes, CPUs, memory, distances, HMAT, counters\n"
		"  profile [--seconds S] [--no-counters] [--all] [--no-symmetry]\n"
		"          [--max-size K] [--u8-err E] [--json]\n"
		"                            measure every worker set, write the weights file\n"
		"  show [--json] [WORKERS]   the canonical weights of the file\n"
		"  apply [--dry-run] [--json] WORKERS\n"
		"                            set the global weights to those of WORKERS (root)\n"
		"\n"
		"  --file PATH   canonical-weights file (default %s)\n"
		"WORKERS is a node list such as 0-1 or 0,2.\n",
		BWAPD_DEFAULT_FILE);
}

static int error(const char *what, int ret, const char *why)
{
	if (why && *why)
		fprintf(stderr, "bwapd: %s: %s\n", what, why);
	else
		fprintf(stderr, "bwapd: %s: %s\n", what, strerror(-ret));
	return 1;
}

static int open_backend(const struct opts *o, struct bwapd_backend *b,
			struct bwapd_topology *t)
{
	char why[512] = "";
	int ret;

	if (o->model)
		ret = bwapd_backend_model(b, o->model, o->seed, o->noise, why,
					  sizeof(why));
	else
		ret = bwapd_backend_real(b, o->root);
	if (ret)
		return error("backend", ret, why);
	ret = b->ops->topology(b, t, why, sizeof(why));
	if (ret) {
		bwapd_backend_destroy(b);
		return error("topology", ret, why);
	}
	return 0;
}

static const char *fallback_name(const struct bwapd_topology *t)
{
	int i;

	for (i = 0; i < t->nr_nodes; i++)
		if ((t->mem_nodes & (1u << i)) && !t->node[i].initiators)
			return "slit";
	return "hmat";
}

/* ---- topology ---- */

static int cmd_topology(const struct opts *o)
{
	struct bwapd_backend b;
	struct bwapd_topology t;
	char why[512] = "", list[64];
	int ret, i, j, counters;

	if (open_backend(o, &b, &t))
		return 1;
	ret = b.ops->ctrl_open(&b, why, sizeof(why));
	counters = !ret;
	if (o->json) {
		printf("{\"nodes\": %d, \"cpu_model\": \"%s\", \"backend\": \"%s\",\n",
		       t.nr_nodes, t.cpu_model, b.ops->name);
		printf(" \"counters\": {\"available\": %s, \"source\": \"%s\", \"fallback\": \"%s\"},\n",
		       counters ? "true" : "false",
		       counters ? b.ops->ctrl_source(&b) : why,
		       fallback_name(&t));
		printf(" \"node\": [");
		for (i = 0; i < t.nr_nodes; i++) {
			const struct bwapd_node *n = &t.node[i];

			printf("%s\n  {\"id\": %d, \"cpus\": %d, \"memory_mib\": %llu, \"weight_file\": %s, \"distance\": [",
			       i ? "," : "", i, n->nr_cpus,
			       (unsigned long long)(n->mem_bytes >> 20),
			       n->has_weight ? "true" : "false");
			for (j = 0; j < t.nr_nodes; j++)
				printf("%s%d", j ? ", " : "", n->distance[j]);
			printf("], \"hmat\": {\"initiators\": \"%s\", \"read_bandwidth\": %u, \"write_bandwidth\": %u, \"read_latency\": %u, \"write_latency\": %u}}",
			       bwapd_nodelist_format(n->initiators, list, sizeof(list)),
			       n->read_bw, n->write_bw, n->read_lat, n->write_lat);
		}
		printf("\n ]}\n");
	} else {
		printf("machine: %d nodes, %s (backend %s)\n", t.nr_nodes,
		       t.cpu_model, b.ops->name);
		printf("%-5s %5s %10s  %-11s %9s %9s %7s %7s  %s\n", "node",
		       "cpus", "memory", "initiators", "read MB/s",
		       "write MB/s", "rd ns", "wr ns", "distances");
		for (i = 0; i < t.nr_nodes; i++) {
			const struct bwapd_node *n = &t.node[i];

			printf("%-5d %5d %7llu MiB  %-11s %9u %9u %7u %7u ", i,
			       n->nr_cpus,
			       (unsigned long long)(n->mem_bytes >> 20),
			       n->initiators ? bwapd_nodelist_format(n->initiators, list, sizeof(list)) : "-",
			       n->read_bw, n->write_bw, n->read_lat,
			       n->write_lat);
			for (j = 0; j < t.nr_nodes; j++)
				printf(" %3d", n->distance[j]);
			printf("\n");
		}
		if (counters)
			printf("counters: %s\n", b.ops->ctrl_source(&b));
		else
			printf("counters: unavailable: %s\n"
			       "          profiling falls back to %s\n", why,
			       fallback_name(&t));
	}
	bwapd_backend_destroy(&b);
	return 0;
}

/* ---- profile ---- */

static void show_progress(void *arg, double done)
{
	struct progress *p = arg;
	double frac = ((p->set - 1) + done / p->seconds) / p->nr_sets;
	int width = 30, fill = (int)lround(frac * width), i;

	if (!p->tty)
		return;
	fprintf(stderr, "\r[");
	for (i = 0; i < width; i++)
		fputc(i < fill ? '#' : '.', stderr);
	fprintf(stderr, "] set %d/%d (workers %s), %.0f s left   ", p->set,
		p->nr_sets, p->workers,
		(p->nr_sets - p->set + 1) * p->seconds - done);
	fflush(stderr);
}

static void print_table(const struct bwapd_file *f, int nr_nodes,
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

static void print_json(const struct bwapd_file *f, int nr_nodes, uint32_t only)
{
	char list[64];
	int i, j, first = 1;

	printf("{\"backend\": \"%s\", \"created\": \"%s\", \"skipped\": {\"symmetric\": %d, \"spread\": %d},\n \"worker_sets\": [",
	       f->backend, f->created, f->nr_symmetric, f->nr_spread);
	for (i = 0; i < f->nr_results; i++) {
		const struct bwapd_result *r = &f->result[i];

		if (only && r->workers != only)
			continue;
		printf("%s\n  {\"workers\": \"%s\", \"source\": \"%s\", ",
		       first ? "" : ",",
		       bwapd_nodelist_format(r->workers, list, sizeof(list)),
		       bwapd_source_name(r->source));
		printf("\"same_as\": \"%s\", \"weights\": [",
		       bwapd_nodelist_format(r->same_as, list, sizeof(list)));
		for (j = 0; j < nr_nodes; j++)
			printf("%s%u", j ? ", " : "", r->weights[j]);
		printf("], \"fractions\": [");
		for (j = 0; j < nr_nodes; j++)
			printf("%s%.6f", j ? ", " : "", r->frac[j]);
		printf("], \"minbw\": [");
		for (j = 0; j < nr_nodes; j++)
			printf("%s%.6g", j ? ", " : "", r->minbw[j]);
		printf("], \"cycle\": %d, \"max_error\": %.6f}", r->cycle,
		       r->u8_err);
		first = 0;
	}
	printf("\n ]}\n");
}

static int cmd_profile(const struct opts *o)
{
	static struct bwapd_sets sets;
	static struct bwapd_file file;
	struct bwapd_profile_opts po = {
		.seconds = o->seconds, .u8_err = o->u8_err,
		.no_counters = o->no_counters,
	};
	struct progress prog = { .tty = isatty(2), .seconds = o->seconds };
	int index[BWAPD_MAX_SETS];
	struct bwapd_backend b;
	struct bwapd_topology t;
	char why[512] = "";
	int ret, i, counters = 0;
	time_t now = time(NULL);

	if (open_backend(o, &b, &t))
		return 1;
	ret = bwapd_sets_enumerate(&t, &o->sets, &sets);
	if (ret) {
		bwapd_backend_destroy(&b);
		return error("worker sets", ret, "no node has CPUs");
	}
	fprintf(stderr,
		"bwapd: %d worker sets: %d to profile, %d skipped as symmetric to a "
		"profiled set (%d symmetries of the distances), %d skipped as spread "
		"out (nodes farther apart than a set of that size needs)\n",
		sets.nr, sets.nr_profile, sets.nr_symmetric,
		sets.nr_automorphisms, sets.nr_spread);
	if (o->no_counters) {
		fprintf(stderr, "bwapd: counters: not used (--no-counters); weights from %s\n",
			fallback_name(&t));
	} else {
		ret = b.ops->ctrl_open(&b, why, sizeof(why));
		counters = !ret;
		if (counters)
			fprintf(stderr, "bwapd: counters: %s\n",
				b.ops->ctrl_source(&b));
		else
			fprintf(stderr,
				"bwapd: counters: unavailable: %s\n"
				"bwapd: weights from %s (fallback)\n", why,
				fallback_name(&t));
	}
	po.progress = show_progress;
	po.progress_arg = &prog;
	prog.nr_sets = counters ? sets.nr_profile : 0;

	memset(&file, 0, offsetof(struct bwapd_file, result));
	snprintf(file.backend, sizeof(file.backend), "%s%s%s", b.ops->name,
		 o->model ? " " : "", o->model ? o->model : "");
	strftime(file.created, sizeof(file.created), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime(&now));
	file.nr_symmetric = sets.nr_symmetric;
	file.nr_spread = sets.nr_spread;
	for (i = 0; i < sets.nr; i++) {
		const struct bwapd_set *s = &sets.set[i];
		struct bwapd_result *r = &file.result[file.nr_results];

		if (s->skip == BWAPD_SKIP_SPREAD)
			continue;
		if (s->skip == BWAPD_SKIP_SYMMETRIC) {
			bwapd_result_permute(&file.result[index[s->same_as]], s,
					     t.nr_nodes, r);
		} else {
			prog.set++;
			bwapd_nodelist_format(s->workers, prog.workers,
					      sizeof(prog.workers));
			ret = bwapd_profile_set(&b, &t, s->workers, counters,
						&po, r);
			if (ret) {
				if (prog.tty && counters)
					fputc('\n', stderr);
				bwapd_backend_destroy(&b);
				snprintf(why, sizeof(why),
					 "workers %s: %s; nothing written",
					 prog.workers, strerror(-ret));
				return error("profile", ret, why);
			}
		}
		index[s->workers] = file.nr_results++;
	}
	if (prog.tty && counters)
		fputc('\n', stderr);
	bwapd_backend_destroy(&b);
	ret = bwapd_file_write(o->file, &t, &file, why, sizeof(why));
	if (ret)
		return error("write", ret, why);
	if (o->json) {
		print_json(&file, t.nr_nodes, 0);
	} else {
		print_table(&file, t.nr_nodes, 0);
		printf("written to %s\n", o->file);
	}
	return 0;
}

/* ---- show and apply ---- */

static int load(const struct opts *o, struct bwapd_backend *b,
		struct bwapd_topology *t, struct bwapd_file *f)
{
	char why[512] = "";
	int ret;

	if (open_backend(o, b, t))
		return 1;
	ret = bwapd_file_read(o->file, t, f, why, sizeof(why));
	if (ret) {
		bwapd_backend_destroy(b);
		return error(ret == -ESTALE ? "stale weights file" : "weights file",
			     ret, why);
	}
	return 0;
}

static int parse_workers(const char *arg, uint32_t *w)
{
	if (bwapd_nodelist_parse(arg, w)) {
		fprintf(stderr, "bwapd: '%s' is not a node list (e.g. 0-1 or 0,2)\n",
			arg);
		return 1;
	}
	return 0;
}

static int unknown_set(const struct bwapd_file *f, const char *arg)
{
	fprintf(stderr,
		"bwapd: no canonical weights for workers %s in the file (%d sets;"
		" \"bwapd show\" lists them, \"bwapd profile --all\" profiles"
		" spread-out sets too)\n", arg, f->nr_results);
	return 1;
}

static int cmd_show(const struct opts *o, const char *arg)
{
	static struct bwapd_file f;
	struct bwapd_backend b;
	struct bwapd_topology t;
	uint32_t only = 0;

	if (arg && parse_workers(arg, &only))
		return EXIT_USAGE;
	if (load(o, &b, &t, &f))
		return 1;
	bwapd_backend_destroy(&b);
	if (only && !bwapd_file_find(&f, only))
		return unknown_set(&f, arg);
	if (o->json) {
		print_json(&f, t.nr_nodes, only);
		return 0;
	}
	printf("canonical weights: %s (backend %s, %s)\n", o->file, f.backend,
	       f.created);
	print_table(&f, t.nr_nodes, only);
	printf("%d sets skipped when profiling: %d symmetric (listed, derived), %d spread out\n",
	       f.nr_symmetric + f.nr_spread, f.nr_symmetric, f.nr_spread);
	return 0;
}

static int cmd_apply(const struct opts *o, const char *arg)
{
	static struct bwapd_file f;
	const struct bwapd_result *r;
	struct bwapd_backend b;
	struct bwapd_topology t;
	uint8_t old[BWAPD_MAX_NODES], done[BWAPD_MAX_NODES];
	uint32_t workers;
	int i, ret = 0, changed = 0, nr_done = 0;
	char why[256];

	if (!arg) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (parse_workers(arg, &workers))
		return EXIT_USAGE;
	if (load(o, &b, &t, &f))
		return 1;
	r = bwapd_file_find(&f, workers);
	if (!r) {
		bwapd_backend_destroy(&b);
		return unknown_set(&f, arg);
	}
	if (!o->dry_run && !o->model && geteuid() != 0) {
		bwapd_backend_destroy(&b);
		return error("apply", -EPERM,
			     "the global weights can only be set by root; nothing written "
			     "(--dry-run shows what would change)");
	}
	b.ops->weights_get(&b, old, BWAPD_MAX_NODES);
	for (i = 0; i < t.nr_nodes; i++) {
		if (r->weights[i] && !t.node[i].has_weight) {
			bwapd_backend_destroy(&b);
			snprintf(why, sizeof(why),
				 "node %d has no %s/node%d (kernel without weighted "
				 "interleave?); nothing written", i,
				 BWAPD_WEIGHTS_DIR, i);
			return error("apply", -ENOENT, why);
		}
	}
	if (o->json)
		printf("{\"workers\": \"%s\", \"dry_run\": %s, \"nodes\": [",
		       arg, o->dry_run ? "true" : "false");
	else
		printf("%sworkers %s: global weights (%s)\n%-6s %4s %4s\n",
		       o->dry_run ? "dry run: " : "", arg, BWAPD_WEIGHTS_DIR,
		       "node", "old", "new");
	for (i = 0; i < t.nr_nodes; i++) {
		int keep = !r->weights[i] || r->weights[i] == old[i];

		if (!t.node[i].has_weight)
			continue;
		if (o->json)
			printf("%s{\"node\": %d, \"old\": %u, \"new\": %u}",
			       i ? ", " : "", i, old[i],
			       r->weights[i] ? r->weights[i] : old[i]);
		else
			printf("%-6d %4u %4u%s\n", i, old[i],
			       r->weights[i] ? r->weights[i] : old[i],
			       !r->weights[i] ? "  (no pages: left as is)" :
			       keep ? "" : "  changed");
		if (keep)
			continue;
		changed++;
		if (o->dry_run || ret)
			continue;
		ret = b.ops->weight_set(&b, i, r->weights[i]);
		if (!ret)
			done[nr_done++] = (uint8_t)i;
	}
	if (o->json)
		printf("], \"changed\": %d}\n", changed);
	if (ret) {
		/* put back what was written: all or nothing */
		for (i = 0; i < nr_done; i++)
			b.ops->weight_set(&b, done[i], old[done[i]]);
		bwapd_backend_destroy(&b);
		return error("apply", ret, ret == -EACCES || ret == -EPERM ?
			     "cannot write the sysfs weights (root only); nothing written" :
			     "writing a weight failed; the old weights are back");
	}
	bwapd_backend_destroy(&b);
	if (!o->json)
		printf("%d of %d weights %s\n", changed,
		       __builtin_popcount(t.mem_nodes),
		       o->dry_run ? "would change" : "changed");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "model", required_argument, NULL, 'M' },
		{ "root", required_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 'S' },
		{ "noise", required_argument, NULL, 'N' },
		{ "json", no_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "no-counters", no_argument, NULL, 'C' },
		{ "seconds", required_argument, NULL, 's' },
		{ "u8-err", required_argument, NULL, 'e' },
		{ "all", no_argument, NULL, 'a' },
		{ "no-symmetry", no_argument, NULL, 'y' },
		{ "max-size", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct opts o = {
		.file = BWAPD_DEFAULT_FILE, .root = "", .seed = 1,
		.seconds = 2, .u8_err = BWM_DEFAULT_U8_ERR,
	};
	const char *cmd, *arg;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o.file = optarg;
			break;
		case 'M':
			o.model = optarg;
			break;
		case 'R':
			o.root = optarg;
			break;
		case 'S':
			o.seed = strtoull(optarg, &end, 0);
			if (*end)
				goto bad;
			break;
		case 'N':
			o.noise = strtod(optarg, &end);
			if (*end || !(o.noise >= 0 && o.noise < 1))
				goto bad;
			break;
		case 'j':
			o.json = 1;
			break;
		case 'n':
			o.dry_run = 1;
			break;
		case 'C':
			o.no_counters = 1;
			break;
		case 's':
			o.seconds = strtod(optarg, &end);
			if (*end || !(o.seconds >= 0.1 && o.seconds <= 3600))
				goto bad;
			break;
		case 'e':
			o.u8_err = strtod(optarg, &end);
			if (*end || !(o.u8_err >= 0 && o.u8_err < 1))
				goto bad;
			break;
		case 'a':
			o.sets.all = 1;
			break;
		case 'y':
			o.sets.no_symmetry = 1;
			break;
		case 'k':
			o.sets.max_size = atoi(optarg);
			if (o.sets.max_size < 1)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind];
	arg = optind + 1 < argc ? argv[optind + 1] : NULL;
	if (optind + 2 < argc) {
		fprintf(stderr, "bwapd: too many arguments\n");
		return EXIT_USAGE;
	}
	if (!strcmp(cmd, "topology") && !arg)
		return cmd_topology(&o);
	if (!strcmp(cmd, "profile") && !arg)
		return cmd_profile(&o);
	if (!strcmp(cmd, "show"))
		return cmd_show(&o, arg);
	if (!strcmp(cmd, "apply"))
		return cmd_apply(&o, arg);
	usage(stderr);
	return EXIT_USAGE;
bad:
	fprintf(stderr, "bwapd: bad value '%s' for an option\n", optarg);
	return EXIT_USAGE;
}
