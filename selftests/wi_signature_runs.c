// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd inspect -- COMMAND on a program of each synthetic class of the
 * Oracle Labs paper (helpers/wi_signature.c): bwapd runs it twice with
 * its four workers placed evenly, then one moved, and fits the
 * signature to the two runs' samples, which must give the class.
 *
 * Not part of make check ("make check-signature" runs it alone): its
 * figures rest on which thread writes a page first after each clear and
 * on telling busy threads by their CPU time, both of which an emulated
 * machine sharing two host cores with another distorts.  Where NUMA
 * balancing is on it skips: it would move the pages between the runs.
 */
#define _GNU_SOURCE
#include "wi_harness.h"
#include "wi_bwapd.h"

#define MAX_T		8
#define SIGNATURE_PROG	"/usr/lib/wi/wi_signature"

/*
 * bwapd inspect -- COMMAND: a program of each synthetic class of the
 * Oracle Labs paper (helpers/wi_signature.c), run twice by bwapd with its
 * four workers placed evenly, then one moved, and the signature fitted
 * to the two runs' samples.  The truth is the class; in the mixture, the
 * static pages are raced for by the workers and the local ones are not:
 * each worker is first to write a quarter of the static pages it shares
 * with three others, as many as its own, so static and local are about
 * one half each.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
TEST(signature_of_each_class)
{
	static const struct {
		const char *cls;
		double st, lo, pt, tol;
	} cases[] = {
		{ "static", 1, 0, 0, 0.1 },
		{ "local", 0, 1, 0, 0.1 },
		{ "per-thread", 0, 0, 1, 0.1 },
		{ "interleaved", 0, 0, 0, 0.1 },
		{ "static+local", 0.5, 0.5, 0, 0.15 },
	};
	static char out[1 << 16];
	int nodes[MAX_T], fd;
	unsigned int i;

	if (!have_bwapd() || access(SIGNATURE_PROG, X_OK))
		SKIP(return, "bwapd or %s is missing", SIGNATURE_PROG);
	if (wi_cpu_nodes(nodes, MAX_T) < 2)
		SKIP(return, "needs two CPU nodes");
	/* NUMA balancing would move the pages between and during the runs */
	if (numa_balancing_on())
		SKIP(return, "NUMA balancing is on here");
	fd = hold_perf_keys();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const args[] = {
			"bwapd", "inspect", "--seconds", "2", "--json", "--",
			SIGNATURE_PROG, cases[i].cls, "4", NULL,
		};
		const char *sig;
		double st, lo, pt;

		ASSERT_EQ(0, bwapd(out, sizeof(out), args));
		sig = strstr(out, "\"signature\": {");
		ASSERT_NE(NULL, sig) TH_LOG("%s: %s", cases[i].cls, out);
		st = jnum(sig, "static");
		lo = jnum(sig, "local");
		pt = jnum(sig, "per_thread");
		TH_LOG("%s: static %.3f local %.3f per-thread %.3f interleaved %.3f, fits %s",
		       cases[i].cls, st, lo, pt, jnum(sig, "interleaved"),
		       strstr(sig, "\"fits\": true") ? "yes" : "no");
		EXPECT_TRUE(fabs(st - cases[i].st) <= cases[i].tol &&
			    fabs(lo - cases[i].lo) <= cases[i].tol &&
			    fabs(pt - cases[i].pt) <= cases[i].tol)
			TH_LOG("%s", out);
	}
	if (fd >= 0)
		close(fd);
}

TEST_HARNESS_MAIN
