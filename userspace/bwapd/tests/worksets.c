// SPDX-License-Identifier: GPL-2.0
/*
 * Worker-set enumeration: symmetric sets are skipped exactly when a
 * symmetry of the distances maps them onto a profiled set, their weights
 * follow from that set's, and spread-out sets are left out.
 */
#include "bwapd_test.h"
#include "backend.h"
#include "topology.h"
#include "worksets.h"

static int load_topo(const char *name, struct bwm_machine *m,
		     struct bwapd_topology *t)
{
	struct bwm_error err;
	char path[4096];
	int ret = bwm_machine_load(preset(name, path, sizeof(path)), m, &err);

	return ret ? ret : bwapd_model_topology(m, t);
}

static int is_automorphism(const struct bwapd_topology *t, const int8_t *p)
{
	int i, j;

	for (i = 0; i < t->nr_nodes; i++)
		for (j = 0; j < t->nr_nodes; j++)
			if (t->node[i].distance[j] !=
			    t->node[p[i]].distance[p[j]])
				return 0;
	return 1;
}

static uint32_t image(const int8_t *p, uint32_t s, int n)
{
	uint32_t out = 0;
	int i;

	for (i = 0; i < n; i++)
		if (s & (1u << i))
			out |= 1u << p[i];
	return out;
}

/* Every permutation of n nodes, by Heap's algorithm, into found[]. */
static int all_automorphisms(const struct bwapd_topology *t,
			     int8_t (*found)[BWAPD_MAX_NODES], int max)
{
	int8_t p[BWAPD_MAX_NODES];
	int c[BWAPD_MAX_NODES] = { 0 }, n = t->nr_nodes, i = 1, nr = 0;

	for (int k = 0; k < n; k++)
		p[k] = (int8_t)k;
	if (is_automorphism(t, p))
		memcpy(found[nr++], p, sizeof(p));
	while (i < n) {
		if (c[i] < i) {
			int a = i % 2 ? c[i] : 0;
			int8_t tmp = p[a];

			p[a] = p[i];
			p[i] = tmp;
			if (is_automorphism(t, p) && nr < max)
				memcpy(found[nr++], p, sizeof(p));
			c[i]++;
			i = 1;
		} else {
			c[i++] = 0;
		}
	}
	return nr;
}

static void check_machine(struct __test_metadata *_metadata, const char *name,
			  int profile, int symmetric, int spread, double tol)
{
	static int8_t autos[40320][BWAPD_MAX_NODES];
	static struct bwapd_sets s;
	struct bwapd_set_opts o = { 0 };
	struct bwapd_topology t;
	struct bwm_machine m;
	double worst = 0;
	int i, j, a, nr, orbits = 0;

	ASSERT_EQ(0, load_topo(name, &m, &t));
	ASSERT_EQ(0, bwapd_sets_enumerate(&t, &o, &s));
	EXPECT_EQ(profile, s.nr_profile);
	EXPECT_EQ(symmetric, s.nr_symmetric);
	EXPECT_EQ(spread, s.nr_spread);
	EXPECT_EQ((1 << t.nr_nodes) - 1, s.nr);

	/* brute force: one profiled set per orbit of the kept sets */
	nr = all_automorphisms(&t, autos, 40320);
	EXPECT_EQ(nr, s.nr_automorphisms);
	for (i = 0; i < s.nr; i++) {
		uint32_t w = s.set[i].workers, least = w;

		if (s.set[i].skip == BWAPD_SKIP_SPREAD)
			continue;
		for (a = 0; a < nr; a++)
			if (image(autos[a], w, t.nr_nodes) < least)
				least = image(autos[a], w, t.nr_nodes);
		orbits += least == w;
		EXPECT_EQ(least == w, s.set[i].skip == BWAPD_PROFILE)
			TH_LOG("%s: set 0x%x", name, w);
	}
	EXPECT_EQ(orbits, s.nr_profile);

	/* a skipped set's weights are its representative's, permuted */
	for (i = 0; i < s.nr; i++) {
		const struct bwapd_set *e = &s.set[i];
		struct bwm_profile pa, pb;
		double fa[BWM_MAX_NODES], fb[BWM_MAX_NODES];

		if (e->skip != BWAPD_SKIP_SYMMETRIC)
			continue;
		EXPECT_TRUE(is_automorphism(&t, e->map));
		EXPECT_EQ(e->same_as, image(e->map, e->workers, t.nr_nodes));
		ASSERT_EQ(0, bwm_profile_run(&m, e->workers, 1, 0, NULL, &pa));
		ASSERT_EQ(0, bwm_profile_run(&m, e->same_as, 1, 0, NULL, &pb));
		ASSERT_EQ(0, bwm_canonical_fractions(pa.bw, m.nr_nodes,
						     e->workers, fa));
		ASSERT_EQ(0, bwm_canonical_fractions(pb.bw, m.nr_nodes,
						     e->same_as, fb));
		for (j = 0; j < t.nr_nodes; j++) {
			double err = fabs(fa[j] - fb[e->map[j]]) / fb[e->map[j]];

			worst = fmax(worst, err);
			EXPECT_TRUE(err <= tol)
				TH_LOG("%s 0x%x node %d: %.4f vs %.4f", name,
				       e->workers, j, fa[j], fb[e->map[j]]);
		}
	}
	fprintf(stderr, "# %s: %d sets, %d profiled, %d symmetric (%d symmetries), %d spread; "
		"largest weight difference to the representative %.2f %%\n",
		name, s.nr, s.nr_profile, s.nr_symmetric, nr, s.nr_spread,
		worst * 100);
}

/*
 * Machine A: 4 symmetries of its distances.  Some of its links differ
 * by direction (3.3 vs 3.0 GB/s) where the distances do not, and the
 * profiling run measures every path on its own: the weights of a set
 * skipped as symmetric are its representative's within 11 %.
 */
TEST(machine_a)
{
	check_machine(_metadata, "bwap-a", 17, 38, 200, 0.11);
}

/* Machine B: the same (14.1 vs 14.5 GB/s: 3 %). */
TEST(machine_b)
{
	check_machine(_metadata, "bwap-b", 4, 7, 4, 0.03);
}

TEST(all_and_no_symmetry)
{
	static struct bwapd_sets s;
	struct bwapd_set_opts o = { .all = 1, .no_symmetry = 1 };
	struct bwapd_topology t;
	struct bwm_machine m;

	ASSERT_EQ(0, load_topo("bwap-b", &m, &t));
	ASSERT_EQ(0, bwapd_sets_enumerate(&t, &o, &s));
	EXPECT_EQ(15, s.nr_profile);
	o.max_size = 1;
	ASSERT_EQ(0, bwapd_sets_enumerate(&t, &o, &s));
	EXPECT_EQ(4, s.nr);
	/* CPU-less nodes are never workers */
	ASSERT_EQ(0, load_topo("dram-cxl", &m, &t));
	o.max_size = 0;
	ASSERT_EQ(0, bwapd_sets_enumerate(&t, &o, &s));
	EXPECT_EQ(3, s.nr);
}

TEST(nodelists)
{
	uint32_t m;
	char buf[64];

	ASSERT_EQ(0, bwapd_nodelist_parse("0-2,5,7-8", &m));
	EXPECT_EQ(0x1a7u, m);
	EXPECT_STREQ("0-2,5,7-8", bwapd_nodelist_format(m, buf, sizeof(buf)));
	EXPECT_EQ(-EINVAL, bwapd_nodelist_parse("", &m));
	EXPECT_EQ(-EINVAL, bwapd_nodelist_parse("3-1", &m));
	EXPECT_EQ(-EINVAL, bwapd_nodelist_parse("16", &m));
	EXPECT_EQ(-EINVAL, bwapd_nodelist_parse("1,x", &m));
}

TEST_HARNESS_MAIN
