// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd's --json output (json_out.h): json-c does the escaping; this
 * makes the strings valid UTF-8 and keeps numbers as short as the text
 * output's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_out.h"
#include "utf8.h"

void bj_str(json_object *o, const char *key, const char *s)
{
	char buf[4096];

	json_object_object_add(o, key, json_object_new_string(
		bwm_utf8_clean(s ? s : "", buf, sizeof(buf))));
}

void bj_int(json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

void bj_bool(json_object *o, const char *key, int v)
{
	json_object_object_add(o, key, json_object_new_boolean(v));
}

json_object *bj_new_num(double v, const char *fmt)
{
	char buf[64];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), fmt, v);
	return json_object_new_double_s(v, buf);
}

void bj_num(json_object *o, const char *key, double v, const char *fmt)
{
	json_object_object_add(o, key, bj_new_num(v, fmt));
}

void bj_u8s(json_object *o, const char *key, const uint8_t *v, int n)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int(v[i]));
	json_object_object_add(o, key, a);
}

void bj_nums(json_object *o, const char *key, const double *v, int n,
	     const char *fmt)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, bj_new_num(v[i], fmt));
	json_object_object_add(o, key, a);
}

int bj_print(json_object *o)
{
	int ret = 0;

	if (printf("%s\n", json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_SPACED |
			JSON_C_TO_STRING_NOSLASHESCAPE)) < 0 || fflush(stdout))
		ret = -EIO;
	json_object_put(o);
	return ret;
}
