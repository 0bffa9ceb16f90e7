// SPDX-License-Identifier: GPL-2.0
/*
 * Memory that comes online after boot.  The host hot-adds a DIMM to a node
 * that had no memory at boot - once to a node with a CPU, once to a
 * CPU-less node, the CXL case - and the test onlines it, as an admin does
 * for a hot-added DIMM or for CXL memory through dax_kmem:
 *
 *  - the node's weight file appears, with the weight auto mode derives
 *    from the bandwidth firmware reports for the new set of nodes;
 *  - it takes a weight, and pages land by it under a task and a VMA
 *    policy, with the global weights and with the process's own;
 *  - offlining the memory removes the file, onlining it again brings the
 *    file back with the weight written before;
 *  - the same for the node's entry in every row per initiator
 *    (initiatorC/nodeN), where the kernel has them;
 *  - the DIMM is offlined and ejected (QEMU device_del) at the end.
 *
 * Runs in the "hotplug-cpu" and "hotplug-cxl" test machines
 * (scripts/vm-run.sh), each with one node of the two kinds: their kernel
 * command line names the serial line on which the host takes requests for
 * DIMMs (wi.hotplug=/dev/ttyS2, scripts/vm-hotplug.py).  Elsewhere it
 * skips.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "wi_harness.h"
#include "wi_weights.h"

#define DIMM_MIB	256
/* Waits are bounded by counts of 10 ms polls, not by a clock. */
#define POLLS		60000

/* Open the serial line to the host, raw. */
static int host_open(const char *tty)
{
	struct termios t;
	int fd;

	fd = open(tty, O_RDWR | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	tcflush(fd, TCIOFLUSH);
	return fd;
}

/* One request line to the host; 0 if it answers "ok". */
static int host_request(struct __test_metadata *_metadata, int fd,
			const char *fmt, ...)
{
	char line[128], answer[256];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t n = 0;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[len++] = '\n';
	if (write(fd, line, len) != len)
		return -1;
	/* The host may wait for the guest to eject a DIMM: be patient. */
	while (n < sizeof(answer) - 1 && poll(&p, 1, 900 * 1000) == 1) {
		if (read(fd, answer + n, 1) != 1)
			break;
		if (answer[n] == '\n')
			break;
		if (answer[n] != '\r')
			n++;
	}
	answer[n] = '\0';
	TH_LOG("host: %.*s -> %s", len - 1, line, answer);
	return strcmp(answer, "ok") ? -1 : 0;
}

/* The memory block numbers of node, at most max; their count. */
static int node_blocks(int node, int *blocks, int max)
{
	char path[64];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char *end;
		long b;

		if (strncmp(de->d_name, "memory", 6))
			continue;
		b = strtol(de->d_name + 6, &end, 10);
		if (end != de->d_name + 6 && !*end)
			blocks[n++] = (int)b;
	}
	closedir(d);
	return n;
}

/* Write state ("online_movable", "offline") to every block of node. */
static int set_blocks(int node, const char *state)
{
	int blocks[256], n, i, ret = 0;
	char path[96];

	n = node_blocks(node, blocks, 256);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/memory/memory%d/state", blocks[i]);
		if (wi_write_file(path, state))
			ret = -1;
	}
	return n ? ret : -1;
}

/* Poll until node has want memory blocks; false if it never does. */
static bool wait_blocks(int node, int want)
{
	int blocks[256], i;

	for (i = 0; i < POLLS; i++) {
		if (node_blocks(node, blocks, 256) == want)
			return true;
		usleep(10000);
	}
	return false;
}

static bool has_memory(int node)
{
	int nodes[WI_MAX_NODES], n, i;

	n = wi_memory_nodes(nodes, WI_MAX_NODES);
	for (i = 0; i < n; i++)
		if (nodes[i] == node)
			return true;
	return false;
}

static bool weight_file(int node)
{
	char path[128];
	struct stat st;

	wi_weight_path(node, path, sizeof(path));
	return !stat(path, &st);
}

FIXTURE(hotplug) {
	bool setup_skipped;
	int tty;
	int dram;		/* a node with memory from boot */
	long block_mib;
};

FIXTURE_SETUP(hotplug)
{
	char cmdline[4096] = "", *arg, tty[64], bs[32] = "";
	int mem[WI_MAX_NODES];

	self->setup_skipped = false;
	self->tty = -1;
	wi_read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	arg = strstr(cmdline, "wi.hotplug=");
	if (!arg || sscanf(arg, "wi.hotplug=%63s", tty) != 1)
		WI_SETUP_SKIP("not the hotplug test machine (no wi.hotplug=)");
	if (!wi_sysfs_present())
		WI_SETUP_SKIP("kernel without weighted interleave");
	if (!wi_is_project_kernel() && !wi_upstream_at_least(6, 16))
		WI_SETUP_SKIP("upstream before 6.16 has a weight file for every possible node, whatever its memory");
	self->tty = host_open(tty);
	ASSERT_LE(0, self->tty) TH_LOG("%s: %s", tty, strerror(errno));
	ASSERT_LT(0, wi_memory_nodes(mem, WI_MAX_NODES));
	self->dram = mem[0];
	wi_read_file("/sys/devices/system/memory/block_size_bytes", bs,
		     sizeof(bs));
	self->block_mib = strtol(bs, NULL, 16) >> 20;
	ASSERT_LT(0, self->block_mib);
	wi_state_save();
	wi_restore_at_exit();
}

FIXTURE_TEARDOWN(hotplug)
{
	if (self->setup_skipped)
		return;
	EXPECT_EQ(0, wi_state_restore());
	if (self->tty >= 0)
		close(self->tty);
}

/*
 * The rows per initiator that have an entry for @node, and those that have
 * none (both 0 on a kernel without rows).
 */
static int rows_with(int node, bool with)
{
	int ini[WI_MAX_NODES], n, i, count = 0;
	char path[128];

	n = wi_row_initiators(ini, WI_MAX_NODES);
	for (i = 0; i < n; i++) {
		wi_row_path(ini[i], node, path, sizeof(path));
		count += (access(path, F_OK) == 0) == with;
	}
	return count;
}

/* The first initiator with a row. */
static int rows_first(void)
{
	int ini[WI_MAX_NODES];

	return wi_row_initiators(ini, WI_MAX_NODES) > 0 ? ini[0] : -1;
}

/* A possible node without memory, with a CPU or without; -1 if none. */
static int memoryless_node(bool with_cpu)
{
	int possible[WI_MAX_NODES], n, i;

	n = wi_possible_nodes(possible, WI_MAX_NODES);
	for (i = 0; i < n; i++)
		if (!has_memory(possible[i]) &&
		    wi_node_has_cpu(possible[i]) == with_cpu)
			return possible[i];
	return -1;
}

/*
 * Auto mode: every memory node's weight is the one derived from the HMAT
 * bandwidths of the nodes that have memory now.
 */
static void expect_auto_weights(struct __test_metadata *_metadata)
{
	unsigned int want[WI_MAX_NODES];
	int mem[WI_MAX_NODES], n, i;

	ASSERT_EQ(1, wi_auto_mode());
	ASSERT_EQ(0, wi_auto_weights(want)) TH_LOG("no HMAT bandwidth");
	n = wi_memory_nodes(mem, WI_MAX_NODES);
	for (i = 0; i < n; i++) {
		EXPECT_EQ((int)want[mem[i]], wi_read_weight(mem[i]))
			TH_LOG("auto weight of node %d", mem[i]);
	}
}

static void hot_add_node(struct __test_metadata *_metadata,
			 FIXTURE_DATA(hotplug) *self, bool with_cpu)
{
	unsigned int global[] = { 1, 3 }, own[] = { 2, 1 };
	int node = memoryless_node(with_cpu);
	int nodes[2], blocks = DIMM_MIB / self->block_mib;
	uint8_t vec[WI_WEIGHTS_MAX_NODES];
	char dimm[16];

	if (node < 0)
		SKIP(return, "no node %s a CPU without memory",
		     with_cpu ? "with" : "without");
	nodes[0] = self->dram;
	nodes[1] = node;
	snprintf(dimm, sizeof(dimm), "dimm%d", node);

	/* Before: no memory, no file; the weights are derived (auto). */
	ASSERT_FALSE(weight_file(node));
	expect_auto_weights(_metadata);

	/* A DIMM arrives, its memory goes online: the file appears. */
	ASSERT_EQ(0, host_request(_metadata, self->tty, "add %s %d %d", dimm,
				  node, DIMM_MIB));
	ASSERT_TRUE(wait_blocks(node, blocks))
		TH_LOG("node %d never got %d memory blocks", node, blocks);
	ASSERT_EQ(0, set_blocks(node, "online_movable"));
	ASSERT_TRUE(has_memory(node));
	ASSERT_TRUE(weight_file(node));
	expect_auto_weights(_metadata);
	/* every row per initiator gets an entry for it */
	EXPECT_EQ(0, rows_with(node, false));
	if (wi_per_initiator() >= 0) {
		EXPECT_LT(0, rows_with(node, true));
		ASSERT_EQ(0, wi_set_row(rows_first(), node, 7));
	}

	/* It takes a weight, and pages follow the global weights... */
	ASSERT_EQ(0, wi_set_weights(nodes, global, 2));
	EXPECT_EQ(0, wi_auto_mode());
	EXPECT_EQ(0, wi_vma_misplaced(nodes, global, 2));
	EXPECT_EQ(0, wi_task_misplaced(nodes, global, 2));

	/* ... and the process's own weights for the new node. */
	if (wi_task_weights_supported() == 1) {
		wi_weights_vec(vec, sizeof(vec), nodes, own, 2);
		ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP, vec,
						 node + 1, 0));
		EXPECT_EQ(0, wi_vma_misplaced(nodes, own, 2));
		EXPECT_EQ(0, wi_task_misplaced(nodes, own, 2));
		ASSERT_EQ(0, wi_set_task_weights(PIDFD_SELF_THREAD_GROUP,
						 NULL, 0, 0));
	}

	/* Offline: the file goes; online again: it is back, weight kept. */
	ASSERT_EQ(0, set_blocks(node, "offline"));
	EXPECT_FALSE(has_memory(node));
	EXPECT_FALSE(weight_file(node));
	EXPECT_EQ(0, rows_with(node, true));
	ASSERT_EQ(0, set_blocks(node, "online_movable"));
	EXPECT_TRUE(weight_file(node));
	EXPECT_EQ(3, wi_read_weight(node));
	EXPECT_EQ(0, rows_with(node, false));
	if (wi_per_initiator() >= 0)
		EXPECT_EQ(7, wi_read_row(rows_first(), node));

	/*
	 * Auto mode again.  The DIMM leaves: offline, then ejected.  A node
	 * that loses its memory leaves the weights as they are (as upstream);
	 * writing "true" derives them again for the nodes left, in auto mode
	 * too (upstream 6.16 and later).
	 */
	ASSERT_EQ(0, wi_write_file(WI_SYSFS_DIR "/auto", "true"));
	expect_auto_weights(_metadata);
	ASSERT_EQ(0, set_blocks(node, "offline"));
	EXPECT_FALSE(weight_file(node));
	ASSERT_EQ(0, wi_write_file(WI_SYSFS_DIR "/auto", "true"));
	expect_auto_weights(_metadata);
	ASSERT_EQ(0, host_request(_metadata, self->tty, "del %s", dimm));
	EXPECT_TRUE(wait_blocks(node, 0))
		TH_LOG("node %d kept its memory blocks after the eject", node);
	EXPECT_FALSE(weight_file(node));
}

TEST_F(hotplug, node_with_cpu)
{
	WI_TEST_START();
	hot_add_node(_metadata, self, true);
}

TEST_F(hotplug, cpuless_node)
{
	WI_TEST_START();
	hot_add_node(_metadata, self, false);
}

TEST_HARNESS_MAIN
