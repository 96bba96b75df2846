#!/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
#
# x86pmu-samples REPORT: from perf report --stdio output, "E S T": the
# events perf report has a header for ("# Samples: N of event 'E'"), those
# with samples, and the samples in all (perf's rounding: "8K" is 8000).
# amd/f15h.sh and grt/pebs.sh read their records with it.
/^# Samples: / {
	s = $3
	if (s ~ /K$/) { sub(/K$/, "", s); s *= 1000 }
	if (s ~ /M$/) { sub(/M$/, "", s); s *= 1000000 }
	events++
	sampled += s > 0
	total += s
}
END { printf "%d %d %d\n", events, sampled, total }
