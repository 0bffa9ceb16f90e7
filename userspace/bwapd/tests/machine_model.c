// SPDX-License-Identifier: GPL-2.0
/*
 * The machine's model bwapd profile measures (machine_model.c), against
 * machines whose every figure is known: the presets the measurement was
 * built on, each answering the benchmark as the model's simulated
 * machine, without noise.  The fit must give back what the machine is,
 * not only a model that answers the benchmark alike:
 *
 *   - the idle latency of every route, though the chase that times it
 *     queues behind its own lines;
 *   - what every route can carry alone - its own width, the links it
 *     crosses and its controller, whichever binds - for reads and writes;
 *   - the width of every link, which a read and a write cross together
 *     (one route alone never fills a link wider than itself);
 *   - the queue factor.
 *
 * Each within TOL (5 %): a model that far off moves the tuner's best
 * weights by a step or more.
 *
 * And the routes, with the counters' noise: where two routes of as many
 * hops are alike, which one the machine takes is not in any figure of a
 * route alone, and a placement that loads both ways predicts otherwise
 * (machine A's 2-hop routes, chosen by the link widths, were 12 wrong of
 * its 56 with 1 % noise).  Machine A, ladder-8 (whose routes down a
 * rung and along a rail lost nothing beside witnesses on the rail),
 * cube-8 (six ways between opposite corners, which the fans once left
 * to the model's choice: 7 of its 8 three-hop routes were wrong), and
 * a test machine of six nodes where most 2-hop routes can go two or
 * three ways (tests/machines).
 */
#include "bwapd_test.h"
#include "tune_eval.h"

#define TOL	0.05

/*
 * What route from memory j to CPU node c (reads) or back carries alone:
 * its own width, its controller, the links it crosses and, off the
 * node, what c's CPUs move over all their links (their interconnect).
 */
static double alone(const struct bwm_machine *m, int j, int c, int write)
{
	uint64_t r = j == c ? 0 : write ? m->route[c][j] : m->route[j][c];
	double g = write ? fmin(m->write_gbps[j][c], m->node[j].ctrl_write_gbps) :
			   fmin(m->read_gbps[j][c], m->node[j].ctrl_read_gbps);

	if (j != c && m->node[c].interconnect_gbps > 0)
		g = fmin(g, m->node[c].interconnect_gbps);

	while (r) {
		g = fmin(g, m->link[__builtin_ctzll(r)].gbps);
		r &= r - 1;
	}
	return g;
}

static double link_gbps(const struct bwm_machine *m, int a, int b)
{
	int l;

	for (l = 0; l < m->nr_links; l++)
		if (m->link[l].from == a && m->link[l].to == b)
			return m->link[l].gbps;
	return 0;
}

/* A preset by name, or a machine file by path. */
static int load_machine(const char *name, struct bwm_machine *m)
{
	return strchr(name, '/') ? bwm_machine_load(name, m, NULL) :
				   bwm_test_load(name, NULL, 0, m, NULL);
}

#define NEAR(want, got, what, ...) do {					\
	double w_ = (want), g_ = (got);					\
									\
	if (!(fabs(g_ / w_ - 1) <= TOL)) {				\
		TH_LOG("%s: " what ": %.3f, the machine's %.3f",	\
		       name, __VA_ARGS__, g_, w_);			\
		bad++;							\
	}								\
} while (0)

/*
 * The presets whose every figure the profile gives back: the first five
 * and three of the four held out, with ladder-8, whose routes the benchmark's
 * streams fill, and uneven-2s-cxl, where they cannot fill every route
 * (its 16-core socket's own memory and its CXL expander).  Not yet:
 * hbm-2s and gh-2s, whose HBM links are wider than any CPU node's
 * streams; nps4-cxl (a quadrant's reads of its neighbour 5.5 % under);
 * snc-2s, whose routes come back within 5 % (its remote ones held by
 * its nodes' interconnect) but its queue factor 9 % low (0.136).
 */
static const char *const given_back[] = {
	"bwap-a", "bwap-b", "haswell-2s-8c", "haswell-2s-18c", "dram-cxl",
	"ring-8", "cxl-2s4", "tiers-3", "ladder-8", "uneven-2s-cxl",
};

TEST(the_profile_gives_back_the_machine)
{
	int i, bad = 0;

	for (i = 0; i < TEV_NR(given_back); i++) {
		const char *name = given_back[i];
		struct bwm_machine m, got;
		char why[512];
		int j, c, l;

		ASSERT_EQ(0, bwm_test_load(name, NULL, 0, &m, NULL));
		ASSERT_EQ(0, tev_profile_model(name, 1, 0, &got, why, sizeof(why)))
			TH_LOG("%s: %s", name, why);
		ASSERT_EQ(m.nr_nodes, got.nr_nodes);
		for (j = 0; j < m.nr_nodes; j++)
			for (c = 0; c < m.nr_nodes; c++) {
				if (!m.node[c].cpus || !(m.node[j].ctrl_read_gbps > 0))
					continue;
				NEAR(m.latency_ns[j][c], got.latency_ns[j][c],
				     "latency from node %d to CPU node %d", j, c);
				NEAR(alone(&m, j, c, 0), alone(&got, j, c, 0),
				     "reads of node %d by CPU node %d alone", j, c);
				NEAR(alone(&m, j, c, 1), alone(&got, j, c, 1),
				     "writes of CPU node %d to node %d alone", c, j);
			}
		for (l = 0; l < m.nr_links; l++)
			NEAR(m.link[l].gbps,
			     link_gbps(&got, m.link[l].from, m.link[l].to),
			     "link %d -> %d", m.link[l].from, m.link[l].to);
		NEAR(m.queue_factor, got.queue_factor, "queue factor%s", "");
	}
	EXPECT_EQ(0, bad);
}

/*
 * A CPU node's interconnect that its phase of the profile fills (every
 * other node loaded at once) is what that phase moved: without noise
 * there is nothing to allow for beyond the fit's own rounding (1 %).
 * Phases it does not bound say nothing of it: on ring-8 the phases
 * loading two nodes, which their routes hold below it, raised every
 * node's 16 GB/s to 16.53 because the model moved 1.6 % less in them.
 */
#define FILLED_TOL	0.01

TEST(a_filled_interconnect_is_what_it_moved)
{
	static const char *const names[] = { "bwap-b", "snc-2s", "ring-8" };
	int i, bad = 0, seen = 0;

	for (i = 0; i < TEV_NR(names); i++) {
		const char *name = names[i];
		struct bwm_machine m, got;
		char why[512];
		int c, j;

		ASSERT_EQ(0, bwm_test_load(name, NULL, 0, &m, NULL));
		ASSERT_EQ(0, tev_profile_model(name, 1, 0, &got, why, sizeof(why)))
			TH_LOG("%s: %s", name, why);
		for (c = 0; c < m.nr_nodes; c++) {
			struct bwm_flow f = { .cpu = c };
			struct bwm_flow_result r;
			double ic = m.node[c].interconnect_gbps;

			for (j = 0; j < m.nr_nodes; j++)
				if (j != c && m.node[j].ctrl_read_gbps > 0)
					f.mem |= 1u << j;
			if (!m.node[c].cpus || !(ic > 0) || !f.mem)
				continue;
			ASSERT_EQ(0, bwm_bench_flows(&m, 1, &f, 0, NULL, &r));
			if (r.gbps < ic * (1 - 1e-3))
				continue;
			seen++;
			if (!(fabs(got.node[c].interconnect_gbps / ic - 1) <= FILLED_TOL)) {
				TH_LOG("%s: CPU node %d's interconnect %.3f, the machine's %.3f",
				       name, c, got.node[c].interconnect_gbps, ic);
				bad++;
			}
		}
	}
	EXPECT_LT(0, seen);
	EXPECT_EQ(0, bad);
}

/* The links of route r of m as bits of (from, to) pairs: a * n + b. */
static void route_pairs(const struct bwm_machine *m, uint64_t r, uint8_t *on)
{
	memset(on, 0, BWM_MAX_NODES * BWM_MAX_NODES);
	while (r) {
		const struct bwm_link *l = &m->link[__builtin_ctzll(r)];

		on[l->from * BWM_MAX_NODES + l->to] = 1;
		r &= r - 1;
	}
}

TEST(routes_survive_the_noise)
{
	static const char *const names[] = {
		"bwap-a", "ladder-8", "cube-8",
		BWAPD_TESTS "/machines/prism-6.json",
	};
	int i, bad = 0;

	for (i = 0; i < TEV_NR(names); i++) {
		const char *name = names[i];
		uint8_t want[BWM_MAX_NODES * BWM_MAX_NODES];
		uint8_t got_on[BWM_MAX_NODES * BWM_MAX_NODES];
		struct bwm_machine m, got;
		char why[512];
		int a, b, routes = 0;

		ASSERT_EQ(0, load_machine(name, &m));
		ASSERT_EQ(0, tev_profile_model(name, 1, 0.01, &got, why,
					       sizeof(why)))
			TH_LOG("%s: %s", name, why);
		ASSERT_LT(0, got.nr_links);
		for (a = 0; a < m.nr_nodes; a++)
			for (b = 0; b < m.nr_nodes; b++) {
				if (a == b || (!m.node[a].cpus && !m.node[b].cpus))
					continue;
				routes++;
				route_pairs(&m, m.route[a][b], want);
				route_pairs(&got, got.route[a][b], got_on);
				if (!memcmp(want, got_on, sizeof(want)))
					continue;
				TH_LOG("%s: the route from node %d to node %d "
				       "is not the machine's", name, a, b);
				bad++;
			}
		TH_LOG("%s: %d routes", name, routes);
	}
	EXPECT_EQ(0, bad);
}

/* How many links of a the machine b lacks, each logged as 'what'. */
static int links_lacking(struct __test_metadata *_metadata,
			 const struct bwm_machine *a,
			 const struct bwm_machine *b, const char *name, int seed,
			 const char *what)
{
	int l, bad = 0;

	for (l = 0; l < a->nr_links; l++) {
		if (link_gbps(b, a->link[l].from, a->link[l].to) > 0)
			continue;
		TH_LOG("%s, seed %d: %s from node %d to node %d", name, seed,
		       what, a->link[l].from, a->link[l].to);
		bad++;
	}
	return bad;
}

/*
 * The links themselves, with the counters' noise, over five seeds (the
 * routes' test above checks one seed of the eight-node machines): a
 * link is read off the idle latencies (a route that the hops through
 * another node do not explain), and a difference of latencies is far
 * noisier than either.  On nps4-cxl, 1 % noise on the chases put a link
 * between opposite quadrants (35 ns over two hops of 15 and 20), and
 * the routes over it took the traffic off the fabric.
 */
TEST(links_survive_the_noise)
{
	static const char *const names[] = {
		"nps4-cxl", "hbm-2s", BWAPD_TESTS "/machines/prism-6.json",
	};
	int i, seed, bad = 0;

	for (i = 0; i < TEV_NR(names); i++) {
		const char *name = names[i];
		struct bwm_machine m, got;
		char why[512];

		ASSERT_EQ(0, load_machine(name, &m));
		for (seed = 1; seed <= 5; seed++) {
			ASSERT_EQ(0, tev_profile_model(name, (uint64_t)seed, 0.01,
						       &got, why, sizeof(why)))
				TH_LOG("%s: %s", name, why);
			bad += links_lacking(_metadata, &got, &m, name, seed,
					     "a link the machine does not have");
			bad += links_lacking(_metadata, &m, &got, name, seed,
					     "no link");
		}
	}
	EXPECT_EQ(0, bad);
}

/*
 * What the tuner asks of the model first: that its own profiling run
 * give the workers' canonical shares (measured, with the benchmark of
 * every worker set) with at most BWAPD_MODEL_AGREE of the pages
 * elsewhere, or it tunes without it.  With 1 % noise, every worker set
 * the bench tunes, on the presets of at most six nodes the tuner is
 * tuned on (the eight-node ones: their routes above).  On hbm-2s the
 * streams cannot load the on-package HBM to its width, and the fit
 * blamed what the HBM's routes lose together on the socket link that
 * only one of them crosses: the HBM's controller stayed at 353 GB/s of
 * its 680, and the shares of worker 0 came out 12 % off.
 */
TEST(canonical_shares_agree)
{
	static const char *const names[] = {
		"bwap-b", "haswell-2s-8c", "haswell-2s-18c", "dram-cxl",
		"nps4-cxl", "hbm-2s",
	};
	int i, bad = 0;

	for (i = 0; i < TEV_NR(names); i++) {
		const char *name = names[i];
		struct bwm_machine m, got;
		uint32_t sets[3];
		char why[512];
		int ns, w;

		ASSERT_EQ(0, bwm_test_load(name, NULL, 0, &m, NULL));
		ASSERT_EQ(0, tev_profile_model(name, 1, 0.01, &got, why,
					       sizeof(why)))
			TH_LOG("%s: %s", name, why);
		ns = tev_worker_sets(&m, sets);
		for (w = 0; w < ns; w++) {
			double want[BWM_MAX_NODES], f[BWM_MAX_NODES], moved = 0;
			int j;

			/* the machine's, and the model's own profiling run */
			ASSERT_EQ(0, tev_canonical(&m, sets[w], want));
			ASSERT_EQ(0, tev_canonical(&got, sets[w], f));
			for (j = 0; j < m.nr_nodes; j++)
				moved += fabs(f[j] - want[j]) / 2;
			TH_LOG("%s, workers %x: %.4f of the pages elsewhere",
			       name, sets[w], moved);
			if (moved > BWAPD_MODEL_AGREE)
				bad++;
		}
	}
	EXPECT_EQ(0, bad);
}

TEST_HARNESS_MAIN
