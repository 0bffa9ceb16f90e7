// SPDX-License-Identifier: GPL-2.0
/*
 * The real backend: sysfs topology, uncore memory controller counters,
 * the built-in bandwidth benchmark and the weights in sysfs.
 * Everything below 'root' so that tests can point it at a tree of their
 * own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "bench.h"
#include "kweights.h"
#include "uncore.h"

struct real {
	char root[1024];
	char pmu_root[1024];		/* event_source devices, cpuinfo */
	struct bwapd_topology topo;
	int have_topo;
	struct uncore uncore;
	struct bench *bench;
	struct bench *flows;		/* every CPU node's threads */
	char source[256];
};

static struct real *priv(struct bwapd_backend *b)
{
	return b->priv;
}

static void real_destroy(struct bwapd_backend *b)
{
	struct real *p = priv(b);

	uncore_close(&p->uncore);
	if (p->bench)
		bench_destroy(p->bench);
	if (p->flows)
		bench_destroy(p->flows);
	free(p);
	b->priv = NULL;
}

static int real_topology(struct bwapd_backend *b, struct bwapd_topology *t,
			 char *why, size_t len)
{
	struct real *p = priv(b);
	int ret = 0;

	if (!p->have_topo) {
		ret = bwapd_topology_read(p->root, &p->topo, why, len);
		p->have_topo = !ret;
	}
	if (!ret)
		*t = p->topo;
	return ret;
}

static int real_ctrl_open(struct bwapd_backend *b, char *why, size_t len)
{
	struct real *p = priv(b);
	char nodes[64];
	int ret;

	ret = real_topology(b, &p->topo, why, len);
	if (!ret)
		ret = uncore_discover(&p->uncore, p->pmu_root, p->root, &p->topo,
				      why, len);
	if (!ret)
		ret = uncore_open(&p->uncore, p->root, why, len);
	if (ret)
		return ret;
	snprintf(p->source, sizeof(p->source),
		 "%d PMUs %s..%s, %d counters, nodes %s; encodings: %s",
		 p->uncore.nr, p->uncore.pmu[0].name,
		 p->uncore.pmu[p->uncore.nr - 1].name, p->uncore.nr_counters,
		 bwapd_nodelist_format(p->uncore.nodes, nodes, sizeof(nodes)),
		 p->uncore.encoding);
	return 0;
}

static const char *real_ctrl_source(struct bwapd_backend *b)
{
	return priv(b)->source;
}

static int real_ctrl_bytes(struct bwapd_backend *b, int node, uint64_t *read,
			   uint64_t *write)
{
	return uncore_read(&priv(b)->uncore, node, read, write);
}

static int real_bench_start(struct bwapd_backend *b, uint32_t workers)
{
	struct real *p = priv(b);

	if (p->bench)
		return -EBUSY;
	return bench_start(&p->topo, workers,
			   bench_array_bytes(p->root, &p->topo), &p->bench);
}

static int real_bench_run(struct bwapd_backend *b, int node, double seconds)
{
	return priv(b)->bench ? bench_run(priv(b)->bench, node, seconds) :
				-EINVAL;
}

static int real_bench_stop(struct bwapd_backend *b,
			   struct bwapd_bench_result *r)
{
	struct real *p = priv(b);
	int ret;

	if (!p->bench)
		return -EINVAL;
	ret = bench_stop(p->bench, r);
	bench_destroy(p->bench);
	p->bench = NULL;
	return ret;
}

/* One benchmark for all the phases: started on the first, kept. */
static int real_bench_flows(struct bwapd_backend *b, const struct bwm_flow *f,
			    int nf, double seconds, struct bwm_flow_result *r)
{
	struct real *p = priv(b);
	int ret;

	if (!p->flows) {
		ret = bench_start(&p->topo, p->topo.cpu_nodes,
				  bench_array_bytes(p->root, &p->topo),
				  &p->flows);
		if (ret)
			return ret;
	}
	return bench_flows(p->flows, f, nf, seconds, r);
}

static int real_weights_get(struct bwapd_backend *b, int row, uint8_t *w,
			    int nr)
{
	return bwapd_weights_read(priv(b)->root, row, w, nr);
}

static int real_weight_set(struct bwapd_backend *b, int row, int node,
			   uint8_t w)
{
	return bwapd_weight_write(priv(b)->root, row, node, w);
}

static int real_weights_switch(struct bwapd_backend *b, const char *name,
			       int on)
{
	const char *root = priv(b)->root;

	return on < 0 ? bwapd_switch_read(root, name) :
			bwapd_switch_write(root, name, on);
}

static const struct bwapd_backend_ops real_ops = {
	.name = "real",
	.destroy = real_destroy,
	.topology = real_topology,
	.ctrl_open = real_ctrl_open,
	.ctrl_bytes = real_ctrl_bytes,
	.ctrl_source = real_ctrl_source,
	.bench_start = real_bench_start,
	.bench_run = real_bench_run,
	.bench_stop = real_bench_stop,
	.bench_flows = real_bench_flows,
	.weights_get = real_weights_get,
	.weight_set = real_weight_set,
	.weights_switch = real_weights_switch,
};

int bwapd_backend_real(struct bwapd_backend *b, const char *root)
{
	struct real *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	snprintf(p->root, sizeof(p->root), "%s", strcmp(root, "/") ? root : "");
	snprintf(p->pmu_root, sizeof(p->pmu_root), "%s", p->root);
	snprintf(p->source, sizeof(p->source), "none");
	b->ops = &real_ops;
	b->priv = p;
	return 0;
}

int bwapd_backend_real_pmu_root(struct bwapd_backend *b, const char *dir)
{
	struct real *p = priv(b);

	if (b->ops != &real_ops)
		return -EINVAL;
	snprintf(p->pmu_root, sizeof(p->pmu_root), "%s", strcmp(dir, "/") ? dir : "");
	return 0;
}
