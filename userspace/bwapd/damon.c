// SPDX-License-Identifier: GPL-2.0
/*
 * One process's weights through DAMON's weighted migration (damon.h).
 *
 * The sysfs layout is Documentation/admin-guide/mm/damon/usage.rst of
 * Linux 6.17 and later: kdamonds/0/contexts/0 with vaddr operations,
 * targets/<i>/pid_target, and schemes/<i> with action, access_pattern,
 * quotas, core_filters and dests.  Every change rewrites the whole
 * context from the record and commits it ("commit" to state, or "on"
 * when the kdamond is not running); DAMON matches targets and schemes by
 * their index, so the running kdamond keeps what did not change.
 *
 * The scheme of target i:
 *   action migrate_hot, every region (size, accesses and age 0..max);
 *   core filter 0: not target i, reject;
 *   core filters 1..k: the process's ranges, allow (the last filter
 *   allowing, DAMON rejects what none matched);
 *   dests: one per node of non-zero weight;
 *   quotas: --rate as bytes per second.
 * A page whose place is already right is not touched; the others move
 * every aggregation interval, including the pages the process allocates
 * later, at the global weights, while the scheme stays.
 *
 * The record, dir/damon, one line per item, replaced atomically:
 *   kdamond KTHREAD_PID
 *   target PID TUNER_PID BYTES_PER_S NR_NODES W... NR_RANGES START END...
 * and dir/damon.lock, flock(2)ed around every change.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwapd.h"
#include "damon.h"
#include "log.h"

#define MAX_TARGETS	64
#define KDAMOND		"kdamonds/0"
#define CTX		KDAMOND "/contexts/0"

struct entry {
	pid_t pid, tuner;
	struct bwapd_damon_place p;
};

struct record {
	int kdamond;			/* bwapd's kdamond exists */
	long kpid;			/* its thread when it last started */
	int nr;
	struct entry e[MAX_TARGETS];
};

struct bwapd_damon {
	char dir[4096];
	pid_t pid;
	int placed;			/* in the record */
};

/* For the signal handler: the lock held, the keeper and its pipe. */
static volatile int lock_fd = -1;
static volatile int keeper_fd = -1;
static volatile pid_t keeper_pid = -1;
static int keeper_users;		/* bwapd_damon_open()s not closed */

/* DAMON's sysfs interface, and the root of /sys/module (bwapd_damon_root) */
static char sysfs[4200] = BWAPD_DAMON_SYSFS;
static char root_dir[4096];

void bwapd_damon_root(const char *root)
{
	snprintf(root_dir, sizeof(root_dir), "%s", root);
	snprintf(sysfs, sizeof(sysfs), "%s%s", root, BWAPD_DAMON_SYSFS);
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- sysfs ---- */

/*
 * Write val to DAMON's sysfs/path.  The interface answers EBUSY while
 * another writer (or the kernel's own refresh) holds its lock: try again.
 * (O_TRUNC, as a shell's redirection opens it: a file under a root
 * directory then holds what was written last.)
 */
static int dwrite(const char *path, const char *val, char *why, size_t len)
{
	char full[4400];
	int fd, err = 0, tries;
	ssize_t n;

	snprintf(full, sizeof(full), "%s/%s", sysfs, path);
	for (tries = 0; tries < 200; tries++) {
		fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0) {
			err = errno;
			break;
		}
		n = write(fd, val, strlen(val));
		err = n < 0 ? errno : 0;
		close(fd);
		if (err != EBUSY)
			break;
		pause_ms(10);
	}
	if (err)
		snprintf(why, len, "%s: writing \"%s\": %s%s", full, val,
			 strerror(err), err == EACCES || err == EPERM ?
			 " (DAMON's sysfs interface is root's)" : "");
	return -err;
}

static int dwritef(char *why, size_t len, const char *val,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int dwritef(char *why, size_t len, const char *val,
		   const char *fmt, ...)
{
	char path[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return dwrite(path, val, why, len);
}

static int dread(const char *path, char *buf, size_t size)
{
	char full[4400];

	snprintf(full, sizeof(full), "%s/%s", sysfs, path);
	return bwapd_read_text("", full, buf, size);
}

static int dread_long(const char *path, long *v)
{
	char buf[64], *end;
	int ret = dread(path, buf, sizeof(buf));

	if (ret)
		return ret;
	*v = strtol(buf, &end, 10);
	return end == buf ? -EINVAL : 0;
}

static int dexists(const char *path)
{
	char full[4400];

	snprintf(full, sizeof(full), "%s/%s", sysfs, path);
	return access(full, F_OK) == 0;
}

static int kdamond_on(void)
{
	char buf[16];

	return !dread(KDAMOND "/state", buf, sizeof(buf)) && !strcmp(buf, "on");
}

/* ---- the record ---- */

static int lock_open(const char *dir, char *why, size_t len)
{
	char path[4200];
	int fd;

	fd = bwapd_mkdirs(dir);
	if (fd) {
		snprintf(why, len, "%s: %s", dir, strerror(-fd));
		return fd;
	}
	snprintf(path, sizeof(path), "%s/damon.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		int err = errno;

		snprintf(why, len, "%s: %s", path, strerror(err));
		if (fd >= 0)
			close(fd);
		return -err;
	}
	lock_fd = fd;
	return 0;
}

static void lock_close(void)
{
	int fd = lock_fd;

	lock_fd = -1;
	if (fd >= 0)
		close(fd);
}

/* One "target" line into e; 0 or -EINVAL. */
static int parse_target(char *s, struct entry *e)
{
	char *end;
	long v[4];
	int i;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < 4; i++) {
		v[i] = strtol(s, &end, 10);
		if (end == s)
			return -EINVAL;
		s = end;
	}
	e->pid = (pid_t)v[0];
	e->tuner = (pid_t)v[1];
	e->p.bytes_per_s = (uint64_t)v[2];
	if (v[3] < 1 || v[3] > BWAPD_MAX_NODES)
		return -EINVAL;
	e->p.nr_nodes = (int)v[3];
	for (i = 0; i < e->p.nr_nodes; i++) {
		long w = strtol(s, &end, 10);

		if (end == s || w < 0 || w > 255)
			return -EINVAL;
		e->p.weights[i] = (uint8_t)w;
		s = end;
	}
	v[0] = strtol(s, &end, 10);
	if (end == s || v[0] < 0 || v[0] > BWAPD_DAMON_MAX_RANGES)
		return -EINVAL;
	e->p.nr_ranges = (int)v[0];
	for (i = 0; i < e->p.nr_ranges; i++) {
		s = end;
		e->p.range[i].start = strtoul(s, &end, 16);
		s = end;
		e->p.range[i].end = strtoul(s, &end, 16);
		if (end == s)
			return -EINVAL;
	}
	return 0;
}

/* dir/damon into r; a missing or damaged record is an empty one. */
static void record_read(const char *dir, struct record *r)
{
	char path[4200], line[4096];
	FILE *f;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/damon", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "kdamond ", 8)) {
			r->kdamond = 1;
			r->kpid = strtol(line + 8, NULL, 10);
		} else if (!strncmp(line, "target ", 7) && r->nr < MAX_TARGETS &&
			   !parse_target(line + 7, &r->e[r->nr])) {
			r->nr++;
		}
	}
	fclose(f);
}

static int record_write(const char *dir, const struct record *r, char *why,
			size_t len)
{
	char path[4200], tmp[4200];
	FILE *f;
	int i, j;

	snprintf(path, sizeof(path), "%s/damon", dir);
	snprintf(tmp, sizeof(tmp), "%s/.damon.tmp", dir);
	if (!r->kdamond && !r->nr) {
		if (unlink(path) && errno != ENOENT)
			goto fail;
		return 0;
	}
	f = fopen(tmp, "w");
	if (!f)
		goto fail;
	if (r->kdamond)
		fprintf(f, "kdamond %ld\n", r->kpid);
	for (i = 0; i < r->nr; i++) {
		const struct entry *e = &r->e[i];

		fprintf(f, "target %d %d %llu %d", (int)e->pid, (int)e->tuner,
			(unsigned long long)e->p.bytes_per_s, e->p.nr_nodes);
		for (j = 0; j < e->p.nr_nodes; j++)
			fprintf(f, " %u", e->p.weights[j]);
		fprintf(f, " %d", e->p.nr_ranges);
		for (j = 0; j < e->p.nr_ranges; j++)
			fprintf(f, " %lx %lx", e->p.range[j].start,
				e->p.range[j].end);
		fputc('\n', f);
	}
	if (fclose(f) || rename(tmp, path))
		goto fail;
	return 0;
fail:
	snprintf(why, len, "%s: %s", path, strerror(errno));
	return -errno;
}

static int alive(pid_t pid)
{
	return pid > 0 && !(kill(pid, 0) && errno == ESRCH);
}

/* Drop the processes that are gone and those whose tuner is. */
static void record_prune(struct record *r)
{
	int i, n = 0;

	for (i = 0; i < r->nr; i++)
		if (alive(r->e[i].pid) && alive(r->e[i].tuner))
			r->e[n++] = r->e[i];
	r->nr = n;
}

/* ---- the kdamond ---- */

/*
 * Is DAMON's sysfs bwapd's to use?  Its kdamond, or none at all: bwapd
 * never touches a kdamond it did not create.  Forgets a kdamond of the
 * record that is not there any more.
 */
static int check_owner(struct record *r, char *why, size_t len)
{
	long nr, kpid;
	int ret = dread_long("kdamonds/nr_kdamonds", &nr);

	if (ret == -ENOENT) {
		snprintf(why, len, "the kernel has no DAMON sysfs interface "
			 "(%s: CONFIG_DAMON_SYSFS)", sysfs);
		return -EOPNOTSUPP;
	}
	if (ret) {
		snprintf(why, len, "%s/kdamonds/nr_kdamonds: %s%s",
			 sysfs, strerror(-ret), ret == -EACCES ?
			 " (DAMON's sysfs interface is root's)" : "");
		return ret;
	}
	if (r->kdamond && nr == 1 &&
	    (!kdamond_on() ||
	     (!dread_long(KDAMOND "/pid", &kpid) && kpid == r->kpid)))
		return 0;
	r->kdamond = 0;
	if (nr > 0) {
		snprintf(why, len, "DAMON's sysfs interface is in use by another "
			 "program (%ld kdamond%s in %s/kdamonds): bwapd adds its "
			 "own only where there is none, since DAMON rebuilds every "
			 "kdamond to add one", nr, nr == 1 ? "" : "s", sysfs);
		return -EBUSY;
	}
	return 0;
}

/*
 * DAMON's own modules run their kdamond exclusively: while one is on, no
 * other kdamond starts ("on" says EBUSY).  Debian's kernels turn on
 * DAMON_STAT by default.  bwapd never stops another DAMON user.
 */
static int exclusive_user(char *why, size_t len)
{
	static const char *const mods[] = { "damon_stat", "damon_reclaim",
					    "damon_lru_sort" };
	char path[96], buf[8];
	size_t i;

	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		snprintf(path, sizeof(path), "/sys/module/%s/parameters/enabled",
			 mods[i]);
		if (bwapd_read_text(root_dir, path, buf, sizeof(buf)) ||
		    (buf[0] != 'Y' && buf[0] != 'y' && buf[0] != '1'))
			continue;
		snprintf(why, len, "DAMON runs for %s, which keeps every other "
			 "kdamond from starting, and bwapd stops no other DAMON "
			 "user: to let bwapd place processes, turn it off (%s.enabled=N "
			 "on the kernel command line, or N into %s)", mods[i],
			 mods[i], path);
		return -EBUSY;
	}
	return 0;
}

/* Stop bwapd's kdamond and remove it. */
static int kdamond_remove(struct record *r, char *why, size_t len)
{
	int ret = 0;

	if (kdamond_on())
		ret = dwrite(KDAMOND "/state", "off", why, len);
	if (!ret)
		ret = dwrite("kdamonds/nr_kdamonds", "0", why, len);
	if (!ret)
		r->kdamond = 0;
	return ret;
}

/* A new kdamond with one vaddr context: slow sampling, pages move anyway. */
static int kdamond_create(struct record *r, char *why, size_t len)
{
	int ret;

	ret = dwrite("kdamonds/nr_kdamonds", "1", why, len);
	if (ret)
		return ret;
	r->kdamond = 1;
	r->kpid = -1;
	ret = dwrite(KDAMOND "/contexts/nr_contexts", "1", why, len);
	if (!ret)
		ret = dwrite(CTX "/operations", "vaddr", why, len);
	if (!ret)
		ret = dwrite(CTX "/monitoring_attrs/intervals/sample_us",
			     "20000", why, len);
	if (!ret)
		ret = dwrite(CTX "/monitoring_attrs/intervals/aggr_us",
			     "200000", why, len);
	if (!ret)
		ret = dwrite(CTX "/monitoring_attrs/intervals/update_us",
			     "1000000", why, len);
	if (!ret)
		ret = dwrite(CTX "/schemes/nr_schemes", "1", why, len);
	if (!ret && !dexists(CTX "/schemes/0/dests")) {
		snprintf(why, len, "DAMON here has no weighted destinations "
			 "(no schemes/<N>/dests in %s)", sysfs);
		ret = -EOPNOTSUPP;
	}
	if (ret) {
		char ignore[256];

		kdamond_remove(r, ignore, sizeof(ignore));
	}
	return ret;
}

static int write_filter(int s, int f, const char *type, int matching,
			int allow, char *why, size_t len)
{
	int ret = dwritef(why, len, type,
			  CTX "/schemes/%d/core_filters/%d/type", s, f);

	if (!ret)
		ret = dwritef(why, len, matching ? "Y" : "N",
			      CTX "/schemes/%d/core_filters/%d/matching", s, f);
	if (!ret)
		ret = dwritef(why, len, allow ? "Y" : "N",
			      CTX "/schemes/%d/core_filters/%d/allow", s, f);
	return ret;
}

/* Scheme i: target i's pages in its ranges to its weighted nodes. */
static int write_scheme(int i, const struct entry *e, char *why, size_t len)
{
	static const char *const range[][2] = {
		{ "sz", "18446744073709551615" },
		{ "nr_accesses", "4294967295" },
		{ "age", "4294967295" },
	};
	char v[64];
	int j, k, nd = 0, ret = 0;

	for (j = 0; j < e->p.nr_nodes; j++)
		nd += e->p.weights[j] > 0;
	/* nothing to place: a scheme that only counts */
	ret = dwritef(why, len, e->p.nr_ranges && nd ? "migrate_hot" : "stat",
		      CTX "/schemes/%d/action", i);
	if (!ret)
		ret = dwritef(why, len, "0", CTX "/schemes/%d/apply_interval_us", i);
	for (j = 0; !ret && j < 3; j++) {
		ret = dwritef(why, len, range[j][1],
			      CTX "/schemes/%d/access_pattern/%s/max", i, range[j][0]);
		if (!ret)
			ret = dwritef(why, len, "0",
				      CTX "/schemes/%d/access_pattern/%s/min", i,
				      range[j][0]);
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)e->p.bytes_per_s);
	if (!ret)
		ret = dwritef(why, len, v, CTX "/schemes/%d/quotas/bytes", i);
	if (!ret)
		ret = dwritef(why, len, "1000",
			      CTX "/schemes/%d/quotas/reset_interval_ms", i);
	snprintf(v, sizeof(v), "%d", 1 + e->p.nr_ranges);
	if (!ret)
		ret = dwritef(why, len, v, CTX "/schemes/%d/core_filters/nr_filters", i);
	if (!ret)
		ret = write_filter(i, 0, "target", 0, 0, why, len);
	snprintf(v, sizeof(v), "%d", i);
	if (!ret)
		ret = dwritef(why, len, v,
			      CTX "/schemes/%d/core_filters/0/damon_target_idx", i);
	for (j = 0; !ret && j < e->p.nr_ranges; j++) {
		ret = write_filter(i, j + 1, "addr", 1, 1, why, len);
		snprintf(v, sizeof(v), "%lu", e->p.range[j].start);
		if (!ret)
			ret = dwritef(why, len, v,
				      CTX "/schemes/%d/core_filters/%d/addr_start",
				      i, j + 1);
		snprintf(v, sizeof(v), "%lu", e->p.range[j].end);
		if (!ret)
			ret = dwritef(why, len, v,
				      CTX "/schemes/%d/core_filters/%d/addr_end",
				      i, j + 1);
	}
	snprintf(v, sizeof(v), "%d", nd);
	if (!ret)
		ret = dwritef(why, len, v, CTX "/schemes/%d/dests/nr_dests", i);
	for (j = 0, k = 0; !ret && j < e->p.nr_nodes; j++) {
		if (!e->p.weights[j])
			continue;
		snprintf(v, sizeof(v), "%d", j);
		ret = dwritef(why, len, v, CTX "/schemes/%d/dests/%d/id", i, k);
		snprintf(v, sizeof(v), "%u", e->p.weights[j]);
		if (!ret)
			ret = dwritef(why, len, v, CTX "/schemes/%d/dests/%d/weight",
				      i, k);
		k++;
	}
	return ret;
}

/* The context as the record says, committed (or started). */
static int kdamond_write(struct record *r, char *why, size_t len)
{
	char v[32];
	int i, ret;

	snprintf(v, sizeof(v), "%d", r->nr);
	ret = dwrite(CTX "/targets/nr_targets", v, why, len);
	for (i = 0; !ret && i < r->nr; i++) {
		snprintf(v, sizeof(v), "%d", (int)r->e[i].pid);
		ret = dwritef(why, len, v, CTX "/targets/%d/pid_target", i);
	}
	snprintf(v, sizeof(v), "%d", r->nr);
	if (!ret)
		ret = dwrite(CTX "/schemes/nr_schemes", v, why, len);
	for (i = 0; !ret && i < r->nr; i++)
		ret = write_scheme(i, &r->e[i], why, len);
	if (ret)
		return ret;
	if (kdamond_on())
		return dwrite(KDAMOND "/state", "commit", why, len);
	ret = dwrite(KDAMOND "/state", "on", why, len);
	if (!ret && dread_long(KDAMOND "/pid", &r->kpid))
		r->kpid = -1;
	return ret;
}

/*
 * Make DAMON what the record says: bwapd's kdamond with a target per
 * process, or no kdamond when there is none.  A process that exits on
 * the way fails the commit: drop it and write again.
 */
static int kdamond_sync(struct record *r, char *why, size_t len)
{
	int tries, ret = 0;

	for (tries = 0; tries < 3; tries++) {
		record_prune(r);
		if (!r->nr)
			return r->kdamond ? kdamond_remove(r, why, len) : 0;
		if (!r->kdamond) {
			ret = exclusive_user(why, len) ?: kdamond_create(r, why, len);
			if (ret)
				return ret;
		}
		ret = kdamond_write(r, why, len);
		if (!ret || ret == -EACCES || ret == -EPERM)
			break;
	}
	return ret;
}

/*
 * Under the lock: read the record, let change() edit it, make DAMON and
 * the record say the same.
 */
static int with_record(const char *dir, int (*change)(struct record *, void *),
		       void *arg, char *why, size_t len)
{
	static struct record r;
	int ret;

	ret = lock_open(dir, why, len);
	if (ret)
		return ret;
	record_read(dir, &r);
	ret = check_owner(&r, why, len);
	if (!ret && change)
		ret = change(&r, arg);
	if (!ret)
		ret = kdamond_sync(&r, why, len);
	if (!ret || r.kdamond)
		ret = record_write(dir, &r, why, len) ?: ret;
	lock_close();
	return ret;
}

/* ---- the keeper ---- */

/* Who leaves the record: a process, or every process of a tuner (0: none). */
struct leaver {
	pid_t pid, tuner;
};

static int remove_entries(struct record *r, void *arg)
{
	const struct leaver *l = arg;
	int i, n = 0;

	for (i = 0; i < r->nr; i++)
		if (r->e[i].pid != l->pid && r->e[i].tuner != l->tuner)
			r->e[n++] = r->e[i];
	r->nr = n;
	return 0;
}

/*
 * The keeper: a child that outlives the tuner by the time it takes to
 * take the tuner's processes out.  It waits for the end of its pipe,
 * which the tuner holds until it exits; it ignores the signals that
 * stop the tuner (a terminal's or systemd's to the whole group).
 */
static pid_t keeper_start(const char *dir, int *wfd)
{
	struct leaver l = { .tuner = getpid() };
	pid_t k;
	int p[2], fd;
	char c, why[512];

	if (pipe2(p, O_CLOEXEC))
		return -1;
	k = fork();
	if (k < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (k) {
		close(p[0]);
		*wfd = p[1];
		return k;
	}
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (fd = 3; fd < 1024; fd++)
		if (fd != p[0])
			close(fd);
	while (read(p[0], &c, 1) < 0 && errno == EINTR)
		;
	if (with_record(dir, remove_entries, &l, why, sizeof(why)))
		bwapd_log(BWAPD_LOG_WARNING, "DAMON: %s", why);
	_exit(0);
}

static void keeper_stop(void)
{
	int fd = keeper_fd;
	pid_t k = keeper_pid;

	keeper_fd = -1;
	keeper_pid = -1;
	if (fd >= 0)
		close(fd);
	if (k > 0)
		while (waitpid(k, NULL, 0) < 0 && errno == EINTR)
			;
}

void bwapd_damon_on_signal(void)
{
	/* a change half way through: the keeper writes all of it again */
	if (lock_fd >= 0)
		close(lock_fd);
	lock_fd = -1;
	keeper_stop();
}

/* ---- the interface ---- */

int bwapd_damon_probe(const char *dir, char *why, size_t len)
{
	static struct record r;
	int ret;

	ret = lock_open(dir, why, len);
	if (ret)
		return ret;
	record_read(dir, &r);
	ret = check_owner(&r, why, len);
	/* no kdamond yet: make one to look, and remove it */
	if (!ret && !r.kdamond)
		ret = exclusive_user(why, len);
	if (!ret && !r.kdamond) {
		ret = kdamond_create(&r, why, len);
		if (!ret)
			ret = kdamond_remove(&r, why, len);
		bwapd_log(BWAPD_LOG_DEBUG, "DAMON: a kdamond made and removed, "
			  "to see that one can start: %s", ret ? why : "it can");
	}
	lock_close();
	return ret;
}

int bwapd_damon_look(char *why, size_t len)
{
	struct utsname u;
	int dests, maj = 0, min = 0;
	long nr = 0;
	int ret = dread_long("kdamonds/nr_kdamonds", &nr);

	if (ret == -ENOENT) {
		snprintf(why, len, "the kernel has no DAMON sysfs interface "
			 "(CONFIG_DAMON_SYSFS)");
		return -EOPNOTSUPP;
	}
	if (!ret && nr > 0 && dexists(CTX "/schemes/0"))
		dests = dexists(CTX "/schemes/0/dests");
	else
		dests = !uname(&u) && sscanf(u.release, "%d.%d", &maj, &min) == 2 &&
			(maj > 6 || (maj == 6 && min >= 17));
	if (!dests) {
		snprintf(why, len, "DAMON here has no weighted destinations "
			 "(Linux 6.17 or later)");
		return -EOPNOTSUPP;
	}
	return exclusive_user(why, len);
}

int bwapd_damon_open(struct bwapd_damon **dp, const char *dir, pid_t pid,
		     char *why, size_t len)
{
	struct bwapd_damon *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	snprintf(d->dir, sizeof(d->dir), "%s", dir);
	d->pid = pid;
	if (keeper_pid < 0) {
		int fd = -1;
		pid_t k = keeper_start(dir, &fd);

		if (k < 0) {
			snprintf(why, len, "cannot start the process that takes "
				 "the tuned process out of DAMON: %s",
				 strerror(errno));
			free(d);
			return -errno;
		}
		keeper_fd = fd;
		keeper_pid = k;
	}
	keeper_users++;
	*dp = d;
	return 0;
}

struct set_arg {
	const struct bwapd_damon *d;
	const struct bwapd_damon_place *p;
};

static int set_entry(struct record *r, void *arg)
{
	const struct set_arg *a = arg;
	int i;

	for (i = 0; i < r->nr; i++)
		if (r->e[i].pid == a->d->pid)
			break;
	if (i == MAX_TARGETS)
		return -ENOSPC;
	if (i == r->nr)
		r->nr++;
	r->e[i].pid = a->d->pid;
	r->e[i].tuner = getpid();
	r->e[i].p = *a->p;
	return 0;
}

int bwapd_damon_set(struct bwapd_damon *d, const struct bwapd_damon_place *p,
		    char *why, size_t len)
{
	struct set_arg a = { d, p };
	int ret = with_record(d->dir, set_entry, &a, why, len);

	if (ret == -ENOSPC)
		snprintf(why, len, "bwapd places %d processes through DAMON "
			 "already", MAX_TARGETS);
	if (!ret)
		d->placed = 1;
	return ret;
}

static uint64_t scheme_stat(int i, const char *name)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), CTX "/schemes/%d/stats/%s", i, name);
	return dread(path, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10);
}

int bwapd_damon_stats(struct bwapd_damon *d, struct bwapd_damon_stats *s,
		      char *why, size_t len)
{
	static struct record r;
	int i, ret;

	memset(s, 0, sizeof(*s));
	ret = lock_open(d->dir, why, len);
	if (ret)
		return ret;
	record_read(d->dir, &r);
	ret = check_owner(&r, why, len);
	for (i = 0; !ret && i < r.nr && r.e[i].pid != d->pid; i++)
		;
	if (!ret && i == r.nr) {
		snprintf(why, len, "process %d is not in bwapd's DAMON record "
			 "(%s/damon)", (int)d->pid, d->dir);
		ret = -ENOENT;
	}
	if (!ret) {
		s->on = kdamond_on();
		if (s->on)
			ret = dwrite(KDAMOND "/state", "update_schemes_stats",
				     why, len);
	}
	if (!ret && s->on) {
		s->nr_tried = scheme_stat(i, "nr_tried");
		s->sz_applied = scheme_stat(i, "sz_applied");
		s->qt_exceeds = scheme_stat(i, "qt_exceeds");
	}
	lock_close();
	return ret;
}

void bwapd_damon_close(struct bwapd_damon *d)
{
	struct leaver l = { 0 };
	char why[512];

	if (!d)
		return;
	l.pid = d->pid;
	if (d->placed &&
	    with_record(d->dir, remove_entries, &l, why, sizeof(why)))
		bwapd_log(BWAPD_LOG_WARNING, "DAMON: %s", why);
	free(d);
	if (!--keeper_users)
		keeper_stop();
}

int bwapd_damon_prune(const char *dir, char *why, size_t len)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/damon", dir);
	if (access(path, F_OK))
		return 0;
	return with_record(dir, NULL, NULL, why, len);
}
