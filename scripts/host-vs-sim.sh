#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The simulator's scenarios as the emulated host ran them (scenarios/scenarios.sh
# in the boots of the series kernel, and of plain mainline where a boot of
# it runs them: make check's matrix no longer does) beside the simulator's prediction for the same kernel: the series
# (matcher hk, XSU series) for the patched kernel, upstream's model
# (greedy, XSU upstream: 6.12's scheduling core, which 7.3 keeps byte for
# byte) for the unpatched one. Prints a table per scenario and TAP: for the patched
# kernel, every event's scheduled fraction within 5 points of the
# simulator's in the scenarios whose outcome does not depend on the
# siblings' timing (1, 2, 5), and the ledger empty with the workaround on;
# the unpatched kernel's comparison is reported as comments. The series is
# simulated with --continue where its PMU has PERF_PMU_CAP_SCHED_CONTINUE
# (part 4, the rfc kernel).
#
# Which boots, and how each is modelled: HVS_BOOTS, "BOOT:LABEL:MODEL"
# each, MODEL hk (the series), hk+continue (the series with the perf-core
# continuation) or upstream; scripts/qemu-run.sh sets it from its matrix
# (hsw-ht and hsw-ht-scen, the series; default: hsw-ht, the series, and
# hsw-ht-7.3, mainline). HVS_CONFIG: the
# series kernel's .config, for its CONFIG_HZ (default: build/k-series's).
# HVS_TREE: the kernel tree whose perf event tables the simulator reads
# (--tree), the one the host's perf was built from (default: the 7.3
# tree).
#
# host/half.sh (a group asking for half of the counters beside four
# corrupting events on the sibling) beside the simulator's same lists:
# each kind of group's lowest share and the sibling's within 5 points (the
# sibling's share over the groups' windows: over the whole run it adds the
# gaps between groups, where it has the core alone, 51% to 56% by boot).
#
# perf's metric groups (one perf stat -M GROUP -A on both siblings, the
# metrics lines of scenarios.sh) are set beside the simulator's
# --ht0-metrics GROUP --ht1-metrics GROUP, event by event in perf's order.
# Both siblings run the same list, and with the workaround on what one
# thread can place depends on which groups the other has at the head and
# on which of the two rotated last: the host enables the second CPU's list
# a few ticks after the first, each multiplexing timer keeps the phase it
# had (hrtimer_forward_now()), so a first rotation comes anywhere within
# an interval of the enable, and a vCPU that misses its timer (its host
# busy elsewhere) loses rotations. scenarios.sh traces when each CPU
# started its timer (the enable) and every expiry, and the simulator
# replays that with a tick per bin of 1/BINS interval (replay_args()):
# --startN/--durN, --rotationsN, --first (which thread acted first in a
# bin) and --hold (a demand's life, 25 intervals and a jiffy as
# intel_xsu_hold() keeps it, CONFIG_HZ from the kernel build). Without the
# record (a kernel without tracing, or a trace that lost events) both
# rotate once a tick and the prediction is the mean of the orders fixed
# and alternate. Counted: every event within 3 points of the prediction
# with the workaround off, within 5 with it on (tma_l3_bound_group, and
# MemoryBound where a boot ran it: printed only, see BOUND), and the
# ledger empty with it on; reported: whether every event is within 3
# points with it on, the largest difference over the corrupting events and
# each thread's counter time (all its fractions summed). With a digit a tick and the mean of the
# two orders the largest difference was 1.9 to 7.0 points from boot to
# boot; with the trace replayed it is mostly under 3 but not always: the
# siblings' rounds overlap on the host, and both lists can settle into
# another cycle of the dynamics than the simulator's (README).
#
# Usage: [SIM=x86-pmu-sim] [BINS=30] host-vs-sim.sh [RESULTS_DIR]
#   (defaults: build/harness/x86-pmu-sim, built if missing; bins of the
#   replay per multiplexing interval; build/results)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# The mainline tree: its event tables, upstream's greedy (tag base), and
# the series' perf_event.h for the matcher's KUnit suite (branch ht).
KSRC=$(ksrc "$MAINLINE")

dir=${1:-$RESULTS}
SIM=${SIM:-$BUILD/harness/x86-pmu-sim}
[ -x "$SIM" ] || make -s -C "$TOP/tools/testing/x86-pmu" KSRC="$KSRC" O="$BUILD/harness" \
	"$SIM" > /dev/null || die "cannot build the simulator"

# The guest kernel's tick, for intel_xsu_hold() (250 Hz where the build
# is not there to say).
hz=$(sed -n 's/^CONFIG_HZ=//p' "${HVS_CONFIG:-$(kout series)/.config}" 2>/dev/null)

python3 - "$SIM" "$dir" "${hz:-250}" "${BINS:-30}" "${HVS_TREE:-$KSRC}" \
	${HVS_BOOTS:-hsw-ht:series:hk hsw-ht-7.3:7.3:upstream} <<'PY'
import re, subprocess, sys

sim, rdir, hz = sys.argv[1], sys.argv[2], int(sys.argv[3])
TREE = sys.argv[5]
BOOTS = [b.split(":") for b in sys.argv[6:]]
JIFFY = 1000 // hz
BINS = int(sys.argv[4])
TOL = 5.0
ORDERS = ("fixed", "alternate")
# The bound make check counts with the workaround on, per group, where it
# is not 5 points (None: printed only); the 3-point line is printed. In
# the boots of the README, CacheHits came within 3 points in 21 of 24
# (3.6, 3.1 and 3.1 in three), tma_l3_bound_group in 14 of 17 (up to
# 4.3), MemoryBound in 13 of 16 (up to 4.7). With the workaround off every group
# is counted within 3 points (0.2 to 0.8).
BOUND = {"MemoryBound": None, "tma_l3_bound_group": None}

def host(boot):
    """The scenarios a boot ran: parameters, fractions, ledger."""
    try:
        text = open("%s/boot-%s.console" % (rdir, boot), errors="replace").read()
    except OSError:
        return None
    scen = {}
    for m in re.finditer(r"^# scenario (\d+) xsu (on|off) ticks (\d+) start1 (\d+) ht0 (\S+) ht1 (\S+)$", text, re.M):
        scen[int(m.group(1))] = {"xsu": m.group(2), "ticks": m.group(3), "start1": m.group(4),
                                 "ht0": m.group(5), "ht1": m.group(6), "res": [], "ledger": None}
    for m in re.finditer(r"^# scenario (\d+) thread (\d) event (\S+) running ([0-9.]+)$", text, re.M):
        if int(m.group(1)) in scen:
            scen[int(m.group(1))]["res"].append((int(m.group(2)), m.group(3), float(m.group(4))))
    for m in re.finditer(r"^# scenario (\d+) ledger leaked (-?\d+) exposed_ns (-?\d+)$", text, re.M):
        if int(m.group(1)) in scen:
            scen[int(m.group(1))]["ledger"] = (int(m.group(2)), int(m.group(3)))
    return scen

# host/half.sh (half.c): a group of two events on HT0, the four corrupting
# events on HT1.
HALF_HT0, HALF_HT1 = "r00c4,r00c5", "r81d0,r82d0,r11d0,r12d0"

def host_half(boot):
    """What host/half.sh printed in a boot: the lowest share of each kind
    of group, the sibling's shares; None where it did not run."""
    try:
        text = open("%s/boot-%s.console" % (rdir, boot), errors="replace").read()
    except OSError:
        return None
    kinds = [(m.group(1), float(m.group(2))) for m in
             re.finditer(r"^#   (\S.*\S) +\d+ groups, lowest share ([0-9.]+)%$", text, re.M)]
    sib = [(m.group(1), float(m.group(2))) for m in
           re.finditer(r"^#   sibling (r[0-9a-f]+): ran ([0-9.]+)% while the groups ran", text, re.M)]
    return {"kinds": kinds, "sibling": sib} if kinds and sib else None

def ran_half(boot):
    """Whether host/half.sh ran in a boot (its TAP line is there)."""
    try:
        text = open("%s/boot-%s.console" % (rdir, boot), errors="replace").read()
    except OSError:
        return False
    return re.search(r"^(not )?ok \d+ selftests: host: half\.sh", text, re.M) is not None

def host_metrics(boot):
    """The metric groups a boot ran, by (group, xsu): ticks, fractions in
    perf's order, ledger."""
    try:
        text = open("%s/boot-%s.console" % (rdir, boot), errors="replace").read()
    except OSError:
        return {}
    # What each line "metrics G ..." sets in G's record.
    fields = (
        (r"thread (\d) event (\S+) running ([0-9.]+)",
         lambda gr, f: gr["res"].append((int(f[1]), f[2], float(f[3])))),
        (r"interval_ms ([0-9]+)",
         lambda gr, f: gr.update(interval=int(f[1]))),
        (r"enabled ([01]) (-?[0-9.]+)",
         lambda gr, f: gr["enabled"].update({int(f[1]): float(f[2])})),
        (r"trace_overrun ([0-9]+)",
         lambda gr, f: gr.update(overrun=int(f[1]))),
        (r"expiries ([01]) ?([0-9.,]*)",
         lambda gr, f: gr["expiries"].update({int(f[1]): [float(x) for x in f[2].split(",") if x]})),
        (r"ledger leaked (-?\d+) exposed_ns (-?\d+)",
         lambda gr, f: gr.update(ledger=(int(f[1]), int(f[2])))),
    )
    groups, cur = {}, {}
    for l in text.splitlines():
        m = re.match(r"# metrics (\S+) xsu (on|off) ticks (\d+)$", l)
        if m:
            key = (m.group(1), m.group(2))
            groups[key] = {"ticks": m.group(3), "res": [], "ledger": None, "expiries": {},
                           "enabled": {}, "overrun": 0}
            cur[m.group(1)] = groups[key]
            continue
        m = re.match(r"# metrics (\S+) (.*)$", l)
        if not m or m.group(1) not in cur:
            continue
        for pattern, put in fields:
            f = re.fullmatch(pattern, m.group(2))
            if f:
                put(cur[m.group(1)], f)
                break
    return groups

def run_sim(args):
    cmd = [sim, "--tree", TREE, "--model", "hsw"] + args
    proc = subprocess.run(cmd, capture_output=True, text=True)
    out = proc.stdout
    if proc.returncode != 0:
        # Said once, where it happened: every event then shows as
        # "not in the simulation".
        print("# the simulator failed (exit %d): %s" % (proc.returncode, " ".join(cmd[1:])))
        for l in proc.stderr.splitlines()[:5]:
            print("#   " + l)
    res, tid = [], None
    for l in out.splitlines():
        m = re.match(r"HT(\d) ", l)
        if m:
            tid = int(m.group(1))
            continue
        m = re.match(r"\s+(\S+)\s+([0-9.]+)%\s+\S+\s+([0-9.]+)%( C)?", l)
        if m and tid is not None:
            # perf prints cpu/EVENT,cmask=1/ where the simulator keeps
            # the metric's cpu@EVENT,cmask=1@; " C": a corrupting event.
            res.append((tid, m.group(1).replace("@", "/"), float(m.group(2)),
                        m.group(4) is not None))
    return res, " ".join(cmd[1:])

def simulate(sc, xsu, matcher, cont):
    return run_sim(["--ht0", sc["ht0"], "--ht1", sc["ht1"], "--start1", sc["start1"],
                    "--ticks", sc["ticks"], "--xsu", xsu, "--matcher", matcher] +
                   (["--continue"] if cont else []))

def compare(res, p):
    """Host lines beside the simulator's: same thread and name, and where a
    name recurs (INST_RETIRED.ANY in several groups), the one followed by
    the same event, since the simulator may list a group elsewhere than
    perf prints it; then by occurrence."""
    def keyed(lst):
        return [(q[0], q[1], lst[i + 1][1] if i + 1 < len(lst) and lst[i + 1][0] == q[0] else None)
                for i, q in enumerate(lst)]
    hk, sk = keyed(res), keyed(p)
    worst = 0.0
    used = [False] * len(p)
    global corrupting_worst, sums
    corrupting_worst, sums = 0.0, {}
    for j, (tid, ev, frac) in enumerate(res):
        k = next((i for i in range(len(p)) if not used[i] and sk[i] == hk[j]), None)
        if k is None:
            k = next((i for i, q in enumerate(p) if not used[i] and q[0] == tid and q[1] == ev), None)
        if k is None:
            print("#   HT%d     %-12s %5.1f%%  (not in the simulation)" % (tid, ev, frac))
            worst = 100.0
            continue
        used[k] = True
        worst = max(worst, abs(frac - p[k][2]))
        if p[k][3]:
            corrupting_worst = max(corrupting_worst, abs(frac - p[k][2]))
        sums.setdefault(tid, [0.0, 0.0])
        sums[tid][0] += frac
        sums[tid][1] += p[k][2]
        print("#   HT%d     %-12s %5.1f%%  %5.1f%%%s" % (tid, ev, frac, p[k][2], "  C" if p[k][3] else ""))
    return worst if res else 100.0

def replay_args(gr):
    """The simulator's arguments that replay a metric group's run from the
    host's trace, a bin of 1/BINS interval a tick: each list enabled where
    its CPU first started the multiplexing timer (a group failed; without
    that record, an interval before its first expiry), with a pass that
    schedules it, then rotated where the host rotated it, the thread
    whose timer expired first in a bin acting first; one perf stat
    disables both lists together, after the last expiry of each and
    within an interval of it: the middle of that range. A demand lasts
    two intervals, each rounded up to jiffies, and a jiffy
    (intel_xsu_hold()). [] without a whole record."""
    exp, iv = gr["expiries"], gr.get("interval", 0)
    if not iv or not exp.get(0) or not exp.get(1) or gr["overrun"]:
        return []
    w = iv / BINS
    enabled = [gr["enabled"].get(t, exp[t][0] - iv) for t in (0, 1)]
    origin = min(enabled) - w / 2
    bins = [[int((x - origin) // w) for x in exp[t]] for t in (0, 1)]
    end = max(max(bins[0]), max(bins[1]))
    end = max(end + 1, (end + min(max(bins[0]), max(bins[1])) + BINS) // 2)
    first = ["0"] * end
    when = {}
    for t in (0, 1):
        for x, k in zip(exp[t], bins[t]):
            if k < end and (k not in when or x < when[k]):
                when[k] = x
                first[k] = str(t)
    args = []
    for t in (0, 1):
        digits = [0] * end
        for k in bins[t]:
            if k < end:
                digits[k] += 1
        en = int((enabled[t] - origin) // w)
        digits[en] += 1
        if en not in when or enabled[t] < when[en]:
            when[en] = enabled[t]
            first[en] = str(t)
        args += ["--start%d" % t, str(en), "--dur%d" % t, str(end - en), "--rotations%d" % t,
                 "".join(str(min(9, d)) for d in digits)]
    hold = (25 * -(-iv // JIFFY) + 1) * JIFFY
    return args + ["--ticks", str(end), "--hold", str(round(hold * BINS / iv)),
                   "--first", "".join(first)]

n = 0
def tap(ok, what, counts=True):
    global n
    if not counts:
        print("# %s: %s" % ("agrees" if ok else "differs", what))
        return
    n += 1
    print("%s %d - host vs simulator: %s" % ("ok" if ok else "not ok", n, what))

for boot, kernel, model in BOOTS:
    series = model != "upstream"
    cont = model == "hk+continue"
    scen = host(boot)
    if scen is None:
        continue
    for s in sorted(scen):
        sc = scen[s]
        if sc["xsu"] == "off":
            xsu = "off"
        else:
            xsu = "series" if series else "upstream"
        matcher = "hk" if series else "greedy"
        p, cmd = simulate(sc, xsu, matcher, cont)
        print("# scenario %d, %s kernel; simulator: x86-pmu-sim %s" % (s, kernel, cmd))
        print("#   thread  event        host   simulator")
        worst = compare(sc["res"], p)
        led = sc["ledger"]
        if led:
            print("#   emulator ledger over the scenario: leaked %d, exposed %d ns" % led)
        tap(worst <= TOL, "scenario %d on the %s kernel: every event within %.0f points (largest difference %.1f)"
            % (s, kernel, TOL, worst), series)
        if series and xsu != "off":
            tap(led == (0, 0), "scenario %d on the %s kernel: nothing leaked, no exposure (ledger %s)"
                % (s, kernel, led))
    if not series:
        continue
    half = host_half(boot)
    if half is None and ran_half(boot):
        tap(False, "host/half.sh ran on %s but printed no shares to compare" % boot)
    if half:
        p, cmd = run_sim(["--ht0", HALF_HT0, "--ht1", HALF_HT1, "--ticks", "300",
                          "--xsu", "series", "--matcher", "hk"] + (["--continue"] if cont else []))
        sim0 = [q[2] for q in p if q[0] == 0]
        sim1 = {q[1]: q[2] for q in p if q[0] == 1}
        print("# half the counters beside four corrupting events (host/half.sh), %s kernel; simulator: x86-pmu-sim %s"
              % (kernel, cmd))
        worst = 100.0 if not sim0 else 0.0
        for kind, share in half["kinds"]:
            print("#   HT0     %-18s lowest %5.1f%%  simulator %5.1f%%" % (kind, share, min(sim0 or [0])))
            if sim0:
                worst = max(worst, abs(share - min(sim0)))
        for ev, share in half["sibling"]:
            print("#   HT1     %-18s %5.1f%%         simulator %s"
                  % (ev, share, "%5.1f%%" % sim1[ev] if ev in sim1 else "(not in the simulation)"))
            worst = max(worst, abs(share - sim1[ev]) if ev in sim1 else 100.0)
        tap(worst <= TOL, "half the counters beside four corrupting events on the %s kernel: each kind's lowest share and the sibling's within %.0f points of the simulator (largest difference %.1f)"
            % (kernel, TOL, worst))
    groups = host_metrics(boot)
    for g, xsu in sorted(groups, key=lambda k: (k[0], k[1] == "off")):
        gr = groups[(g, xsu)]
        replay = replay_args(gr)
        orders = ("fixed",) if "--first" in replay else ORDERS
        runs = []
        for order in orders:
            p, cmd = run_sim(["--ht0-metrics", g, "--ht1-metrics", g,
                              "--order", order, "--xsu", "series" if xsu == "on" else "off",
                              "--matcher", "hk"] + (["--continue"] if cont else []) +
                             (replay or ["--ticks", gr["ticks"]]))
            runs.append(p)
        if any(len(r) != len(runs[0]) for r in runs):
            p = []
        else:
            p = [(q[0], q[1], sum(r[i][2] for r in runs) / len(runs), q[3])
                 for i, q in enumerate(runs[0])]
        shown = re.sub(r"(--rotations[01]|--first) \S+", r"\1 R", cmd)
        if len(orders) > 1:
            shown = re.sub(r"--order \S+", "--order O", shown) + \
                ", mean over --order " + ", ".join(orders)
        print("# metric group %s, XSU %s, %s kernel; simulator: x86-pmu-sim %s"
              % (g, xsu, kernel, shown))
        if replay:
            print("#   replaying the host's %d and %d expiries in bins of 1/%d interval: HT0 bins %s+%s, HT1 %s+%s of %s"
                  % (len(gr["expiries"][0]), len(gr["expiries"][1]), BINS,
                     replay[1], replay[3], replay[7], replay[9], replay[13]))
        else:
            print("#   the host recorded no rotations: both rotate once a tick")
        print("#   thread  event        host   simulator")
        worst = compare(gr["res"], p)
        led = gr["ledger"] or (-1, -1)
        print("#   emulator ledger over the group's run: leaked %d, exposed %d ns" % led)
        on = xsu == "on"
        gap = max([abs(h - m) / m * 100 if m else 100.0 for h, m in sums.values()] or [100.0])
        print("#   all fractions summed, host / simulator: %s"
              % ", ".join("HT%d %.0f / %.0f" % (t, h, m) for t, (h, m) in sorted(sums.items())))
        print("#   largest difference: corrupting events %.1f points, counter time %.1f%%"
              % (corrupting_worst, gap))
        bound = BOUND.get(g, 5.0) if on else 3.0
        for b in sorted({3.0, bound or 3.0}):
            tap(worst <= b, "perf stat -M %s on both siblings, XSU %s: every event within %g points of the simulator (largest difference %.1f)"
                % (g, xsu, b, worst), b == bound)
        if on:
            tap(led == (0, 0), "perf stat -M %s on the %s kernel: nothing leaked, no exposure (ledger %s)"
                % (g, kernel, led))
print("1..%d" % n)
PY
