# SPDX-License-Identifier: GPL-2.0
#
# Sourced, after lib/host/host.sh, by the userspace verbs guest tests.
#
#   uverbs_guest_test SERVER_KIND CLIENT_KIND TIMEOUT SCRIPT [ARGS...]
#
# boots two guests (guest 0 the servers on SERVER_KIND, guest 1 the clients
# on CLIENT_KIND; an rxe guest gets no ORCA adapter) and runs
# in-guest/SCRIPT SERVER_KIND CLIENT_KIND ARGS in both.  Exits through
# host_done.  uverbs_wire=p2p (set before): the two ORCA adapters are joined
# by a point-to-point link, no switch (run-guests.sh --p2p).  uverbs_run_opts
# (an array): more run-guests options; uverbs_after=FUNC: checks of the run
# after the guests, before host_done.
uverbs_guest_test() {
	local skind=$1 ckind=$2 timeout=$3 script=$4 opts=() rc
	shift 4
	[ "${uverbs_wire:-}" = p2p ] && opts+=(--p2p)
	# uverbs_run_opts=(...): more run-guests options (65: --uplinks).
	opts+=(${uverbs_run_opts[@]+"${uverbs_run_opts[@]}"})
	[ "$skind" = rxe ] && opts+=(--guest-opts 0:no-orca)
	[ "$ckind" = rxe ] && opts+=(--guest-opts 1:no-orca)
	run_guests 2 "$timeout" "${opts[@]}" -- \
		"selftests/guest/in-guest/$script" "$skind" "$ckind" "$@"
	rc=$?
	# uverbs_after=FUNC: the test's own checks of the run, last.
	[ -z "${uverbs_after:-}" ] || "$uverbs_after"
	host_done "$rc"
}
