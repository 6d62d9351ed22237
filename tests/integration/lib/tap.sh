# Sourced by the integration scripts: TAP output and the waits they share.
# The caller sets n=0 failed=0, WAIT_S, and (for the zn-nicsim helpers)
# tmp and pid, the running zn-nicsim.

ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { # $1 description, rest: command
	local d=$1; shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}

wait_for() { # retries "$@" for WAIT_S seconds
	local i
	for ((i = 0; i < WAIT_S * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}
gone() { ! kill -0 "$1" 2>/dev/null; }

# stats_now, then stat KEY: one counter of the running zn-nicsim (fresh, via SIGUSR1)
stats_now() {
	rm -f "$tmp/stats"
	kill -USR1 "$pid"
	wait_for test -s "$tmp/stats"
}
stat() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/stats"; }

# field NAME FILE: a number from zn-fwd's summary line ("N sent, N received, ...")
field() { grep -m1 '^zn-fwd: [0-9]* sent, ' "$2" | grep -o "[0-9]\+ $1" | head -n1 | cut -d' ' -f1; }

# sim_pair_ready DIR: zn-nicsim ($SIM) with bnxt0 and bnxt1 on a pair wire,
# sockets in DIR, counters to $tmp/stats; pid set; exits the script with
# a "not ok" line if it is not ready within WAIT_S seconds.
sim_pair_ready() {
	local fifo=$tmp/ready line=
	mkfifo "$fifo"
	"$SIM" --dir "$1" --dev bnxt0=bnxt --dev bnxt1=bnxt --wire pair:bnxt0,bnxt1 \
		--stats-file "$tmp/stats" --ready-fd 3 3>"$fifo" >"$tmp/sim.out" 2>"$tmp/sim.err" &
	pid=$!
	read -r -t "$WAIT_S" line <"$fifo"
	if [ "$line" != ready ]; then
		nok "zn-nicsim with two bnxt ports on a pair wire is ready"
		tail -n 20 "$tmp/sim.err" | sed 's/^/#   /'
		echo "1..$n"
		exit 1
	fi
	ok "zn-nicsim with two bnxt ports on a pair wire is ready"
}
