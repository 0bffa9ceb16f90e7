// SPDX-License-Identifier: GPL-2.0
/*
 * Machine and workload files: the presets parse and carry the published
 * ratios; bad files are refused with the line and field at fault.
 */
#include "bwm_test.h"
#include "reproduce.h"

static const char *const presets[] = {
	"bwap-a", "bwap-b", "haswell-2s-8c", "haswell-2s-18c", "dram-cxl",
};

static const char *const workloads[] = {
	"bandwidth-bound", "latency-bound", "mixed", "private-heavy",
	"ocean-cp", "ocean-ncp", "sp-b", "streamcluster", "ft-c",
};

TEST(presets_parse)
{
	struct bwm_machine m;
	struct bwm_workload wl;
	unsigned int i, j;

	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		for (j = 0; j < sizeof(workloads) / sizeof(workloads[0]); j++) {
			EXPECT_EQ(0, bwm_test_load(presets[i], workloads[j], 0,
						   &m, &wl))
				TH_LOG("preset %u with workload %u", i, j);
		}
}

/* local read bandwidth over the lowest, over a given path */
static double ratio(const struct bwm_machine *m, int mem, int cpu)
{
	return m->read_gbps[cpu][cpu] / m->read_gbps[mem][cpu];
}

TEST(bwap_machine_a_ratios)
{
	struct bwm_machine m;
	double lo = INFINITY, hi = 0;
	int i, j;

	ASSERT_EQ(0, bwm_test_load("bwap-a", NULL, 0, &m, NULL));
	ASSERT_EQ(8, m.nr_nodes);
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(8, m.node[i].cpus);
		for (j = 0; j < 8; j++) {
			lo = fmin(lo, m.read_gbps[i][j]);
			hi = fmax(hi, m.read_gbps[i][j]);
		}
	}
	EXPECT_NEAR(5.8, hi / lo, 0.01);
	EXPECT_NEAR(1.7, ratio(&m, 1, 0), 0.01);	/* nearest: same package */
	EXPECT_NEAR(5.1, ratio(&m, 3, 0), 0.01);	/* farthest: two hops */
	/* directions differ */
	EXPECT_TRUE(m.read_gbps[4][0] != m.read_gbps[0][4]);
}

TEST(bwap_machine_b_ratios)
{
	struct bwm_machine m;
	double lo = INFINITY, hi = 0;
	int i, j;

	ASSERT_EQ(0, bwm_test_load("bwap-b", NULL, 0, &m, NULL));
	ASSERT_EQ(4, m.nr_nodes);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(7, m.node[i].cpus);
		for (j = 0; j < 4; j++) {
			lo = fmin(lo, m.read_gbps[i][j]);
			hi = fmax(hi, m.read_gbps[i][j]);
		}
	}
	EXPECT_NEAR(2.3, hi / lo, 0.01);
	EXPECT_NEAR(1.8, ratio(&m, 1, 0), 0.01);
}

/*
 * The benchmark presets move, on the machine they were measured on
 * (first-touch, every core of the workers), the traffic measured there:
 * the BWAP paper's Table I.
 */
TEST(benchmarks_move_the_measured_traffic)
{
	static const double table1[][2] = {	/* MB/s read, written */
		{ 17576, 6492 }, { 16053, 5578 }, { 11962, 5352 },
		{ 10055, 70 }, { 5585, 4715 },
	};
	unsigned int i;

	for (i = 4; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		struct bwm_workload wl;
		struct bwm_machine m, a;
		struct bwm_placement pl;
		struct bwm_prediction p;
		const double *t = table1[i - 4];

		ASSERT_EQ(0, bwm_test_load("bwap-a", NULL, 0, &a, NULL));
		ASSERT_EQ(0, bwm_test_load("bwap-b", workloads[i], 0, &m, &wl));
		/* fitted with machine A's queue factor (reproduce.c) */
		bwm_repro_carry(&a, &m);
		ASSERT_STREQ("bwap-b", wl.measured.machine);
		EXPECT_NEAR((t[0] + t[1]) / 1000, wl.measured.gbps, 5e-4);
		EXPECT_NEAR(t[0] / (t[0] + t[1]), wl.read, 1e-4);
		ASSERT_EQ(0, bwm_workload_bind(&m, &wl, wl.measured.workers, 0,
					       NULL));
		bwm_placement_first_touch(&pl, m.nr_nodes,
					  bwm_workload_first_touch(&wl));
		ASSERT_EQ(0, bwm_predict(&m, &wl, &pl, &p));
		TH_LOG("%s: %.3f GB/s measured, %.3f predicted", workloads[i],
		       wl.measured.gbps, p.throughput_gbps);
		EXPECT_NEAR(wl.measured.gbps, p.throughput_gbps,
			    0.01 * wl.measured.gbps);
	}
}

/* A Bulldozer core asks for less than the Broadwell cores of machine B. */
TEST(core_speed_scales_demand)
{
	struct bwm_workload wl;
	struct bwm_machine a, b;

	ASSERT_EQ(0, bwm_test_load("bwap-a", "ocean-cp", 0, &a, &wl));
	ASSERT_EQ(0, bwm_test_load("bwap-b", NULL, 0, &b, NULL));
	EXPECT_NEAR(1, bwm_core_speed(&b), 0);
	EXPECT_NEAR(0.6 * wl.demand_gbps, bwm_thread_demand(&a, &wl), 1e-12);
	a.core_speed = 0;	/* built in memory without one */
	EXPECT_NEAR(wl.demand_gbps, bwm_thread_demand(&a, &wl), 0);
	EXPECT_LT(0, a.nr_links);
}

TEST(haswell_remote_local)
{
	struct bwm_machine m;

	ASSERT_EQ(0, bwm_test_load("haswell-2s-8c", NULL, 0, &m, NULL));
	EXPECT_NEAR(0.16, m.read_gbps[1][0] / m.read_gbps[0][0], 1e-3);
	EXPECT_NEAR(0.23, m.write_gbps[1][0] / m.write_gbps[0][0], 1e-3);
	EXPECT_EQ(8, m.node[0].cpus);
	ASSERT_EQ(0, bwm_test_load("haswell-2s-18c", NULL, 0, &m, NULL));
	EXPECT_NEAR(0.59, m.read_gbps[0][1] / m.read_gbps[1][1], 1e-3);
	EXPECT_NEAR(0.83, m.write_gbps[0][1] / m.write_gbps[1][1], 1e-3);
	EXPECT_EQ(18, m.node[1].cpus);
}

TEST(cxl_nodes_have_no_cpus)
{
	struct bwm_machine m;

	ASSERT_EQ(0, bwm_test_load("dram-cxl", NULL, 0, &m, NULL));
	ASSERT_EQ(4, m.nr_nodes);
	EXPECT_EQ(0x3u, bwm_cpu_nodes(&m));
	EXPECT_GT_D(m.latency_ns[2][0], m.latency_ns[1][0]);
}

static const char good[] =
	"{\n"
	"  \"name\": \"t\",\n"
	"  \"cpu_ghz\": 2,\n"
	"  \"nodes\": [\n"
	"    {\"cpus\": 4, \"ctrl_read_gbps\": 10},\n"
	"    {\"cpus\": 0, \"ctrl_read_gbps\": 5}\n"
	"  ],\n"
	"  \"read_gbps\": [[9, 0], [4, null]],\n"
	"  \"latency_ns\": [[80, 0], [200, 0]]\n"
	"}\n";

/* good[] with one piece replaced */
static int parse_edit(const char *from, const char *to,
		      struct bwm_error *err)
{
	char text[2048];
	const char *p = strstr(good, from);
	struct bwm_machine m;

	if (!p)
		return 1;
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(p - good), good, to,
		 p + strlen(from));
	memset(err, 0, sizeof(*err));
	return bwm_machine_parse(text, &m, err);
}

TEST(small_machine_file)
{
	struct bwm_machine m;
	struct bwm_error err;

	ASSERT_EQ(0, bwm_machine_parse(good, &m, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(2, m.nr_nodes);
	EXPECT_NEAR(10, m.node[0].ctrl_write_gbps, 0);	/* defaults to read */
	EXPECT_NEAR(4, m.write_gbps[1][0], 0);		/* defaults to read */
	EXPECT_NEAR(BWM_DEFAULT_QUEUE_FACTOR, m.queue_factor, 0);
}

/*
 * A machine built in memory (bwapd's fitted model) is held to the ranges
 * the file loader holds a file to: what it writes it can read back.
 */
TEST(check_holds_the_file_ranges)
{
	struct bwm_machine m;
	struct bwm_error err;

	ASSERT_EQ(0, bwm_machine_parse(good, &m, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, bwm_machine_check(&m, &err));
	m.node[0].ctrl_write_gbps = 133426;
	EXPECT_EQ(-EINVAL, bwm_machine_check(&m, &err));
	EXPECT_STREQ("nodes[0]", err.field);
	m.node[0].ctrl_write_gbps = 10;
	m.read_gbps[1][0] = 2e5;
	EXPECT_EQ(-EINVAL, bwm_machine_check(&m, &err));
	m.read_gbps[1][0] = 4;
	m.latency_ns[0][0] = 2e5;
	EXPECT_EQ(-EINVAL, bwm_machine_check(&m, &err));
}

TEST(syntax_error_line)
{
	struct bwm_error err;

	EXPECT_EQ(-EINVAL, parse_edit("\"cpus\": 0,", "\"cpus\": 0,,", &err));
	EXPECT_EQ(6, err.line);
	EXPECT_NE(NULL, strstr(err.msg, "syntax"));
	/* a stray brace after node 1 (line 6) */
	EXPECT_EQ(-EINVAL, parse_edit("}\n", "}\n}\n", &err));
	EXPECT_EQ(7, err.line);
}

TEST(bad_fields_name_field_and_line)
{
	struct bwm_error err;

	EXPECT_EQ(-EINVAL, parse_edit("\"ctrl_read_gbps\": 5",
				      "\"ctrl_read_gbps\": -5", &err));
	EXPECT_STREQ("nodes[1].ctrl_read_gbps", err.field);
	EXPECT_EQ(6, err.line);
	EXPECT_EQ(-EINVAL, parse_edit("[4, null]", "[4, 3]", &err));
	EXPECT_STREQ("read_gbps[1][1]", err.field);
	EXPECT_EQ(8, err.line);
	EXPECT_NE(NULL, strstr(err.msg, "no CPUs"));
	EXPECT_EQ(-EINVAL, parse_edit("[[9, 0],", "[[9],", &err));
	EXPECT_STREQ("read_gbps[0]", err.field);
	EXPECT_EQ(-EINVAL, parse_edit("\"cpu_ghz\": 2", "\"cpu_gz\": 2", &err));
	EXPECT_STREQ("cpu_gz", err.field);
	EXPECT_NE(NULL, strstr(err.msg, "unknown"));
	EXPECT_EQ(3, err.line);
	EXPECT_EQ(-EINVAL, parse_edit("  \"latency_ns\": [[80, 0], [200, 0]]\n",
				      "  \"x\": 1\n", &err));
	/* unknown first, so drop the x too: a missing field */
	EXPECT_EQ(-EINVAL, parse_edit(",\n  \"latency_ns\": [[80, 0], [200, 0]]\n",
				      "\n", &err));
	EXPECT_STREQ("latency_ns", err.field);
	EXPECT_NE(NULL, strstr(err.msg, "missing"));
	EXPECT_EQ(-EINVAL, parse_edit("\"cpus\": 4", "\"cpus\": 4.5", &err));
	EXPECT_STREQ("nodes[0]", err.field);
	EXPECT_EQ(-EINVAL, parse_edit("\"cpus\": 4", "\"cpus\": \"4\"", &err));
	EXPECT_STREQ("nodes[0].cpus", err.field);
	EXPECT_EQ(5, err.line);
	/* no CPUs on node 0 any more: its column must be empty */
	EXPECT_EQ(-EINVAL, parse_edit("\"cpus\": 4", "\"cpus\": 0", &err));
	EXPECT_STREQ("read_gbps[0][0]", err.field);
}

TEST(error_format)
{
	struct bwm_error err;
	char buf[256];

	ASSERT_EQ(-EINVAL, parse_edit("[4, null]", "[4, 3]", &err));
	bwm_error_format(&err, "m.json", buf, sizeof(buf));
	EXPECT_EQ(0, strncmp(buf, "m.json:8:", 9)) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "read_gbps[1][1]: "));
}

TEST(missing_file)
{
	struct bwm_machine m;
	struct bwm_error err;

	EXPECT_EQ(-ENOENT, bwm_machine_load("/nonexistent/m.json", &m, &err));
	EXPECT_NE(NULL, strstr(err.msg, "cannot read"));
}

TEST(workload_errors)
{
	struct bwm_workload wl;
	struct bwm_machine m;
	struct bwm_error err;

	EXPECT_EQ(-EINVAL, bwm_workload_parse(
		"{\"workers\": [0, 0], \"demand_gbps\": 1, \"mlp\": 1,\n"
		" \"shared\": 1}", &wl, &err));
	EXPECT_STREQ("workers[1]", err.field);
	EXPECT_EQ(1, err.line);
	EXPECT_EQ(-EINVAL, bwm_workload_parse(
		"{\"workers\": [0], \"demand_gbps\": 1, \"mlp\": 1,\n"
		" \"shared\": 1.5}", &wl, &err));
	EXPECT_STREQ("shared", err.field);
	EXPECT_EQ(2, err.line);
	ASSERT_EQ(0, bwm_workload_parse(
		"{\"workers\": [2], \"demand_gbps\": 1, \"mlp\": 1,\n"
		" \"shared\": 1}", &wl, &err));
	ASSERT_EQ(0, bwm_test_load("dram-cxl", NULL, 0, &m, NULL));
	/* node 2 is CXL memory: no CPUs to run on */
	EXPECT_EQ(-EINVAL, bwm_workload_bind(&m, &wl, 0, 0, &err));
	EXPECT_NE(NULL, strstr(err.msg, "no CPUs"));
	EXPECT_EQ(0, bwm_workload_bind(&m, &wl, 0x2, 0, &err));
	EXPECT_EQ(32, bwm_workload_nr_threads(&wl));
	EXPECT_EQ(-EINVAL, bwm_workload_bind(&m, &wl, 0x2, 33, &err));
	EXPECT_EQ(-EINVAL, bwm_workload_parse(
		"{\"workers\": [0], \"demand_gbps\": 1, \"mlp\": 1, \"shared\": 1,\n"
		" \"measured\": {\"machine\": \"b\", \"workers\": [0, 0], \"gbps\": 1}}",
		&wl, &err));
	EXPECT_STREQ("measured.workers[1]", err.field);
	EXPECT_EQ(2, err.line);
	EXPECT_EQ(-EINVAL, bwm_workload_parse(
		"{\"workers\": [0], \"demand_gbps\": 1, \"mlp\": 1, \"shared\": 1,\n"
		" \"measured\": {\"machine\": \"b\", \"workers\": [0]}}",
		&wl, &err));
	EXPECT_STREQ("measured.gbps", err.field);
	EXPECT_EQ(-EINVAL, bwm_workload_parse(
		"{\"workers\": [0], \"demand_gbps\": 1, \"mlp\": 1, \"shared\": 1,\n"
		" \"measured\": {\"machin\": \"b\"}}", &wl, &err));
	EXPECT_STREQ("measured.machin", err.field);
}

TEST_HARNESS_MAIN
