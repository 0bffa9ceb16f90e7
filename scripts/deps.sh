#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the host packages needed to build, boot and test the kernel
# and numactl.
# Idempotent: only calls apt-get when something is missing.
#
# The kernel source package is handled by scripts/kernel-source.sh, which
# pins its version.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(
	build-essential bc bison flex libelf-dev libssl-dev
	ccache cpio busybox-static qemu-system-x86 xz-utils
	dwarves rsync kmod git perl gzip coreutils util-linux qemu-utils
	shellcheck mandoc libjson-c-dev libpfm4-dev
	autoconf automake libtool dpkg-dev
	debhelper lintian mmdebstrap systemd
	python3 gcc-multilib
)

missing=()
for p in "${PACKAGES[@]}"; do
	[ -n "$(installed_pkg_version "$p")" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PACKAGES[@]} host packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	die "missing host packages: ${missing[*]}
  run as root (or: sudo apt-get install ${missing[*]})"
fi

export DEBIAN_FRONTEND=noninteractive
apt_install() {
	apt-get install -y --no-install-recommends "$@"
}

# Try first with the existing package lists; refresh them only if that
# fails (fresh machine, or lists too old to have the candidates).
echo "deps: installing ${missing[*]}"
if ! apt_install "${missing[@]}"; then
	apt-get update
	apt_install "${missing[@]}"
fi
