#!/usr/bin/env bash
# make cost in its quick form (scripts/cost.sh --quick), so that it cannot
# rot: every row of the table is there with a positive, sane instruction
# count whose layers add up to it, and the system and allocator calls on the
# measured paths are exactly the ones the table reports: none, except the
# copy SEND from ordinary memory, whose checked copy (core/sock/ucopy.c)
# costs exactly getpid + process_vm_readv per request. The TCP rows
# (tests/progs/cost_tcp: SEND_ZC and zcrx receive over a bnxt pair with LSO
# and TPA on) make no system or allocator call either.
# With SAN=1 the counts are skipped (valgrind does not run ASan builds, and
# the counts are the plain build's); the workloads of tests/progs/cost_ops and cost_tcp
# still run natively, under ASan and UBSan. Prints TAP lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
n=0
fails=0

tap() { # $1: ok | "not ok", $2: what
	n=$((n + 1))
	echo "$1 $n - $2"
	[ "$1" = ok ] || fails=$((fails + 1))
}

if [ "${SAN:-0}" = 1 ]; then
	echo "# SAN=1: the counts are skipped (valgrind runs the plain build only)"
	for run in "ops nop" "ops msgring" "ops send_zc" "ops send" "ops send_user" \
		"tcp send_zc" "tcp zcrx"; do
		set -- $run
		if out=$(timeout 120 "$BUILD/tests/cost_$1" $2 4 2>&1) &&
			grep -q "^cost_$1: $2: 4 rounds, 128 " <<<"$out"; then
			tap ok "cost_$1 $2 runs clean under ASan/UBSan"
		else
			tail -n 20 <<<"$out" | sed 's/^/# /'
			tap "not ok" "cost_$1 $2 under ASan/UBSan"
		fi
	done
	[ "$fails" -eq 0 ]
	exit
fi

tmp=$(mktemp -d /tmp/zn-cost-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s)
if BUILD=$BUILD OUT=$tmp timeout 300 scripts/cost.sh --quick >"$tmp/out" 2>&1; then
	tap ok "scripts/cost.sh --quick ran ($(($(date +%s) - start)) s)"
else
	tap "not ok" "scripts/cost.sh --quick failed"
fi
sed 's/^/# /' "$tmp/out"

# One TAP line per row: "ok|not ok<TAB>what", from the JSON.
python3 - "$tmp/cost.json" >"$tmp/checks" <<'EOF' || tap "not ok" "build/bench/cost.json does not parse"
import json
import sys

rows = {r["id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
want = ["driver_whole", "driver_split", "driver_mlx5_whole", "driver_mlx5_split", "send_zc", "send", "send_user", "msg_ring", "nop",
        "zcrx", "tcp_send_zc", "tcp_zcrx"]
# exact system calls per op on the measured paths (clock reads apart)
sys_per_op = {"send_user": 2}
for rid in want:
    r = rows.get(rid)
    if not r:
        print("not ok\trow %s missing" % rid)
        continue
    ins, ops = r["instructions"], r["ops"]
    layers = sum(r["layers"].values())
    sane = 0 < ins < 100000 and ops > 0 and abs(layers - ins) <= 0.5
    print("%s\t%s: %.1f instructions per %s over %d ops (layers add up to %.1f)" %
          ("ok" if sane else "not ok", rid, ins, r["per"], ops, layers))
    want_sys = sys_per_op.get(rid, 0) * ops
    exact = r["sys"] == want_sys and r["alloc"] == 0
    print("%s\t%s: %d system calls (want %d), %d allocator calls (want 0)%s" %
          ("ok" if exact else "not ok", rid, r["sys"], want_sys, r["alloc"],
           "".join("; %d: %s" % (v, k) for k, v in r.get("where", {}).items())))
EOF
while IFS=$'\t' read -r st what; do
	tap "$st" "$what"
done <"$tmp/checks"

[ "$n" -gt 1 ] && [ "$fails" -eq 0 ]
