#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mutation check: plant each bug of mutations.txt in a copy of
# arch/x86/events, rebuild the harness programs that test the file it
# changes against the copy (make EVENTS=...), run them, each under a
# timeout, and print one TAP line per mutation: ok when some test failed
# (naming which: for the KUnit programs, the cases), not ok when every
# test passed, a gap in the tests.
#
# The tests of a file run in two tiers: first its KUnit programs (and
# they alone for most mutations: they build from objects, so only the
# mutated file is recompiled), then, only when those did not fail, the
# slower programs (xsu_test, xsu_stress under ThreadSanitizer, match_test,
# match_bound_test (the phases on a broken walk),
# sched_budget_test, sim_test). --all runs both tiers for every mutation.
# Before a program judges a mutation it must pass on the unmutated copy.
#
# A mutation whose text is no longer in its file exactly once is an error
# (not ok, and the exit status is 1): the list cannot rot silently.
#
# usage: mutate.sh [-o BUILD_DIR] [-k KSRC] [-l LIST] [--all] [ID...]
#   BUILD_DIR  default build/mutation: the copy (src/), the programs
#              (obj/) and a log per mutation and program (logs/ID/)
#   KSRC       the mainline kernel tree with tag 'base' and the parts'
#              branches, as for the harness (default build/linux-7.3)
#   LIST       the mutations (default mutations.txt beside this script)
#   ID...      only these mutations
set -uo pipefail

H=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$H/../../.." && pwd)
B=$TOP/build/mutation
KSRC=$TOP/build/linux-7.3
LIST=$H/mutations.txt
ALL=0
ONLY=()
while [ $# -gt 0 ]; do
	case $1 in
	-o) B=$(realpath -m "$2"); shift ;;
	-k) KSRC=$(realpath -m "$2"); shift ;;
	-l) LIST=$(realpath -m "$2"); shift ;;
	--all) ALL=1 ;;
	-*) echo "usage: $0 [-o BUILD_DIR] [-k KSRC] [-l LIST] [--all] [ID...]" >&2; exit 2 ;;
	*) ONLY+=("$1") ;;
	esac
	shift
done

SRC=$B/src/events		# the copy the programs are built from
OBJ=$B/obj
LOGS=$B/logs
mkdir -p "$B" "$OBJ" "$LOGS"

# The tests of each file, tier 1 then tier 2; a program's timeout in s.
tier1() {
	case $1 in
	counter_match.c) echo match_kunit xsu_kunit ;;
	intel/xsu.c|intel/xsu.h) echo xsu_kunit ;;
	intel/xsu_arb.c|intel/xsu_arb.h) echo xsu_kunit ;;
	esac
}
tier2() {
	case $1 in
	counter_match.c|counter_match.h)
		echo match_bound_test match_test sched_budget_test sim_test ;;
	intel/xsu.c|intel/xsu.h) echo xsu_test xsu_stress sim_test ;;
	intel/xsu_arb.c|intel/xsu_arb.h) echo xsu_stress sim_test ;;
	esac
}
timeout_of() {
	case $1 in
	match_test|sim_test) echo 300 ;;
	xsu_stress) echo 180 ;;
	*_kunit) echo 20 ;;
	*) echo 60 ;;
	esac
}

# The list, parsed and checked, by mutations.py-in-a-heredoc:
#   list            ID<TAB>FILE<TAB>TODO<TAB>DESCRIPTION per mutation
#   check ROOT      every 'from' text once in ROOT/FILE; errors on stdout
#   apply ID ROOT   plant mutation ID in ROOT/FILE
mut() {
	python3 - "$LIST" "$@" <<'PY'
import sys

def parse(path):
    muts, cur, mode = [], None, None
    for n, line in enumerate(open(path).read().split('\n'), 1):
        if line.startswith('=== '):
            id, _, desc = line[4:].partition(': ')
            cur = {'id': id.strip(), 'desc': desc.strip(), 'file': None,
                   'todo': '', 'hunks': [], 'line': n}
            muts.append(cur)
            mode = None
        elif cur is None or (mode is None and (line.startswith('#') or not line.strip())):
            continue
        elif mode is None and line.startswith('file: '):
            cur['file'] = line[6:].strip()
        elif mode is None and line.startswith('todo: '):
            cur['todo'] = line[6:].strip()
        elif line == '--- from':
            cur['hunks'].append([[], []])
            mode = 0
        elif line == '--- to':
            mode = 1
        elif mode is not None:
            cur['hunks'][-1][mode].append(line)
        else:
            sys.exit('%s:%d: unexpected line: %r' % (path, n, line))
    for m in muts:
        for h in m['hunks']:
            for part in h:
                while part and not part[-1].strip():
                    part.pop()
    return muts

def block(lines):
    return ''.join(l + '\n' for l in lines)

def check(m, root):
    if not m['file']:
        return 'no file: line'
    if m['todo']:
        return None
    if not m['hunks']:
        return 'no --- from / --- to'
    try:
        text = open('%s/%s' % (root, m['file'])).read()
    except OSError as e:
        return str(e)
    for i, (frm, to) in enumerate(m['hunks'], 1):
        if not frm:
            return 'hunk %d: empty --- from' % i
        k = ('\n' + text).count('\n' + block(frm))
        if k != 1:
            return 'hunk %d: the --- from text is in %s %d times, not once' % (
                i, m['file'], k)
    return None

path, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3:]
muts = parse(path)
ids = [m['id'] for m in muts]
if len(set(ids)) != len(ids):
    sys.exit('%s: duplicate mutation ids' % path)
if cmd == 'list':
    for m in muts:
        print('\t'.join([m['id'], m['file'] or '-', m['todo'] or '-', m['desc']]))
elif cmd == 'check':
    for m in muts:
        err = check(m, args[0])
        if err:
            print('%s\t%s:%d: %s' % (m['id'], path, m['line'], err))
elif cmd == 'apply':
    m = muts[ids.index(args[0])]
    err = check(m, args[1])
    if err:
        sys.exit(err)
    f = '%s/%s' % (args[1], m['file'])
    text = open(f).read()
    text = '\n' + text
    for frm, to in m['hunks']:
        text = text.replace('\n' + block(frm), '\n' + block(to), 1)
    open(f, 'w').write(text[1:])
PY
}

declare -A BASE		# program -> 0: passes on the unmutated copy

# make the programs in $@ against the copy, quietly; the log in $1.
build() {
	local log=$1
	shift
	make -s -j2 -C "$H" KSRC="$KSRC" O="$OBJ" EVENTS="$SRC" \
		"${@/#/$OBJ/}" > "$log" 2>&1
}

# run PROGRAM LOG: its exit status (124 on timeout).
run() {
	local p=$1 log=$2 args=()
	[ "$p" = sim_test ] && args=("$KSRC")
	# In a subshell, so that bash's "Aborted" goes to the log too.
	( timeout -k 5 "$(timeout_of "$p")" "$OBJ/$p" "${args[@]}" > "$log" 2>&1
	  exit $? ) 2>> "$log"
}

# What a failed run of PROGRAM says about why: the failed KUnit cases or
# the number of failed TAP tests, then what else the log shows (a
# sanitizer, the shim's lock checks, a WARN_ON, a crash, a timeout).
why() {
	local p=$1 log=$2 rc=$3 what=() s
	case $p in
	*_kunit)
		s=$(awk '/^    # Subtest: / { s = substr($0, 16) }
			/^    not ok [0-9]+ / { sub(/^    not ok [0-9]+ /, "")
				printf "%s%s.%s", n++ ? ", " : "", s, $0 }' "$log") ;;
	*)
		s=$(grep -c '^not ok' "$log")
		[ "$s" = 0 ] && s= || s="$s failed" ;;
	esac
	[ -n "$s" ] && what+=("$s")
	[ "$rc" = 124 ] && what+=("timeout $(timeout_of "$p") s")
	grep -q 'WARNING: ThreadSanitizer' "$log" && what+=("ThreadSanitizer")
	grep -q 'ERROR: AddressSanitizer' "$log" && what+=("AddressSanitizer")
	grep -q 'runtime error:' "$log" && what+=("UBSan")
	grep -q 'WARNING: possible recursive locking' "$log" && what+=("recursive locking")
	grep -q 'WARNING: inconsistent lock state' "$log" && what+=("inconsistent lock state")
	grep -q '^WARNING: .*:[0-9]*: ' "$log" && what+=("WARN_ON")
	grep -q 'crashed (signal' "$log" && what+=("crashed")
	grep -q 'killed (signal' "$log" && [ "$rc" != 124 ] && what+=("killed")
	[ ${#what[@]} -eq 0 ] && what+=("exit $rc")
	echo "$p [$(IFS='|'; echo "${what[*]}" | sed 's/|/; /g')]"
}

# baseline PROGRAM...: each must pass on the unmutated copy, once.
baseline() {
	local p
	for p in "$@"; do
		[ -n "${BASE[$p]:-}" ] && continue
		if ! build "$LOGS/baseline-build.log" "$p"; then
			cat "$LOGS/baseline-build.log" >&2
			echo "Bail out! $p does not build from the unmutated copy"
			exit 1
		fi
		run "$p" "$LOGS/baseline-$p.log"
		BASE[$p]=$?
		if [ "${BASE[$p]}" != 0 ]; then
			tail -20 "$LOGS/baseline-$p.log" >&2
			echo "Bail out! $p fails without a mutation: see $LOGS/baseline-$p.log"
			exit 1
		fi
	done
}

command -v python3 >/dev/null || { echo "Bail out! python3 is needed"; exit 1; }
start=$(date +%s)

# The copy: arch/x86/events as it is in the tree.
rm -rf "$B/src"
mkdir -p "$SRC"
cp -r "$TOP/arch/x86/events/." "$SRC/"

# The list must parse, and every mutation apply to the tree as it is,
# before anything runs.
mutations=$(mut list) || { echo "Bail out! $LIST does not parse"; exit 1; }
notapplying=$(mut check "$TOP/arch/x86/events") ||
	{ echo "Bail out! $LIST could not be checked"; exit 1; }
declare -A ROTTEN
while IFS=$'\t' read -r id err; do
	[ -z "$id" ] && continue
	ROTTEN[$id]=$err
	echo "mutate.sh: $err" >&2
done <<< "$notapplying"

n=0 status=0 caught=0 gaps=0 rotten=0
for id in "${ONLY[@]}"; do
	grep -q "^$id	" <<< "$mutations" ||
		{ echo "Bail out! no mutation $id in $LIST"; exit 1; }
done
restore=
while IFS=$'\t' read -r -u 3 id file todo desc; do
	if [ ${#ONLY[@]} -gt 0 ] && [[ " ${ONLY[*]} " != *" $id "* ]]; then
		continue
	fi
	n=$((n + 1))
	echo "# $id ($file): $desc"
	if [ -n "${ROTTEN[$id]:-}" ]; then
		echo "not ok $n - $id: does not apply to $file: ${ROTTEN[$id]#*: }"
		rotten=$((rotten + 1))
		status=1
		continue
	fi
	if [ "$todo" != - ]; then
		echo "ok $n - $id # SKIP $todo"
		continue
	fi
	t1=$(tier1 "$file") t2=$(tier2 "$file")
	if [ -z "$t1$t2" ]; then
		echo "not ok $n - $id: mutate.sh knows no test of $file"
		status=1
		continue
	fi

	# The copy back to the tree's file, the baselines, then the bug.
	[ -n "$restore" ] && cp "$TOP/arch/x86/events/$restore" "$SRC/$restore"
	restore=$file
	log=$LOGS/$id
	rm -rf "$log"
	mkdir -p "$log"
	by=() ran=()
	for tier in "$t1" "$t2"; do
		[ -z "$tier" ] && continue
		[ ${#by[@]} -gt 0 ] && [ "$ALL" = 0 ] && break
		# shellcheck disable=SC2086
		baseline $tier
		mut apply "$id" "$SRC" 2>"$log/apply.log" || {
			echo "not ok $n - $id: could not be planted: $(cat "$log/apply.log")"
			status=1
			continue 2
		}
		diff -u "$TOP/arch/x86/events/$file" "$SRC/$file" > "$log/mutation.diff"
		# shellcheck disable=SC2086
		if ! build "$log/build.log" $tier; then
			echo "not ok $n - $id: the mutated copy does not build (see ${log#"$TOP"/}/build.log)"
			status=1
			continue 2
		fi
		for p in $tier; do
			ran+=("$p")
			run "$p" "$log/$p.log"
			rc=$?
			[ $rc -ne 0 ] && by+=("$(why "$p" "$log/$p.log" $rc)")
		done
		cp "$TOP/arch/x86/events/$file" "$SRC/$file"
	done
	cp "$TOP/arch/x86/events/$file" "$SRC/$file"
	restore=

	if [ ${#by[@]} -gt 0 ]; then
		caught=$((caught + 1))
		echo "ok $n - $id: caught by $(IFS='|'; echo "${by[*]}" | sed 's/|/, /g')"
	else
		gaps=$((gaps + 1))
		status=1
		echo "not ok $n - $id: no test failed (ran ${ran[*]})"
	fi
done 3<<< "$mutations"

echo "# $caught caught, $gaps not caught, $rotten not applying, of $n mutations in $(( $(date +%s) - start )) s; logs in ${LOGS#"$TOP"/}/"
echo "1..$n"
exit $status
