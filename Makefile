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
SELFTESTS  := $(BUILD)/selftests
INITRAMFS  := $(BUILD)/initramfs.cpio.gz
RESULTS    := $(BUILD)/results
TOPOLOGIES := numa4 cxl

# Overridable from the command line, e.g. make check VM_TIMEOUT=3000
# SELFTESTS_BIN=DIR boots prebuilt test programs from DIR instead of
# building selftests/.
SELFTESTS_BIN     ?=
KCONFIG_FRAGMENTS ?= base debug
VM_TIMEOUT        ?= 1500
TOPOLOGY          ?= numa4
export KCONFIG_FRAGMENTS VM_TIMEOUT

R := build/results
HOST_TAP := $(R)/host/tap/checkpatch.tap $(R)/host/tap/shellcheck.tap
# Per topology: did the VM finish, was the console clean, then every program
# (the glob is expanded by the shell, after the VMs ran).
VM_TAP    = $(foreach t,$(TOPOLOGIES),$(R)/$(t)/tap/vm.tap $(R)/$(t)/tap/kernel-console.tap $(R)/$(t)/tap/*.tap)

.PHONY: help deps source kernel selftests initramfs check checkpatch \
	shellcheck series-build demo bench shell clean

help:
	@echo 'Targets:'
	@echo '  check         deps + source + kernel + selftests + initramfs, boot the'
	@echo '                numa4 and cxl topologies in test mode, checkpatch, and'
	@echo '                summarise all TAP results with prove'
	@echo '  deps          install the host packages (Debian, as root)'
	@echo '  source        build/linux: linux-source-6.1 + kernel-patches/series'
	@echo '  kernel        build/kernel/arch/x86/boot/bzImage (tinyconfig + scripts/kconfig/*.config)'
	@echo '  selftests     make -C selftests into build/selftests (if selftests/Makefile exists)'
	@echo '  initramfs     build/initramfs.cpio.gz with busybox, /init and the selftests'
	@echo '  checkpatch    checkpatch.pl --strict on each patch of the series (TAP)'
	@echo '  shellcheck    shellcheck the scripts (TAP)'
	@echo '  series-build  build after each patch of the series (build/series/)'
	@echo '  demo, bench   boot $$(TOPOLOGY) (default numa4) running wi_demo / wi_bench'
	@echo '  shell         boot $$(TOPOLOGY) with a shell on the console (Ctrl-A x quits)'
	@echo '  clean         remove build/'
	@echo 'Variables: KCONFIG_FRAGMENTS="$(KCONFIG_FRAGMENTS)" VM_TIMEOUT=$(VM_TIMEOUT) TOPOLOGY=$(TOPOLOGY)'
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

initramfs: selftests
	@scripts/build-initramfs.sh --out $(INITRAMFS) --selftests $(or $(SELFTESTS_BIN),$(SELFTESTS))

checkpatch: source
	@scripts/checkpatch.sh

shellcheck: deps
	@scripts/shellcheck.sh

series-build: deps
	@scripts/series-build.sh

# Test failures are reported by prove at the end, not by the steps before it.
check: deps source kernel selftests initramfs
	@rm -rf $(RESULTS)
	@scripts/checkpatch.sh >/dev/null || true
	@scripts/shellcheck.sh >/dev/null || true
	@for t in $(TOPOLOGIES); do \
		scripts/vm-run.sh --kernel $(BZIMAGE) --initrd $(INITRAMFS) \
			--topology $$t --mode test --out $(RESULTS)/$$t || true; \
	done
	@scripts/prove-results.sh $(HOST_TAP) $(VM_TAP)

demo bench: kernel initramfs
	@rc=0; scripts/vm-run.sh --kernel $(BZIMAGE) --initrd $(INITRAMFS) \
		--topology $(TOPOLOGY) --mode $@ --out $(RESULTS)/$@ || rc=$$?; \
	echo "--- ttyS1 ($@ output) ---"; \
	tr -d '\r' < $(RESULTS)/$@/ttyS1.log; \
	exit $$rc

shell: kernel initramfs
	@scripts/vm-run.sh --kernel $(BZIMAGE) --initrd $(INITRAMFS) \
		--topology $(TOPOLOGY) --mode shell --out $(RESULTS)/shell

clean:
	rm -rf $(BUILD)
