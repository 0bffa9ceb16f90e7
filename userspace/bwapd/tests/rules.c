// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's rules file: patterns and options per line, comments,
 * the first match wins, errors name the line; and the daemon refuses
 * to start on a rule with a bad option.
 */
#include "bwapd_test.h"
#include "rules.h"
#include "wfile.h"

static struct bwapd_rule rules[16];

TEST(parse_and_match)
{
	char dir[64], path[128], why[256] = "";
	int n;

	ASSERT_NE(NULL, temp_dir(dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/rules", dir);
	ASSERT_EQ(0, put(dir, "rules",
			 "# streaming codes\n"
			 "\n"
			 "stream   --min-mapi 0.002   # and a comment\n"
			 "\tmg.[A-D].x --step 0.05 --fine-step 0\n"
			 "*\n"));
	n = bwapd_rules_read(path, rules, 16, why, sizeof(why));
	ASSERT_EQ(3, n) TH_LOG("%s", why);
	EXPECT_STREQ("stream", rules[0].pattern);
	EXPECT_EQ(3, rules[0].line);
	EXPECT_EQ(3, rules[0].argc);
	EXPECT_STREQ("rule", rules[0].argv[0]);
	EXPECT_STREQ("--min-mapi", rules[0].argv[1]);
	EXPECT_STREQ("0.002", rules[0].argv[2]);
	EXPECT_EQ(NULL, rules[0].argv[3]);
	EXPECT_EQ(5, rules[1].argc);
	EXPECT_EQ(1, rules[2].argc);
	EXPECT_EQ(&rules[0], bwapd_rules_match(rules, n, "stream"));
	EXPECT_EQ(&rules[1], bwapd_rules_match(rules, n, "mg.C.x"));
	EXPECT_EQ(&rules[2], bwapd_rules_match(rules, n, "mg.E.x"));
	EXPECT_EQ(NULL, bwapd_rules_match(rules, 2, "bash"));
	rm_tree(dir);
}

TEST(errors_name_the_line)
{
	char dir[64], path[128], why[256] = "", opts[2048];
	int i;

	ASSERT_NE(NULL, temp_dir(dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/rules", dir);
	opts[0] = 0;
	for (i = 0; i < 40; i++)
		strcat(opts, " -x");
	ASSERT_EQ(0, put(dir, "rules", "ok --step 0.1\nmany%s\n", opts));
	EXPECT_EQ(-E2BIG, bwapd_rules_read(path, rules, 16, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "rules:2: too many options")) TH_LOG("%s", why);
	ASSERT_EQ(0, put(dir, "rules", "a\nb\nc\n"));
	EXPECT_EQ(-E2BIG, bwapd_rules_read(path, rules, 2, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "rules:3: more than 2 rules")) TH_LOG("%s", why);
	EXPECT_EQ(-ENOENT, bwapd_rules_read("/nonexistent/rules", rules, 2, why,
					    sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "No such file"));
	/* the daemon checks every rule's options before it starts */
	ASSERT_EQ(0, put(dir, "rules", "ok --step 0.1\nbad --step 2\n"));
	snprintf(opts, sizeof(opts), "%s daemon --rules %s 2>&1", BWAPD_BIN, path);
	{
		FILE *p = popen(opts, "r");
		char out[4096];
		size_t n;

		ASSERT_NE(NULL, p);
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = 0;
		EXPECT_EQ(2, WEXITSTATUS(pclose(p)));
		EXPECT_NE(NULL, strstr(out, "rules:2: bad options in this rule; not started"))
			TH_LOG("%s", out);
	}
	rm_tree(dir);
}

/*
 * The rules decide whose memory the daemon moves: a file that another
 * user, or a group, may write is refused, naming the file and the fix,
 * before a line of it is used.  So is a weights file, which the daemon
 * and "bwapd apply" write into the global weights.
 */
TEST(untrusted_files_refused)
{
	char dir[64], path[128], why[256] = "";
	struct bwapd_topology t;
	struct bwapd_file f;

	ASSERT_NE(NULL, temp_dir(dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/rules", dir);
	ASSERT_EQ(0, put(dir, "rules", "stream --min-mapi 0.002\n"));
	ASSERT_EQ(0, chmod(path, 0644));
	EXPECT_EQ(1, bwapd_rules_read(path, rules, 16, why, sizeof(why)))
		TH_LOG("%s", why);

	ASSERT_EQ(0, chmod(path, 0664));
	EXPECT_EQ(-EPERM, bwapd_rules_read(path, rules, 16, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "rules: writable by group or others"))
		TH_LOG("%s", why);
	EXPECT_NE(NULL, strstr(why, "chmod go-w ")) TH_LOG("%s", why);

	ASSERT_EQ(0, chmod(path, 0646));
	EXPECT_EQ(-EPERM, bwapd_rules_read(path, rules, 16, why, sizeof(why)));

	ASSERT_EQ(0, chmod(path, 0644));
	if (geteuid() == 0) {
		/* owned by another user than the one running bwapd */
		ASSERT_EQ(0, chown(path, 65534, 65534));
		EXPECT_EQ(-EPERM, bwapd_rules_read(path, rules, 16, why,
						   sizeof(why)));
		EXPECT_NE(NULL, strstr(why, "owned by uid 65534"))
			TH_LOG("%s", why);
		EXPECT_NE(NULL, strstr(why, "chown ")) TH_LOG("%s", why);
	}

	/* a weights file writable by others is not read either */
	memset(&t, 0, sizeof(t));
	snprintf(path, sizeof(path), "%s/weights.json", dir);
	ASSERT_EQ(0, put(dir, "weights.json", "{}\n"));
	ASSERT_EQ(0, chmod(path, 0666));
	EXPECT_EQ(-EPERM, bwapd_file_read(path, &t, &f, why, sizeof(why)));
	EXPECT_EQ(NULL, f.result);
	EXPECT_NE(NULL, strstr(why, "weights.json: writable by group or others"))
		TH_LOG("%s", why);
	bwapd_file_free(&f);
	rm_tree(dir);
}

TEST_HARNESS_MAIN
