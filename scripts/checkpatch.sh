#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the base tree's checkpatch.pl --strict on every patch of
# kernel-patches/BASE/series and report TAP, one test per patch.
#
# usage: [BASE=6.12] checkpatch.sh [--out TAP_FILE]
#
# TAP goes to stdout and to TAP_FILE (default
# build/results/host/tap/checkpatch-BASE.tap). Exit status is non-zero if any
# patch has errors, warnings or checks.
#
# checkpatch.pl checks a commit named in a commit message ("commit
# <12 hex digits> (\"<title>\")") against the git history of the tree it
# runs in: the id must exist and the title must be the commit's. The base
# tree here is a git repository without upstream's history, where every
# such reference would be unknown; a tree without git metadata cannot
# check them at all. So checkpatch runs as in a clone of upstream Linux:
# with LINUX_GIT=DIR, a clone of torvalds/linux.git, its history answers;
# otherwise kernel-patches/upstream-commits does (the upstream commits the
# series names, as "git log --format='%H %s'" prints them in such a clone),
# through a git command that answers checkpatch's "git log -1 ID" from it
# and hands every other use to git. A reference to a commit that is not
# listed, with a title that is not the commit's, or in another form than
# the kernel's fails either way.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

TAP=$BUILD_DIR/results/host/tap/checkpatch-$BASE.tap
LINUX=${KSRC:-$BASE_BUILD/linux}
while [ $# -gt 0 ]; do
	case $1 in
	--out) TAP=$2; shift 2 ;;
	*) die "usage: $0 [--out TAP_FILE]" ;;
	esac
done
CP=$LINUX/scripts/checkpatch.pl
[ -f "$CP" ] || die "$CP not found (run scripts/kernel-source.sh first)"
mkdir -p "$(dirname "$TAP")"

# Upstream's history: a clone (LINUX_GIT), or the list of the commits the
# series names, answered by a git command first in PATH.
UPSTREAM_COMMITS=$REPO_ROOT/kernel-patches/upstream-commits
CP_ENV=()
if [ -n "${LINUX_GIT:-}" ]; then
	[ -d "$LINUX_GIT" ] || die "LINUX_GIT=$LINUX_GIT is not a directory"
	gitdir=$(git -C "$LINUX_GIT" rev-parse --absolute-git-dir) ||
		die "LINUX_GIT=$LINUX_GIT is not a git repository"
	CP_ENV=(GIT_DIR="$gitdir")
else
	shim=$(mktemp -d)
	trap 'rm -rf "$shim"' EXIT
	cat >"$shim/git" <<SHIM
#!/bin/sh
# checkpatch.pl's look-up of a commit id: git log ... -1 ID
if [ "\$1" = log ]; then
	for id; do :; done
	hit=\$(grep -v '^#' "$UPSTREAM_COMMITS" | grep -i "^\$id")
	if [ -n "\$hit" ] && [ "\$(printf '%s\\n' "\$hit" | wc -l)" -eq 1 ]; then
		printf '%s\\n' "\$hit"
		exit 0
	fi
	echo "fatal: bad object \$id"
	exit 128
fi
exec $(command -v git) "\$@"
SHIM
	chmod +x "$shim/git"
	CP_ENV=(PATH="$shim:$PATH")
fi

# checkpatch.pl on a patch file; its output in $out.
run_checkpatch() {
	out=$(cd "$LINUX" && env "${CP_ENV[@]}" perl scripts/checkpatch.pl \
		--strict --color=never "$1" 2>&1)
}

# The look-up must be able to fail: the first patch of the series with
# its first reference to an upstream commit given a wrong title is
# refused (GIT_COMMIT_ID).
canary_refused() {
	local first=$1 bad
	bad=$(mktemp)
	# The first "commit <id> (\"mm/mempolicy: <title>" of the message
	# becomes "commit <id> (\"mm/mempolicy: not <title>".
	perl -0pe 's/(commit [0-9a-f]{12} \("mm\/mempolicy:)(\s)/$1 not$2/' \
		"$first" >"$bad"
	if cmp -s "$first" "$bad"; then
		rm -f "$bad"
		out="no reference to an mm/mempolicy commit in ${first##*/}"
		return 1
	fi
	run_checkpatch "$bad" || true
	rm -f "$bad"
	grep -q 'ERROR: Please use git commit description style' <<<"$out"
}

mapfile -t patches < <(series_patches)
fail=0
{
	if [ ${#patches[@]} -eq 0 ]; then
		echo "1..0 # SKIP no patches"
	else
		echo "1..$((${#patches[@]} + 1))"
	fi
	n=0
	for p in "${patches[@]}"; do
		n=$((n + 1))
		f=$PATCH_DIR/$p
		if [ ! -f "$f" ]; then
			echo "not ok $n - kernel-patches/$BASE/$p (listed in series, missing)"
			fail=1
			continue
		fi
		if run_checkpatch "$f"; then
			echo "ok $n - checkpatch --strict kernel-patches/$BASE/$p"
		else
			echo "not ok $n - checkpatch --strict kernel-patches/$BASE/$p"
			fail=1
		fi
		printf '%s\n' "$out" | sed 's/^/# /'
	done
	if [ ${#patches[@]} -gt 0 ]; then
		n=$((n + 1))
		# The first patch that names an mm/mempolicy commit.
		first=$(grep -l 'commit [0-9a-f]\{12\} ("mm/mempolicy:' \
			"${patches[@]/#/$PATCH_DIR/}" | head -n 1)
		if [ -n "$first" ] && canary_refused "$first"; then
			echo "ok $n - a commit named with a wrong title is refused (${first##*/})"
		else
			echo "not ok $n - a commit named with a wrong title is refused (${first##*/})"
			printf '%s\n' "$out" | sed 's/^/# /'
			fail=1
		fi
	fi
} >"$TAP"
cat "$TAP"
exit $fail
