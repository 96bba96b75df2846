#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Single events beside a corrupting sibling, the NMI watchdog on and off:
# what lone/lone.sh (tools/testing/x86-pmu/guest/) printed on the three
# affected hosts for the series (hsw-ht, snb-ht, ivb-ht: parts 1-3),
# part 1 alone (hsw-ht-fixes, snb-ht-fixes, ivb-ht-fixes), plain 7.3
# (hsw-ht-7.3, snb-ht-7.3, ivb-ht-7.3) and parts 1-4 on Haswell
# (hsw-ht-rfc).
#
# Prints a Markdown table, per host, kernel and watchdog: the share of its
# enabled time a per-task counting cycles ran (the first event a user
# types), the lowest share over the 20 cases (cycles, instructions, a raw
# GP event, a group with a software leader, a group of two hardware
# events; per task and CPU-wide; counting and sampling) and how many ran
# 0% of their time. Then TAP, one line per host for the series and for
# parts 1-4: with the watchdog on and off, every case ran, none at 0%, and
# each at least as much of its time as on plain 7.3 less TOL percentage
# points (default 10). The series places an event that finds every GP
# counter held by the sibling's corrupting events once the sibling has
# given one back: an interrupt there, a reschedule, and a retry here,
# where plain 7.3 has capped the sibling at half before anyone asks. On
# the emulated host, KASAN on, that handover took 2-50 ms of the event's
# enabled time in development boots (a per-task event is enabled about
# 500 ms of a 1 s case beside the load loop: 92-99%, the first case of a
# boot the lowest); on silicon it is microseconds. A case at 0% is the
# defect this guards against (a cycles event beside the NMI watchdog's,
# which never ran).
#
# Usage: [TOL=10] lone-table.sh [RESULTS_DIR] (default build/results)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

python3 - "${1:-$RESULTS}" "$MAINLINE" "${TOL:-10}" <<'PY'
import re, sys

rdir, mainline, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
HOSTS = (("Haswell", "hsw"), ("IvyBridge", "ivb"), ("SandyBridge", "snb"))
KERNELS = (("series", "-ht"), ("fixes", "-ht-fixes"), ("rfc", "-ht-rfc"),
           (mainline, "-ht-%s" % mainline))
NCASES = 20


def parse(boot):
    """{watchdog: {(mode, kind, event): pct}}, or None if it did not run."""
    try:
        text = open("%s/boot-%s.console" % (rdir, boot), errors="replace").read()
    except OSError:
        return None
    text = text.replace("\r", "")
    if "# selftests: lone: lone.sh" not in text:
        return None
    r = {"on": {}, "off": {}}
    for m in re.finditer(r"^# lone watchdog=(on|off) (\S+) (\S+) (\S+) pct ([0-9.]+) count (\d+)$",
                         text, re.M):
        r[m.group(1)][(m.group(2), m.group(3), m.group(4))] = float(m.group(5))
    return r


runs = {}
print("| host | kernel | NMI watchdog | cycles, per task, counting | lowest of the %d cases | cases at 0%% |"
      % NCASES)
print("|---|---|---|---|---|---|")
for host, short in HOSTS:
    for kernel, suffix in KERNELS:
        r = parse(short + suffix)
        if r is None:
            continue
        runs[(host, kernel)] = r
        for wd in ("on", "off"):
            cases = r[wd]
            if not cases:
                print("| %s | %s | %s | - | - | - |" % (host, kernel, wd))
                continue
            cyc = cases.get(("task", "count", "cycles"))
            print("| %s | %s | %s | %s | %.2f%% | %d of %d |" %
                  (host, kernel, wd, "-" if cyc is None else "%.2f%%" % cyc,
                   min(cases.values()), sum(1 for p in cases.values() if p == 0),
                   len(cases)))

n = 0
for host, _ in HOSTS:
    for kernel in ("series", "rfc"):
        if kernel == "rfc" and host != "Haswell":
            continue
        r, base = runs.get((host, kernel)), runs.get((host, mainline))
        n += 1
        bad = []
        if r is None:
            bad.append("lone.sh did not run")
        else:
            for wd in ("on", "off"):
                if len(r[wd]) != NCASES:
                    bad.append("watchdog %s: %d of %d cases" % (wd, len(r[wd]), NCASES))
                for c, p in sorted(r[wd].items()):
                    if p == 0:
                        bad.append("watchdog %s: %s never ran" % (wd, " ".join(c)))
                    b = base[wd].get(c) if base else None
                    if b is not None and p < b - tol:
                        bad.append("watchdog %s: %s ran %.2f%%, plain %s %.2f%%"
                                   % (wd, " ".join(c), p, mainline, b))
        if base is None:
            print("# %s: no plain %s run to compare with" % (host, mainline))
        print("%s %d - lone events beside a corrupting sibling on %s (%s), NMI watchdog on and off: "
              "every case ran, at least plain %s's share less %g points%s"
              % ("not ok" if bad else "ok", n, host, kernel, mainline, tol,
                 "" if not bad else ": " + "; ".join(bad[:4])))
print("1..%d" % n)
PY
