/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which service a process belongs to (cgroup.c): its cgroup, and the
 * systemd units systemd reads off that cgroup's path.
 */
#ifndef BWAPD_CGROUP_H
#define BWAPD_CGROUP_H

#include <sys/types.h>

#define BWAPD_CGROUP_LEN	512
#define BWAPD_UNIT_LEN		256

struct bwapd_who {
	char comm[64];			/* /proc/PID/comm */
	char cgroup[BWAPD_CGROUP_LEN];	/* "" where there is none */
	char unit[BWAPD_UNIT_LEN];	/* the system's unit, or "" */
	char user_unit[BWAPD_UNIT_LEN];	/* a user manager's unit, or "" */
	int kthread;			/* a kernel thread: no memory of its own */
};

/*
 * The cgroup of pid under proc ("/proc"): the unified hierarchy's path,
 * else the one systemd's own v1 hierarchy names; 0 or -errno.
 */
int bwapd_cgroup_of(const char *proc, pid_t pid, char *path, size_t len);
/*
 * The units a cgroup path is in, as systemd names them: the first
 * component that is not a slice; under a user manager (user@UID.service)
 * the first one of its own that is not a slice.  "" where there is none.
 */
void bwapd_cgroup_units(const char *path, char *unit, char *user_unit);
/*
 * Command name, cgroup and units of pid, and whether it is a kernel
 * thread; 0 or -errno (the process is gone).
 */
int bwapd_who_read(const char *proc, pid_t pid, struct bwapd_who *who);
/* The unit who runs in: its user manager's unit, else the system's, else "". */
const char *bwapd_who_unit(const struct bwapd_who *who);
/* What to show of who: its unit, else its cgroup, else "-". */
const char *bwapd_who_service(const struct bwapd_who *who);

#endif /* BWAPD_CGROUP_H */
