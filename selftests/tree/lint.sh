#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lint gates for the driver, as KTAP: checkpatch --strict, sparse (C=2) and a
# W=1 build.  Any finding fails its test.  Runs inside the toolroot.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
kdir=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | head -n1)
drv=drivers/infiniband/hw/orca
out=$top/out/lint
mkdir -p "$out"

# checkpatch.pl and its data files come from the kernel source package
# (scripts/toolroot-extras.sh puts them there).
scripts_dir=/opt/linux-scripts

n=0 failed=0
result() { # result OK NAME LOGFILE
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		failed=$((failed + 1))
		sed 's/^/# /' "$3" | tail -n 40
		echo "not ok $n $2"
	fi
}

echo "TAP version 13"
echo "1..3"

files=$(ls $drv/*.[ch] $drv/Kconfig $drv/Makefile selftests/kmod/*.c include/uapi/rdma/orca-abi.h 2>/dev/null |
	grep -v '\.mod\.c$')
perl "$scripts_dir/scripts/checkpatch.pl" --strict --no-tree --terse \
	--show-types --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f $files \
	>"$out/checkpatch.log" 2>&1
rc=$?
grep -qE '(ERROR|WARNING|CHECK):' "$out/checkpatch.log" && rc=1
result $rc "checkpatch --strict" "$out/checkpatch.log"

# C=2 runs sparse on every file whether or not it is recompiled; W=1's
# warnings come from the compiler, which recompiles only what changed since
# the last build with these same flags (make module's: a W=1 warning there
# is an error, so an unchanged object has none).  Nothing is compiled twice.
make -C "$kdir" M="$top" CONFIG_INFINIBAND_ORCA=m C=2 W=1 KCFLAGS=-Werror \
	-j"$(nproc)" modules >"$out/build.log" 2>&1
rc=$?
# sparse's reports name no compiler flag; gcc's W=1 ones end in [-Wxxx].
grep -E '(warning|error):' "$out/build.log" | grep -v '\[-W' >"$out/sparse.log"
grep -E '(warning|error):' "$out/build.log" | grep '\[-W' >"$out/w1.log"
sparse_rc=$rc w1_rc=$rc
[ -s "$out/sparse.log" ] && sparse_rc=1
[ -s "$out/w1.log" ] && w1_rc=1
[ "$rc" = 0 ] || tail -n 40 "$out/build.log" >>"$out/sparse.log"
result $sparse_rc "sparse C=2" "$out/sparse.log"
result $w1_rc "W=1 build" "$out/w1.log"

[ $failed = 0 ]
