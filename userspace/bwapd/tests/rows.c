// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's rows of weights per initiator through both backends: an
 * entry of a CPU node's row follows the default row until written, and
 * again when written 0; the default row takes no 0; only CPU nodes have
 * rows; the switches read as the kernel's booleans, and a kernel
 * without rows has no per_initiator file.
 */
#include "bwapd_test.h"
#include "backend.h"
#include "kweights.h"

FIXTURE(rows)
{
	char dir[64];
};

FIXTURE_SETUP(rows)
{
	ASSERT_NE(NULL, temp_dir(self->dir, sizeof(self->dir)));
}

FIXTURE_TEARDOWN(rows)
{
	rm_tree(self->dir);
}

/* Two sockets with DRAM and two CXL expanders each: rows 0 and 1 only. */
TEST_F(rows, model)
{
	static const uint8_t ones[6] = { 1, 1, 1, 1, 1, 1 };
	uint8_t w[BWAPD_MAX_NODES];
	struct bwapd_backend b;
	char path[4096], why[256];

	ASSERT_EQ(0, bwapd_backend_model(&b, preset("cxl-2s4", path, sizeof(path)),
					 1, 0, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(0, b.ops->weights_switch(&b, "per_initiator", -1));
	EXPECT_EQ(-ENOENT, b.ops->weights_switch(&b, "auto", -1));
	ASSERT_EQ(0, b.ops->weights_get(&b, 1, w, BWAPD_MAX_NODES));
	EXPECT_EQ(0, memcmp(w, ones, sizeof(ones)));
	EXPECT_EQ(-ENOENT, b.ops->weights_get(&b, 2, w, BWAPD_MAX_NODES));
	EXPECT_EQ(-ENOENT, b.ops->weight_set(&b, 2, 0, 5));
	EXPECT_EQ(-EINVAL, b.ops->weight_set(&b, BWAPD_DEFAULT_ROW, 0, 0));

	/* an entry of its own; the rest follows the default row */
	ASSERT_EQ(0, b.ops->weight_set(&b, 1, 4, 9));
	ASSERT_EQ(0, b.ops->weight_set(&b, BWAPD_DEFAULT_ROW, 2, 3));
	ASSERT_EQ(0, b.ops->weights_get(&b, 1, w, BWAPD_MAX_NODES));
	EXPECT_EQ(9, w[4]);
	EXPECT_EQ(3, w[2]);
	EXPECT_EQ(1, w[0]);
	ASSERT_EQ(0, b.ops->weights_get(&b, 0, w, BWAPD_MAX_NODES));
	EXPECT_EQ(1, w[4]);
	EXPECT_EQ(3, w[2]);
	ASSERT_EQ(0, b.ops->weights_get(&b, BWAPD_DEFAULT_ROW, w, BWAPD_MAX_NODES));
	EXPECT_EQ(1, w[4]);
	/* 0: following the default row again */
	ASSERT_EQ(0, b.ops->weight_set(&b, 1, 4, 0));
	ASSERT_EQ(0, b.ops->weight_set(&b, BWAPD_DEFAULT_ROW, 4, 7));
	ASSERT_EQ(0, b.ops->weights_get(&b, 1, w, BWAPD_MAX_NODES));
	EXPECT_EQ(7, w[4]);

	ASSERT_EQ(0, b.ops->weights_switch(&b, "per_initiator", 1));
	EXPECT_EQ(1, b.ops->weights_switch(&b, "per_initiator", -1));
	ASSERT_EQ(0, b.ops->weights_switch(&b, "per_initiator", 0));
	EXPECT_EQ(0, b.ops->weights_switch(&b, "per_initiator", -1));
	bwapd_backend_destroy(&b);
}

/* The real backend on a tree shaped as the kernel's directory. */
TEST_F(rows, sysfs)
{
	static const struct { const char *text; int on; } bools[] = {
		{ "true", 1 }, { "false", 0 }, { "1", 1 }, { "0", 0 },
		{ "Y", 1 }, { "n", 0 }, { "on", 1 }, { "off", 0 },
		{ "maybe", -EINVAL },
	};
	uint8_t w[BWAPD_MAX_NODES];
	struct bwapd_backend b;
	char buf[16], path[256];
	unsigned int i;

	ASSERT_EQ(0, fake_numa4(self->dir, 1, 1));
	ASSERT_EQ(0, bwapd_backend_real(&b, self->dir));
	/* no per_initiator: a kernel without rows */
	EXPECT_EQ(-ENOENT, b.ops->weights_switch(&b, "per_initiator", -1));
	EXPECT_EQ(-ENOENT, b.ops->weights_get(&b, 0, w, 4));
	ASSERT_EQ(0, fake_rows(self->dir, 4, 0xf));
	EXPECT_EQ(0, b.ops->weights_switch(&b, "per_initiator", -1));
	for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		ASSERT_EQ(0, put(self->dir, "sys/kernel/mm/mempolicy/weighted_interleave/"
				 "per_initiator", "%s\n", bools[i].text));
		EXPECT_EQ(bools[i].on, b.ops->weights_switch(&b, "per_initiator", -1))
			TH_LOG("%s", bools[i].text);
	}
	ASSERT_EQ(0, b.ops->weights_switch(&b, "per_initiator", 1));
	ASSERT_EQ(0, bwapd_read_text(self->dir, BWAPD_WEIGHTS_DIR "/per_initiator",
				     buf, sizeof(buf)));
	EXPECT_STREQ("true", buf);

	ASSERT_EQ(0, b.ops->weight_set(&b, 2, 3, 17));
	snprintf(path, sizeof(path), "%s/initiator2/node3", BWAPD_WEIGHTS_DIR);
	ASSERT_EQ(0, bwapd_read_text(self->dir, path, buf, sizeof(buf)));
	EXPECT_STREQ("17", buf);
	ASSERT_EQ(0, b.ops->weights_get(&b, 2, w, 4));
	EXPECT_EQ(17, w[3]);
	EXPECT_EQ(1, w[0]);
	ASSERT_EQ(0, b.ops->weights_get(&b, BWAPD_DEFAULT_ROW, w, 4));
	EXPECT_EQ(1, w[3]);
	bwapd_backend_destroy(&b);
}

TEST_HARNESS_MAIN
