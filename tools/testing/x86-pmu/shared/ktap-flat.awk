# SPDX-License-Identifier: GPL-2.0
#
# KTAP of a KUnit program (nested: a subtest per suite) to flat TAP, one
# line per case, "suite.case", as make check counts its tests. A suite
# whose cases did not all report (the program crashed or hung) and a
# program that exited non-zero without a failed case are failures too.
#
#   awk -v prog=NAME -v rc=EXIT_STATUS -f ktap-flat.awk < KTAP
/^    # Subtest: / {
	suite = substr($0, 16)
	plan = 0
	seen = 0
	suites++
	next
}
/^    1\.\.[0-9]+$/ {
	plan = substr($0, 8) + 0
	planned[suite] = plan
	next
}
/^    (not )?ok [0-9]+ / {
	line = $0
	sub(/^    /, "", line)
	bad = line ~ /^not ok/
	sub(/^(not )?ok [0-9]+ /, "", line)
	printf "%sok %d - %s: %s.%s\n", bad ? "not " : "", ++n, prog, suite, line
	failed += bad
	done[suite]++
	next
}
/^    KTAP version/ { next }
/^    / {
	# what the cases printed: failure reports, diagnostics
	print "# " substr($0, 5)
}
END {
	for (s in planned)
		if (done[s] + 0 != planned[s]) {
			printf "not ok %d - %s: %s: %d of %d cases reported\n", ++n, prog,
			       s, done[s] + 0, planned[s]
			failed++
		}
	if (!suites) {
		printf "not ok %d - %s: no KTAP suite in its output\n", ++n, prog
		failed++
	}
	if (rc != 0 && !failed)
		printf "not ok %d - %s: exited with status %d\n", ++n, prog, rc
	printf "1..%d\n", n
}
