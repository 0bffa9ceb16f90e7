// SPDX-License-Identifier: GPL-2.0
/*
 * The model backend: a workload running on the modelled machine, with
 * cumulative counters as perf reports them (per-node controller bytes,
 * stalled cycles) and the actuator a tuner uses (weights, DWP).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model.h"

static int sim_update(struct bwm_sim *sim)
{
	return bwm_predict(sim->m, &sim->wl, &sim->pl, &sim->pred);
}

int bwm_sim_init(struct bwm_sim *sim, const struct bwm_machine *m,
		 const struct bwm_workload *wl, uint64_t seed, double noise)
{
	double frac[BWM_MAX_NODES];
	int j, ret;

	if (!(noise >= 0))
		return -EINVAL;
	ret = bwm_workload_check(m, wl, NULL);
	if (ret)
		return ret;
	memset(sim, 0, sizeof(*sim));
	sim->m = m;
	sim->wl = *wl;
	sim->noise = noise;
	bwm_rng_seed(&sim->rng, seed);
	for (j = 0; j < m->nr_nodes; j++)
		frac[j] = 1.0 / m->nr_nodes;
	bwm_placement_interleave(&sim->pl, m->nr_nodes, frac);
	return sim_update(sim);
}

int bwm_sim_set_placement(struct bwm_sim *sim, const struct bwm_placement *pl)
{
	struct bwm_placement old = sim->pl;
	int ret;

	sim->pl = *pl;
	ret = sim_update(sim);
	if (ret) {
		sim->pl = old;
		sim_update(sim);
	}
	return ret;
}

int bwm_sim_set_weights(struct bwm_sim *sim, const uint8_t *weights,
			double dwp)
{
	struct bwm_placement pl;
	int ret;

	ret = bwm_placement_from_weights(&pl, sim->m->nr_nodes, weights,
					 sim->wl.workers, dwp);
	return ret ? ret : bwm_sim_set_placement(sim, &pl);
}

static uint64_t counter_add(struct bwm_sim *sim, double v)
{
	double d = v * bwm_noise_factor(&sim->rng, sim->noise);

	return d > 0 ? (uint64_t)llround(d) : 0;
}

int bwm_sim_run(struct bwm_sim *sim, double seconds)
{
	const struct bwm_prediction *p = &sim->pred;
	int j;

	if (!(seconds >= 0))
		return -EINVAL;
	for (j = 0; j < sim->m->nr_nodes; j++) {
		sim->ctrl_read_bytes[j] +=
			counter_add(sim, p->ctrl_read_gbps[j] * 1e9 * seconds);
		sim->ctrl_write_bytes[j] +=
			counter_add(sim, p->ctrl_write_gbps[j] * 1e9 * seconds);
		sim->ctrl_local_bytes[j] +=
			counter_add(sim, p->ctrl_local_gbps[j] * 1e9 * seconds);
	}
	sim->stall_cycles += counter_add(sim, p->stall_rate * seconds);
	sim->cycles += (uint64_t)llround(bwm_workload_nr_threads(&sim->wl) *
					 sim->m->cpu_ghz * 1e9 * seconds);
	sim->done_gb += p->throughput_gbps /
			bwm_workload_nr_threads(&sim->wl) * seconds;
	sim->now_s += seconds;
	return 0;
}

int bwm_sim_ctrl_bytes(const struct bwm_sim *sim, int node,
		       uint64_t *read_bytes, uint64_t *write_bytes)
{
	if (node < 0 || node >= sim->m->nr_nodes)
		return -EINVAL;
	*read_bytes = sim->ctrl_read_bytes[node];
	*write_bytes = sim->ctrl_write_bytes[node];
	return 0;
}

uint64_t bwm_sim_stall_cycles(const struct bwm_sim *sim)
{
	return sim->stall_cycles;
}

int bwm_sim_profile(struct bwm_sim *sim, uint32_t workers, double seconds,
		    struct bwm_profile *out)
{
	return bwm_profile_run(sim->m, workers, seconds, sim->noise,
			       &sim->rng, out);
}

int bwm_sim_bench_phase(struct bwm_sim *sim, uint32_t workers, int node,
			double *gbps)
{
	return bwm_bench_phase(sim->m, workers, node, sim->noise, &sim->rng,
			       gbps);
}

int bwm_sim_bench_flows(struct bwm_sim *sim, int nf, const struct bwm_flow *f,
			struct bwm_flow_result *r)
{
	return bwm_bench_flows(sim->m, nf, f, sim->noise, &sim->rng, r);
}
