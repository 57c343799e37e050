# SPDX-License-Identifier: GPL-2.0
#
# Sourced, after lib/guest/guest.sh, by in-guest scripts that run userspace verbs
# tools (libibverbs/librdmacm examples, perftest, UCX) between two guests:
# guest 0 runs each tool's server, guest 1 its client.  The server side
# starts the tool, waits until it listens, then raises a flag that the
# client waits for; each side reports its half as a KTAP case.
#
#   gid_index DEV v4|v6     index of DEV's RoCE v2 GID for 10.0.0.x / fd00::x
#   wait_gid DEV v4|v6      wait until that GID exists, print its index
#   tcp_listening PORT      a TCP socket listens on PORT
#   cm_listening PORT       an rdma_cm ID listens on PORT
#   pair_server NAME SECS CHECK CMD...
#                           (guest 0) run CMD as the server of case NAME;
#                           CHECK (a command) says when it listens
#   pair_client NAME SECS CMD...
#                           (guest 1) run CMD as the client of case NAME
#   pair_case NAME SECS CHECK "SERVER-CMD" "CLIENT-CMD"
#                           both: this guest's half of case NAME; the
#                           commands are strings (word-split here)
#
#   uverbs_ktap_relay PREFIX LOG
#                           the KTAP case lines a test program wrote to
#                           LOG, as this guest's cases PREFIX/NAME, its
#                           comments kept; and a case that it reported
#                           as many as its plan ("1..N") says
#   emu_counts              the adapter's live objects ("pd N cq N mr N qp N
#                           ah N srq N gsi N uar N"), which the emulator
#                           logs on its "counts" control word
#   count_of COUNTS KIND    one number of that line
#
# A tool's output is kept in $ORCA_RUN_DIR/uverbs-g<I>-<NAME>.log.  A case
# fails on a non-zero exit, on a timeout, and on output that reports bad
# data (the pingpongs' -c only prints "invalid data"; fi_pingpong -c prints
# "Error at iteration", rstream and riostream -T v "data verification
# failed").

uverbs_srv_ip=10.0.0.1
uverbs_srv_ip6=fd00::1

# In index order, with the shell's own reads: rxe's table has 1024
# entries, and a cat per entry in glob order (0, 1, 10, 100, 1000, ...,
# 2) took 30 s under TCG to reach the IPv6 GID at index 2 or 3.
gid_index() {
	local dev=$1 fam=$2 d i n g t
	d=/sys/class/infiniband/$dev/ports/1
	n=$(ls "$d/gids" 2>/dev/null | wc -l)
	for ((i = 0; i < n; i++)); do
		# An unused entry's type cannot be read.
		{ read -r t <"$d/gid_attrs/types/$i"; } 2>/dev/null || continue
		[ "$t" = "RoCE v2" ] || continue
		{ read -r g <"$d/gids/$i"; } 2>/dev/null || continue
		case $fam in
		v4) [[ $g == 0000:0000:0000:0000:0000:ffff:* ]] ;;
		v6) [[ $g == fd00:* ]] ;;
		*) false ;;
		esac && { echo "$i"; return 0; }
	done
	return 1
}

# port_stat DEV NAME: one counter of DEV's port 1 in rdma statistic.
port_stat() {
	rdma statistic show link "$1/1" | tr ' ' '\n' | grep -A1 -x "$2" | tail -1
}

wait_gid() {
	wait_for 20 gid_index "$1" "$2" >/dev/null && gid_index "$1" "$2"
}

tcp_listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

cm_listening() {
	rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -qw "$1"
}

# The log of a case's tool, and whether it reported bad data.
uverbs_log() { echo "${ORCA_RUN_DIR:?}/uverbs-g$gi-$1.log"; }
uverbs_bad_data() {
	grep -qiE 'invalid data|data mismatch|mismatch|error at iteration|verification failed' "$1"
}

_pair_finish() {
	local log=$1 rc=$2
	if [ "$rc" = 0 ] && uverbs_bad_data "$log"; then
		echo "the tool reported bad data"
		rc=1
	fi
	[ "$rc" = 0 ] || tail -n 20 "$log"
	return "$rc"
}

pair_server() {
	local name=$1 secs=$2 check=$3 log pid rc
	shift 3
	log=$(uverbs_log "$name")
	timeout "$(scaled "$secs")" "$@" >"$log" 2>&1 &
	pid=$!
	if ! wait_for 30 $check; then
		flag_set "$name-failed"
		kill "$pid" 2>/dev/null
		wait "$pid"
		echo "server did not listen"
		tail -n 20 "$log"
		return 1
	fi
	flag_set "$name"
	wait "$pid"
	rc=$?
	_pair_finish "$log" "$rc"
}

pair_client() {
	local name=$1 secs=$2 log rc
	shift 2
	log=$(uverbs_log "$name")
	flag_wait 120 "$name" "$name-failed" || {
		echo "server of $name not ready"
		return 1
	}
	timeout "$(scaled "$secs")" "$@" >"$log" 2>&1
	rc=$?
	_pair_finish "$log" "$rc"
}

pair_case() {
	local name=$1 secs=$2 check=$3 srv=$4 cli=$5
	if [ "$gi" = 0 ]; then
		# shellcheck disable=SC2086 # the command strings are word-split
		ok_if "$name (server)" pair_server "$name" "$secs" "$check" $srv
	else
		# shellcheck disable=SC2086
		ok_if "$name (client)" pair_client "$name" "$secs" $cli
	fi
}

uverbs_ktap_relay() {
	local prefix=$1 log=$2 line rest planned=none seen=0
	while IFS= read -r line; do
		case $line in
		1..*) planned=${line#1..} ;;
		"ok "*)
			seen=$((seen + 1))
			rest=${line#ok }
			ktap_line "ok $prefix/${rest#* }"
			;;
		"not ok "*)
			seen=$((seen + 1))
			rest=${line#not ok }
			ktap_fail=1
			ktap_line "not ok $prefix/${rest#* }"
			;;
		"#"*) echo "$line" >>"$ktap_out" ;;
		esac
	done < <(cat "$log" 2>/dev/null)
	expect_eq "$prefix: every case the program planned reported" "$seen" "$planned"
}

emu_counts() {
	local log=${ORCA_RUN_DIR:?}/g$gi/emu.log before
	before=$(grep -c 'engine: objects:' "$log")
	echo counts >>"${ORCA_CTL:?}"
	wait_for 10 sh -c "[ \$(grep -c 'engine: objects:' '$log') -gt $before ]" ||
		return 1
	grep 'engine: objects:' "$log" | tail -n 1 | sed 's/.*objects: //'
}

count_of() {
	echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}
