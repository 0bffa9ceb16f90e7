// SPDX-License-Identifier: GPL-2.0
/*
 * The journal's native protocol as bwapd writes it (log.c): fields as
 * KEY=value lines, a value with a newline in the binary form (key,
 * newline, 64-bit little-endian length, value, newline), read back here
 * the way systemd.journal-fields(7) and the protocol's description in
 * systemd's documentation (JOURNAL_NATIVE_PROTOCOL) say a reader
 * parses a datagram.  journald itself reads them in the system test
 * machine (scripts/system/operator.sh).
 */
#include "bwapd_test.h"
#include "log.h"

/* The value of key in datagram d (n bytes), into out; 0 or -1. */
static int field_of(const char *d, size_t n, const char *key, char *out,
		    size_t len)
{
	size_t at = 0, k = strlen(key);

	while (at < n) {
		const char *nl = memchr(d + at, '\n', n - at);
		const char *eq = memchr(d + at, '=', n - at);
		size_t vlen;
		const char *v;

		if (!nl)
			return -1;
		if (eq && eq < nl) {		/* KEY=value\n */
			v = eq + 1;
			vlen = (size_t)(nl - v);
			if ((size_t)(eq - d - at) == k && !memcmp(d + at, key, k))
				goto found;
			at = (size_t)(nl - d) + 1;
			continue;
		}
		/* KEY\n, le64 length, value, \n */
		{
			uint64_t l = 0;
			int i;

			if ((size_t)(nl - d) + 9 > n)
				return -1;
			for (i = 7; i >= 0; i--)
				l = l << 8 | (unsigned char)nl[1 + i];
			v = nl + 9;
			vlen = (size_t)l;
			if ((size_t)(v - d) + vlen + 1 > n || v[vlen] != '\n')
				return -1;
			if ((size_t)(nl - d - at) == k && !memcmp(d + at, key, k))
				goto found;
			at = (size_t)(v - d) + vlen + 1;
			continue;
		}
found:
		if (vlen >= len)
			return -1;
		memcpy(out, v, vlen);
		out[vlen] = 0;
		return 0;
	}
	return -1;
}

TEST(fields_and_binary_values)
{
	/* a command name may hold a newline and '=' */
	const char *kv[] = { "BWAPD_PID", "4242", "BWAPD_COMM", "a=b\nc",
			     "BWAPD_UNIT", "wi-demo.service", NULL };
	char d[1024], v[256];
	size_t n = bwapd_journal_encode(d, sizeof(d), 6, "process 4242 (a=b\nc)", kv);

	ASSERT_LT(0U, n);
	ASSERT_EQ(0, field_of(d, n, "MESSAGE", v, sizeof(v)));
	EXPECT_STREQ("process 4242 (a=b\nc)", v);
	ASSERT_EQ(0, field_of(d, n, "PRIORITY", v, sizeof(v)));
	EXPECT_STREQ("6", v);
	ASSERT_EQ(0, field_of(d, n, "SYSLOG_IDENTIFIER", v, sizeof(v)));
	EXPECT_STREQ("bwapd", v);
	ASSERT_EQ(0, field_of(d, n, "BWAPD_PID", v, sizeof(v)));
	EXPECT_STREQ("4242", v);
	ASSERT_EQ(0, field_of(d, n, "BWAPD_COMM", v, sizeof(v)));
	EXPECT_STREQ("a=b\nc", v);
	ASSERT_EQ(0, field_of(d, n, "BWAPD_UNIT", v, sizeof(v)));
	EXPECT_STREQ("wi-demo.service", v);
	/* the binary form is exact: key, newline, length 5 */
	EXPECT_NE(NULL, memmem(d, n, "BWAPD_COMM\n\x05\0\0\0\0\0\0\0a=b\nc\n", 23));
}

TEST(too_long_is_nothing)
{
	const char *kv[] = { "BWAPD_PID", "1", NULL };
	char d[32];

	EXPECT_EQ(0U, bwapd_journal_encode(d, sizeof(d), 6,
					  "a message longer than the buffer", kv));
	EXPECT_EQ(0U, bwapd_journal_encode(d, 8, 6, "x", NULL));
}

/* Not under the journal (no JOURNAL_STREAM): the caller writes it. */
TEST(not_under_the_journal)
{
	const char *kv[] = { "BWAPD_PID", "1", NULL };

	unsetenv("JOURNAL_STREAM");
	bwapd_log_init(BWAPD_LOG_INFO);
	EXPECT_EQ(-1, bwapd_journal_send(BWAPD_LOG_INFO, kv, "x"));
}

TEST_HARNESS_MAIN
