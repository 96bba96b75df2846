// SPDX-License-Identifier: GPL-2.0
/*
 * The simulator's engine. Every tick each enabled thread, in the order the
 * configuration asks for, does what perf_rotate_context() makes the x86
 * PMU do: all its events leave their counters (x86_pmu_del), the list is
 * rotated by one if the last round left something out, and the events are
 * added back one at a time (x86_pmu_add), each add rescheduling the whole
 * window through pass.c -- fast path, then the matcher -- and the first
 * event that does not fit ends the round (unless told to continue past
 * it). The placement of the last successful pass goes onto the counters.
 *
 * Policies: the matcher is the series' x86_counter_match() or a model of
 * upstream 6.12's greedy walk (sim_greedy_match(), checked against
 * upstream's own code by sim_test); cross-thread exclusion is off, the
 * series' xsu.c (with or without upstream's gpmax halving), or a model of
 * Linux 6.12's intel_excl_cntrs.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/spinlock.h>

#include "counter_match.h"
#include "intel/xsu.h"
#include "intel/xsu_arb.h"
#include "../../../../kernel/events/sched_budget.h"
#include "oracle.h"
#include "pass.h"
#include "sim_engine.h"

#define GP_MASK		0xffffffffULL

const char *sim_policy_name(const struct sim_policy *pol)
{
	static const char *const names[2][4] = {
		{ "greedy, XSU off", "greedy, XSU upstream",
		  "greedy, XSU series", "greedy, XSU research" },
		{ "hk, XSU off", "hk, XSU upstream", "hk, XSU series",
		  "hk, XSU research" },
	};

	return names[pol->matcher][pol->xsu];
}

/*
 * Upstream 6.12's perf_assign_events(), modelled: events in order of
 * weight (index order within a weight), each takes a free fixed counter
 * of its mask if any, else its lowest free GP counter; reaching gpmax or
 * finding nothing ends the walk.
 */
int sim_greedy_match(const u64 *masks, int n, u64 paired, int gpmax,
		     int *assign)
{
	int wmin = 64, wmax = 0, placed = 0, nr_gp = 0, w, i, c;
	u64 used = 0;

	for (i = 0; i < n; i++) {
		w = __builtin_popcountll(masks[i]);
		wmin = w < wmin ? w : wmin;
		wmax = w > wmax ? w : wmax;
		if (assign)
			assign[i] = -1;
	}

	for (w = wmin; w <= wmax; w++) {
		for (i = 0; i < n; i++) {
			u64 m = masks[i], need = 0;

			if (__builtin_popcountll(m) != w)
				continue;
			if (m & ~GP_MASK & ~used) {
				c = __builtin_ctzll(m & ~GP_MASK & ~used);
				need = 1ULL << c;
			} else {
				for (c = 0; c < 32; c++) {
					need = (paired >> i & 1 ? 3ULL : 1ULL) << c;
					if ((m >> c & 1) && !(used & need))
						break;
				}
				if (c == 32 || nr_gp++ >= gpmax)
					return n - placed;
			}
			used |= need;
			placed++;
			if (assign)
				assign[i] = c;
		}
	}
	return n - placed;
}

/* ---- Linux 6.12's intel_excl_cntrs, modelled ---- */

struct upstream_xsu {
	u8 state[2][64];	/* SIM_U / SIM_S / SIM_X per counter */
	int n_excl[2];		/* corrupting events accounted (EXCL_ACCT) */
};

static void up_nop(void *ctx, int tid, int first)
{
}

static void up_end(void *ctx, int tid, u64 unplaced)
{
}

static u64 up_constrain(void *ctx, int tid, int idx, u64 mask,
			bool corrupting)
{
	struct upstream_xsu *up = ctx;
	int c;

	for (c = 0; c < 64; c++) {
		u8 st = up->state[tid ^ 1][c];

		if (st == SIM_X || (corrupting && st == SIM_S))
			mask &= ~(1ULL << c);
	}
	return mask;
}

/* 6.12: at most half the GP counters while a corrupting event is around. */
static int up_gpmax(void *ctx, int tid, int gpmax)
{
	struct upstream_xsu *up = ctx;

	return up->n_excl[0] || up->n_excl[1] ? gpmax / 2 : gpmax;
}

/* 6.12 marks the new counter and never clears the one an event left. */
static void up_commit(void *ctx, int tid, int cntr, bool corrupting)
{
	struct upstream_xsu *up = ctx;

	up->state[tid][cntr] = corrupting ? SIM_X : SIM_S;
}

static const struct pass_hooks upstream_hooks = {
	.begin = up_nop,
	.constrain = up_constrain,
	.gpmax = up_gpmax,
	.commit = up_commit,
	.end = up_end,
};

/* ---- the run ---- */

struct sim_thread {
	const struct sim_thread_cfg *cfg;
	int order[SIM_MAX_EVENTS];	/* the list, rotated */
	int hw[SIM_MAX_EVENTS];		/* hw.idx: counter at the last enable */
	int on[SIM_MAX_EVENTS];		/* counter now, -1: not counting */
	int prev[SIM_MAX_EVENTS];	/* counter at the end of the last tick */
	bool acct[SIM_MAX_EVENTS];	/* corrupting event accounted */
	bool rotate;			/* the last round left events out */
};

struct sim_state {
	const struct sim_config *cfg;
	const struct sim_policy *pol;
	enum sim_xsu xsu;		/* pol->xsu, off without the erratum */
	struct xsu_core xc;
	struct upstream_xsu up;
	const struct pass_hooks *hooks;
	void *ctx;
	struct xsu_arb arb;
	struct pass_xsu_arb glue;	/* the kernel glue of xsu_arb.c */
	pass_match_fn match;
	struct sim_thread th[2];
	struct sim_result *res;
	u64 rng;
};

static bool enabled_at(const struct sim_thread_cfg *c, int t)
{
	return t >= c->start && (c->dur < 0 || t < c->start + c->dur);
}

/* A corrupting event joins the collected list: EXCL_ACCT. */
static void collect(struct sim_state *s, int tid, int e)
{
	struct sim_thread *th = &s->th[tid];

	if (s->xsu == SIM_XSU_OFF || !th->cfg->ev[e].corrupting ||
	    th->acct[e])
		return;
	th->acct[e] = true;
	if (s->xsu == SIM_XSU_UPSTREAM)
		s->up.n_excl[tid]++;
	else
		xsu_account(&s->xc, tid, 1);
}

/*
 * put_event_constraints(): @e leaves, either from its counter (@held, a
 * del) or as the new event of a pass that failed.
 */
static void put(struct sim_state *s, int tid, int e, bool held)
{
	struct sim_thread *th = &s->th[tid];

	if (th->acct[e]) {
		th->acct[e] = false;
		if (s->xsu == SIM_XSU_UPSTREAM)
			s->up.n_excl[tid]--;
		else
			xsu_account(&s->xc, tid, -1);
	}

	switch (s->xsu) {
	case SIM_XSU_UPSTREAM:
		/* 6.12 clears hw.idx's state, also after a failed add */
		if (th->hw[e] >= 0)
			s->up.state[tid][th->hw[e]] = SIM_U;
		break;
	case SIM_XSU_SERIES:
	case SIM_XSU_RESEARCH:
		if (held) {
			shim_irqs_off = true;
			xsu_release(&s->xc, tid, th->on[e]);
			shim_irqs_off = false;
		}
		break;
	default:
		break;
	}
}

/*
 * The end of x86_pmu_enable() (intel_pmu_enable_all()): the hardware runs
 * the placement, and the series' states narrow to it. @rotates: a group
 * of the round did not fit, so perf rotates the thread's list at its next
 * interval (the series' sibling then asks it for nothing).
 */
static void settle(struct sim_state *s, int tid, bool rotates)
{
	if (s->xsu != SIM_XSU_SERIES && s->xsu != SIM_XSU_RESEARCH)
		return;
	/* intel_xsu_settle(): the sibling asks a rotating thread nothing */
	if (s->xsu == SIM_XSU_SERIES)
		xsu_arb_round(&s->arb, tid, rotates, xsu_held(&s->xc, tid),
			      xsu_corrupting_on_core(&s->xc), s->glue.now,
			      s->glue.hold);
	shim_irqs_off = true;
	xsu_settle(&s->xc, tid);
	shim_irqs_off = false;
}

/* Events in the group starting with event @e (1 without groups). */
static int group_size(const struct sim_thread_cfg *cfg, int e)
{
	int s = 1;

	while (cfg->grouped && e + s < cfg->n && !cfg->leader[e + s])
		s++;
	return s;
}

int sim_groups(const struct sim_thread_cfg *c)
{
	int e, n = 0;

	for (e = 0; e < c->n; e += group_size(c, e))
		n++;
	return n;
}

/* perf's rotate_ctx(): the group at @k of @th's list moves to its tail. */
static void rotate_group(struct sim_thread *th, int k)
{
	const struct sim_thread_cfg *cfg = th->cfg;
	int moved[SIM_MAX_EVENTS], size = group_size(cfg, th->order[k]);

	memcpy(moved, th->order + k, size * sizeof(th->order[0]));
	memmove(th->order + k, th->order + k + size,
		(cfg->n - k - size) * sizeof(th->order[0]));
	memcpy(th->order + cfg->n - size, moved, size * sizeof(th->order[0]));
}

/* What turn_put() needs: the thread and the window's event numbers. */
struct turn_release {
	struct sim_state *s;
	int tid;
	const int *idx;
};

/*
 * put_event_constraints() of event @i of a failed pass's window, called
 * by pass_run() where x86_schedule_events() releases the events it could
 * not add: before the pass ends (the x86_pmu's stop_scheduling), which
 * then no longer counts them among the thread's corrupting events.
 */
static void turn_put(void *ctx, int i)
{
	struct turn_release *rel = ctx;

	put(rel->s, rel->tid, rel->idx[i], false);
}

/*
 * x86_pmu_sched_no_room(): past a failure, the group of @size events at
 * list position @k cannot fit: every counter is held by the @n events the
 * last committed pass placed (@pe's masks, counters in @cur), or the group
 * has an event that needs a GP counter and none can be freed
 * (x86_counter_gp_held(), the kernel's own helper).
 */
static bool group_no_room(const struct sim_state *s,
			  const struct sim_thread *th, int k, int size,
			  const struct pass_events *pe, const int *cur, int n)
{
	u64 gp = GENMASK_ULL(s->cfg->pmu.nr_gp - 1, 0), all = gp, used = 0;
	bool needs_gp = false;
	int m;

	if (s->cfg->pmu.nr_fixed)
		all |= GENMASK_ULL(s->cfg->pmu.nr_fixed - 1, 0) << SIM_FIXED_BASE;
	for (m = 0; m < n; m++)
		if (cur[m] >= 0)
			used |= BIT_ULL(cur[m]);
	if ((used & all) == all)
		return true;
	for (m = 0; m < size; m++)
		needs_gp |= !(th->cfg->ev[th->order[k + m]].mask & ~gp);
	return needs_gp && x86_counter_gp_held(pe->mask, cur, n, gp, all);
}

/*
 * One thread's round at tick @t: everything out, rotate (unless this is
 * a reschedule asked for by the sibling: perf_pmu_resched() does not
 * rotate), add back.
 */
static void thread_turn(struct sim_state *s, int tid, int t, bool resched)
{
	struct sim_thread *th = &s->th[tid];
	const struct sim_thread_cfg *cfg = th->cfg;
	int idx[SIM_MAX_EVENTS], cur[SIM_MAX_EVENTS];
	struct perf_sched_budget budget;
	struct pass_events pe = { 0 };
	struct turn_release rel;
	bool all = true;
	int e, k, size;

	pe.release = turn_put;
	pe.release_ctx = &rel;

	/*
	 * perf rotates the first group that is on the PMU
	 * (ctx_event_to_rotate()), the first group of the list when none is:
	 * with PERF_PMU_CAP_SCHED_CONTINUE a group that never fits stays at
	 * the head while the groups behind it take turns.
	 */
	for (k = 0, size = 0; k < cfg->n; k += size) {
		size = group_size(cfg, th->order[k]);
		if (th->on[th->order[k]] >= 0)
			break;
	}
	if (k >= cfg->n)
		k = 0;

	for (e = 0; e < cfg->n; e++) {
		if (th->on[e] >= 0) {
			put(s, tid, e, true);
			th->on[e] = -1;
		}
	}
	if (!enabled_at(cfg, t) || !cfg->n) {
		settle(s, tid, false);
		return;
	}

	if (th->rotate && !resched)
		rotate_group(th, k);

	/* perf's loop; --continue: a PMU with PERF_PMU_CAP_SCHED_CONTINUE */
	perf_sched_budget_init(&budget, s->cfg->cont ?
			       2 * (s->cfg->pmu.nr_gp + s->cfg->pmu.nr_fixed) : 0);
	for (k = 0; k < cfg->n; k += size) {
		bool ok;
		int m;

		size = group_size(cfg, th->order[k]);
		if (!perf_sched_budget_can_add(&budget)) {
			all = false;
			break;
		}
		/* merge_sched_in(): no room for it, not tried, no try used */
		if (budget.failed && s->cfg->cont && !s->cfg->no_full &&
		    group_no_room(s, th, k, size, &pe, cur, pe.n)) {
			perf_sched_budget_skipped(&budget);
			all = false;
			continue;
		}
		/* a group goes in as one transaction (group_sched_in()) */
		for (m = 0; m < size; m++) {
			e = th->order[k + m];
			collect(s, tid, e);
			pe.mask[pe.n] = cfg->ev[e].mask;
			pe.corrupting[pe.n] = cfg->ev[e].corrupting;
			pe.counter[pe.n] = th->hw[e];
			idx[pe.n++] = e;
		}

		s->res->passes++;
		s->res->past_failure += budget.failed;
		pe.n0 = pe.n - size;
		rel.s = s;
		rel.tid = tid;
		rel.idx = idx;
		ok = !pass_run(s->hooks, s->ctx, tid, &pe, s->cfg->pmu.nr_gp,
			       NULL, s->match, cur);
		perf_sched_budget_tried(&budget, ok);
		if (ok)
			continue;
		pe.n -= size;
		all = false;
	}
	s->res->rounds++;
	th->rotate = !all;

	/* x86_pmu_enable(): the last committed placement goes live. */
	for (k = 0; k < pe.n; k++) {
		th->on[idx[k]] = cur[k];
		th->hw[idx[k]] = cur[k];
	}
	settle(s, tid, th->rotate);
}

/*
 * A thread told to reschedule (the kernel queues an irq_work on its CPU,
 * which runs perf_pmu_resched()) does so at once; that may kick back.
 */
static void kicks(struct sim_state *s, int t)
{
	int tid, rounds;

	for (rounds = 0; rounds < 4; rounds++) {
		bool any = false;

		for (tid = 0; tid < 2; tid++) {
			if (!s->glue.kick[tid])
				continue;
			s->glue.kick[tid] = false;
			s->res->kicks++;
			thread_turn(s, tid, t, true);
			/* intel_xsu_kick_fn(): rescheduled as asked */
			xsu_arb_rescheduled(s->glue.arb, tid);
			any = true;
		}
		if (!any)
			break;
	}
}

static u8 cell_state(struct sim_state *s, int tid, int cntr)
{
	switch (s->xsu) {
	case SIM_XSU_UPSTREAM:
		return s->up.state[tid][cntr];
	case SIM_XSU_SERIES:
	case SIM_XSU_RESEARCH:
		return xsu_counter_state(&s->xc, tid, cntr);
	default:
		return SIM_U;
	}
}

/* Time accounting, exposure and leaks for the placement at tick @t. */
static void account(struct sim_state *s, int t)
{
	const struct sim_pmu *pmu = &s->cfg->pmu;
	struct sim_result *res = s->res;
	int tid, e, f;

	for (tid = 0; tid < 2; tid++) {
		struct sim_thread *th = &s->th[tid], *sib = &s->th[tid ^ 1];
		int gp = 0;

		if (!enabled_at(th->cfg, t) || !th->cfg->n)
			continue;
		res->thread_ticks++;
		for (e = 0; e < th->cfg->n; e++) {
			struct sim_event_stats *st = &res->ev[tid][e];
			int c = th->on[e];

			st->enabled++;
			if (th->prev[e] >= 0 && c >= 0 && th->prev[e] != c)
				res->reprogrammings++;
			th->prev[e] = c;
			if (c < 0)
				continue;
			st->running++;
			st->on_counter[c]++;
			st->raw += th->cfg->rate[e];
			gp += c < 32;
			if (!pmu->erratum || c >= 32)
				continue;
			for (f = 0; f < sib->cfg->n; f++) {
				if (sib->on[f] != c || !sib->cfg->ev[f].corrupting)
					continue;
				st->exposure++;
				st->leaked += sib->cfg->rate[f];
				st->raw += sib->cfg->rate[f];
			}
		}
		res->gp_used += gp;
	}

	if (!res->tl)
		return;
	for (tid = 0; tid < 2; tid++) {
		struct sim_thread *th = &s->th[tid];
		int r, rows = pmu->nr_gp + pmu->nr_fixed;

		for (r = 0; r < rows; r++) {
			int c = r < pmu->nr_gp ? r : SIM_FIXED_BASE + r - pmu->nr_gp;
			struct sim_cell *cell = &SIM_CELL(res->tl, t, tid, r);

			cell->event = -1;
			cell->state = cell_state(s, tid, c);
			for (e = 0; e < th->cfg->n; e++)
				if (th->on[e] == c)
					cell->event = e;
		}
	}
}

static struct sim_timeline *timeline_new(const struct sim_config *cfg,
					 const struct sim_policy *pol)
{
	int rows = cfg->pmu.nr_gp + cfg->pmu.nr_fixed;
	struct sim_timeline *tl;
	char *title;

	tl = calloc(1, sizeof(*tl) + 160);
	if (!tl)
		return NULL;
	tl->cells = calloc((size_t)cfg->ticks * 2 * rows, sizeof(*tl->cells));
	if (!tl->cells) {
		free(tl);
		return NULL;
	}
	title = (char *)(tl + 1);
	snprintf(title, 160, "%s, HT %s, %d GP + %d fixed counters: matcher %s",
		 cfg->pmu.name, cfg->pmu.ht ? "on" : "off", cfg->pmu.nr_gp,
		 cfg->pmu.nr_fixed, sim_policy_name(pol));
	tl->title = title;
	tl->ticks = cfg->ticks;
	tl->nr_gp = cfg->pmu.nr_gp;
	tl->nr_fixed = cfg->pmu.nr_fixed;
	tl->xsu = pol->xsu != SIM_XSU_OFF && cfg->pmu.erratum;
	tl->nr_events[0] = cfg->th[0].n;
	tl->nr_events[1] = cfg->th[1].n;
	tl->events[0] = cfg->th[0].ev;
	tl->events[1] = cfg->th[1].ev;
	return tl;
}

void sim_timeline_free(struct sim_timeline *tl)
{
	if (tl) {
		free(tl->cells);
		free(tl);
	}
}

/* How many times thread @tid rotates in tick @t (cfg->rotations). */
static int rotations(const struct sim_config *cfg, int tid, int t)
{
	const char *r = cfg->rotations[tid];

	if (!r || t >= (int)strlen(r))
		return 1;
	return r[t] - '0';
}

int sim_run(const struct sim_config *cfg, const struct sim_policy *pol,
	    struct sim_result *res, bool timeline)
{
	struct sim_state *s = calloc(1, sizeof(*s));
	int t, tid, e, k;

	if (!s)
		return -1;
	memset(res, 0, sizeof(*res));
	s->cfg = cfg;
	s->pol = pol;
	s->res = res;
	s->rng = cfg->seed ? cfg->seed : 1;
	s->match = pol->matcher == SIM_GREEDY ? sim_greedy_match : NULL;

	/* Without the erratum there is nothing to exclude. */
	s->xsu = cfg->pmu.erratum ? pol->xsu : SIM_XSU_OFF;
	switch (s->xsu) {
	case SIM_XSU_UPSTREAM:
		s->hooks = &upstream_hooks;
		s->ctx = &s->up;
		break;
	case SIM_XSU_SERIES:
	case SIM_XSU_RESEARCH:
		xsu_init(&s->xc, true);
		xsu_thread_online(&s->xc, 0, true);
		xsu_thread_online(&s->xc, 1, true);
		xsu_arb_init(&s->arb, cfg->pmu.nr_gp);
		s->glue.xc = &s->xc;
		s->glue.arb = &s->arb;
		/* 25 multiplexing intervals, as intel/core.c */
		s->glue.hold = cfg->hold > 0 ? cfg->hold : 25;
		s->hooks = s->xsu == SIM_XSU_SERIES ? &pass_xsu_arb_hooks :
						     &pass_xsu_hooks;
		s->ctx = s->xsu == SIM_XSU_SERIES ? (void *)&s->glue : &s->xc;
		break;
	default:
		break;
	}

	for (tid = 0; tid < 2; tid++) {
		s->th[tid].cfg = &cfg->th[tid];
		for (e = 0; e < SIM_MAX_EVENTS; e++) {
			s->th[tid].order[e] = e;
			s->th[tid].hw[e] = -1;
			s->th[tid].on[e] = -1;
			s->th[tid].prev[e] = -1;
		}
	}

	/* HT1 starts @rotate1 rotations ahead (group order is cyclic). */
	if (cfg->th[1].n) {
		int k = cfg->rotate1 % sim_groups(&cfg->th[1]);

		while (k-- > 0)
			rotate_group(&s->th[1], 0);
	}

	if (timeline) {
		res->tl = timeline_new(cfg, pol);
		if (!res->tl) {
			free(s);
			return -1;
		}
	}

	for (t = 0; t < cfg->ticks; t++) {
		int first = 0;

		if (cfg->first && t < (int)strlen(cfg->first))
			first = cfg->first[t] - '0';
		else if (cfg->order == SIM_ORDER_ALTERNATE)
			first = t & 1;
		else if (cfg->order == SIM_ORDER_RANDOM)
			first = rng_next(&s->rng) >> 63;
		s->glue.now = t;
		for (tid = first, k = 0; k < 2; k++, tid ^= 1) {
			int r = rotations(cfg, tid, t);

			while (r-- > 0) {
				thread_turn(s, tid, t, false);
				kicks(s, t);
			}
		}
		account(s, t);
	}

	free(s);
	return 0;
}

int sim_top_counter(const struct sim_event_stats *st)
{
	int c, top = -1;

	for (c = 0; c < SIM_ROWS; c++)
		if (st->on_counter[c] && (top < 0 ||
					  st->on_counter[c] > st->on_counter[top]))
			top = c;
	return top;
}
