#!/usr/bin/env bash
# zn-bench, kernel path and zcnic: a tiny run (--quick) of every suite exits
# 0 and writes CSV and JSON that parse, with the rows expected (zcnic rows
# included, UDP and TCP, and the zcnic/kernel ratio on every kernel row, TCP
# only ever against TCP); the veth pair
# and its two network namespaces, zn-bench's zn-nicsim and its zn-send /
# zn-recv children are gone afterwards, also when a suite fails, when
# zn-bench is interrupted with SIGINT mid-run or killed with SIGKILL.
# Prints TAP lines.
#
# zn-bench's namespaces are anonymous (held only by its fds), so "gone" is
# checked as: no process holds a reference (ns link or fd) to any of the
# namespaces it had, and no znb* interface or named namespace exists.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BENCH=$BUILD/bin/zn-bench
WAIT_STEPS=100   # x 0.1 s
n=0
fails=0
tmp=$(mktemp -d /tmp/zn-bench-test.XXXXXX)
bg=

cleanup() {
	[ -n "$bg" ] && kill -KILL "$bg" 2>/dev/null && wait "$bg" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tap() { # $1: ok | "not ok", $2: what
	n=$((n + 1))
	echo "$1 $n - $2"
	[ "$1" = ok ] || fails=$((fails + 1))
}
check() { # $1: what; the rest: a command
	local what=$1
	shift
	if "$@"; then tap ok "$what"; else tap "not ok" "$what"; fi
}

[ -x "$BENCH" ] || { echo "not ok 1 - $BENCH is not built"; exit 1; }

# The rows a suite must give, checked in the CSV and the JSON.
cat >"$tmp/check.py" <<'PY'
import csv, json, math, sys
out, suite = sys.argv[1], sys.argv[2]
SEND = ("nonzc", "zc", "zc-wait")
expect = {
    "send": {("send", m, "kernel", t, s, "rps") for m in SEND
             for t in ("loopback", "veth") for s in (600, 1500)} |
            {("send", m, "zcnic", "nicsim", s, "rps") for m in SEND for s in (600, 1500)} |
            # TCP: 4 KiB only, whatever --sizes says
            {("send-tcp", m, "kernel", t, 4096, "rps") for m in SEND
             for t in ("loopback", "veth")} |
            {("send-tcp", m, "zcnic", "nicsim", 4096, "rps") for m in SEND},
    # UDP: zcnic alone (the kernel has no UDP zcrx); TCP: zcnic's zcrx against the kernel's
    # and the same over 1 and 2 queues (zn-send/zn-recv --queues N)
    "recv": {("recv", m, "zcnic", "nicsim", 8000, "gbit_s")
             for m in ("zcrx", "zcrx-1q", "zcrx-2q")} |
            {("recv-tcp", m, "kernel", "loopback", 65536, "gbit_s")
             for m in ("epoll", "uring", "tcp-zc")} |
            {("recv-tcp", "zcrx", "zcnic", "nicsim", 65536, "gbit_s")},
    "msgring": {("msgring", "ping-pong", p, "none", 0, k) for p in ("kernel", "zcnic")
                for k in ("p50_ns", "p99_ns", "p99.9_ns")},
}[suite]
rows = list(csv.DictReader(open(out + "/zn-bench.csv")))
js = json.load(open(out + "/zn-bench.json"))["rows"]
got = {(r["group"], r["mode"], r["path"], r["transport"], int(r["size"]), r["metric"])
       for r in rows}
assert got == expect, f"csv rows {sorted(got)} != {sorted(expect)}"
assert len(js) == len(rows), "json and csv differ in rows"
for r, j in zip(rows, js):
    assert r["group"] in (suite, suite + "-tcp") and r["path"] in ("kernel", "zcnic"), r
    # zcnic runs over its own simulator: nothing there may be n/a
    assert r["path"] == "kernel" or r["status"] == "ok", f"zcnic row not measured: {r}"
    ratio = j["ratio_zcnic_kernel"]
    if r["path"] == "kernel" and r["status"] == "ok":
        assert ratio is not None and ratio > 0, f"kernel row without a ratio: {j}"
        # the ratio is zcnic's row of the same group (protocol) over this one
        z = [x for x in js if x["group"] == j["group"] and x["path"] == "zcnic" and
             x["metric"] == j["metric"] and (j["group"].startswith("recv") or
                                             (x["mode"], x["size"]) == (j["mode"], j["size"]))]
        assert len(z) == 1 and math.isclose(ratio, z[0]["median"] / j["median"], rel_tol=1e-3), \
            f"ratio not against zcnic's {j['group']} row: {j}"
    if r["path"] == "zcnic":
        assert ratio is None, j
    assert r["status"] in ("ok", "n/a"), f"row failed: {r}"
    assert j["status"] == r["status"] and j["mode"] == r["mode"], (r, j)
    if r["status"] == "ok":
        med, lo, hi = float(r["median"]), float(r["min"]), float(r["max"])
        assert med > 0 and lo <= med <= hi and math.isclose(j["median"], med, rel_tol=1e-5), r
        assert int(r["ops"]) > 0 and int(r["reps"]) == 1, r
        assert float(r["cpu_user_ns_per_op"]) + float(r["cpu_sys_ns_per_op"]) > 0, r
    else:
        assert j["median"] is None and r["note"], r
    if suite == "send" and r["status"] == "ok":
        if r["group"] == "send":	# TCP: the kernel's sink counts bytes, not requests
            assert 0 <= float(r["delivered"]) <= 1.0001, r
        if r["mode"] != "nonzc":
            assert 0 <= float(r["copied"]) <= 1, r
        if r["path"] == "zcnic" and r["mode"] != "nonzc":
            assert float(r["copied"]) == 0, f"zcnic SEND_ZC copied: {r}"
# the baseline of each suite must have been measured on this machine
bases = {"send": [("send", "nonzc"), ("send-tcp", "nonzc")], "recv": [("recv-tcp", "epoll")],
         "msgring": [("msgring", "ping-pong")]}[suite]
for g, base in bases:
    assert any(r["group"] == g and r["mode"] == base and r["path"] == "kernel" and
               r["status"] == "ok" for r in rows), f"{g} baseline not measured"
PY

# Network namespaces (inode numbers) that process $1 holds through fds, but our own.
ns_of() {
	local own
	own=$(readlink /proc/self/ns/net | tr -dc 0-9)
	ls -l /proc/"$1"/fd 2>/dev/null | sed -n 's/.*net:\[\([0-9]*\)\].*/\1/p' | sort -u |
		grep -vx "$own"
}
# 0 when no process anywhere still refers to namespace inode $1.
ns_gone() {
	local refs
	refs=$(ls -l /proc/[0-9]*/ns/net /proc/[0-9]*/fd 2>/dev/null)
	! grep -q "net:\[$1\]" <<<"$refs"
}
nothing_left() { # $@: namespace inodes zn-bench had
	local i
	ip -o link show 2>/dev/null | grep -q ' znb[0-9]' && return 1
	ip netns list 2>/dev/null | grep -q '^znb' && return 1
	for i in "$@"; do ns_gone "$i" || return 1; done
	return 0
}

# Run "$@" as the leader of a new session; its id (= pid) goes to file $1.
in_session() {
	local f=$1
	shift
	setsid bash -c 'echo $$ >"$0"; exec "$@"' "$f" "$@"
}
# 0 once no process of session $1 is left (children die with zn-bench: bounded wait).
session_gone() {
	local i
	for ((i = 0; i < WAIT_STEPS; i++)); do
		pgrep -s "$1" >/dev/null || return 0
		sleep 0.1
	done
	pgrep -a -s "$1" | sed 's/^/# left: /'
	return 1
}

"$BENCH" --help >"$tmp/help" 2>&1
check "--help exits 0 and names the options" \
	eval 'grep -q -- "--suites LIST" "$tmp/help" && grep -q -- "--cpu A,B" "$tmp/help"'
"$BENCH" --reps 0 >/dev/null 2>"$tmp/usage"
rc=$?
check "a bad option: exit 2, one line" \
	eval '[ $rc -eq 2 ] && [ "$(cat "$tmp/usage")" = "zn-bench: --reps 0: expected 1-100" ]'

for suite in send recv msgring; do
	in_session "$tmp/sid" "$BENCH" --quick --suites "$suite" --out "$tmp/$suite" \
		>"$tmp/$suite.out" 2>"$tmp/$suite.err"
	rc=$?
	check "--quick --suites $suite exits 0" [ $rc -eq 0 ]
	check "$suite: no zn-nicsim, zn-send or zn-recv left" session_gone "$(cat "$tmp/sid")"
	[ $rc -eq 0 ] || { sed 's/^/    /' "$tmp/$suite.err" | tail -n 20; }
	if python3 "$tmp/check.py" "$tmp/$suite" "$suite" 2>"$tmp/$suite.py"; then
		tap ok "$suite: CSV and JSON parse, with the expected rows"
	else
		tap "not ok" "$suite: CSV and JSON parse, with the expected rows"
		sed 's/^/    /' "$tmp/$suite.py" | tail -n 5
	fi
	check "$suite: no progress line when stderr is not a terminal" \
		eval '! grep -q $'"'"'\r'"'"' "$tmp/$suite.err"'
done
check "send: the table has its columns and a row per size and transport" \
	eval 'grep -q "non-zero-copy  zero-copy      zc-wait        zcnic/kernel" "$tmp/send.out" &&
	      grep -Eq "^ +1500  kernel veth " "$tmp/send.out"'
if command -v gnuplot >/dev/null; then
	check "send: the plot is an SVG" grep -q "<svg" "$tmp/send/zn-bench-send.svg"
else
	check "send: without gnuplot one line says the plot is skipped" \
		grep -q "plot: skipped" "$tmp/send.out"
fi
check "send: zcnic rows beside the kernel ones, with ratios" \
	eval 'grep -Eq "^ +600  zcnic  nicsim " "$tmp/send.out" &&
	      grep -Eq "^ +1500  kernel loopback .* [0-9.]+/[0-9.]+/[0-9.]+ " "$tmp/send.out"'
check "send: a TCP table at 4 KiB, zcnic beside the kernel" \
	eval 'grep -q "^TCP send: requests/s" "$tmp/send.out" &&
	      grep -Eq "^ +4096  zcnic  nicsim " "$tmp/send.out" &&
	      grep -Eq "^ +4096  kernel veth .* [0-9.]+/[0-9.]+/[0-9.]+ " "$tmp/send.out"'
check "recv and msgring: zcnic rows and ratios" \
	eval 'grep -q "^zcrx     zcnic  nicsim" "$tmp/recv.out" &&
	      grep -q "^TCP receive:" "$tmp/recv.out" &&
	      grep -Eq "^epoll +kernel loopback +65536 .* [0-9.]+$" "$tmp/recv.out" &&
	      grep -Eq "^ping-pong  kernel .* [0-9.]+/[0-9.]+/[0-9.]+$" "$tmp/msgring.out"'
check "recv: 1 and 2 queues, and the scaling between them" \
	eval 'grep -q "^zcrx-1q  zcnic  nicsim" "$tmp/recv.out" &&
	      grep -q "^zcrx-2q  zcnic  nicsim" "$tmp/recv.out" &&
	      grep -Eq "one flow each\): [0-9.]+x the Gbit/s" "$tmp/recv.out"'
check "after the runs: no znb* interface or namespace" nothing_left

# A suite that fails (zn-nicsim cannot start): exit 1, rows say so, nothing left.
ZN_NICSIM=/bin/false in_session "$tmp/sid" "$BENCH" --quick --suites send --sizes 600 \
	--transports veth,nicsim >"$tmp/fail.out" 2>"$tmp/fail.err"
rc=$?
check "zcnic suite failing (no simulator): exit 1, its rows failed, the veth rows measured" \
	eval '[ $rc -eq 1 ] && grep -q "note: send nonzc zcnic nicsim 600: zn-nicsim did not start" "$tmp/fail.out" &&
	      grep -Eq "^ +600  kernel veth +[0-9]" "$tmp/fail.out"'
check "failed suite: no process, znb* interface or namespace left" \
	eval 'session_gone "$(cat "$tmp/sid")" && nothing_left'

# Interrupted mid-run: started, its veth namespaces seen, then a signal.
interrupt() { # $1: signal, $2: expected exit code ("" for any)
	local sig=$1 want=$2 ns=() i rc
	"$BENCH" --suites send --transports veth --duration-ms 300 --reps 5 \
		>"$tmp/int.out" 2>"$tmp/int.err" &
	bg=$!
	for ((i = 0; i < WAIT_STEPS; i++)); do
		mapfile -t ns < <(ns_of "$bg")
		[ ${#ns[@]} -ge 2 ] && break
		sleep 0.1
	done
	echo "# zn-bench $bg holds namespaces ${ns[*]}"
	check "SIG$sig: zn-bench made its two namespaces" [ ${#ns[@]} -ge 2 ]
	# the check below must be able to fail: while it runs, its namespaces are seen
	check "SIG$sig: while running, its namespaces are seen as present" \
		eval '[ ${#ns[@]} -ge 2 ] && ! nothing_left "${ns[@]}"'
	sleep 0.3
	kill -"$sig" "$bg"
	wait "$bg" 2>/dev/null
	rc=$?
	bg=
	[ -n "$want" ] && check "SIG$sig: exit $want" [ $rc -eq "$want" ]
	# the kernel frees a namespace shortly after its last reference goes
	for ((i = 0; i < WAIT_STEPS; i++)); do
		nothing_left "${ns[@]}" && break
		sleep 0.1
	done
	check "SIG$sig mid-run: no namespace, veth or znb* name left" nothing_left "${ns[@]}"
}
interrupt INT 130
check "SIGINT: it says so in one line" grep -q "zn-bench: interrupted" "$tmp/int.err"
interrupt KILL ""

# Interrupted while zcnic runs: its zn-nicsim and children go, and the socket directory.
interrupt_zcnic() { # $1: signal, $2: expected exit code ("" for any)
	local sig=$1 want=$2 sid sim= dir= kid= i rc
	in_session "$tmp/sid" "$BENCH" --suites send --transports nicsim --duration-ms 300 \
		--reps 5 >"$tmp/zint.out" 2>"$tmp/zint.err" &
	bg=$!
	for ((i = 0; i < WAIT_STEPS; i++)); do
		sid=$(cat "$tmp/sid" 2>/dev/null)
		if [ -n "$sid" ]; then
			sim=$(pgrep -s "$sid" -x zn-nicsim | head -n 1)
			kid=$(pgrep -s "$sid" -x zn-send | head -n 1)
		fi
		[ -n "$sim" ] && [ -n "$kid" ] && break
		sleep 0.1
	done
	[ -n "$sim" ] && dir=$(tr '\0' '\n' </proc/"$sim"/cmdline | sed -n '/^--dir$/{n;p}')
	echo "# zn-bench session $sid: zn-nicsim $sim in $dir, zn-send $kid"
	check "SIG$sig (zcnic): zn-bench runs zn-nicsim and zn-send" \
		eval '[ -n "$sim" ] && [ -n "$kid" ] && [ -S "$dir/bnxt0.sock" ]'
	kill -"$sig" "$sid"
	wait "$bg" 2>/dev/null
	rc=$?
	bg=
	[ -n "$want" ] && check "SIG$sig (zcnic): exit $want" [ $rc -eq "$want" ]
	check "SIG$sig (zcnic): no zn-nicsim, zn-send or zn-recv left" session_gone "$sid"
	for ((i = 0; i < WAIT_STEPS; i++)); do
		[ -e "$dir/bnxt0.sock" ] || [ -e "$dir/bnxt1.sock" ] || break
		sleep 0.1
	done
	if [ "$sig" = KILL ]; then
		# nobody is left to remove the directory; zn-nicsim removes its sockets
		check "SIG$sig (zcnic): no simulator socket left" \
			eval '[ -n "$dir" ] && [ ! -e "$dir/bnxt0.sock" ] && [ ! -e "$dir/bnxt1.sock" ]'
		rmdir "$dir" 2>/dev/null
	else
		check "SIG$sig (zcnic): its socket directory is gone" eval '[ -n "$dir" ] && [ ! -e "$dir" ]'
	fi
}
interrupt_zcnic INT 130
interrupt_zcnic KILL ""

echo "# $n tests, $fails failed"
[ "$fails" -eq 0 ]
