#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The emulated accessed bit: boots the lab's Debian 6.12 kernel under qemu TCG
# (as mglru-lab.sh does) with a minimal initramfs and runs tests/lab/abit.c in
# it, once with the kernel's default command line and once with each --append
# given (default: pti=on), and prints how often a page touched all along had
# its accessed bit set again between MGLRU agings.  tests/lab/README, "The
# emulated accessed bit", says what the answer means for the lab's anonymous
# workloads.  Not part of `make check`: root, about a minute per boot.
set -euo pipefail

PROG=${0##*/}
LABDIR=$(cd "$(dirname "$0")" && pwd)
WORK=/var/tmp/hsctl-lab
APPENDS=()
TIMEOUT=300
CHECK=
TMP=
QPID=

usage() {
	cat <<EOF
Usage: $PROG [-w WORK] [--append ARGS]... [--timeout SEC] [--check]
Boot the lab's 6.12 kernel (WORK/kpkg, fetched by mglru-lab.sh -k 6.12) under
qemu TCG with the default command line, then with each --append (default:
pti=on), and run abit.c in each: a thread pinned to one vCPU touches 256
pages while MGLRU ages their memory cgroup five times.  Prints abit.c's lines
and a summary.  --check also fails unless, in every --append boot, the bits
were set again before at least 4 of the 5 agings in both modes (what the
lab's pti=on default relies on).  A boot that ends before abit ran in both
modes (a panic, --timeout) is shown with its console's end and made once more.
Exit status: 0 every boot ran abit in both modes (and --check held), 1
otherwise, 64 usage.
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-w | --work-dir) WORK=${2:?}; shift 2 ;;
	--append) APPENDS+=("${2:?}"); shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--check) CHECK=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 64 ;;
	esac
done
[ ${#APPENDS[@]} -gt 0 ] || APPENDS=(pti=on)

die() {
	echo "$PROG: $*" >&2
	exit 1
}
cleanup() {
	if [ -n "$QPID" ]; then kill "$QPID" 2>/dev/null || true; fi
	if [ -n "$TMP" ]; then rm -rf "$TMP"; fi
	return 0
}
trap cleanup EXIT
trap 'echo "$PROG: stopped by SIGTERM" >&2; exit 143' TERM
trap 'echo "$PROG: stopped by SIGINT" >&2; exit 130' INT

[ "$(id -u)" = 0 ] || die "needs root (the guest's device nodes)"
VMLINUZ=$(ls "$WORK"/kpkg/linux-image-6.12*/boot/vmlinuz-* 2>/dev/null | head -1 || true)
[ -n "$VMLINUZ" ] || die "no 6.12 kernel in $WORK/kpkg: run tests/lab/mglru-lab.sh -k 6.12 once"
BUSYBOX=$(command -v busybox) || die "no busybox (apt-get install busybox-static)"
command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64 (apt-get install qemu-system-x86)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/abit.XXXXXX")
mkdir -p "$TMP/root/bin" "$TMP/root/proc" "$TMP/root/sys" "$TMP/root/dev"
gcc -O2 -static -pthread -o "$TMP/root/bin/abit" "$LABDIR/abit.c" || die "abit.c: build failed"
cp "$BUSYBOX" "$TMP/root/bin/busybox"
cat >"$TMP/root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t cgroup2 none /sys/fs/cgroup
mount -t debugfs none /sys/kernel/debug
echo y >/sys/kernel/mm/lru_gen/enabled
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
echo "@@ cmdline: $(cat /proc/cmdline)"
for m in plain flush; do
	/bin/abit $m 2>&1 | sed 's/^/@@ /'
	rmdir /sys/fs/cgroup/abit
done
echo "@@ ABIT-DONE"
poweroff -f
INIT
chmod +x "$TMP/root/init"
(cd "$TMP/root" && find . | cpio -o -H newc 2>/dev/null | gzip >"$TMP/initrd.gz")

# One boot with the command line's extra ARGS ($1); its console, without the
# serial line's CRs, lands in $TMP/console and qemu's exit status in QEMU_RC.
boot() {
	: >"$TMP/console.raw"
	timeout -k 10 "$TIMEOUT" qemu-system-x86_64 -accel tcg -m 512M -smp 2 \
		-display none -monitor none -serial "file:$TMP/console.raw" -no-reboot -net none \
		-kernel "$VMLINUZ" -initrd "$TMP/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1${1:+ $1}" \
		</dev/null >"$TMP/qemu.log" 2>&1 &
	QPID=$!
	QEMU_RC=0
	wait "$QPID" || QEMU_RC=$?
	QPID=
	tr -d '\r' <"$TMP/console.raw" >"$TMP/console"
}

# Did the boot in $TMP/console run abit in both modes?  Else say why on stderr,
# with the console's last lines that are not abit's (a panic, a lockup).
finished() {
	if grep -q "ABIT-DONE" "$TMP/console" &&
		[ "$(grep -c 'accessed bits set again' "$TMP/console")" = 2 ]; then
		return 0
	fi
	if [ "$QEMU_RC" = 124 ] || [ "$QEMU_RC" = 137 ]; then
		echo "$PROG: ${1:-default}: no poweroff within $TIMEOUT s" >&2
	else
		echo "$PROG: ${1:-default}: the guest ended (qemu exit $QEMU_RC)" \
			"before abit ran in both modes" >&2
	fi
	# the first line of a panic, an oops or a lockup report, then the console's end
	grep -v '^@@ ' "$TMP/console" |
		awk '/Kernel panic|BUG|Oops|watchdog|blocked for more than/ && !n++ { print }
		     { l[NR % 6] = $0 } END { for (i = NR - 5; i <= NR; i++) if (i > 0) print l[i % 6] }' |
		sed 's/^/   | /' >&2
	return 1
}

FAILED=
SUMMARY=
for append in "" "${APPENDS[@]}"; do
	echo "== ${append:-default command line}"
	# Debian's kernel under TCG now and then dies before it gets far (.ci/run
	# boots the smoke again for that): a second boot, but never a third.
	boot "$append"
	if ! finished "$append"; then
		echo "   (booting again)"
		boot "$append"
	fi
	sed -n 's/^@@ /   /p' "$TMP/console"
	finished "$append" || FAILED=1
	if [ -n "$CHECK" ] && [ -n "$append" ]; then
		n=$(sed -n 's/^@@ abit .*: accessed bits set again before \([0-9]*\) of.*/\1/p' "$TMP/console" |
			awk '$1 >= 4' | wc -l)
		if [ "$n" != 2 ]; then
			echo "$PROG: $append: the touched pages' accessed bits were not set again" \
				"before 4 of 5 agings in both modes" >&2
			FAILED=1
		fi
	fi
	while read -r line; do	# not in sed's expression: ARGS may hold a '/'
		SUMMARY+="   ${append:-default}, $line"$'\n'
	done < <(sed -n \
		's/^@@ abit \(.*\): accessed bits set again before \([0-9]*\) of \([0-9]*\) agings (pages promoted: \([0-9]*\)).*/\1: set again before \2 of \3 agings, promoted \4/p' \
		"$TMP/console")
done
echo "== summary"
printf '%s' "$SUMMARY"
[ -z "$FAILED" ]
