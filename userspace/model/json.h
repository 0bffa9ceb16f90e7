/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON helpers shared by the machine and workload parsers (json-c), with
 * errors that name the field and the line it is on.
 */
#ifndef BWM_JSON_H
#define BWM_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

#include "bwmodel.h"

/* Parse text into *out (caller puts it); -EINVAL + err on a syntax error. */
int bwm_json_parse(const char *text, struct json_object **out,
		   struct bwm_error *err);

/*
 * Record an error about the value at path ("nodes[2].cpus") with the line
 * and column of that value in text (or of its closest enclosing value if
 * it is missing).  Returns -EINVAL.
 */
int bwm_json_fail(struct bwm_error *err, const char *text, const char *path,
		  const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Line and column of the value at path; 0 if not found. */
void bwm_json_locate(const char *text, const char *path, int *line, int *col);

/*
 * A number at path obj[key] within [lo, hi].  Missing: *out = def when
 * !required.  Returns 0 or -EINVAL (err filled).
 */
int bwm_json_number(const char *text, struct json_object *obj,
		    const char *prefix, const char *key, bool required,
		    double def, double lo, double hi, double *out,
		    struct bwm_error *err);
/*
 * arr[i], which must be an object with only the keys in keys; path
 * gets "name[i]" for the errors of its members.
 */
int bwm_json_array_object(const char *text, struct json_object *arr,
			  const char *name, size_t i,
			  const char *const *keys, char *path, size_t len,
			  struct json_object **out, struct bwm_error *err);
int bwm_json_string(const char *text, struct json_object *obj,
		    const char *key, char *buf, size_t len,
		    struct bwm_error *err);
/* Every key of obj must be in the NULL-terminated list keys. */
int bwm_json_known_keys(const char *text, struct json_object *obj,
			const char *prefix, const char *const *keys,
			struct bwm_error *err);
/* Read a whole file (NUL-terminated, malloc'ed) or NULL with errno set. */
char *bwm_read_file(const char *path);
/* The same from an open stream, which it closes. */
char *bwm_read_stream(FILE *f);
/* Read path and parse its text with parse(). */
int bwm_parse_file(const char *path,
		   int (*parse)(const char *text, void *obj,
				struct bwm_error *err),
		   void *obj, struct bwm_error *err);

#endif /* BWM_JSON_H */
