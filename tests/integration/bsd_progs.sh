#!/usr/bin/env bash
# Programs written as kernel socket programs, with zcnic's BSD calls
# (include/zcnic/bsd.h) and their netdev named by $ZN_NETDEVS: the server
# and the client of tests/progs/bsd_udp_echo, two processes on the two ports
# of a zn-nicsim pair wire, over bnxt and over mlx5 models, at MTU 9000
# ($ZN_NETDEV_MTU): every datagram of 1..8000 bytes echoed byte-exact.
# Prints TAP lines; exits non-zero if any check failed. Every wait is bounded.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SIM=$BUILD/bin/zn-nicsim
ECHO=$BUILD/tests/bsd_udp_echo
COUNT=${ZN_BSD_PROGS_COUNT:-300}
WAIT_S=20
PORT=5310

n=0 failed=0
. tests/integration/lib/tap.sh

tmp=$(mktemp -d /tmp/zn-bsd-progs.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for b in "$SIM" "$ECHO"; do
	[ -x "$b" ] || { echo "not ok 1 - $b is built"; exit 1; }
done

for model in bnxt mlx5; do
	dir=$tmp/$model
	mkdir -p "$dir"
	"$SIM" --dir "$dir" --dev a="$model" --dev b="$model" --wire pair:a,b >"$dir/sim" 2>&1 &
	sim=$!
	pids+=($sim)
	if ! wait_for grep -q "zn-nicsim: ready" "$dir/sim"; then
		nok "$model: zn-nicsim with two $model ports is ready"; continue
	fi
	export ZN_NETDEV_MTU=9000
	ZN_NETDEVS="vfio-user:$dir/b.sock@10.0.0.2/24" timeout $((WAIT_S * 2)) \
		"$ECHO" serve $PORT "$COUNT" >"$dir/srv" 2>"$dir/srv.err" &
	srv=$!
	pids+=($srv)
	if wait_for grep -q "^listening" "$dir/srv"; then
		ZN_NETDEVS="vfio-user:$dir/a.sock@10.0.0.1/24" timeout $((WAIT_S * 2)) \
			"$ECHO" 10.0.0.2 $PORT "$COUNT" >"$dir/cli" 2>"$dir/cli.err"
		crc=$?
	else
		crc=-1
	fi
	wait $srv; src=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "$model client: ${line#ok - }" ;;
		"not ok - "*) nok "$model client: ${line#not ok - }" ;;
		esac
	done <"$dir/cli"
	check "$model: client exit 0 (rc $crc)" [ $crc -eq 0 ]
	check "$model: server answered $COUNT datagrams, exit 0 (rc $src)" \
		grep -q "^ok - served $COUNT datagrams" "$dir/srv"
	[ $crc -eq 0 ] || grep -v " info " "$dir/cli.err" | tail -n 10 | sed 's/^/#   /'
	[ $src -eq 0 ] || grep -v " info " "$dir/srv.err" | tail -n 10 | sed 's/^/#   /'
	kill $sim; wait $sim 2>/dev/null
done
echo "1..$n"
[ $failed -eq 0 ]
