/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bwapd's --json output (json_out.c): documents built with json-c and
 * printed on one line each, so that a stream of them is JSON Lines.
 * Strings are made valid UTF-8 first: every maximal subpart of an
 * ill-formed sequence becomes one U+FFFD, as Python's decoder does with
 * errors="replace" (a command name is whatever bytes its process chose).
 */
#ifndef BWAPD_JSON_OUT_H
#define BWAPD_JSON_OUT_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

void bj_str(json_object *o, const char *key, const char *s);
void bj_int(json_object *o, const char *key, int64_t v);
void bj_bool(json_object *o, const char *key, int v);
/* v printed with fmt ("%.6g"); null when it is not finite. */
json_object *bj_new_num(double v, const char *fmt);
void bj_num(json_object *o, const char *key, double v, const char *fmt);
void bj_u8s(json_object *o, const char *key, const uint8_t *v, int n);
void bj_nums(json_object *o, const char *key, const double *v, int n,
	     const char *fmt);
/* Print o on one line of stdout, flush, and free it; 0 or -EIO. */
int bj_print(json_object *o);

#endif /* BWAPD_JSON_OUT_H */
