// SPDX-License-Identifier: GPL-2.0
/*
 * Which events count a memory controller's traffic, and how they are
 * encoded.
 *
 * Where the kernel has a sysfs alias (PMU/events/NAME, with NAME.scale
 * and NAME.unit), it is used as perf uses it: the terms are placed into
 * perf_event_attr.config* by PMU/format/TERM.  Where it has none, the
 * encodings are the documented ones, each with its source:
 *
 * - Intel Sapphire Rapids (family 6, model 143) uncore_imc_N: no aliases
 *   in Linux 6.1 (discovery-table driver).  UNC_M_CAS_COUNT.RD
 *   event=0x05,umask=0xcf and UNC_M_CAS_COUNT.WR event=0x05,umask=0xf0,
 *   64 bytes per CAS (tools/perf/pmu-events/arch/x86/sapphirerapids/
 *   uncore-memory.json).
 * - AMD amd_umc_N (Linux 6.9+, Zen 4 and later): sysfs has format/ and
 *   cpumask only.  umc_cas_cmd.rd event=0x0a,rdwrmask=0x1 and
 *   umc_cas_cmd.wr event=0x0a,rdwrmask=0x2 (tools/perf/pmu-events/arch/
 *   x86/amdzen4/memory-controller.json), 64 bytes per CAS.
 * - AMD amd_df, Zen 1-3 (family 0x17; 0x19 models 0x00-0x0f, 0x20-0x5f,
 *   the amdzen3 rows of tools/perf/pmu-events/arch/x86/mapfile.csv):
 *   dram_channel_data_controller_0..7, event=0x07 + 0x40 x channel,
 *   umask=0x38, "Requests with Data (64B)", reads and writes together
 *   (tools/perf/pmu-events/arch/x86/amdzen{1,2,3}/data-fabric.json).
 * - AMD amd_df, Zen 4 (the other family 0x19 models): per Coherent
 *   Station 0..11, event=0x1f + 0x40 x station, umask 0x7fe/0x7ff
 *   (local processor read/write data beats) and 0xbfe/0xbff (remote),
 *   64 bytes per beat (tools/perf/pmu-events/arch/x86/amdzen4/
 *   data-fabric.json).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uncore.h"

#define LINE	64.0

/* One "config:0-7,32-35" format into mask pieces; value placed into cfg[]. */
static int place(const char *fmt, uint64_t value, uint64_t cfg[3])
{
	const char *p = strchr(fmt, ':');
	int which;

	if (!strncmp(fmt, "config1:", 8))
		which = 1;
	else if (!strncmp(fmt, "config2:", 8))
		which = 2;
	else if (!strncmp(fmt, "config:", 7))
		which = 0;
	else
		return -EINVAL;
	p++;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		int bits;

		if (end == p || lo < 0 || lo > 63)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi > 63)
				return -EINVAL;
		}
		bits = (int)(hi - lo + 1);
		cfg[which] |= (bits == 64 ? value : value & ((1ULL << bits) - 1))
			      << lo;
		value = bits == 64 ? 0 : value >> bits;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return value ? -ERANGE : 0;
}

int uncore_encode(const char *root, const char *pmu, const char *terms,
		  uint64_t cfg[3])
{
	char buf[256], path[512], fmt[128];
	char *save, *tok;

	cfg[0] = cfg[1] = cfg[2] = 0;
	snprintf(buf, sizeof(buf), "%s", terms);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t v = 1;
		int ret;

		if (eq) {
			*eq = 0;
			v = strtoull(eq + 1, NULL, 0);
		}
		snprintf(path, sizeof(path),
			 "/sys/bus/event_source/devices/%s/format/%s", pmu, tok);
		ret = bwapd_read_text(root, path, fmt, sizeof(fmt));
		if (!ret)
			ret = place(fmt, v, cfg);
		if (ret)
			return ret;
	}
	return 0;
}

static int cpuinfo_int(const char *info, const char *key)
{
	const char *p = strstr(info, key);

	p = p ? strchr(p, ':') : NULL;
	return p ? atoi(p + 1) : 0;
}

void uncore_cpu_read(const char *root, struct uncore_cpu *c)
{
	char buf[4096];

	memset(c, 0, sizeof(*c));
	if (bwapd_read_text(root, "/proc/cpuinfo", buf, sizeof(buf)))
		return;
	c->amd = !!strstr(buf, "AuthenticAMD");
	c->intel = !!strstr(buf, "GenuineIntel");
	c->family = cpuinfo_int(buf, "cpu family");
	c->model = cpuinfo_int(buf, "\nmodel\t");
}

/* Bytes per count: NAME.scale in NAME.unit; one 64-byte line without. */
static double bytes_per_count(const char *root, const char *pmu,
			      const char *ev)
{
	char path[512], buf[64];
	double scale = 1, unit = LINE;

	snprintf(path, sizeof(path),
		 "/sys/bus/event_source/devices/%s/events/%s.scale", pmu, ev);
	if (!bwapd_read_text(root, path, buf, sizeof(buf))) {
		scale = strtod(buf, NULL);
		unit = 1;
		snprintf(path, sizeof(path),
			 "/sys/bus/event_source/devices/%s/events/%s.unit",
			 pmu, ev);
		if (!bwapd_read_text(root, path, buf, sizeof(buf))) {
			if (!strcmp(buf, "MiB"))
				unit = 1048576;
			else if (!strcmp(buf, "MB"))
				unit = 1e6;
			else if (!strcmp(buf, "KiB"))
				unit = 1024;
		}
	}
	return scale * unit;
}

/* The kernel's aliases, read and write, in the order tried. */
static const char *const aliases[UNCORE_NR_FAMILIES][2][2] = {
	/* icx/snr/spr-style server, then tgl/adl client */
	[UNCORE_IMC_FREE] = { { "read", "write" }, { "data_read", "data_write" } },
	/* snbep..icx server, then snb..cml client (data_reads) */
	[UNCORE_IMC] = { { "cas_count_read", "cas_count_write" },
			 { "data_reads", "data_writes" } },
};

static int from_aliases(const char *root, const char *pmu,
			enum uncore_family f, struct uncore_event *ev)
{
	char path[512];
	int a, k;

	for (a = 0; a < 2 && aliases[f][a][0]; a++) {
		for (k = 0; k < 2; k++) {
			snprintf(path, sizeof(path),
				 "/sys/bus/event_source/devices/%s/events/%s",
				 pmu, aliases[f][a][k]);
			if (bwapd_read_text(root, path, ev[k].terms,
					    sizeof(ev[k].terms)))
				break;
			ev[k].name = aliases[f][a][k];
			ev[k].dir = k ? UNCORE_WRITE : UNCORE_READ;
			ev[k].scale = bytes_per_count(root, pmu, ev[k].name);
		}
		if (k == 2)
			return 2;
	}
	return 0;
}

static int zen4(const struct uncore_cpu *c)
{
	return c->amd && c->family == 0x19 &&
	       !(c->model < 0x10 || (c->model >= 0x20 && c->model < 0x60));
}

static void raw(struct uncore_event *e, const char *name, enum uncore_dir d,
		const char *fmt, unsigned int code, unsigned int umask)
{
	e->name = name;
	e->dir = d;
	e->scale = LINE;
	snprintf(e->terms, sizeof(e->terms), fmt, code, umask);
}

/* The documented encodings (see the top of this file). */
static int from_docs(enum uncore_family f, const struct uncore_cpu *c,
		     struct uncore_event *ev, int max)
{
	static const unsigned int zen4_umask[4] = { 0x7fe, 0x7ff, 0xbfe, 0xbff };
	int n = 0, i, k;

	if (f == UNCORE_IMC && c->intel && c->family == 6 && c->model == 143) {
		raw(&ev[0], "UNC_M_CAS_COUNT.RD", UNCORE_READ,
		    "event=0x%02x,umask=0x%02x", 0x05, 0xcf);
		raw(&ev[1], "UNC_M_CAS_COUNT.WR", UNCORE_WRITE,
		    "event=0x%02x,umask=0x%02x", 0x05, 0xf0);
		return 2;
	}
	if (f == UNCORE_UMC && c->amd) {
		raw(&ev[0], "umc_cas_cmd.rd", UNCORE_READ,
		    "event=0x%02x,rdwrmask=0x%x", 0x0a, 1);
		raw(&ev[1], "umc_cas_cmd.wr", UNCORE_WRITE,
		    "event=0x%02x,rdwrmask=0x%x", 0x0a, 2);
		return 2;
	}
	if (f != UNCORE_DF || !c->amd || (c->family != 0x17 && c->family != 0x19))
		return 0;
	if (!zen4(c)) {
		for (i = 0; i < 8 && n < max; i++)
			raw(&ev[n++], "dram_channel_data_controller", UNCORE_BOTH,
			    "event=0x%x,umask=0x%02x", 0x07 + 0x40 * i, 0x38);
		return n;
	}
	for (i = 0; i < 12; i++)
		for (k = 0; k < 4 && n < max; k++)
			raw(&ev[n++], k & 1 ? "write_data_beats_cs" :
			    "read_data_beats_cs", k & 1 ? UNCORE_WRITE : UNCORE_READ,
			    "event=0x%x,umask=0x%x", 0x1f + 0x40 * i,
			    zen4_umask[k]);
	return n;
}

int uncore_events(const char *root, const char *pmu, enum uncore_family f,
		  const struct uncore_cpu *cpu, struct uncore_event *ev,
		  int max, const char **source)
{
	int n = from_aliases(root, pmu, f, ev), i;

	*source = "sysfs aliases (events/NAME, NAME.scale, NAME.unit)";
	if (!n) {
		n = from_docs(f, cpu, ev, max);
		*source = f == UNCORE_IMC ?
			"documented: sapphirerapids/uncore-memory.json" :
			f == UNCORE_UMC ?
			"documented: amdzen4/memory-controller.json" :
			zen4(cpu) ? "documented: amdzen4/data-fabric.json" :
			"documented: amdzen1-3/data-fabric.json";
	}
	for (i = 0; i < n; i++) {
		int ret = uncore_encode(root, pmu, ev[i].terms, ev[i].config);

		if (ret)
			return ret == -ENOENT ? -ENOENT : -EINVAL;
	}
	return n;
}

/*
 * Sub-NUMA clustering: perf's tables (tools/perf/arch/x86/util/pmu.c,
 * uncore_imc_snc(), Linux 6.12): with two clusters per package
 * uncore_imc_N counts cluster { 0, 0, 1, 1 }[N % 4] on Sapphire and
 * Emerald Rapids (models 143, 207), { 1, 1, 0, 0 }[N % 4] on Granite
 * Rapids (173); with three (Granite Rapids), { 1, 1, 0, 0, 2, 2 }[N % 6].
 * Other CPUs and families: not known.
 */
int uncore_snc_cluster(const struct uncore_cpu *cpu, enum uncore_family f,
		       int index, int k)
{
	static const int spr2[4] = { 0, 0, 1, 1 }, gnr2[4] = { 1, 1, 0, 0 };
	static const int snc3[6] = { 1, 1, 0, 0, 2, 2 };

	if (f != UNCORE_IMC || !cpu->intel || cpu->family != 6 || index < 0)
		return -1;
	if (k == 2 && (cpu->model == 143 || cpu->model == 207))
		return spr2[index % 4];
	if (k == 2 && cpu->model == 173)
		return gnr2[index % 4];
	if (k == 3 && cpu->model == 173)
		return snc3[index % 6];
	return -1;
}
