// SPDX-License-Identifier: GPL-2.0
/*
 * Every loop of the matcher must end whatever its input, since it runs with
 * interrupts off. The breadth-first layering and the depth-first walk end
 * by construction (each step layers, enters or drops a counter); the phases
 * end because each one places an event, which holds only as long as the
 * walk finds the paths the layering promises. So this program is built
 * from a copy of counter_match.c with a broken walk planted in it (the
 * Makefile's counter_match_broken_walk.c: a path never ends on the free
 * counter of the goal level). Its phases then place nothing; the matcher
 * must give up with a warning and still return a legal assignment. A
 * watchdog fails the run when one call does not return in time, which is
 * what phases without that bound do.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../../../arch/x86/events/counter_match.h"
#include "oracle.h"
#include "tap.h"

/* Seconds one call may take before the run fails as hung. */
#ifndef WATCHDOG_S
#define WATCHDOG_S	10
#endif
#define STR(x)		#x
#define XSTR(x)		STR(x)
#define WATCHDOG_STR	XSTR(WATCHDOG_S)
/* CPU time a call may take, bound included: far below the watchdog. */
#define SLOWEST_US	100000
#define INSTANCES	3000

static char why[512];

static void watchdog(int sig)
{
	static const char msg[] =
		"not ok 1 - the matcher did not return within the watchdog's "
		WATCHDOG_STR " s: a loop without a bound\n1..1\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static int random_bit(u64 *rng, u64 of)
{
	int k = rng_next(rng) % __builtin_popcountll(of);

	while (k--)
		of &= of - 1;
	return __builtin_ctzll(of);
}

/*
 * 4 GP and 3 fixed counters, 3 to 8 events of random masks, most of them
 * on a legal counter before: enough that the first fit often leaves events
 * out that a path would place.
 */
static void random_instance(u64 *rng, struct match_instance *in)
{
	const u64 all = 0xfULL | 0x7ULL << 32;
	int i;

	in->n = 3 + rng_next(rng) % 6;
	in->gpmax = 2 + rng_next(rng) % 3;
	in->paired = 0;
	for (i = 0; i < in->n; i++) {
		u64 m;

		do {
			m = rng_next(rng) & all;
		} while (!m);
		in->masks[i] = m;
		in->prev[i] = rng_next(rng) % 4 ? random_bit(rng, m) : -1;
	}
}

int main(void)
{
	struct match_instance in;
	int assign[64], r, left, gave_up = 0, wrong = 0;
	unsigned long warned;
	double t, worst = 0;
	const char *bad;
	int err = dup(STDERR_FILENO);
	u64 rng = 7;

	/* One warning per call given up: count them, do not print them. */
	dup2(open("/dev/null", O_WRONLY), STDERR_FILENO);
	signal(SIGALRM, watchdog);
	for (r = 0; r < INSTANCES; r++) {
		random_instance(&rng, &in);
		memcpy(assign, in.prev, sizeof(int) * in.n);

		warned = shim_warnings;
		alarm(WATCHDOG_S);
		t = cpu_us();
		left = x86_counter_match(in.masks, in.n, 0, in.gpmax, assign);
		t = cpu_us() - t;
		alarm(0);
		if (t > worst)
			worst = t;
		gave_up += shim_warnings != warned;

		bad = oracle_check(&in, assign, in.n - left);
		if (bad && !wrong++) {
			instance_format(&in, why, sizeof(why));
			tap_diag("%s: %s", why, bad);
		}
	}
	/* The warnings were the point: they do not fail the run. */
	shim_warnings = 0;
	dup2(err, STDERR_FILENO);

	tap_diag("%d instances with a broken walk; the phases gave up in %d; slowest call %.0f us of CPU",
		 INSTANCES, gave_up, worst);
	tap_result(gave_up > 0,
		   "broken walk: phases that place nothing give up with a warning");
	tap_result(!wrong,
		   "broken walk: every call returns a legal assignment");
	tap_result(worst < SLOWEST_US,
		   "broken walk: every call returns within 100 ms of CPU time");
	return tap_finish();
}
