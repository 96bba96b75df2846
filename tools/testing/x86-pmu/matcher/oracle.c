// SPDX-License-Identifier: GPL-2.0
/*
 * Oracles for the matcher tests. The brute force walks every way of giving
 * each event one legal counter or none, memoised on (event, counters used,
 * GP events so far); it knows nothing of matchings. Its second form also
 * counts the events that stay on the counter they had (prev[]), to find
 * the fewest moves among the assignments that place the most events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oracle.h"

#define NR_GP		32
#define MEMO_BITS	20
#define MEMO_SIZE	(1u << MEMO_BITS)

struct memo_entry {
	u64 used;
	u32 gen;
	u8 event, gp;
	s16 value;
};

static struct memo_entry *memo;
static u32 memo_gen, memo_used;

/* Value of an assignment: events placed, then events kept (brute_keep). */
#define KEEP_WEIGHT	128
static bool weigh_kept;

static u64 memo_hash(int i, u64 used, int gp)
{
	u64 h = used * 0x9e3779b97f4a7c15ULL;

	h ^= ((u64)i << 8 | (u64)gp) * 0xc2b2ae3d27d4eb4fULL;
	return (h ^ (h >> 29)) & (MEMO_SIZE - 1);
}

static int brute(const struct match_instance *in, int i, u64 used, int gp)
{
	struct memo_entry *e;
	u64 h, m;
	int best, c, most;

	if (i == in->n)
		return 0;
	most = (in->n - i) * (weigh_kept ? KEEP_WEIGHT + 1 : 1);

	for (h = memo_hash(i, used, gp);; h = (h + 1) & (MEMO_SIZE - 1)) {
		e = &memo[h];
		if (e->gen != memo_gen)
			break;
		if (e->used == used && e->event == i && e->gp == gp)
			return e->value;
	}

	/* Event i stays out. */
	best = brute(in, i + 1, used, gp);

	for (c = 0; c < 64 && best < most; c++) {
		bool pair = in->paired >> i & 1;
		int r;

		if (!(in->masks[i] >> c & 1))
			continue;
		if (pair && (c % 2 || c >= NR_GP))
			continue;
		m = pair ? 3ULL << c : 1ULL << c;
		if (used & m)
			continue;
		if (c < NR_GP && gp + 1 > in->gpmax)
			continue;
		r = brute(in, i + 1, used | m, gp + (c < NR_GP));
		r += weigh_kept ? KEEP_WEIGHT + (in->prev[i] == c) : 1;
		if (r > best)
			best = r;
	}

	/* Keep the table sparse; past half full, just stop memoising. */
	if (memo_used >= MEMO_SIZE / 2)
		return best;
	memo_used++;
	for (h = memo_hash(i, used, gp);; h = (h + 1) & (MEMO_SIZE - 1)) {
		e = &memo[h];
		if (e->gen != memo_gen)
			break;
	}
	e->gen = memo_gen;
	e->used = used;
	e->event = i;
	e->gp = gp;
	e->value = best;
	return best;
}

static int brute_start(const struct match_instance *in, bool keep)
{
	if (!memo) {
		memo = calloc(MEMO_SIZE, sizeof(*memo));
		if (!memo) {
			perror("calloc");
			exit(2);
		}
	}
	memo_used = 0;
	if (++memo_gen == 0) {
		memset(memo, 0, MEMO_SIZE * sizeof(*memo));
		memo_gen = 1;
	}
	weigh_kept = keep;
	return brute(in, 0, 0, 0);
}

int oracle_brute(const struct match_instance *in)
{
	return brute_start(in, false);
}

int oracle_brute_keep(const struct match_instance *in, int *kept)
{
	int v = brute_start(in, true);

	*kept = v % KEEP_WEIGHT;
	return v / KEEP_WEIGHT;
}

/*
 * Hall's theorem, deficiency form: the largest matching leaves out exactly
 * max over event subsets S of |S| - |N(S)| events.
 */
int oracle_hall(const u64 *masks, int n)
{
	int worst = 0;
	u32 s;

	for (s = 1; s < (1u << n); s++) {
		u64 nb = 0;
		int i, d;

		for (i = 0; i < n; i++)
			if (s >> i & 1)
				nb |= masks[i];
		d = __builtin_popcount(s) - __builtin_popcountll(nb);
		if (d > worst)
			worst = d;
	}
	return n - worst;
}

const char *oracle_check(const struct match_instance *in, const int *assign,
			 int placed)
{
	u64 used = 0;
	int i, gp = 0, count = 0;

	for (i = 0; i < in->n; i++) {
		int c = assign[i];
		bool pair = in->paired >> i & 1;
		u64 m;

		if (c == -1)
			continue;
		if (c < 0 || c > 63)
			return "counter index out of range";
		if (!(in->masks[i] >> c & 1))
			return "counter outside the event's mask";
		if (pair && (c % 2 || c >= NR_GP))
			return "paired event not on an even GP counter";
		m = pair ? 3ULL << c : 1ULL << c;
		if (used & m)
			return "counter used twice";
		used |= m;
		gp += c < NR_GP;
		count++;
	}
	if (gp > in->gpmax)
		return "more GP events than gpmax";
	if (count != placed)
		return "return value does not match the assignment";
	return NULL;
}

/* xorshift64*: small, seeded, reproducible. */
u64 rng_next(u64 *state)
{
	u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

void instance_pairs_any(u64 *rng, struct match_instance *in)
{
	u64 m, bit;
	int i, want;

	in->n = 24;
	in->gpmax = 32;
	in->paired = 0;
	for (i = 0; i < in->n; i++) {
		bool pair = i % 2 == 0;

		want = pair ? 3 + rng_next(rng) % 6 : 2 + rng_next(rng) % 3;
		m = 0;
		while (__builtin_popcountll(m) < want) {
			bit = 1ULL << (rng_next(rng) % 32);
			m |= pair ? bit & 0x5555555555555555ULL : bit;
		}
		if (pair)
			in->paired |= 1ULL << i;
		in->masks[i] = m;
		in->prev[i] = -1;
	}
}

double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int instance_format(const struct match_instance *in, char *buf, size_t len)
{
	int i, off;

	off = snprintf(buf, len, "gpmax=%d paired=%#llx masks=", in->gpmax,
		       (unsigned long long)in->paired);
	for (i = 0; i < in->n && off < (int)len; i++)
		off += snprintf(buf + off, len - off, "%s%#llx", i ? "," : "",
				(unsigned long long)in->masks[i]);
	for (i = 0; i < in->n && off < (int)len; i++)
		off += snprintf(buf + off, len - off, "%s%d", i ? "," : " prev=",
				in->prev[i]);
	return off;
}
