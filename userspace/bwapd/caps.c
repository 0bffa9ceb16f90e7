// SPDX-License-Identifier: GPL-2.0
/*
 * Which capabilities bwapd has: the effective set from /proc/self/status
 * (no libcap needed for reading one mask).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "caps.h"

static const struct {
	int cap;
	const char *name;
} cap_names[] = {
	{ CAP_SYS_PTRACE, "CAP_SYS_PTRACE" },
	{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	{ CAP_SYS_NICE, "CAP_SYS_NICE" },
	{ CAP_PERFMON, "CAP_PERFMON" },
};

int bwapd_self_status(const char *fmt, ...)
{
	char line[128];
	int found = 0;
	va_list ap;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		va_start(ap, fmt);
		found = vsscanf(line, fmt, ap) == 1;
		va_end(ap);
	}
	fclose(f);
	return found;
}

static uint64_t effective_caps(void)
{
	unsigned long long mask = 0;

	bwapd_self_status("CapEff: %llx", &mask);
	return mask;
}

/* "A", "A and B", "A, B and C" */
static void names(char *buf, size_t len, uint64_t caps)
{
	size_t i, k = 0, nr = 0, o = 0;

	for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
		nr += !!(caps & BWAPD_CAP(cap_names[i].cap));
	buf[0] = 0;
	for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]) && o < len; i++) {
		if (!(caps & BWAPD_CAP(cap_names[i].cap)))
			continue;
		k++;
		o += snprintf(buf + o, len - o, "%s%s",
			      k == 1 ? "" : k == nr ? " and " : ", ",
			      cap_names[i].name);
	}
}

void bwapd_caps_why(char *buf, size_t len, const char *what, uint64_t caps)
{
	uint64_t lack = caps & ~effective_caps();
	char need[96], missing[96];

	names(need, sizeof(need), caps);
	names(missing, sizeof(missing), lack);
	if (lack == caps)
		snprintf(buf, len, "%s takes %s, which bwapd lacks", what, need);
	else if (lack)
		snprintf(buf, len, "%s takes %s; bwapd lacks %s", what, need,
			 missing);
	else
		snprintf(buf, len, "%s takes %s, which bwapd has (a security "
			 "module refused it?)", what, need);
}

int bwapd_perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

void bwapd_perf_why(char *buf, size_t len, const char *what, int paranoid,
		    uint64_t caps)
{
	char w[256], need[96];
	size_t o;

	if (paranoid < 3) {
		if (paranoid < 0)
			snprintf(w, sizeof(w), "%s", what);
		else
			snprintf(w, sizeof(w), "%s (kernel.perf_event_paranoid "
				 "is %d)", what, paranoid);
		bwapd_caps_why(buf, len, w, caps);
		return;
	}
	snprintf(w, sizeof(w), "%s at kernel.perf_event_paranoid %d "
		 "(Debian's default)", what, paranoid);
	bwapd_caps_why(buf, len, w, BWAPD_CAP(CAP_SYS_ADMIN));
	names(need, sizeof(need), caps);
	o = strlen(buf);
	if (o < len)
		snprintf(buf + o, len - o, "; or set kernel.perf_event_paranoid=2, "
			 "where it takes %s", need);
}
