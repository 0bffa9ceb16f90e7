# SPDX-License-Identifier: GPL-2.0
#
# Build and test Linux 6.1 (Debian linux-source-6.1) with the
# MPOL_WEIGHTED_INTERLEAVE series in kernel-patches/. Everything generated
# lives in build/. 'make help' lists the targets.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
# One kernel build at a time is all a small machine can take.
.NOTPARALLEL:

BUILD      := $(CURDIR)/build
LINUX      := $(BUILD)/linux
KOUT       := $(BUILD)/kernel
BZIMAGE    := $(KOUT)/arch/x86/boot/bzImage
BENCH_KOUT := $(BUILD)/kernel-bench
BENCH_BZIMAGE := $(BENCH_KOUT)/arch/x86/boot/bzImage
SELFTESTS  := $(BUILD)/selftests
INITRAMFS  := $(BUILD)/initramfs.cpio.gz
RESULTS    := $(BUILD)/results
TOPOLOGIES := numa4 cxl hotplug-cpu hotplug-cxl

# Overridable from the command line, e.g. make check VM_TIMEOUT=3000
# SELFTESTS_BIN=DIR boots prebuilt test programs from DIR instead of
# building selftests/.
SELFTESTS_BIN     ?=
KCONFIG_FRAGMENTS ?= base debug
VM_TIMEOUT        ?= 1500
TOPOLOGY          ?= numa4
export KCONFIG_FRAGMENTS VM_TIMEOUT

R := build/results
HOST_TAP := $(R)/host/tap/checkpatch.tap $(R)/host/tap/shellcheck.tap \
	    $(R)/host/tap/manpages.tap $(R)/host/tap/model-*.tap \
	    $(R)/host/tap/bwapd-*.tap
# Per topology: did the VM finish, was the console clean, then every program
# (the glob is expanded by the shell, after the VMs ran).
VM_TAP    = $(foreach t,$(TOPOLOGIES),$(R)/$(t)/tap/vm.tap $(R)/$(t)/tap/kernel-console.tap $(R)/$(t)/tap/*.tap)

.PHONY: help deps source kernel selftests numactl numactl-deb initramfs check checkpatch \
	shellcheck manlint series-build demo bench bench-kernel \
	compare-upstream shell clean model model-check bench-model bwapd bwapd-check bwapd-static

help:
	@echo 'Targets:'
	@echo '  check         deps + source + kernel + selftests + initramfs, boot the'
	@echo '                numa4, cxl and hotplug-* topologies in test mode, checkpatch, and'
	@echo '                summarise all TAP results with prove'
	@echo '  deps          install the host packages (Debian, as root)'
	@echo '  source        build/linux: linux-source-6.1 + kernel-patches/series'
	@echo '  kernel        build/kernel/arch/x86/boot/bzImage (tinyconfig + scripts/kconfig/*.config)'
	@echo '  selftests     make -C selftests into build/selftests (if selftests/Makefile exists)'
	@echo '  numactl       numactl + numactl/*.patch from Debian'"'"'s source (build/numactl)'
	@echo '  numactl-deb   Debian packages of it (numactl, libnuma1, libnuma-dev) in build/numactl/deb'
	@echo '  initramfs     build/initramfs.cpio.gz with busybox, /init, the selftests, numactl,'
	@echo '                a static bwapd'
	@echo '  checkpatch    checkpatch.pl --strict on each patch of the series (TAP)'
	@echo '  shellcheck    shellcheck the scripts (TAP)'
	@echo '  series-build  build after each patch of the series (build/series/)'
	@echo '  demo          boot $$(TOPOLOGY) (default numa4) and run wi_demo'
	@echo '  bench         boot $$(TOPOLOGY) on a non-debug kernel (build/kernel-bench)'
	@echo '                with instruction-counted clocks and run wi_bench; then'
	@echo '                the same on upstream 6.12 for reference (WI_BENCH_ARGS)'
	@echo '  compare-upstream  run the tests on this kernel and on Debian'"'"'s upstream'
	@echo '                6.12 and 7.3 kernels ($$(UPSTREAM_SERIES)), in $$(TOPOLOGY) and'
	@echo '                the hotplug machines; every test case must agree (TAP)'
	@echo '  manlint       mandoc -T lint on the man pages (TAP)'
	@echo '  model         build the NUMA bandwidth model and bwap-eval (build/model/)'
	@echo '  model-check   the model'"'"'s tests under ASan/UBSan on the host (TAP in'
	@echo '                build/results/host/tap/model-*.tap)'
	@echo '  bench-model   model predictions per second, exhaustive search time'
	@echo '  bwapd         build bwapd, canonical weights and the tuner (build/bwapd/bwapd)'
	@echo '  bwapd-check   bwapd'"'"'s tests under ASan/UBSan on the host, against'
	@echo '                the model presets and fake sysfs trees (TAP in'
	@echo '                build/results/host/tap/bwapd-*.tap)'
	@echo '  shell         boot $$(TOPOLOGY) with a shell on the console (Ctrl-A x quits)'
	@echo '  clean         remove build/'
	@echo 'Variables: KCONFIG_FRAGMENTS="$(KCONFIG_FRAGMENTS)" VM_TIMEOUT=$(VM_TIMEOUT) TOPOLOGY=$(TOPOLOGY)'
	@echo '           KSRC=DIR (kernel tree with the kselftest harness for model-check;'
	@echo '           default build/linux, unpacked by "make source")'
	@echo '           SELFTESTS_BIN=DIR (boot prebuilt test programs instead of building selftests/)'

deps:
	@scripts/deps.sh

source: deps
	@scripts/kernel-source.sh

kernel: source
	@scripts/build-kernel.sh --fragments "$(KCONFIG_FRAGMENTS)" $(LINUX) $(KOUT)

selftests: source
	@if [ -n "$(SELFTESTS_BIN)" ]; then \
		echo "selftests: using prebuilt programs from $(SELFTESTS_BIN)"; \
	elif [ -f selftests/Makefile ]; then \
		$(MAKE) -C selftests KSRC=$(LINUX) O=$(SELFTESTS); \
	else \
		echo "selftests: no selftests/Makefile, nothing to build"; \
	fi

# numactl and libnuma with the patches in numactl/, and their tests.
numactl: deps
	@scripts/build-numactl.sh

# Debian packages of the numactl fork, for installing on a machine.
numactl-deb: numactl
	@scripts/build-numactl-deb.sh

initramfs: selftests numactl bwapd-static
	@scripts/build-initramfs.sh --out $(INITRAMFS) --selftests $(or $(SELFTESTS_BIN),$(SELFTESTS)) \
		--root $(BUILD)/numactl/guest --root $(BUILD)/bwapd/guest \
		--extra $(or $(SELFTESTS_BIN),$(SELFTESTS))/helpers:/usr/lib/wi

checkpatch: source
	@scripts/checkpatch.sh

shellcheck: deps
	@scripts/shellcheck.sh

manlint: deps
	@scripts/manlint.sh

series-build: deps
	@scripts/series-build.sh

# Test failures are reported by prove at the end, not by the steps before it.
check: deps source kernel selftests numactl initramfs
	@rm -rf $(RESULTS)
	@scripts/checkpatch.sh >/dev/null || true
	@scripts/shellcheck.sh >/dev/null || true
	@scripts/manlint.sh >/dev/null || true
	@$(MAKE) --no-print-directory model-check >/dev/null 2>&1 || true
	@$(MAKE) --no-print-directory bwapd-check >/dev/null 2>&1 || true
	@for t in $(TOPOLOGIES); do \
		scripts/vm-run.sh --kernel $(BZIMAGE) --initrd $(INITRAMFS) \
			--topology $$t --mode test --out $(RESULTS)/$$t || true; \
	done
	@scripts/prove-results.sh $(HOST_TAP) $(VM_TAP)

demo: kernel initramfs
	@rc=0; scripts/vm-run.sh --kernel $(BZIMAGE) --initrd $(INITRAMFS) \
		--topology $(TOPOLOGY) --mode $@ --out $(RESULTS)/$@ || rc=$$?; \
	echo "--- ttyS1 ($@ output) ---"; \
	tr -d '\r' < $(RESULTS)/$@/ttyS1.log; \
	exit $$rc

# The benchmark boots a kernel without the debug options, whose cost would
# drown the one measured, and counts guest time in executed instructions,
# so that ratios measured in one boot repeat from run to run.
bench-kernel: source
	@scripts/build-kernel.sh --fragments base $(LINUX) $(BENCH_KOUT)

bench: bench-kernel initramfs
	@scripts/bench.sh --kernel $(BENCH_BZIMAGE) --initrd $(INITRAMFS) \
		--topology $(TOPOLOGY) --out $(RESULTS)/$@

# The same tests on Debian's upstream 6.12 and 7.3 kernels: every test
# case must give the same result on each, but for deliberate differences.
COMPARE_TOPOLOGIES ?= $(TOPOLOGY) hotplug-cpu hotplug-cxl
UPSTREAM_SERIES    ?= 6.12 7.3
compare-upstream: kernel initramfs
	@rm -rf $(RESULTS)/compare
	@scripts/compare-upstream.sh --kernel $(BZIMAGE) --initrd $(INITRAMFS) \
		--topology "$(COMPARE_TOPOLOGIES)" --upstream "$(UPSTREAM_SERIES)" \
		--out $(RESULTS)/compare || true
	@scripts/prove-results.sh $(R)/compare/compare-*.tap \
		$(R)/compare/*/*/tap/kernel-console.tap

shell: kernel initramfs
	@scripts/vm-run.sh --kernel $(BZIMAGE) --initrd $(INITRAMFS) \
		--topology $(TOPOLOGY) --mode shell --out $(RESULTS)/shell

# The model is host code: its tests need only the kselftest harness from a
# kernel tree.  Given KSRC=DIR (a tree already unpacked), the kernel
# source is not prepared here.
KSRC ?= $(LINUX)
MODEL_MAKE = $(MAKE) --no-print-directory -C userspace/model KSRC=$(KSRC) \
	O=$(BUILD)/model TAP_DIR=$(CURDIR)/$(R)/host/tap
MODEL_DEPS := deps $(if $(filter command line environment,$(origin KSRC)),,source)

model: deps
	@$(MODEL_MAKE) all

model-check: $(MODEL_DEPS)
	@rm -f $(R)/host/tap/model-*.tap
	@$(MODEL_MAKE) check

bench-model: model
	@$(MODEL_MAKE) bench

# bwapd links libbwmodel; its host tests need the same harness.
BWAPD_MAKE = $(MAKE) --no-print-directory -C userspace/bwapd KSRC=$(KSRC) \
	O=$(BUILD)/bwapd TAP_DIR=$(CURDIR)/$(R)/host/tap

bwapd: deps
	@$(BWAPD_MAKE) all

# A static bwapd for the test machine (/usr/sbin/bwapd, tested by
# selftests/bwapd/bwapd.sh).
bwapd-static: deps
	@$(BWAPD_MAKE) static

bwapd-check: $(MODEL_DEPS)
	@rm -f $(R)/host/tap/bwapd-*.tap
	@$(BWAPD_MAKE) check

clean:
	rm -rf $(BUILD)
