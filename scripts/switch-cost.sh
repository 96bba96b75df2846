#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's instructions per context switch with perf events, the
# series against plain 7.3 on the same emulated Haswell (cost/cost.sh in
# the boots cost-ht and cost-noht of the cost kernel, cost-ht-7.3 and
# cost-noht-7.3 of the mainline kernel: the same configuration, lockdep
# included, no KASAN). Two tasks on one CPU ping-pong through pipes with N
# per-task events each; the emulator counts the instructions the CPU
# retired at CPL 0 (qemu/README.md). A run's figure is exact for what ran
# in its window, which besides the switches holds whatever else the CPU
# did then (timer ticks, a kernel thread): that only adds, so the least
# of a case's repetitions is its figure, and the spread (largest over
# least) is shown beside it.
#
# Prints a Markdown table (instructions per switch; N = 0 is the switch
# without perf events) and TAP:
#  - HT off, where neither kernel applies the erratum's workaround: the
#    series costs at most 1 + TOL times plain 7.3 for N = 2, 4, 8, plain
#    and corrupting. TOL (default 0.05) is a bound against regressions, not
#    the goal: the goal is 1.00x, and the runs here measured 1.00-1.04x
#    (the series' x86_schedule_events() and x86_pmu_del() do a little more
#    per event);
#  - HT on, plain events, the workaround off (the knob at 0): the series
#    costs less than plain 7.3, which takes its exclusion path for every
#    event while HT is on.
# With corrupting events on HT plain 7.3 halves the general-purpose
# counters, so it runs two of four or eight events where the series runs
# four: those figures are of different work, shown, not compared; nor is
# the series' cost with the workaround on.
#
# Usage: [TOL=0.05] switch-cost.sh [RESULTS_DIR] (default build/results)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

python3 - "${1:-$RESULTS}" "${TOL:-0.05}" <<'PY'
import re, sys

rdir, tol = sys.argv[1], float(sys.argv[2])
BOOTS = ("cost-ht", "cost-noht", "cost-ht-7.3", "cost-noht-7.3")
CASES = [(0, "plain"), (2, "plain"), (4, "plain"), (8, "plain"),
         (2, "corrupting"), (4, "corrupting"), (8, "corrupting")]

def runs(boot):
    """{(knob, n, kind): [instructions per switch, ...]} of a boot."""
    out = {}
    try:
        text = open("%s/boot-%s.console" % (rdir, boot), errors="replace").read()
    except OSError:
        return {}
    for m in re.finditer(r"^# cost knob=(\w+) rep=\d+ n=(\d+) kind=(\w+) rounds=\d+ "
                         r"kernel_per_switch=(\d+) all_per_switch=\d+ share=[0-9.]+", text, re.M):
        out.setdefault((m.group(1), int(m.group(2)), m.group(3)), []).append(int(m.group(4)))
    return out

data = {b: runs(b) for b in BOOTS}
n = 0
def tap(ok, what):
    global n
    n += 1
    print("%s %d - switch cost: %s" % ("ok" if ok else "not ok", n, what))

missing = [b for b in BOOTS if not data[b]]
if missing:
    tap(False, "no cost/cost.sh figures from %s" % ", ".join(missing))
    print("1..%d" % n)
    sys.exit(1)

def least(boot, knob, case):
    """The least of a case's repetitions, and their spread."""
    v = data[boot].get((knob,) + case)
    return (min(v), max(v) / min(v) - 1) if v else (None, None)

def cell(x):
    return "-" if x[0] is None else "%d (%.0f%%)" % (x[0], 100 * x[1])

def ratio(a, b):
    return a[0] / b[0] if a[0] and b[0] else None

print("# | events per task | HT off: series | HT off: 7.3 | ratio | HT on: series, workaround off | series, workaround on | 7.3 (workaround on) | ratio, on |")
print("# |---|---|---|---|---|---|---|---|")
off_bad, ht_bad, worst, worst_ht, spread = [], [], 0.0, 0.0, 0.0
for case in CASES:
    s_noht, u_noht = least("cost-noht", "fixed", case), least("cost-noht-7.3", "fixed", case)
    s_off, s_on = least("cost-ht", "off", case), least("cost-ht", "on", case)
    u_ht = least("cost-ht-7.3", "fixed", case)
    r, r_on, r_off = ratio(s_noht, u_noht), ratio(s_on, u_ht), ratio(s_off, u_ht)
    print("# | %d %s | %s | %s | %s | %s | %s | %s | %s |" % (
        case[0], case[1], cell(s_noht), cell(u_noht), "%.3fx" % r if r else "-",
        cell(s_off), cell(s_on), cell(u_ht), "%.2fx" % r_on if r_on else "-"))
    if case[0] == 0:
        continue
    if r is None or r > 1 + tol:
        off_bad.append("%d %s: %s" % (case[0], case[1], "%.3fx" % r if r else "missing"))
    if case[1] == "plain":
        if r_off is None or r_off >= 1:
            ht_bad.append("%d %s: %s" % (case[0], case[1], "%.3fx" % r_off if r_off else "missing"))
        worst_ht = max(worst_ht, r_off or 0)
    worst = max(worst, r or 0)
    spread = max(spread, u_noht[1] or 0)
print("# the least of %d repetitions; in parentheses, the largest over the least; with HT on plain 7.3 runs"
      " two of 4 or 8 corrupting events (it halves the GP counters), the series all that fit" %
      max(len(v) for v in data["cost-noht-7.3"].values()))
tap(not off_bad, "HT off (no workaround in either kernel): the series costs at most %.2fx plain 7.3 for 2, 4 and 8 events, plain and corrupting (highest %.3fx, the goal 1.00x; plain 7.3's own repetitions spread up to %.0f%%)%s"
    % (1 + tol, worst, 100 * spread, ": " + ", ".join(off_bad) if off_bad else ""))
tap(not ht_bad, "HT on, plain events, workaround off: the series costs less than plain 7.3, whose workaround is always on (highest %.3fx)%s"
    % (worst_ht, ": " + ", ".join(ht_bad) if ht_bad else ""))
print("1..%d" % n)
PY
