// SPDX-License-Identifier: GPL-2.0
/*
 * JSON helpers: json-c does the parsing; a small scanner finds the line of
 * a value by its path, so that errors found after parsing (a bad field)
 * still point at the line in the file.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define PATH_MAX_SEGS	8
#define SCAN_MAX_DEPTH	32

struct seg {
	const char *key;	/* NULL for an index */
	int keylen;
	int idx;
};

static int split_path(const char *path, struct seg *segs)
{
	int n = 0;
	const char *p = path;

	while (*p && n < PATH_MAX_SEGS) {
		if (*p == '.') {
			p++;
			continue;
		}
		if (*p == '[') {
			segs[n].key = NULL;
			segs[n].keylen = 0;
			segs[n].idx = atoi(p + 1);
			n++;
			p = strchr(p, ']');
			if (!p)
				break;
			p++;
			continue;
		}
		segs[n].key = p;
		segs[n].idx = -1;
		while (*p && *p != '.' && *p != '[')
			p++;
		segs[n].keylen = (int)(p - segs[n].key);
		n++;
	}
	return n;
}

struct frame {
	char type;		/* '{' or '[' */
	int idx;
	const char *key;
	int keylen;
};

static bool path_matches(const struct frame *st, int depth,
			 const struct seg *segs, int nsegs)
{
	int i;

	if (depth != nsegs)
		return false;
	for (i = 0; i < depth; i++) {
		if (segs[i].key) {
			if (st[i].type != '{' || !st[i].key ||
			    st[i].keylen != segs[i].keylen ||
			    memcmp(st[i].key, segs[i].key, segs[i].keylen))
				return false;
		} else if (st[i].type != '[' || st[i].idx != segs[i].idx) {
			return false;
		}
	}
	return true;
}

/* Scan text for the start of the value at segs; 1 if found. */
static int scan(const char *text, const struct seg *segs, int nsegs,
		int *line, int *col)
{
	struct frame st[SCAN_MAX_DEPTH];
	int depth = 0, l = 1, c = 1;
	bool want_key = false;
	const char *p = text;

	while (*p) {
		char ch = *p;

		if (ch == '\n') {
			l++;
			c = 1;
			p++;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == ':') {
			p++;
			c++;
			continue;
		}
		if (ch == ',') {
			if (depth && st[depth - 1].type == '[')
				st[depth - 1].idx++;
			else
				want_key = true;
			p++;
			c++;
			continue;
		}
		if (ch == '}' || ch == ']') {
			if (depth)
				depth--;
			want_key = false;
			p++;
			c++;
			continue;
		}
		if (ch == '"' && want_key && depth) {
			const char *s = ++p;

			while (*p && *p != '"') {
				if (*p == '\\' && p[1])
					p++;
				p++;
			}
			st[depth - 1].key = s;
			st[depth - 1].keylen = (int)(p - s);
			c += (int)(p - s) + 2;
			if (*p)
				p++;
			want_key = false;
			continue;
		}
		/* The start of a value. */
		if (path_matches(st, depth, segs, nsegs)) {
			*line = l;
			*col = c;
			return 1;
		}
		if (ch == '{' || ch == '[') {
			if (depth == SCAN_MAX_DEPTH)
				return 0;
			st[depth].type = ch;
			st[depth].idx = 0;
			st[depth].key = NULL;
			st[depth].keylen = 0;
			depth++;
			want_key = ch == '{';
			p++;
			c++;
			continue;
		}
		if (ch == '"') {
			p++;
			c++;
			while (*p && *p != '"' && *p != '\n') {
				if (*p == '\\' && p[1]) {
					p++;
					c++;
				}
				p++;
				c++;
			}
			if (*p == '"') {
				p++;
				c++;
			}
			continue;
		}
		while (*p && !strchr(",]}\n \t\r", *p)) {
			p++;
			c++;
		}
	}
	return 0;
}

void bwm_json_locate(const char *text, const char *path, int *line, int *col)
{
	struct seg segs[PATH_MAX_SEGS];
	int n = split_path(path, segs);

	*line = 0;
	*col = 0;
	/* A missing field: point at the object that should hold it. */
	for (; n >= 0; n--)
		if (scan(text, segs, n, line, col))
			return;
}

int bwm_json_fail(struct bwm_error *err, const char *text, const char *path,
		  const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -EINVAL;
	snprintf(err->field, sizeof(err->field), "%s", path);
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (text)
		bwm_json_locate(text, path, &err->line, &err->column);
	else
		err->line = err->column = 0;
	return -EINVAL;
}

const char *bwm_error_format(const struct bwm_error *err, const char *file,
			     char *buf, size_t len)
{
	char where[64] = "";

	if (err->line > 0)
		snprintf(where, sizeof(where), ":%d:%d", err->line,
			 err->column);
	snprintf(buf, len, "%s%s: %s%s%s", file ? file : "<input>", where,
		 err->field, err->field[0] ? ": " : "", err->msg);
	return buf;
}

int bwm_json_parse(const char *text, struct json_object **out,
		   struct bwm_error *err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj;
	enum json_tokener_error jerr;
	size_t len = strlen(text), off, i;
	int line = 1, col = 1;

	if (!tok)
		return -ENOMEM;
	obj = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	off = json_tokener_get_parse_end(tok);
	if (!obj && jerr == json_tokener_continue) {
		off = len;
		jerr = json_tokener_error_parse_eof;
	}
	/* Only white space may follow the document. */
	if (obj && jerr == json_tokener_success) {
		for (i = off; i < len; i++)
			if (!strchr(" \t\r\n", text[i]))
				break;
		if (i < len) {
			json_object_put(obj);
			obj = NULL;
			off = i;
		}
	}
	json_tokener_free(tok);
	if (obj) {
		*out = obj;
		return 0;
	}
	for (i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (err) {
		err->line = line;
		err->column = col;
		err->field[0] = '\0';
		snprintf(err->msg, sizeof(err->msg), "JSON syntax error: %s",
			 jerr == json_tokener_success ?
			 "text after the end of the document" :
			 json_tokener_error_desc(jerr));
	}
	return -EINVAL;
}

int bwm_json_number(const char *text, struct json_object *obj,
		    const char *prefix, const char *key, bool required,
		    double def, double lo, double hi, double *out,
		    struct bwm_error *err)
{
	struct json_object *v;
	char path[96];
	double d;

	snprintf(path, sizeof(path), "%s%s%s", prefix ? prefix : "",
		 prefix && prefix[0] ? "." : "", key);
	if (!json_object_object_get_ex(obj, key, &v) || !v) {
		if (required)
			return bwm_json_fail(err, text, path,
					     "missing (a number is required)");
		*out = def;
		return 0;
	}
	if (!json_object_is_type(v, json_type_double) &&
	    !json_object_is_type(v, json_type_int))
		return bwm_json_fail(err, text, path, "not a number");
	d = json_object_get_double(v);
	if (!isfinite(d) || d < lo || d > hi)
		return bwm_json_fail(err, text, path,
				     "%g is out of range [%g, %g]", d, lo, hi);
	*out = d;
	return 0;
}

int bwm_json_array_object(const char *text, struct json_object *arr,
			  const char *name, size_t i,
			  const char *const *keys, char *path, size_t len,
			  struct json_object **out, struct bwm_error *err)
{
	struct json_object *o = json_object_array_get_idx(arr, i);

	snprintf(path, len, "%s[%zu]", name, i);
	if (!o || !json_object_is_type(o, json_type_object))
		return bwm_json_fail(err, text, path, "not an object");
	*out = o;
	return bwm_json_known_keys(text, o, path, keys, err);
}

int bwm_json_string(const char *text, struct json_object *obj,
		    const char *key, char *buf, size_t len,
		    struct bwm_error *err)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return bwm_json_fail(err, text, key, "not a string");
	snprintf(buf, len, "%s", json_object_get_string(v));
	return 0;
}

int bwm_json_known_keys(const char *text, struct json_object *obj,
			const char *prefix, const char *const *keys,
			struct bwm_error *err)
{
	json_object_object_foreach(obj, key, val) {
		const char *const *k;
		char path[96];

		(void)val;
		for (k = keys; *k; k++)
			if (!strcmp(*k, key))
				break;
		if (*k)
			continue;
		snprintf(path, sizeof(path), "%s%s%s", prefix ? prefix : "",
			 prefix && prefix[0] ? "." : "", key);
		return bwm_json_fail(err, text, path, "unknown field");
	}
	return 0;
}

char *bwm_read_file(const char *path)
{
	FILE *f = fopen(path, "r");

	return f ? bwm_read_stream(f) : NULL;
}

char *bwm_read_stream(FILE *f)
{
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	for (;;) {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	return buf;
}

int bwm_parse_file(const char *path,
		   int (*parse)(const char *text, void *obj,
				struct bwm_error *err),
		   void *obj, struct bwm_error *err)
{
	char *text = bwm_read_file(path);
	int ret;

	if (!text) {
		ret = -errno;
		if (err) {
			memset(err, 0, sizeof(*err));
			snprintf(err->msg, sizeof(err->msg), "cannot read: %s",
				 strerror(-ret));
		}
		return ret;
	}
	ret = parse(text, obj, err);
	free(text);
	return ret;
}
