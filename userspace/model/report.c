// SPDX-License-Identifier: GPL-2.0
/*
 * bwap-eval's output: the table, JSON (json-c) and SVG written by hand.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "report.h"
#include "svg.h"

const char *report_nodes(uint32_t mask, char *buf, size_t len)
{
	size_t off = 0;
	int i = 0;

	buf[0] = '\0';
	while (i < BWM_MAX_NODES) {
		int j = i;

		if (!(mask & (1u << i))) {
			i++;
			continue;
		}
		while (j + 1 < BWM_MAX_NODES && (mask & (1u << (j + 1))))
			j++;
		if (off < len)
			off += snprintf(buf + off, len - off, "%s%d",
					off ? "," : "", i);
		if (j > i && off < len)
			off += snprintf(buf + off, len - off, "%s%d",
					j == i + 1 ? "," : "-", j);
		i = j + 1;
	}
	return buf;
}

/* Carrefour's mechanisms in words, or "inactive". */
static void mechanisms_str(const struct bwm_strategy_result *r, char *buf,
			   size_t len)
{
	static const char *const names[] = { "replicate", "interleave",
					     "co-locate" };
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < 3 && off < len; i++)
		if (r->mechanisms & (1u << i))
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
						off ? "+" : "", names[i]);
	if (!off)
		snprintf(buf, len, "inactive");
}

void report_table(FILE *f, const struct bwm_machine *m,
		  const struct scenario *sc)
{
	const struct bwm_eval *ev = &sc->ev;
	char nodes[64], w[128];
	int s;

	fprintf(f, "machine %s (%d nodes), workload %s, workers %s (%d threads)\n",
		m->name, m->nr_nodes, sc->wl.name,
		report_nodes(sc->wl.workers, nodes, sizeof(nodes)),
		bwm_workload_nr_threads(&sc->wl));
	fprintf(f, "%-16s %9s %8s %9s %7s %5s  %s\n", "strategy", "GB/s",
		"speedup", "time s", "stall%", "DWP", "weights (node 0,1,...)");
	for (s = 0; s < BWM_NR_STRATEGIES; s++) {
		const struct bwm_strategy_result *r = &ev->r[s];
		char dwp[16] = "-";

		if (!r->valid)
			continue;
		if (s == BWM_CANONICAL_DWP || s == BWM_BWAP_UNIFORM)
			snprintf(dwp, sizeof(dwp), "%.2f", r->dwp);
		if (s == BWM_FIRST_TOUCH)
			snprintf(w, sizeof(w), "shared on node %d, private local",
				 bwm_workload_first_touch(&sc->wl));
		else if (s == BWM_AUTONUMA)
			snprintf(w, sizeof(w), "shared over the workers, private local; %.1f %% in faults and migrations",
				 100 * r->overhead);
		else if (s == BWM_CARREFOUR)
			mechanisms_str(r, w, sizeof(w));
		else
			bwm_weights_format(r->weights, m->nr_nodes, w, sizeof(w));
		fprintf(f, "%-16s %9.2f %7.2fx %9.3f %7.1f %5s  %s\n",
			bwm_strategy_name(s), r->pred.throughput_gbps,
			r->speedup, r->pred.exec_time_s,
			100 * r->pred.stall_fraction, dwp, w);
	}
	if (ev->r[BWM_OPTIMUM].valid)
		fprintf(f, "(optimum: %ld placements searched in %.2f s)\n",
			ev->searched, ev->search_seconds);
	if (ev->flat.points > 1 && ev->flat.dwp[1] > ev->flat.dwp[0]) {
		char hi[128];

		bwm_weights_format(ev->flat.weights[0], m->nr_nodes, w,
				   sizeof(w));
		bwm_weights_format(ev->flat.weights[1], m->nr_nodes, hi,
				   sizeof(hi));
		fprintf(f, "(flat: DWP %.2f to %.2f from the canonical weights, "
			"%s to %s, predicted within %.1f %% of the %s; any of "
			"them serves about as well)\n", ev->flat.dwp[0],
			ev->flat.dwp[1], w, hi, 100 * BWM_FLAT_TOL,
			ev->r[BWM_OPTIMUM].valid ? "optimum" : "best DWP");
	}
	fputc('\n', f);
}

void report_mapping_table(FILE *f, const struct scenario *sc)
{
	int k;

	if (!sc->have_mapping)
		return;
	fprintf(f, "data mapping policies (Diener et al.), %ld pages, Mixed minExcl %.0f%%\n",
		sc->pages, 100 * sc->min_excl);
	fprintf(f, "%-12s %8s %9s %9s %9s %9s\n", "policy", "speedup",
		"E_App", "Loc_App", "B_Pages%", "B_Acc%");
	for (k = 0; k < BWM_NR_MAPPINGS; k++) {
		const struct bwm_mapping_result *r = &sc->map[k];

		fprintf(f, "%-12s %7.2fx %9.3f %9.3f %9.1f %9.1f\n",
			bwm_mapping_name(k), r->speedup,
			r->metrics.exclusivity, r->metrics.locality,
			r->metrics.page_balance, r->metrics.access_balance);
	}
	fputc('\n', f);
}

static struct json_object *jmapping(const struct scenario *sc)
{
	struct json_object *o = json_object_new_object();
	struct json_object *a = json_object_new_array();
	int k;

	json_object_object_add(o, "pages", json_object_new_int64(sc->pages));
	json_object_object_add(o, "min_excl", json_object_new_double(sc->min_excl));
	for (k = 0; k < BWM_NR_MAPPINGS; k++) {
		const struct bwm_mapping_result *r = &sc->map[k];
		struct json_object *p = json_object_new_object();

		json_object_object_add(p, "policy",
				       json_object_new_string(bwm_mapping_name(k)));
		json_object_object_add(p, "throughput_gbps",
				       json_object_new_double(r->throughput_gbps));
		json_object_object_add(p, "speedup",
				       json_object_new_double(r->speedup));
		json_object_object_add(p, "exclusivity",
				       json_object_new_double(r->metrics.exclusivity));
		json_object_object_add(p, "locality",
				       json_object_new_double(r->metrics.locality));
		json_object_object_add(p, "page_balance",
				       json_object_new_double(r->metrics.page_balance));
		json_object_object_add(p, "access_balance",
				       json_object_new_double(r->metrics.access_balance));
		json_object_array_add(a, p);
	}
	json_object_object_add(o, "policies", a);
	return o;
}

static struct json_object *jarray(const double *v, int n)
{
	struct json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_double(v[i]));
	return a;
}

static struct json_object *jnodes(uint32_t mask)
{
	struct json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < BWM_MAX_NODES; i++)
		if (mask & (1u << i))
			json_object_array_add(a, json_object_new_int(i));
	return a;
}

/* The DWPs near the optimum: {"dwp": [lo, hi], "weights": [[..], [..]]} */
static struct json_object *jflat(const struct bwm_machine *m,
				 const struct bwm_flat *fl)
{
	struct json_object *o = json_object_new_object(), *ws, *w;
	int k, j;

	json_object_object_add(o, "dwp", jarray(fl->dwp, fl->points ? 2 : 0));
	ws = json_object_new_array();
	for (k = 0; fl->points && k < 2; k++) {
		w = json_object_new_array();
		for (j = 0; j < m->nr_nodes; j++)
			json_object_array_add(w, json_object_new_int(fl->weights[k][j]));
		json_object_array_add(ws, w);
	}
	json_object_object_add(o, "weights", ws);
	json_object_object_add(o, "within", json_object_new_double(BWM_FLAT_TOL));
	return o;
}

static struct json_object *jstrategy(const struct bwm_machine *m,
				     enum bwm_strategy s,
				     const struct bwm_strategy_result *r)
{
	struct json_object *o = json_object_new_object(), *w;
	int j, n = m->nr_nodes;

	json_object_object_add(o, "strategy",
			       json_object_new_string(bwm_strategy_name(s)));
	json_object_object_add(o, "throughput_gbps",
			       json_object_new_double(r->pred.throughput_gbps));
	json_object_object_add(o, "speedup", json_object_new_double(r->speedup));
	json_object_object_add(o, "exec_time_s",
			       json_object_new_double(r->pred.exec_time_s));
	json_object_object_add(o, "stall_fraction",
			       json_object_new_double(r->pred.stall_fraction));
	json_object_object_add(o, "stall_cycles_per_s",
			       json_object_new_double(r->pred.stall_rate));
	json_object_object_add(o, "slowest_worker",
			       json_object_new_int(r->pred.slowest));
	if (s == BWM_CANONICAL_DWP || s == BWM_BWAP_UNIFORM)
		json_object_object_add(o, "dwp", json_object_new_double(r->dwp));
	if (s == BWM_AUTONUMA || s == BWM_CARREFOUR)
		json_object_object_add(o, "overhead",
				       json_object_new_double(r->overhead));
	if (s == BWM_CARREFOUR) {
		char mech[128];

		mechanisms_str(r, mech, sizeof(mech));
		json_object_object_add(o, "mechanisms",
				       json_object_new_string(mech));
	}
	if (bwm_strategy_is_weights(s)) {
		w = json_object_new_array();
		for (j = 0; j < n; j++)
			json_object_array_add(w, json_object_new_int(r->weights[j]));
		json_object_object_add(o, "weights", w);
	}
	json_object_object_add(o, "shared_fractions", jarray(r->frac, n));
	json_object_object_add(o, "ctrl_read_gbps",
			       jarray(r->pred.ctrl_read_gbps, n));
	json_object_object_add(o, "ctrl_write_gbps",
			       jarray(r->pred.ctrl_write_gbps, n));
	json_object_object_add(o, "ctrl_util", jarray(r->pred.ctrl_util, n));
	if (m->nr_links)
		json_object_object_add(o, "link_util",
				       jarray(r->pred.link_util, m->nr_links));
	json_object_object_add(o, "worker_gbps", jarray(r->pred.worker_gbps, n));
	return o;
}

char *report_json(const struct bwm_machine *m, const struct scenario *sc,
		  int nsc)
{
	struct json_object *root = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	char *text;
	int i, s, j;

	json_object_object_add(root, "machine", json_object_new_string(m->name));
	json_object_object_add(root, "nodes", json_object_new_int(m->nr_nodes));
	for (i = 0; i < nsc; i++) {
		struct json_object *o = json_object_new_object();
		struct json_object *st = json_object_new_array();
		struct json_object *prof = json_object_new_array();
		struct json_object *dwp = json_object_new_array();

		json_object_object_add(o, "workload",
				       json_object_new_string(sc[i].wl.name));
		json_object_object_add(o, "workers", jnodes(sc[i].wl.workers));
		json_object_object_add(o, "threads",
				       json_object_new_int(bwm_workload_nr_threads(&sc[i].wl)));
		for (j = 0; j < m->nr_nodes; j++)
			json_object_array_add(prof,
					      jarray(sc[i].ev.profile.bw[j],
						     m->nr_nodes));
		json_object_object_add(o, "profile_bw_gbps", prof);
		json_object_object_add(o, "canonical_fractions",
				       jarray(sc[i].ev.canonical, m->nr_nodes));
		for (s = 0; s < BWM_NR_STRATEGIES; s++)
			if (sc[i].ev.r[s].valid)
				json_object_array_add(st, jstrategy(m, s,
								    &sc[i].ev.r[s]));
		json_object_object_add(o, "strategies", st);
		for (j = 0; j < sc[i].npts; j++) {
			struct json_object *p = json_object_new_object();

			json_object_object_add(p, "dwp",
					       json_object_new_double(sc[i].dwp[j]));
			json_object_object_add(p, "throughput_gbps",
					       json_object_new_double(sc[i].gbps[j]));
			json_object_object_add(p, "stall_cycles_per_s",
					       json_object_new_double(sc[i].stall[j]));
			json_object_array_add(dwp, p);
		}
		json_object_object_add(o, "dwp_sweep", dwp);
		if (sc[i].ev.r[BWM_OPTIMUM].valid) {
			json_object_object_add(o, "searched_placements",
					       json_object_new_int64(sc[i].ev.searched));
			json_object_object_add(o, "search_seconds",
					       json_object_new_double(sc[i].ev.search_seconds));
		}
		json_object_object_add(o, "flat", jflat(m, &sc[i].ev.flat));
		if (sc[i].have_mapping)
			json_object_object_add(o, "mapping", jmapping(&sc[i]));
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "scenarios", arr);
	text = strdup(json_object_to_json_string_ext(root,
						     JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return text;
}

/* ---- SVG ---- */

#define SVG_W		BWM_SVG_W
#define SVG_H		BWM_SVG_H
#define PL		BWM_SVG_PL
#define PR		BWM_SVG_PR
#define PT		BWM_SVG_PT
#define PB		BWM_SVG_PB

int report_svg_strategies(FILE *f, const struct bwm_machine *m,
			  const struct scenario *sc, int nsc)
{
	char groups[REPORT_MAX_SCENARIOS][64], subs[REPORT_MAX_SCENARIOS][32];
	const char *group[REPORT_MAX_SCENARIOS], *sub[REPORT_MAX_SCENARIOS];
	const char *series[BWM_NR_STRATEGIES];
	double v[REPORT_MAX_SCENARIOS * BWM_NR_STRATEGIES];
	char title[320], nodes[48];
	struct bwm_svg_bars b = {
		.title = title, .ylabel = "speedup vs first-touch",
		.ngroups = nsc, .nseries = BWM_NR_STRATEGIES,
		.group = group, .sub = sub, .series = series,
		.colour = bwm_svg_colours, .v = v, .unit = "x",
	};
	int g, s;

	if (nsc > REPORT_MAX_SCENARIOS)
		return -EINVAL;
	snprintf(title, sizeof(title), "%s on %s: speedup over first-touch",
		 sc[0].wl.name, m->name);
	for (s = 0; s < BWM_NR_STRATEGIES; s++)
		series[s] = bwm_strategy_name(s);
	for (g = 0; g < nsc; g++) {
		snprintf(groups[g], sizeof(groups[g]), "workers %s",
			 report_nodes(sc[g].wl.workers, nodes, sizeof(nodes)));
		snprintf(subs[g], sizeof(subs[g]), "%d threads",
			 bwm_workload_nr_threads(&sc[g].wl));
		group[g] = groups[g];
		sub[g] = subs[g];
		for (s = 0; s < BWM_NR_STRATEGIES; s++)
			v[g * BWM_NR_STRATEGIES + s] = sc[g].ev.r[s].valid ?
				sc[g].ev.r[s].speedup : NAN;
	}
	return bwm_svg_bars(f, &b);
}

int report_svg_dwp(FILE *f, const struct bwm_machine *m,
		   const struct scenario *sc)
{
	double gmax = 0, smax = 0, stall[64];
	char title[320], nodes[64];
	int i;

	for (i = 0; i < sc->npts; i++) {
		gmax = fmax(gmax, sc->gbps[i]);
		stall[i] = sc->stall[i] / 1e9;
		smax = fmax(smax, stall[i]);
	}
	snprintf(title, sizeof(title), "%s on %s, workers %s: DWP from canonical weights",
		 sc->wl.name, m->name,
		 report_nodes(sc->wl.workers, nodes, sizeof(nodes)));
	bwm_svg_begin(f, title);
	gmax = bwm_svg_yaxis(f, gmax, "throughput (GB/s)", 0);
	smax = bwm_svg_yaxis(f, smax, "stalled Gcycles/s", 1);
	bwm_svg_xaxis(f, 1, "DWP (0: canonical, 1: all pages on the workers)");
	bwm_svg_polyline(f, sc->dwp, sc->gbps, sc->npts, 1, gmax, bwm_svg_colours[1]);
	bwm_svg_polyline(f, sc->dwp, stall, sc->npts, 1, smax, bwm_svg_colours[4]);
	bwm_svg_legend(f, 0, "throughput", bwm_svg_colours[1]);
	bwm_svg_legend(f, 1, "stall rate", bwm_svg_colours[4]);
	return bwm_svg_end(f);
}
