// SPDX-License-Identifier: GPL-2.0
/*
 * Text from outside (a workload's name, a process's command name) made
 * valid UTF-8 before it goes into JSON or SVG (utf8.h).
 */
#include <string.h>

#include "utf8.h"

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

char *bwm_utf8_clean(const char *s, char *out, size_t len)
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
