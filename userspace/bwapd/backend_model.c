// SPDX-License-Identifier: GPL-2.0
/*
 * The model backend: a machine preset of the NUMA bandwidth model
 * (libbwmodel) behind the counters/actuators interface.  The topology is
 * what the kernel would show for the machine (SLIT from the latency
 * matrix, HMAT access class 0 from its best paths), the counters are the
 * model's controller counters, the benchmark is its profiling run, and
 * the weights go into the simulated workload's policy: the default row
 * for every page, the CPU nodes' rows for private ones (per_initiator).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/* The benchmark array's share of every node (several L3s of a server). */
#define BWAPD_MODEL_BENCH_BYTES	(512.0 * 1048576)

struct model {
	struct bwm_machine m;
	struct bwm_sim sim;
	struct bwapd_topology topo;
	uint8_t weights[BWAPD_MAX_NODES];	/* the default row */
	/* the CPU nodes' rows; 0: the entry follows the default row */
	uint8_t rows[BWAPD_MAX_NODES][BWAPD_MAX_NODES];
	int per_initiator;
	/* controller bytes of benchmark runs, added to the sim's */
	double bench_read[BWAPD_MAX_NODES];
	double bench_write[BWAPD_MAX_NODES];
	uint32_t bench_workers;
	struct bwapd_bench_result acc;
	char source[160];
};

static struct model *priv(struct bwapd_backend *b)
{
	return b->priv;
}

/* SLIT-like distances: 10 x latency / the lowest latency of the machine. */
int bwapd_model_topology(const struct bwm_machine *m,
			 struct bwapd_topology *t)
{
	double lmin = INFINITY;
	int n = m->nr_nodes, i, j, c, dmax = 10;

	if (n < 1 || n > BWAPD_MAX_NODES)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->nr_nodes = n;
	t->online = (1u << n) - 1;
	for (i = 0; i < BWAPD_MAX_CPUS; i++)
		t->cpu_node[i] = BWAPD_NO_NODE;
	snprintf(t->cpu_model, sizeof(t->cpu_model), "model %s", m->name);
	for (i = 0; i < n; i++)
		for (c = 0; c < n; c++)
			if (m->node[c].cpus && m->latency_ns[i][c] > 0)
				lmin = fmin(lmin, m->latency_ns[i][c]);
	for (i = 0; i < n; i++) {
		struct bwapd_node *nd = &t->node[i];
		double best = 0;

		nd->first_cpu = m->node[i].cpus ? t->nr_cpus : -1;
		for (c = 0; c < m->node[i].cpus && t->nr_cpus < BWAPD_MAX_CPUS;
		     c++)
			t->cpu_node[t->nr_cpus++] = (uint16_t)i;
		nd->nr_cpus = m->node[i].cpus;
		if (nd->nr_cpus)
			t->cpu_nodes |= 1u << i;
		/* presets give no sizes: 64 GiB per memory node */
		nd->mem_bytes = 64ULL << 30;
		t->mem_nodes |= 1u << i;
		nd->has_weight = 1;
		/* row i: from the CPUs of node i to memory j */
		for (j = 0; j < n; j++) {
			if (i == j)
				nd->distance[j] = 10;
			else if (m->node[i].cpus)
				nd->distance[j] = (int)lround(10 * m->latency_ns[j][i] / lmin);
			else
				nd->distance[j] = 0;	/* below */
			if (nd->distance[j] > dmax)
				dmax = nd->distance[j];
		}
		for (c = 0; c < n; c++)
			if (m->node[c].cpus && m->read_gbps[i][c] > best)
				best = m->read_gbps[i][c];
		for (c = 0; c < n; c++)
			if (m->node[c].cpus && m->read_gbps[i][c] == best) {
				nd->initiators |= 1u << c;
				nd->read_bw = (unsigned int)lround(best * 1000);
				nd->write_bw = (unsigned int)lround(m->write_gbps[i][c] * 1000);
				nd->read_lat = (unsigned int)lround(m->latency_ns[i][c]);
				nd->write_lat = nd->read_lat;
			}
	}
	/* a CPU-less node's row mirrors its column; two of them are far apart */
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (!t->node[i].distance[j])
				t->node[i].distance[j] = m->node[j].cpus ?
					t->node[j].distance[i] : dmax;
	return 0;
}

static void model_destroy(struct bwapd_backend *b)
{
	free(b->priv);
	b->priv = NULL;
}

static int model_topology(struct bwapd_backend *b, struct bwapd_topology *t,
			  char *why, size_t len)
{
	(void)why;
	(void)len;
	*t = priv(b)->topo;
	return 0;
}

static int model_ctrl_open(struct bwapd_backend *b, char *why, size_t len)
{
	(void)why;
	(void)len;
	(void)b;
	return 0;
}

static const char *model_ctrl_source(struct bwapd_backend *b)
{
	return priv(b)->source;
}

static int model_ctrl_bytes(struct bwapd_backend *b, int node, uint64_t *read,
			    uint64_t *write)
{
	struct model *p = priv(b);
	int ret = bwm_sim_ctrl_bytes(&p->sim, node, read, write);

	if (!ret) {
		*read += (uint64_t)llround(p->bench_read[node]);
		*write += (uint64_t)llround(p->bench_write[node]);
	}
	return ret;
}

/*
 * What a real benchmark's start costs: its array is written once by the
 * kernel (zeroed pages) and once by the benchmark, interleaved over the
 * memory nodes; the controllers count it like any other traffic.
 */
static void model_bench_init(struct model *p)
{
	int i;

	for (i = 0; i < p->m.nr_nodes; i++)
		p->bench_write[i] += 2.0 * BWAPD_MODEL_BENCH_BYTES;
}

static int model_bench_start(struct bwapd_backend *b, uint32_t workers)
{
	struct model *p = priv(b);

	if (p->bench_workers)
		return -EBUSY;
	if (!workers || (workers & p->topo.cpu_nodes) != workers)
		return -EINVAL;
	p->bench_workers = workers;
	memset(&p->acc, 0, sizeof(p->acc));
	model_bench_init(p);
	return 0;
}

/* A phase of the profiling run: node's controller counts its flows. */
static int model_bench_run(struct bwapd_backend *b, int node, double seconds)
{
	struct model *p = priv(b);
	double counted[BWM_MAX_NODES], exact[BWM_MAX_NODES];
	int w, ret;

	if (!p->bench_workers || node < 0 || node >= p->m.nr_nodes)
		return -EINVAL;
	ret = bwm_sim_bench_phase(&p->sim, p->bench_workers, node, counted);
	if (!ret)
		ret = bwm_bench_phase(&p->m, p->bench_workers, node, 0, NULL,
				      exact);
	if (ret)
		return ret;
	p->acc.busy_s[node] += seconds;
	for (w = 0; w < p->m.nr_nodes; w++) {
		p->bench_read[node] += counted[w] * 1e9 * seconds;
		/* the benchmark counts its own loads exactly */
		p->acc.bytes[node][w] += exact[w] * 1e9 * seconds;
	}
	return 0;
}

static int model_bench_stop(struct bwapd_backend *b,
			    struct bwapd_bench_result *r)
{
	struct model *p = priv(b);
	int i;

	if (!p->bench_workers)
		return -EINVAL;
	for (i = 0; i < p->m.nr_nodes; i++)
		if (p->bench_workers & (1u << i))
			p->acc.threads += p->m.node[i].cpus;
	*r = p->acc;
	p->bench_workers = 0;
	return 0;
}

/* The simulated machine answers, with its counters' noise. */
static int model_bench_flows(struct bwapd_backend *b, const struct bwm_flow *f,
			     int nf, double seconds, struct bwm_flow_result *r)
{
	if (!(seconds > 0))
		return -EINVAL;
	return bwm_sim_bench_flows(&priv(b)->sim, nf, f, r);
}

/* A row the machine has: the default one, or a node with CPUs. */
static int model_row(struct model *p, int row)
{
	return row == BWAPD_DEFAULT_ROW ||
	       (row >= 0 && row < p->m.nr_nodes && p->m.node[row].cpus);
}

static void row_in_force(const struct model *p, int row, uint8_t *w)
{
	int i;

	for (i = 0; i < p->m.nr_nodes; i++)
		w[i] = row == BWAPD_DEFAULT_ROW || !p->rows[row][i] ?
		       p->weights[i] : p->rows[row][i];
}

/*
 * The simulated workload's pages as the kernel places them: shared ones
 * by the default row; private ones by the row of their thread's node
 * while per_initiator is on.
 */
static int model_place(struct model *p)
{
	struct bwm_placement pl;
	uint8_t w[BWAPD_MAX_NODES];
	int c, ret;

	ret = bwm_placement_from_weights(&pl, p->m.nr_nodes, p->weights,
					 p->sim.wl.workers, 0);
	for (c = 0; !ret && p->per_initiator && c < p->m.nr_nodes; c++) {
		if (!p->m.node[c].cpus)
			continue;
		row_in_force(p, c, w);
		ret = bwm_weights_to_fractions(w, p->m.nr_nodes, pl.priv[c]);
	}
	return ret ? ret : bwm_sim_set_placement(&p->sim, &pl);
}

static int model_weights_get(struct bwapd_backend *b, int row, uint8_t *w,
			     int nr)
{
	struct model *p = priv(b);

	if (nr < p->m.nr_nodes)
		return -EINVAL;
	if (!model_row(p, row))
		return -ENOENT;
	memset(w, 0, (size_t)nr);
	row_in_force(p, row, w);
	return 0;
}

static int model_weight_set(struct bwapd_backend *b, int row, int node,
			    uint8_t w)
{
	struct model *p = priv(b);
	uint8_t *at, old;
	int ret;

	if (!model_row(p, row))
		return -ENOENT;
	if (node < 0 || node >= p->m.nr_nodes ||
	    (!w && row == BWAPD_DEFAULT_ROW))
		return -EINVAL;
	at = row == BWAPD_DEFAULT_ROW ? &p->weights[node] : &p->rows[row][node];
	old = *at;
	*at = w;
	ret = model_place(p);
	if (ret)
		*at = old;
	return ret;
}

/* per_initiator; the model derives no weights from firmware (no auto). */
static int model_weights_switch(struct bwapd_backend *b, const char *name,
				int on)
{
	struct model *p = priv(b);
	int old = p->per_initiator, ret;

	if (strcmp(name, "per_initiator"))
		return -ENOENT;
	if (on < 0)
		return old;
	p->per_initiator = !!on;
	ret = model_place(p);
	if (ret)
		p->per_initiator = old;
	return ret;
}

static const struct bwapd_backend_ops model_ops = {
	.name = "model",
	.destroy = model_destroy,
	.topology = model_topology,
	.ctrl_open = model_ctrl_open,
	.ctrl_bytes = model_ctrl_bytes,
	.ctrl_source = model_ctrl_source,
	.bench_start = model_bench_start,
	.bench_run = model_bench_run,
	.bench_stop = model_bench_stop,
	.bench_flows = model_bench_flows,
	.weights_get = model_weights_get,
	.weight_set = model_weight_set,
	.weights_switch = model_weights_switch,
};

int bwapd_backend_model(struct bwapd_backend *b, const char *machine_json,
			uint64_t seed, double noise, char *why, size_t len)
{
	struct bwm_workload wl;
	struct bwm_error err;
	struct model *p;
	int i, ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	ret = bwm_machine_load(machine_json, &p->m, &err);
	if (ret) {
		bwm_error_format(&err, machine_json, why, len);
		free(p);
		return ret;
	}
	ret = bwapd_model_topology(&p->m, &p->topo);
	/* until a tuner names one: a bandwidth-bound run on every CPU node */
	memset(&wl, 0, sizeof(wl));
	snprintf(wl.name, sizeof(wl.name), "background");
	wl.workers = bwm_cpu_nodes(&p->m);
	for (i = 0; i < p->m.nr_nodes; i++)
		wl.threads[i] = p->m.node[i].cpus;
	wl.demand_gbps = 4;
	wl.mlp = 10;
	wl.shared = 1;
	wl.read = 1;
	wl.work_gb = 1;
	wl.first_touch_node = -1;
	if (!ret)
		ret = bwm_sim_init(&p->sim, &p->m, &wl, seed, noise);
	if (ret) {
		snprintf(why, len, "%s: cannot start the model: %s",
			 machine_json, strerror(-ret));
		free(p);
		return ret;
	}
	for (i = 0; i < p->m.nr_nodes; i++)
		p->weights[i] = 1;
	snprintf(p->source, sizeof(p->source),
		 "model %s: controller counters of %d nodes", p->m.name,
		 p->m.nr_nodes);
	b->ops = &model_ops;
	b->priv = p;
	return 0;
}

void bwapd_backend_destroy(struct bwapd_backend *b)
{
	if (b->ops && b->ops->destroy)
		b->ops->destroy(b);
	b->ops = NULL;
}
