// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd inspect on the model: the signature of every synthetic class of
 * the Oracle Labs paper (pure and mixed) recovered from two runs of the
 * model's counters on two, four and eight nodes; the predicted weights
 * against the exhaustive optimum; the command line's text and JSON.
 */
#include <sys/wait.h>
#include <json-c/json.h>

#include <signal.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "bwapd_test.h"
#include "caps.h"
#include "inspect_model.h"
#include "inspect_proc.h"
#include "topology.h"

struct class_case {
	const char *name;
	double shared;
	enum inspect_policy policy;
	double st, lo, pt;		/* expected static, local, per-thread */
};

static const struct class_case classes[] = {
	{ "Static", 1, INSPECT_FIRST_TOUCH, 1, 0, 0 },
	{ "Local", 0, INSPECT_FIRST_TOUCH, 0, 1, 0 },
	{ "Per-thread", 1, INSPECT_PARALLEL_INIT, 0, 0, 1 },
	{ "Interleaved", 0.5, INSPECT_INTERLEAVE, 0, 0, 0 },
	{ "Static+Local", 0.6, INSPECT_FIRST_TOUCH, 0.6, 0.4, 0 },
	{ "Per-thread+Local", 0.3, INSPECT_PARALLEL_INIT, 0, 0.7, 0.3 },
};

static const struct {
	const char *machine;
	uint32_t workers;		/* every node: interleave is over them */
} shapes[] = {
	{ "haswell-2s-8c", 0x3 },
	{ "bwap-b", 0xf },
	{ "bwap-a", 0xff },
};

/*
 * Each class on each machine, exact without noise and within 0.03 with
 * 1 % noise on every counter; the threads run at different speeds in
 * the asymmetric run (the controllers are loaded unevenly), which the
 * normalisation takes out.
 */
TEST(synthetic_classes)
{
	static struct inspect_report r;
	double worst = 0;
	unsigned int s, c;
	int noisy;

	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		for (c = 0; c < sizeof(classes) / sizeof(classes[0]); c++) {
			for (noisy = 0; noisy < 2; noisy++) {
				const struct class_case *k = &classes[c];
				double tol = noisy ? 0.03 : 1e-6;
				struct bwm_workload wl;
				struct bwm_machine m;

				ASSERT_EQ(0, bwm_test_load(shapes[s].machine,
							   "bandwidth-bound",
							   shapes[s].workers, &m,
							   &wl));
				wl.shared = k->shared;
				ASSERT_EQ(0, inspect_model(&m, &wl, k->policy, 1,
							   noisy ? 0.01 : 0, 3,
							   BWM_DEFAULT_U8_ERR, &r));
				ASSERT_TRUE(r.have_signature)
					TH_LOG("%s %s: %s", shapes[s].machine,
					       k->name, r.signature_why);
				if (fabs(k->st - r.sig.static_frac) > tol ||
				    fabs(k->lo - r.sig.local_frac) > tol ||
				    fabs(k->pt - r.sig.per_thread_frac) > tol)
					TH_LOG("%s %s%s:", shapes[s].machine, k->name,
					       noisy ? " with noise" : "");
				if (noisy)
					worst = fmax(worst, fmax(fabs(k->st - r.sig.static_frac),
						     fmax(fabs(k->lo - r.sig.local_frac),
							  fabs(k->pt - r.sig.per_thread_frac))));
				EXPECT_NEAR(k->st, r.sig.static_frac, tol);
				EXPECT_NEAR(k->lo, r.sig.local_frac, tol);
				EXPECT_NEAR(k->pt, r.sig.per_thread_frac, tol);
				if (k->st > 0)
					EXPECT_EQ(0, r.sig.static_node);
				EXPECT_TRUE(r.sigq.fits)
					TH_LOG("%s %s: residual %g", shapes[s].machine,
					       k->name, r.sigq.residual);
			}
		}
	}
	TH_LOG("largest error with 1%% counter noise: %.4f", worst);
}

/* Interleave over nodes without threads is what the classes cannot say. */
TEST(interleave_beyond_the_workers_does_not_fit)
{
	static struct inspect_report r;
	struct bwm_workload wl;
	struct bwm_machine m;

	ASSERT_EQ(0, bwm_test_load("bwap-a", "bandwidth-bound", 0xf, &m, &wl));
	ASSERT_EQ(0, inspect_model(&m, &wl, INSPECT_INTERLEAVE, 1, 0, 1,
				   BWM_DEFAULT_U8_ERR, &r));
	ASSERT_TRUE(r.have_signature);
	EXPECT_FALSE(r.sigq.fits);
	EXPECT_NE(NULL, strstr(r.verdict, "do not fit"));
	/* one worker node: no signature, and why */
	ASSERT_EQ(0, bwm_test_load("bwap-a", "bandwidth-bound", 0x1, &m, &wl));
	ASSERT_EQ(0, inspect_model(&m, &wl, INSPECT_FIRST_TOUCH, 1, 0, 1,
				   BWM_DEFAULT_U8_ERR, &r));
	EXPECT_FALSE(r.have_signature);
	EXPECT_NE(NULL, strstr(r.signature_why, "two nodes"));
}

/*
 * The predicted weights reach 0.97 of the exhaustive optimum of the
 * fractions (bwap-eval's "optimum") on every preset, workload and
 * worker set, after their conversion to integer weights.
 */
TEST(prediction_near_the_optimum)
{
	static const char *const machines[] = {
		"bwap-a", "bwap-b", "haswell-2s-8c", "haswell-2s-18c", "dram-cxl",
	};
	static const char *const workloads[] = {
		"bandwidth-bound", "latency-bound", "mixed", "private-heavy",
	};
	static struct inspect_report r;
	double worst = 2, sum = 0;
	unsigned int i, j;
	int cases = 0;

	for (i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		struct bwm_machine m;
		uint32_t cpus, sets[3];
		int k;

		ASSERT_EQ(0, bwm_test_load(machines[i], NULL, 0, &m, NULL));
		cpus = bwm_cpu_nodes(&m);
		sets[0] = cpus & -cpus;			/* the first node */
		sets[1] = cpus & ~(cpus & -cpus) ?	/* the first two */
			  sets[0] | ((cpus & ~sets[0]) & -(cpus & ~sets[0])) :
			  sets[0];
		sets[2] = cpus;
		for (j = 0; j < sizeof(workloads) / sizeof(workloads[0]); j++) {
			for (k = 0; k < 3; k++) {
				struct bwm_eval_opts eo;
				struct bwm_workload wl;
				struct bwm_eval ev;
				double opt, f;

				ASSERT_EQ(0, bwm_test_load(machines[i], workloads[j],
							   sets[k], &m, &wl));
				bwm_eval_opts_default(&eo);
				eo.search_steps = m.nr_nodes > 4 ? 10 : 20;
				ASSERT_EQ(0, bwm_evaluate(&m, &wl, &eo, &ev));
				ASSERT_EQ(0, inspect_model(&m, &wl,
							   INSPECT_FIRST_TOUCH, 1,
							   0, 1, BWM_DEFAULT_U8_ERR,
							   &r));
				ASSERT_TRUE(r.have_prediction);
				opt = ev.r[BWM_OPTIMUM].pred.throughput_gbps;
				f = r.predicted_gbps / opt;
				EXPECT_GE(f, 0.97)
					TH_LOG("%s %s workers %#x: %.4f of the optimum",
					       machines[i], workloads[j], sets[k], f);
				worst = fmin(worst, f);
				sum += f;
				cases++;
			}
		}
	}
	TH_LOG("predicted weights: worst %.4f, mean %.4f of the optimum over %d cases",
	       worst, sum / cases, cases);
}

static char out[1 << 17];

static int run(const char *args)
{
	char cmd[2048];
	FILE *p;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", BWAPD_BIN, args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define MODEL_ARGS "--model " BWM_DATADIR "/machines/bwap-b.json inspect " \
		   "--workload " BWM_DATADIR "/workloads/mixed.json"

TEST(command_line)
{
	struct json_object *root, *v, *sig;
	char path[] = "/tmp/bwapd-inspect-XXXXXX", args[4096];
	static const char wl[] =
		"{\"name\": \"a\\u0001b\\\"c\\u00e9\\ud800\", \"workers\": [0, 1],"
		" \"demand_gbps\": 4, \"mlp\": 6, \"shared\": 0.6}";
	int fd;

	EXPECT_EQ(0, run(MODEL_ARGS " --workers 0-1"));
	EXPECT_NE(NULL, strstr(out, "exclusivity")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "bandwidth signature"));
	EXPECT_NE(NULL, strstr(out, "verdict: "));

	ASSERT_EQ(0, run(MODEL_ARGS " --workers 0-1 --json --policy parallel-init"));
	root = json_tokener_parse(out);
	ASSERT_NE(NULL, root) TH_LOG("%s", out);
	/* the key names, at the top level or one object each */
	ASSERT_TRUE(json_object_object_get_ex(root, "exclusivity", &v));
	EXPECT_TRUE(json_object_get_double(v) > 0.25 &&
		    json_object_get_double(v) <= 1);
	EXPECT_TRUE(json_object_object_get_ex(root, "locality", &v));
	EXPECT_TRUE(json_object_object_get_ex(root, "page_balance", &v));
	EXPECT_TRUE(json_object_object_get_ex(root, "access_balance", &v));
	EXPECT_TRUE(json_object_object_get_ex(root, "dynamicity", &v));
	EXPECT_TRUE(json_object_object_get_ex(root, "verdict", &v));
	ASSERT_TRUE(json_object_object_get_ex(root, "signature", &sig));
	ASSERT_TRUE(json_object_object_get_ex(sig, "per_thread", &v));
	EXPECT_NEAR(0.6, json_object_get_double(v), 1e-6);
	EXPECT_TRUE(json_object_object_get_ex(sig, "interleaved", &v));
	ASSERT_TRUE(json_object_object_get_ex(root, "predicted", &v));
	EXPECT_TRUE(json_object_object_get_ex(v, "weights", &v));
	json_object_put(root);

	/* a hostile name stays one valid document */
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(wl), write(fd, wl, strlen(wl)));
	close(fd);
	snprintf(args, sizeof(args), "--model %s/machines/bwap-b.json inspect "
		 "--workload %s --json", BWM_DATADIR, path);
	ASSERT_EQ(0, run(args));
	root = json_tokener_parse(out);
	ASSERT_NE(NULL, root) TH_LOG("%s", out);
	ASSERT_TRUE(json_object_object_get_ex(root, "workload", &v));
	json_object_put(root);
	snprintf(args, sizeof(args), "--model %s/machines/bwap-b.json inspect "
		 "--workload %s", BWM_DATADIR, path);
	ASSERT_EQ(0, run(args));
	EXPECT_NE(NULL, strstr(out, "workload a?b")) TH_LOG("%s", out);
	unlink(path);

	/* bad input: a clear message and a non-zero status */
	EXPECT_EQ(2, run(MODEL_ARGS " --policy sideways"));
	EXPECT_NE(NULL, strstr(out, "--policy sideways"));
	EXPECT_EQ(2, run("inspect --workload " BWM_DATADIR "/workloads/mixed.json"));
	EXPECT_NE(NULL, strstr(out, "needs --model"));
	EXPECT_EQ(2, run(MODEL_ARGS " --workers 0,x"));
	/* a node the machine lacks: a bad value (exit status 2) */
	EXPECT_EQ(2, run(MODEL_ARGS " --workers 9"));
	EXPECT_NE(NULL, strstr(out, "--workers: node 9 does not exist (the machine "
			       "has nodes 0-3)")) TH_LOG("%s", out);
	EXPECT_EQ(2, run("inspect --rules x"));
}

/* A child that keeps touching fresh pages: first-touch faults. */
/* a process touching fresh pages for ever; of user uid (0: the caller's) */
static pid_t toucher_of(uid_t uid)
{
	pid_t pid = fork();

	if (!pid) {
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid) ||
			    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)))
			_exit(1);
		for (;;) {
			char *p = mmap(NULL, 64 << 12, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			int i;

			if (p == MAP_FAILED)
				_exit(1);
			for (i = 0; i < 64; i++)
				p[i << 12] = 1;
			munmap(p, 64 << 12);
		}
	}
	return pid;
}

static pid_t toucher(void)
{
	return toucher_of(0);
}

/*
 * The process path on the host's kernel, whatever it keeps: real perf
 * page-fault samples of a real process, their pages' nodes by
 * move_pages(2), the metrics on them; a process that is gone.
 */
TEST(process_samples)
{
	static struct inspect_report r;
	struct inspect_proc_opts po = { .seconds = 0.5, .interval = 0.05,
					.u8_err = BWM_DEFAULT_U8_ERR };
	struct bwapd_topology topo;
	char why[512] = "";
	pid_t pid;
	int ret, st;

	ASSERT_EQ(0, bwapd_topology_read("", &topo, why, sizeof(why)))
		TH_LOG("%s", why);
	pid = toucher();
	ASSERT_LT(0, pid);
	ret = inspect_process(pid, &topo, &po, &r, why, sizeof(why));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ASSERT_EQ(0, ret) TH_LOG("%s", why);
	EXPECT_EQ(pid, r.pid);
	EXPECT_EQ(1, r.threads);
	EXPECT_GT(r.samples, 64ULL);
	EXPECT_TRUE(r.have_metrics);
	EXPECT_NE(NULL, strstr(r.source, "first touches")) TH_LOG("%s", r.source);
	/* one thread on one node: every sampled page is exclusive */
	EXPECT_NEAR(1, r.metrics.exclusivity, 1e-9);
	EXPECT_FALSE(r.have_signature);
	EXPECT_NE(NULL, strstr(r.signature_why, "cannot be run again"));
	EXPECT_FALSE(r.have_prediction);
	EXPECT_NE(NULL, strstr(r.prediction_why, "--model"));
	EXPECT_NE(0, r.verdict[0]);

	why[0] = '\0';
	EXPECT_EQ(-ESRCH, inspect_process(pid, &topo, &po, &r, why,
					  sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "no process")) TH_LOG("%s", why);
}

TEST(process_command_line)
{
	char args[128];
	pid_t pid = toucher();
	int st;

	ASSERT_LT(0, pid);
	snprintf(args, sizeof(args), "inspect --pid %d --seconds 0.3 --json",
		 (int)pid);
	EXPECT_EQ(0, run(args));
	EXPECT_EQ(0, strncmp(out, "{", 1)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"samples\": { \"source\": \"page faults"))
		TH_LOG("%s", out);
	snprintf(args, sizeof(args), "inspect --pid %d --policy interleave", (int)pid);
	EXPECT_EQ(2, run(args));
	EXPECT_NE(NULL, strstr(out, "for a workload of the model"));
	snprintf(args, sizeof(args), "inspect --pid %d --seconds 1 --interval 0.6",
		 (int)pid);
	EXPECT_EQ(2, run(args));
	EXPECT_NE(NULL, strstr(out, "two slices"));
	/* --range: the samples of those addresses alone; two hex addresses */
	snprintf(args, sizeof(args), "inspect --pid %d --seconds 0.3 "
		 "--range 1000-2000 --json", (int)pid);
	EXPECT_EQ(0, run(args));
	EXPECT_NE(NULL, strstr(out, "\"exclusivity\": null")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "addresses 1000-2000 only")) TH_LOG("%s", out);
	snprintf(args, sizeof(args), "inspect --pid %d --range 2000-1000",
		 (int)pid);
	EXPECT_EQ(2, run(args));
	EXPECT_NE(NULL, strstr(out, "START below END")) TH_LOG("%s", out);
	snprintf(args, sizeof(args), "inspect --pid %d --range 1000", (int)pid);
	EXPECT_EQ(2, run(args));
	snprintf(args, sizeof(args), "--model %s/machines/bwap-b.json inspect --pid %d",
		 BWM_DATADIR, (int)pid);
	EXPECT_EQ(2, run(args));
	EXPECT_NE(NULL, strstr(out, "both"));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	snprintf(args, sizeof(args), "inspect --pid %d", (int)pid);
	EXPECT_EQ(1, run(args));
	EXPECT_NE(NULL, strstr(out, "no process")) TH_LOG("%s", out);

	/* a program run twice: on two nodes at least, and not with --pid */
	EXPECT_EQ(1, run("inspect --workers 0 --seconds 1 -- true"));
	EXPECT_NE(NULL, strstr(out, "two nodes with CPUs")) TH_LOG("%s", out);
	EXPECT_EQ(2, run("inspect --pid 1 -- true"));
	EXPECT_NE(NULL, strstr(out, "no --pid"));
	EXPECT_EQ(2, run("inspect --"));
}

/*
 * Any user inspects its own processes: at kernel.perf_event_paranoid 2,
 * upstream's default, the page-fault samples take no capability as long
 * as they leave the kernel's own faults out.  bwapd runs as nobody, on a
 * process of nobody's.
 */
TEST(process_of_its_own_user)
{
	int paranoid = bwapd_perf_paranoid(), st;
	char cmd[1024];
	pid_t pid;
	size_t n;
	FILE *p;

	if (geteuid())
		SKIP(return, "needs root, to become another user");
	if (paranoid > 2)
		SKIP(return, "kernel.perf_event_paranoid %d: no user counts without "
		     "a capability", paranoid);
	pid = toucher_of(65534);
	ASSERT_LT(0, pid);
	snprintf(cmd, sizeof(cmd), "setpriv --reuid=65534 --regid=65534 --clear-groups "
		 "%s inspect --pid %d --seconds 0.3 --json 2>&1", BWAPD_BIN, (int)pid);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	st = pclose(p);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	EXPECT_EQ(0, WIFEXITED(st) ? WEXITSTATUS(st) : -1) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "Permission denied")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"samples\": { \"source\": \"page faults"))
		TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
