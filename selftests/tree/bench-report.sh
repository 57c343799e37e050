#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's table generator (scripts/bench/bench-table.py) on a fixed sample
# run (selftests/tree/bench-sample/sample.tsv), as KTAP, so that it cannot rot between
# the rare full bench runs: the text table is exactly
# selftests/tree/bench-sample/sample.txt (the ratios within the run included); the CSV
# and JSON carry the same rows and ratios; the PNG is a real image of a
# sensible size; a malformed results line is refused; the CPU cost rows'
# sampler (scripts/bench/cpu-window.sh) measures a busy process of the run
# and nothing outside it.  No guests: make
# check runs it with the other host-side tests.  Runs inside the toolroot
# (python3-matplotlib).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=$top/out/bench-report-test
rm -rf "$out"
mkdir -p "$out"
sample=selftests/tree/bench-sample/sample.tsv

. "$top/selftests/lib/host/ktap-result.sh"

echo "TAP version 13"
echo "1..9"
python3 scripts/bench/bench-table.py "$sample" --out "$out" >"$out/stdout" 2>"$out/stderr"
rc=$?
cat "$out/stdout" "$out/stderr" >"$out/run.log"
result $rc "bench-table.py renders the sample run" "$out/run.log"

diff -u selftests/tree/bench-sample/sample.txt "$out/bench.txt" >"$out/diff.log" 2>&1 &&
	grep -qxFf selftests/tree/bench-sample/sample.txt "$out/stdout"
result $? "text table is the expected one, also on stdout" "$out/diff.log"

python3 - "$out" >"$out/data.log" 2>&1 <<'EOF'
import csv, json, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(out + "/bench.csv")))
doc = json.load(open(out + "/bench.json"))
assert len(rows) == len(doc["rows"]) == 27, (len(rows), len(doc["rows"]))
def get(group, pairing, variant, metric):
    r = [d for d in doc["rows"] if (d["group"], d["pairing"], d["variant"],
                                   d["metric"]) == (group, pairing, variant,
                                                    metric)]
    assert len(r) == 1, (group, pairing, variant, metric, r)
    return r[0]
r = get("nvmeof", "orca-orca", "MTU 1500", "4k rand read")
assert abs(r["ratio_value"] - 2.0) < 1e-9 and r["ratio"] == "2.00x rxe-rxe"
assert abs(r["ratio2_value"] - 2000 / 65000) < 1e-9
r = get("nvmeof", "rxe-orca", "MTU 9000", "4k rand read")
assert r["value"] is None and r["ratio_value"] is None
assert r["note"].startswith("skipped:")
r = get("native", "-", "2 engines, orca-wire", "64 KiB WRITE")
assert abs(r["ratio2_value"] - 0.1) < 1e-9, r
# The host's CRC rate is a limit like memcpy's, not a share of it; the
# engines' CPU per GiB is measured against two engines' floor.
r = get("native", "-", "this host, 1 core", "CRC-32 4 KiB")
assert r["ratio2_value"] is None, r
r = get("native", "-", "2 engines, orca-wire", "engine CPU per GiB written")
assert abs(r["ratio2_value"] - 4.0) < 1e-9, r
assert r["ratio2"] == "4.0x 2 engines' floor", r
r = get("64k-qps", "-", "4 of 65536 QPs busy", "64 B WRITE depth 1")
assert abs(r["ratio_value"] - 0.94) < 1e-9 and "meets" in r["ratio"], r
# Latency: lower is better, so the ratio is rxe's over orca's.
r = get("perftest", "orca-orca", "MTU 1024", "ib_send_lat 64 B")
assert abs(r["ratio_value"] - 2.0) < 1e-9, r
r = get("mpi", "orca-orca", "UCX rc_verbs", "ping-pong 8 B latency")
assert abs(r["ratio_value"] - 2.0) < 1e-9, r
# CPU per GiB: a cost, lower is better too.
r = get("cpu", "orca-orca", "MTU 1024", "host CPU per GiB written")
assert abs(r["ratio_value"] - 50.0) < 1e-9 and r["ratio"] == "50.00x rxe-rxe", r
c = [x for x in rows if x["group"] == "perftest" and x["pairing"] == "orca-rxe"]
assert c[0]["value"] == "" and c[0]["note"].startswith("failed:"), c
print("csv and json agree")
EOF
result $? "CSV and JSON: same rows, ratios against rxe (MPI, CPU cost too), ceiling, memcpy, engines' floor, 1 QP" "$out/data.log"

python3 - "$out/bench.png" >"$out/png.log" 2>&1 <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
assert data[12:16] == b"IHDR"
w, h = struct.unpack(">II", data[16:24])
print("PNG %dx%d, %d bytes" % (w, h, len(data)))
assert 800 <= w <= 4000 and 400 <= h <= 8000, (w, h)
import matplotlib.image
img = matplotlib.image.imread(sys.argv[1])
assert img.shape[0] == h and img.shape[1] == w
# Not blank: the bars and their labels made more than a few colours.
assert len({tuple(p) for p in img.reshape(-1, img.shape[2])[::97]}) > 8
EOF
result $? "bench.png is a drawn PNG image" "$out/png.log"

printf 'nvmeof\torca-orca\tMTU 1500\n' >"$out/bad.tsv"
python3 scripts/bench/bench-table.py "$out/bad.tsv" --out "$out/bad" --no-png \
	>"$out/bad.log" 2>&1
[ $? != 0 ] && grep -q 'line 1: 3 fields' "$out/bad.log"
result $? "a malformed results line is refused, with its line number" "$out/bad.log"

# make bench feeds the generator: bench.sh writes the results file the
# generator reads and calls it (a rename on either side breaks this).
grep -q 'scripts/bench/bench-table.py "\$results"' scripts/bench/bench.sh &&
	grep -q "printf '%s\\\\t%s\\\\t%s\\\\t%s\\\\t%s\\\\t%s\\\\t%s\\\\n'" scripts/bench/bench.sh
result $? "scripts/bench/bench.sh writes results and calls the generator"

# The retransmission rows: bench.sh sums the emulators' exit counters with
# the parser of make check's loss-free wire check (whose guest tests fail
# if the exit line changes under it), so neither can go stale alone.  Two
# adapters and one without RoCE traffic; the last exit line counts.
run=$out/run
mkdir -p "$run/g0" "$run/g1" "$run/g2"
roce_line() {
	echo "2026-12-03 15:37:37.276 orca-emu: engine: roce: tx $1 rx 5 loopback 0 retransmits $2 (after RNR NAKs 1) timeouts $3 early $4 (rtt samples 9) send windows cut 0 rx queue full 0"
}
{ roce_line 1 1 1 1; roce_line 1000 7 1 2; } >"$run/g0/emu.log"
roce_line 500 3 0 4 >"$run/g1/emu.log"
echo "2026-12-03 15:37:37.276 orca-emu: exit" >"$run/g2/emu.log"
python3 selftests/lib/host/wire_lossfree.py "$run" --totals >"$out/totals.log" 2>&1 &&
	[ "$(cat "$out/totals.log")" = "2 1500 10 6 1" ] &&
	grep -q '^	local lossfree=$top/selftests/lib/host/wire_lossfree.py ' scripts/bench/bench.sh &&
	grep -q 'python3 "$lossfree" "$3/run" --totals' scripts/bench/bench.sh
result $? "scripts/bench/bench.sh counts retransmissions with wire_lossfree.py --totals" "$out/totals.log"

# The CPU cost rows: scripts/bench/cpu-window.sh reads the CPU time of the
# run's own processes between the guest's two marks.  A busy shell named
# orca-wire inside the run directory burns about a second between them; a
# sleeping one named qemu-system-x86 outside it must not count.
cw=$out/cpu
mkdir -p "$cw/run/bin" "$cw/other"
cp /bin/bash "$cw/run/bin/orca-wire"
cp /bin/sleep "$cw/other/qemu-system-x86_64"
"$cw/run/bin/orca-wire" -c 'while :; do :; done' &
busy=$!
"$cw/other/qemu-system-x86_64" 30 &
idle=$!
scripts/bench/cpu-window.sh "$cw/run" "$cw/cpu.txt" 20 &
sampler=$!
sleep 0.5
touch "$cw/run/cpu-mark-start"
sleep 1.5
touch "$cw/run/cpu-mark-end"
wait "$sampler"
kill "$busy" "$idle" 2>/dev/null
wait "$busy" "$idle" 2>/dev/null
{
	cat "$cw/cpu.txt"
	awk '$2 == "kind=orca-wire" { split($3, s, "="); split($4, p, "=")
		ok = s[2] > 0.2 && s[2] <= 1.8 && p[2] == 1 }
	     $2 == "kind=qemu" { split($3, s, "="); split($4, p, "=")
		q = s[2] == 0 && p[2] == 0 }
	     END { exit !(ok && q) }' "$cw/cpu.txt" && echo "window ok"
} >"$cw/check.log" 2>&1
grep -q '^window ok' "$cw/check.log"
result $? "cpu-window.sh: the run's own processes' CPU time between the marks" "$cw/check.log"

scripts/bench/cpu-window.sh "$cw/none" "$cw/none.txt" 1 >"$cw/none.log" 2>&1
[ "$(cat "$cw/none.txt")" = "cpu-window none" ]
result $? "cpu-window.sh: no marks, no figure" "$cw/none.txt"

[ "$failed" = 0 ]
