/* SPDX-License-Identifier: GPL-2.0 */
/* Valid UTF-8 from any bytes (utf8.c). */
#ifndef BWMODEL_UTF8_H
#define BWMODEL_UTF8_H

#include <stddef.h>

/*
 * s as valid UTF-8 in out, cut short at a character boundary: every
 * maximal subpart of an ill-formed sequence becomes one U+FFFD, as
 * Python's decoder does with errors="replace".  Returns out.
 */
char *bwm_utf8_clean(const char *s, char *out, size_t len);

#endif /* BWMODEL_UTF8_H */
