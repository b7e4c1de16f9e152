#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl report in a real browser: headless Chromium (installed by .ci/run)
# draws the page of a generated session to a PNG, which is decoded here with
# python3's zlib alone and must not be blank: many colours, a good share of
# non-white pixels, and the exact colours of OPT (black) and LRU (#0072B2)
# from the charts.  Without a browser or python3 the test is skipped, saying
# which is missing; tests/cli/report.sh checks the page itself.
. "$TESTS_SRCDIR/cli/setup.sh"

command -v python3 >/dev/null 2>&1 || skip "no python3 to decode the PNG"
BROWSER=
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then
		BROWSER=$b
		break
	fi
done
[ -n "$BROWSER" ] || skip "no chromium (apt-get install chromium; .ci/run installs it)"

expect_status 0 "$HSCTL" -d "$DB" gen zipf --alpha 0.8 --keys 2000 --accesses 20000 --seed 3
expect_status 0 "$HSCTL" -d "$DB" report 1 --policy lru,opt,arc,clock,mglru \
	--sizes 1..100%:12 -o "$T_DIR/report.html"

# Nothing may leave the machine: no network, a private profile, no GPU.
st=0
timeout 180 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--hide-scrollbars --user-data-dir="$T_DIR/profile" --screenshot="$T_DIR/page.png" \
	--window-size=1000,2400 "file://$T_DIR/report.html" >browser.log 2>&1 || st=$?
if [ "$st" -ne 0 ] || [ ! -s page.png ]; then
	sed 's/^/    browser: /' browser.log | tail -n 5
	fail "$BROWSER exited $st without a screenshot"
fi

# width height colours nonwhite% black lru: from the PNG's own chunks.
STATS=$(python3 - page.png <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), 'unexpected PNG format %d/%d' % (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    if f == 1:
        for x in range(bpp, stride):
            line[x] = (line[x] + line[x - bpp]) & 255
    elif f == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif f == 3:
        for x in range(stride):
            left = line[x - bpp] if x >= bpp else 0
            line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
    elif f == 4:
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
colours, nonwhite, black, lru = set(), 0, 0, 0
for line in rows:
    for x in range(0, stride, bpp):
        px = line[x:x + 3]
        colours.add(px)
        if px != b'\xff\xff\xff':
            nonwhite += 1
        if px == b'\x00\x00\x00':
            black += 1
        elif px == b'\x00\x72\xb2':
            lru += 1
print(w, h, len(colours), 100 * nonwhite // (w * h), black, lru)
EOF
) || fail "cannot decode page.png"
echo "stats: $STATS"
set -- $STATS
expect_eq "$1x$2" "1000x2400"
[ "$3" -ge 50 ] && t_ok || t_bad "only $3 colours in the screenshot: blank?"
[ "$4" -ge 3 ] && t_ok || t_bad "only $4 % of the screenshot is not white: blank?"
[ "$5" -ge 100 ] && t_ok || t_bad "only $5 black pixels (OPT's line, the text)"
[ "$6" -ge 20 ] && t_ok || t_bad "only $6 pixels of LRU's #0072B2"
finish
