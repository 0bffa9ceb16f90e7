// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's weighted-interleave weights in sysfs: the default row, the
 * rows of the CPU nodes and the switches, read and written below a root
 * so that tests can point them at a tree of their own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kweights.h"

/* BWAPD_WEIGHTS_DIR's file name, or initiatorC/name for row C. */
static void row_path(char *buf, size_t len, int row, const char *name)
{
	if (row == BWAPD_DEFAULT_ROW)
		snprintf(buf, len, "%s/%s", BWAPD_WEIGHTS_DIR, name);
	else
		snprintf(buf, len, "%s/initiator%d/%s", BWAPD_WEIGHTS_DIR, row,
			 name);
}

/* Write text to root/path, an attribute that exists: 0 or -errno. */
static int write_attr(const char *root, const char *path, const char *text)
{
	char full[4096];
	FILE *f;
	int ret = 0;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "r+");
	if (!f)
		return -errno;
	if (fputs(text, f) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

int bwapd_weight_write(const char *root, int row, int node, uint8_t w)
{
	char path[256], name[32], text[8];

	snprintf(name, sizeof(name), "node%d", node);
	row_path(path, sizeof(path), row, name);
	snprintf(text, sizeof(text), "%u\n", w);
	return write_attr(root, path, text);
}

int bwapd_weights_read(const char *root, int row, uint8_t *w, int nr)
{
	char path[256], name[32], buf[16];
	struct stat st;
	int i;

	memset(w, 0, (size_t)nr);
	if (row != BWAPD_DEFAULT_ROW) {
		char dir[4096];

		snprintf(dir, sizeof(dir), "%s%s/initiator%d", root,
			 BWAPD_WEIGHTS_DIR, row);
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			return -ENOENT;
	}
	for (i = 0; i < nr && i < BWAPD_MAX_NODES; i++) {
		snprintf(name, sizeof(name), "node%d", i);
		row_path(path, sizeof(path), row, name);
		if (!bwapd_read_text(root, path, buf, sizeof(buf)))
			w[i] = (uint8_t)atoi(buf);
	}
	return 0;
}

int bwapd_weights_write(const char *root, const uint8_t *w, int nr,
			char *why, size_t len)
{
	uint8_t old[BWAPD_MAX_NODES];
	int i, j, ret;

	if (nr > BWAPD_MAX_NODES)
		return -EINVAL;
	/* what to put back if a later node fails */
	bwapd_weights_read(root, BWAPD_DEFAULT_ROW, old, nr);
	for (i = 0; i < nr; i++) {
		ret = w[i] ? bwapd_weight_write(root, BWAPD_DEFAULT_ROW, i, w[i]) : 0;
		if (!ret)
			continue;
		for (j = 0; j < i; j++)
			if (w[j] && old[j])
				bwapd_weight_write(root, BWAPD_DEFAULT_ROW, j, old[j]);
		snprintf(why, len, "%s%s/node%d: %s%s%s", root,
			 BWAPD_WEIGHTS_DIR, i, strerror(-ret),
			 ret == -EACCES ? " (the global weights are root's)" :
			 ret == -ENOENT && !i ? " (a kernel without weighted "
			 "interleave has no global weights)" : "",
			 i ? "; the weights written before it are back" : "");
		return ret;
	}
	return 0;
}

/* What kstrtobool() takes: y/n, t/f, 1/0, on/off. */
static int parse_bool(const char *s)
{
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		return 1;
	case 'n': case 'N': case 'f': case 'F': case '0':
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N')
			return 1;
		if (s[1] == 'f' || s[1] == 'F')
			return 0;
	}
	return -EINVAL;
}

int bwapd_switch_read(const char *root, const char *name)
{
	char path[256], buf[16];
	int ret;

	row_path(path, sizeof(path), BWAPD_DEFAULT_ROW, name);
	ret = bwapd_read_text(root, path, buf, sizeof(buf));
	return ret ? ret : parse_bool(buf);
}

int bwapd_switch_write(const char *root, const char *name, int on)
{
	char path[256];

	row_path(path, sizeof(path), BWAPD_DEFAULT_ROW, name);
	return write_attr(root, path, on ? "true\n" : "false\n");
}
