#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl report and hsctl mrc --format svg end to end: the miss-ratio chart of
# a ten-access trace with its line positions worked out by hand, the outcome
# table, an imported session with the MGLRU family, a recorded session built
# offline with SQL (the kernel's row, the lives chart, the lru_gen chart,
# the self-checks), every SVG parsed as XML, a page with nothing to fetch and
# no script, equal reports for equal input, and bad input with its exit
# status.  tests/cli/report-render.sh draws the page in a real browser.
. "$TESTS_SRCDIR/cli/setup.sh"

command -v python3 >/dev/null 2>&1 || skip "no python3 to parse the SVG"

# svg_ok FILE...: each file is one well-formed XML document with an <svg> root.
svg_ok() {
	if python3 - "$@" <<'EOF'
import sys, xml.etree.ElementTree as ET
for f in sys.argv[1:]:
    root = ET.parse(f).getroot()
    if root.tag != '{http://www.w3.org/2000/svg}svg':
        sys.exit(f + ': root is ' + root.tag)
EOF
	then t_ok; else t_bad "not well-formed SVG: $*"; fi
}

# inline_svg_ok FILE N: every <svg>...</svg> inside the HTML page parses (the
# charts, and the line samples beside policy names in the tables), and N of
# them are charts (standalone documents, with the SVG namespace).
inline_svg_ok() {
	n=$(python3 - "$1" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
page = open(sys.argv[1], encoding='utf-8').read()
svgs = re.findall(r'<svg .*?</svg>', page, re.S)
for s in svgs:
    ET.fromstring(s)
print(sum(1 for s in svgs if s.startswith('<svg xmlns="http://www.w3.org/2000/svg"')))
EOF
) || n=error
	expect_eq "$n" "$2"
}

# Keys 1 2 3 1 2 4 1 2 3 4 (tests/cli/mrc.sh has the curves by hand):
# LRU hits 0 0 4 6 6 and OPT hits 0 3 5 6 6 at sizes 1..5, so misses in % of
# the 10 accesses are LRU 100 100 60 40 40 and OPT 100 70 50 40 40.
printf '1\n2\n3\n1\n2\n4\n1\n2\n3\n4\n' >tiny.txt
expect_status 0 "$HSCTL" -d "$DB" import --type text --name 'tiny <&>' tiny.txt

# The chart, 760 x 420: plot area x 78 .. 570, y 40 .. 362.  Sizes 1..5 are
# linear (less than a factor of 20): x = 78 + (size - 1) * 123.  y from 0 to
# 100 %: y = 362 - 3.22 * percent: 100 -> 40.0, 70 -> 136.6, 60 -> 168.8,
# 50 -> 201.0, 40 -> 233.2.
LRU_LINE='points="78.0,40.0 201.0,40.0 324.0,168.8 447.0,233.2 570.0,233.2" fill="none" stroke="#0072B2" stroke-width="2.0"'
OPT_LINE='points="78.0,40.0 201.0,136.6 324.0,201.0 447.0,233.2 570.0,233.2" fill="none" stroke="#000000" stroke-width="2.5"'

expect_status 0 "$HSCTL" -d "$DB" mrc 1 --policy lru,opt --sizes 1..5 --format svg --no-store
printf '%s\n' "$OUT" >mrc.svg
svg_ok mrc.svg
expect_grep "$LRU_LINE" "$OUT"
expect_grep "$OPT_LINE" "$OUT"
expect_grep '<title>Miss-ratio curves, session 1 (tiny &lt;&amp;&gt;)</title>' "$OUT"
expect_grep '>cache size (objects)</text>' "$OUT"
expect_grep '>miss ratio (%)</text>' "$OUT"
expect_status 0 "$HSCTL" -d "$DB" sql 'SELECT count(*) FROM mrc_curves'
expect_grep '^ *0$' "$OUT"
expect_status 64 "$HSCTL" -d "$DB" mrc 1 --format yaml
expect_eq "$ERR" "hsctl: unknown format 'yaml' (valid: table, csv, json, svg)"
expect_status 64 "$HSCTL" -d "$DB" sessions --format svg
expect_eq "$ERR" "hsctl: unknown format 'svg' (valid: table, csv, json)"

# The report of the same session: the same lines, the outcome at size 3 (LRU
# 6 misses, OPT 5, ARC replayed), and the files of --svg-dir.
expect_status 0 "$HSCTL" -d "$DB" report 1 --policy lru,opt,arc --sizes 1..5 --at 3 \
	-o tiny.html --svg-dir charts
expect_eq "$OUT" ""
PAGE=$(cat tiny.html)
expect_grep "$LRU_LINE" "$PAGE"
expect_grep "$OPT_LINE" "$PAGE"
expect_grep '<h1>Session 1: tiny &lt;&amp;&gt;</h1>' "$PAGE"
expect_grep '<h2>Outcome at 3 objects</h2>' "$PAGE"
expect_grep '</svg> lru</td><td class="n">6</td><td class="n">60.00 %</td>' "$PAGE"
expect_grep '</svg> opt</td><td class="n">5</td><td class="n">50.00 %</td>' "$PAGE"
expect_grep '<td class="n">1.200&times;</td>' "$PAGE"
expect_grep 'The curves of lru and opt are exact at every size' "$PAGE"
expect_grep '<td>a T2 page that plain LRU would have evicted first' "$PAGE"
expect_grep '<td>none: LRU spares nothing</td>' "$PAGE"
expect_no_grep '<script' "$PAGE"
expect_no_grep ' src=\| href=\|url(' "$PAGE"
expect_eq "$(ls charts | tr '\n' ' ')" "mrc.svg refault-distance.svg "
svg_ok charts/*.svg
inline_svg_ok tiny.html 2
expect_status 0 cmp charts/mrc.svg "$T_DIR/charts/mrc.svg"
# Standard output by default; the same bytes as -o.
expect_status 0 "$HSCTL" -d "$DB" report 1 --policy lru,opt,arc --sizes 1..5 --at 3
printf '%s\n' "$OUT" >again.html
expect_status 0 cmp tiny.html again.html

# An imported trace with the MGLRU family: generations and shields.
expect_status 0 "$HSCTL" -d "$DB" import --type lirs --name demo "$TESTDATA/demo.trace"
expect_status 0 "$HSCTL" -d "$DB" report 2 --policy lru,opt,mglru,hitshield,clock \
	--sizes 50..500:6 -o demo.html --svg-dir demo
PAGE=$(cat demo.html)
expect_grep '<h2>MGLRU generations</h2>' "$PAGE"
expect_grep '<th>shields set</th>' "$PAGE"
expect_grep 'detail size (' "$PAGE"
expect_eq "$(ls demo | tr '\n' ' ')" \
	"generations-live.svg generations.svg mrc.svg refault-distance.svg "
svg_ok demo/*.svg
inline_svg_ok demo.html 4

# A recorded session made offline: a generated stream, then the recorder's
# tables written by hand.  Lives: 0 reclaimed, 1 its refault (alive), 2 two
# pages truncated, never accessed, 3 born before the recording, reclaimed.
# Born in the recording: 1 + 1 + 2 = 4 pages, accessed 2; evictions (reclaim
# or pageout deaths) 2; refaults 1; pswpin / pswpout 7 / 9 from the cgroup
# (the machine's 100 is not used when the cgroup has them).
expect_status 0 "$HSCTL" -d "$DB" gen loop --keys 8 --accesses 80
expect_status 0 "$HSCTL" -d "$DB" sql --write "
UPDATE sessions SET source = 'record' WHERE id = 3;
INSERT INTO recordings (session, pid, workload, kernel, lru_gen, memory_limit_pages,
	runtime_ns, lost_events, lost_gaps, events_decoded, workload_exit, peak_pages)
	VALUES (3, 1, 'loop', '6.12.0-test', '0x0007', 3, 2000000000, 5, 1, 1234, 0, 3);
INSERT INTO folio_lives (session, life, kind, first_page, pages, born_ns, died_ns,
	death_cause, refault, flags, accesses, activations) VALUES
	(3, 0, 0, 0, 1, 1000, 2000, 1, 0, 0, 2, 0),
	(3, 1, 0, 0, 1, 3000, NULL, 0, 1, 0, 1, 0),
	(3, 2, 0, 4, 2, 1500, 2500, 3, 0, 0, 0, 0),
	(3, 3, 0, 9, 1, NULL, 500, 1, 0, 2, 0, 0);
INSERT INTO record_checks VALUES (3, 'lost', 'differs', 5, 0, 'a note with <markup>');
INSERT INTO record_counters VALUES (3, 'memory.stat', 'cgroup', 'pswpin', 0, 7, 7),
	(3, 'memory.stat', 'cgroup', 'pswpout', 1, 10, 9),
	(3, 'vmstat', 'machine', 'pswpin', 0, 100, 100);
INSERT INTO lru_gen_snapshots VALUES
	(3, 1000000000, 1, '/wl', 0, 0, 4, 10, 10, 5),
	(3, 1000000000, 1, '/wl', 0, 1, 5, 5, 3, 3),
	(3, 1000000000, 1, '/wl', 0, 2, 6, 1, 1, 1),
	(3, 1000000000, 2, '/', 0, 1, 1, 1, 1, 0),
	(3, 2000000000, 1, '/wl', 0, 1, 5, 10, 8, 2),
	(3, 2000000000, 1, '/wl', 0, 2, 6, 5, 4, 4),
	(3, 2000000000, 1, '/wl', 0, 3, 7, 1, 2, 2);"
expect_status 0 "$HSCTL" -d "$DB" report 3 --policy lru,opt,mglru -o rec.html --svg-dir rec
PAGE=$(cat rec.html)
expect_grep '<h2>Outcome at 3 pages</h2>' "$PAGE"
expect_grep 'the recorded memory limit' "$PAGE"
expect_grep '<tr><th>kernel</th><td>6.12.0-test (lru_gen 0x0007)</td></tr>' "$PAGE"
expect_grep '<tr><th>lost events</th><td>5 (in 1 gaps)</td></tr>' "$PAGE"
expect_grep '<td>a note with &lt;markup&gt;</td>' "$PAGE"
expect_grep '<td class="n">4 pages born<br>2 of them accessed</td><td></td><td class="n">2</td><td class="n">1</td><td class="n">7</td><td class="n">9</td>' "$PAGE"
expect_grep "cgroup's memory.stat" "$PAGE"
# LRU on a loop of 8 keys at 3 pages misses every access.
expect_grep '</svg> lru</td><td class="n">80</td><td class="n">100.00 %</td>' "$PAGE"
expect_grep '>recorded limit (3)</text>' "$PAGE"
expect_eq "$(ls rec | tr '\n' ' ')" \
	"generations-live.svg generations.svg lives.svg lru-gen.svg mrc.svg refault-distance.svg "
svg_ok rec/*.svg
inline_svg_ok rec.html 6
# The kernel's generations of the busiest memcg (/wl), at 0 and 1 s: max_seq
# 6, 7 and oldest 4, 5; y from 0 to 8 (7 and a step of headroom): y = 362 -
# 40.25 * seq.
expect_grep 'points="78.0,120.5 570.0,80.3"' "$(cat rec/lru-gen.svg)"
expect_grep 'points="78.0,201.0 570.0,160.8"' "$(cat rec/lru-gen.svg)"

# Bad input: one line and the documented status; nothing written.
expect_status 66 "$HSCTL" -d "$DB" report 9 -o none.html
expect_eq "$ERR" "hsctl: no session 9 in $DB (see 'hsctl sessions')"
[ ! -e none.html ] && t_ok || t_bad "a report of a missing session created its file"
expect_status 64 "$HSCTL" -d "$DB" report x
expect_eq "$ERR" "hsctl: 'x' is not a session id (see 'hsctl sessions')"
expect_status 66 "$HSCTL" -d "$T_DIR/missing.db" report 1
expect_status 1 "$HSCTL" -d "$DB" report 1 -o "$T_DIR/no/such/dir/r.html"
expect_eq "$ERR" "hsctl: $T_DIR/no/such/dir/r.html: No such file or directory"
expect_status 1 "$HSCTL" -d "$DB" report 1 --svg-dir tiny.txt/x
expect_grep 'tiny.txt/x: Not a directory' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" report 1 --at 2..3
expect_eq "$ERR" "hsctl: --at '2..3': expected one size"
expect_status 64 "$HSCTL" -d "$DB" report 1 --policy nope
expect_grep "unknown policy 'nope'" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" report 1 --sizes 1..2000 --policy arc,clock
expect_grep 'more than 1024' "$ERR"
if [ "$(id -u)" -ne 0 ]; then
	mkdir ro && chmod 555 ro
	expect_status 69 "$HSCTL" -d "$DB" report 1 -o ro/r.html
	expect_grep 'Permission denied' "$ERR"
fi
# The database was only read.
expect_status 0 "$HSCTL" -d "$DB" sql 'SELECT count(*) FROM runs'
expect_grep '^ *0$' "$OUT"
finish
