#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the patched tree as a KUnit kernel (x86_64, build outputs in
# build/kunit, reused between runs) and boot it under QEMU; the series'
# KUnit suites run at boot and their results are printed. The results also
# go to build/results/kunit.tap, one line per test case.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# The series' .kunitconfig files and the suites they must produce.
KUNITCONFIGS=(arch/x86/events arch/x86/events/intel)
SUITES=(x86_counter_match x86_intel_xsu)

mkdir -p "$RESULTS"
rm -f "$RESULTS/kunit.json"
args=()
for k in "${KUNITCONFIGS[@]}"; do
	args+=(--kunitconfig="$k")
done

step "building the patched kernel and booting it under QEMU (about 3 minutes the first time on 2 cores, under a minute after)"
(cd "$KSRC" && python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
	--build_dir="$KBUILD" --jobs="$JOBS" --timeout=600 \
	--make_options=KCFLAGS=-fstack-usage \
	--json="$RESULTS/kunit.json" "${args[@]}") 2>&1 |
	tee "$RESULTS/kunit.log" | grep -v '^\$ \|^Populating\|^Building with'
status=${PIPESTATUS[0]}

python3 - "$RESULTS/kunit.json" "${SUITES[@]}" > "$RESULTS/kunit.tap" <<'PY'
import json, sys
path, suites = sys.argv[1], sys.argv[2:]
n = 0
def line(ok, name):
    global n
    n += 1
    print(("ok" if ok else "not ok") + " %d - kunit: %s" % (n, name))
try:
    root = json.load(open(path))
except Exception as e:
    root = {"sub_groups": [], "test_cases": []}
    print("# no KUnit results: %s" % e)
seen = set()
def walk(group, prefix):
    for case in group.get("test_cases", []):
        line(case["status"] in ("PASS", "SKIP"),
             prefix + case["name"] + ("" if case["status"] == "PASS"
                                      else " (%s)" % case["status"]))
    for sub in group.get("sub_groups", []):
        seen.add(sub["name"])
        walk(sub, sub["name"] + ".")
walk(root, "")
for s in suites:
    if s not in seen:
        line(False, "suite %s did not run" % s)
print("1..%d" % n)
PY
if [ "$status" -ne 0 ] && ! grep -q '^not ok' "$RESULTS/kunit.tap"; then
	echo "not ok - kunit.py failed (exit $status), see build/results/kunit.log" >> "$RESULTS/kunit.tap"
fi

# Stack frames of the scheduling path in the kernel build, from gcc's
# -fstack-usage (checkstack.pl's figure is shown too: on x86_64 it adds the
# epilogue's "add $N,%rsp" to the prologue's "sub $N,%rsp", so it doubles).
frames() {
	local su=$KBUILD/$1 fn=$2 limit=$3 bytes
	bytes=$(awk -F'\t' -v fn="$fn" '$1 ~ ":" fn "$" { print $2 }' "$su" 2>/dev/null)
	if [ -n "$bytes" ] && [ "$bytes" -le "$limit" ]; then
		echo "ok - kernel stack frame of $fn: $bytes bytes (<= $limit)"
	else
		echo "not ok - kernel stack frame of $fn: '$bytes' bytes, limit $limit"
	fi
}
{
	frames arch/x86/events/counter_match.su x86_counter_match 768
	frames arch/x86/events/core.su perf_assign_events 640
	frames arch/x86/events/core.su x86_schedule_events 256
} > "$RESULTS/kunit-stack.tap"
cat "$RESULTS/kunit-stack.tap"
if [ -f "$KBUILD/arch/x86/events/counter_match.o" ]; then
	objdump -d "$KBUILD/arch/x86/events/counter_match.o" |
		perl "$KSRC/scripts/checkstack.pl" x86_64 0 | sed 's/^/# checkstack.pl: /'
fi
exit "$status"
