// SPDX-License-Identifier: GPL-2.0
/*
 * bwap-eval: compare page placement strategies on a modelled NUMA machine.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include "report.h"

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
"usage: %s -m MACHINE -w WORKLOAD [options]\n"
"\n"
"Predict, on a modelled NUMA machine, the throughput of a workload under\n"
"each page placement strategy: first-touch, uniform-workers, uniform-all,\n"
"canonical weights (BWAP Eq. 5 from a simulated profiling run), the best\n"
"data-to-worker proximity (DWP) from uniform-all (BWAP-uniform) and from\n"
"the canonical weights (BWAP), the optimum of an exhaustive search, Linux\n"
"NUMA balancing (autonuma) and a Carrefour-like policy.  Prints a table;\n"
"--json and --svg for the rest.\n"
"\n"
"  -m, --machine NAME|FILE   machine file, or a preset name (--list)\n"
"  -w, --workload NAME|FILE  workload file, or a preset name (--list)\n"
"  -W, --workers NODES       worker nodes, e.g. 0 or 0,1 or 0-3 (default: the\n"
"                            workload file's); repeat for one column each\n"
"  -t, --threads N           threads per worker (default: every core)\n"
"  -s, --step PERCENT        exhaustive search grid (default 5; 0: no search)\n"
"      --dwp-step X          DWP sweep step (default 0.05)\n"
"      --noise X             relative noise of the profiling counters (default 0)\n"
"      --seed N              seed of that noise (default 1)\n"
"      --mapping             also Diener et al.'s data mapping policies on the\n"
"                            workload's pages: speedup, exclusivity, locality,\n"
"                            page and access balance of each\n"
"      --min-excl PERCENT    Mixed policy threshold (default 90)\n"
"      --json                JSON on stdout instead of the table\n"
"      --svg FILE            bar chart of the speedups over first-touch\n"
"      --dwp-svg FILE        throughput and stall rate over DWP (first -W)\n"
"      --list                list the preset machines and workloads\n"
"  -h, --help                this text\n"
"\n"
"Presets are read from %s (BWMODEL_DATA overrides).\n"
"Documentation/model.md describes the model and the file formats.\n",
		prog, BWM_DATADIR);
}

static const char *data_dir(void)
{
	const char *d = getenv("BWMODEL_DATA");

	return d && *d ? d : BWM_DATADIR;
}

/* A name without '/' or ".json" is a preset in DATA/kind/NAME.json. */
static void resolve(const char *arg, const char *kind, char *buf, size_t len)
{
	size_t n = strlen(arg);

	if (strchr(arg, '/') || (n > 5 && !strcmp(arg + n - 5, ".json")))
		snprintf(buf, len, "%s", arg);
	else
		snprintf(buf, len, "%s/%s/%s.json", data_dir(), kind, arg);
}

/*
 * A machine or workload that did not load: the parser's message; for a
 * preset name that is not one, where the names are listed.  Returns 1.
 */
static int load_error(const char *prog, const char *arg, const char *kind,
		      const char *path, int ret, const struct bwm_error *err)
{
	char msg[512];

	fprintf(stderr, "%s: %s", prog, bwm_error_format(err, path, msg,
							  sizeof(msg)));
	if (ret == -ENOENT && strcmp(arg, path))
		fprintf(stderr, " (no preset %s \"%s\": bwap-eval --list "
			"lists them)", kind, arg);
	fputc('\n', stderr);
	return 1;
}

static void list_kind(const char *kind)
{
	char dir[4096];
	struct dirent **ents;
	int i, n;

	snprintf(dir, sizeof(dir), "%s/%s", data_dir(), kind);
	n = scandir(dir, &ents, NULL, alphasort);
	printf("%s (%s):\n", kind, dir);
	for (i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);

		if (l > 5 && !strcmp(ents[i]->d_name + l - 5, ".json"))
			printf("  %.*s\n", (int)(l - 5), ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* "0,2-3" -> mask; -1 on a syntax error */
static long parse_nodes(const char *s)
{
	long mask = 0;
	char *end;

	while (*s) {
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a >= BWM_MAX_NODES)
			return -1;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= BWM_MAX_NODES)
				return -1;
			s = end;
		}
		for (; a <= b; a++)
			mask |= 1L << a;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return mask ? mask : -1;
}

static int write_svg(const char *path, const struct bwm_machine *m,
		     const struct scenario *sc, int nsc, int dwp)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = dwp ? report_svg_dwp(f, m, sc) :
		    report_svg_strategies(f, m, sc, nsc);
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

enum { OPT_DWP_STEP = 256, OPT_NOISE, OPT_SEED, OPT_JSON, OPT_SVG,
       OPT_DWP_SVG, OPT_LIST, OPT_MAPPING, OPT_MIN_EXCL };

/* Pages of the workload the mapping policies are evaluated on. */
#define MAPPING_PAGES	8192

static const struct option options[] = {
	{ "machine", required_argument, NULL, 'm' },
	{ "workload", required_argument, NULL, 'w' },
	{ "workers", required_argument, NULL, 'W' },
	{ "threads", required_argument, NULL, 't' },
	{ "step", required_argument, NULL, 's' },
	{ "dwp-step", required_argument, NULL, OPT_DWP_STEP },
	{ "noise", required_argument, NULL, OPT_NOISE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "dwp-svg", required_argument, NULL, OPT_DWP_SVG },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "mapping", no_argument, NULL, OPT_MAPPING },
	{ "min-excl", required_argument, NULL, OPT_MIN_EXCL },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* A number option within [lo, hi], or exit with a message. */
static double num_arg(const char *prog, const char *name, const char *s,
		      double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "%s: %s: '%s' is not a number in [%g, %g]\n",
			prog, name, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *prog = argv[0], *machine = NULL, *workload = NULL;
	const char *svg = NULL, *dwp_svg = NULL;
	uint32_t workers[REPORT_MAX_SCENARIOS];
	const char *workers_arg[REPORT_MAX_SCENARIOS];
	struct bwm_eval_opts opts;
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_error err;
	struct scenario *sc;
	char path[4096], msg[512];
	int nsc = 0, threads = 0, json = 0, mapping = 0, c, i, ret;
	double min_excl = BWM_DEFAULT_MIN_EXCL;
	struct bwm_page *pages = NULL;
	long mask;

	bwm_eval_opts_default(&opts);
	while ((c = getopt_long(argc, argv, "m:w:W:t:s:h", options, NULL)) != -1) {
		switch (c) {
		case 'm':
			machine = optarg;
			break;
		case 'w':
			workload = optarg;
			break;
		case 'W':
			mask = parse_nodes(optarg);
			if (mask < 0) {
				fprintf(stderr, "%s: --workers: bad node list '%s'\n",
					prog, optarg);
				return 2;
			}
			if (nsc == REPORT_MAX_SCENARIOS) {
				fprintf(stderr, "%s: at most %d --workers\n",
					prog, REPORT_MAX_SCENARIOS);
				return 2;
			}
			workers_arg[nsc] = optarg;
			workers[nsc++] = (uint32_t)mask;
			break;
		case 't':
			threads = (int)num_arg(prog, "--threads", optarg, 1, 4096);
			break;
		case 's': {
			double p = num_arg(prog, "--step", optarg, 0, 100);

			opts.search_steps = p > 0 ? (int)(100 / p + 0.5) : 0;
			if (p > 0 && (opts.search_steps > BWM_MAX_STEPS ||
				      opts.search_steps * p != 100)) {
				fprintf(stderr, "%s: --step: %g does not divide 100 into at most %d steps\n",
					prog, p, BWM_MAX_STEPS);
				return 2;
			}
			break;
		}
		case OPT_DWP_STEP:
			opts.dwp_step = num_arg(prog, "--dwp-step", optarg, 0.02, 1);
			break;
		case OPT_NOISE:
			opts.profile_noise = num_arg(prog, "--noise", optarg, 0, 1);
			break;
		case OPT_SEED:
			opts.seed = (uint64_t)num_arg(prog, "--seed", optarg, 0, 1e18);
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_SVG:
			svg = optarg;
			break;
		case OPT_DWP_SVG:
			dwp_svg = optarg;
			break;
		case OPT_MAPPING:
			mapping = 1;
			break;
		case OPT_MIN_EXCL:
			min_excl = num_arg(prog, "--min-excl", optarg, 0, 100) / 100;
			break;
		case OPT_LIST:
			list_kind("machines");
			list_kind("workloads");
			return 0;
		case 'h':
			usage(stdout, prog);
			return 0;
		default:
			usage(stderr, prog);
			return 2;
		}
	}
	if (optind < argc || !machine || !workload) {
		fprintf(stderr, "%s: %s\n", prog, optind < argc ?
			"unexpected argument" : "--machine and --workload are required");
		usage(stderr, prog);
		return 2;
	}

	resolve(machine, "machines", path, sizeof(path));
	ret = bwm_machine_load(path, &m, &err);
	if (ret)
		return load_error(prog, machine, "machine", path, ret, &err);
	resolve(workload, "workloads", path, sizeof(path));
	ret = bwm_workload_load(path, &wl, &err);
	if (ret)
		return load_error(prog, workload, "workload", path, ret, &err);
	if (!nsc)
		workers[nsc++] = 0;

	sc = calloc(nsc, sizeof(*sc));
	if (mapping)
		pages = calloc(MAPPING_PAGES, sizeof(*pages));
	if (!sc || (mapping && !pages)) {
		free(sc);
		perror(prog);
		return 1;
	}
	for (i = 0; i < nsc; i++) {
		sc[i].wl = wl;
		ret = bwm_workload_bind(&m, &sc[i].wl, workers[i], threads, &err);
		if (ret && workers[i] && !strcmp(err.field, "workers")) {
			fprintf(stderr, "%s: --workers %s: %s (%s)\n", prog,
				workers_arg[i], err.msg, m.name);
			free(sc);
			free(pages);
			return 1;
		}
		if (ret) {
			fprintf(stderr, "%s: %s on %s: %s\n", prog, wl.name,
				m.name, bwm_error_format(&err, path, msg, sizeof(msg)));
			free(sc);
			free(pages);
			return 1;
		}
		ret = bwm_evaluate(&m, &sc[i].wl, &opts, &sc[i].ev);
		if (!ret) {
			ret = bwm_dwp_sweep(&m, &sc[i].wl, sc[i].ev.canonical,
					    opts.dwp_step, opts.u8_err,
					    sc[i].dwp, sc[i].gbps, sc[i].stall,
					    64, NULL);
			sc[i].npts = ret > 0 ? ret : 0;
			ret = ret < 0 ? ret : 0;
		}
		if (!ret && mapping) {
			sc[i].have_mapping = 1;
			sc[i].min_excl = min_excl;
			sc[i].pages = MAPPING_PAGES;
			ret = bwm_workload_pages(&m, &sc[i].wl, MAPPING_PAGES,
						 opts.seed, pages);
			if (ret >= 0)
				ret = bwm_evaluate_mappings(&m, &sc[i].wl, pages,
							    MAPPING_PAGES,
							    min_excl, opts.seed,
							    sc[i].map);
		}
		if (ret) {
			fprintf(stderr, "%s: evaluation failed: %s\n", prog,
				strerror(-ret));
			free(sc);
			free(pages);
			return 1;
		}
	}

	if (json) {
		char *text = report_json(&m, sc, nsc);

		if (!text) {
			fprintf(stderr, "%s: out of memory\n", prog);
			free(sc);
			free(pages);
			return 1;
		}
		printf("%s\n", text);
		free(text);
	} else {
		for (i = 0; i < nsc; i++) {
			report_table(stdout, &m, &sc[i]);
			report_mapping_table(stdout, &sc[i]);
		}
	}
	ret = 0;
	if (svg)
		ret = write_svg(svg, &m, sc, nsc, 0);
	if (!ret && dwp_svg)
		ret = write_svg(dwp_svg, &m, sc, nsc, 1);
	if (ret)
		fprintf(stderr, "%s: writing %s: %s\n", prog,
			svg ? svg : dwp_svg, strerror(-ret));
	free(sc);
	free(pages);
	return ret ? 1 : 0;
}
