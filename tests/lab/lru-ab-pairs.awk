# SPDX-License-Identifier: GPL-2.0-or-later
#
# lru-ab.sh's comparison of arms, per workload: the kernel's difference between
# two arms (the mean of the second over the mean of the first), whether the two
# arms' ranges over their boots are apart or overlap (the run-to-run spread),
# and, for MGLRU on against off, the models' difference: mglru (profile p68)
# replaying the on-arm's recordings against linux-2q (p610) replaying the
# off-arm's, each model on the recordings of the kernel it models; for
# DAMON_LRU_SORT over an LRU, that LRU's model replaying the DAMON arm's
# recordings with the DAMON model (lru-ab.sh passes --damon-model recorded
# where the session recorded DAMON's actions, else --damon-deprio) against
# it replaying the plain arm's.  Input: lru-ab.sh's rows.csv (awk -F,):
#   arm,round,name,pswpin,pswpout,refaults,majfaults,demand,readahead,krefaults,
#   runtime_s,damon_hot_bytes,damon_cold_bytes,mglru_misses,mglru_refaults,
#   l2q_misses,l2q_refaults
function pct(b, a) {
	if (a == 0)
		return b == 0 ? "0 %" : "n/a"
	return sprintf("%+.1f %%", 100 * (b - a) / a)
}
function mean(k, i) { return c[k, i] ? s[k, i] / c[k, i] : 0 }
{
	k = $3 SUBSEP $1; n[k]++; W[$3] = 1
	for (i = 4; i <= 17; i++) if ($i != "") {
		c[k, i]++; s[k, i] += $i
		if (c[k, i] == 1 || $i + 0 < lo[k, i]) lo[k, i] = $i + 0
		if (c[k, i] == 1 || $i + 0 > hi[k, i]) hi[k, i] = $i + 0
	}
}
# cmp W A B I LABEL: one line, B against A on column I; 0 when either arm is missing
function cmp(w, a, b, i, label,   ka, kb, ma, mb, apart, f) {
	ka = w SUBSEP a; kb = w SUBSEP b
	if (!n[ka] || !n[kb] || !c[ka, i] || !c[kb, i])
		return 0
	ma = mean(ka, i); mb = mean(kb, i)
	if (ma == 0 && mb == 0)
		return 0
	apart = (lo[kb, i] > hi[ka, i] || hi[kb, i] < lo[ka, i]) ? "ranges apart" : "ranges overlap"
	f = i == 11 ? "%.2f [%.2f..%.2f]" : "%.0f [%.0f..%.0f]"
	printf "  %-10s %s " f ", %s " f ": %s (%s)", label, b, mb, lo[kb, i], hi[kb, i],
		a, ma, lo[ka, i], hi[ka, i], pct(mb, ma), apart
	return 1
}
END {
	for (w in W) {
		if (n[w SUBSEP "classic"] && n[w SUBSEP "mglru"]) {
			print w ": MGLRU on (mglru) against off (classic)"
			if (cmp(w, "classic", "mglru", 8, "demand"))
				printf "; models %s\n", pct(mean(w SUBSEP "mglru", 14),
					mean(w SUBSEP "classic", 16))
			if (cmp(w, "classic", "mglru", 10, "refaults"))
				printf "; models %s\n", pct(mean(w SUBSEP "mglru", 15),
					mean(w SUBSEP "classic", 17))
			if (cmp(w, "classic", "mglru", 4, "pswpin"))
				printf "; models' refaults %s\n", pct(mean(w SUBSEP "mglru", 15),
					mean(w SUBSEP "classic", 17))
			if (cmp(w, "classic", "mglru", 11, "runtime_s"))
				printf "\n"
		}
		for (q = 1; q <= 2; q++) {
			a = q == 1 ? "classic" : "mglru"
			b = "damon-" a
			if (!n[w SUBSEP a] || !n[w SUBSEP b])
				continue
			mi = q == 1 ? 16 : 14	# that LRU's model: linux-2q, or mglru
			print w ": DAMON_LRU_SORT over " a " (" b ") against " a " alone"
			if (cmp(w, a, b, 8, "demand"))
				printf "; models %s\n", pct(mean(w SUBSEP b, mi), mean(w SUBSEP a, mi))
			if (cmp(w, a, b, 10, "refaults"))
				printf "; models %s\n", pct(mean(w SUBSEP b, mi + 1),
					mean(w SUBSEP a, mi + 1))
			if (cmp(w, a, b, 4, "pswpin"))
				printf "; models' refaults %s\n", pct(mean(w SUBSEP b, mi + 1),
					mean(w SUBSEP a, mi + 1))
			if (cmp(w, a, b, 11, "runtime_s")) printf "\n"
		}
	}
}
