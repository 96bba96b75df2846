# SPDX-License-Identifier: GPL-2.0
#
# The two commands (see README):
#   make run     build the patched kernel, boot it under QEMU, show the KUnit
#                and kselftest results
#   make check   every test: harness, fuzzing, benchmark, checkpatch, KUnit,
#                kselftests, every patch building on its own
# and:
#   make series  export every mainline part (series/7.3/N-NAME/) into
#                build/series/N-NAME/ and the 6.12 backport into
#                build/series/6.12/ (git format-patch, signed off by you)
#   make bench   the matcher micro-benchmark alone
#   make mutation  the mutation check alone: every planted bug of
#                tools/testing/x86-pmu/mutations.txt must fail a test
#                (ARGS="--all" runs every test on each; ARGS="ID...")
#   make sim     the scheduling simulator's six scenarios; make sim ARGS="..."
#                runs it with your own arguments (ARGS="--help")
#   make sim-fairness  the XSU policies side by side: utilization, fairness
#   make sim-metrics   perf's metric groups of SNB/IVB/HSW on both siblings,
#                each policy side by side (ARGS=--corrupting-only: the
#                groups with events 0xd0-0xd3)
#   make half-boots  20 boots of the emulated Haswell running host/half.sh
#                alone, tallied (ARGS="N KERNEL": N boots of series, rfc or
#                mainline; HALF_PARALLEL=2: two at a time; scripts/half-boots.sh)
#   make kunit-qemu  the series kernel's KUnit suites through kunit.py run
#                with a --qemu_config that boots the emulated affected host
#                (tools/testing/x86-pmu/kunit-qemu/hsw_ht.py), reusing the
#                kernel's build (build/results/kunit-qemu.tap)
#   make clean   remove build outputs (keeps the extracted tree)
#   make distclean  remove build/ entirely

.PHONY: run check series bench mutation sim sim-fairness sim-metrics half-boots kunit-qemu \
	clean distclean

run:
	@scripts/run.sh

check:
	@scripts/check.sh

series:
	@scripts/setup.sh && scripts/prepare-tree.sh 7.3 && scripts/apply-parts.sh && \
		scripts/prepare-tree.sh 6.12 && scripts/apply-series.sh && \
		scripts/export-series.sh

bench:
	@scripts/setup.sh && scripts/prepare-tree.sh 7.3 && \
		$(MAKE) -s -C tools/testing/x86-pmu KSRC=$(CURDIR)/build/linux-7.3 \
		O=$(CURDIR)/build/harness $(CURDIR)/build/harness/match_bench && \
		build/harness/match_bench

mutation:
	@scripts/setup.sh && scripts/prepare-tree.sh 7.3 && scripts/apply-parts.sh && \
		tools/testing/x86-pmu/mutate.sh -o $(CURDIR)/build/mutation \
		-k $(CURDIR)/build/linux-7.3 $(ARGS)

sim:
	@scripts/sim.sh $(ARGS)

sim-fairness:
	@scripts/sim.sh --fairness 1000 $(ARGS)

sim-metrics:
	@scripts/sim.sh --metric-table --ticks 1000 $(ARGS)

half-boots:
	@scripts/setup.sh && scripts/prepare-tree.sh 7.3 && scripts/apply-parts.sh && \
		scripts/half-boots.sh $(ARGS)

kunit-qemu:
	@scripts/setup.sh && scripts/prepare-tree.sh 7.3 && scripts/apply-parts.sh && \
		scripts/qemu-build.sh && scripts/kernel-build.sh series && \
		scripts/kunit-qemu.sh

clean:
	rm -rf build/harness build/mutation build/results build/series build/series-check \
		build/selftests-* \
		build/initramfs-*.cpio build/bisect build/bisect-out build/bisect-ok \
		build/k-* build/am-* build/kunitconfigs
	-git -C build/linux-6.12 worktree prune 2>/dev/null
	-git -C build/linux-7.3 worktree prune 2>/dev/null

distclean:
	rm -rf build
