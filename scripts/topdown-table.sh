#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Topdown on the affected hosts, the series beside plain 7.3: what
# topdown/topdown.sh (tools/testing/x86-pmu/guest/) printed in the boots
# hsw-ht-scen, snb-ht and ivb-ht (the series kernel, parts 1-3, the
# workaround on) and hsw-ht-7.3, snb-ht-7.3 and ivb-ht-7.3 (plain 7.3).
#
# Prints a Markdown table, per host and kernel: for perf stat --topdown,
# -M TopdownL1 and -M TopdownL2, alone and beside four corrupting events
# counted on the sibling, the metrics computed of those perf printed and
# the lowest share of its enabled time an event counted; the lowest share
# of the sibling's corrupting events; the record's groups with samples;
# TopdownL1 alone again after the record (no corrupting event left: all
# counters back); what the emulator's ledger saw leak over all of it. Then the series'
# perf stat --topdown on Haswell, as perf printed it. Then TAP, one line
# per host for the series: every metric computed, the level-1 fractions
# within bounds, every group of the record sampled, nothing leaked, and
# the script's lines all there (a boot that did not run it fails here).
# Plain 7.3's rows are reported.
#
# Usage: topdown-table.sh [RESULTS_DIR] (default build/results)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

python3 - "${1:-$RESULTS}" "$MAINLINE" <<'PY'
import re, sys

rdir, mainline = sys.argv[1], sys.argv[2]
HOSTS = (("Haswell", "hsw-ht-scen", "hsw-ht-%s" % mainline),
         ("IvyBridge", "ivb-ht", "ivb-ht-%s" % mainline),
         ("SandyBridge", "snb-ht", "snb-ht-%s" % mainline))
KINDS = ("topdown", "l1", "l2", "topdown-x", "l1-x", "l2-x", "l1-after")


def parse(boot):
    try:
        text = open("%s/boot-%s.console" % (rdir, boot), errors="replace").read()
    except OSError:
        return None
    text = text.replace("\r", "")
    start = text.find("# selftests: topdown: topdown.sh")
    if start < 0:
        return None
    end = text.find("selftests: topdown: topdown.sh", start + 10)
    body = text[start:end if end > 0 else len(text)]
    r = {"stat": {}, "leaked": 0, "fail": [], "example": [], "lines": 0}
    for m in re.finditer(r"^# topdown (\S+) metrics (\d+) computed (\d+) running ([0-9.]+)$", body, re.M):
        r["stat"][m.group(1)] = (int(m.group(3)), int(m.group(2)), float(m.group(4)))
    for m in re.finditer(r"^# (?:topdown \S+|record) ledger leaked (-?\d+)$", body, re.M):
        r["leaked"] += int(m.group(1))
        r["lines"] += 1
    m = re.search(r"^# topdown sibling running ([0-9.]+)$", body, re.M)
    r["sibling"] = float(m.group(1)) if m else None
    m = re.search(r"^# record groups (\d+) events (\d+) sampled (\d+) groups_sampled (\d+)$", body, re.M)
    r["record"] = (int(m.group(4)), int(m.group(1)), int(m.group(3)), int(m.group(2))) if m else None
    r["fail"] = re.findall(r"^# FAIL: (.*)$", body, re.M)
    m = re.search(r"^# == perf stat --topdown .*?^# topdown topdown metrics", body, re.M | re.S)
    if m:
        r["example"] = [l[2:] for l in m.group(0).splitlines()[:-1]
                        if not re.match(r"# (# started on|$)", l)]
    m = re.search(r"^(ok|not ok) \d+ selftests: topdown: topdown\.sh", text, re.M)
    r["tap"] = m.group(1) if m else None
    return r


def cell(r, k):
    if k not in r["stat"]:
        return "-"
    c, n, low = r["stat"][k]
    return "%d/%d, %g%%" % (c, n, low)


print("| host | kernel | --topdown | TopdownL1 | TopdownL2 "
      "| beside 4 corrupting: --topdown | TopdownL1 | TopdownL2 | the sibling's events "
      "| record: groups sampled | TopdownL1 after the record | ledger leaked |")
print("|" + "---|" * 12)
results = {}
for host, series, plain in HOSTS:
    for kernel, boot in (("series", series), (mainline, plain)):
        r = parse(boot)
        results[(host, kernel)] = r
        if r is None:
            print("| %s | %s | %s |" % (host, kernel, " | ".join(["not run"] * 10)))
            continue
        rec = "%d/%d (events %d/%d)" % r["record"] if r["record"] else "-"
        sib = "%g%%" % r["sibling"] if r["sibling"] is not None else "-"
        print("| %s | %s | %s | %s | %s | %s | %d |" % (host, kernel, " | ".join(cell(r, k) for k in KINDS[:6]),
                                                      sib, rec, cell(r, "l1-after"), r["leaked"]))
print()
print("Cells: metrics computed of those perf printed, and the lowest share of its")
print("enabled time an event was counted. Counts are the emulator's (synthetic but")
print("for instructions and cycles): the values of the metrics are not measured.")
ex = results.get(("Haswell", "series"))
if ex and ex["example"]:
    print()
    print("The series on the emulated Haswell (one core, two threads, both loaded):")
    print()
    print("```")
    for l in ex["example"]:
        print(l[3:] if l.startswith("== ") else l)
    print("```")

print()
n = 0
for host, series, _ in HOSTS:
    n += 1
    r = results[(host, "series")]
    why = []
    if r is None:
        why.append("topdown.sh did not run in %s" % series)
    else:
        if r["tap"] != "ok":
            why.append("topdown.sh: %s" % (r["tap"] or "no result"))
        missing = [k for k in KINDS if k not in r["stat"]]
        if missing or r["record"] is None or r["lines"] != len(KINDS) + 1:
            why.append("lines missing (%s)" % ", ".join(missing or ["record/ledger"]))
        for k, (c, t, _) in r["stat"].items():
            if c < t or t == 0:
                why.append("%s: %d of %d metrics computed" % (k, c, t))
        if r["record"] and r["record"][0] < r["record"][1]:
            why.append("the record sampled %d of %d groups" % r["record"][:2])
        if r["leaked"]:
            why.append("the ledger grew by %d" % r["leaked"])
        why += r["fail"]
    print("%s %d - topdown on %s, the series: every metric computed, the level-1 "
          "fractions in bounds, every group of the record sampled, nothing leaked%s"
          % ("not ok" if why else "ok", n, host, " # " + "; ".join(why) if why else ""))
print("1..%d" % n)
PY
