// SPDX-License-Identifier: GPL-2.0
/*
 * A process's threads from /proc/PID/task/TID/stat (proc(5)).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "threads.h"

/* One stat line, after the command name: state, then fields 4 to 52. */
static int parse(const char *buf, struct bwapd_thread *t)
{
	const char *p = strrchr(buf, ')');
	char *end;
	int field;

	if (!p || p[1] != ' ' || !p[2])
		return -EINVAL;
	t->state = p[2];
	p += 3;
	/* fields are counted from 1; the state is field 3 */
	for (field = 4; field <= 39; field++) {
		long v;

		while (*p == ' ')
			p++;
		v = strtol(p, &end, 10);
		if (end == p)
			return -EINVAL;
		if (field == 14)
			t->ticks = v;
		else if (field == 15)
			t->ticks += v;
		else if (field == 39)
			t->cpu = (int)v;
		p = end;
	}
	return 0;
}

int bwapd_thread_read(pid_t pid, pid_t tid, struct bwapd_thread *t)
{
	char path[64], buf[1024];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -ESRCH;	/* it has exited */
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	if (parse(buf, t))
		return -ESRCH;
	t->tid = tid;
	return 0;
}

int bwapd_process_threads(pid_t pid, struct bwapd_thread *t, int max)
{
	char path[64];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while (n < max && (de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    !bwapd_thread_read(pid, (pid_t)atoi(de->d_name), &t[n]))
			n++;
	closedir(d);
	return n;
}
