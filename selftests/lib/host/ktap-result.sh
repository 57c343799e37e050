# SPDX-License-Identifier: GPL-2.0
#
# Sourced by host-side KTAP tests (selftests/tree/patches.sh, selftests/tree/deb.sh):
#   result RC NAME [LOG]   "ok N NAME", or "not ok N NAME" after the last 30
#                          lines of LOG as comments; counts $n and $failed
n=0 failed=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		failed=$((failed + 1))
		[ -n "${3:-}" ] && sed 's/^/# /' "$3" | tail -n 30
		echo "not ok $n $2"
	fi
}
