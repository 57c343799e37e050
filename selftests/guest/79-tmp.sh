#!/bin/bash
# TEMPORARY (ud_verbs investigation) - delete
. "$(dirname "$0")/lib/host.sh"
. "$(dirname "$0")/lib/uverbs-host.sh"
k0=${TMP_K0:-rxe} k1=${TMP_K1:-rxe}
opts=(--pcap "$top/out/scratch-ud/wire.pcap")
[ "$k0" = rxe ] && opts+=(--guest-opts 0:no-orca)
[ "$k1" = rxe ] && opts+=(--guest-opts 1:no-orca)
run_guests 2 400 "${opts[@]}" -- out/scratch-ud/ucx-ud.sh "$k0" "$k1"
host_done $?
