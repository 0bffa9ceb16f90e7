// SPDX-License-Identifier: GPL-2.0
/*
 * Interconnect links: routes over them, the capacity the flows crossing a
 * link share (reads on the way to the CPUs, writes on the way back), the
 * profiling run behind them, and the machine file's errors.
 */
#include "bwm_test.h"

/*
 * Three nodes in a line, 0 - 1 - 2, each with CPUs: paths and controllers
 * far faster than the links, so that the links are what limits.
 */
static const char line[] =
	"{\n"
	"  \"name\": \"line\", \"cpu_ghz\": 2, \"queue_factor\": 0,\n"
	"  \"nodes\": [{\"cpus\": 4, \"ctrl_read_gbps\": 100},\n"
	"            {\"cpus\": 4, \"ctrl_read_gbps\": 100},\n"
	"            {\"cpus\": 4, \"ctrl_read_gbps\": 100}],\n"
	"  \"read_gbps\": [[50, 50, 50], [50, 50, 50], [50, 50, 50]],\n"
	"  \"latency_ns\": [[100, 100, 100], [100, 100, 100], [100, 100, 100]],\n"
	"  \"links\": [{\"from\": 1, \"to\": 0, \"gbps\": 6},\n"
	"            {\"from\": 0, \"to\": 1, \"gbps\": 2},\n"
	"            {\"from\": 2, \"to\": 1, \"gbps\": 10},\n"
	"            {\"from\": 1, \"to\": 2, \"gbps\": 10}]\n"
	"}\n";

/* base with its first 'from' replaced by 'to', parsed. */
static int parse_edit(const char *base, const char *from, const char *to,
		      struct bwm_machine *m, struct bwm_error *err)
{
	char text[4096];
	const char *p = strstr(base, from);

	if (!p)
		return 1;
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(p - base), base, to,
		 p + strlen(from));
	memset(err, 0, sizeof(*err));
	return bwm_machine_parse(text, m, err);
}

static int parse_line_edit(const char *from, const char *to,
			   struct bwm_machine *m, struct bwm_error *err)
{
	return parse_edit(line, from, to, m, err);
}

static void app(struct bwm_workload *wl, uint32_t workers, double read)
{
	bwm_test_canonical_app(wl, workers, 4);
	wl->read = read;
}

TEST(routes_cross_the_links_between)
{
	struct bwm_machine m;
	struct bwm_error err;

	ASSERT_EQ(0, bwm_machine_parse(line, &m, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(4, m.nr_links);
	EXPECT_EQ(1ull << 0, m.route[1][0]);
	EXPECT_EQ((1ull << 2) | (1ull << 0), m.route[2][0]);	/* 2-1-0 */
	EXPECT_EQ((1ull << 1) | (1ull << 3), m.route[0][2]);
	EXPECT_EQ(0ull, m.route[1][1]);
}

/* Of two routes with as many hops, the one whose narrowest link is wider. */
TEST(routes_take_the_widest_of_the_shortest)
{
	/* a square 0-1-3-2-0 both ways; 3 -> 1 -> 0 is narrower */
	static const struct bwm_link l[] = {
		{ 0, 1, 4 }, { 1, 0, 4 }, { 1, 3, 3 }, { 3, 1, 3 },
		{ 3, 2, 8 }, { 2, 3, 8 }, { 2, 0, 8 }, { 0, 2, 8 },
	};
	struct bwm_machine m;
	int i, j;

	memset(&m, 0, sizeof(m));
	m.nr_nodes = 4;
	m.cpu_ghz = 2;
	for (i = 0; i < 4; i++) {
		m.node[i].cpus = 2;
		m.node[i].ctrl_read_gbps = m.node[i].ctrl_write_gbps = 10;
		for (j = 0; j < 4; j++) {
			m.read_gbps[i][j] = m.write_gbps[i][j] = 5;
			m.latency_ns[i][j] = 100;
		}
	}
	m.nr_links = 8;
	memcpy(m.link, l, sizeof(l));
	ASSERT_EQ(0, bwm_machine_routes(&m, NULL));
	EXPECT_EQ((1ull << 4) | (1ull << 6), m.route[3][0]);	/* via 2 */
	EXPECT_EQ((1ull << 7) | (1ull << 5), m.route[0][3]);
	/* equally wide: the less loaded links, then the first listed (1 -> 0) */
	m.link[6].gbps = m.link[4].gbps = 3;
	m.link[1].gbps = 3;
	ASSERT_EQ(0, bwm_machine_routes(&m, NULL));
	EXPECT_EQ((1ull << 3) | (1ull << 1), m.route[3][0]);
}

/*
 * A route given in the file ("routes") rather than chosen: the square of
 * routes_take_the_widest_of_the_shortest, 3 -> 0 pinned through node 1
 * (narrower than through 2); the format lists it, and reads it back.
 */
static const char square[] =
	"{\n"
	"  \"name\": \"square\", \"cpu_ghz\": 2,\n"
	"  \"nodes\": [{\"cpus\": 2, \"ctrl_read_gbps\": 10},\n"
	"            {\"cpus\": 2, \"ctrl_read_gbps\": 10},\n"
	"            {\"cpus\": 2, \"ctrl_read_gbps\": 10},\n"
	"            {\"cpus\": 2, \"ctrl_read_gbps\": 10}],\n"
	"  \"read_gbps\": [[5, 5, 5, 5], [5, 5, 5, 5], [5, 5, 5, 5], [5, 5, 5, 5]],\n"
	"  \"latency_ns\": [[100, 100, 100, 100], [100, 100, 100, 100],\n"
	"                 [100, 100, 100, 100], [100, 100, 100, 100]],\n"
	"  \"links\": [{\"from\": 0, \"to\": 1, \"gbps\": 4},\n"
	"            {\"from\": 1, \"to\": 0, \"gbps\": 4},\n"
	"            {\"from\": 1, \"to\": 3, \"gbps\": 3},\n"
	"            {\"from\": 3, \"to\": 1, \"gbps\": 3},\n"
	"            {\"from\": 3, \"to\": 2, \"gbps\": 8},\n"
	"            {\"from\": 2, \"to\": 3, \"gbps\": 8},\n"
	"            {\"from\": 2, \"to\": 0, \"gbps\": 8},\n"
	"            {\"from\": 0, \"to\": 2, \"gbps\": 8}],\n"
	"  \"routes\": [{\"from\": 3, \"to\": 0, \"via\": [1]}]\n"
	"}\n";

TEST(routes_given_are_kept)
{
	struct bwm_machine m, back;
	struct bwm_error err;
	char *text;

	ASSERT_EQ(0, bwm_machine_parse(square, &m, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ((1ull << 3) | (1ull << 1), m.route[3][0]);	/* via 1 */
	EXPECT_EQ((1ull << 7) | (1ull << 5), m.route[0][3]);	/* chosen */
	/* new widths choose again, but not the route given */
	m.link[3].gbps = 1;
	ASSERT_EQ(0, bwm_machine_routes(&m, &err));
	EXPECT_EQ((1ull << 3) | (1ull << 1), m.route[3][0]);
	text = bwm_machine_format(&m, NULL, NULL);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "\"routes\""));
	ASSERT_EQ(0, bwm_machine_parse(text, &back, &err)) TH_LOG("%s", err.msg);
	free(text);
	EXPECT_EQ(m.route[3][0], back.route[3][0]);
	EXPECT_EQ(0, memcmp(m.pin_hops, back.pin_hops, sizeof(m.pin_hops)));
	/* none given, none listed */
	memset(m.pin_hops, 0, sizeof(m.pin_hops));
	text = bwm_machine_format(&m, NULL, NULL);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(NULL, strstr(text, "\"routes\""));
	free(text);
}

TEST(route_errors)
{
	static const struct {
		const char *from, *to, *field, *msg;
	} bad[] = {
		{ "\"via\": [1]", "\"via\": [2, 1]", "routes",
		  "no link from node 2 to node 1" },
		{ "\"via\": [1]", "\"via\": [1, 3]", "routes",
		  "a loop from node 1 to node 3" },
		{ "\"via\": [1]", "\"via\": [9]", "routes[0]",
		  "not a node number" },
		{ "\"via\": [1]", "\"via\": 1", "routes[0]",
		  "via: an array" },
		{ "\"from\": 3, \"to\": 0", "\"from\": 0, \"to\": 0",
		  "routes[0]", "the same node" },
		{ "\"via\": [1]}", "\"via\": [1]}, {\"from\": 3, \"to\": 0, \"via\": [2]}",
		  "routes[1]", "a second route" },
		{ "\"via\": [1]", "\"vai\": [1]", "routes[0].vai", "unknown" },
	};
	struct bwm_machine m;
	struct bwm_error err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, parse_edit(square, bad[i].from, bad[i].to,
					      &m, &err)) TH_LOG("%zu", i);
		EXPECT_STREQ(bad[i].field, err.field) TH_LOG("%zu", i);
		EXPECT_NE(NULL, strstr(err.msg, bad[i].msg))
			TH_LOG("%zu: %s", i, err.msg);
	}
	/* routes need the links they cross */
	memset(&m, 0, sizeof(m));
	ASSERT_EQ(0, bwm_machine_parse(square, &m, &err));
	m.nr_links = 0;
	EXPECT_EQ(-EINVAL, bwm_machine_routes(&m, &err));
	EXPECT_NE(NULL, strstr(err.msg, "without links"));
}

/*
 * A worker on node 0 reading nodes 1 and 2 evenly: both flows cross link
 * 1 -> 0 (6 GB/s), so the remote traffic is 6 GB/s, whatever the paths.
 */
TEST(flows_share_the_link_they_cross)
{
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_placement pl;
	struct bwm_prediction p;
	struct bwm_error err;
	double frac[3] = { 0, 0.5, 0.5 };

	ASSERT_EQ(0, bwm_machine_parse(line, &m, &err));
	app(&wl, 0x1, 1);
	bwm_placement_interleave(&pl, 3, frac);
	ASSERT_EQ(0, bwm_predict(&m, &wl, &pl, &p));
	EXPECT_NEAR(6, p.throughput_gbps, 1e-6);
	EXPECT_NEAR(1, p.link_util[0], 1e-6);
	EXPECT_NEAR(0.3, p.link_util[2], 1e-6);		/* 3 of 10 GB/s */
	EXPECT_NEAR(0, p.link_util[1], 1e-6);
	/* without the links, only the paths: 50 GB/s each */
	m.nr_links = 0;
	ASSERT_EQ(0, bwm_predict(&m, &wl, &pl, &p));
	EXPECT_NEAR(100, p.throughput_gbps, 1e-6);
}

/* Writes carry their data towards the memory: link 0 -> 1, 2 GB/s. */
TEST(writes_cross_the_links_back)
{
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_placement pl;
	struct bwm_error err;
	double frac[3] = { 0, 1, 0 };

	ASSERT_EQ(0, bwm_machine_parse(line, &m, &err));
	bwm_placement_interleave(&pl, 3, frac);
	app(&wl, 0x1, 0);
	EXPECT_NEAR(2, bwm_predict_throughput(&m, &wl, &pl), 1e-6);
	app(&wl, 0x1, 0.5);	/* half the traffic each way: 4 GB/s */
	EXPECT_NEAR(4, bwm_predict_throughput(&m, &wl, &pl), 1e-6);
}

/*
 * The profiling run: workers 0 and 1 read node 2 together; link 2 -> 1
 * (10 GB/s) carries both transfers, and node 0's also crosses 1 -> 0
 * (6 GB/s).  Max-min fair: 5 and 5.
 */
TEST(profiling_run_shares_links)
{
	struct bwm_machine m;
	struct bwm_profile prof;
	struct bwm_error err;

	ASSERT_EQ(0, parse_line_edit("\"gbps\": 6", "\"gbps\": 4", &m, &err));
	ASSERT_EQ(0, bwm_profile_run(&m, 0x3, 3, 0, NULL, &prof));
	EXPECT_NEAR(4, prof.bw[2][0], 1e-9);	/* 1 -> 0 is 4 GB/s */
	EXPECT_NEAR(6, prof.bw[2][1], 1e-9);	/* the rest of 2 -> 1 */
	EXPECT_NEAR(4, prof.bw[1][0], 1e-9);
	EXPECT_NEAR(50, prof.bw[0][0], 1e-9);
}

TEST(link_errors)
{
	struct bwm_machine m;
	struct bwm_error err;

	EXPECT_EQ(-EINVAL, parse_line_edit("\"from\": 1, \"to\": 0",
					   "\"from\": 1, \"to\": 3", &m, &err));
	EXPECT_STREQ("links[0].to", err.field);
	EXPECT_EQ(8, err.line);
	EXPECT_EQ(-EINVAL, parse_line_edit("\"from\": 1, \"to\": 0",
					   "\"from\": 0, \"to\": 0", &m, &err));
	EXPECT_STREQ("links[0]", err.field);
	EXPECT_NE(NULL, strstr(err.msg, "two different nodes"));
	EXPECT_EQ(-EINVAL, parse_line_edit("\"from\": 1, \"to\": 0",
					   "\"from\": 0, \"to\": 1", &m, &err));
	EXPECT_STREQ("links[1]", err.field);
	EXPECT_NE(NULL, strstr(err.msg, "same direction"));
	EXPECT_EQ(-EINVAL, parse_line_edit("\"gbps\": 6", "\"gbps\": 0", &m,
					   &err));
	EXPECT_STREQ("links[0].gbps", err.field);
	EXPECT_EQ(-EINVAL, parse_line_edit("\"gbps\": 6", "\"gbs\": 6", &m,
					   &err));
	EXPECT_STREQ("links[0].gbs", err.field);
	EXPECT_NE(NULL, strstr(err.msg, "unknown"));
	EXPECT_EQ(-EINVAL, parse_line_edit("\"from\": 1, \"to\": 0",
					   "\"from\": 1.5, \"to\": 0", &m, &err));
	EXPECT_STREQ("links[0]", err.field);
	/* node 2 can send to node 1 but nothing comes back */
	EXPECT_EQ(-EINVAL, parse_line_edit("\"from\": 1, \"to\": 2",
					   "\"from\": 2, \"to\": 0", &m, &err));
	EXPECT_STREQ("links", err.field);
	EXPECT_NE(NULL, strstr(err.msg, "no route from node 0 to node 2"))
		TH_LOG("%s", err.msg);
}

TEST_HARNESS_MAIN
