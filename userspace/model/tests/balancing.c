// SPDX-License-Identifier: GPL-2.0
/*
 * The dynamic policies (balancing.c) do what the mechanisms they model
 * do: NUMA balancing keeps private pages local and spreads shared pages
 * over the workers by the square of their access shares, never onto
 * other nodes, and pays for its hinting faults and migrations; the
 * Carrefour-like policy stays off below its access rate and turns each
 * mechanism on across its threshold (the survey's Table 1); BWAP-uniform
 * is never below uniform-all.
 */
#include "bwm_test.h"

static void load(struct __test_metadata *_metadata, const char *machine,
		 const char *workload, uint32_t workers,
		 struct bwm_machine *m, struct bwm_workload *wl)
{
	ASSERT_EQ(0, bwm_test_load(machine, workload, workers, m, wl));
}

/* Machine A, two workers: private pages local, shared ones on 0 and 1. */
TEST(autonuma_settles_on_the_workers)
{
	struct bwm_balancing b;
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_placement pl;
	double ovh;
	int j;

	bwm_balancing_default(&b);
	load(_metadata, "bwap-a", "mixed", 0x3, &m, &wl);
	ASSERT_EQ(0, bwm_autonuma(&m, &wl, &b, &pl, &ovh));
	EXPECT_NEAR(0.5, pl.shared[0], 1e-12);
	EXPECT_NEAR(0.5, pl.shared[1], 1e-12);
	for (j = 2; j < m.nr_nodes; j++)
		EXPECT_NEAR(0, pl.shared[j], 0);
	for (j = 0; j < 2; j++)
		EXPECT_NEAR(1, pl.priv[j][j], 0);
	/* three threads to one: a page sits 9:1 (a^2), not 3:1 */
	wl.threads[0] = 6;
	wl.threads[1] = 2;
	ASSERT_EQ(0, bwm_autonuma(&m, &wl, &b, &pl, &ovh));
	EXPECT_NEAR(0.9, pl.shared[0], 1e-12);
	EXPECT_NEAR(0.1, pl.shared[1], 1e-12);
}

/* CPU-less memory never attracts a page: it faults from nowhere. */
TEST(autonuma_leaves_cpuless_memory_empty)
{
	struct bwm_balancing b;
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_placement pl;
	double ovh;

	bwm_balancing_default(&b);
	load(_metadata, "dram-cxl", "bandwidth-bound", 0x3, &m, &wl);
	ASSERT_EQ(0, bwm_autonuma(&m, &wl, &b, &pl, &ovh));
	EXPECT_NEAR(0, pl.shared[2] + pl.shared[3], 0);
}

/*
 * Its cost: one hinting fault per page scanned (256 MB a second), and a
 * migration per fault on a shared page with probability
 * sum(a^2) - sum(a^4)/sum(a^2): none with one worker or no shared page,
 * a quarter of them with two equal workers.
 */
TEST(autonuma_pays_for_faults_and_ping_pong)
{
	struct bwm_balancing b;
	struct bwm_machine m;
	struct bwm_workload wl;
	struct bwm_placement pl;
	double one, two, small, faults_us;

	bwm_balancing_default(&b);
	load(_metadata, "bwap-a", "bandwidth-bound", 0x1, &m, &wl);
	wl.footprint_gb = 4;
	ASSERT_EQ(0, bwm_autonuma(&m, &wl, &b, &pl, &one));
	faults_us = 256.0 * 256 * b.fault_us;	/* 65536 pages a second */
	EXPECT_NEAR(faults_us * 1e-6 / 8, one, 1e-12);
	load(_metadata, "bwap-a", "bandwidth-bound", 0x3, &m, &wl);
	wl.footprint_gb = 4;
	ASSERT_EQ(0, bwm_autonuma(&m, &wl, &b, &pl, &two));
	EXPECT_NEAR((faults_us + 256.0 * 256 * wl.shared * 0.25 *
		     b.migrate_us) * 1e-6 / 16, two, 1e-12);
	/* a footprint under the scan size: only it is scanned */
	wl.footprint_gb = 0.0512;	/* 12,500 pages */
	ASSERT_EQ(0, bwm_autonuma(&m, &wl, &b, &pl, &small));
	EXPECT_NEAR(12500 * (b.fault_us + wl.shared * 0.25 * b.migrate_us) *
		    1e-6 / 16, small, 1e-12);
}

/* Carrefour on machine B, from the workload preset given. */
FIXTURE(carrefour) {
	struct bwm_balancing b;
	struct bwm_machine m;
	struct bwm_workload wl, eff;
	struct bwm_placement pl;
	unsigned int mech;
	double ovh;
};

FIXTURE_SETUP(carrefour)
{
	bwm_balancing_default(&self->b);
}

FIXTURE_TEARDOWN(carrefour)
{
}

static int carrefour(struct _test_data_carrefour *self)
{
	return bwm_carrefour(&self->m, &self->wl, &self->b, &self->pl,
			     &self->eff, &self->mech, &self->ovh);
}

/* Below 50 accesses a microsecond Carrefour does nothing. */
TEST_F(carrefour, inactive_when_memory_is_quiet)
{
	load(_metadata, "bwap-b", "latency-bound", 0x3, &self->m, &self->wl);
	/* 7.7 GB/s under first-touch: 120 accesses a microsecond */
	self->b.maptu = 1000;
	ASSERT_EQ(0, carrefour(self));
	EXPECT_EQ(0u, self->mech);
	EXPECT_NEAR(0, self->ovh, 0);
	EXPECT_NEAR(1, self->pl.shared[0], 0);	/* first-touch */
	self->b.maptu = 50;
	ASSERT_EQ(0, carrefour(self));
	EXPECT_NE(0u, self->mech);
	EXPECT_NEAR(self->b.sample_overhead, self->ovh, 0);
}

/* Each mechanism turns on across its own threshold. */
TEST_F(carrefour, thresholds)
{
	/* reads 0.99 > 0.95: replicas, read locally */
	load(_metadata, "bwap-b", "bandwidth-bound", 0x3, &self->m, &self->wl);
	ASSERT_EQ(0, carrefour(self));
	EXPECT_TRUE(!!(self->mech & BWM_CARREFOUR_REPLICATE));
	EXPECT_NEAR(0, self->eff.shared, 0);
	self->b.mrr = 0.995;
	ASSERT_EQ(0, carrefour(self));
	EXPECT_FALSE(!!(self->mech & BWM_CARREFOUR_REPLICATE));
	/* first-touch on node 0 loads one controller of two: interleave */
	EXPECT_TRUE(!!(self->mech & BWM_CARREFOUR_INTERLEAVE));
	EXPECT_NEAR(0.5, self->pl.shared[0], 1e-12);
	EXPECT_NEAR(0.5, self->pl.shared[1], 1e-12);
	EXPECT_NEAR(0, self->pl.shared[2] + self->pl.shared[3], 0);
	self->b.mc_imb = 10;
	ASSERT_EQ(0, carrefour(self));
	EXPECT_FALSE(!!(self->mech & BWM_CARREFOUR_INTERLEAVE));
	/* node 1 reads node 0's shared pages: local ratio 0.5 < 0.8 */
	EXPECT_TRUE(!!(self->mech & BWM_CARREFOUR_COLOCATE));
	self->b.lar = 0.4;
	ASSERT_EQ(0, carrefour(self));
	EXPECT_EQ(0u, self->mech);
}

/* BWAP-uniform searches DWP from uniform-all: DWP 0 is uniform-all. */
TEST(bwap_uniform_never_below_uniform_all)
{
	static const char *const machines[] = { "bwap-a", "bwap-b", "dram-cxl" };
	static const char *const workloads[] = {
		"bandwidth-bound", "latency-bound", "mixed", "private-heavy",
	};
	static struct bwm_eval ev;
	unsigned int i, k;

	for (i = 0; i < 3; i++)
		for (k = 0; k < 4; k++) {
			struct bwm_machine m;
			struct bwm_workload wl;
			struct bwm_eval_opts o;

			load(_metadata, machines[i], workloads[k], 0x1, &m, &wl);
			bwm_eval_opts_default(&o);
			o.search_steps = 0;
			ASSERT_EQ(0, bwm_evaluate(&m, &wl, &o, &ev));
			EXPECT_GE(ev.r[BWM_BWAP_UNIFORM].pred.throughput_gbps,
				  ev.r[BWM_UNIFORM_ALL].pred.throughput_gbps *
				  (1 - 1e-9));
			EXPECT_TRUE(ev.r[BWM_AUTONUMA].valid);
			EXPECT_TRUE(ev.r[BWM_CARREFOUR].valid);
		}
}

TEST_HARNESS_MAIN
