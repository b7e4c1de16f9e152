#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The lab scripts' failure paths, run on purpose (issue 10, "Bad input and
# faults"): a guest that does not power off in time, a kernel package that
# does not exist, an interrupted boot, abit.sh's boots that time out or
# panic (each made twice, then reported), a HitShield patch that does not
# apply, one that applies but breaks the build, an interrupted unpack and an
# interrupted make.
# Each must end with a non-zero status and one line naming the failed step,
# kill qemu and make, and leave no temporary directory behind; nothing on
# the host stays mounted.  Not part of `make check`: it needs root, qemu,
# Debian's kernel package (downloaded once into the lab's work directory)
# and linux-source-6.12 (unpacked into a scratch work directory, 1.7 GB,
# removed at the end), and takes some five minutes.
#
# Usage: tests/lab/lab-faults.sh [-w LABWORK] [--hsctl STATIC-HSCTL] [--only boot|build]
set -uo pipefail

PROG=${0##*/}
LABDIR=$(cd "$(dirname "$0")" && pwd)
LABWORK=/var/tmp/hsctl-lab
HSCTL_STATIC=
ONLY=

while [ $# -gt 0 ]; do
	case $1 in
	-w) LABWORK=${2:?}; shift 2 ;;
	--hsctl) HSCTL_STATIC=${2:?}; shift 2 ;;
	--only) ONLY=${2:?}; shift 2 ;;
	-h | --help) sed -n '3,16p' "$0"; exit 0 ;;
	*) echo "$PROG: unknown option '$1'" >&2; exit 64 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "$PROG: needs root" >&2; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "$PROG: no qemu-system-x86_64" >&2; exit 77; }

SCRATCH=$(mktemp -d /var/tmp/hsctl-labfaults.XXXXXX)
trap 'pkill -f "$SCRATCH" 2>/dev/null; rm -rf "$SCRATCH"' EXIT
NR_OK=0
NR_BAD=0

ok() {
	NR_OK=$((NR_OK + 1))
}

bad() {
	echo "FAIL $CASE: $*" >&2
	NR_BAD=$((NR_BAD + 1))
}

# expect RC PATTERN LOG WORKDIR: the status, the one-line message, and what
# must be gone afterwards: processes naming WORKDIR, temporary directories
# in it (tmp.* at its top or under kbuild/), mounts under it.
expect() {
	local rc=$1 pat=$2 log=$3 wd=$4 left
	[ "$RC" -eq "$rc" ] || bad "exit status $RC, want $rc: $(tail -n 3 "$log")"
	grep -qE "$pat" "$log" || bad "no line matching /$pat/: $(tail -n 3 "$log")"
	sleep 1
	left=$(pgrep -af -- "$wd" | grep -v -e "$PROG" -e pgrep || true)
	[ -z "$left" ] || bad "left running: $left"
	left=$(find "$wd" "$wd/kbuild" -maxdepth 1 -name 'tmp.*' 2>/dev/null)
	[ -z "$left" ] || bad "left behind: $left"
	! grep -q " $wd" /proc/mounts || bad "left mounted: $(grep " $wd" /proc/mounts)"
	ok
}

# term_at PATTERN WAIT SETTLE LOG CMD...: run CMD in the background (output to
# LOG), wait up to WAIT s for a process matching PATTERN, SETTLE s more, then
# SIGTERM CMD; RC gets its exit status.
term_at() {
	local pat=$1 tries=$(($2 * 2)) settle=$3 log=$4 pid

	shift 4
	"$@" >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 1 "$tries"); do
		pgrep -f -- "$pat" >/dev/null && break
		sleep 0.5
	done
	pgrep -f -- "$pat" >/dev/null || bad "nothing matching '$pat' started"
	sleep "$settle"
	kill -TERM "$pid"
	wait "$pid"
	RC=$?
}

# ---- the boot: mglru-lab.sh ----
if [ "${ONLY:-boot}" = boot ]; then
	# The boot cases use a work directory of their own that borrows the
	# lab's downloaded kernel package, so nothing of the lab's is touched.
	BW=$SCRATCH/boot
	mkdir -p "$BW"
	for d in debs kpkg; do
		[ -d "$LABWORK/$d" ] && cp -a "$LABWORK/$d" "$BW/"
	done
	hs=()
	[ -n "$HSCTL_STATIC" ] && hs=(--hsctl "$HSCTL_STATIC")

	CASE="boot: no poweroff in time"
	LAB_RUN_2= LAB_RUN_3= "$LABDIR/mglru-lab.sh" -k 6.12 --timeout 3 --no-install \
		"${hs[@]}" -w "$BW" >"$SCRATCH/timeout.log" 2>&1
	RC=$?
	expect 1 "6\.12: no poweroff within 3 s" "$SCRATCH/timeout.log" "$BW"

	CASE="boot: no such kernel package"
	LAB_RUN_2= LAB_RUN_3= "$LABDIR/mglru-lab.sh" -k 6.12 --no-install "${hs[@]}" \
		--package linux-image-0.0.0-hsctl-none-amd64 -w "$BW" >"$SCRATCH/pkg.log" 2>&1
	RC=$?
	expect 1 "apt-get download linux-image-0.0.0-hsctl-none-amd64 failed" \
		"$SCRATCH/pkg.log" "$BW"

	CASE="boot: SIGTERM while the guest runs"
	term_at "qemu-system-x86_64.*$BW" 60 2 "$SCRATCH/term.log" \
		env LAB_RUN_2= LAB_RUN_3= "$LABDIR/mglru-lab.sh" -k 6.12 --no-install "${hs[@]}" -w "$BW"
	expect 143 "mglru-lab.sh: stopped by SIGTERM" "$SCRATCH/term.log" "$BW"

	# abit.sh: a boot that ends early is shown and made once more, and the
	# check fails.  Its temporary directory goes under $BW (TMPDIR).
	CASE="abit: no poweroff in time"
	TMPDIR=$BW "$LABDIR/abit.sh" -w "$BW" --timeout 2 >"$SCRATCH/abit-timeout.log" 2>&1
	RC=$?
	expect 1 "^abit.sh: pti=on: no poweroff within 2 s" "$SCRATCH/abit-timeout.log" "$BW"
	n=$(grep -c "^abit.sh: default: no poweroff within 2 s" "$SCRATCH/abit-timeout.log")
	[ "$n" = 2 ] || bad "the default boot's timeout was reported $n times, want 2"
	ls -d "$BW"/abit.* 2>/dev/null && bad "abit.sh left its temporary directory"

	CASE="abit: the guest panics"
	TMPDIR=$BW "$LABDIR/abit.sh" -w "$BW" --append rdinit=/nonexistent \
		>"$SCRATCH/abit-panic.log" 2>&1
	RC=$?
	expect 1 "^abit.sh: rdinit=/nonexistent: the guest ended \(qemu exit 0\) before abit ran" \
		"$SCRATCH/abit-panic.log" "$BW"
	# two boots, two consoles: the panic lines differ in their timestamps
	n=$(grep "^   | .*Kernel panic - not syncing: VFS: Unable to mount root fs" \
		"$SCRATCH/abit-panic.log" | sort -u | wc -l)
	[ "$n" = 2 ] || bad "$n distinct panic lines, want 2 (one per boot)"
	grep -q "^   default, flush: set again before" "$SCRATCH/abit-panic.log" ||
		bad "the default boot's summary is missing"
	ls -d "$BW"/abit.* 2>/dev/null && bad "abit.sh left its temporary directory"
fi

# ---- the build: hitshield-build.sh ----
if [ "${ONLY:-build}" = build ]; then
	if ! dpkg -s linux-source-6.12 >/dev/null 2>&1; then
		echo "$PROG: build cases skipped: linux-source-6.12 is not installed" >&2
	else
		KW=$SCRATCH/build
		mkdir -p "$KW/kbuild"
		# the base config, when the lab has it, saves a download
		cp "$LABWORK"/kbuild/config-linux-image-* "$KW/kbuild/" 2>/dev/null

		CASE="build: SIGTERM while unpacking"
		term_at "tar -C $KW/kbuild/tmp" 60 2 "$SCRATCH/bterm.log" \
			"$LABDIR/hitshield-build.sh" --no-install -w "$KW" --arm vanilla
		expect 143 "hitshield-build.sh: stopped by SIGTERM in step unpack" "$SCRATCH/bterm.log" "$KW"
		ls -d "$KW"/kbuild/src-* >/dev/null 2>&1 && bad "a half-unpacked source tree stayed"

		# A patch that does not apply: a hunk against a line that is not there.
		cat >"$SCRATCH/noapply.patch" <<'EOF'
--- a/mm/vmscan.c
+++ b/mm/vmscan.c
@@ -1,3 +1,3 @@
-this line is not in mm/vmscan.c
+nor is this one
 // or this
 // or that
EOF
		CASE="build: patch does not apply"
		"$LABDIR/hitshield-build.sh" --no-install -w "$KW" --arm hitshield \
			--patch "$SCRATCH/noapply.patch" >"$SCRATCH/noapply.log" 2>&1
		RC=$?
		expect 1 "step hitshield: patch: .*noapply.patch does not apply" \
			"$SCRATCH/noapply.log" "$KW"
		[ ! -e "$KW/kbuild/tree-hitshield" ] || bad "the half-made tree is still there"

		# A patch that applies and breaks the compile early (bounds.c
		# includes page-flags.h while kbuild prepares).
		printf '%s\n' '--- a/include/linux/page-flags.h' '+++ b/include/linux/page-flags.h' \
			'@@ -1,3 +1,4 @@' ' /* SPDX-License-Identifier: GPL-2.0 */' \
			'+#error "hsctl lab-faults: a build that fails"' ' /*' \
			' * Macros for manipulating and testing page->flags' >"$SCRATCH/break.patch"
		CASE="build: patch breaks the build"
		"$LABDIR/hitshield-build.sh" --no-install -w "$KW" --arm hitshield \
			--patch "$SCRATCH/break.patch" >"$SCRATCH/break.log" 2>&1
		RC=$?
		expect 1 "step hitshield: make bzImage: failed after [0-9]+ s: .*hsctl lab-faults" \
			"$SCRATCH/break.log" "$KW"
		ls "$KW/kbuild"/hitshield-*/bzImage >/dev/null 2>&1 &&
			bad "a bzImage was cached for the broken arm"

		# The real arm, stopped while make runs: make and the compilers go.
		CASE="build: SIGTERM while make runs"
		term_at "make -C $KW/kbuild/tree-hitshield" 300 10 "$SCRATCH/mterm.log" \
			"$LABDIR/hitshield-build.sh" --no-install -w "$KW" --arm hitshield
		expect 143 "hitshield-build.sh: stopped by SIGTERM in step hitshield: make bzImage" \
			"$SCRATCH/mterm.log" "$KW"
	fi
fi

echo "# $PROG: $NR_OK cases ended cleanly, $NR_BAD checks failed"
for f in "$SCRATCH"/*.log; do
	[ -e "$f" ] && echo "## $(basename "$f"): $(grep -E "^(mglru-lab|hitshield-build|abit)" "$f" | tail -n 1)"
done
[ "$NR_BAD" -eq 0 ]
