// SPDX-License-Identifier: GPL-2.0
/*
 * bwap-eval from the outside: help, errors with exit status, the table,
 * JSON and SVG.
 */
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "bwm_test.h"

/* Run a shell command; output (stdout + stderr) into buf; exit status. */
static int run(const char *cmd, char *buf, size_t len)
{
	char full[4096];
	FILE *p;
	size_t n = 0;
	int st;

	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	p = popen(full, "r");
	if (!p)
		return -1;
	while (n + 1 < len && !feof(p))
		n += fread(buf + n, 1, len - 1 - n, p);
	buf[n] = '\0';
	/* drain what did not fit */
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char out[1 << 20];

TEST(help)
{
	EXPECT_EQ(0, run(BWAP_EVAL " --help", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--machine"));
	EXPECT_NE(NULL, strstr(out, "--dwp-svg"));
	EXPECT_EQ(2, run(BWAP_EVAL, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "required"));
	EXPECT_EQ(2, run(BWAP_EVAL " -m bwap-a -w mixed --step 7", out,
			 sizeof(out)));
	EXPECT_EQ(2, run(BWAP_EVAL " -m bwap-a -w mixed -W 0,x", out,
			 sizeof(out)));
	EXPECT_EQ(0, run(BWAP_EVAL " --list", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "dram-cxl"));
}

TEST(bad_machine_file)
{
	char path[] = "/tmp/bwm-cli-XXXXXX", cmd[512];
	int fd = mkstemp(path);
	static const char text[] =
		"{\n  \"cpu_ghz\": 2,\n  \"nodes\": [{\"cpus\": 2,\n"
		"    \"ctrl_read_gbps\": \"fast\"}]\n}\n";

	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(text), write(fd, text, strlen(text)));
	close(fd);
	snprintf(cmd, sizeof(cmd), BWAP_EVAL " -m %s -w mixed", path);
	EXPECT_EQ(1, run(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, ":4:")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "nodes[0].ctrl_read_gbps: not a number"))
		TH_LOG("%s", out);
	unlink(path);
	EXPECT_EQ(1, run(BWAP_EVAL " -m /nonexistent.json -w mixed", out,
			 sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "cannot read"));
	/* a preset that does not exist: where the presets are listed */
	EXPECT_EQ(1, run(BWAP_EVAL " -m bwap-x -w mixed", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "machines/bwap-x.json: cannot read: No such file "
			       "or directory (no preset machine \"bwap-x\": "
			       "bwap-eval --list lists them)\n")) TH_LOG("%s", out);
	EXPECT_EQ(1, run(BWAP_EVAL " -m bwap-b -w mixd", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "(no preset workload \"mixd\": bwap-eval "
			       "--list lists them)\n")) TH_LOG("%s", out);
	/* its own option named as such, not as some input */
	EXPECT_EQ(1, run(BWAP_EVAL " -m bwap-b -w mixed -W 0-5", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, ": --workers 0-5: node 4: the machine has 4 "
			       "nodes (bwap-b)\n")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "<input>")) TH_LOG("%s", out);
	/* node 2 of the CXL box has no CPUs */
	EXPECT_EQ(1, run(BWAP_EVAL " -m dram-cxl -w mixed -W 2", out,
			 sizeof(out)));
	EXPECT_NE(NULL, strstr(out, ": --workers 2: node 2 has no CPUs (dram-cxl)\n"))
		TH_LOG("%s", out);
}

TEST(table)
{
	EXPECT_EQ(0, run(BWAP_EVAL " -m bwap-b -w bandwidth-bound -W 0 -W 0-3 -s 10",
			 out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "workers 0 (7 threads)"));
	EXPECT_NE(NULL, strstr(out, "workers 0-3 (28 threads)"));
	EXPECT_NE(NULL, strstr(out, "canonical+dwp"));
	EXPECT_NE(NULL, strstr(out, "optimum"));
}

/* Diener et al.'s policies: a table, and the same numbers in JSON. */
TEST(mapping)
{
	struct json_object *root, *sc, *mp, *pol, *v;

	EXPECT_EQ(0, run(BWAP_EVAL " -m bwap-b -w mixed -s 0 --mapping --min-excl 80",
			 out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "Mixed minExcl 80%")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "B_Acc%"));
	EXPECT_NE(NULL, strstr(out, "\nbalanced "));
	EXPECT_EQ(2, run(BWAP_EVAL " -m bwap-b -w mixed --min-excl 101", out,
			 sizeof(out)));
	ASSERT_EQ(0, run(BWAP_EVAL " -m bwap-b -w mixed -s 0 --mapping --json",
			 out, sizeof(out)));
	root = json_tokener_parse(out);
	ASSERT_NE(NULL, root);
	ASSERT_TRUE(json_object_object_get_ex(root, "scenarios", &sc));
	ASSERT_TRUE(json_object_object_get_ex(json_object_array_get_idx(sc, 0),
					      "mapping", &mp));
	ASSERT_TRUE(json_object_object_get_ex(mp, "policies", &pol));
	ASSERT_EQ(BWM_NR_MAPPINGS, (int)json_object_array_length(pol));
	/* first-touch: shared pages all on node 0 of 2, private local */
	ASSERT_TRUE(json_object_object_get_ex(json_object_array_get_idx(pol, 0),
					      "speedup", &v));
	EXPECT_NEAR(1, json_object_get_double(v), 1e-12);
	ASSERT_TRUE(json_object_object_get_ex(json_object_array_get_idx(pol, 4),
					      "locality", &v));
	EXPECT_NEAR(1, json_object_get_double(v), 1e-12);
	json_object_put(root);
}

TEST(json_and_svg)
{
	char cmd[512], svg[] = "/tmp/bwm-svg-XXXXXX", dsvg[] = "/tmp/bwm-dwp-XXXXXX";
	struct json_object *root, *sc, *st, *v;
	char *text;
	int fd;

	fd = mkstemp(svg);
	ASSERT_LE(0, fd);
	close(fd);
	fd = mkstemp(dsvg);
	ASSERT_LE(0, fd);
	close(fd);
	snprintf(cmd, sizeof(cmd), BWAP_EVAL
		 " -m bwap-a -w latency-bound -W 0 -W 0,1 -s 20 --json --svg %s --dwp-svg %s",
		 svg, dsvg);
	ASSERT_EQ(0, run(cmd, out, sizeof(out))) TH_LOG("%s", out);
	root = json_tokener_parse(out);
	ASSERT_NE(NULL, root);
	ASSERT_TRUE(json_object_object_get_ex(root, "scenarios", &sc));
	EXPECT_EQ(2, (int)json_object_array_length(sc));
	ASSERT_TRUE(json_object_object_get_ex(json_object_array_get_idx(sc, 1),
					      "strategies", &st));
	EXPECT_EQ(BWM_NR_STRATEGIES, (int)json_object_array_length(st));
	ASSERT_TRUE(json_object_object_get_ex(json_object_array_get_idx(st, 4),
					      "dwp", &v));
	EXPECT_GT_D(json_object_get_double(v), 0.5);
	json_object_put(root);

	text = NULL;
	{
		FILE *f = fopen(svg, "r");
		size_t n;

		ASSERT_NE(NULL, f);
		n = fread(out, 1, sizeof(out) - 1, f);
		out[n] = '\0';
		fclose(f);
		text = out;
	}
	EXPECT_EQ(0, strncmp(text, "<?xml", 5));
	EXPECT_NE(NULL, strstr(text, "<svg"));
	EXPECT_NE(NULL, strstr(text, "</svg>"));
	EXPECT_NE(NULL, strstr(text, "canonical+dwp"));
	snprintf(cmd, sizeof(cmd), "grep -c '<polyline' %s", dsvg);
	EXPECT_EQ(0, run(cmd, out, sizeof(out)));
	EXPECT_EQ(2, atoi(out));
	unlink(svg);
	unlink(dsvg);
}

TEST_HARNESS_MAIN
