// SPDX-License-Identifier: GPL-2.0
/*
 * The canonical-weights file (JSON, Documentation/bwapd.md): the
 * machine's identity, then one entry per worker set.  Written to a
 * temporary file and renamed, so a reader never sees half a file.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "trust.h"
#include "wfile.h"

static json_object *int_array(const int *v, int n)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int(v[i]));
	return a;
}

static json_object *double_array(const double *v, int n)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_double(v[i]));
	return a;
}

static json_object *machine_json(const struct bwapd_topology *t)
{
	json_object *m = json_object_new_object(), *d;
	int cpus[BWAPD_MAX_NODES], mib[BWAPD_MAX_NODES], i;
	char hex[24];

	snprintf(hex, sizeof(hex), "%016" PRIx64, bwapd_topology_id(t));
	json_object_object_add(m, "id", json_object_new_string(hex));
	snprintf(hex, sizeof(hex), "%016" PRIx64, bwapd_distance_hash(t));
	json_object_object_add(m, "distance_hash", json_object_new_string(hex));
	json_object_object_add(m, "nodes", json_object_new_int(t->nr_nodes));
	json_object_object_add(m, "cpu_model",
			       json_object_new_string(t->cpu_model));
	for (i = 0; i < t->nr_nodes; i++) {
		cpus[i] = t->node[i].nr_cpus;
		mib[i] = (int)(t->node[i].mem_bytes >> 20);
	}
	json_object_object_add(m, "cpus", int_array(cpus, t->nr_nodes));
	json_object_object_add(m, "memory_mib", int_array(mib, t->nr_nodes));
	d = json_object_new_array();
	for (i = 0; i < t->nr_nodes; i++)
		json_object_array_add(d, int_array(t->node[i].distance,
						   t->nr_nodes));
	json_object_object_add(m, "distances", d);
	return m;
}

static json_object *result_json(const struct bwapd_result *r, int n)
{
	json_object *o = json_object_new_object();
	int w[BWAPD_MAX_NODES], i;
	char buf[64];

	json_object_object_add(o, "workers", json_object_new_string(
		bwapd_nodelist_format(r->workers, buf, sizeof(buf))));
	json_object_object_add(o, "source",
			       json_object_new_string(bwapd_source_name(r->source)));
	if (r->same_as != r->workers)
		json_object_object_add(o, "same_as", json_object_new_string(
			bwapd_nodelist_format(r->same_as, buf, sizeof(buf))));
	json_object_object_add(o, "seconds", json_object_new_double(r->seconds));
	json_object_object_add(o, "minbw", double_array(r->minbw, n));
	json_object_object_add(o, "fractions", double_array(r->frac, n));
	for (i = 0; i < n; i++)
		w[i] = r->weights[i];
	json_object_object_add(o, "weights", int_array(w, n));
	json_object_object_add(o, "cycle", json_object_new_int(r->cycle));
	json_object_object_add(o, "max_error", json_object_new_double(r->u8_err));
	return o;
}

int bwapd_file_init(struct bwapd_file *f, int max)
{
	memset(f, 0, sizeof(*f));
	if (max <= 0)
		return 0;
	f->result = calloc((size_t)max, sizeof(*f->result));
	return f->result ? 0 : -ENOMEM;
}

void bwapd_file_free(struct bwapd_file *f)
{
	free(f->result);
	f->result = NULL;
	f->nr_results = 0;
	free(f->model);
	f->model = NULL;
}

int bwapd_file_dir(const char *path, char *why, size_t len)
{
	char dir[4096], *slash;
	struct stat st;
	int ret;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = 0;
	/* the default's directory is bwapd's own; another is the admin's */
	if (!strcmp(path, BWAPD_DEFAULT_FILE))
		ret = bwapd_mkdirs(dir);
	else
		ret = stat(dir, &st) ? -errno : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (ret)
		snprintf(why, len, "%s: %s (the directory of the weights file "
			 "must exist)", dir, strerror(-ret));
	return ret;
}

int bwapd_file_write(const char *path, const struct bwapd_topology *t,
		     const struct bwapd_file *f, char *why, size_t len)
{
	json_object *root = json_object_new_object(), *sets, *skip;
	char tmp[4200];
	const char *text;
	FILE *out;
	int i, ret;

	json_object_object_add(root, "format",
			       json_object_new_string(BWAPD_FILE_FORMAT));
	json_object_object_add(root, "version",
			       json_object_new_int(BWAPD_FILE_VERSION));
	json_object_object_add(root, "machine", machine_json(t));
	json_object_object_add(root, "backend",
			       json_object_new_string(f->backend));
	json_object_object_add(root, "created",
			       json_object_new_string(f->created));
	skip = json_object_new_object();
	json_object_object_add(skip, "symmetric",
			       json_object_new_int(f->nr_symmetric));
	json_object_object_add(skip, "spread", json_object_new_int(f->nr_spread));
	json_object_object_add(root, "skipped", skip);
	sets = json_object_new_array();
	for (i = 0; i < f->nr_results; i++)
		json_object_array_add(sets, result_json(&f->result[i],
							 t->nr_nodes));
	json_object_object_add(root, "worker_sets", sets);
	if (f->model) {
		json_object_object_add(root, "model", bwapd_mm_model_json(f->model));
		json_object_object_add(root, "model_figures",
				       bwapd_mm_figures_json(f->model));
	}
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_SPACED);

	ret = bwapd_file_dir(path, why, len);
	if (ret) {
		json_object_put(root);
		return ret;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	out = fopen(tmp, "w");
	/* trusted when read back: not writable by group or others */
	if (out && fchmod(fileno(out), 0644)) {
		int err = errno;

		fclose(out);
		unlink(tmp);
		out = NULL;
		errno = err;
	}
	if (!out) {
		ret = ret ? ret : -errno;
		snprintf(why, len, "%s: %s", ret == -errno ? tmp : path,
			 strerror(-ret));
		json_object_put(root);
		return ret;
	}
	if (fprintf(out, "%s\n", text) < 0 || fflush(out) || fsync(fileno(out)))
		ret = -errno;
	if (fclose(out) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		snprintf(why, len, "%s: %s", path, strerror(-ret));
		unlink(tmp);
	}
	json_object_put(root);
	return ret;
}

/* ---- reading ---- */

/*
 * The errors of the reader name the file, the line and column, the field
 * and what was expected, as the model's parsers do (bwm_error_format).
 */
static int fail(char *why, size_t len, const char *path, struct bwm_error *err)
{
	bwm_error_format(err, path, why, len);
	return -EINVAL;
}

static int get(json_object *o, const char *key, json_type type,
	       json_object **out)
{
	return json_object_object_get_ex(o, key, out) &&
	       json_object_is_type(*out, type);
}

/* prefix.key: n numbers in [lo, hi] (whole ones if whole), into out[]. */
static int number_array(const char *text, json_object *o, const char *prefix,
			const char *key, int n, double lo, double hi, int whole,
			double *out, struct bwm_error *err)
{
	char path[96], item[112];
	json_object *a;
	int i;

	snprintf(path, sizeof(path), "%s.%s", prefix, key);
	if (!json_object_object_get_ex(o, key, &a))
		return bwm_json_fail(err, text, path, "missing (%d numbers, one "
				     "per node)", n);
	if (!json_object_is_type(a, json_type_array) ||
	    (int)json_object_array_length(a) != n)
		return bwm_json_fail(err, text, path, "want %d numbers, one per "
				     "node", n);
	for (i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(a, i);

		snprintf(item, sizeof(item), "%s[%d]", path, i);
		if (!json_object_is_type(v, json_type_int) &&
		    !json_object_is_type(v, json_type_double))
			return bwm_json_fail(err, text, item, "not a number");
		out[i] = json_object_get_double(v);
		if (!(out[i] >= lo && out[i] <= hi))
			return bwm_json_fail(err, text, item, "%g is out of "
					     "range [%g, %g]", out[i], lo, hi);
		if (whole && out[i] != (int)out[i])
			return bwm_json_fail(err, text, item, "%g is not a whole "
					     "number", out[i]);
	}
	return 0;
}

/* prefix.key: a node list of nodes below n, into *mask. */
static int nodelist(const char *text, json_object *o, const char *prefix,
		    const char *key, int n, uint32_t *mask,
		    struct bwm_error *err)
{
	char path[96];
	json_object *v;
	const char *s;

	snprintf(path, sizeof(path), "%s.%s", prefix, key);
	if (!json_object_object_get_ex(o, key, &v))
		return bwm_json_fail(err, text, path, "missing (a node list "
				     "such as \"0-1\")");
	s = json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : NULL;
	if (!s || bwapd_nodelist_parse(s, mask))
		return bwm_json_fail(err, text, path, "not a node list such as "
				     "\"0-1\"");
	if (*mask >> n)
		return bwm_json_fail(err, text, path, "\"%s\" names a node the "
				     "machine does not have (nodes 0-%d)", s,
				     n - 1);
	return 0;
}

static int read_result(const char *text, json_object *o, int i, int n,
		       struct bwapd_result *r, struct bwm_error *err)
{
	char prefix[32];
	json_object *v;
	double w[BWAPD_MAX_NODES];
	const char *s;
	int j;

	memset(r, 0, sizeof(*r));
	snprintf(prefix, sizeof(prefix), "worker_sets[%d]", i);
	if (!json_object_is_type(o, json_type_object))
		return bwm_json_fail(err, text, prefix, "not an object");
	if (nodelist(text, o, prefix, "workers", n, &r->workers, err))
		return -EINVAL;
	r->same_as = r->workers;
	if (json_object_object_get_ex(o, "same_as", NULL) &&
	    nodelist(text, o, prefix, "same_as", n, &r->same_as, err))
		return -EINVAL;
	s = get(o, "source", json_type_string, &v) ? json_object_get_string(v) : "";
	for (j = BWAPD_SRC_COUNTERS; j <= BWAPD_SRC_SLIT; j++)
		if (!strcmp(s, bwapd_source_name(j)))
			break;
	if (j > BWAPD_SRC_SLIT) {
		char path[64];

		snprintf(path, sizeof(path), "%s.source", prefix);
		return bwm_json_fail(err, text, path, "want \"%s\", \"%s\" or \"%s\"",
				     bwapd_source_name(BWAPD_SRC_COUNTERS),
				     bwapd_source_name(BWAPD_SRC_HMAT),
				     bwapd_source_name(BWAPD_SRC_SLIT));
	}
	r->source = j;
	if (json_object_object_get_ex(o, "seconds", &v))
		r->seconds = json_object_get_double(v);
	if (number_array(text, o, prefix, "minbw", n, 0, 1e9, 0, r->minbw, err) ||
	    number_array(text, o, prefix, "fractions", n, 0, 1, 0, r->frac, err) ||
	    number_array(text, o, prefix, "weights", n, 0, 255, 1, w, err))
		return -EINVAL;
	for (j = 0; j < n; j++) {
		r->weights[j] = (uint8_t)w[j];
		r->cycle += r->weights[j];
	}
	if (!r->cycle) {
		char path[64];

		snprintf(path, sizeof(path), "%s.weights", prefix);
		return bwm_json_fail(err, text, path, "all 0: some node needs "
				     "a weight");
	}
	if (json_object_object_get_ex(o, "max_error", &v))
		r->u8_err = json_object_get_double(v);
	return 0;
}

static int stale(const struct bwapd_topology *t, json_object *m,
		 const char *path, char *why, size_t len)
{
	json_object *v;
	char hex[24];

	if (get(m, "nodes", json_type_int, &v) &&
	    json_object_get_int(v) != t->nr_nodes) {
		snprintf(why, len, "%s: made for a machine with %d nodes, this one has %d",
			 path, json_object_get_int(v), t->nr_nodes);
		return -ESTALE;
	}
	snprintf(hex, sizeof(hex), "%016" PRIx64, bwapd_distance_hash(t));
	if (get(m, "distance_hash", json_type_string, &v) &&
	    strcmp(json_object_get_string(v), hex)) {
		snprintf(why, len, "%s: made for other node distances (SLIT)",
			 path);
		return -ESTALE;
	}
	if (get(m, "cpu_model", json_type_string, &v) &&
	    strcmp(json_object_get_string(v), t->cpu_model)) {
		snprintf(why, len, "%s: made on \"%s\", this machine has \"%s\"",
			 path, json_object_get_string(v), t->cpu_model);
		return -ESTALE;
	}
	snprintf(hex, sizeof(hex), "%016" PRIx64, bwapd_topology_id(t));
	if (!get(m, "id", json_type_string, &v) ||
	    strcmp(json_object_get_string(v), hex)) {
		snprintf(why, len,
			 "%s: made on a machine with other CPUs or memory per node",
			 path);
		return -ESTALE;
	}
	return 0;
}

int bwapd_file_read(const char *path, const struct bwapd_topology *t,
		    struct bwapd_file *f, char *why, size_t len)
{
	struct bwm_error err = { 0 };
	json_object *root = NULL, *v, *m, *sets;
	char *text;
	FILE *in;
	int i, n, ret, fd;

	memset(f, 0, sizeof(*f));
	fd = bwapd_open_trusted(path, why, len);
	if (fd < 0) {
		if (fd == -ENOENT)
			snprintf(why, len, "%s: %s (run \"bwapd profile\" first)",
				 path, strerror(ENOENT));
		return fd;
	}
	in = fdopen(fd, "r");
	if (!in)
		close(fd);
	text = in ? bwm_read_stream(in) : NULL;
	if (!text) {
		ret = -errno;
		snprintf(why, len, "%s: %s", path, ret == -EINVAL ?
			 "not a text file (a NUL byte)" : strerror(-ret));
		return ret;
	}
	ret = -EINVAL;
	if (bwm_json_parse(text, &root, &err)) {
		fail(why, len, path, &err);
		goto out;
	}
	if (!get(root, "format", json_type_string, &v) ||
	    strcmp(json_object_get_string(v), BWAPD_FILE_FORMAT)) {
		bwm_json_fail(&err, text, "format", "not a canonical-weights file "
			      "(want \"%s\")", BWAPD_FILE_FORMAT);
		fail(why, len, path, &err);
		goto out;
	}
	if (!get(root, "version", json_type_int, &v) ||
	    json_object_get_int(v) != BWAPD_FILE_VERSION) {
		bwm_json_fail(&err, text, "version", "unknown version (this bwapd "
			      "reads %d)", BWAPD_FILE_VERSION);
		fail(why, len, path, &err);
		goto out;
	}
	if (!get(root, "machine", json_type_object, &m)) {
		bwm_json_fail(&err, text, "machine", "missing (an object)");
		fail(why, len, path, &err);
		goto out;
	}
	ret = stale(t, m, path, why, len);
	if (ret)
		goto out;
	ret = -EINVAL;
	f->nr_nodes = t->nr_nodes;
	f->topology_id = bwapd_topology_id(t);
	f->distance_hash = bwapd_distance_hash(t);
	snprintf(f->cpu_model, sizeof(f->cpu_model), "%s", t->cpu_model);
	if (get(root, "backend", json_type_string, &v))
		snprintf(f->backend, sizeof(f->backend), "%s",
			 json_object_get_string(v));
	if (get(root, "created", json_type_string, &v))
		snprintf(f->created, sizeof(f->created), "%s",
			 json_object_get_string(v));
	if (get(root, "skipped", json_type_object, &m)) {
		if (get(m, "symmetric", json_type_int, &v))
			f->nr_symmetric = json_object_get_int(v);
		if (get(m, "spread", json_type_int, &v))
			f->nr_spread = json_object_get_int(v);
	}
	if (!get(root, "worker_sets", json_type_array, &sets)) {
		bwm_json_fail(&err, text, "worker_sets", "missing (an array)");
		fail(why, len, path, &err);
		goto out;
	}
	n = (int)json_object_array_length(sets);
	if (n > BWAPD_MAX_SETS) {
		bwm_json_fail(&err, text, "worker_sets", "more than %d entries",
			      BWAPD_MAX_SETS);
		fail(why, len, path, &err);
		goto out;
	}
	if (n && !(f->result = calloc((size_t)n, sizeof(*f->result)))) {
		snprintf(why, len, "%s: %s", path, strerror(ENOMEM));
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (read_result(text, json_object_array_get_idx(sets, i), i,
				t->nr_nodes, &f->result[i], &err)) {
			fail(why, len, path, &err);
			goto out;
		}
	}
	f->nr_results = n;
	/* the machine's model, where the file has one */
	if (json_object_object_get_ex(root, "model", &m)) {
		char msg[256];

		f->model = malloc(sizeof(*f->model));
		if (!f->model) {
			snprintf(why, len, "%s: %s", path, strerror(ENOMEM));
			ret = -ENOMEM;
			goto out;
		}
		if (!json_object_object_get_ex(root, "model_figures", &v))
			v = NULL;
		if (bwapd_mm_from_json(m, v, t->nr_nodes, f->model, msg,
				       sizeof(msg))) {
			bwm_json_fail(&err, text, "model", "%s", msg);
			fail(why, len, path, &err);
			goto out;
		}
	}
	ret = 0;
out:
	if (ret)
		bwapd_file_free(f);
	json_object_put(root);
	free(text);
	return ret;
}

const struct bwapd_result *bwapd_file_find(const struct bwapd_file *f,
					   uint32_t workers)
{
	int i;

	for (i = 0; i < f->nr_results; i++)
		if (f->result[i].workers == workers)
			return &f->result[i];
	return NULL;
}
