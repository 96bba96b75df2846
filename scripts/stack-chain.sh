#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stack-chain.sh OBJ SU ROOT [SKIP]: the deepest stack of ROOT in the object file
# OBJ, from the frames gcc's -fstack-usage wrote to SU and the calls and
# tail jumps objdump finds in OBJ. Prints "BYTES f1 N1 > f2 N2 > ..." (a
# tail jump is written ">>": the caller's frame is gone by then). Calls
# leaving OBJ (library, thunks) count 0. Fails on recursion or when ROOT
# is not in SU. SKIP, an awk regular expression, names functions whose
# calls are left out (a branch the caller at hand never takes). Summing
# every frame of SU bounds the same figure from above; this is the figure
# itself, and it sees tail calls.
set -euo pipefail

[ $# -eq 3 ] || [ $# -eq 4 ] ||
	{ echo "usage: $0 OBJ SU ROOT [SKIP]" >&2; exit 2; }
obj=$1 su=$2 root=$3 skip=${4:-^\$}

objdump -dr --no-show-raw-insn "$obj" | awk -F'\t' -v root="$root" -v skip="$skip" '
	FNR == NR {
		fn = $1; sub(/.*:/, "", fn)
		frame[clone(fn)] = $2 + 0
		next
	}
	# "0000000000000040 <name>:" starts a function
	/^[0-9a-f]+ <[^>]+>:$/ {
		# a tail jump that ends the function before
		if (pend != "" && pendt != "")
			edge(cur, pendt, pend)
		cur = $0; sub(/^[0-9a-f]+ </, "", cur); sub(/>:$/, "", cur)
		cur = clone(cur)
		pend = ""
		next
	}
	# a relocation names the target of the call or jump above it
	/R_X86_64_(PLT32|PC32)/ && pend != "" {
		t = $0; sub(/.*R_X86_64_(PLT32|PC32)[ \t]+/, "", t)
		sub(/[-+]0x[0-9a-f]+$/, "", t)
		edge(cur, t, pend)
		pend = ""
		next
	}
	{
		if (pend != "" && pendt != "")
			edge(cur, pendt, pend)
		pend = ""
		if ($0 !~ /\t(call|jmp)[a-z]*[ \t]/)
			next
		kind = $0 ~ /\tcall/ ? "call" : "jmp"
		t = ""
		if (match($0, /<[^>]+>$/)) {
			t = substr($0, RSTART + 1, RLENGTH - 2)
			# only the entry of a function is a call or tail call
			if (t ~ /\+0x/)
				t = ""
		}
		pend = kind; pendt = t
	}
	# gcc names a clone "f.constprop.0" in the object, "f.constprop" in
	# SU, and "f.part.0" in both: the trailing number goes on both sides
	function clone(f) {
		sub(/\.[0-9]+$/, "", f)
		return f
	}
	function edge(from, to, kind) {
		to = clone(to)
		if (to == from || to == "" || to ~ skip)
			return
		if (kind == "call")
			calls[from] = calls[from] " " to
		else
			tails[from] = tails[from] " " to
	}
	function depth(f,    n, i, l, d, best, bestp, arr) {
		if (f in memo)
			return memo[f]
		if (f in busy) {
			print "recursion through " f > "/dev/stderr"
			exit 1
		}
		busy[f] = 1
		best = 0; bestp = ""
		n = split(calls[f], arr, " ")
		for (i = 1; i <= n; i++) {
			d = depth(arr[i])
			if (d > best) { best = d; bestp = " > " path[arr[i]] }
		}
		best += frame[f]
		bestp = f " " frame[f] + 0 bestp
		n = split(tails[f], arr, " ")
		for (i = 1; i <= n; i++) {
			d = depth(arr[i])
			if (d > best) {
				best = d; bestp = f " " frame[f] + 0 " >> " path[arr[i]]
			}
		}
		delete busy[f]
		memo[f] = best; path[f] = bestp
		return best
	}
	END {
		if (pend != "" && pendt != "")
			edge(cur, pendt, pend)
		if (!(root in frame)) {
			print "no frame for " root > "/dev/stderr"
			exit 1
		}
		d = depth(root)
		print d, path[root]
	}' "$su" -
