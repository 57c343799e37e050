# SPDX-License-Identifier: GPL-2.0
#
# Sourced, after lib/guest/guest.sh and lib/guest/uverbs.sh, by in-guest
# scripts that run MPI jobs across the run's guests: Open MPI 5 over UCX
# (pml ucx) through the userspace verbs, one rank per guest, the program
# selftests/user/mpi_check.c (point-to-point data and MPI_Allreduce
# results checked on every rank).
#
#   mpi_up DEV          this guest's UCX settings for DEV (its RoCE v2 IPv4
#                       GID) and its remote shell server (rsh_agent.py):
#                       from then on any guest's mpirun starts ranks here
#   mpi_down            stops the server
#   mpi_prewarm         reads what an MPI job loads here (Open MPI, PRRTE,
#                       PMIx, UCX and their libraries) into the page cache:
#                       in the background early on, it takes the first
#                       job's library loading over 9p off the test's time
#   mpi_job NAME TLS GUESTS [MPI_CHECK-ARGS...]
#                       (the launching guest) mpi_check with one rank on
#                       each guest of GUESTS (indices, comma-separated, the
#                       launcher among them) over UCX's TLS (rc_verbs or
#                       ud_verbs); cases "NAME: mpirun", one per check that
#                       mpi_check reports ("NAME: ring ..."), "NAME: N
#                       checks reported" and "NAME: UCX chose TLS on every
#                       rank"; its BENCH lines become "# mpi-result
#                       name=NAME what=WHAT value=V unit=U" lines
#
# mpirun reaches the other guests through rsh_agent.py (PRRTE's ssh
# launcher with it as the agent), which runs PRRTE's daemon in the server's
# environment: the UCX settings of mpi_up are each guest's own.  The job's
# output is in $ORCA_RUN_DIR/mpi-NAME.log.

mpi_agent=$ORCA_TOP/selftests/lib/guest/rsh_agent.py
mpi_check=$ORCA_TOP/selftests/user/build/mpi_check
mpi_port=2222
mpi_server=

# Open MPI refuses root unless told twice; the guests have only root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

mpi_up() {
	local dev=$1 gid
	gid=$(wait_gid "$dev" v4)
	ok_if "mpi: $dev RoCE v2 IPv4 GID" test -n "$gid" || return 1
	# ud_verbs: see in-guest/ucx.sh (UCX 1.18 reads a RoCE v2 packet's
	# L3 type from wc.sl, which only mlx5 fills that way).
	export UCX_NET_DEVICES=$dev:1 UCX_IB_GID_INDEX=$gid \
		UCX_UD_VERBS_ETH_DGID_CHECK=n UCX_WARN_UNUSED_ENV_VARS=n
	"$mpi_agent" --serve "10.0.0.$((gi + 1))" "$mpi_port" \
		>"$ORCA_RUN_DIR/mpi-rshd-g$gi.log" 2>&1 &
	mpi_server=$!
	ok_if "mpi: remote shell server listens" wait_for 30 tcp_listening "$mpi_port"
}

mpi_prewarm() {
	local f
	for f in $(ldd "$mpi_check" "$(command -v prterun)" "$(command -v prted)" \
			/usr/lib/x86_64-linux-gnu/ucx/libuct_ib.so.0 2>/dev/null |
		   awk '$3 ~ /^\// { print $3 }' | sort -u) \
		 /usr/lib/x86_64-linux-gnu/ucx/*.so.0 \
		 /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix/*.so; do
		cat "$f" >/dev/null 2>&1
	done
}

mpi_down() {
	[ -n "$mpi_server" ] && kill "$mpi_server" 2>/dev/null
	mpi_server=
}

mpi_job() {
	local name=$1 tls=$2 guests=$3 hosts= np=0 i log rc n=0 line tl=${2%%,*}
	shift 3
	log=$ORCA_RUN_DIR/mpi-$name.log
	for i in ${guests//,/ }; do
		hosts+=${hosts:+,}orca-g$i:1
		np=$((np + 1))
	done
	# pml ucx: Open MPI's UCX component matches only mlx* devices unless
	# told "any".  btl self: nothing but UCX may carry data (no TCP).
	# Not opened, since nothing here uses them and each costs seconds of
	# library loading and device probing under TCG: the collectives of
	# UCC and HCOLL, one-sided over UCX, and the libfabric MTL (which
	# pml ucx never uses).  UCX_TLS: rc_verbs needs ud_verbs beside it
	# for its connection setup ("no auxiliary transport"); UCX_PROTO_INFO
	# prints each rank's choice of transport, checked below.
	timeout "$(scaled 240)" mpirun -np "$np" --host "$hosts" \
		--prtemca plm_ssh_agent "$mpi_agent" \
		--mca pml ucx --mca pml_ucx_devices any --mca btl self \
		--mca coll ^ucc,hcoll --mca osc ^ucx --mca mtl ^ofi \
		-x UCX_TLS="$tls,self" -x UCX_PROTO_INFO=y \
		"$mpi_check" "$@" >"$log" 2>&1
	rc=$?
	ok_if "$name: mpirun ($np ranks, UCX $tl)" sh -c \
		"[ $rc = 0 ] || { grep -av '^\[[0-9.]*\] .*  [|+]' '$log' | tail -n 30; exit $rc; }"
	# (A here-string, not <(...): the guests have no /dev/fd.)
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		n=$((n + 1))
		case $line in
		"CHECK ok "*) ktap_line "ok $name: ${line#CHECK ok }" ;;
		*)
			ktap_fail=1
			grep -a '^rank ' "$log" | head -n 5 | sed 's/^/# /' >>"$ktap_out"
			ktap_line "not ok $name: ${line#CHECK not ok }"
			;;
		esac
	done <<<"$(grep -a '^CHECK ' "$log")"
	ok_if "$name: mpi_check reported its checks" test "$n" -ge 4
	sed -n 's/^BENCH \([^ ]*\) \([^ ]*\) \([^ ]*\)$/# mpi-result name='"$name"' what=\1 value=\2 unit=\3/p' \
		"$log" >>"$ktap_out"
	# Each rank prints its protocol tables, "| ... | TL/DEVICE:1 |"
	# lines under its own "[orca-gI:" prefix.
	mpi_tl_everywhere() {
		local i bad=
		for i in ${guests//,/ }; do
			grep -aEq "\[orca-g$i:.*\| $tl/[a-z0-9_]+:1 +\|" "$log" ||
				bad+=" g$i"
		done
		[ -z "$bad" ] || { echo "no $tl protocol on:$bad"; return 1; }
	}
	ok_if "$name: UCX chose $tl on every rank" mpi_tl_everywhere
}
