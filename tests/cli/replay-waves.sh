#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl replay in waves (hsctl-replay(1), "Memory and waves"): a sweep split
# into several waves by a small --memory gives the same runs, counter by
# counter, as one pass; the default budget is MemAvailable less a margin (read
# from HSCTL_TEST_MEMINFO here, a file in /proc/meminfo's form); a run that
# does not fit alone is a usage error under --memory and a warning under the
# default; a Ctrl-C between two waves keeps the runs of the finished ones.
. "$TESTS_SRCDIR/cli/setup.sh"

meminfo() {	# meminfo KB: MemAvailable for the replays that follow
	printf 'MemTotal: 99999999 kB\nMemAvailable: %s kB\n' "$1" >"$T_DIR/meminfo"
}
HSCTL_TEST_MEMINFO=$T_DIR/meminfo
export HSCTL_TEST_MEMINFO
# The JSON rows of $OUT, one a line, without their wall time.
rows() {
	printf '%s\n' "$OUT" | grep '^  {"run"' | sed 's/"wall_s": [^,]*, //'
}

# Every policy at two sizes, 28 runs, on 1760 keys: about 9.8 MiB at once.
expect_status 0 "$HSCTL" -d "$DB" gen zipf --keys 2000 --accesses 20000 --seed 3
# 4 GiB available: 3584 MiB for the runs (an eighth, 512 MiB, is the margin),
# one wave, no note about waves.
meminfo 4194304
expect_status 0 "$HSCTL" -d "$DB" -v --format json replay 1 --policy all --size 100,500 \
	--no-store
expect_grep '^hsctl: replay: memory for the runs: 3584.0 MiB (MemAvailable 4096.0 MiB less a margin)$' "$ERR"
expect_no_grep 'waves' "$ERR"
ONE=$(rows)
expect_eq "$(printf '%s\n' "$ONE" | wc -l | tr -d ' ')" 28
# 8,700,000 bytes: 8 MiB for the replay and about 300 kB of runs a wave.
expect_status 0 "$HSCTL" -d "$DB" --format json replay 1 --policy all --size 100,500 \
	--no-store --memory 8700000
expect_grep '^hsctl: note: replay: 28 runs in [0-9]* waves within 8.3 MiB, largest about 8.[0-3] MiB: one pass over the stream each$' "$ERR"
expect_no_grep ' in 1 waves' "$ERR"
expect_eq "$(rows)" "$ONE"
# one thread, and a fractional size with a suffix
expect_status 0 "$HSCTL" -d "$DB" --format json replay 1 --policy all --size 100,500 \
	--no-store --memory 8.3M --threads 1
expect_grep '^hsctl: note: replay: 28 runs in [0-9]* waves within 8.3 MiB' "$ERR"
expect_eq "$(rows)" "$ONE"
# stored in waves, read back: the same counters as the one-wave rows
expect_status 0 "$HSCTL" -d "$DB" --format json replay 1 --policy all --size 100,500 \
	--memory 8700000
expect_eq "$(rows | sed 's/"run": [0-9]*/"run": null/')" "$ONE"

# The ten-access trace: lru and fifo take 4 keys' records each, 8.0 MiB.
printf '1\n2\n3\n1\n2\n4\n1\n2\n3\n4\n' >tiny.txt
expect_status 0 "$HSCTL" -d "$DB" import --type text --name tiny tiny.txt
TINY=2
# A --memory that a run does not fit alone: a usage error before anything starts.
expect_status 64 "$HSCTL" -d "$DB" replay $TINY --policy lru,fifo --size 3 --memory 1M
expect_eq "$ERR" "hsctl: --memory 1.0 MiB: lru at size 3 alone needs about 8.0 MiB (estimate, with the replay's own 8 MiB)"
expect_status 64 "$HSCTL" -d "$DB" replay $TINY --policy opt --size 3 --memory 8M
expect_eq "$ERR" "hsctl: --memory 8.0 MiB: opt at size 3 alone needs about 8.0 MiB (estimate, with the replay's own 8 MiB and the next uses)"
for bad in 0 1.5X G . 1..5M -1 ''; do
	expect_status 64 "$HSCTL" -d "$DB" replay $TINY --policy lru --size 3 --memory "$bad"
	expect_grep "^hsctl replay: --memory '$bad': expected a size such as 512M or 1.5G$" "$ERR"
done
expect_eq "$("$HSCTL" -d "$DB" --format csv sql 'SELECT count(*) AS n FROM runs' | tail -n 1)" 28

# 16 MiB available: below 512 MiB, half of it, 8 MiB, all the replay's own:
# under the default budget a run that does not fit alone is a warning, and
# each replays in a wave of its own with the same counts (LRU 4 hits, FIFO 2).
meminfo 16384
expect_status 0 "$HSCTL" -d "$DB" --format csv replay $TINY --policy lru,fifo --size 3 --no-store
expect_eq "$ERR" "hsctl: warning: 2 runs do not fit alone in the 8.0 MiB available (MemAvailable 16.0 MiB less a margin; see --memory), the first lru at size 3: each replays in a wave of its own
hsctl: note: replay: 2 runs in 2 waves within 8.0 MiB (available memory less a margin), largest about 8.0 MiB: one pass over the stream each"
expect_grep '^,2,fifo,{},3,10,2,8,' "$OUT"
expect_grep '^,2,lru,{},3,10,4,6,' "$OUT"

# A Ctrl-C between the two waves (raised by the replay itself after wave 1,
# for tests only): the lru run of wave 1 (equal estimates go in the order
# given) is printed and stored, the fifo run of wave 2 is dropped, and the
# status is SIGINT's.
expect_status 130 env HSCTL_TEST_RAISE_AFTER_WAVE=1 "$HSCTL" -d "$DB" --format csv \
	replay $TINY --policy lru,fifo --size 3
expect_grep '^hsctl: replay interrupted by SIGINT in wave 2 of 2 after 0 of 10 records (0.0%): kept the 1 run of the finished waves, dropped the other 1$' "$ERR"
expect_grep '^[0-9]*,2,lru,{},3,10,4,6,' "$OUT"
expect_no_grep 'fifo' "$OUT"
expect_eq "$("$HSCTL" -d "$DB" --format csv sql \
	'SELECT group_concat(policy) AS p FROM runs WHERE session = 2' | tail -n 1)" lru
finish
