// SPDX-License-Identifier: GPL-2.0
/*
 * The command line end to end: profile, show and apply on the model and
 * on a fake sysfs tree; bad input (a corrupt or stale weights file, an
 * unknown worker set, no permission) gives a clear error and writes
 * nothing.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "bwapd_test.h"
#include "kweights.h"
#include "status.h"

struct run {
	int status;
	char out[65536];
};

/* Run bwapd with args (a shell word list) as uid (-1: as is). */
static int bwapd(struct run *r, int uid, const char *fmt, ...)
{
	char args[2048], cmd[4096];
	va_list ap;
	FILE *p;
	size_t n;
	pid_t pid;
	int fd[2];

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	/* stderr with stdout unless args redirect it */
	snprintf(cmd, sizeof(cmd), "%s %s%s", BWAPD_BIN, args,
		 strstr(args, "2>") ? "" : " 2>&1");
	if (uid < 0) {
		p = popen(cmd, "r");
		if (!p)
			return -1;
		n = fread(r->out, 1, sizeof(r->out) - 1, p);
		r->out[n] = 0;
		r->status = pclose(p);
		r->status = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
		return 0;
	}
	if (pipe(fd))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		if (setgid((gid_t)uid) || setuid((uid_t)uid))
			_exit(99);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(98);
	}
	close(fd[1]);
	n = 0;
	for (;;) {
		ssize_t k = read(fd[0], r->out + n, sizeof(r->out) - 1 - n);

		if (k <= 0)
			break;
		n += (size_t)k;
	}
	r->out[n] = 0;
	close(fd[0]);
	waitpid(pid, &r->status, 0);
	r->status = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
	return 0;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

/*
 * The line of path (1-based) that holds text first; the last line (the
 * one a cut-off file ends on) for NULL.  0: not found.
 */
static int line_of(const char *path, const char *text)
{
	char line[4096];
	int no = 0, found = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		no++;
		found = text && strstr(line, text);
	}
	fclose(f);
	return !text || found ? no : 0;
}

static int weight(const char *root, int node)
{
	char path[128], buf[16];

	snprintf(path, sizeof(path), "/%s/node%d", BWAPD_WEIGHTS_DIR + 1, node);
	return bwapd_read_text(root, path, buf, sizeof(buf)) ? -1 : atoi(buf);
}

/*
 * Check bwapd's --json output with a strict parser, Python's: text is one
 * JSON document (lines 0) or JSON Lines (lines 1), valid UTF-8; expr, a
 * Python expression on d (the document, or the list of them), must be
 * true.  0 if all holds; the parser's complaint is in the test's log.
 */
static int json_check(const char *dir, const char *text, int lines,
		      const char *expr)
{
	static const char check[] =
		"import json, sys\n"
		"raw = open(sys.argv[1], 'rb').read().decode('utf-8')\n"
		"if sys.argv[2] == '1':\n"
		"    d = [json.loads(l) for l in raw.splitlines()]\n"
		"else:\n"
		"    d = json.loads(raw)\n"
		"e = open(sys.argv[3]).read()\n"
		"if not eval(e):\n"
		"    sys.exit('false: ' + e)\n";
	char cmd[1024];

	if (put(dir, "check.py", "%s", check) ||
	    put(dir, "out.json", "%s", text) ||
	    put(dir, "expr.txt", "%s", expr))
		return -1;
	snprintf(cmd, sizeof(cmd), "python3 %s/check.py %s/out.json %d %s/expr.txt >&2",
		 dir, dir, lines, dir);
	return system(cmd);
}

/*
 * Run bwapd with args (printf format) and check its standard output,
 * one JSON document, with json_check's expr: 0 if bwapd exited 0 and
 * expr holds; else what it printed is in the test's log.
 */
static int bwapd_json(const char *dir, const char *expr, const char *fmt, ...)
{
	static struct run r;
	char args[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	if (bwapd(&r, -1, "%s 2>/dev/null", args))
		return -1;
	if (!r.status && !json_check(dir, r.out, 0, expr))
		return 0;
	fprintf(stderr, "# bwapd %s: exit status %d: %s\n", args, r.status, r.out);
	return 1;
}

FIXTURE(cli)
{
	char dir[64];
	char file[128];
	char a[4096], b[4096];
};

FIXTURE_SETUP(cli)
{
	ASSERT_NE(NULL, temp_dir(self->dir, sizeof(self->dir)));
	snprintf(self->file, sizeof(self->file), "%s/w/canonical.json",
		 self->dir);
	/* the weights file's directory is the admin's to make */
	*strrchr(self->file, '/') = 0;
	ASSERT_EQ(0, mkdir(self->file, 0755));
	self->file[strlen(self->file)] = '/';
	preset("bwap-a", self->a, sizeof(self->a));
	preset("bwap-b", self->b, sizeof(self->b));
}

FIXTURE_TEARDOWN(cli)
{
	rm_tree(self->dir);
}

TEST_F(cli, profile_show_apply_model)
{
	struct run r;

	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s profile --seconds 0.5",
			   self->b, self->file));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "15 worker sets: 4 to profile, 7 skipped as symmetric"));
	EXPECT_NE(NULL, strstr(r.out, "4 skipped as spread out"));
	EXPECT_LT(0, file_size(self->file));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show --json 2-3 2>/dev/null",
			   self->b, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_EQ(0, json_check(self->dir, r.out, 0,
		"[(s['workers'], s['source'], s['same_as'], len(s['weights'])) "
		"for s in d['worker_sets']] == [('2-3', 'counters', '0-1', 4)] "
		"and d['skipped'] == {'symmetric': 7, 'spread': 4}"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s profile --seconds 0.2 --json 2>/dev/null",
			   self->b, self->file));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0, json_check(self->dir, r.out, 0,
		"len(d['worker_sets']) == 11 and "
		"all(abs(sum(s['fractions']) - 1) < 1e-5 for s in d['worker_sets'])"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply --dry-run --json 0 2>/dev/null",
			   self->b, self->file));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0, json_check(self->dir, r.out, 0,
		"d['dry_run'] is True and d['workers'] == '0' and "
		"[n['node'] for n in d['nodes']] == [0, 1, 2, 3] and "
		"d['changed'] == sum(n['old'] != n['new'] for n in d['nodes'])"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply --dry-run 0",
			   self->b, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "would change")) TH_LOG("%s", r.out);
	/* the set of every node on a symmetric machine: plain interleave */
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply --dry-run 0-3",
			   self->b, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "bwapd: workers 0-3: every node has the same weight: "
			       "weighted interleave then places pages as plain interleave "
			       "does; apply the set of nodes the application runs on "
			       "(\"bwapd show\" lists the sets)\n")) TH_LOG("%s", r.out);
	/* the model's weights change, not this machine's: no sysfs path */
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply 0", self->b, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "workers 0: global weights (of the model only; "
			       "this machine's are as they were)\n")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "4 of 4 weights changed in the model\n")) TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "/sys/")) TH_LOG("%s", r.out);
	/* a set with weights of its own is the same as no other */
	EXPECT_EQ(0, bwapd_json(self->dir,
		"[s['workers'] for s in d['worker_sets'] if s['same_as'] is None] == "
		"['0', '0-1', '0-2', '0-3'] and "
		"all(s['same_as'] != s['workers'] for s in d['worker_sets'])",
		"--model %s --file %s show --json", self->b, self->file));
}

/*
 * The profile holds the machine's model: read by the model's own parser
 * (as bwap-eval -m reads it), within 10 % of the machine it measured on
 * every route, every figure with its origin; the tuner predicts with it,
 * not with the machine --model simulates; a set the file skipped gets
 * its canonical weights from it; a bad --predict-with is refused.
 */
TEST_F(cli, profile_measures_the_machine)
{
	struct bwm_machine m, got;
	struct bwm_error err;
	struct run r;
	int i, j;

	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --noise 0.01 --file %s profile --seconds 0.5",
			   self->b, self->file));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	/* 60 planned; then a read and a write over each of the 12 links */
	EXPECT_NE(NULL, strstr(r.out, "the machine's model: 60 phases")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "measured in 72 phases in all (12 over its links)"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwm_machine_load(self->b, &m, &err));
	ASSERT_EQ(0, bwm_machine_load(self->file, &got, &err))
		TH_LOG("%s: %s", err.field, err.msg);
	ASSERT_EQ(m.nr_nodes, got.nr_nodes);
	for (i = 0; i < m.nr_nodes; i++)
		for (j = 0; j < m.nr_nodes; j++) {
			EXPECT_NEAR(m.read_gbps[i][j], got.read_gbps[i][j],
				    0.10 * m.read_gbps[i][j]);
			EXPECT_NEAR(m.write_gbps[i][j], got.write_gbps[i][j],
				    0.10 * m.write_gbps[i][j]);
			EXPECT_NEAR(m.latency_ns[i][j], got.latency_ns[i][j],
				    0.10 * m.latency_ns[i][j]);
		}
	{
		char text[65536];
		FILE *f = fopen(self->file, "r");
		size_t n;

		ASSERT_NE(NULL, f);
		n = fread(text, 1, sizeof(text) - 1, f);
		text[n] = 0;
		fclose(f);
		EXPECT_EQ(0, json_check(self->dir, text, 0,
			"d['model_figures']['phases'] == 72 and "
			"all(o == 'measured' for row in d['model_figures']['read_gbps']['origin'] for o in row) and "
			"all(s >= 0 for row in d['model_figures']['latency_ns']['se'] for s in row) and "
			"d['model_figures']['queue_factor']['origin'] == 'measured'"));
	}
	/* the tuner predicts with the file's model */
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s --run-dir '' tune --workload "
			   BWM_DATADIR "/workloads/mixed.json --workers 0",
			   self->b, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "predicting with the model in")) TH_LOG("%s", r.out);
	/* 0,3 is spread out on B: the file's model gives its weights */
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s --run-dir '' tune --workload "
			   BWM_DATADIR "/workloads/mixed.json --workers 0,3 --max-steps 1",
			   self->b, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "workers 0,3 were not profiled: canonical weights from the model"))
		TH_LOG("%s", r.out);
	/* --predict-with: a machine file; one that is not there, refused */
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s --run-dir '' tune --workload "
			   BWM_DATADIR "/workloads/mixed.json --workers 0 --predict-with %s",
			   self->b, self->file, self->a));
	EXPECT_EQ(1, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "8 nodes, the machine has 4")) TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s --run-dir '' tune --workload "
			   BWM_DATADIR "/workloads/mixed.json --workers 0 --predict-with %s/none.json",
			   self->b, self->file, self->dir));
	EXPECT_EQ(1, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "--predict-with")) TH_LOG("%s", r.out);
}

/*
 * A model whose canonical shares of the workers are not the ones measured
 * (dram-cxl's on B: its nodes 2 and 3 are slow expanders) is not of this
 * machine: the DWP search tunes, and says why.
 */
TEST_F(cli, a_model_not_of_this_machine)
{
	struct run r;

	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s profile --seconds 0.5",
			   self->b, self->file));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s --run-dir '' tune --workload "
			   BWM_DATADIR "/workloads/mixed.json --workers 0 --max-steps 2 "
			   "--predict-with " BWM_DATADIR "/machines/dram-cxl.json",
			   self->b, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "of the pages away from the measured ones "
			       "(more than 5 %): it is not of this machine, and the DWP "
			       "search tunes without it")) TH_LOG("%s", r.out);
	/* the DWP line from DWP 0 */
	EXPECT_NE(NULL, strstr(r.out, "step  1 up")) TH_LOG("%s", r.out);
}

/*
 * The model the profile measured, as Intel MLC's matrices: a CPU node a
 * row, a memory node a column, in the text and the JSON of show; a file
 * without a model says so.
 */
TEST_F(cli, show_prints_the_matrices)
{
	static const char *const title[] = {
		"read bandwidth (GB/s)", "write bandwidth (GB/s)",
		"idle latency (ns)",
	};
	char expr[1024], old[600];
	struct bwm_machine got;
	struct bwm_error err;
	struct run r;
	int k, c, m;

	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --noise 0.01 --file %s profile --seconds 0.5",
			   self->b, self->file));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwm_machine_load(self->file, &got, &err))
		TH_LOG("%s: %s", err.field, err.msg);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show", self->b,
			   self->file));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	for (k = 0; k < 3; k++) {
		const char *p = strstr(r.out, title[k]);

		ASSERT_NE(NULL, p) TH_LOG("%s", r.out);
		p = strchr(p, '\n') + 1;
		EXPECT_EQ(0, strncmp(p, "             node0    node1    node2    node3\n", 45))
			TH_LOG("%s", p);
		for (c = 0; c < got.nr_nodes; c++) {
			int at;

			p = strchr(p, '\n') + 1;
			ASSERT_EQ(1, sscanf(p, "  node%d", &at));
			EXPECT_EQ(c, at);
			p += 9;
			for (m = 0; m < got.nr_nodes; m++) {
				double v, want = k == 0 ? got.read_gbps[m][c] :
						 k == 1 ? got.write_gbps[m][c] :
						 got.latency_ns[m][c];
				int used;

				ASSERT_EQ(1, sscanf(p, "%lf%n", &v, &used));
				EXPECT_NEAR(want, v, k == 2 ? 0.5 : 0.05);
				if (fabs(want - v) > (k == 2 ? 0.5 : 0.05))
					TH_LOG("%s row %d column %d", title[k], c, m);
				p += used + 1;	/* the origin's mark */
			}
		}
	}
	/* the JSON's rows and columns, against the file's model as it is */
	snprintf(expr, sizeof(expr),
		 "(lambda f, x: x['cpu_nodes'] == [0, 1, 2, 3] and "
		 "x['mem_nodes'] == [0, 1, 2, 3] and "
		 "all(abs(x[k][c][m] - f[k][m][c]) <= 1e-5 * f[k][m][c] "
		 "for k in ('read_gbps', 'write_gbps', 'latency_ns') "
		 "for c in range(4) for m in range(4)) and "
		 "all(o == 'measured' for row in x['origin']['read_gbps'] for o in row))"
		 "(json.load(open('%s'))['model'], d['matrix'])", self->file);
	EXPECT_EQ(0, bwapd_json(self->dir, expr, "--model %s --file %s show --json",
				self->b, self->file));
	/* a file written before profile measured a model */
	snprintf(old, sizeof(old),
		 "python3 -c \"import json; f = '%s'; d = json.load(open(f)); "
		 "d.pop('model'); d.pop('model_figures'); "
		 "json.dump(d, open(f, 'w'))\"", self->file);
	ASSERT_EQ(0, system(old));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show", self->b,
			   self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "no model of the machine in this file"))
		TH_LOG("%s", r.out);
	EXPECT_EQ(0, bwapd_json(self->dir, "d['matrix'] is None and "
				"'bwapd profile' in d['matrix_why']",
				"--model %s --file %s show --json", self->b,
				self->file));
}

TEST_F(cli, unknown_worker_set)
{
	static const struct { const char *args; int status; const char *says; } bad[] = {
		{ "--file %s apply 7", 2, "bwapd: workers 7: node 7 does not exist (the machine has nodes 0-3)\n" },
		{ "--file %s show 4", 2, "bwapd: workers 4: node 4 does not exist (the machine has nodes 0-3)\n" },
		{ "--run-dir '' --file %s tune --workload " BWM_DATADIR "/workloads/mixed.json --workers 0-5", 2,
		  "bwapd: --workers: nodes 4-5 do not exist (the machine has nodes 0-3)\n" },
		{ "inspect --workload " BWM_DATADIR "/workloads/mixed.json --workers 1,6", 2,
		  "bwapd: --workers: node 6 does not exist (the machine has nodes 0-3)\n" },
		{ "--file %s tune --workload x.json --workers 0-", 2,
		  "bwapd: --workers: '0-' is not a node list (e.g. 0-1 or 0,2)\n" },
	};
	char args[1024];
	struct run r;
	unsigned int i;
	long size;

	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s profile", self->b,
			   self->file));
	ASSERT_EQ(0, r.status);
	size = file_size(self->file);
	/* 0,3 is spread out on B: not profiled */
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply 0,3", self->b,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "no canonical weights for workers 0,3"))
		TH_LOG("%s", r.out);
	/*
	 * A node the machine does not have is a bad value, said as such; a
	 * run directory that is not there a mistake, not an idle machine.
	 */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), bad[i].args, self->file);
		ASSERT_EQ(0, bwapd(&r, -1, "--model %s %s", self->b, args));
		EXPECT_EQ(bad[i].status, r.status) TH_LOG("%s: %s", bad[i].args, r.out);
		EXPECT_NE(NULL, strstr(r.out, bad[i].says)) TH_LOG("%s: %s", bad[i].args, r.out);
		EXPECT_EQ(NULL, strstr(r.out, "--all")) TH_LOG("%s", r.out);
	}
	ASSERT_EQ(0, bwapd(&r, -1, "status --run-dir %s/nonexistent", self->dir));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "/nonexistent: No such file or directory\n"))
		TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "no process is being tuned")) TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply x", self->b,
			   self->file));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "bwapd: apply: 'x' is not a node list"));
	EXPECT_EQ(size, file_size(self->file));
}

TEST_F(cli, corrupt_and_stale_file)
{
	static const struct { const char *sed, *line; int col; const char *says; } bad[] = {
		{ "/\"weights\"/,/^ +[0-9]+,$/s/^( +)[0-9]+,$/\\1300,/", "        300,", 9,
		  "worker_sets[0].weights[0]: 300 is out of range [0, 255]" },
		{ "0,/\"source\": \"[a-z]+\"/s//\"source\": \"hmta\"/", "\"hmta\"", 17,
		  "worker_sets[0].source: want \"counters\", \"hmat\" or \"slit\"" },
		{ "0,/\"workers\": \"0\"/s//\"workers\": \"0,4\"/", "\"0,4\"", 18,
		  "worker_sets[0].workers: \"0,4\" names a node the machine does "
		  "not have (nodes 0-3)" },
	};
	struct run r;
	char cmd[1024];
	unsigned int i;

	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show", self->b,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "run \"bwapd profile\" first"));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s profile", self->b,
			   self->file));
	ASSERT_EQ(0, r.status);
	/* made on B, read on A */
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show", self->a,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "stale weights file"));
	EXPECT_NE(NULL, strstr(r.out, "made for a machine with 4 nodes, this one has 8"))
		TH_LOG("%s", r.out);
	/*
	 * Each error names the file, the line and column, the field and what
	 * was wrong with it, as the model's parsers do.  One edit after the
	 * other, each in the first set, on the line sed changed.
	 */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "sed -i -E '%s' %s", bad[i].sed,
			 self->file);
		ASSERT_EQ(0, system(cmd));
		ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply 0",
				   self->b, self->file));
		EXPECT_EQ(1, r.status);
		snprintf(cmd, sizeof(cmd), "bwapd: weights file: %s:%d:%d: %s\n",
			 self->file, line_of(self->file, bad[i].line),
			 bad[i].col, bad[i].says);
		EXPECT_NE(NULL, strstr(r.out, cmd)) TH_LOG("want %s, got %s", cmd, r.out);
	}
	/* cut in half: where the text ends */
	snprintf(cmd, sizeof(cmd), "head -c 300 %s > %s.cut && mv %s.cut %s",
		 self->file, self->file, self->file, self->file);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show", self->b,
			   self->file));
	EXPECT_EQ(1, r.status);
	snprintf(cmd, sizeof(cmd), "%s:%d:", self->file, line_of(self->file, NULL));
	EXPECT_NE(NULL, strstr(r.out, cmd)) TH_LOG("want %s, got %s", cmd, r.out);
	EXPECT_NE(NULL, strstr(r.out, ": JSON syntax error: unexpected end of data\n"))
		TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "json_tokener")) TH_LOG("%s", r.out);
	/* something else */
	snprintf(cmd, sizeof(cmd), "echo '{\"format\": \"x\"}' > %s", self->file);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show", self->b,
			   self->file));
	EXPECT_EQ(1, r.status);
	snprintf(cmd, sizeof(cmd), "bwapd: weights file: %s:1:12: format: not a "
		 "canonical-weights file (want \"bwapd-canonical-weights\")\n",
		 self->file);
	EXPECT_NE(NULL, strstr(r.out, cmd)) TH_LOG("want %s, got %s", cmd, r.out);
}

/*
 * numa4's tree below dir (with HMAT, and weight files if weights), and
 * its weights file profiled: bwapd's exit status, or -1.
 */
static int profiled_numa4(struct run *r, const char *dir, const char *file,
			  int weights)
{
	if (fake_numa4(dir, 1, weights) ||
	    bwapd(r, -1, "--root %s --file %s profile", dir, file))
		return -1;
	return r->status;
}

/* The real backend on a fake numa4 sysfs: HMAT fallback, then apply. */
TEST_F(cli, apply_writes_sysfs)
{
	struct run r;

	ASSERT_EQ(0, profiled_numa4(&r, self->dir, self->file, 1))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "counters: unavailable: no memory controller PMU"));
	EXPECT_NE(NULL, strstr(r.out, "weights from hmat (fallback)"));
	/* worker 0: 24000, 20000, 12000, 8571 MB/s -> 22:18:11:8 */
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s apply --dry-run 0",
			   self->dir, self->file));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(1, weight(self->dir, 0));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s apply 0", self->dir,
			   self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "4 of 4 weights changed")) TH_LOG("%s", r.out);
	EXPECT_EQ(22, weight(self->dir, 0));
	EXPECT_EQ(18, weight(self->dir, 1));
	EXPECT_EQ(11, weight(self->dir, 2));
	EXPECT_EQ(8, weight(self->dir, 3));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s apply 0", self->dir,
			   self->file));
	EXPECT_NE(NULL, strstr(r.out, "0 of 4 weights changed"));
	/* HMAT's figures are the firmware's, not measured */
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s show 0", self->dir, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "     59  firmware table\n")) TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "measured")) TH_LOG("%s", r.out);
}

/*
 * The global weights are written all or nothing: a node whose file
 * cannot be written (here a directory where the file should be) leaves
 * every weight as it was, the ones written before it put back.
 */
TEST_F(cli, global_weights_all_or_nothing)
{
	static const uint8_t w[4] = { 5, 3, 1, 2 };
	char path[256], why[512];
	int ret;

	ASSERT_EQ(0, fake_numa4(self->dir, 1, 1));
	snprintf(path, sizeof(path), "%s%s/node2", self->dir, BWAPD_WEIGHTS_DIR);
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, mkdir(path, 0755));
	ret = bwapd_weights_write(self->dir, w, 4, why, sizeof(why));
	EXPECT_GT(0, ret);
	EXPECT_NE(NULL, strstr(why, "/node2: ")) TH_LOG("%s", why);
	EXPECT_EQ(1, weight(self->dir, 0));
	EXPECT_EQ(1, weight(self->dir, 1));
	EXPECT_EQ(1, weight(self->dir, 3));
	ASSERT_EQ(0, rmdir(path));
}

/*
 * exec --global writes the global weights where --root says, as apply
 * does, not into the machine's own sysfs.  (The fake machine's nodes are
 * not this one's: the command itself cannot run here.)
 */
TEST_F(cli, exec_global_writes_under_root)
{
	struct run r;

	ASSERT_EQ(0, profiled_numa4(&r, self->dir, self->file, 1))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s exec --global -- true",
			   self->dir, self->file));
	EXPECT_EQ(NULL, strstr(r.out, "/sys/kernel/mm/mempolicy/weighted_interleave/node0: "))
		TH_LOG("%s", r.out);
	EXPECT_LT(1, weight(self->dir, 0)) TH_LOG("%s", r.out);
}

/*
 * A kernel without weighted interleave (Debian 12's own 6.1): show says
 * it has no global weights, in the text and as nulls in the JSON, and
 * exec --global says why it cannot write them.
 */
TEST_F(cli, kernel_without_weighted_interleave)
{
	struct run r;

	ASSERT_EQ(0, profiled_numa4(&r, self->dir, self->file, 0))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s show 0", self->dir, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\nkernel     none      no global weights: the "
			       "kernel has no weighted interleave (" BWAPD_WEIGHTS_DIR
			       ")\n")) TH_LOG("%s", r.out);
	EXPECT_EQ(0, bwapd_json(self->dir, "d['kernel']['weights'] is None and "
				"d['kernel']['auto'] is None",
				"--root %s --file %s show --json 0", self->dir,
				self->file));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s exec --global -- true",
			   self->dir, self->file));
	EXPECT_EQ(1, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "/node0: No such file or directory (a kernel "
			       "without weighted interleave has no global weights)"))
		TH_LOG("%s", r.out);
}

/* Row row of the weights below root as read, or every weight -1. */
static void row_of(const char *root, int row, int *w)
{
	uint8_t u[4];
	int i;

	for (i = 0; i < 4; i++)
		w[i] = -1;
	if (bwapd_weights_read(root, row, u, 4))
		return;
	for (i = 0; i < 4; i++)
		w[i] = u[i];
}

/* The switch name of the weights' directory below root reads want. */
static int switch_is(const char *root, const char *name, const char *want)
{
	char path[128], buf[16];

	snprintf(path, sizeof(path), "%s/%s", BWAPD_WEIGHTS_DIR, name);
	return !bwapd_read_text(root, path, buf, sizeof(buf)) && !strcmp(buf, want);
}

/*
 * apply --per-initiator on two sockets with DRAM and two CXL expanders
 * each (the model's cxl-2s4): each CPU node's row from the canonical
 * weights of that node alone, which favour its own expanders; the
 * default row from WORKERS; per_initiator on.  A file without a CPU
 * node's set is refused, naming the set and the profile that measures
 * it, before anything is printed or written.
 */
TEST_F(cli, apply_per_initiator_model)
{
	char m[4096], expr[2048], says[8192];
	struct run r;

	/* the rows against the sets of the file as profile wrote it */
	snprintf(expr, sizeof(expr),
		 "(lambda s: [(r['initiator'], r['workers']) for r in d['rows']] == "
		 "[(0, '0'), (1, '1'), (None, '0-1')] and "
		 "all([n['node'] for n in r['nodes']] == list(range(6)) and "
		 "[n['new'] for n in r['nodes']] == s[r['workers']] and "
		 "all(n['old'] == 1 for n in r['nodes']) for r in d['rows']) and "
		 "s['0'][2] > s['0'][4] and s['1'][4] > s['1'][2] and "
		 "d['per_initiator'] == {'old': False, 'new': True} and "
		 "d['workers'] == '0-1' and d['dry_run'] is False and "
		 "d['changed'] == sum(n['new'] != 1 for r in d['rows'] for n in r['nodes']))"
		 "({w['workers']: w['weights'] for w in "
		 "json.load(open('%s'))['worker_sets']})", self->file);
	preset("cxl-2s4", m, sizeof(m));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s profile --seconds 0.5",
			   m, self->file));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_EQ(0, bwapd_json(self->dir, expr, "--model %s --file %s apply "
				"--per-initiator --json 0-1", m, self->file));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply --per-initiator",
			   m, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "a row of weights per CPU node, from the "
			       "canonical weights of the node alone (of the model "
			       "only; this machine's are as they were)\n")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\ninitiator1 1        old      1")) TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "\ndefault")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\nper_initiator: off, turned on\n")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, " of 12 weights changed, per_initiator on "
			       "in the model\n")) TH_LOG("%s", r.out);

	/* node 1's set gone from the file */
	snprintf(expr, sizeof(expr),
		 "python3 -c \"import json; f = '%s'; d = json.load(open(f)); "
		 "d['worker_sets'] = [s for s in d['worker_sets'] if s['workers'] != '1']; "
		 "json.dump(d, open(f, 'w'))\"", self->file);
	ASSERT_EQ(0, system(expr));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply --per-initiator 0-1",
			   m, self->file));
	EXPECT_EQ(1, r.status);
	snprintf(says, sizeof(says), "bwapd: apply --per-initiator: no canonical "
		 "weights for workers 1 alone in %s: a row is the weights of its "
		 "CPU node alone; \"bwapd --model %s --file %s profile\" measures "
		 "every CPU node's; nothing written\n", self->file, m, self->file);
	EXPECT_NE(NULL, strstr(r.out, says)) TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "initiator0")) TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s apply --per-initiator "
			   "--json 2>/dev/null", m, self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
}

/*
 * The real backend on numa4's tree with rows: apply --per-initiator
 * writes each row from its node's set and turns per_initiator on, the
 * default row as it was; show prints the rows, in the text and the JSON.
 * A kernel without per_initiator is refused, nothing written; a write
 * that fails puts back every entry written before it (an entry that
 * read as the default row's weight follows that row again: written 0).
 */
TEST_F(cli, apply_per_initiator_sysfs)
{
	static const int one[4] = { 1, 1, 1, 1 };
	int w[4], c;
	char sub[128], path[256], expr[1024];
	struct run r;

	/* upstream: no per_initiator */
	ASSERT_EQ(0, profiled_numa4(&r, self->dir, self->file, 1))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s apply --per-initiator 0",
			   self->dir, self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "bwapd: apply --per-initiator: the kernel has no "
			       BWAPD_WEIGHTS_DIR "/per_initiator: its weights are one "
			       "row that every CPU follows (\"bwapd apply WORKERS\" "
			       "sets it); nothing written\n")) TH_LOG("%s", r.out);
	row_of(self->dir, BWAPD_DEFAULT_ROW, w);
	EXPECT_EQ(0, memcmp(w, one, sizeof(w)));
	EXPECT_EQ(0, bwapd_json(self->dir, "d['kernel']['per_initiator'] is None and "
				"d['kernel']['rows'] is None and d['kernel']['weights'] == [1] * 4",
				"--root %s --file %s show --json", self->dir, self->file));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s show", self->dir, self->file));
	EXPECT_EQ(NULL, strstr(r.out, "initiator")) TH_LOG("%s", r.out);

	ASSERT_EQ(0, fake_rows(self->dir, 4, 0xf));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s show", self->dir, self->file));
	EXPECT_NE(NULL, strstr(r.out, "\ninitiator2 row            1      1      1      1"
			       "      -  not used\n")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\nper_initiator off: every allocation follows "
			       "the kernel's row\n")) TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s apply --per-initiator --dry-run",
			   self->dir, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\n16 of 16 weights would change, per_initiator "
			       "would be on\n")) TH_LOG("%s", r.out);
	row_of(self->dir, 0, w);
	EXPECT_EQ(0, memcmp(w, one, sizeof(w)));
	EXPECT_TRUE(switch_is(self->dir, "per_initiator", "false"));

	/* auto is the kernel's to turn off: bwapd writes it only to put back */
	ASSERT_EQ(0, put(self->dir, "sys/kernel/mm/mempolicy/weighted_interleave/auto",
			 "1\n"));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s apply --per-initiator",
			   self->dir, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_TRUE(switch_is(self->dir, "per_initiator", "true"));
	EXPECT_TRUE(switch_is(self->dir, "auto", "1"));
	/* worker 0 from HMAT: 24000, 20000, 12000, 8571 MB/s -> 22:18:11:8 */
	row_of(self->dir, 0, w);
	EXPECT_EQ(22, w[0]);
	EXPECT_EQ(18, w[1]);
	EXPECT_EQ(11, w[2]);
	EXPECT_EQ(8, w[3]);
	row_of(self->dir, BWAPD_DEFAULT_ROW, w);
	EXPECT_EQ(0, memcmp(w, one, sizeof(w)));
	/* every row its node's set, as show reads them back */
	EXPECT_EQ(0, bwapd_json(self->dir,
		"(lambda s, k: k['per_initiator'] is True and "
		"[r['initiator'] for r in k['rows']] == [0, 1, 2, 3] and "
		"all(r['weights'] == s[str(r['initiator'])] for r in k['rows']) and "
		"len(set(map(tuple, s.values()))) == len(s))"
		"({w['workers']: w['weights'] for w in d['worker_sets']}, d['kernel'])",
		"--root %s --file %s show --json", self->dir, self->file));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s show", self->dir, self->file));
	EXPECT_NE(NULL, strstr(r.out, "\ninitiator0 row           22     18     11      8"
			       "      -  the private memory of its CPUs\n")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\nper_initiator on: private memory follows the "
			       "row of its CPU's node, shared memory the kernel's\n"))
		TH_LOG("%s", r.out);

	/*
	 * all or nothing: initiator2/node1 cannot be written; row 0 had a
	 * weight of its own for node 1, the rest followed the default row;
	 * auto was on ("1", which the kernel would print "true": so the
	 * tree shows that bwapd turned it on again, as a kernel that ended
	 * auto mode at the first write needs)
	 */
	ASSERT_EQ(0, fake_rows(self->dir, 4, 0xf));
	ASSERT_EQ(0, put(self->dir, "sys/kernel/mm/mempolicy/weighted_interleave/auto",
			 "1\n"));
	snprintf(sub, sizeof(sub), "%s/initiator0/node1", BWAPD_WEIGHTS_DIR + 1);
	ASSERT_EQ(0, put(self->dir, sub, "7\n"));
	snprintf(path, sizeof(path), "%s%s/initiator2/node1", self->dir, BWAPD_WEIGHTS_DIR);
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, mkdir(path, 0755));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s apply --per-initiator 0-1",
			   self->dir, self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "bwapd: apply: writing a weight failed: ")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "; the old weights are back\n")) TH_LOG("%s", r.out);
	/* rows 0 and 1 written and put back, row 2 up to node 1, row 3 never */
	for (c = 0; c < 4; c++) {
		static const int back[4][4] = {
			{ 0, 7, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 1, 1 }, { 1, 1, 1, 1 },
		};

		row_of(self->dir, c, w);
		EXPECT_EQ(0, memcmp(w, back[c], sizeof(w)))
			TH_LOG("row %d: %d %d %d %d", c, w[0], w[1], w[2], w[3]);
	}
	row_of(self->dir, BWAPD_DEFAULT_ROW, w);
	EXPECT_EQ(0, memcmp(w, one, sizeof(w)));
	EXPECT_TRUE(switch_is(self->dir, "per_initiator", "false"));
	EXPECT_TRUE(switch_is(self->dir, "auto", "true"));
	snprintf(expr, sizeof(expr), "rmdir %s", path);
	ASSERT_EQ(0, system(expr));
}

/* A machine without HMAT: topology says there is none, not zeros. */
TEST_F(cli, topology_without_hmat)
{
	char hmat[128];
	struct run r;

	ASSERT_EQ(0, fake_numa4(self->dir, 0, 1));
	EXPECT_EQ(0, bwapd_json(self->dir, "[n['hmat'] for n in d['node']] == [None] * 4",
				"--root %s topology --json", self->dir));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s topology", self->dir));
	EXPECT_NE(NULL, strstr(r.out, "384 MiB  -                   -         -       -       -\n"))
		TH_LOG("%s", r.out);
	/* the distances labelled as numactl --hardware labels them */
	EXPECT_NE(NULL, strstr(r.out, "node distances (SLIT):\nnode    0   1   2   3\n"
			       "  0:   10  12  20  28\n"))
		TH_LOG("%s", r.out);
	snprintf(hmat, sizeof(hmat), "%s/hmat", self->dir);
	ASSERT_EQ(0, mkdir(hmat, 0700));
	ASSERT_EQ(0, fake_numa4(hmat, 1, 1));
	EXPECT_EQ(0, bwapd_json(self->dir, "d['node'][0]['hmat']['read_bandwidth'] == 24000",
				"--root %s topology --json", hmat));
}

TEST_F(cli, no_permission)
{
	struct run r;

	if (geteuid() != 0)
		SKIP(return, "needs root to drop to another user");
	ASSERT_EQ(0, fake_numa4(self->dir, 0, 1));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s profile", self->dir,
			   self->file));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "weights from slit (fallback)"));
	ASSERT_EQ(0, chmod(self->dir, 0755));
	ASSERT_EQ(0, bwapd(&r, 65534, "--root %s --file %s apply 0", self->dir,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "only be set by root; nothing written"))
		TH_LOG("%s", r.out);
	EXPECT_EQ(1, weight(self->dir, 0));
	/* nobody may still look */
	ASSERT_EQ(0, bwapd(&r, 65534, "--root %s --file %s apply --dry-run 0",
			   self->dir, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	/* and cannot write the file */
	ASSERT_EQ(0, bwapd(&r, 65534, "--root %s --file %s profile", self->dir,
			   self->file));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "Permission denied")) TH_LOG("%s", r.out);
}

/* tune on the model; status while it watches; gone when stopped */
TEST_F(cli, tune_and_status)
{
	char wl[1024], cmd[16384], rd[128];
	struct run r;
	int i, tuner;
	FILE *p;

	snprintf(wl, sizeof(wl), "%s/workloads/mixed.json", BWM_DATADIR);
	snprintf(rd, sizeof(rd), "%s/run", self->dir);
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s --model %s --file %s tune --workload %s --workers 0 --plot %s/plot.svg",
			   rd, self->b, self->file, wl, self->dir));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	snprintf(cmd, sizeof(cmd), "grep -c '<polyline' %s/plot.svg | grep -qx 2 && tail -1 %s/plot.svg | grep -qx '</svg>'",
		 self->dir, self->dir);
	EXPECT_EQ(0, system(cmd)) TH_LOG("the plot has two lines, DWP and stalls");
	EXPECT_NE(NULL, strstr(r.out, "does not exist: canonical weights of workers 0 from a profiling run now"));
	EXPECT_NE(NULL, strstr(r.out, "model: DWP 0.")) TH_LOG("%s", r.out);
	/* what counts the stalls is named */
	EXPECT_NE(NULL, strstr(r.out, "tuning the model on workers 0 (model), slowest node's "
			       "stalls/instruction counted by the model's stall cycles\n"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status", rd));
	EXPECT_NE(NULL, strstr(r.out, "no process is being tuned"));

	/* a tuner that watches for a long time (model time runs fast) */
	snprintf(cmd, sizeof(cmd),
		 "%s --run-dir %s --model %s --file %s tune --workload %s --workers 0 --watch 1e9 >%s/watch.out 2>&1 & echo $!",
		 BWAPD_BIN, rd, self->b, self->file, wl, self->dir);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(1, fscanf(p, "%d", &tuner));
	pclose(p);
	for (i = 0; i < 300; i++) {
		ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status --json", rd));
		if (strstr(r.out, "\"watching\""))
			break;
		usleep(50000);
	}
	EXPECT_EQ(0, json_check(self->dir, r.out, 0,
		"[(t['command'], t['target'], t['workers'], t['state'], t['stale'], t['metric'], "
		"t['unit'], t['cgroup']) for t in d['tuners']] == "
		"[('mixed', 'model', '0', 'watching', False, \"slowest node's stalls/instruction\", None, None)]"))
		TH_LOG("%s", r.out);
	/* its result is in its output (a file) while it watches, not at exit */
	snprintf(cmd, sizeof(cmd), "grep -q '^model: DWP [0-9.]* after [0-9]* steps' %s/watch.out",
		 self->dir);
	EXPECT_EQ(0, system(cmd)) TH_LOG("no result line in the output while watching");
	/* stopped: its entry goes */
	ASSERT_EQ(0, kill(tuner, SIGTERM));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status", rd));
		if (strstr(r.out, "no process is being tuned"))
			break;
		usleep(50000);
	}
	EXPECT_NE(NULL, strstr(r.out, "no process is being tuned")) TH_LOG("%s", r.out);
	/* a tuner killed outright leaves a stale entry, shown as such */
	snprintf(cmd, sizeof(cmd), "%s/model-999999.json", rd);
	ASSERT_EQ(0, put("/", cmd + 1, "{\"pid\": 0, \"tuner\": 999999, \"state\": \"tuning\", \"weights\": [1, 2]}\n"));
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status", rd));
	EXPECT_NE(NULL, strstr(r.out, "stale")) TH_LOG("%s", r.out);
}

/*
 * Memory per node, as numastat shows it: a process that holds 64 MiB it
 * wrote shows at least that much on the machine's nodes, and no more
 * than that and its program's own; the machine's free memory is within
 * its total.
 */
TEST_F(cli, status_memory_per_node)
{
	const size_t want = 64 << 20;
	char rd[128], path[160], ready;
	struct run r;
	int fd[2];
	pid_t child;

	snprintf(rd, sizeof(rd), "%s/run", self->dir);
	ASSERT_EQ(0, mkdir(rd, 0755));
	ASSERT_EQ(0, pipe(fd));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		volatile char *m = malloc(want);
		size_t k;

		if (!m)
			_exit(1);
		for (k = 0; k < want; k += 4096)
			m[k] = 1;
		if (write(fd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fd[1]);
	ASSERT_EQ(1, read(fd[0], &ready, 1));
	close(fd[0]);
	snprintf(path, sizeof(path), "%s/%d.json", rd + 1, (int)child);
	ASSERT_EQ(0, put("/", path, "{\"pid\": %d, \"tuner\": %d, \"command\": \"holder\", "
			 "\"state\": \"tuning\", \"weights\": [1]}\n",
			 (int)child, (int)getpid()));
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status", rd));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "memory per node (MiB)")) TH_LOG("%s", r.out);
	EXPECT_EQ(0, bwapd_json(self->dir,
		"(lambda t, kb: t['node_kb'] is not None and "
		"64 * 1024 <= sum(t['node_kb']) <= 64 * 1024 + kb and "
		"all(0 < n['free_kb'] <= n['total_kb'] for n in d['nodes']))"
		"(d['tuners'][0], 32 * 1024)",
		"--run-dir %s status --json", rd));
	/* a model's workload has no memory to show */
	snprintf(path, sizeof(path), "%s/model-%d.json", rd + 1, (int)getpid());
	ASSERT_EQ(0, put("/", path, "{\"pid\": 0, \"tuner\": %d, \"state\": \"tuning\", "
			 "\"weights\": [1]}\n", (int)getpid()));
	EXPECT_EQ(0, bwapd_json(self->dir,
		"[t['node_kb'] is None for t in d['tuners']] == [False, True] and "
		"'model' in d['tuners'][1]['node_kb_why']",
		"--run-dir %s status --json", rd));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/*
 * One notation for a weight vector, numactl's --weights: one weight per
 * node in node order, separated by commas (5,3,1,1).  The tuner's steps,
 * status and inspect print it; --canonical takes it, and the older
 * 13:13:1:1 with a warning; a wrong count or anything else is a usage
 * error.  --u8-err reaches the weights the tuner sets.
 */
TEST_F(cli, weights_notation)
{
	char wl[1024], tune[12288], rd[128], path[256];
	struct run r;

	snprintf(wl, sizeof(wl), "%s/workloads/mixed.json", BWM_DATADIR);
	snprintf(tune, sizeof(tune), "--run-dir '' --model %s --file %s tune "
		 "--workload %s --workers 0 --max-steps 1", self->b, self->file, wl);
	/* 200:100:20:7 at DWP 0 within 0.001 of each share: 30,15,3,1 */
	ASSERT_EQ(0, bwapd(&r, -1, "%s --canonical 200,100,20,7", tune));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "DWP 0.000  stalls 1.088      pages moved 438690   weights 30,15,3,1\n"))
		TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "notation")) TH_LOG("%s", r.out);
	/* the summary: where it left the weights, and what that gained */
	EXPECT_NE(NULL, strstr(r.out, "model: DWP 0.100 after 1 steps, 479722 pages moved; "
			       "weights 71,30,6,2; slowest node's stalls/instruction 1.088 -> 1.075 "
			       "(1.2 % fewer)\n")) TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "%s --canonical 200:100:20:7", tune));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "bwapd: --canonical 200:100:20:7: the old notation; "
			       "write 200,100,20,7, as numactl --weights does\n"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "weights 30,15,3,1\n")) TH_LOG("%s", r.out);
	/* a coarser conversion: a shorter cycle */
	ASSERT_EQ(0, bwapd(&r, -1, "%s --canonical 200,100,20,7 --u8-err 0.2", tune));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "DWP 0.000  stalls 1.178      pages moved 224695   weights 3,2,1,1\n"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "%s --canonical 200,100,20", tune));
	EXPECT_EQ(2, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "bwapd: --canonical 200,100,20: 3 weights for the 4 "
			       "nodes of this machine: want one per node, in node order\n"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "%s --canonical 5/3/1/1", tune));
	EXPECT_EQ(2, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "bwapd: --canonical: bad value '5/3/1/1': want one weight "
			       "per node, 0-255, separated by commas (5,3,1,1), not all 0\n"))
		TH_LOG("%s", r.out);
	/* inspect's prediction, in its table and its verdict */
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s inspect --workload %s --workers 0-1",
			   self->b, wl));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "  weights        13,13,1,1  (1.08x")) TH_LOG("%s", r.out);
	/* what could not be measured is null, with why */
	EXPECT_EQ(0, bwapd_json(self->dir, "d['dynamicity'] is None and "
		"d['dynamicity_why'] == 'a workload of the model keeps one behaviour' and "
		"all(k[:-4] in d and d[k[:-4]] is None for k in d if k.endswith('_why'))",
		"--model %s inspect --workload %s --workers 0-1 --json", self->b, wl));
	EXPECT_NE(NULL, strstr(r.out, "with weights 13,13,1,1 (numactl -w 0-3 "
			       "--weights=13,13,1,1), predicted 1.08x faster")) TH_LOG("%s", r.out);
	/* status */
	snprintf(rd, sizeof(rd), "%s/run", self->dir);
	snprintf(path, sizeof(path), "%s/model-%d.json", rd + 1, (int)getpid());
	ASSERT_EQ(0, put("/", path, "{\"pid\": 0, \"tuner\": %d, \"state\": \"tuning\", "
			 "\"weights\": [13, 13, 1, 1]}\n", (int)getpid()));
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status", rd));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, " 13,13,1,1 ")) TH_LOG("%s", r.out);
}

/*
 * numactl's own parser (the fork's, as numactl/host-tests build it) reads
 * what bwapd prints as one weight per node; bwapd's older notation it
 * read as NODE:WEIGHT.  On a host of one node, -w 0 takes one weight: the
 * four of a four-node machine are read as four weights, too many.
 */
TEST_F(cli, weights_paste_into_numactl)
{
	char cmd[8192], lib[1024];
	struct run r;

	if (access(BWAPD_NUMACTL, X_OK))
		SKIP(return, "no numactl fork at %s (make numactl-check builds it)",
		     BWAPD_NUMACTL);
	snprintf(lib, sizeof(lib), "%s", BWAPD_NUMACTL);
	*strrchr(lib, '/') = 0;
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s inspect --workload %s/workloads/mixed.json "
			   "--workers 0-1 --json 2>/dev/null", self->b, BWM_DATADIR));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	ASSERT_EQ(0, put(self->dir, "inspect.json", "%s", r.out));
	/* the weights of the verdict, the string an operator copies */
	snprintf(cmd, sizeof(cmd),
		 "w=$(python3 -c 'import json, re, sys; "
		 "print(re.search(r\"weights ([0-9]+([,:][0-9]+)*)\", json.load(sys.stdin)[\"verdict\"])[1])' "
		 "<%s/inspect.json); echo \"weights $w\"; "
		 "LD_LIBRARY_PATH=%s %s -w 0 --weights=$w true 2>&1; "
		 "LD_LIBRARY_PATH=%s %s -w 0 --weights=${w%%%%,*} true 2>&1; true",
		 self->dir, lib, BWAPD_NUMACTL, lib, BWAPD_NUMACTL);
	{
		FILE *p = popen(cmd, "r");
		size_t n;

		ASSERT_NE(NULL, p);
		n = fread(r.out, 1, sizeof(r.out) - 1, p);
		r.out[n] = 0;
		pclose(p);
	}
	EXPECT_NE(NULL, strstr(r.out, "weights 13,13,1,1\n")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "numactl: --weights: more weights than the 1 "
			       "--weighted-interleave nodes\n")) TH_LOG("%s", r.out);
	/* the first weight alone: parsed and taken, whatever the kernel says */
	EXPECT_EQ(NULL, strstr(r.out, "expected")) TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "is not one of")) TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "is not in 1-255")) TH_LOG("%s", r.out);
}

/*
 * Options that surprised: a model's tuning leaves no status file behind
 * unless asked to; a plot that cannot be written stops the tuning before
 * it starts; profile makes no directory but its default's; preset names
 * work in --model and --workload as in bwap-eval.
 */
TEST_F(cli, options_do_what_they_say)
{
	char missing[128], cmd[256];
	struct stat st;
	struct run r;
	int had_run_dir = !stat(BWAPD_RUN_DIR, &st);

	ASSERT_EQ(0, setenv("BWMODEL_DATA", BWM_DATADIR, 1));
	ASSERT_EQ(0, bwapd(&r, -1, "--model bwap-b --file %s tune --workload mixed "
			   "--workers 0 --max-steps 1", self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "model: DWP ")) TH_LOG("%s", r.out);
	if (!had_run_dir)
		EXPECT_NE(0, stat(BWAPD_RUN_DIR, &st)) TH_LOG("a model run made " BWAPD_RUN_DIR);
	ASSERT_EQ(0, bwapd(&r, -1, "--model bwap-x topology"));
	EXPECT_EQ(2, r.status);
	snprintf(cmd, sizeof(cmd), "bwapd: --model bwap-x: no preset machine \"bwap-x\" "
		 "in %s/machines (a file's name has a '/' or ends in .json)\n", BWM_DATADIR);
	EXPECT_NE(NULL, strstr(r.out, cmd)) TH_LOG("%s", r.out);
	unsetenv("BWMODEL_DATA");
	/* the plot's directory does not exist: refused before any step */
	snprintf(missing, sizeof(missing), "%s/missing", self->dir);
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload "
			   "%s/workloads/mixed.json --workers 0 --plot %s/plot.svg",
			   self->b, self->file, BWM_DATADIR, missing));
	EXPECT_EQ(1, r.status);
	snprintf(cmd, sizeof(cmd), "bwapd: --plot: %s: No such file or directory; "
		 "nothing tuned\n", missing);
	EXPECT_NE(NULL, strstr(r.out, cmd)) TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "step")) TH_LOG("%s", r.out);
	/* a typo in --file's directory: said at once, nothing made */
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s/p.json profile", self->b, missing));
	EXPECT_EQ(1, r.status);
	snprintf(cmd, sizeof(cmd), "bwapd: --file: %s: No such file or directory (the "
		 "directory of the weights file must exist)\n", missing);
	EXPECT_NE(NULL, strstr(r.out, cmd)) TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "worker sets")) TH_LOG("%s", r.out);
	EXPECT_NE(0, stat(missing, &st));
}

/* co-scheduled on the model; and what it refuses */
TEST_F(cli, corun)
{
	char be[1024], hi[1024];
	struct run r;

	snprintf(be, sizeof(be), "%s/workloads/bandwidth-bound.json", BWM_DATADIR);
	snprintf(hi, sizeof(hi), "%s/workloads/latency-bound.json", BWM_DATADIR);
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload %s --workers 2-3 --corun %s --corun-workers 0",
			   self->b, self->file, be, hi));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "or more keeps the high-priority job within 2 % of its speed"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s tune --workload %s --workers 2-3 --corun %s",
			   self->b, self->file, be, hi));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "--corun needs --corun-workers"));
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload %s --workers 0-1 --corun %s --corun-workers 1",
			   self->b, self->file, be, hi));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "must run on different nodes")) TH_LOG("%s", r.out);
}

/* tuner parameters out of range: refused, nothing run */
TEST_F(cli, bad_tuner_parameters)
{
	struct run r;

	ASSERT_EQ(0, bwapd(&r, -1, "--model %s tune --workload x --samples 4 --trim 2", self->b));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "bad tuner parameters"));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s tune --workload x --metric fast", self->b));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "bad value 'fast'"));
	ASSERT_EQ(0, bwapd(&r, -1, "exec"));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "no command"));
	ASSERT_EQ(0, bwapd(&r, -1, "tune --pid 0"));
	EXPECT_EQ(2, r.status);
}

/*
 * --placement: the ways it names, and the ones that contradict --global
 * or would make the daemon's processes share the global weights.
 */
TEST_F(cli, placement_option)
{
	char rules[256];
	struct run r;

	ASSERT_EQ(0, bwapd(&r, -1, "tune --pid 1 --placement bogus"));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "--placement: bad value 'bogus': want weights, "
			       "damon, migrate, global or auto")) TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "tune --pid 1 --global --placement migrate"));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "--global is --placement global: it does not "
			       "go with --placement migrate")) TH_LOG("%s", r.out);
	/* own is weights: the process's own weights */
	ASSERT_EQ(0, bwapd(&r, -1, "tune --pid 1 --global --placement own"));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "--global is --placement global: it does not "
			       "go with --placement weights")) TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s tune --workload %s/workloads/mixed.json "
			   "--placement global", self->b, BWM_DATADIR));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "--global tunes a process: it needs --pid"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "daemon --placement global"));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "fight over one set of global weights"));
	snprintf(rules, sizeof(rules), "%s/rules", self->dir);
	ASSERT_EQ(0, put(self->dir, "rules", "app --placement global\n"));
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' daemon --rules %s", rules));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "rules:1: --placement global: the daemon's "
			       "processes would fight")) TH_LOG("%s", r.out);
}

/*
 * tune --json is JSON Lines: a start event, a line per step, the end of
 * each tuning, and a summary last, even with the co-scheduled job.
 */
TEST_F(cli, tune_json_lines)
{
	char be[1024], hi[1024];
	struct run r;

	snprintf(be, sizeof(be), "%s/workloads/bandwidth-bound.json", BWM_DATADIR);
	snprintf(hi, sizeof(hi), "%s/workloads/latency-bound.json", BWM_DATADIR);
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload %s --workers 0 --json 2>/dev/null",
			   self->b, self->file, be));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_EQ(0, json_check(self->dir, r.out, 1,
		"d[0]['event'] == 'start' and d[0]['command'] == 'bandwidth-bound' and "
		"d[0]['stall_event'] == \"the model's stall cycles\" and "
		"d[1]['step'] == 0 and all('step' in e or 'event' in e for e in d) and "
		"d[-1]['event'] == 'summary' and d[-1]['result'] == 'done' and "
		"d[-1]['dwp'] == [e for e in d if 'step' in e][-1]['dwp'] and "
		"sum(e.get('event') == 'summary' for e in d) == 1"))
		TH_LOG("%s", r.out);
	/*
	 * The flat stretch: the DWPs of the settings measured within 0.5 % of
	 * the best, the tuned DWP among them
	 */
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload "
			   BWM_DATADIR "/workloads/mixed.json --workers 0-1 --json 2>/dev/null",
			   self->b, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_EQ(0, json_check(self->dir, r.out, 1,
		"(lambda t, s: (lambda near: t['flat_dwp'] == [min(near), max(near)] and "
		"min(near) <= t['dwp'] <= max(near))("
		"[e['dwp'] for e in s if e['stalls'] >= 0 and e['stalls'] <= t['stalls'] * 1.005]))"
		"([e for e in d if e.get('event') == 'tuned'][0], [e for e in d if 'step' in e])"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload %s --workers 2-3 --corun %s --corun-workers 0 --json 2>/dev/null",
			   self->b, self->file, be, hi));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_EQ(0, json_check(self->dir, r.out, 1,
		"[e['event'] for e in d if 'event' in e] == "
		"['start', 'co-scheduled', 'tuned', 'summary'] and "
		"d[-1]['dwp'] >= [e for e in d if e.get('event') == 'co-scheduled'][0]['floor']"))
		TH_LOG("%s", r.out);
}

/*
 * One case, three commands: the canonical weights tune starts from are
 * the ones show prints; where the tuner writes them finer it says so,
 * and the two carry the same shares within their tolerances.  inspect
 * names weights predicted about as good as its best.
 */
TEST_F(cli, weights_agree_across_commands)
{
	char mixed[1024], show[64], expr[1024];
	struct run r;

	snprintf(mixed, sizeof(mixed), "%s/workloads/mixed.json", BWM_DATADIR);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s profile >/dev/null 2>&1",
			   self->b, self->file));
	ASSERT_EQ(0, r.status);
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s --file %s show --json 0-1 2>/dev/null | "
			   "python3 -c 'import json,sys; print(\",\".join(map(str, "
			   "json.load(sys.stdin)[\"worker_sets\"][0][\"weights\"])))'",
			   self->b, self->file));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	ASSERT_EQ(1, sscanf(r.out, "%63s", show));
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload %s "
			   "--workers 0-1 --json 2>/dev/null", self->b, self->file, mixed));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	snprintf(expr, sizeof(expr),
		 "(lambda s, c, w: s['canonical'] == c and all("
		 "abs(a / sum(c) - b / sum(w)) <= "
		 "s['canonical_max_error'] + s['max_error'] + 1e-6 "
		 "for a, b in zip(c, w)))(d[0], [int(x) for x in '%s'.split(',')], "
		 "d[0]['dwp0_weights'])", show);
	EXPECT_EQ(0, json_check(self->dir, r.out, 1, expr)) TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload %s "
			   "--workers 0-1 2>/dev/null", self->b, self->file, mixed));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	snprintf(expr, sizeof(expr), "\ncanonical weights %s as show", show);
	EXPECT_NE(NULL, strstr(r.out, expr)) TH_LOG("%s", r.out);
	/* inspect: the flat stretch around its best, both ends named */
	EXPECT_EQ(0, bwapd_json(self->dir,
		"(lambda p: p['flat']['dwp'][0] < p['flat']['dwp'][1] and "
		"p['flat']['within'] == 0.005 and len(p['flat']['from']) == 4)(d['predicted'])",
		"--model %s inspect --workload %s --workers 0-1 --json", self->b, mixed));
}

/*
 * A plot's title carries the workload's (or the process's) name: markup,
 * quotes, control characters and ill-formed UTF-8 in it still give an
 * SVG file an XML parser takes, with the name as text.
 */
TEST_F(cli, plot_hostile_names)
{
	char wl[256], svg[256], cmd[2048];
	struct run r;

	snprintf(wl, sizeof(wl), "%s/hostile.json", self->dir);
	snprintf(svg, sizeof(svg), "%s/plot.svg", self->dir);
	ASSERT_EQ(0, put("/", wl + 1,
		"{\"name\": \"a&b<c>\\\"d'e]]> \\u0001\\u001b\xff&amp;\", \"class\": \"mixed\", "
		"\"workers\": [0, 1], \"demand_gbps\": 4, \"mlp\": 6, \"shared\": 0.6, "
		"\"read\": 0.75, \"work_gb\": 10}\n"));
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload %s --workers 0 --max-steps 2 --plot %s",
			   self->b, self->file, wl, svg));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.out);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import sys, xml.dom.minidom as m; "
		 "d = m.parse(sys.argv[1]); "
		 "t = d.getElementsByTagName(\"text\")[0].firstChild.data; "
		 "print(ascii(t)); "
		 "sys.exit(t != \"tuning a&b<c>\\\"d\\x27e]]> \\ufffd\\ufffd\\ufffd&amp; (model) on workers 0\")' %s >&2",
		 svg);
	EXPECT_EQ(0, system(cmd)) TH_LOG("the title, escaped, parses back");
}

/*
 * A process may name itself anything: quotes, backslashes, control
 * characters, bytes that are not UTF-8.  "bwapd status --json" stays
 * valid JSON (and UTF-8) and gives the name back, ill-formed bytes as
 * U+FFFD the way Python's decoder replaces them.
 */
TEST_F(cli, status_json_hostile_comm)
{
	static const char *const names[] = {
		"a\"b\\c\"}", "x\n\ty\x01\x1b[2J", "\xff\xfe\xc3(\xe2\x82",
		"\"pid\": 1, \"x", "</svg>&\xed\xa0\x80\xf4\x90", "\xc3\xa9\xf0\x9f\x98\x80\x7f",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char rd[128], path[64], expr[512], hex[64];
		struct bwapd_status st = { 0 };
		struct run r;
		int p[2], j;
		pid_t c;

		snprintf(rd, sizeof(rd), "%s/run%u", self->dir, i);
		ASSERT_EQ(0, pipe(p));
		c = fork();
		ASSERT_LE(0, c);
		if (!c) {
			close(p[0]);
			if (prctl(PR_SET_NAME, names[i], 0, 0, 0) ||
			    write(p[1], "x", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		close(p[1]);
		ASSERT_EQ(1, read(p[0], hex, 1));
		close(p[0]);
		/* what a tuner of it keeps: its comm, read as bwapd reads it */
		st.pid = c;
		st.tuner = getpid();
		st.nr_nodes = 2;
		snprintf(st.target, sizeof(st.target), "process");
		snprintf(st.state, sizeof(st.state), "watching");
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)c);
		EXPECT_EQ(0, bwapd_read_text("", path, st.command, sizeof(st.command)));
		EXPECT_STREQ(names[i], st.command);
		/* a cgroup's name is any bytes too, and a unit's may be */
		snprintf(st.unit, sizeof(st.unit), "%s", names[i]);
		snprintf(st.cgroup, sizeof(st.cgroup), "/%s", names[i]);
		ASSERT_EQ(0, bwapd_status_write(rd, &st));
		ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status --json 2>/dev/null", rd));
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		EXPECT_EQ(0, r.status);
		for (j = 0; names[i][j]; j++)
			snprintf(hex + 2 * j, sizeof(hex) - 2 * (size_t)j, "%02x",
				 (unsigned char)names[i][j]);
		snprintf(expr, sizeof(expr),
			 "len(d['tuners']) == 1 and d['tuners'][0]['pid'] == %d and "
			 "d['tuners'][0]['command'] == d['tuners'][0]['unit'] == "
			 "d['tuners'][0]['cgroup'][1:] == "
			 "bytes.fromhex('%s').decode('utf-8', 'replace')",
			 (int)c, hex);
		EXPECT_EQ(0, json_check(self->dir, r.out, 0, expr))
			TH_LOG("name %u: %s", i, r.out);
		/* the table has no terminal controls either */
		ASSERT_EQ(0, bwapd(&r, -1, "--run-dir %s status", rd));
		EXPECT_EQ(NULL, strpbrk(r.out, "\x01\x1b\t"));
	}
}

/*
 * Each command takes its own options only; numbers are whole words in
 * range; contradictions are errors whatever their order.
 */
TEST_F(cli, options_per_command)
{
	static const struct { const char *args, *says; } bad[] = {
		{ "show --dry-run --seconds 5 0-1", "show: --dry-run is not an option of show" },
		{ "status --file x", "status: --file is not an option of status" },
		{ "topology --pid 1", "topology: --pid is not an option of topology" },
		{ "profile --max-size 3x", "--max-size: bad value '3x'" },
		{ "profile --max-size 0", "--max-size: bad value '0'" },
		{ "profile --seconds 5s", "--seconds: bad value '5s'" },
		{ "tune --samples -3", "--samples: bad value '-3'" },
		{ "--seed -1 topology", "--seed: bad value '-1'" },
		{ "status --js", "--js: no such option (\"bwapd --help\"; options are "
		  "spelled out: --json?)\n" },
		{ "tune --worklo=x", "--worklo: no such option (" },
		{ "--log-level loud status",
		  "--log-level: bad value 'loud': want err, warning, info or debug\n" },
		{ "tune --workload x --forward-only --metric instruction",
		  "--forward-only measures stalls per second" },
		{ "tune --workload x --metric instruction --forward-only",
		  "--forward-only measures stalls per second" },
		{ "tune --workload x --forward-only --metric node",
		  "second: it does not go with --metric node\n" },
		{ "tune --pid", "--pid: needs a value" },
		{ "--frobnicate status", "--frobnicate: no such option" },
		{ "frobnicate", "frobnicate: no such command" },
		{ "status extra", "status: too many arguments" },
	};
	char rules[256];
	struct run r;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(0, bwapd(&r, -1, "%s", bad[i].args));
		EXPECT_EQ(2, r.status) TH_LOG("%s: %s", bad[i].args, r.out);
		EXPECT_NE(NULL, strstr(r.out, bad[i].says)) TH_LOG("%s: %s", bad[i].args, r.out);
	}
	/* --forward-only with --metric rate agrees */
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' --model %s --file %s tune --workload %s/workloads/mixed.json --workers 0 --max-steps 1 --metric rate --forward-only",
			   self->b, self->file, BWM_DATADIR));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	/* a help of its own per command, on stdout */
	ASSERT_EQ(0, bwapd(&r, -1, "show --help 2>/dev/null"));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0, strncmp(r.out, "usage: bwapd show [OPTIONS] [WORKERS]\n", 38)) TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "--dry-run"));
	ASSERT_EQ(0, bwapd(&r, -1, "apply --help 2>/dev/null"));
	EXPECT_NE(NULL, strstr(r.out, "--dry-run"));
	ASSERT_EQ(0, bwapd(&r, -1, "--version 2>/dev/null"));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0, strcmp(r.out, "bwapd " BWAPD_VERSION "\n")) TH_LOG("%s", r.out);
	/* a bad machine file says what is wrong with it */
	snprintf(rules, sizeof(rules), "%s/bad.json", self->dir);
	ASSERT_EQ(0, put("/", rules + 1, "{\"nodes\": 3}\n"));
	ASSERT_EQ(0, bwapd(&r, -1, "--model %s tune --pid %d", rules, (int)getpid()));
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.out, "--model: ")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "bad.json:1:1: cpu_ghz: missing")) TH_LOG("%s", r.out);
	/* a rule takes tuner options only, checked before the daemon starts */
	snprintf(rules, sizeof(rules), "%s/rules", self->dir);
	ASSERT_EQ(0, put("/", rules + 1, "x* --samples 8 --trim 1\ny* --dry-run\n"));
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' daemon --rules %s", rules));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.out, "rules:2: --dry-run is not an option of a rule")) TH_LOG("%s", r.out);
	/*
	 * a rule names presets as the command line does: a preset's name is
	 * checked before the daemon starts (the rule after it would stop a
	 * daemon that took the name for a file)
	 */
	ASSERT_EQ(0, put("/", rules + 1, "x* --workload mixed --predict-with bwap-b\n"
			 "y* --workload nosuch\nz* --dry-run\n"));
	ASSERT_EQ(0, setenv("BWMODEL_DATA", BWM_DATADIR, 1));
	ASSERT_EQ(0, bwapd(&r, -1, "--run-dir '' daemon --rules %s", rules));
	unsetenv("BWMODEL_DATA");
	EXPECT_EQ(2, r.status);
	EXPECT_EQ(NULL, strstr(r.out, "rules:1:")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "--workload nosuch: no preset workload")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "rules:2: bad options in this rule")) TH_LOG("%s", r.out);
}

/*
 * "bwapd CMD --help" and the man page's OPTIONS list the same options:
 * both parsed, the union of every command's help against the man page's
 * items, and every command's against the man page.
 */
TEST_F(cli, help_and_man_page_agree)
{
	static const char check[] =
		"import re, subprocess, sys\n"
		"bwapd, man = sys.argv[1], open(sys.argv[2]).read()\n"
		"opts = man.split('\\n.SH OPTIONS\\n')[1].split('\\n.SH ')[0]\n"
		"in_man = set(re.findall(r'^\\.T[PQ]\\n\\.B[IR]? \\\\-\\\\-([a-z0-9\\\\-]+)', opts, re.M))\n"
		"in_man = {o.replace('\\\\-', '-') for o in in_man}\n"
		"in_help = set()\n"
		"top = subprocess.run([bwapd, '--help'], capture_output=True, text=True).stdout\n"
		"cmds = re.findall(r'^  ([a-z]+) ', top.split('commands:')[1].split('\\n\\n')[0], re.M)\n"
		"if 'inspect' not in cmds:\n"
		"    sys.exit('commands not found in bwapd --help: %s' % cmds)\n"
		"for cmd in [''] + cmds:\n"
		"    out = subprocess.run([bwapd] + ([cmd] if cmd else []) + ['--help'],\n"
		"                         capture_output=True, text=True, check=True).stdout\n"
		"    got = set(re.findall(r'^  --([a-z0-9-]+)', out, re.M))\n"
		"    if not got or got - in_man:\n"
		"        sys.exit('%s --help, not in the man page: %s' % (cmd, sorted(got - in_man)))\n"
		"    in_help |= got\n"
		"if in_man - in_help:\n"
		"    sys.exit('in the man page, in no --help: %s' % sorted(in_man - in_help))\n"
		"print(len(in_man), 'options')\n";
	char cmd[512];

	ASSERT_EQ(0, put(self->dir, "man.py", "%s", check));
	snprintf(cmd, sizeof(cmd), "python3 %s/man.py %s %s >&2", self->dir,
		 BWAPD_BIN, BWAPD_MAN);
	EXPECT_EQ(0, system(cmd));
}

/*
 * The man page as a reader sees it: mandoc finds nothing to warn about,
 * and the SYNOPSIS shows each form of the command on a line of its own
 * (wrapped when long), not one word per line.
 */
TEST_F(cli, man_page_renders)
{
	static const char check[] =
		"import subprocess, sys\n"
		"lint = subprocess.run(['mandoc', '-T', 'lint', '-W', 'warning', sys.argv[1]],\n"
		"                      capture_output=True, text=True)\n"
		"if lint.stdout or lint.stderr or lint.returncode:\n"
		"    sys.exit('mandoc -T lint: ' + lint.stdout + lint.stderr)\n"
		"text = subprocess.run('mandoc -T ascii -O width=80 %s | col -b' % sys.argv[1],\n"
		"                      shell=True, capture_output=True, text=True).stdout\n"
		"syn = text.split('\\nSYNOPSIS\\n')[1].split('\\n\\n')[0].splitlines()\n"
		"forms = [l for l in syn if l.strip().startswith('bwapd')]\n"
		"print(len(forms), 'forms on', len(syn), 'lines')\n"
		"if len(forms) != 15 or len(syn) > 2 * len(forms):\n"
		"    sys.exit('SYNOPSIS:\\n' + '\\n'.join(syn))\n";
	char cmd[512];

	if (system("command -v mandoc >/dev/null && command -v col >/dev/null"))
		SKIP(return, "no mandoc or col");
	ASSERT_EQ(0, put(self->dir, "render.py", "%s", check));
	snprintf(cmd, sizeof(cmd), "python3 %s/render.py %s >&2", self->dir,
		 BWAPD_MAN);
	EXPECT_EQ(0, system(cmd));
}

/*
 * Priorities for the journal: with stderr the stream JOURNAL_STREAM
 * names, every line starts with <N>; otherwise with "bwapd: ".
 * --log-level drops what is less important.
 */
TEST_F(cli, log_priorities)
{
	char log[128], cmd[8192], text[8192];
	static const struct {
		int journal;
		const char *args, *want, *not;
	} runs[] = {
		{ 1, "profile --seconds 0.1", "<6>15 worker sets", "bwapd: " },
		{ 1, "--log-level debug profile --seconds 0.1", "<7>backend model: 4 nodes", NULL },
		{ 1, "--log-level warning profile --seconds 0.1", NULL, "<6>" },
		{ 1, "show 0-3 --file /nonexistent/w.json", "<3>weights file: ", "bwapd: " },
		{ 0, "profile --seconds 0.1", "bwapd: 15 worker sets", "<6>" },
		{ 0, "--log-level err show 0-3 --file /nonexistent/w.json", "bwapd: weights file: ", NULL },
	};
	unsigned int i;
	FILE *f;
	size_t n;

	snprintf(log, sizeof(log), "%s/log", self->dir);
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		/* the journal's stream is the log file itself, or another file */
		snprintf(cmd, sizeof(cmd),
			 ": > %s; JOURNAL_STREAM=$(stat -c %%d:%%i %s) %s --model %s --file %s/w.json %s >/dev/null 2>>%s",
			 log, runs[i].journal ? log : self->dir, BWAPD_BIN, self->b, self->dir, runs[i].args, log);
		ASSERT_LE(0, system(cmd));
		f = fopen(log, "r");
		ASSERT_NE(NULL, f);
		n = fread(text, 1, sizeof(text) - 1, f);
		text[n] = 0;
		fclose(f);
		if (runs[i].want)
			EXPECT_NE(NULL, strstr(text, runs[i].want)) TH_LOG("%s: %s", runs[i].args, text);
		if (runs[i].not)
			EXPECT_EQ(NULL, strstr(text, runs[i].not)) TH_LOG("%s: %s", runs[i].args, text);
	}
}

/*
 * Memory controller PMUs shaped like real machines, counting on real
 * perf fds (tests/pmu-fixture.sh --standin): counters are read during a
 * real profiling run on the host's node 0 and the weights say so.
 */
TEST_F(cli, profile_counters_on_fixture_pmus)
{
	struct run r;
	char why[256];

	if (!can_count(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, fake_machine(self->dir, 1, 1));
	ASSERT_EQ(0, pmu_fixture(self->dir, "skx", "0", 1));
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s profile --seconds 0.2",
			   self->dir, self->file));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "counters: 6 PMUs uncore_imc_0..uncore_imc_5, 12 counters"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, bwapd(&r, -1, "--root %s --file %s show --json 0 2>/dev/null",
			   self->dir, self->file));
	EXPECT_EQ(0, json_check(self->dir, r.out, 0,
		"d['worker_sets'][0]['source'] == 'counters'")) TH_LOG("%s", r.out);
}

/* Every package of a 2-socket machine, Intel and AMD, has counters. */
TEST_F(cli, topology_counters_two_sockets)
{
	static const char *const shapes[] = { "skx", "icx", "zen3", "zen4", "zen4-612" };
	char why[256], dir[128];
	unsigned int i;
	struct run r;

	if (!can_count(why, sizeof(why)))
		SKIP(return, "%s", why);
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", self->dir, shapes[i]);
		ASSERT_EQ(0, mkdir(dir, 0755));
		ASSERT_EQ(0, fake_machine(dir, 2, 1));
		ASSERT_EQ(0, pmu_fixture(dir, shapes[i], "0,1", 1));
		ASSERT_EQ(0, bwapd(&r, -1, "--root %s topology --json 2>/dev/null", dir));
		EXPECT_EQ(0, r.status) TH_LOG("%s", r.out);
		EXPECT_EQ(0, json_check(self->dir, r.out, 0,
			"d['counters']['available'] is True and d['nodes'] == 2 "
			"and [n['id'] for n in d['node']] == [0, 1]"))
			TH_LOG("%s: %s", shapes[i], r.out);
	}
}

TEST_HARNESS_MAIN
