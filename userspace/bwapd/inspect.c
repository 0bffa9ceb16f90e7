// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd inspect's report: the weights the model predicts best, the
 * verdict in plain words, and the report as text or one JSON document.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "inspect.h"
#include "json_out.h"
#include "topology.h"

/* Thresholds of the verdict's words. */
#define MEMORY_BOUND		0.5	/* stalled share of thread time */
#define MEMORY_SENSITIVE	0.2
#define PRIVATE_DOMINATES	0.9	/* application exclusivity */
#define SHARED_DOMINATES	0.6
#define UNSETTLED		0.1	/* a wider exclusivity range */
#define WORTH_CHANGING		1.05	/* predicted gain */
#define ONE_NODE_SERVES		50.0	/* memory access imbalance, percent */
#define POOR_LOCALITY		0.5	/* Loc_App */

int inspect_predict(const struct bwm_machine *m, const struct bwm_workload *wl,
		    double u8_err, uint8_t *weights, double *gbps,
		    struct bwm_flat *flat)
{
	struct bwm_placement pl;
	double frac[BWM_MAX_NODES], canon[BWM_MAX_NODES], g;
	int ret;

	ret = bwm_bench_canonical(m, wl->workers, frac);
	if (ret)
		return ret;
	memcpy(canon, frac, sizeof(frac));
	/* moves of 5 % of the pages down to 0.1 %, nodes may empty */
	if (bwm_refine(m, wl, 0.05, 0.001, frac, &g) < 0)
		return -EINVAL;
	ret = bwm_fractions_to_u8(frac, m->nr_nodes, u8_err, weights, NULL);
	if (ret < 0)
		return ret;
	ret = bwm_placement_from_weights(&pl, m->nr_nodes, weights, wl->workers,
					 0);
	if (ret)
		return ret;
	*gbps = bwm_predict_throughput(m, wl, &pl);
	if (*gbps < 0)
		return (int)*gbps;
	ret = flat ? bwm_flat_dwp(m, wl, canon, 0.05, u8_err, *gbps,
				  BWM_FLAT_TOL, flat) : 0;
	return ret < 0 ? ret : 0;
}

int inspect_prediction(struct inspect_report *r, const struct bwm_machine *m,
		       const struct bwm_workload *wl,
		       const struct bwm_placement *pl, double u8_err)
{
	struct bwm_prediction pred;
	int ret;

	ret = bwm_predict(m, wl, pl, &pred);
	if (!ret)
		ret = inspect_predict(m, wl, u8_err, r->weights,
				      &r->predicted_gbps, &r->flat);
	if (ret)
		return ret;
	r->have_prediction = 1;
	r->current_gbps = pred.throughput_gbps;
	r->stall_fraction = pred.stall_fraction;
	r->gain = r->predicted_gbps / r->current_gbps;
	return 0;
}

void inspect_fit(struct inspect_report *r, int nr_nodes,
		 const struct bwm_bank_run *sym,
		 const struct bwm_bank_run *asym, const char *traffic)
{
	int ret = bwm_signature_fit_runs(nr_nodes, sym, asym, &r->sig,
					 &r->sigq);

	r->have_signature = !ret;
	if (ret)
		snprintf(r->signature_why, sizeof(r->signature_why),
			 "the runs do not have the shapes the fit needs (%s)",
			 strerror(-ret));
	else
		snprintf(r->traffic, sizeof(r->traffic), "%s", traffic);
}

static size_t add(char *buf, size_t len, size_t off, const char *fmt,
		  const char *a)
{
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, fmt, a);
	return off;
}

static int busiest(const struct bwm_access_metrics *mt, int n)
{
	int j, b = 0;

	for (j = 1; j < n; j++)
		if (mt->node_acc[j] > mt->node_acc[b])
			b = j;
	return b;
}

/*
 * What kind of pages, in words, where the range of the exclusivity
 * supports one; else that the samples cannot tell.
 */
static const char *pages_kind(const struct inspect_estimate *e, char *buf,
			      size_t len)
{
	if (e->excl_lo >= PRIVATE_DOMINATES)
		return "mostly private pages (each used by one node)";
	if (e->excl_hi <= SHARED_DOMINATES)
		return "mostly shared pages (used by several nodes)";
	if (e->excl_lo >= SHARED_DOMINATES && e->excl_hi <= PRIVATE_DOMINATES)
		return "private and shared pages";
	if (e->excl_hi - e->excl_lo > UNSETTLED)
		snprintf(buf, len, "the samples cannot tell how private its "
			 "pages are (exclusivity %.2f .. %.2f on %.3g samples a "
			 "page: sample longer)", e->excl_lo, e->excl_hi,
			 e->samples_per_page);
	else
		snprintf(buf, len, "private and shared pages, at the edge of "
			 "mostly %s (exclusivity %.2f .. %.2f)",
			 e->excl_hi > PRIVATE_DOMINATES ? "private" : "shared",
			 e->excl_lo, e->excl_hi);
	return buf;
}

void inspect_verdict(struct inspect_report *r)
{
	char *v = r->verdict, w[4 * BWM_MAX_NODES], args[256], part[640];
	size_t len = sizeof(r->verdict), off = 0;

	v[0] = '\0';
	if (r->have_prediction)
		off = add(v, len, off, "%s", r->stall_fraction >= MEMORY_BOUND ?
			  "memory-bound" : r->stall_fraction >= MEMORY_SENSITIVE ?
			  "memory-sensitive" :
			  "compute-bound: placement matters little");
	if (r->have_metrics) {
		const struct bwm_access_metrics *mt = &r->metrics;

		off = add(v, len, off, "%s", off ? ", " : "");
		off = add(v, len, off, "%s", pages_kind(&r->est, part,
							sizeof(part)));
		if (mt->located && mt->access_balance > ONE_NODE_SERVES) {
			snprintf(part, sizeof(part),
				 "; node %d serves %.0f%% of the accesses",
				 busiest(mt, r->nr_nodes),
				 100 * mt->node_acc[busiest(mt, r->nr_nodes)] /
				 mt->accesses);
			off = add(v, len, off, "%s", part);
		}
	}
	if (!r->have_prediction && r->have_metrics && r->metrics.located) {
		/* without the model, the paper's policies say what to do */
		const struct bwm_access_metrics *mt = &r->metrics;

		if (r->est.loc_hi < POOR_LOCALITY &&
		    r->est.excl_lo >= SHARED_DOMINATES)
			off = add(v, len, off, "%s", "; most accesses go to pages "
				  "away from the node that uses them most: place "
				  "the private pages with their threads (first "
				  "touch by the thread that uses them, or a move)");
		if (mt->access_balance > ONE_NODE_SERVES &&
		    r->est.excl_hi < PRIVATE_DOMINATES)
			off = add(v, len, off, "%s", "; spread the shared pages "
				  "(weighted interleave) to relieve the busiest "
				  "node");
	}
	if (r->have_prediction) {
		bwm_weights_format(r->weights, r->nr_nodes, w, sizeof(w));
		if (r->gain >= WORTH_CHANGING)
			snprintf(part, sizeof(part),
				 "; interleave all of it with weights %s (numactl "
				 "%s), predicted %.2fx faster%s", w,
				 bwapd_numactl_args(r->weights, r->nr_nodes, args,
						    sizeof(args)), r->gain,
				 r->have_metrics &&
				 r->est.excl_lo >= PRIVATE_DOMINATES ?
				 " (bandwidth outweighs the locality of its "
				 "private pages)" : "");
		else
			snprintf(part, sizeof(part),
				 "; keep the current placement: within %.0f%% of the "
				 "best the model predicts (weights %s)",
				 100 * (WORTH_CHANGING - 1), w);
		off = add(v, len, off, "%s", part);
	}
	if (r->have_signature && !r->sigq.fits)
		off = add(v, len, off, "%s", "; its counters do not fit the "
			  "signature model: threads do unequal work or memory "
			  "sits on nodes without threads");
	if (!off)
		add(v, len, off, "%s", "nothing measured");
}

/* A name for the terminal: control characters become '?'. */
static void printable(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ?
			 '?' : src[i];
	dst[i] = '\0';
}

#define LABEL_W	30

static void print_row(const char *label, const uint64_t *v, int n)
{
	int j;

	printf("  %-*.*s", LABEL_W, LABEL_W, label);
	for (j = 0; j < n; j++)
		printf(" %8llu", (unsigned long long)v[j]);
	putchar('\n');
}

void inspect_print_text(const struct inspect_report *r, int verbose)
{
	const struct bwm_access_metrics *mt = &r->metrics;
	char name[64], list[64], w[4 * BWM_MAX_NODES];
	int i, j;

	printable(name, sizeof(name), r->name);
	bwapd_nodelist_format(r->workers, list, sizeof(list));
	if (r->pid)
		printf("process %d (%s), %d threads on nodes %s\n", (int)r->pid,
		       name, r->threads, list);
	else
		printf("workload %s on model %s, %d threads on nodes %s\n", name,
		       r->machine, r->threads, list);
	printf("\npages per node\n  %-*s", LABEL_W, "node");
	for (j = 0; j < r->nr_nodes; j++)
		printf(" %8d", j);
	putchar('\n');
	print_row("all", r->pages, r->nr_nodes);
	for (i = 0; verbose && i < r->nr_mappings; i++) {
		const char *base = strrchr(r->mapping[i].name, '/');
		char label[80];

		printable(name, sizeof(name), base ? base + 1 : r->mapping[i].name);
		snprintf(label, sizeof(label), "%12llx %s",
			 (unsigned long long)r->mapping[i].start, name);
		print_row(label, r->mapping[i].pages, r->nr_nodes);
	}
	if (verbose && r->more_mappings)
		printf("  (and %d more mappings)\n", r->more_mappings);

	printf("\naccess behaviour (Diener et al.)\n");
	if (r->have_metrics) {
		printf("  samples        %llu on %ld pages", (unsigned long long)r->samples,
		       mt->pages);
		if (r->sample_seconds > 0)
			printf(" over %.3g s", r->sample_seconds);
		printf(", %.3g a page: %s\n", r->est.samples_per_page,
		       r->source);
		if (r->lost)
			printf("  lost           %llu samples (full rings, CPUs of no node)\n",
			       (unsigned long long)r->lost);
		if (r->est.unresolved > 0)
			printf("  rates          %.0f%% of the accesses on pages sampled in every slice: faster than the slices resolve (a shorter --interval would)\n",
			       100 * r->est.unresolved);
		printf("  exclusivity    %.3f   %.3f .. %.3f  (E_App: 1/%d all shared .. 1 all private)\n",
		       mt->exclusivity, r->est.excl_lo, r->est.excl_hi,
		       r->nr_nodes);
		if (r->est.have_locality)
			printf("  locality       %.3f   %.3f .. %.3f  (Loc_App: accesses to pages on their most-accessing node)\n",
			       mt->locality, r->est.loc_lo, r->est.loc_hi);
		else
			printf("  locality       - (no sampled page is located)\n");
		printf("  page balance   %.1f%%  (B_Pages: 0 even .. %d00 one node)\n",
		       mt->page_balance, r->nr_nodes - 1);
		printf("  access balance %.1f%%  (B_Acc)\n", mt->access_balance);
		if (r->have_dynamicity)
			printf("  dynamicity     %.3g page migrations/s (%ld page-slice pairs)\n",
			       r->dynamicity, r->dyn_compared);
		else
			printf("  dynamicity     - (%s)\n", r->metrics_why);
	} else {
		printf("  - (%s)\n", r->metrics_why);
	}

	printf("\nbandwidth signature (Oracle Labs)");
	if (r->have_signature)
		printf(", %s traffic", r->traffic);
	putchar('\n');
	if (r->have_signature) {
		double il = 1 - r->sig.static_frac - r->sig.local_frac -
			    r->sig.per_thread_frac;

		printf("  static %.3f (node %d), local %.3f, per-thread %.3f, interleaved %.3f\n",
		       r->sig.static_frac, r->sig.static_node, r->sig.local_frac,
		       r->sig.per_thread_frac, il < 0 ? 0 : il);
		printf("  fit: %s (%.1f%% of the traffic unexplained, remote shares spread %.3f)\n",
		       r->sigq.fits ? "good" : "poor", 100 * r->sigq.residual,
		       r->sigq.asymmetry);
	} else {
		printf("  - (%s)\n", r->signature_why);
	}

	printf("\npredicted best placement\n");
	if (r->have_prediction) {
		printf("  weights        %s  (%.2fx the current placement: %.3g -> %.3g GB/s)\n",
		       bwm_weights_format(r->weights, r->nr_nodes, w, sizeof(w)),
		       r->gain, r->current_gbps, r->predicted_gbps);
		if (r->flat.points > 1 && r->flat.dwp[1] > r->flat.dwp[0]) {
			char hi[4 * BWM_MAX_NODES];

			printf("  flat           %s to %s (DWP %.2f to %.2f from the canonical weights) predicted within %.1f %%: any of them serves about as well\n",
			       bwm_weights_format(r->flat.weights[0], r->nr_nodes, w, sizeof(w)),
			       bwm_weights_format(r->flat.weights[1], r->nr_nodes, hi, sizeof(hi)),
			       r->flat.dwp[0], r->flat.dwp[1], 100 * BWM_FLAT_TOL);
		}
		if (r->assumes[0])
			printf("  assumes       %s\n", r->assumes);
	} else {
		printf("  - (%s)\n", r->prediction_why);
	}
	if (r->side_effects[0])
		printf("\nside effects: %s\n", r->side_effects);
	printf("\nverdict: %s\n", r->verdict);
}

static json_object *u64s(const uint64_t *v, int n)
{
	json_object *a = json_object_new_array();
	int j;

	for (j = 0; j < n; j++)
		json_object_array_add(a, json_object_new_int64((int64_t)v[j]));
	return a;
}

static json_object *ints(const int *v, int n)
{
	json_object *a = json_object_new_array();
	int j;

	for (j = 0; j < n; j++)
		json_object_array_add(a, json_object_new_int(v[j]));
	return a;
}

/* key: null, and key_why: why (the man page's promise for every null). */
static void bj_null(json_object *o, const char *key, const char *why)
{
	char k[64];

	json_object_object_add(o, key, NULL);
	snprintf(k, sizeof(k), "%s_why", key);
	bj_str(o, k, why);
}

int inspect_print_json(const struct inspect_report *r, int verbose)
{
	const struct bwm_access_metrics *mt = &r->metrics;
	json_object *o = json_object_new_object(), *s, *a;
	int i, j;

	if (r->pid)
		bj_int(o, "pid", r->pid);
	else
		bj_str(o, "machine", r->machine);
	bj_str(o, r->pid ? "command" : "workload", r->name);
	bj_int(o, "nodes", r->nr_nodes);
	a = json_object_new_array();
	for (j = 0; j < r->nr_nodes; j++)
		if (r->workers & (1u << j))
			json_object_array_add(a, json_object_new_int(j));
	json_object_object_add(o, "workers", a);
	bj_int(o, "threads", r->threads);
	json_object_object_add(o, "pages", u64s(r->pages, r->nr_nodes));
	if (verbose) {
		a = json_object_new_array();
		for (i = 0; i < r->nr_mappings; i++) {
			char start[32];

			s = json_object_new_object();
			snprintf(start, sizeof(start), "0x%llx",
				 (unsigned long long)r->mapping[i].start);
			bj_str(s, "start", start);
			bj_str(s, "name", r->mapping[i].name);
			bj_str(s, "policy", r->mapping[i].policy);
			json_object_object_add(s, "pages",
					       u64s(r->mapping[i].pages, r->nr_nodes));
			json_object_array_add(a, s);
		}
		json_object_object_add(o, "mappings", a);
		bj_int(o, "more_mappings", r->more_mappings);
	}

	s = json_object_new_object();
	if (r->have_metrics) {
		bj_str(s, "source", r->source);
		bj_int(s, "samples", (int64_t)r->samples);
		bj_int(s, "lost", (int64_t)r->lost);
		bj_int(s, "pages", mt->pages);
		bj_num(s, "per_page", r->est.samples_per_page, "%.6g");
		bj_num(s, "unresolved", r->est.unresolved, "%.6g");
		bj_num(s, "seconds", r->sample_seconds, "%.6g");
		if (r->pid) {
			bj_num(s, "from_monotonic", r->sample_from, "%.6f");
			bj_num(s, "clear_seconds", r->clear_seconds, "%.6g");
		}
	} else {
		bj_str(s, "why", r->metrics_why);
	}
	json_object_object_add(o, "samples", s);
	if (r->have_metrics) {
		double er[2] = { r->est.excl_lo, r->est.excl_hi };
		double lr[2] = { r->est.loc_lo, r->est.loc_hi };

		bj_num(o, "exclusivity", mt->exclusivity, "%.6g");
		bj_nums(o, "exclusivity_range", er, 2, "%.6g");
		if (r->est.have_locality) {
			bj_num(o, "locality", mt->locality, "%.6g");
			bj_nums(o, "locality_range", lr, 2, "%.6g");
		} else {
			bj_null(o, "locality", "no sampled page is located");
		}
		bj_num(o, "page_balance", mt->page_balance, "%.6g");
		bj_num(o, "access_balance", mt->access_balance, "%.6g");
		bj_nums(o, "node_accesses", mt->node_acc, r->nr_nodes, "%.6g");
	} else {
		bj_null(o, "exclusivity", r->metrics_why);
		bj_null(o, "locality", r->metrics_why);
		bj_null(o, "page_balance", r->metrics_why);
		bj_null(o, "access_balance", r->metrics_why);
	}
	if (r->have_metrics && r->have_dynamicity) {
		s = json_object_new_object();
		bj_num(s, "migrations_per_s", r->dynamicity, "%.6g");
		bj_int(s, "compared", r->dyn_compared);
		json_object_object_add(o, "dynamicity", s);
	} else {
		bj_null(o, "dynamicity", r->metrics_why);
	}

	if (r->have_signature) {
		s = json_object_new_object();
		bj_str(s, "traffic", r->traffic);
		bj_int(s, "static_node", r->sig.static_node);
		bj_num(s, "static", r->sig.static_frac, "%.6g");
		bj_num(s, "local", r->sig.local_frac, "%.6g");
		bj_num(s, "per_thread", r->sig.per_thread_frac, "%.6g");
		bj_num(s, "interleaved", fmax(0, 1 - r->sig.static_frac -
					      r->sig.local_frac -
					      r->sig.per_thread_frac), "%.6g");
		bj_bool(s, "fits", r->sigq.fits);
		bj_num(s, "residual", r->sigq.residual, "%.6g");
		bj_num(s, "asymmetry", r->sigq.asymmetry, "%.6g");
		json_object_object_add(s, "symmetric_threads",
				       ints(r->sym_threads, r->nr_nodes));
		json_object_object_add(s, "asymmetric_threads",
				       ints(r->asym_threads, r->nr_nodes));
		json_object_object_add(o, "signature", s);
	} else {
		bj_null(o, "signature", r->signature_why);
	}

	if (r->have_prediction) {
		s = json_object_new_object();
		bj_u8s(s, "weights", r->weights, r->nr_nodes);
		a = json_object_new_array();
		for (j = 0; j < r->nr_nodes; j++)
			if (r->weights[j])
				json_object_array_add(a, json_object_new_int(j));
		json_object_object_add(s, "nodemask", a);
		bj_num(s, "gain", r->gain, "%.6g");
		bj_num(s, "current_gbps", r->current_gbps, "%.6g");
		bj_num(s, "predicted_gbps", r->predicted_gbps, "%.6g");
		bj_num(s, "stall_fraction", r->stall_fraction, "%.6g");
		if (r->flat.points > 1 && r->flat.dwp[1] > r->flat.dwp[0]) {
			json_object *fl = json_object_new_object();

			bj_nums(fl, "dwp", r->flat.dwp, 2, "%.4f");
			bj_u8s(fl, "from", r->flat.weights[0], r->nr_nodes);
			bj_u8s(fl, "to", r->flat.weights[1], r->nr_nodes);
			bj_num(fl, "within", BWM_FLAT_TOL, "%.4f");
			json_object_object_add(s, "flat", fl);
		} else {
			char why[160];

			snprintf(why, sizeof(why), "no other weights on the DWP line from the canonical ones are predicted within %.1f %% of these",
				 100 * BWM_FLAT_TOL);
			bj_null(s, "flat", why);
		}
		if (r->assumes[0])
			bj_str(s, "assumes", r->assumes);
		json_object_object_add(o, "predicted", s);
	} else {
		bj_null(o, "predicted", r->prediction_why);
	}
	if (r->side_effects[0])
		bj_str(o, "side_effects", r->side_effects);
	bj_str(o, "verdict", r->verdict);
	return bj_print(o);
}
