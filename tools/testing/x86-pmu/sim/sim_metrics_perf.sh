#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What perf itself opens for `perf stat -M NAMES`: the event lists perf's
# own metricgroup.c builds ("Parsing metric events '...'" of perf stat
# -vv), one a line, in the form x86-pmu-sim --metric-expand prints, then
# the core events in the order the kernel got them:
#
#   group|nogroup ID ID ...      ("group": a weak group {...}:W)
#   opened ID +ID ID ...         ("+": joins the group of the event before)
#
# Lists and ids come in perf's order, the order of its evlist, which
# perf stat prints and opens: the lists as perf parses them (metrics
# sorted, the merged list of ungrouped metrics first), the ids of a list
# as perf writes them (the order of its hash map of ids), tool events
# (duration_time) last. parse_events() could
# still reorder a list (it sorts the events of a group by PMU), so the
# order is checked against perf's evlist itself: right after parsing a
# list perf matches its events to a metric walking the evlist ("Matched
# metric-id ..."), and for a metric's own list those ids must be the
# list in its order (the merged list of ungrouped metrics holds single
# events only, which parse_events() leaves in order); a list that perf
# reordered is reported and makes the exit non-zero.
#
# The "opened" line is the order perf's perf_event_open() calls leave the
# core events in, the order the kernel schedules and rotates them in:
# perf runs under a tracer (write_tracer below) that lets every open
# succeed but refuses a weak group too big for the counters, as the
# kernel does; perf stat then splits that group (members become single
# events in place in the evlist) and opens its events again after all
# the others (a second pass), so the kernel's order is not the evlist's.
# Events perf's attributes do not tell apart (UOPS_EXECUTED.CYCLES_GE_1_
# UOP_EXEC and cpu@UOPS_EXECUTED.THREAD,cmask=1@) are given as "A|B".
#
# The host has no hardware PMU, so perf runs in a private mount namespace
# (unshare -m, root) in which sysfs shows what an affected host shows:
# a core PMU "cpu" (type and format files only: perf takes the events
# from its compiled-in tables, chosen by PERF_CPUID), the msr, cstate,
# RAPL (power) and uncore PMUs that some metrics name, SMT on (smt/active 1, cpu0 and cpu1
# siblings) and the NMI watchdog off. perf stat -C 0 then parses every
# metric of NAMES as on one hyper-thread of such a host, and opens the
# events through the tracer. Nothing outside the namespace changes.
#
# usage: sim_metrics_perf.sh PERF MODEL [NAMES...]
#   PERF: a perf 7.3 binary (build/perf-7.3/perf)
#   MODEL: snb, ivb or hsw
#   NAMES: metrics or metric groups; none: every group and every metric
#          perf lists for the model (perf list --raw-dump)
# Prints one block per name: "# MODEL NAME", then its lists and the
# "opened" line; exits non-zero if perf cannot parse a name's events (its
# message is printed). Needs python3; about 2 minutes for all three
# models.
#
# The reference the harness compares the simulator with
# (sim_metrics_perf.ref) is this script's output for snb, ivb and hsw:
#   for m in snb ivb hsw; do
#       tools/testing/x86-pmu/sim/sim_metrics_perf.sh build/perf/perf $m
#   done > tools/testing/x86-pmu/sim/sim_metrics_perf.ref
set -euo pipefail

perf=$1 model=$2
shift 2
case $model in
snb) cpuid=GenuineIntel-6-2A-7 ;;
ivb) cpuid=GenuineIntel-6-3A-9 ;;
hsw) cpuid=GenuineIntel-6-3C-3 ;;
*) echo "sim_metrics_perf.sh: unknown model '$model' (snb, ivb, hsw)" >&2; exit 2 ;;
esac
[ -x "$perf" ] || { echo "sim_metrics_perf.sh: no perf binary at $perf" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "sim_metrics_perf.sh: needs root (unshare -m)" >&2; exit 2; }

fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT

# pmu NAME TYPE FORMAT...: a PMU directory with its format files.
pmu() {
	local d=$fake/devs/$1 f
	mkdir -p "$d/format" "$d/events"
	echo "$2" > "$d/type"
	shift 2
	for f in "$@"; do
		echo "${f#*=}" > "$d/format/${f%%=*}"
	done
}
mkdir -p "$fake/devs"
pmu cpu 4 event=config:0-7 umask=config:8-15 edge=config:18 pc=config:19 \
	any=config:21 inv=config:23 cmask=config:24-31 in_tx=config:32 \
	in_tx_cp=config:33 ldlat=config1:0-15 offcore_rsp=config1:0-63
pmu msr 9 event=config:0-63
for e in tsc=0x00 aperf=0x01 mperf=0x02 smi=0x04; do
	echo "event=${e#*=}" > "$fake/devs/msr/events/${e%%=*}"
done
pmu cstate_core 10 event=config:0-63
pmu cstate_pkg 11 event=config:0-63
for e in c3 c6 c7; do
	echo "event=0x01" > "$fake/devs/cstate_core/events/$e-residency"
done
for e in c2 c3 c6 c7; do
	echo "event=0x01" > "$fake/devs/cstate_pkg/events/$e-residency"
done
# RAPL (the "power" PMU) as the kernel's rapl.c gives it for the model:
# package, cores and GPU (PP1) on the client parts, and DRAM on Haswell.
pmu power 15 event=config:0-7
rapl="energy-cores=0x01 energy-pkg=0x02 energy-gpu=0x04"
[ "$model" = hsw ] && rapl="$rapl energy-ram=0x03"
for e in $rapl; do
	echo "event=${e#*=}" > "$fake/devs/power/events/${e%%=*}"
done
pmu uncore_arb 12 event=config:0-7 umask=config:8-15 edge=config:18 \
	inv=config:23 cmask=config:24-28
pmu uncore_clock 13 event=config:0-7
pmu uncore_cbox_0 14 event=config:0-7 umask=config:8-15 edge=config:18 \
	inv=config:23 cmask=config:24-28
for d in /sys/bus/event_source/devices/*; do
	n=${d##*/}
	[ -e "$fake/devs/$n" ] || ln -s "$(readlink -f "$d")" "$fake/devs/$n"
done
echo 1 > "$fake/smt_active"
echo 0-1 > "$fake/siblings"
echo 0 > "$fake/nmi_watchdog"

# perf's output (per name, after "@@ NAME") to the event lists, decoded to
# metric ids; a name perf fails on is reported and makes the exit non-zero.
normalize() {
	python3 -c '
import re, sys
model, code, status, name = sys.argv[1], ",-=@", 0, None
parsing = False
lists, matched, opened, events = [], None, None, {}
# the core PMU format (the fake sysfs above), and perf legacy events
cpu_bits = {"event": (0, 0), "umask": (0, 8), "edge": (0, 18), "pc": (0, 19),
            "any": (0, 21), "inv": (0, 23), "cmask": (0, 24), "in_tx": (0, 32),
            "in_tx_cp": (0, 33), "ldlat": (1, 0), "offcore_rsp": (1, 0)}
legacy = ["cycles", "instructions", "cache-references", "cache-misses",
          "branches", "branch-misses", "bus-cycles",
          "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles"]
def decode(mid):
    return re.sub(r"!([0-3])", lambda d: code[int(d.group(1))], mid)
def resolved(terms):
    # a core event as parse_events() resolved it: its config, config1
    cfg, mid = [0, 0], None
    for t in terms.split(","):
        k, _, v = t.partition("=")
        if k == "metric-id":
            mid = decode(v)
        elif k in cpu_bits:
            w, b = cpu_bits[k]
            cfg[w] |= (int(v, 0) if v else 1) << b
    if mid:
        ids = events.setdefault((4, cfg[0], cfg[1]), [])
        if mid not in ids:
            ids.append(mid)
def kernel_order():
    # The core events the kernel holds after perf opened them, in the
    # order it got them; "+" marks one joining the group of a previous.
    live = {}
    for l in opened:
        m = re.match(r"open type=(\d+) cfg=(\S+) cfg1=(\S+) excl=(\d) group_fd=(-?\d+) -> (-?\d+)$", l)
        if m:
            t, c, c1, x, g, fd = [int(x, 0) for x in m.groups()]
            live.pop(fd, None)
            if fd >= 0:
                live[fd] = (t, c, c1, x, fd if g < 0 else g)
            continue
        m = re.match(r"close (\d+)$", l)
        if m:
            live.pop(int(m.group(1)), None)
    out, groups = [], set()
    for t, c, c1, x, lead in live.values():
        if t not in (0, 3, 4):
            continue
        if t == 4:
            # ids of the same event: those with modifiers (":k") exclude
            # something; ids perf cannot tell apart are all given, "|"
            ids = events.get((t, c, c1), ["cpu/%#x,%#x/" % (c, c1)])
            ids = [i for i in ids if (":" in i) == (x != 0)] or ids
            id = "|".join(sorted(ids))
        else:
            id = legacy[c] if t == 0 and c < len(legacy) else "%d/%#x/" % (t, c)
        out.append(("+" if lead in groups else "") + id)
        groups.add(lead)
    return out
def ids_of(s):
    grouped = False
    if s.startswith("{"):
        end = s.index("}:W")
        rest = s[end + 3:].lstrip(",")
        grouped, s = True, s[1:end] + ("," + rest if rest else "")
    items, cur, inside = [], "", False
    for c in s:
        if c == "/":
            inside = not inside
        if c == "," and not inside:
            items.append(cur)
            cur = ""
        else:
            cur += c
    items.append(cur)
    ids = []
    for it in items:
        m = re.search(r"metric-id=([^/,]*)", it)
        if not m:
            ids.append(it)
            continue
        ids.append(re.sub(r"!([0-3])", lambda d: code[int(d.group(1))],
                          m.group(1)))
    return grouped, ids
def check():
    # The ids perf matched walking the evlist of the list parsed last:
    # for the own list of a metric first all of the list, in evlist order;
    # the merged list (first, ungrouped) of single events, which
    # parse_events() keeps in order, serves several metrics in turn.
    global status, matched
    if matched is None or not lists:
        return
    grouped, ids = lists[-1]
    if len(lists) == 1 and not grouped:
        bad = not set(matched) <= set(ids)
    else:
        bad = matched[:len(ids)] != ids
    if bad:
        print("# perf reordered a list of %s: parsed %s, evlist %s" %
              (name, " ".join(ids), " ".join(matched)))
        status = 1
    matched = None
def flush():
    global opened
    for grouped, ids in lists:
        print(("group " if grouped else "nogroup ") + " ".join(ids))
    if opened is not None:
        print(" ".join(["opened"] + kernel_order()))
    del lists[:]
    opened = None
    events.clear()
for line in sys.stdin:
    line = line.rstrip("\n")
    if opened is not None and not line.startswith("@@ "):
        opened.append(line)
        continue
    if line == "@@@ opened":
        check()
        opened = []
        continue
    m = re.match(r"\.\.after resolving event: cpu/(.*)/$", line)
    if m:
        resolved(m.group(1))
    m = re.match(r"Matched metric-id (\S+) to ", line)
    if m and matched is not None:
        matched.append(m.group(1))
        continue
    if matched:
        check()
    if line.startswith("@@ "):
        check()
        flush()
        name, parsing = line[3:], False
        print("# %s %s" % (model, name))
        continue
    # has_event() (perf 7.x) probes an event by parsing it while perf
    # computes the ids, before it parses any list: a syntax error then is
    # the answer "no such event on this host", not a failure.
    probe = not parsing and "event syntax error" in line
    if not probe and re.search(r"event syntax error|Cannot find metric|Cannot resolve", line):
        print("# perf failed for %s: %s" % (name, line))
        status = 1
    m = re.match(r"Parsing metric events \x27(.*)\x27$", line)
    if m:
        check()
        parsing = True
        lists.append(ids_of(m.group(1)))
        matched = []
check()
flush()
sys.exit(status)
' "$model"
}

# The kernel perf runs under. The host has no PMU, so perf_event_open() of
# the fake PMUs' events would fail; a tracer (ptrace, stopping perf at its
# perf_event_open() calls only, by a seccomp filter) lets each open a
# software event (cpu-clock) in their place, with perf's group_fd, and
# logs it: "open type=T cfg=C cfg1=C1 excl=E group_fd=G -> FD" (or "->
# EINVAL"; E: the exclude_user, _kernel, _hv bits),
# and "close FD" when perf closed one. A group member of the core PMU that
# would make its group hold more than 4 events besides the 3 fixed-counter
# ones (INST_RETIRED.ANY, CPU_CLK_UNHALTED.THREAD, .REF_TSC, instructions,
# cycles) fails with EINVAL, as x86's validate_group() refuses a group
# the 4 GP + 3 fixed counters of an affected host cannot hold. perf stat
# then splits the weak group and reopens its events as it does on the
# host, so the log shows the order in which the kernel gets the events.
write_tracer() {
	cat > "$1" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                        ctypes.c_void_p]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p,
                       ctypes.c_ulong, ctypes.c_ulong]
TRACEME, PEEK, POKE, GETREGS, SETREGS, CONT, SYSCALL = 0, 2, 5, 12, 13, 7, 24
SETOPTIONS, O_TRACESECCOMP, O_EXITKILL = 0x4200, 0x80, 0x100000
NR_PERF_EVENT_OPEN, EINVAL = 298, 22
FIXED = (0xc0, 0x3c, 0x300)
# events the model counts on counter 2 only (intel/core.c's
# intel_{snb,ivb,hsw}_event_constraints; snb's 0x48 by event code)
if os.environ.get("PERF_CPUID", "").startswith("GenuineIntel-6-2A-"):
    def on_c2(cfg):
        return cfg & 0xff == 0x48 or cfg & 0xffff in (0x02a3, 0x06a3)
else:
    def on_c2(cfg):
        return cfg & 0xffff in (0x0148, 0x08a3, 0x0ca3)
class Regs(ctypes.Structure):
    _fields_ = [(n, ctypes.c_ulonglong) for n in (
        "r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi "
        "orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs").split()]
class Insn(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte),
                ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Insn))]
def peek(pid, addr):
    return libc.ptrace(PEEK, pid, ctypes.c_void_p(addr), None) % (1 << 64)
def poke(pid, addr, val):
    libc.ptrace(POKE, pid, ctypes.c_void_p(addr), ctypes.c_void_p(val))
log = open(sys.argv[1], "w")
pid = os.fork()
if pid == 0:
    # seccomp: stop for the tracer at perf_event_open(), allow the rest
    insns = (Insn * 4)(Insn(0x20, 0, 0, 0),
                       Insn(0x15, 0, 1, NR_PERF_EVENT_OPEN),
                       Insn(0x06, 0, 0, 0x7ff00000), Insn(0x06, 0, 0, 0x7fff0000))
    prog = Prog(4, insns)
    libc.ptrace(TRACEME, 0, None, None)
    os.kill(os.getpid(), 19)
    if libc.prctl(22, 2, ctypes.byref(prog), 0, 0):
        os._exit(127)
    os.execv(sys.argv[2], sys.argv[2:])
os.waitpid(pid, 0)
libc.ptrace(SETOPTIONS, pid, None, ctypes.c_void_p(O_TRACESECCOMP | O_EXITKILL))
libc.ptrace(CONT, pid, None, None)
nr_gp, nr_c2, live = {}, {}, set()
while True:
    _, st = os.waitpid(pid, 0)
    if os.WIFEXITED(st) or os.WIFSIGNALED(st):
        break
    if st >> 8 != 5 | 7 << 8:
        sig = os.WSTOPSIG(st)
        libc.ptrace(CONT, pid, None, ctypes.c_void_p(0 if sig in (5, 19) else sig))
        continue
    for fd in sorted(live):
        try:
            gone = os.readlink("/proc/%d/fd/%d" % (pid, fd)) != "anon_inode:[perf_event]"
        except OSError:
            gone = True
        if gone:
            live.discard(fd)
            print("close %d" % fd, file=log)
    r = Regs()
    libc.ptrace(GETREGS, pid, None, ctypes.byref(r))
    w0 = peek(pid, r.rdi)
    typ, cfg, cfg1 = w0 & 0xffffffff, peek(pid, r.rdi + 8), peek(pid, r.rdi + 56)
    excl = peek(pid, r.rdi + 40) >> 4 & 7  # exclude_user, _kernel, _hv
    gfd = ctypes.c_int(r.r10 & 0xffffffff).value
    core = typ in (0, 3, 4)
    # a fixed counter counts its event only with no other bits (cmask,
    # inv, any) set, as the kernel's fixed-counter constraints compare
    gp = core and not (typ == 4 and cfg in FIXED) and \
        not (typ == 0 and cfg in (0, 1))
    c2 = typ == 4 and on_c2(cfg)
    refuse = gfd >= 0 and gp and (nr_gp.get(gfd, 0) >= 4 or
                                  (c2 and nr_c2.get(gfd, 0) >= 1))
    fake = core or typ >= 6
    if refuse:
        r.orig_rax = (1 << 64) - 1
        libc.ptrace(SETREGS, pid, None, ctypes.byref(r))
    elif fake:
        poke(pid, r.rdi, (w0 & ~0xffffffff) | 1)
        poke(pid, r.rdi + 8, 0)
    libc.ptrace(SYSCALL, pid, None, None)
    os.waitpid(pid, 0)
    libc.ptrace(GETREGS, pid, None, ctypes.byref(r))
    if refuse:
        r.rax = (1 << 64) - EINVAL
        libc.ptrace(SETREGS, pid, None, ctypes.byref(r))
        res = "EINVAL"
    else:
        if fake:
            poke(pid, r.rdi, w0)
            poke(pid, r.rdi + 8, cfg)
        fd = ctypes.c_long(r.rax).value
        res = str(fd)
        if fd >= 0:
            live.add(fd)
            lead = fd if gfd < 0 else gfd
            nr_gp[lead] = (nr_gp.get(lead, 0) if gfd >= 0 else 0) + gp
            nr_c2[lead] = (nr_c2.get(lead, 0) if gfd >= 0 else 0) + c2
    print("open type=%d cfg=%#x cfg1=%#x excl=%d group_fd=%d -> %s" %
          (typ, cfg, cfg1, excl, gfd, res), file=log)
    libc.ptrace(CONT, pid, None, None)
EOF
}

# Inside the namespace: every name in turn, perf's output per name
# after "@@ NAME", then what the tracer saw after "@@@ opened".
run_perf() {
	unshare -m --propagation private bash -c '
		f=$1 perf=$2 cpuid=$3
		shift 3
		mount --bind "$f/devs" /sys/bus/event_source/devices
		mount --bind "$f/smt_active" /sys/devices/system/cpu/smt/active
		for c in 0 1; do
			t=/sys/devices/system/cpu/cpu$c/topology
			mount --bind "$f/siblings" $t/core_cpus_list
			mount --bind "$f/siblings" $t/thread_siblings_list
		done
		mount --bind "$f/nmi_watchdog" /proc/sys/kernel/nmi_watchdog
		export PERF_CPUID=$cpuid
		if [ $# = 0 ]; then
			"$perf" list --raw-dump metricgroups
			"$perf" list --raw-dump metrics
			exit
		fi
		for name in "$@"; do
			echo "@@ $name"
			python3 "$f/open.py" "$f/open.log" \
				"$perf" stat -C 0 -vv -M "$name" -- true 2>&1
			echo "@@@ opened"
			cat "$f/open.log"
		done
	' x "$fake" "$perf" "$cpuid" "$@"
}

write_tracer "$fake/open.py"

# Without names: every metric group and every metric perf knows for the
# model, as perf list names them.
if [ $# = 0 ]; then
	set -- $(run_perf | tr ' ' '\n' | grep -v '^$')
fi

run_perf "$@" | normalize
