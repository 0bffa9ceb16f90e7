// SPDX-License-Identifier: GPL-2.0
/*
 * What every tuner is doing, for "bwapd status": each tuner keeps a small
 * JSON file per target in the run directory (/run/bwapd), rewritten after
 * every step (a temporary file renamed over it) and removed when it stops.
 * A file whose tuner is gone is stale: listed as such, never trusted.
 */
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "status.h"

static void entry_path(const char *dir, const struct bwapd_status *s,
		       char *buf, size_t len)
{
	if (s->pid)
		snprintf(buf, len, "%s/%d.json", dir, (int)s->pid);
	else
		snprintf(buf, len, "%s/model-%d.json", dir, (int)s->tuner);
}

void bwapd_status_step(struct bwapd_status *s, const struct bwapd_tune_step *st)
{
	s->dwp = st->dwp;
	if (st->stall_rate >= 0)
		s->stalls = st->stall_rate;
	s->steps = st->step;
	s->moved += st->migration.moved;
	memcpy(s->weights, st->weights, sizeof(s->weights));
}

int bwapd_status_write(const char *dir, const struct bwapd_status *s)
{
	char path[4096], tmp[4200];
	json_object *o, *w;
	const char *text;
	FILE *f;
	int j, ret = 0;

	ret = bwapd_mkdirs(dir);
	if (ret)
		return ret;
	entry_path(dir, s, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	o = json_object_new_object();
	json_object_object_add(o, "pid", json_object_new_int(s->pid));
	json_object_object_add(o, "tuner", json_object_new_int(s->tuner));
	json_object_object_add(o, "command", json_object_new_string(s->command));
	json_object_object_add(o, "unit", json_object_new_string(s->unit));
	json_object_object_add(o, "cgroup", json_object_new_string(s->cgroup));
	json_object_object_add(o, "target", json_object_new_string(s->target));
	json_object_object_add(o, "placement",
			       json_object_new_string(s->placement));
	json_object_object_add(o, "workers", json_object_new_string(s->workers));
	json_object_object_add(o, "state", json_object_new_string(s->state));
	json_object_object_add(o, "dwp", json_object_new_double(s->dwp));
	json_object_object_add(o, "metric", json_object_new_string(s->metric));
	json_object_object_add(o, "stalls", json_object_new_double(s->stalls));
	json_object_object_add(o, "steps", json_object_new_int(s->steps));
	json_object_object_add(o, "pages_moved",
			       json_object_new_int64((int64_t)s->moved));
	json_object_object_add(o, "tunings", json_object_new_int(s->tunings));
	json_object_object_add(o, "updated",
			       json_object_new_int64((int64_t)s->updated));
	w = json_object_new_array();
	for (j = 0; j < s->nr_nodes; j++)
		json_object_array_add(w, json_object_new_int(s->weights[j]));
	json_object_object_add(o, "weights", w);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	f = fopen(tmp, "w");
	if (!f) {
		ret = -errno;
	} else {
		if (fprintf(f, "%s\n", text) < 0)
			ret = -EIO;
		if (fclose(f) && !ret)
			ret = -errno;
		if (!ret && rename(tmp, path))
			ret = -errno;
		if (ret)
			unlink(tmp);
	}
	json_object_put(o);
	return ret;
}

void bwapd_status_remove(const char *dir, const struct bwapd_status *s)
{
	char path[4096];

	entry_path(dir, s, path, sizeof(path));
	unlink(path);
}

static void get_str(json_object *o, const char *key, char *buf, size_t len)
{
	json_object *v;

	buf[0] = 0;
	if (json_object_object_get_ex(o, key, &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(buf, len, "%s", json_object_get_string(v));
}

static double get_num(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       json_object_get_double(v) : 0;
}

static int parse_entry(const char *path, struct bwapd_status *s)
{
	json_object *o = json_object_from_file(path), *w;
	int j;

	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -EINVAL;
	}
	memset(s, 0, sizeof(*s));
	s->pid = (pid_t)get_num(o, "pid");
	s->tuner = (pid_t)get_num(o, "tuner");
	get_str(o, "command", s->command, sizeof(s->command));
	get_str(o, "unit", s->unit, sizeof(s->unit));
	get_str(o, "cgroup", s->cgroup, sizeof(s->cgroup));
	get_str(o, "target", s->target, sizeof(s->target));
	get_str(o, "placement", s->placement, sizeof(s->placement));
	get_str(o, "workers", s->workers, sizeof(s->workers));
	get_str(o, "state", s->state, sizeof(s->state));
	get_str(o, "metric", s->metric, sizeof(s->metric));
	s->dwp = get_num(o, "dwp");
	s->stalls = get_num(o, "stalls");
	s->steps = (int)get_num(o, "steps");
	s->moved = (uint64_t)get_num(o, "pages_moved");
	s->tunings = (int)get_num(o, "tunings");
	s->updated = (time_t)get_num(o, "updated");
	if (json_object_object_get_ex(o, "weights", &w) &&
	    json_object_is_type(w, json_type_array)) {
		s->nr_nodes = (int)json_object_array_length(w);
		if (s->nr_nodes > BWAPD_MAX_NODES)
			s->nr_nodes = BWAPD_MAX_NODES;
		for (j = 0; j < s->nr_nodes; j++)
			s->weights[j] = (uint8_t)json_object_get_int(
				json_object_array_get_idx(w, (size_t)j));
	}
	json_object_put(o);
	return s->tuner > 0 ? 0 : -EINVAL;
}

static int cmp_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int bwapd_status_list(const char *dir, struct bwapd_status *out, int max)
{
	struct dirent **ents;
	int i, n, nr = 0;

	n = scandir(dir, &ents, NULL, cmp_name);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		size_t l = strlen(name);
		char path[4096];

		if (nr < max && l > 5 && !strcmp(name + l - 5, ".json")) {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			if (!parse_entry(path, &out[nr])) {
				/* a tuner that died without cleaning up */
				out[nr].stale = kill(out[nr].tuner, 0) &&
						errno == ESRCH;
				nr++;
			}
		}
		free(ents[i]);
	}
	free(ents);
	return nr;
}
