#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The provider's StoreLoad barriers, as KTAP: the paths that store a
# producer index (or a CQ's arm word) and then load what the adapter wrote
# (the event index, the CQE at ci) must fence with MFENCE on x86-64.  The
# LOCK-prefixed instruction compilers emit for atomic_thread_fence(seq_cst)
# is no barrier for a single-vCPU QEMU TCG guest (it runs as a plain load
# and store): with it, the adapter's event index write and the producer
# index write could miss each other, and ops-identity (20-port-ops) stranded its last
# sends in about one run in three with send queue polling on (spec:
# data-path.rst, "Doorbell records and event indices").
#
# Usage: selftests/tree/provider-barriers.sh [LIBORCA.so]   (default: the
# installed provider, as guests load it).  Runs inside the toolroot.
set -u
lib=${1:-/usr/lib/$(gcc -print-multiarch)/libibverbs/liborca-rdmav34.so}
funcs="orca_post_send orca_post_recv orca_post_srq_recv orca_req_notify_cq"

echo "TAP version 13"
echo "1..4"
if [ "$(uname -m)" != x86_64 ]; then
	n=0
	for f in $funcs; do
		n=$((n + 1))
		echo "ok $n $f fences with MFENCE # SKIP not x86-64"
	done
	exit 0
fi
if ! dis=$(objdump -d --no-show-raw-insn "$lib" 2>&1); then
	echo "# $dis" | head -n 5
	echo "not ok 1 objdump $lib"
	exit 1
fi

# body NAME: the disassembly of function NAME (or of NAME.constprop.0 ...).
body() {
	echo "$dis" | awk -v f="$1" '
		$2 ~ "^<" f "(\\.[a-z]+\\.[0-9]+)?>:$" { p = 1; next }
		p && /^$/ { exit }
		p'
}

n=0 failed=0
for f in $funcs; do
	n=$((n + 1))
	b=$(body "$f")
	# An out-of-line orca_publish_pi() holds the fence of the posts.
	if echo "$b" | grep -q 'call.*<orca_publish_pi'; then
		b="$b
$(body orca_publish_pi)"
	fi
	if [ -z "$b" ]; then
		echo "# $f not found in $lib"
	elif echo "$b" | grep -qE 'lock +(or|add)[a-z]* +\$0x0,(-?0x[0-9a-f]+)?\(%rsp\)'; then
		echo "# $f: a LOCK-prefixed stack fence:"
		echo "$b" | grep -E 'lock +(or|add)' | sed 's/^/#   /'
	elif echo "$b" | grep -qw mfence; then
		echo "ok $n $f fences with MFENCE"
		continue
	else
		echo "# $f: no MFENCE"
	fi
	failed=1
	echo "not ok $n $f fences with MFENCE"
done
exit $failed
