# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the scripts that compile kernel code out of make check's quick
# path (debug-kernel.sh, siw-build.sh, out-of-tree/kernel-modules.sh for
# smb-build.sh and rnbd-build.sh, check-debug.sh): one
# compiler cache for all of them, in /var/cache/orca-ccache, which
# toolroot.sh keeps outside the toolroot's root so that it survives a
# toolroot rebuild.  They compile with CC="ccache gcc".
export CCACHE_DIR=/var/cache/orca-ccache
# The debug kernel's objects (KASAN inline) take about 1.5 GiB compressed.
export CCACHE_MAXSIZE=6G
# The trees are extracted anew at other paths: hash relative to them.
export CCACHE_BASEDIR=/
export CCACHE_NOHASHDIR=1
