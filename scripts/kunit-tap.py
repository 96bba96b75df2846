#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# TAP from the KUnit results kunit.py wrote as JSON (kunit.py run or parse
# --json=FILE): one line per test case, "PREFIXsuite.case", ok when it
# passed (or skipped, unless --no-skip), the status in brackets otherwise;
# a "not ok" line for each SUITE named that did not run at all.
#
#   kunit-tap.py [--no-skip] [--no-plan] JSON PREFIX [SUITE...]
#
#   --no-skip  a skipped case is not ok (the host must run every case)
#   --no-plan  no "1..N" line: the caller adds lines of its own after these
#
# Used by scripts/qemu-run.sh (the boots' KUnit results) and
# scripts/kunit-qemu.sh (kunit.py run on the emulated affected host).

import json
import sys

args = sys.argv[1:]
no_skip = "--no-skip" in args
no_plan = "--no-plan" in args
args = [a for a in args if a not in ("--no-skip", "--no-plan")]
if len(args) < 2:
    sys.exit("usage: kunit-tap.py [--no-skip] [--no-plan] JSON PREFIX [SUITE...]")
path, prefix, suites = args[0], args[1], args[2:]
n = 0


def line(ok, name):
    global n
    n += 1
    print(("ok" if ok else "not ok") + " %d - %s%s" % (n, prefix, name))


try:
    with open(path) as f:
        root = json.load(f)
except Exception as e:
    root = {"sub_groups": [], "test_cases": []}
    print("# no KUnit results: %s" % e)
seen = set()


def walk(group, name_prefix):
    for case in group.get("test_cases", []):
        status = case["status"]
        ok = status == "PASS" or (status == "SKIP" and not no_skip)
        line(ok, name_prefix + case["name"] +
             ("" if status == "PASS" else " (%s)" % status))
    for sub in group.get("sub_groups", []):
        seen.add(sub["name"])
        walk(sub, sub["name"] + ".")


walk(root, "")
for s in suites:
    if s not in seen:
        line(False, "suite %s did not run" % s)
if not no_plan:
    print("1..%d" % n)
