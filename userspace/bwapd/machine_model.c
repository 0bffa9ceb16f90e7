// SPDX-License-Identifier: GPL-2.0
/*
 * The machine's model: the prior from the firmware, the measurement on
 * top of it, and the fit (Documentation/bwapd.md, "The machine's model").
 *
 * What the model needs to predict a placement is what bounds a thread's
 * traffic from a node: the route's own bandwidth (read and write), what
 * several routes share (a memory controller, a link, the interconnect of
 * a CPU node), and the latency, idle and as it grows with load.  Each is
 * what one kind of phase of the benchmark shows:
 *
 *   route        every thread of CPU node c streams loads (then stores)
 *                from node m alone: read_gbps[m][c], write_gbps[m][c];
 *                one of them chases pointers meanwhile: the loaded latency
 *   chase        one thread of c chases pointers through m, idle
 *                otherwise: latency_ns[m][c]
 *   controller   every CPU node loads (then stores) node m at once: if
 *                they get less together than each route alone gives,
 *                something they share holds them (ctrl_*_gbps, or a link);
 *                if not, the controller is at least that fast
 *   interconnect CPU node c loads every other node at once: what its
 *                routes share on their way in
 *   fan          a route that the links offer more than one way to
 *                take, beside flows that fill a link of one way only:
 *                which way the machine routes it (choose_routes())
 *   pair         c loads two nodes whose routes an inferred link would
 *                carry both (after the others, from their links)
 *
 * The links are read off the idle latencies (infer_links()).  The fit
 * (fit()) makes the model answer every phase as the machine did, with the
 * links and without them; the one that answers better is kept.  The
 * queueing factor is the one whose loaded latencies come closest to
 * those the phases timed.
 *
 * Each phase runs in 'repeats' periods: a figure is their mean, its
 * standard error their spread.  A figure no phase measured keeps the
 * prior's value and origin.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bestshot.h"
#include "machine_model.h"
#include "profile.h"

/* The prior's standard errors, relative: stated, not measured. */
#define SE_HMAT		0.10	/* HMAT's own figure for an initiator */
#define SE_HMAT_SCALED	0.30	/* ...scaled by SLIT for another one */
#define SE_SLIT		0.50	/* SLIT on an assumed scale */
/* The scale SLIT alone does not give: a local DDR4 node. */
#define SLIT_LOCAL_READ		20.0
#define SLIT_LOCAL_WRITE	15.0
#define SLIT_LOCAL_NS		90.0
#define ASSUMED_GHZ		2.0
/* a shared limit shows when the routes together get this much less */
#define SHARED_BELOW		0.03
#define QF_MAX			4.0

static const char *const origin_name[BWAPD_ORIGIN_NR] = {
	[BWAPD_ORIGIN_ASSUMED] = "assumed",
	[BWAPD_ORIGIN_SLIT] = "slit",
	[BWAPD_ORIGIN_HMAT] = "hmat",
	[BWAPD_ORIGIN_MEASURED] = "measured",
	[BWAPD_ORIGIN_AT_LEAST] = "at least",
};

const char *bwapd_origin_name(enum bwapd_origin o)
{
	return o < BWAPD_ORIGIN_NR ? origin_name[o] : "?";
}

static struct bwapd_figure fig(enum bwapd_origin o, double se)
{
	struct bwapd_figure f = { .origin = o, .se = se };

	return f;
}

int bwapd_mm_prior(const struct bwapd_topology *t,
		   struct bwapd_machine_model *mm)
{
	struct bwm_machine *m = &mm->m;
	int hmat = bwapd_have_hmat(t), n = t->nr_nodes, i, c;

	if (n < 1 || n > BWAPD_MAX_NODES || !t->cpu_nodes)
		return -EINVAL;
	memset(mm, 0, sizeof(*mm));
	snprintf(m->name, sizeof(m->name), "bwapd-profile");
	m->nr_nodes = n;
	m->cpu_ghz = ASSUMED_GHZ;
	m->core_speed = 1;
	m->queue_factor = BWM_DEFAULT_QUEUE_FACTOR;
	mm->queue_factor = fig(BWAPD_ORIGIN_ASSUMED, BWM_DEFAULT_QUEUE_FACTOR);
	for (i = 0; i < n; i++) {
		const struct bwapd_node *nd = &t->node[i];
		int mem = !!(t->mem_nodes & (1u << i)), d0 = 255;
		double rd, wr, ns;
		enum bwapd_origin o = hmat && mem ? BWAPD_ORIGIN_HMAT :
				      mem ? BWAPD_ORIGIN_SLIT :
					    BWAPD_ORIGIN_ASSUMED;

		m->node[i].cpus = nd->nr_cpus;
		if (hmat && mem) {
			for (c = 0; c < n; c++)
				if ((nd->initiators & (1u << c)) &&
				    t->node[c].distance[i] < d0)
					d0 = t->node[c].distance[i];
			rd = nd->read_bw / 1000.0;
			wr = nd->write_bw ? nd->write_bw / 1000.0 : rd;
			ns = nd->read_lat ? nd->read_lat : SLIT_LOCAL_NS;
		} else {
			d0 = 10;
			rd = SLIT_LOCAL_READ;
			wr = SLIT_LOCAL_WRITE;
			ns = SLIT_LOCAL_NS;
		}
		if (!mem) {
			/* no pages go there; the format wants figures */
			rd = wr = 1e-3;
		}
		m->node[i].ctrl_read_gbps = rd;
		m->node[i].ctrl_write_gbps = wr;
		mm->ctrl_read[i] = fig(o, rd * (o == BWAPD_ORIGIN_HMAT ?
						SE_HMAT : SE_SLIT));
		mm->ctrl_write[i] = fig(o, wr * (o == BWAPD_ORIGIN_HMAT ?
						 SE_HMAT : SE_SLIT));
		mm->interconnect[i] = fig(BWAPD_ORIGIN_ASSUMED, 0);
		for (c = 0; c < n; c++) {
			int d = t->node[c].distance[i];
			double s = d > 0 ? (double)d0 / d : 1, se;

			if (!t->node[c].nr_cpus)
				continue;
			m->read_gbps[i][c] = rd * s;
			m->write_gbps[i][c] = wr * s;
			m->latency_ns[i][c] = ns / s;
			se = o == BWAPD_ORIGIN_HMAT ?
			     (nd->initiators & (1u << c) ? SE_HMAT : SE_HMAT_SCALED) :
			     SE_SLIT;
			mm->read[i][c] = fig(o, m->read_gbps[i][c] * se);
			mm->write[i][c] = fig(o, m->write_gbps[i][c] * se);
			mm->latency[i][c] = fig(o, m->latency_ns[i][c] * se);
		}
	}
	return 0;
}

/* The kinds of phase, in the order they run. */
enum phase_kind { PH_CHASE, PH_READ, PH_WRITE, PH_CTRL_READ, PH_CTRL_WRITE,
		  PH_INTERCONNECT, PH_NR, PH_PAIR = PH_NR, PH_LINK, PH_FAN };

/* One phase: its flows, and what each moved and the latency it saw. */
struct phase {
	enum phase_kind kind;
	int nf;
	struct bwm_flow f[BWAPD_MAX_NODES];
	double g[BWAPD_MAX_NODES], g_se[BWAPD_MAX_NODES];
	double ns[BWAPD_MAX_NODES], ns_se[BWAPD_MAX_NODES];	/* 0: untimed */
	/* PH_FAN: the route from ra to rb, as its candidate cand would go */
	int ra, rb, cand;
};

/*
 * The phases for t: a chase, a read and a write of every route (CPU node
 * c, memory node m), one at a time; every CPU node reading (then writing)
 * each memory node together, where there are two CPU nodes or more; each
 * CPU node reading every other memory node at once, where there are two
 * or more of them.  NULL: count only.
 */
static int plan(const struct bwapd_topology *t, struct phase *ph)
{
	uint32_t cpu = t->cpu_nodes, mem = t->mem_nodes;
	int n = t->nr_nodes, nr = 0, k, j, c;

	for (k = PH_CHASE; k < PH_NR; k++) {
		for (j = 0; j < n; j++) {
			struct phase p = { .kind = k };

			if (k == PH_INTERCONNECT) {
				if (!(cpu & (1u << j)) ||
				    __builtin_popcount(mem & ~(1u << j)) < 2)
					continue;
				p.f[p.nf].cpu = j;
				p.f[p.nf++].mem = mem & ~(1u << j);
			} else if (!(mem & (1u << j))) {
				continue;
			}
			for (c = 0; c < n && k != PH_INTERCONNECT; c++) {
				struct bwm_flow f = {
					.cpu = c, .mem = 1u << j,
					.write = k == PH_WRITE || k == PH_CTRL_WRITE,
					.chase = k == PH_CHASE,
				};

				if (!(cpu & (1u << c)))
					continue;
				if (k == PH_CTRL_READ || k == PH_CTRL_WRITE) {
					p.f[p.nf++] = f;
					continue;
				}
				if (ph) {
					ph[nr] = p;
					ph[nr].f[0] = f;
					ph[nr].nf = 1;
				}
				nr++;
			}
			if (!p.nf || ((k == PH_CTRL_READ || k == PH_CTRL_WRITE) &&
				      p.nf < 2))
				continue;
			if (ph)
				ph[nr] = p;
			nr++;
		}
	}
	return nr;
}

void bwapd_mm_opts_default(struct bwapd_mm_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seconds = 0.9;
	o->chase_seconds = 0.15;
	o->repeats = 3;
}

/*
 * A fan phase asks only whether the route slows down beside its
 * witnesses, which a third of a route's time shows (a drop of 3 % or
 * more).
 */
static double phase_seconds(const struct bwapd_mm_opts *o, const struct phase *p)
{
	return p->kind == PH_CHASE ? o->chase_seconds :
	       p->kind == PH_FAN ? o->seconds / 3 : o->seconds;
}

int bwapd_mm_plan(const struct bwapd_topology *t,
		  const struct bwapd_mm_opts *o, double *seconds)
{
	int n = plan(t, NULL), i;
	struct phase *ph = calloc((size_t)n + 1, sizeof(*ph));

	*seconds = 0;
	if (!ph)
		return -ENOMEM;
	plan(t, ph);
	for (i = 0; i < n; i++)
		*seconds += phase_seconds(o, &ph[i]);
	free(ph);
	return n;
}

/* One phase in o->repeats periods: each flow's mean and standard error. */
static int run_phase(struct bwapd_backend *b, const struct bwapd_mm_opts *o,
		     struct phase *p)
{
	double sg[BWAPD_MAX_NODES] = { 0 }, sg2[BWAPD_MAX_NODES] = { 0 };
	double sl[BWAPD_MAX_NODES] = { 0 }, sl2[BWAPD_MAX_NODES] = { 0 };
	int nl[BWAPD_MAX_NODES] = { 0 }, k, i, ret, r = o->repeats;

	for (k = 0; k < r; k++) {
		struct bwm_flow_result res[BWAPD_MAX_NODES];

		ret = b->ops->bench_flows(b, p->f, p->nf,
					  phase_seconds(o, p) / r, res);
		if (ret)
			return ret;
		for (i = 0; i < p->nf; i++) {
			sg[i] += res[i].gbps;
			sg2[i] += res[i].gbps * res[i].gbps;
			if (res[i].latency_ns > 0) {
				sl[i] += res[i].latency_ns;
				sl2[i] += res[i].latency_ns * res[i].latency_ns;
				nl[i]++;
			}
		}
	}
	for (i = 0; i < p->nf; i++) {
		double v;

		p->g[i] = sg[i] / r;
		v = r > 1 ? (sg2[i] - r * p->g[i] * p->g[i]) / (r - 1) : 0;
		p->g_se[i] = sqrt(fmax(v, 0) / r);
		p->ns[i] = nl[i] ? sl[i] / nl[i] : 0;
		v = nl[i] > 1 ? (sl2[i] - nl[i] * p->ns[i] * p->ns[i]) / (nl[i] - 1) : 0;
		p->ns_se[i] = nl[i] ? sqrt(fmax(v, 0) / nl[i]) : 0;
	}
	return 0;
}

/* The model's answer for a phase (no noise): traffic and latency per flow. */
static int predict(const struct bwm_machine *m, const struct phase *p,
		   struct bwm_flow_result *r)
{
	return bwm_bench_flows(m, p->nf, p->f, 0, NULL, r);
}

static double sum(const double *v, int n)
{
	double s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* The phases and the model whose queue factor is fitted to them. */
struct qf_arg {
	struct bwm_machine *m;
	const struct phase *ph;
	int nr, timed;
};

/* Sum of squared log errors of the timed loaded latencies, queue factor q. */
static double qf_error(double q, void *arg)
{
	struct qf_arg *a = arg;
	double e = 0;
	int i, k;

	a->m->queue_factor = q;
	a->timed = 0;
	for (i = 0; i < a->nr; i++) {
		const struct phase *p = &a->ph[i];
		struct bwm_flow_result r[BWAPD_MAX_NODES];

		if (p->kind == PH_CHASE)
			continue;
		if (predict(a->m, p, r))
			return INFINITY;
		for (k = 0; k < p->nf; k++) {
			double d;

			if (!(p->ns[k] > 0) || !(r[k].latency_ns > 0))
				continue;
			d = log(r[k].latency_ns / p->ns[k]);
			e += d * d;
			a->timed++;
		}
	}
	return e;
}

/*
 * The queue factor that times the loaded latencies best (golden section
 * over [0, QF_MAX]); its standard error: half the span of factors that
 * fit within 1 % more rms error (scanned in steps of 1/40 of it).
 */
static void fit_queue_factor(struct bwapd_machine_model *mm,
			     const struct phase *ph, int nr)
{
	struct qf_arg a = { .m = &mm->m, .ph = ph, .nr = nr };
	double lo, hi, best, fx, limit;
	int i;

	qf_error(BWM_DEFAULT_QUEUE_FACTOR, &a);
	if (!a.timed) {
		mm->m.queue_factor = BWM_DEFAULT_QUEUE_FACTOR;
		return;
	}
	best = bwapd_golden(qf_error, &a, 0, QF_MAX, 40, &fx);
	limit = sqrt(fx / a.timed) + 0.01;
	limit *= limit * a.timed;
	lo = hi = best;
	for (i = 1; i <= 80; i++) {
		double d = (best + 0.05) * i / 40;

		if (best - d >= 0 && qf_error(best - d, &a) <= limit)
			lo = best - d;
		if (best + d <= QF_MAX && qf_error(best + d, &a) <= limit)
			hi = best + d;
	}
	mm->m.queue_factor = best;
	mm->queue_factor = fig(BWAPD_ORIGIN_MEASURED, (hi - lo) / 2);
}

#define FIT_ROUNDS	12
/*
 * a latency within this share of a sum of hops goes over them, or within
 * HOP_SE of the standard errors of the chases that timed them
 */
#define HOP_SLACK	0.05
#define HOP_SE		3.0

/* Add the link a -> b unless it is there. */
static void add_link(struct bwm_machine *m, int a, int b)
{
	int l;

	for (l = 0; l < m->nr_links; l++)
		if (m->link[l].from == a && m->link[l].to == b)
			return;
	if (m->nr_links < BWM_MAX_LINKS) {
		m->link[m->nr_links].from = a;
		m->link[m->nr_links].to = b;
		m->link[m->nr_links++].gbps = 1;
	}
}

/*
 * How much more than H(a, b) the hops through k may take and still be
 * its route: HOP_SLACK of it, or HOP_SE standard errors of the four
 * chases the comparison rests on (H(a, k) + H(k, b) - H(a, b) is
 * L[a][k] + L[k][b] - L[k][k] - L[a][b]), whichever is more.  A latency
 * no chase timed adds nothing: its error is a guess, not a spread.
 */
static double hop_slack(const struct bwapd_machine_model *mm, double h,
			int a, int k, int b)
{
	const struct bwapd_figure *f[4] = {
		&mm->latency[a][k], &mm->latency[k][b],
		&mm->latency[k][k], &mm->latency[a][b],
	};
	double v = 0;
	int i;

	for (i = 0; i < 4; i++)
		if (f[i]->origin == BWAPD_ORIGIN_MEASURED)
			v += f[i]->se * f[i]->se;
	return fmax(HOP_SLACK * h, HOP_SE * sqrt(v));
}

/*
 * The links between nodes, from the idle latencies the chases measured.
 * From CPU node a's memory to CPU node b, H(a, b) = latency - a's local
 * latency is the time the hops take; a route that the hops through some
 * other CPU node k explain (H(a, k) + H(k, b) within HOP_SLACK of it)
 * goes through k, any other is a link of its own; the chases' own
 * spread widens that margin (hop_slack()).  A node without CPUs
 * hangs off the CPU nodes nearest to it, and off any other whose latency
 * a route through those does not explain.  Links carry data one way:
 * reads from memory to CPUs, writes back.  0: no links (latencies not
 * measured, or a machine of one CPU node).
 */
static int infer_links(struct bwapd_machine_model *mm,
		       const struct bwapd_topology *t)
{
	struct bwm_machine *m = &mm->m;
	double H[BWAPD_MAX_NODES][BWAPD_MAX_NODES];
	uint32_t cpu = t->cpu_nodes, both = t->cpu_nodes & t->mem_nodes;
	int n = t->nr_nodes, a, b, k;

	m->nr_links = 0;
	if (__builtin_popcount(cpu) < 2)
		return 0;
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++)
			H[a][b] = (both & (1u << a)) && (cpu & (1u << b)) ?
				  m->latency_ns[a][b] - m->latency_ns[a][a] : -1;
	for (a = 0; a < n; a++) {
		if (!(t->mem_nodes & (1u << a)))
			continue;
		if (both & (1u << a)) {
			for (b = 0; b < n; b++) {
				int direct = b != a && (cpu & (1u << b));

				for (k = 0; direct && k < n; k++)
					if (k != a && k != b && (both & (1u << k)) &&
					    H[a][k] > 0 && H[k][b] > 0 &&
					    H[a][k] + H[k][b] <= H[a][b] +
					    hop_slack(mm, H[a][b], a, k, b))
						direct = 0;
				if (direct) {
					add_link(m, a, b);
					add_link(m, b, a);
				}
			}
			continue;
		}
		/* without CPUs: the nearest, and whom they do not explain */
		{
			double best = INFINITY;

			for (b = 0; b < n; b++)
				if (cpu & (1u << b))
					best = fmin(best, m->latency_ns[a][b]);
			for (b = 0; b < n; b++) {
				int direct = (cpu & (1u << b)) &&
					     m->latency_ns[a][b] <= best * (1 + HOP_SLACK / 2);

				for (k = 0; !direct && (cpu & (1u << b)) && k < n; k++) {
					if (!(both & (1u << k)) || k == b ||
					    m->latency_ns[a][k] > best * (1 + HOP_SLACK / 2))
						continue;
					if (fabs(m->latency_ns[a][k] + H[k][b] -
						 m->latency_ns[a][b]) <=
					    HOP_SLACK * m->latency_ns[a][b])
						break;
					if (k == n - 1)
						direct = 1;
				}
				if ((cpu & (1u << b)) && !direct && k >= n)
					direct = 1;
				if (direct) {
					add_link(m, a, b);
					add_link(m, b, a);
				}
			}
		}
	}
	return m->nr_links;
}

/* The links a flow's routes cross (reads from its nodes, or writes). */
/* The links of a flow's route between node j and its CPU node (0: none). */
static uint64_t route_links(const struct bwm_machine *m,
			    const struct bwm_flow *f, int j)
{
	if (!(f->mem & (1u << j)) || j == f->cpu)
		return 0;
	return f->write ? m->route[f->cpu][j] : m->route[j][f->cpu];
}

static uint64_t flow_links(const struct bwm_machine *m, const struct bwm_flow *f)
{
	uint64_t l = 0;
	int j;

	for (j = 0; j < m->nr_nodes; j++)
		l |= route_links(m, f, j);
	return l;
}

/*
 * The least each link carries: what a route alone moved across it.  With
 * nothing better known, that is its width, and the routes follow it.
 */
static void link_floors(struct bwm_machine *m, const struct phase *ph, int nr,
			double *floor)
{
	struct bwm_error err;
	int i, l, pass;

	for (pass = 0; pass < 2; pass++) {
		if (bwm_machine_routes(m, &err))
			return;
		for (l = 0; l < m->nr_links; l++)
			floor[l] = 0;
		for (i = 0; i < nr; i++) {
			uint64_t crossed;

			if (ph[i].kind != PH_READ && ph[i].kind != PH_WRITE)
				continue;
			crossed = flow_links(m, &ph[i].f[0]);
			for (l = 0; l < m->nr_links; l++)
				if (crossed & (1ull << l))
					floor[l] = fmax(floor[l], ph[i].g[0]);
		}
		for (l = 0; l < m->nr_links; l++)
			m->link[l].gbps = floor[l] > 0 ? floor[l] : 1;
	}
	bwm_machine_routes(m, &err);
}

/*
 * Does the latency the phase timed explain what it moved?  Streams that
 * keep a fixed number of lines in flight move in inverse proportion to
 * the latency: where the model's latency is lower than the one timed by
 * as much as its traffic is higher, the difference is in the queueing,
 * not in a capacity.
 */
static int latency_explains(const struct phase *p,
			    const struct bwm_flow_result *r, double got,
			    double want)
{
	double timed = 0, model = 0;
	int k;

	for (k = 0; k < p->nf; k++)
		if (p->ns[k] > 0 && r[k].latency_ns > 0) {
			timed += p->ns[k];
			model += r[k].latency_ns;
		}
	if (!(timed > 0) || got >= want)
		return 0;
	return want / got <= timed / model * (1 + SHARED_BELOW);
}

/*
 * Did flow k's streams fill what they crossed?  Their lines in flight
 * (BWM_BENCH_MLP a thread) at the latency timed would have moved more
 * than they did: something held them - the route, a link or a
 * controller - at what they moved, and the latency then tells no width.
 */
static int filled(const struct bwm_machine *m, const struct phase *p, int k)
{
	double lines = m->node[p->f[k].cpu].cpus * BWM_BENCH_MLP;

	return p->ns[k] > 0 && !p->f[k].chase &&
	       p->g[k] < lines * BWM_LINE_BYTES / p->ns[k] * (1 - SHARED_BELOW);
}

/*
 * The links that two routes of the phase or more cross: a link one route
 * alone crosses is no more loaded than when that route ran alone, and
 * cannot be what the phase's routes lose together.
 */
static uint64_t shared_links(const struct bwm_machine *m, const struct phase *p)
{
	uint64_t once = 0, twice = 0;
	int c, j;

	for (c = 0; c < p->nf; c++)
		for (j = 0; j < m->nr_nodes; j++) {
			uint64_t r = route_links(m, &p->f[c], j);

			twice |= once & r;
			once |= r;
		}
	return twice;
}

/*
 * A phase of several routes that the model gives more than the machine
 * did: what binds it is the most loaded of what its routes share (a
 * link two of them cross, above the least it carries, or the controller
 * of a controller phase), lowered until the model gives what was
 * measured.  One the model gives less: the binding one is raised.  1 if
 * a figure moved.
 */
static int fit_shared(struct bwapd_machine_model *mm, const struct phase *p,
		      const double *floor)
{
	struct bwm_machine *m = &mm->m;
	struct bwm_flow_result r[BWAPD_MAX_NODES];
	double cu[BWAPD_MAX_NODES], lu[BWM_MAX_LINKS], got, want = 0, most = 0;
	double *cap = NULL, least = 0;
	struct bwapd_figure *f = NULL;
	uint64_t crossed = shared_links(m, p);
	int j = __builtin_ctz(p->f[0].mem), c, l, ctrl;

	ctrl = p->kind == PH_CTRL_READ || p->kind == PH_CTRL_WRITE;
	if (bwm_bench_flows_load(m, p->nf, p->f, r, cu, lu))
		return 0;
	got = sum(p->g, p->nf);
	for (c = 0; c < p->nf; c++)
		want += r[c].gbps;
	if (!(want > 0) || !(got > 0) || fabs(got / want - 1) < SHARED_BELOW / 3 ||
	    latency_explains(p, r, got, want))
		return 0;
	if (ctrl) {
		most = cu[j];
		cap = p->kind == PH_CTRL_READ ? &m->node[j].ctrl_read_gbps :
						&m->node[j].ctrl_write_gbps;
		f = p->kind == PH_CTRL_READ ? &mm->ctrl_read[j] : &mm->ctrl_write[j];
		/* it served each of them at least */
		for (c = 0; c < p->nf; c++)
			least = fmax(least, p->g[c]);
	}
	for (l = 0; l < m->nr_links; l++) {
		if (!(crossed & (1ull << l)) || lu[l] <= most)
			continue;
		if (got < want && m->link[l].gbps <= floor[l] * (1 + 1e-9))
			continue;	/* it carried more alone */
		most = lu[l];
		cap = &m->link[l].gbps;
		f = NULL;
		least = floor[l];
	}
	if (!cap || (got < want && most < 0.5))
		return 0;
	/*
	 * Raised, never beyond four times what the phase moved: where the
	 * model still gives less, something else holds it (a measurement
	 * the model cannot answer), and a raise each round would grow
	 * without bound.
	 */
	*cap = fmin(fmax(*cap * got / want, least), fmax(*cap, 4 * got));
	if (f) {
		double se2 = 0;

		for (c = 0; c < p->nf; c++)
			se2 += p->g_se[c] * p->g_se[c];
		*f = fig(BWAPD_ORIGIN_MEASURED, sqrt(se2));
	}
	return 1;
}

/* Does CPU node c's interconnect bound a phase that moves 'remote' GB/s? */
static int interconnect_holds(const struct bwm_machine *m, int c, double remote)
{
	double in = m->node[c].interconnect_gbps;

	return in > 0 && remote >= in * (1 - 1e-3);
}

/*
 * The figures that make the model answer every phase as the machine did:
 * a route is as wide as makes the latency under its phase's load the one
 * timed (the benchmark's own threads wait on that latency too: what they
 * moved is not the route's width), and no narrower than what it moved;
 * links (with 'links', from the latencies) at least as wide as what a
 * route alone moved over them; what several routes at once get shows
 * which link or controller they share, lowered until the model gives
 * that, unless the latency timed explains it.  Where nothing else
 * explains a CPU node's remote traffic, its interconnect does.  Then the
 * queue factor; FIT_ROUNDS rounds of all.
 */
static void fit(struct bwapd_machine_model *mm, const struct phase *ph, int nr,
		const struct bwapd_topology *t, int links)
{
	struct bwm_machine *m = &mm->m;
	double floor[BWM_MAX_LINKS] = { 0 };
	int i, round, c, j;

	/* first guesses: what each phase moved; nothing shared */
	for (i = 0; i < nr; i++) {
		const struct phase *p = &ph[i];

		c = p->f[0].cpu;
		j = __builtin_ctz(p->f[0].mem);
		switch (p->kind) {
		case PH_CHASE:
			if (p->ns[0] > 0) {
				m->latency_ns[j][c] = p->ns[0];
				mm->latency[j][c] = fig(BWAPD_ORIGIN_MEASURED, p->ns_se[0]);
			}
			break;
		case PH_READ:
			m->read_gbps[j][c] = p->g[0];
			mm->read[j][c] = fig(BWAPD_ORIGIN_MEASURED, p->g_se[0]);
			m->node[j].ctrl_read_gbps = fmax(m->node[j].ctrl_read_gbps, p->g[0]);
			mm->ctrl_read[j] = fig(BWAPD_ORIGIN_AT_LEAST, p->g_se[0]);
			break;
		case PH_WRITE:
			m->write_gbps[j][c] = p->g[0];
			mm->write[j][c] = fig(BWAPD_ORIGIN_MEASURED, p->g_se[0]);
			m->node[j].ctrl_write_gbps = fmax(m->node[j].ctrl_write_gbps, p->g[0]);
			mm->ctrl_write[j] = fig(BWAPD_ORIGIN_AT_LEAST, p->g_se[0]);
			break;
		case PH_CTRL_READ:
			m->node[j].ctrl_read_gbps = fmax(m->node[j].ctrl_read_gbps,
							 sum(p->g, p->nf));
			break;
		case PH_CTRL_WRITE:
			m->node[j].ctrl_write_gbps = fmax(m->node[j].ctrl_write_gbps,
							  sum(p->g, p->nf));
			break;
		case PH_INTERCONNECT:
			m->node[c].interconnect_gbps = 0;
			mm->interconnect[c] = fig(BWAPD_ORIGIN_AT_LEAST, p->g_se[0]);
			break;
		default:
			break;
		}
	}
	m->nr_links = 0;
	if (links && infer_links(mm, t))
		link_floors(m, ph, nr, floor);
	for (round = 0; round < FIT_ROUNDS; round++) {
		/* a controller no phase found shared serves its widest route */
		for (j = 0; j < m->nr_nodes; j++)
			for (c = 0; c < m->nr_nodes; c++) {
				if (!m->node[c].cpus || !(t->mem_nodes & (1u << j)))
					continue;
				if (mm->ctrl_read[j].origin == BWAPD_ORIGIN_AT_LEAST)
					m->node[j].ctrl_read_gbps =
						fmax(m->node[j].ctrl_read_gbps,
						     m->read_gbps[j][c]);
				if (mm->ctrl_write[j].origin == BWAPD_ORIGIN_AT_LEAST)
					m->node[j].ctrl_write_gbps =
						fmax(m->node[j].ctrl_write_gbps,
						     m->write_gbps[j][c]);
			}
		fit_queue_factor(mm, ph, nr);
		for (i = 0; i < nr; i++) {
			const struct phase *p = &ph[i];
			struct bwm_flow_result r[BWAPD_MAX_NODES];
			double got, want, *cap;

			if (p->kind == PH_CHASE) {
				/*
				 * The chase queues behind its own lines: the
				 * idle latency is the one timed less the
				 * queueing the model gives its load.
				 */
				c = p->f[0].cpu;
				j = __builtin_ctz(p->f[0].mem);
				if (p->ns[0] > 0 && !predict(m, p, r) &&
				    r[0].latency_ns > 0)
					m->latency_ns[j][c] *= p->ns[0] /
							       r[0].latency_ns;
				continue;
			}
			if (p->kind != PH_READ && p->kind != PH_WRITE &&
			    fit_shared(mm, p, floor))
				continue;
			if (predict(m, p, r))
				continue;
			c = p->f[0].cpu;
			j = __builtin_ctz(p->f[0].mem);
			got = sum(p->g, p->nf);
			want = 0;
			for (c = 0; c < p->nf; c++)
				want += r[c].gbps;
			c = p->f[0].cpu;
			if (!(want > 0) || !(got > 0))
				continue;
			if (p->kind == PH_READ || p->kind == PH_WRITE) {
				double k = 1;
				uint64_t on = flow_links(m, &p->f[0]);
				int l;

				cap = p->kind == PH_READ ? &m->read_gbps[j][c] :
							   &m->write_gbps[j][c];
				/*
				 * Streams that filled it: as wide as what
				 * they moved.  Otherwise a wider route queues
				 * less: as wide as makes the latency under
				 * the phase's load the one it timed, and the
				 * links it crosses that are narrower with it.
				 * Untimed: raised where the model holds it
				 * below what it moved and its own width is
				 * what holds it.
				 */
				if (filled(m, p, 0))
					k = got / *cap;
				else if (p->ns[0] > 0 && r[0].latency_ns > 0)
					k = sqrt(r[0].latency_ns / p->ns[0]);
				else if (want >= *cap * (1 - 1e-3))
					k = got / want;
				for (l = 0; l < m->nr_links; l++)
					if ((on & (1ull << l)) && m->link[l].gbps < *cap)
						m->link[l].gbps = fmax(fmin(m->link[l].gbps * k,
									    4 * floor[l]),
								       floor[l]);
				*cap = fmin(fmax(*cap * k, got), 4 * got);
			} else if ((p->kind == PH_INTERCONNECT || p->kind == PH_PAIR) &&
				   !latency_explains(p, r, got, want) &&
				   (got < want * (1 - SHARED_BELOW) ||
				    (mm->interconnect[c].origin == BWAPD_ORIGIN_MEASURED &&
				     (got < want || interconnect_holds(m, c, want))))) {
				/*
				 * What no link explains: the node's
				 * interconnect.  Raised only where it is what
				 * holds the model's answer: a phase it does
				 * not bound moves as much whatever its width.
				 */
				double now = m->node[c].interconnect_gbps;

				m->node[c].interconnect_gbps = now > 0 ?
					fmin(now * got / want, fmax(now, 4 * got)) : got;
				mm->interconnect[c] = fig(BWAPD_ORIGIN_MEASURED,
							  p->g_se[0]);
			}
		}
	}
}

/* The phase of kind k of the route from node a to node b alone, or NULL. */
static const struct phase *alone_phase(const struct phase *ph, int nr,
				       enum phase_kind k, int a, int b)
{
	int cpu = k == PH_READ ? b : a, mem = k == PH_READ ? a : b, i;

	for (i = 0; i < nr; i++)
		if (ph[i].kind == k && ph[i].f[0].cpu == cpu &&
		    ph[i].f[0].mem == 1u << mem)
			return &ph[i];
	return NULL;
}

/* What that route moved alone. */
static double alone(const struct phase *ph, int nr, enum phase_kind k, int a,
		    int b)
{
	const struct phase *p = alone_phase(ph, nr, k, a, b);

	return p ? p->g[0] : 0;
}

/*
 * A link carries reads one way and writes the other way round: memory a
 * read by CPU node b, and CPU node a writing memory b, both cross a -> b.
 * No single route loads it beyond what that route alone can move, and
 * the read pairs load only the links into a CPU node that two routes
 * share; so every link is loaded once by the read and the write over it
 * (from different CPU nodes) that moved the most alone.  1 if it has
 * such a pair (written to *out), else 0.
 */
static int link_phase(const struct bwm_machine *m,
		      const struct bwapd_topology *t, const struct phase *ph,
		      int nr, int l, struct phase *out)
{
	int n = t->nr_nodes, a, b, best[2][2] = { { -1, -1 }, { -1, -1 } };
	double most[2] = { 0, 0 };

	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++) {
			int w;

			if (a == b || !(m->route[a][b] & (1ull << l)))
				continue;
			for (w = 0; w < 2; w++) {
				double g = alone(ph, nr, w ? PH_WRITE : PH_READ,
						 a, b);

				if (g > most[w]) {
					most[w] = g;
					best[w][0] = a;
					best[w][1] = b;
				}
			}
		}
	/* the reading CPU is b of the read, the writing one a of the write */
	if (best[0][0] < 0 || best[1][0] < 0 || best[0][1] == best[1][0])
		return 0;
	memset(out, 0, sizeof(*out));
	out->kind = PH_LINK;
	out->nf = 2;
	out->f[0].cpu = best[0][1];
	out->f[0].mem = 1u << best[0][0];
	out->f[1].cpu = best[1][0];
	out->f[1].mem = 1u << best[1][1];
	out->f[1].write = 1;
	return 1;
}

/*
 * Pairs of routes that the links would have share: for every link into a
 * CPU node c, the two memory nodes whose reads to c it carries that moved
 * the most alone, read together by c.  The links' model and the model
 * without them answer such a pair differently; the measurement says
 * which is right.  Then the read and the write over each link
 * (link_phase()).  The number of phases written to out.
 */
static int pair_phases(struct bwm_machine *m, const struct bwapd_topology *t,
		       const struct phase *ph, int nr, struct phase *out)
{
	int n = t->nr_nodes, l, c, j, i, np = 0;

	for (l = 0; l < m->nr_links; l++) {
		double g1 = 0, g2 = 0;
		int j1 = -1, j2 = -1;

		c = m->link[l].to;
		if (!(t->cpu_nodes & (1u << c)))
			continue;
		for (j = 0; j < n; j++) {
			double g = 0;

			if (j == c || !(t->mem_nodes & (1u << j)) ||
			    !(m->route[j][c] & (1ull << l)))
				continue;
			for (i = 0; i < nr; i++)
				if (ph[i].kind == PH_READ && ph[i].f[0].cpu == c &&
				    ph[i].f[0].mem == 1u << j)
					g = ph[i].g[0];
			if (g > g1) {
				g2 = g1;
				j2 = j1;
				g1 = g;
				j1 = j;
			} else if (g > g2) {
				g2 = g;
				j2 = j;
			}
		}
		if (j2 < 0)
			continue;
		memset(&out[np], 0, sizeof(out[np]));
		out[np].kind = PH_PAIR;
		out[np].nf = 1;
		out[np].f[0].cpu = c;
		out[np++].f[0].mem = (1u << j1) | (1u << j2);
	}
	for (l = 0; l < m->nr_links; l++)
		np += link_phase(m, t, ph, nr, l, &out[np]);
	return np;
}

/*
 * Which of several routes alike the machine takes.  Between two nodes
 * the links may offer more than one route of the fewest hops (a square,
 * a ladder's rungs and rails); the model chooses by the links' widths,
 * which the benchmark measures with noise, while the machine chooses by
 * its own routing tables.  No figure of a route alone tells them apart:
 * the routes differ only in which other routes they share a link with.
 * So for each candidate a fan phase loads the route together with its
 * witnesses: the flows of one hop over a link that only this candidate
 * crosses (reads one way, writes the other), from other CPU nodes, which
 * fill that link.  Where the route is that candidate, it shares the
 * full link and moves less than alone, or where its streams fill the
 * route itself, keeps its traffic but waits longer for its lines (the
 * link queues); elsewhere it keeps its pace (route_loss()).  The
 * candidate under which the route loses the most, by SHARED_BELOW or
 * more and clearly more than under the next, is the machine's route;
 * otherwise the model keeps its choice.  (The witnesses' own losses say
 * nothing: they share the link with each other.)  Up to MAX_CANDS
 * candidates a route: a cube's opposite corners have six, three hops in
 * any order.
 */
#define MAX_CANDS	8

struct cands {
	int n;
	uint8_t hops[MAX_CANDS];
	uint8_t node[MAX_CANDS][BWAPD_MAX_NODES];	/* from a, to b */
};

static void cands_walk(const struct bwm_machine *m, const int *dist, int b,
		       uint8_t *path, int h, struct cands *c)
{
	int l, v = path[h];

	if (v == b) {
		if (c->n < MAX_CANDS) {
			c->hops[c->n] = (uint8_t)h;
			memcpy(c->node[c->n], path, (size_t)h + 1);
		}
		c->n++;
		return;
	}
	for (l = 0; l < m->nr_links; l++) {
		int to = m->link[l].to;

		if (m->link[l].from != v || dist[to] != h + 1 ||
		    (to != b && dist[b] <= h + 1))
			continue;
		path[h + 1] = (uint8_t)to;
		cands_walk(m, dist, b, path, h + 1, c);
	}
}

/* Every route of the fewest hops from a to b; c->n > MAX_CANDS: too many. */
static void route_cands(const struct bwm_machine *m, int a, int b,
			struct cands *c)
{
	int dist[BWAPD_MAX_NODES], h, l, grew = 1;
	uint8_t path[BWAPD_MAX_NODES];

	for (h = 0; h < m->nr_nodes; h++)
		dist[h] = h == a ? 0 : -1;
	for (h = 0; grew && dist[b] < 0; h++) {
		grew = 0;
		for (l = 0; l < m->nr_links; l++)
			if (dist[m->link[l].from] == h && dist[m->link[l].to] < 0) {
				dist[m->link[l].to] = h + 1;
				grew = 1;
			}
	}
	c->n = 0;
	if (dist[b] < 0)
		return;
	path[0] = (uint8_t)a;
	cands_walk(m, dist, b, path, 0, c);
}

static int cand_has(const struct cands *c, int i, int u, int v)
{
	int h;

	for (h = 0; h < c->hops[i]; h++)
		if (c->node[i][h] == u && c->node[i][h + 1] == v)
			return 1;
	return 0;
}

/*
 * A flow that takes the route from a to b: the read of a by b's CPUs
 * (write 0), the write of b by a's (write 1), or the read where both can
 * (write -1).  0 if there is none.
 */
static int route_flow(const struct bwapd_topology *t, int a, int b,
		      int write, struct bwm_flow *f)
{
	memset(f, 0, sizeof(*f));
	if (write < 1 && (t->mem_nodes & (1u << a)) && (t->cpu_nodes & (1u << b))) {
		f->cpu = b;
		f->mem = 1u << a;
	} else if (write && (t->cpu_nodes & (1u << a)) && (t->mem_nodes & (1u << b))) {
		f->cpu = a;
		f->mem = 1u << b;
		f->write = 1;
	} else {
		return 0;
	}
	return 1;
}

/* Flow f's route phase, NULL if none measured it. */
static const struct phase *flow_phase(const struct phase *ph, int nr,
				      const struct bwm_flow *f)
{
	int mem = __builtin_ctz(f->mem);

	return f->write ? alone_phase(ph, nr, PH_WRITE, f->cpu, mem) :
			  alone_phase(ph, nr, PH_READ, mem, f->cpu);
}

/* What flow f moved alone, 0 if no phase measured it. */
static double flow_alone(const struct phase *ph, int nr, const struct bwm_flow *f)
{
	const struct phase *p = flow_phase(ph, nr, f);

	return p ? p->g[0] : 0;
}

/*
 * What a route lost beside other flows: the share of its traffic, or
 * where it keeps its pace (it fills its own width, and the others are
 * given the rest of a link they share) the share by which its lines came
 * back slower, whichever is more.  g, ns: with them; g0, ns0: alone.
 */
static double route_loss(double g, double ns, double g0, double ns0)
{
	double d = 1 - g / g0;

	return ns > 0 && ns0 > 0 ? fmax(d, 1 - ns0 / ns) : d;
}

/*
 * The witnesses of candidate i over its link from u to v, which no other
 * candidate crosses: the read of u by v's CPUs and the write of v by
 * u's, where their CPU node is neither the route's nor the other's.
 * Added to p's flows; what they moved alone, in all.
 */
static double witnesses(const struct bwapd_topology *t, const struct phase *ph,
			int nr, int u, int v, struct phase *p)
{
	double all = 0;
	int w, k;

	for (w = 0; w < 2; w++) {
		struct bwm_flow f;
		double g;

		if (!route_flow(t, u, v, w, &f))
			continue;
		for (k = 0; k < p->nf; k++)
			if (p->f[k].cpu == f.cpu)
				break;
		g = flow_alone(ph, nr, &f);
		if (k < p->nf || !(g > 0))
			continue;
		p->f[p->nf++] = f;
		all += g;
	}
	return all;
}

/*
 * mi: m with route a -> b pinned to candidate i; what the route moves
 * alone there (and its latency, in *ns), or -1 if the first fit cannot
 * tell.
 */
static double pin_cand(const struct bwm_machine *m, struct bwm_machine *mi,
		       const struct cands *c, int i, const struct bwm_flow *route,
		       double *ns)
{
	struct bwm_flow_result r;
	int a = c->node[i][0], b = c->node[i][c->hops[i]], h;

	*mi = *m;
	mi->pin_hops[a][b] = c->hops[i];
	for (h = 1; h < c->hops[i]; h++)
		mi->pin_via[a][b][h - 1] = c->node[i][h];
	if (bwm_machine_routes(mi, NULL) ||
	    bwm_bench_flows(mi, 1, route, 0, NULL, &r) || !(r.gbps > 0))
		return -1;
	*ns = r.latency_ns;
	return r.gbps;
}

/* What mi predicts the route (p's first flow, 'alone' alone) loses in p. */
static double fan_loss(const struct bwm_machine *mi, double alone, double ns,
		       const struct phase *p)
{
	struct bwm_flow_result r[BWAPD_MAX_NODES];

	if (!(alone > 0) || bwm_bench_flows(mi, p->nf, p->f, 0, NULL, r))
		return -1;
	return route_loss(r[0].gbps, r[0].latency_ns, alone, ns);
}

/*
 * The fan phases of every route with several candidates (at most
 * MAX_CANDS), into out: one for each candidate with a link of its own
 * that a witness can load, the one under which the first fit predicts
 * the route loses the most if it is that candidate (on a tie, the one
 * its witnesses load the most).  Beside witnesses on a link wider than
 * the route's narrowest, or whose witnesses are held back elsewhere,
 * the route keeps its pace whichever way it goes.
 */
static int fan_phases(const struct bwm_machine *m, const struct bwapd_topology *t,
		      const struct phase *ph, int nr, struct phase *out)
{
	int n = t->nr_nodes, a, b, i, j, k, u, v, np = 0;
	struct bwm_machine *mi = malloc(sizeof(*mi));

	if (!mi)
		return 0;
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++) {
			struct bwm_flow route;
			struct cands c;

			if (a == b || !route_flow(t, a, b, -1, &route) ||
			    !(flow_alone(ph, nr, &route) > 0))
				continue;
			route_cands(m, a, b, &c);
			if (c.n < 2 || c.n > MAX_CANDS)
				continue;
			for (i = 0; i < c.n; i++) {
				struct phase best = { .nf = 0 };
				double most = 0, loses = -2, ns = 0;
				double alone = pin_cand(m, mi, &c, i, &route, &ns);

				for (k = 0; k < c.hops[i]; k++) {
					struct phase p = { .kind = PH_FAN, .nf = 1 };
					double g, d;

					u = c.node[i][k];
					v = c.node[i][k + 1];
					for (j = 0; j < c.n; j++)
						if (j != i && cand_has(&c, j, u, v))
							break;
					if (j < c.n)
						continue;
					p.f[0] = route;
					g = witnesses(t, ph, nr, u, v, &p);
					if (!(g > 0))
						continue;
					d = fan_loss(mi, alone, ns, &p);
					if (d > loses + 1e-3 ||
					    (d > loses - 1e-3 && g > most)) {
						loses = d;
						most = g;
						best = p;
					}
				}
				if (!(most > 0))
					continue;
				best.ra = a;
				best.rb = b;
				best.cand = i;
				out[np++] = best;
			}
		}
	free(mi);
	return np;
}

/* Pin the route of each fan's winner in m (see above). */
static void choose_routes(struct bwm_machine *m, const struct phase *ph, int nr)
{
	int i, j;

	memset(m->pin_hops, 0, sizeof(m->pin_hops));
	for (i = 0; i < nr; i = j) {
		double top = -1, next = -1;
		int win = -1, h;
		struct cands c;

		if (ph[i].kind != PH_FAN) {
			j = i + 1;
			continue;
		}
		for (j = i; j < nr && ph[j].kind == PH_FAN &&
			    ph[j].ra == ph[i].ra && ph[j].rb == ph[i].rb; j++) {
			/* what the route lost beside this way's witnesses */
			const struct phase *a = flow_phase(ph, nr, &ph[j].f[0]);
			double d = a ? route_loss(ph[j].g[0], ph[j].ns[0],
						  a->g[0], a->ns[0]) : -1;

			if (d > top) {
				next = top;
				top = d;
				win = ph[j].cand;
			} else if (d > next) {
				next = d;
			}
		}
		if (top < SHARED_BELOW || top - next < SHARED_BELOW / 3)
			continue;
		route_cands(m, ph[i].ra, ph[i].rb, &c);
		if (win >= c.n || win >= MAX_CANDS)
			continue;
		m->pin_hops[ph[i].ra][ph[i].rb] = c.hops[win];
		for (h = 1; h < c.hops[win]; h++)
			m->pin_via[ph[i].ra][ph[i].rb][h - 1] = c.node[win][h];
	}
}

/*
 * How far the model's answers are from the machine's, all phases: what
 * each moved, and the latencies it timed (a link the model puts where
 * the machine has none moves the same beside its routes once wide
 * enough, but queues).
 */
static double residual(const struct bwm_machine *m, const struct phase *ph,
		       int nr)
{
	double e = 0, d;
	int i, k;

	for (i = 0; i < nr; i++) {
		struct bwm_flow_result r[BWAPD_MAX_NODES];
		double want = 0;

		if (ph[i].kind == PH_CHASE || predict(m, &ph[i], r))
			continue;
		for (k = 0; k < ph[i].nf; k++) {
			want += r[k].gbps;
			if (ph[i].ns[k] > 0 && r[k].latency_ns > 0) {
				d = log(r[k].latency_ns / ph[i].ns[k]);
				e += d * d;
			}
		}
		d = log(want / sum(ph[i].g, ph[i].nf));
		e += d * d;
	}
	return e;
}

int bwapd_mm_measure(struct bwapd_backend *b, const struct bwapd_topology *t,
		     const struct bwapd_mm_opts *o,
		     struct bwapd_machine_model *mm, char *why, size_t len)
{
	uint8_t pins[BWM_MAX_NODES][BWM_MAX_NODES];
	uint8_t via[BWM_MAX_NODES][BWM_MAX_NODES][BWM_MAX_NODES - 2];
	struct bwapd_machine_model prior = *mm;
	struct bwm_error err;
	struct phase *ph;
	int ret = 0, nr, i, j;

	if (!b->ops->bench_flows) {
		snprintf(why, len, "the %s backend has no benchmark of routes",
			 b->ops->name);
		return -EOPNOTSUPP;
	}
	if (o->repeats < 1 || !(o->seconds > 0) || !(o->chase_seconds > 0)) {
		snprintf(why, len, "bad measurement parameters");
		return -EINVAL;
	}
	nr = plan(t, NULL);
	/*
	 * and later the fans of the routes alike, and the pairs of routes
	 * over a link, two a link at most
	 */
	ph = calloc((size_t)nr + 1 + 2 * BWM_MAX_LINKS +
		    (size_t)t->nr_nodes * t->nr_nodes * MAX_CANDS, sizeof(*ph));
	if (!ph)
		return -ENOMEM;
	plan(t, ph);
	mm->seconds = 0;
	for (i = 0; !ret && i < nr; i++) {
		ret = run_phase(b, o, &ph[i]);
		mm->seconds += phase_seconds(o, &ph[i]);
		if (!ret && o->progress)
			o->progress(o->progress_arg, i + 1, nr);
	}
	if (ret)
		snprintf(why, len, "the benchmark failed: %s", strerror(-ret));
	if (!ret) {
		struct bwapd_machine_model *with = malloc(sizeof(*with));
		int np;

		if (!with) {
			free(ph);
			*mm = prior;
			return -ENOMEM;
		}
		/* what the benchmark measured starts from nothing */
		for (j = 0; j < t->nr_nodes; j++)
			if (t->mem_nodes & (1u << j))
				mm->m.node[j].ctrl_read_gbps =
					mm->m.node[j].ctrl_write_gbps = 0;
		*with = *mm;
		fit(with, ph, nr, t, 1);
		/* which of the routes alike the machine takes */
		np = fan_phases(&with->m, t, ph, nr, ph + nr);
		for (i = nr; !ret && i < nr + np; i++) {
			ret = run_phase(b, o, &ph[i]);
			mm->seconds += phase_seconds(o, &ph[i]);
		}
		nr += ret ? 0 : np;
		if (!ret) {
			choose_routes(&with->m, ph, nr);
			bwm_machine_routes(&with->m, &err);
			memcpy(pins, with->m.pin_hops, sizeof(pins));
			memcpy(via, with->m.pin_via, sizeof(via));
			/* routes the links would have share: load them together */
			np = pair_phases(&with->m, t, ph, nr, ph + nr);
		}
		for (i = nr; !ret && i < nr + np; i++) {
			ret = run_phase(b, o, &ph[i]);
			mm->seconds += phase_seconds(o, &ph[i]);
		}
		if (ret) {
			snprintf(why, len, "the benchmark failed: %s", strerror(-ret));
		} else {
			nr += np;
			mm->phases = nr;
			/*
			 * both fits start from what was measured, nothing
			 * shared; the links' with the routes the fans chose
			 */
			*with = *mm;
			memcpy(with->m.pin_hops, pins, sizeof(pins));
			memcpy(with->m.pin_via, via, sizeof(via));
			fit(with, ph, nr, t, 1);
			fit(mm, ph, nr, t, 0);
			/* the links, where they answer the phases better */
			if (with->m.nr_links &&
			    residual(&with->m, ph, nr) < residual(&mm->m, ph, nr))
				*mm = *with;
			ret = bwm_machine_check(&mm->m, &err);
			if (ret)
				snprintf(why, len, "the fitted model is not a machine: %s: %s",
					 err.field, err.msg);
		}
		free(with);
	}
	free(ph);
	if (ret)
		*mm = prior;
	return ret;
}

/* ---- JSON ---------------------------------------------------------------- */

json_object *bwapd_mm_model_json(const struct bwapd_machine_model *mm)
{
	char desc[256], src[512], *text;
	json_object *o;

	snprintf(desc, sizeof(desc), "The machine as bwapd profile knows it: %s.",
		 mm->seconds > 0 ? "measured by its benchmark on top of the firmware's description" :
				   "the firmware's description only (nothing measured)");
	snprintf(src, sizeof(src), "%d phases, %.0f s of benchmark; every figure's origin and standard error are in model_figures.",
		 mm->phases, mm->seconds);
	text = bwm_machine_format(&mm->m, desc, src);
	if (!text)
		return NULL;
	o = json_tokener_parse(text);
	free(text);
	return o;
}

static json_object *figure_vector(const struct bwapd_figure *f, int n,
				  const int *want, int se)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++) {
		if (want && !want[i])
			json_object_array_add(a, NULL);
		else
			json_object_array_add(a, se ? json_object_new_double(f[i].se) :
					      json_object_new_string(bwapd_origin_name(f[i].origin)));
	}
	return a;
}

static json_object *figure_matrix(const struct bwapd_machine_model *mm,
				  const struct bwapd_figure f[BWAPD_MAX_NODES][BWAPD_MAX_NODES])
{
	json_object *o = json_object_new_object(), *org, *se;
	int cpu[BWAPD_MAX_NODES], i, n = mm->m.nr_nodes;

	for (i = 0; i < n; i++)
		cpu[i] = mm->m.node[i].cpus > 0;
	org = json_object_new_array();
	se = json_object_new_array();
	for (i = 0; i < n; i++) {
		json_object_array_add(org, figure_vector(f[i], n, cpu, 0));
		json_object_array_add(se, figure_vector(f[i], n, cpu, 1));
	}
	json_object_object_add(o, "origin", org);
	json_object_object_add(o, "se", se);
	return o;
}

static json_object *figure_nodes(const struct bwapd_machine_model *mm,
				 const struct bwapd_figure *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "origin", figure_vector(f, mm->m.nr_nodes, NULL, 0));
	json_object_object_add(o, "se", figure_vector(f, mm->m.nr_nodes, NULL, 1));
	return o;
}

json_object *bwapd_mm_figures_json(const struct bwapd_machine_model *mm)
{
	json_object *o = json_object_new_object(), *q;

	json_object_object_add(o, "read_gbps", figure_matrix(mm, mm->read));
	json_object_object_add(o, "write_gbps", figure_matrix(mm, mm->write));
	json_object_object_add(o, "latency_ns", figure_matrix(mm, mm->latency));
	json_object_object_add(o, "ctrl_read_gbps", figure_nodes(mm, mm->ctrl_read));
	json_object_object_add(o, "ctrl_write_gbps", figure_nodes(mm, mm->ctrl_write));
	json_object_object_add(o, "interconnect_gbps",
			       figure_nodes(mm, mm->interconnect));
	q = json_object_new_object();
	json_object_object_add(q, "origin", json_object_new_string(
		bwapd_origin_name(mm->queue_factor.origin)));
	json_object_object_add(q, "se", json_object_new_double(mm->queue_factor.se));
	json_object_object_add(o, "queue_factor", q);
	json_object_object_add(o, "seconds", json_object_new_double(mm->seconds));
	json_object_object_add(o, "phases", json_object_new_int(mm->phases));
	return o;
}

static enum bwapd_origin origin_parse(json_object *v)
{
	int k;

	if (v && json_object_is_type(v, json_type_string))
		for (k = 0; k < BWAPD_ORIGIN_NR; k++)
			if (!strcmp(json_object_get_string(v), origin_name[k]))
				return k;
	return BWAPD_ORIGIN_ASSUMED;
}

static double number(json_object *v)
{
	return v && (json_object_is_type(v, json_type_double) ||
		     json_object_is_type(v, json_type_int)) ?
	       json_object_get_double(v) : 0;
}

/* f[i] from {"origin": [...], "se": [...]} (row of a matrix if row >= 0) */
static void figures_read(json_object *fig_obj, int row, int n,
			 struct bwapd_figure *f)
{
	json_object *org = NULL, *se = NULL;
	int i;

	if (!fig_obj || !json_object_object_get_ex(fig_obj, "origin", &org) ||
	    !json_object_object_get_ex(fig_obj, "se", &se))
		return;
	if (row >= 0) {
		org = json_object_array_get_idx(org, (size_t)row);
		se = json_object_array_get_idx(se, (size_t)row);
	}
	if (!json_object_is_type(org, json_type_array) ||
	    !json_object_is_type(se, json_type_array))
		return;
	for (i = 0; i < n; i++) {
		f[i].origin = origin_parse(json_object_array_get_idx(org, (size_t)i));
		f[i].se = number(json_object_array_get_idx(se, (size_t)i));
	}
}

int bwapd_mm_from_json(json_object *model, json_object *figures, int nr_nodes,
		       struct bwapd_machine_model *mm, char *why, size_t len)
{
	struct bwm_error err;
	json_object *v;
	int ret, i, n;

	memset(mm, 0, sizeof(*mm));
	ret = bwm_machine_parse(json_object_to_json_string(model), &mm->m, &err);
	if (ret) {
		snprintf(why, len, "%s: %s", err.field, err.msg);
		return -EINVAL;
	}
	n = mm->m.nr_nodes;
	if (n != nr_nodes) {
		snprintf(why, len, "%d nodes, the machine has %d", n,
			 nr_nodes);
		return -EINVAL;
	}
	if (!figures)
		return 0;
	json_object_object_get_ex(figures, "read_gbps", &v);
	for (i = 0; i < n; i++)
		figures_read(v, i, n, mm->read[i]);
	json_object_object_get_ex(figures, "write_gbps", &v);
	for (i = 0; i < n; i++)
		figures_read(v, i, n, mm->write[i]);
	json_object_object_get_ex(figures, "latency_ns", &v);
	for (i = 0; i < n; i++)
		figures_read(v, i, n, mm->latency[i]);
	json_object_object_get_ex(figures, "ctrl_read_gbps", &v);
	figures_read(v, -1, n, mm->ctrl_read);
	json_object_object_get_ex(figures, "ctrl_write_gbps", &v);
	figures_read(v, -1, n, mm->ctrl_write);
	json_object_object_get_ex(figures, "interconnect_gbps", &v);
	figures_read(v, -1, n, mm->interconnect);
	if (json_object_object_get_ex(figures, "queue_factor", &v)) {
		json_object *x;

		if (json_object_object_get_ex(v, "origin", &x))
			mm->queue_factor.origin = origin_parse(x);
		if (json_object_object_get_ex(v, "se", &x))
			mm->queue_factor.se = number(x);
	}
	if (json_object_object_get_ex(figures, "seconds", &v))
		mm->seconds = number(v);
	if (json_object_object_get_ex(figures, "phases", &v))
		mm->phases = (int)number(v);
	return 0;
}
