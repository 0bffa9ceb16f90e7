// SPDX-License-Identifier: GPL-2.0
/*
 * A process's cgroup and systemd units.  /proc/PID/cgroup has a line
 * per hierarchy, "ID:CONTROLLERS:PATH"; the unified hierarchy's is
 * "0::PATH".  On a system that still mounts cgroup v1 alone, systemd
 * keeps its units in the named hierarchy "name=systemd".
 *
 * systemd lays units out as cgroups: slices nest ("system.slice",
 * "user.slice/user-1000.slice"), and the first component below them
 * that is not a slice is the unit whose processes these are, with any
 * cgroups the unit creates for itself further down.  A user's manager
 * is a unit too (user@1000.service), and lays out its own units the
 * same way below it.  Components systemd had to escape start with '_'.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bwapd.h"
#include "cgroup.h"

int bwapd_cgroup_of(const char *proc, pid_t pid, char *path, size_t len)
{
	char file[128], line[BWAPD_CGROUP_LEN + 64], v1[BWAPD_CGROUP_LEN] = "";
	int found = 0;
	FILE *f;

	snprintf(file, sizeof(file), "%s/%d/cgroup", proc, (int)pid);
	f = fopen(file, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':'), *q = p ? strchr(p + 1, ':') : NULL;

		if (!q)
			continue;
		q[strcspn(q, "\n")] = 0;
		if (!strncmp(line, "0::", 3)) {
			snprintf(path, len, "%s", q + 1);
			found = 1;
			break;
		}
		if (!strncmp(p + 1, "name=systemd:", 13))
			snprintf(v1, sizeof(v1), "%s", q + 1);
	}
	fclose(f);
	if (!found && v1[0]) {
		snprintf(path, len, "%s", v1);
		found = 1;
	}
	if (!found)
		*path = 0;
	return 0;
}

/* A unit's name: "NAME.TYPE", TYPE one of systemd's unit types. */
static int unit_name(const char *c, size_t n)
{
	static const char *const type[] = {
		"service", "scope", "socket", "mount", "swap", "slice",
		"target", "timer", "path", "device", "automount",
	};
	const char *dot = memrchr(c, '.', n);
	size_t i;

	if (!dot || dot == c)
		return 0;
	for (i = 0; i < sizeof(type) / sizeof(type[0]); i++)
		if (strlen(type[i]) == n - (size_t)(dot + 1 - c) &&
		    !strncmp(dot + 1, type[i], n - (size_t)(dot + 1 - c)))
			return 1;
	return 0;
}

static int is_slice(const char *c, size_t n)
{
	return n > 6 && !strncmp(c + n - 6, ".slice", 6);
}

/* The unit below p's slices into unit; where it ends in p, or NULL. */
static const char *unit_below(const char *p, char *unit)
{
	*unit = 0;
	for (;;) {
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (!n)
			return NULL;
		if (*p == '_') {	/* escaped */
			p++;
			n--;
		}
		if (!unit_name(p, n))
			return NULL;
		if (!is_slice(p, n)) {
			if (n >= BWAPD_UNIT_LEN)
				return NULL;
			memcpy(unit, p, n);
			unit[n] = 0;
			return p + n;
		}
		p += n;
	}
}

void bwapd_cgroup_units(const char *path, char *unit, char *user_unit)
{
	const char *end = unit_below(path, unit);

	*user_unit = 0;
	if (end && !strncmp(unit, "user@", 5) &&
	    !strcmp(unit + strlen(unit) - 8, ".service"))
		unit_below(end, user_unit);
}

/* PF_KTHREAD in the flags of /proc/PID/stat (proc_pid_stat(5)) */
#define KTHREAD_FLAG	0x00200000UL

static int kernel_thread(const char *proc, pid_t pid)
{
	char path[128], buf[1024], *p;
	unsigned long flags;

	snprintf(path, sizeof(path), "%s/%d/stat", proc, (int)pid);
	if (bwapd_read_text("", path, buf, sizeof(buf)))
		return 0;
	/* the command name, in parentheses, may hold anything */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return 0;
	return !!(flags & KTHREAD_FLAG);
}

int bwapd_who_read(const char *proc, pid_t pid, struct bwapd_who *who)
{
	char path[128];
	int ret;

	memset(who, 0, sizeof(*who));
	snprintf(path, sizeof(path), "%s/%d/comm", proc, (int)pid);
	ret = bwapd_read_text("", path, who->comm, sizeof(who->comm));
	if (ret)
		return ret;
	ret = bwapd_cgroup_of(proc, pid, who->cgroup, sizeof(who->cgroup));
	if (ret)
		return ret;
	bwapd_cgroup_units(who->cgroup, who->unit, who->user_unit);
	who->kthread = kernel_thread(proc, pid);
	return 0;
}

const char *bwapd_who_unit(const struct bwapd_who *who)
{
	return who->user_unit[0] ? who->user_unit : who->unit;
}

const char *bwapd_who_service(const struct bwapd_who *who)
{
	if (bwapd_who_unit(who)[0])
		return bwapd_who_unit(who);
	return who->cgroup[0] ? who->cgroup : "-";
}
