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

/*
 * The length of the UTF-8 sequence at s (RFC 3629) and *ok; not ok: the
 * length of its maximal subpart, the bytes that one U+FFFD replaces
 * (Unicode's "substitution of maximal subparts", as Python and the
 * WHATWG decoders do).  No overlong forms, surrogates or code points
 * above U+10FFFF.
 */
static size_t utf8_seq(const unsigned char *s, int *ok)
{
	unsigned int c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	*ok = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return *ok = 0, 1;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			return *ok = 0, i;
	return n;
}

char *bwapd_utf8_clean(const char *s, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!len)
		return out;
	while (*p) {
		int ok;
		size_t n = utf8_seq(p, &ok);
		const char *src = ok ? (const char *)p : "\xef\xbf\xbd";
		size_t k = ok ? n : 3;

		if (o + k >= len)
			break;
		memcpy(out + o, src, k);
		o += k;
		p += n;
	}
	out[o] = 0;
	return out;
}

void bj_str(json_object *o, const char *key, const char *s)
{
	char buf[4096];

	json_object_object_add(o, key, json_object_new_string(
		bwapd_utf8_clean(s ? s : "", buf, sizeof(buf))));
}

void bj_int(json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

void bj_bool(json_object *o, const char *key, int v)
{
	json_object_object_add(o, key, json_object_new_boolean(v));
}

static json_object *num(double v, const char *fmt)
{
	char buf[64];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), fmt, v);
	return json_object_new_double_s(v, buf);
}

void bj_num(json_object *o, const char *key, double v, const char *fmt)
{
	json_object_object_add(o, key, num(v, fmt));
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
		json_object_array_add(a, num(v[i], fmt));
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
