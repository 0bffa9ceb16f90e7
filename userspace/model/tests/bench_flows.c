// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's phases on a modelled machine (bwm_bench_flows), which
 * answer bwapd profile's measurement of the machine where the hardware is
 * missing; and the machine file written back out (bwm_machine_format),
 * as bwapd profile writes its model into a profile.
 */
#include <stdlib.h>

#include "bwm_test.h"

static const char *const machines[] = {
	"bwap-a", "bwap-b", "haswell-2s-8c", "haswell-2s-18c", "dram-cxl",
	"ring-8", "cxl-2s4", "snc-2s", "tiers-3", "ladder-8", "snc-cxl-pool",
	"nps4-cxl", "hbm-2s", "gh-2s", "clique-2x4", "cxl-lopsided-2s",
	"tri-cxl", "chain-2x2", "max-snc4", "mesh-2x3", "uneven-2s-cxl",
	"cxl-switch-2s", "square-4s", "line-3s", "apu-4", "cube-8", "pmem-2s",
	"cxl-fan-1s", "pinwheel-4s", "star-4s", "cxl-corner-4s",
};

#define NR_MACHINES	((int)(sizeof(machines) / sizeof(machines[0])))

/* The file written, read back: every figure the same, routes too. */
TEST(format_reads_back_as_the_same_machine)
{
	struct bwm_machine m, back;
	struct bwm_error err;
	int k;

	for (k = 0; k < NR_MACHINES; k++) {
		char *text;

		ASSERT_EQ(0, bwm_test_load(machines[k], NULL, 0, &m, NULL));
		text = bwm_machine_format(&m, "a \"quoted\" description", NULL);
		ASSERT_NE(NULL, text);
		ASSERT_EQ(0, bwm_machine_parse(text, &back, &err))
			TH_LOG("%s: %s: %s", machines[k], err.field, err.msg);
		free(text);
		EXPECT_EQ(0, memcmp(&m, &back, sizeof(m)))
			TH_LOG("%s differs once written and read", machines[k]);
	}
}

/* A bwapd profile is read for the model it holds, and refused without. */
TEST(profile_gives_its_model)
{
	struct bwm_machine m, back;
	struct bwm_error err;
	char *text, *doc;
	size_t len;

	ASSERT_EQ(0, bwm_test_load("bwap-b", NULL, 0, &m, NULL));
	text = bwm_machine_format(&m, NULL, NULL);
	ASSERT_NE(NULL, text);
	len = strlen(text) + 256;
	doc = malloc(len);
	ASSERT_NE(NULL, doc);
	snprintf(doc, len, "{ \"format\": \"bwapd-canonical-weights\", "
		 "\"version\": 1, \"machine\": { \"nodes\": 4 }, "
		 "\"model\": %s }", text);
	ASSERT_EQ(0, bwm_machine_parse(doc, &back, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, memcmp(&m, &back, sizeof(m)));
	/* an error inside it names the member */
	snprintf(doc, len, "{ \"format\": \"bwapd-canonical-weights\", "
		 "\"model\": { \"name\": \"x\" } }");
	EXPECT_EQ(-EINVAL, bwm_machine_parse(doc, &back, &err));
	EXPECT_EQ(0, strncmp(err.field, "model.", 6)) TH_LOG("%s", err.field);
	snprintf(doc, len, "{ \"format\": \"bwapd-canonical-weights\" }");
	EXPECT_EQ(-EINVAL, bwm_machine_parse(doc, &back, &err));
	EXPECT_NE(NULL, strstr(err.msg, "profile again")) TH_LOG("%s", err.msg);
	free(doc);
	free(text);
}

/*
 * One route alone gets no more than its path, and a chase on an idle
 * machine sees the path's latency: the figures a measurement reads back.
 */
TEST(a_route_alone_is_bounded_by_its_path)
{
	struct bwm_machine m;
	int k, j, c;

	for (k = 0; k < NR_MACHINES; k++) {
		ASSERT_EQ(0, bwm_test_load(machines[k], NULL, 0, &m, NULL));
		for (c = 0; c < m.nr_nodes; c++) {
			if (!m.node[c].cpus)
				continue;
			for (j = 0; j < m.nr_nodes; j++) {
				struct bwm_flow f = { .cpu = c, .mem = 1u << j };
				struct bwm_flow_result rd, wr, ch;

				ASSERT_EQ(0, bwm_bench_flows(&m, 1, &f, 0, NULL, &rd));
				f.write = 1;
				ASSERT_EQ(0, bwm_bench_flows(&m, 1, &f, 0, NULL, &wr));
				f.write = 0;
				f.chase = 1;
				ASSERT_EQ(0, bwm_bench_flows(&m, 1, &f, 0, NULL, &ch));
				EXPECT_TRUE(rd.gbps > 0 &&
					    rd.gbps <= m.read_gbps[j][c] * (1 + 1e-9))
					TH_LOG("%s %d<-%d: %g of %g", machines[k], c, j,
					       rd.gbps, m.read_gbps[j][c]);
				EXPECT_TRUE(wr.gbps > 0 &&
					    wr.gbps <= m.write_gbps[j][c] * (1 + 1e-9));
				/* one line in flight: latency is the rate's inverse */
				EXPECT_NEAR(BWM_LINE_BYTES / ch.gbps, ch.latency_ns,
					    1e-4 * ch.latency_ns);
				/*
				 * the path's latency, and the little queueing
				 * of the chase's own line at a time; a loaded
				 * route waits longer
				 */
				EXPECT_GE(ch.latency_ns, m.latency_ns[j][c] * (1 - 1e-9));
				EXPECT_GE(rd.latency_ns, ch.latency_ns);
			}
		}
	}
}

/*
 * Every CPU node reading one memory node together gets no more than its
 * controller; on bwap-b each route alone gets less than the controller,
 * so together they are held by it (what the measurement tells apart).
 */
TEST(routes_together_share_the_controller)
{
	struct bwm_machine m;
	struct bwm_flow f[4];
	struct bwm_flow_result r[4], one;
	double together = 0;
	int c;

	ASSERT_EQ(0, bwm_test_load("bwap-b", NULL, 0, &m, NULL));
	for (c = 0; c < 4; c++) {
		f[c] = (struct bwm_flow){ .cpu = c, .mem = 1u << 2 };
		ASSERT_EQ(0, bwm_bench_flows(&m, 1, &f[c], 0, NULL, &one));
		EXPECT_LT(one.gbps, m.node[2].ctrl_read_gbps);
	}
	ASSERT_EQ(0, bwm_bench_flows(&m, 4, f, 0, NULL, r));
	for (c = 0; c < 4; c++)
		together += r[c].gbps;
	EXPECT_NEAR(m.node[2].ctrl_read_gbps, together,
		    1e-6 * m.node[2].ctrl_read_gbps);
}

/* Noise is relative and seeded: the same seed, the same answers. */
TEST(noise_is_seeded)
{
	struct bwm_machine m;
	struct bwm_flow f = { .cpu = 0, .mem = 1u << 1 };
	struct bwm_flow_result a, b, exact;
	struct bwm_rng r1, r2;

	ASSERT_EQ(0, bwm_test_load("bwap-b", NULL, 0, &m, NULL));
	bwm_rng_seed(&r1, 7);
	bwm_rng_seed(&r2, 7);
	ASSERT_EQ(0, bwm_bench_flows(&m, 1, &f, 0.01, &r1, &a));
	ASSERT_EQ(0, bwm_bench_flows(&m, 1, &f, 0.01, &r2, &b));
	ASSERT_EQ(0, bwm_bench_flows(&m, 1, &f, 0, NULL, &exact));
	EXPECT_NEAR(a.gbps, b.gbps, 0);
	EXPECT_NEAR(exact.gbps, a.gbps, 0.05 * exact.gbps);
	EXPECT_TRUE(a.gbps != exact.gbps);
}

TEST(bad_flows_are_refused)
{
	struct bwm_machine m;
	struct bwm_flow f[2] = { { .cpu = 0, .mem = 1 }, { .cpu = 0, .mem = 2 } };
	struct bwm_flow_result r[2];

	ASSERT_EQ(0, bwm_test_load("dram-cxl", NULL, 0, &m, NULL));
	/* two flows on one CPU node */
	EXPECT_EQ(-EINVAL, bwm_bench_flows(&m, 2, f, 0, NULL, r));
	/* a CPU-less node runs nothing */
	f[0].cpu = 2;
	EXPECT_EQ(-EINVAL, bwm_bench_flows(&m, 1, f, 0, NULL, r));
	/* no pages, or pages on a node that is not there */
	f[0] = (struct bwm_flow){ .cpu = 0, .mem = 0 };
	EXPECT_EQ(-EINVAL, bwm_bench_flows(&m, 1, f, 0, NULL, r));
	f[0].mem = 1u << m.nr_nodes;
	EXPECT_EQ(-EINVAL, bwm_bench_flows(&m, 1, f, 0, NULL, r));
	/* noise without a generator */
	f[0].mem = 1;
	EXPECT_EQ(-EINVAL, bwm_bench_flows(&m, 1, f, 0.01, NULL, r));
	EXPECT_EQ(-EINVAL, bwm_bench_flows(&m, 0, f, 0, NULL, r));
}

TEST_HARNESS_MAIN
