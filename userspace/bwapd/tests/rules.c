// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's rules file: patterns and options per line, comments,
 * the first match wins, errors name the line; and the daemon refuses
 * to start on a rule with a bad option.  Rules on systemd units and
 * cgroups, matched on the paths systemd lays out and on processes in
 * real cgroups, which the daemon picks up when they enter one.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "bwapd_test.h"
#include "rules.h"
#include "wfile.h"

static struct bwapd_rule rules[16];

/*
 * text as the rules file of a new directory dir (path: the file); the
 * rules read, or -errno with why[512].
 */
static int rules_in(char *dir, char *path, char *why, const char *text)
{
	snprintf(why, 512, "no directory");
	if (!temp_dir(dir, 64))
		return -ENOENT;
	snprintf(path, 128, "%s/rules", dir);
	if (put(dir, "rules", "%s", text))
		return -EIO;
	return bwapd_rules_read(path, rules, 16, why, 512);
}

/* A process that is only a command name. */
static const struct bwapd_who *comm(const char *name)
{
	static struct bwapd_who who;

	memset(&who, 0, sizeof(who));
	snprintf(who.comm, sizeof(who.comm), "%s", name);
	return &who;
}

/* A process of a command name in a cgroup, its units as bwapd reads them. */
static const struct bwapd_who *in_cgroup(const char *name, const char *path)
{
	static struct bwapd_who who;

	memset(&who, 0, sizeof(who));
	snprintf(who.comm, sizeof(who.comm), "%s", name);
	snprintf(who.cgroup, sizeof(who.cgroup), "%s", path);
	bwapd_cgroup_units(who.cgroup, who.unit, who.user_unit);
	return &who;
}

/*
 * The units of the cgroups systemd creates (systemd.unit(5),
 * systemd.slice(5), user@.service(5)) and of the scopes container
 * runtimes ask it for; none where the path is not systemd's.
 */
TEST(units_from_cgroup_paths)
{
	static const struct {
		const char *path, *unit, *user_unit;
	} c[] = {
		{ "/system.slice/nginx.service", "nginx.service", "" },
		{ "/system.slice/system-postgresql.slice/postgresql@15-main.service",
		  "postgresql@15-main.service", "" },
		{ "/system.slice/app.service/worker/1", "app.service", "" },
		{ "/init.scope", "init.scope", "" },
		{ "/user.slice/user-1000.slice/session-4.scope", "session-4.scope", "" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/"
		  "app-firefox-1234.scope", "user@1000.service",
		  "app-firefox-1234.scope" },
		{ "/user.slice/user-1000.slice/user@1000.service/init.scope",
		  "user@1000.service", "init.scope" },
		{ "/user.slice/user-1000.slice/user@1000.service", "user@1000.service", "" },
		{ "/system.slice/docker-4f2a9c.scope", "docker-4f2a9c.scope", "" },
		{ "/machine.slice/libpod-88e1.scope/container", "libpod-88e1.scope", "" },
		{ "/system.slice/_cpu.service", "cpu.service", "" },	/* escaped */
		{ "/", "", "" },
		{ "", "", "" },
		{ "/system.slice", "", "" },
		{ "/kubepods/burstable/pod12/4f2a", "", "" },	/* cgroupfs driver */
		{ "/bwapd-test/x.service", "", "" },		/* not under a slice name */
	};
	char unit[BWAPD_UNIT_LEN], user[BWAPD_UNIT_LEN];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		bwapd_cgroup_units(c[i].path, unit, user);
		EXPECT_STREQ(c[i].unit, unit) TH_LOG("%s", c[i].path);
		EXPECT_STREQ(c[i].user_unit, user) TH_LOG("%s", c[i].path);
	}
}

/*
 * Rules on units and cgroups: a service by name as systemctl takes it,
 * a user manager's units, a cgroup and what is below it; a typo in what
 * to match is an error naming the line, never a command name.
 */
TEST(rules_on_units_and_cgroups)
{
	char dir[64], path[128], why[512] = "";
	int n = rules_in(dir, path, why, "unit=nginx        --step 0.05\n"
			 "unit=postgresql@*.service\n"
			 "cgroup=*/docker-*.scope\n"
			 "cgroup=/batch.slice\n"
			 "comm=a=b\n"
			 "unit=*.scope --step 0.1\n");

	ASSERT_EQ(6, n) TH_LOG("%s", why);
	EXPECT_EQ(BWAPD_RULE_UNIT, (int)rules[0].on);
	EXPECT_STREQ("unit=nginx", rules[0].pattern);
	EXPECT_STREQ("nginx.service", rules[0].glob);
	EXPECT_STREQ("postgresql@*.service", rules[1].glob);
	EXPECT_EQ(BWAPD_RULE_CGROUP, (int)rules[2].on);
	EXPECT_EQ(BWAPD_RULE_COMM, (int)rules[4].on);
	EXPECT_STREQ("a=b", rules[4].glob);
	EXPECT_EQ(3, rules[0].argc);

	EXPECT_EQ(&rules[0], bwapd_rules_match(rules, n,
		in_cgroup("nginx", "/system.slice/nginx.service")));
	/* every process of the unit, whatever its name */
	EXPECT_EQ(&rules[0], bwapd_rules_match(rules, n,
		in_cgroup("sh", "/system.slice/nginx.service/reload")));
	/* a name is that service, not a prefix of others */
	EXPECT_EQ(NULL, bwapd_rules_match(rules, n,
		in_cgroup("nginx", "/system.slice/nginx-exporter.service")));
	/* nor a command name */
	EXPECT_EQ(NULL, bwapd_rules_match(rules, n, comm("nginx")));
	/* a user's service */
	EXPECT_EQ(&rules[0], bwapd_rules_match(rules, n,
		in_cgroup("nginx", "/user.slice/user-1000.slice/user@1000.service/"
			  "app.slice/nginx.service")));
	EXPECT_EQ(&rules[1], bwapd_rules_match(rules, n,
		in_cgroup("postgres", "/system.slice/system-postgresql.slice/"
			  "postgresql@15-main.service")));
	/* a container's processes, in the scope or below it */
	EXPECT_EQ(&rules[2], bwapd_rules_match(rules, n,
		in_cgroup("java", "/system.slice/docker-4f2a9c.scope")));
	EXPECT_EQ(&rules[2], bwapd_rules_match(rules, n,
		in_cgroup("java", "/system.slice/docker-4f2a9c.scope/init")));
	EXPECT_EQ(&rules[3], bwapd_rules_match(rules, n,
		in_cgroup("job", "/batch.slice/run-r1.scope")));
	EXPECT_EQ(NULL, bwapd_rules_match(rules, n,
		in_cgroup("job", "/batch.slices/run-r1.scope")));
	EXPECT_EQ(&rules[5], bwapd_rules_match(rules, n,
		in_cgroup("job", "/user.slice/user-1000.slice/session-4.scope")));
	EXPECT_EQ(&rules[4], bwapd_rules_match(rules, n, comm("a=b")));
	EXPECT_EQ(NULL, bwapd_rules_match(rules, n, in_cgroup("x", "/")));
	EXPECT_EQ(NULL, bwapd_rules_match(rules, n, in_cgroup("x", "")));

	ASSERT_EQ(0, put(dir, "rules", "stream\nunti=nginx --step 0.1\n"));
	EXPECT_EQ(-EINVAL, bwapd_rules_read(path, rules, 16, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "rules:2: unti=: match comm=, unit= or cgroup="))
		TH_LOG("%s", why);
	ASSERT_EQ(0, put(dir, "rules", "unit= --step 0.1\n"));
	EXPECT_EQ(-EINVAL, bwapd_rules_read(path, rules, 16, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "rules:1: unit=: no pattern")) TH_LOG("%s", why);
	rm_tree(dir);
}

TEST(parse_and_match)
{
	char dir[64], path[128], why[512] = "";
	int n = rules_in(dir, path, why, "# streaming codes\n"
			 "\n"
			 "stream   --min-mapi 0.002   # and a comment\n"
			 "\tmg.[A-D].x --step 0.05 --fine-step 0\n"
			 "*\n");

	ASSERT_EQ(3, n) TH_LOG("%s", why);
	EXPECT_STREQ("stream", rules[0].pattern);
	EXPECT_EQ(3, rules[0].line);
	EXPECT_EQ(3, rules[0].argc);
	EXPECT_STREQ("rule", rules[0].argv[0]);
	EXPECT_STREQ("--min-mapi", rules[0].argv[1]);
	EXPECT_STREQ("0.002", rules[0].argv[2]);
	EXPECT_EQ(NULL, rules[0].argv[3]);
	EXPECT_EQ(5, rules[1].argc);
	EXPECT_EQ(1, rules[2].argc);
	EXPECT_EQ(&rules[0], bwapd_rules_match(rules, n, comm("stream")));
	EXPECT_EQ(&rules[1], bwapd_rules_match(rules, n, comm("mg.C.x")));
	EXPECT_EQ(&rules[2], bwapd_rules_match(rules, n, comm("mg.E.x")));
	EXPECT_EQ(NULL, bwapd_rules_match(rules, 2, comm("bash")));
	rm_tree(dir);
}

/* Where the unified cgroup hierarchy is mounted, or -1. */
static int cgroup2_mount(char *buf, size_t len)
{
	char dev[256], dir[256], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", dir);
			found = 1;
		}
	fclose(f);
	return found ? 0 : -1;
}

/* A child that dies with the test, holding none of its output open. */
static pid_t child(int sig)
{
	pid_t c = fork();

	if (!c) {
		int fd = open("/dev/null", O_RDWR);

		prctl(PR_SET_PDEATHSIG, sig);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	return c;
}

static pid_t idle_child(void)
{
	pid_t c = child(SIGKILL);

	if (!c) {
		for (;;)
			pause();
	}
	return c;
}

static const char *slurp(const char *file)
{
	static char buf[8192];
	FILE *f = fopen(file, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	buf[n] = 0;
	if (f)
		fclose(f);
	return buf;
}

static int join(const char *cgroup, pid_t pid)
{
	char path[4200];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fprintf(f, "%d\n", (int)pid) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/* Whether file has a line with both words; waits up to two minutes. */
static int logged(const char *file, const char *a, const char *b)
{
	char line[1024];
	int tries;

	for (tries = 0; tries < 1200; tries++) {
		FILE *f = fopen(file, "r");

		while (f && fgets(line, sizeof(line), f))
			if (strstr(line, a) && strstr(line, b)) {
				fclose(f);
				return 1;
			}
		if (f)
			fclose(f);
		usleep(100000);
	}
	return 0;
}

/*
 * Processes in real cgroups: bwapd reads their cgroup and unit, and the
 * daemon tunes a process a rule names when it enters the cgroup after
 * the daemon looked at it once.  The process that moves (B) has the
 * lower PID: the daemon reads /proc in PID order, so once it has picked
 * up A, it has looked at B outside the cgroup.
 */
TEST(daemon_follows_processes_into_cgroups)
{
	char mnt[256], own[BWAPD_CGROUP_LEN], base[1024], named[1100], other[1100];
	char dir[64], rules_path[128], out[128], cmd[1024], a_pid[32], b_pid[32];
	char rel[1024];
	struct bwapd_who who;
	pid_t a, b, d;

	if (cgroup2_mount(mnt, sizeof(mnt)) ||
	    bwapd_cgroup_of("/proc", getpid(), own, sizeof(own)) || !own[0])
		SKIP(return, "no unified cgroup hierarchy");
	snprintf(base, sizeof(base), "%s%s/bwapd-test-%d.slice", mnt,
		 strcmp(own, "/") ? own : "", (int)getpid());
	snprintf(named, sizeof(named), "%s/bwtest-%d.service", base, (int)getpid());
	snprintf(other, sizeof(other), "%s/idle-%d.service", base, (int)getpid());
	if (mkdir(base, 0755))
		SKIP(return, "cannot make a cgroup in %.200s: %s", mnt, strerror(errno));
	ASSERT_EQ(0, mkdir(named, 0755));
	ASSERT_EQ(0, mkdir(other, 0755));
	b = idle_child();
	a = idle_child();
	ASSERT_LT(0, b);
	ASSERT_LT(0, a);
	if (a < b)	/* PIDs wrapped between the two */
		SKIP(goto reap, "PIDs out of order");
	ASSERT_EQ(0, join(named, a));
	ASSERT_EQ(0, join(other, b));

	ASSERT_EQ(0, bwapd_who_read("/proc", a, &who));
	snprintf(rel, sizeof(rel), "%s/bwapd-test-%d.slice/bwtest-%d.service",
		 strcmp(own, "/") ? own : "", (int)getpid(), (int)getpid());
	EXPECT_STREQ(rel, who.cgroup);
	/* below the root, the unit is systemd's; there, the test's own */
	snprintf(rel, sizeof(rel), "bwtest-%d.service", (int)getpid());
	if (!strcmp(own, "/"))
		EXPECT_STREQ(rel, who.unit);
	EXPECT_STREQ(who.unit, bwapd_who_service(&who));
	EXPECT_EQ(0, who.kthread);

	ASSERT_NE(NULL, temp_dir(dir, sizeof(dir)));
	snprintf(rules_path, sizeof(rules_path), "%s/rules", dir);
	snprintf(out, sizeof(out), "%s/daemon.out", dir);
	ASSERT_EQ(0, put(dir, "rules", "cgroup=*/bwtest-%d.service\n",
			 (int)getpid()));
	snprintf(cmd, sizeof(cmd), "exec %s --run-dir %s/run daemon --rules %s "
		 "--scan 0.2 >%s 2>&1", BWAPD_BIN, dir, rules_path, out);
	d = child(SIGTERM);
	ASSERT_LE(0, d);
	if (!d) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	snprintf(a_pid, sizeof(a_pid), "process %d (", (int)a);
	snprintf(b_pid, sizeof(b_pid), "process %d (", (int)b);
	EXPECT_TRUE(logged(out, a_pid, "matches rule 1")) TH_LOG("%s", slurp(out));
	/* looked at and passed over: outside the cgroup */
	{
		char line[1024];
		FILE *f = fopen(out, "r");

		while (f && fgets(line, sizeof(line), f))
			EXPECT_EQ(NULL, strstr(line, b_pid)) TH_LOG("%s", line);
		if (f)
			fclose(f);
	}
	ASSERT_EQ(0, join(named, b));
	EXPECT_TRUE(logged(out, b_pid, "matches rule 1")) TH_LOG("%s", slurp(out));
	kill(d, SIGTERM);
	waitpid(d, NULL, 0);
	rm_tree(dir);
reap:
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	rmdir(named);
	rmdir(other);
	rmdir(base);
}

/*
 * Kernel threads have no memory of their own to tune: the daemon passes
 * them over whatever a rule says (they sit in the root cgroup, which
 * "cgroup=/" names).  kthreadd is the kernel's, where it is visible.
 */
TEST(kernel_threads_known)
{
	struct bwapd_who who;
	pid_t pid;
	int seen = 0;

	for (pid = 1; pid < 64 && !seen; pid++)
		if (!bwapd_who_read("/proc", pid, &who) &&
		    !strcmp(who.comm, "kthreadd")) {
			EXPECT_EQ(1, who.kthread);
			seen = 1;
		}
	if (!seen)
		SKIP(return, "no kthreadd in this PID namespace");
	ASSERT_EQ(0, bwapd_who_read("/proc", getpid(), &who));
	EXPECT_EQ(0, who.kthread);
	EXPECT_EQ(-ENOENT, bwapd_who_read("/proc", 0x3fffffff, &who));
}

TEST(errors_name_the_line)
{
	char dir[64], path[128], why[256] = "", opts[2048];
	int i;

	ASSERT_NE(NULL, temp_dir(dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/rules", dir);
	opts[0] = 0;
	for (i = 0; i < 40; i++)
		strcat(opts, " -x");
	ASSERT_EQ(0, put(dir, "rules", "ok --step 0.1\nmany%s\n", opts));
	EXPECT_EQ(-E2BIG, bwapd_rules_read(path, rules, 16, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "rules:2: too many options")) TH_LOG("%s", why);
	ASSERT_EQ(0, put(dir, "rules", "a\nb\nc\n"));
	EXPECT_EQ(-E2BIG, bwapd_rules_read(path, rules, 2, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "rules:3: more than 2 rules")) TH_LOG("%s", why);
	EXPECT_EQ(-ENOENT, bwapd_rules_read("/nonexistent/rules", rules, 2, why,
					    sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "No such file"));
	/* the daemon checks every rule's options before it starts */
	ASSERT_EQ(0, put(dir, "rules", "ok --step 0.1\nbad --step 2\n"));
	snprintf(opts, sizeof(opts), "%s daemon --rules %s 2>&1", BWAPD_BIN, path);
	{
		FILE *p = popen(opts, "r");
		char out[4096];
		size_t n;

		ASSERT_NE(NULL, p);
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = 0;
		EXPECT_EQ(2, WEXITSTATUS(pclose(p)));
		EXPECT_NE(NULL, strstr(out, "rules:2: bad options in this rule; not started"))
			TH_LOG("%s", out);
	}
	rm_tree(dir);
}

/*
 * The package ships /etc/bwapd/rules with every rule commented out, and
 * starts the daemon when it is installed: with no rule it has nothing to
 * tune, says so and ends (status 0) rather than scan /proc for ever.
 * The file is the one the package ships.
 */
TEST(shipped_rules_no_daemon)
{
	char dir[64], path[128], cmd[512], out[4096], text[4096];
	size_t n;
	FILE *f;

	ASSERT_NE(NULL, temp_dir(dir, sizeof(dir)));
	f = fopen(BWAPD_TESTS "/../systemd/rules", "r");
	ASSERT_NE(NULL, f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	ASSERT_EQ(0, put(dir, "rules", "%s", text));
	snprintf(path, sizeof(path), "%s/rules", dir);
	EXPECT_EQ(0, bwapd_rules_read(path, rules, 16, out, sizeof(out)));
	/* a bound for the old daemon, which never ended */
	snprintf(cmd, sizeof(cmd), "timeout 300 %s --run-dir %s/run daemon --rules %s 2>&1",
		 BWAPD_BIN, dir, path);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	EXPECT_EQ(0, WEXITSTATUS(pclose(f))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "no rules in ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, ": nothing to tune")) TH_LOG("%s", out);
	rm_tree(dir);
}

/*
 * The rules decide whose memory the daemon moves: a file that another
 * user, or a group, may write is refused, naming the file and the fix,
 * before a line of it is used.  So is a weights file, which the daemon
 * and "bwapd apply" write into the global weights.
 */
TEST(untrusted_files_refused)
{
	char dir[64], path[128], why[256] = "";
	struct bwapd_topology t;
	struct bwapd_file f;

	ASSERT_NE(NULL, temp_dir(dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/rules", dir);
	ASSERT_EQ(0, put(dir, "rules", "stream --min-mapi 0.002\n"));
	ASSERT_EQ(0, chmod(path, 0644));
	EXPECT_EQ(1, bwapd_rules_read(path, rules, 16, why, sizeof(why)))
		TH_LOG("%s", why);

	ASSERT_EQ(0, chmod(path, 0664));
	EXPECT_EQ(-EPERM, bwapd_rules_read(path, rules, 16, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "rules: writable by group or others"))
		TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(why, "chmod go-w ")) TH_LOG("%s", why);

	ASSERT_EQ(0, chmod(path, 0646));
	EXPECT_EQ(-EPERM, bwapd_rules_read(path, rules, 16, why, sizeof(why)));

	ASSERT_EQ(0, chmod(path, 0644));
	if (geteuid() == 0) {
		/* owned by another user than the one running bwapd */
		ASSERT_EQ(0, chown(path, 65534, 65534));
		EXPECT_EQ(-EPERM, bwapd_rules_read(path, rules, 16, why,
						   sizeof(why)));
		EXPECT_NE(NULL, strstr(why, "owned by uid 65534"))
			TH_LOG("%s", why);
		EXPECT_NE(NULL, strstr(why, "chown ")) TH_LOG("%s", why);
	}

	/* a weights file writable by others is not read either */
	memset(&t, 0, sizeof(t));
	snprintf(path, sizeof(path), "%s/weights.json", dir);
	ASSERT_EQ(0, put(dir, "weights.json", "{}\n"));
	ASSERT_EQ(0, chmod(path, 0666));
	EXPECT_EQ(-EPERM, bwapd_file_read(path, &t, &f, why, sizeof(why)));
	EXPECT_EQ(NULL, f.result);
	EXPECT_NE(NULL, strstr(why, "weights.json: writable by group or others"))
		TH_LOG("%s", why);
	bwapd_file_free(&f);
	rm_tree(dir);
}

TEST_HARNESS_MAIN
