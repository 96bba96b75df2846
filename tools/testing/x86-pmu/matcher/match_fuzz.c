// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for arch/x86/events/counter_match.c: any input becomes
 * a PMU (1-8 GP counters, fixed and metric counters), up to 12 events with
 * arbitrary masks, pair flags, gpmax and junk previous counters. The result
 * must be a legal assignment of as many events as the brute force finds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bug.h>

#include "counter_match.h"
#include "oracle.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

static void fail(const struct match_instance *in, const char *what)
{
	char buf[512];

	instance_format(in, buf, sizeof(buf));
	fprintf(stderr, "counter_match: %s: %s\n", what, buf);
	abort();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct match_instance in;
	int assign[64], left, i;
	const char *bad;
	u64 gp;

	if (size < 3)
		return 0;
	gp = (1ULL << (1 + data[0] % 8)) - 1;
	in.n = 1 + data[1] % 12;
	in.gpmax = data[2] % 10;
	in.paired = 0;
	data += 3;
	size -= 3;

	for (i = 0; i < in.n; i++) {
		u8 b0 = size > 0 ? data[0] : 0xff;
		u8 b1 = size > 1 ? data[1] : 0;
		u8 b2 = size > 2 ? data[2] : 0xff;

		in.masks[i] = (b0 & gp) | (u64)(b1 & 0xf) << 32 |
			      (u64)(b1 >> 4 & 0x7) << 48;
		if (b1 & 0x80)
			in.paired |= 1ULL << i;
		in.prev[i] = (int)(b2 % 70) - 3;
		assign[i] = in.prev[i];
		data += size > 3 ? 3 : size;
		size -= size > 3 ? 3 : size;
	}

	left = x86_counter_match(in.masks, in.n, in.paired, in.gpmax, assign);
	if (left != x86_counter_match(in.masks, in.n, in.paired, in.gpmax,
				      NULL))
		fail(&in, "result depends on assign");
	if (in.n - left != oracle_brute(&in))
		fail(&in, "not maximum");
	bad = oracle_check(&in, assign, in.n - left);
	if (bad)
		fail(&in, bad);
	if (shim_warnings)
		fail(&in, "kernel warning");
	return 0;
}
