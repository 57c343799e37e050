# SPDX-License-Identifier: GPL-2.0
#
# ORCA top-level build.  Everything is built and run inside the toolroot (a
# Debian 13 chroot made by scripts/toolroot.sh, cached machine-wide), so the
# host needs nothing but make, bash and root.
#
#   make            build the kernel module, the emulator, the rdma-core
#                   provider (installed into the toolroot) and the test
#                   programs that run in guests
#   make demo       two guests with ORCA adapters (README)
#   make bench      NVMe-oF (MTU 1500, 9000), perftest and the kernel ULPs,
#                   rxe and ORCA pairings, the in-guest ceiling, the adapter
#                   natively and with 64K QPs: one table with ratios, in
#                   out/bench/bench.{txt,csv,json,png}
#                   (PAIRS="rxe-rxe orca-orca ..." picks TARGET-HOST pairings,
#                   ORCA_BENCH="nvmeof ceiling perftest ulp mpi native"
#                   the workloads, ORCA_BENCH_ULPS="srp rnbd ..." the ULPs)
#   make check      all tests: unit, lint, guest (README)
#   make check-long the long tier: soaks, baselines without ORCA and the
#                   second direction of each rxe interop, which make check
#                   leaves out (guest tests marked "# tier: long")
#   make check-debug  ORCA's guest tests on a debug kernel (KASAN, lockdep,
#                   kmemleak, UBSAN), built once and cached; the first run
#                   takes about half an hour longer (scripts/guests/check-debug.sh;
#                   TESTS=all for every guest test, TESTS="NN-name ..." for some)
#   make blktests BLKTESTS=DIR  the blktests checkout in DIR (not shipped
#                   here) as it is: its nvme group (NVMe-oF over RDMA) and
#                   srp group in a guest with ORCA, then the same over rxe,
#                   blktests' own results side by side in
#                   out/blktests/table.txt (scripts/blktests/blktests.sh;
#                   BLKTESTS_TESTS="nvme/010 srp" picks tests,
#                   BLKTESTS_ON="orca rxe orca-remote" the runs)
#   make lint       checkpatch --strict, sparse (C=2) and W=1 on the driver
#   make patches    the kernel and rdma-core patch series (out/patches/)
#   make deb        orca-dkms, ibverbs-provider-orca and orca-emulator
#                   packages (out/deb/)
#   make clean

TOOLROOT := scripts/toolroot.sh
# The toolroot starts commands with a clean environment: pass on what the
# goals inside it read.
IN_TOOLROOT := $(TOOLROOT) --run env ORCA_IN_TOOLROOT=1 \
	ORCA_PROVIDER_PRIVATE=$(ORCA_PROVIDER_PRIVATE)

# Goals that run inside the toolroot.
TR_GOALS := all module emulator provider usertests smb rnbd lint patches deb

ifndef ORCA_IN_TOOLROOT

.DEFAULT_GOAL := all

$(TR_GOALS): toolroot
	@$(IN_TOOLROOT) $(MAKE) --no-print-directory $@

check: toolroot
	@$(IN_TOOLROOT) selftests/run.sh

check-long: toolroot
	@$(IN_TOOLROOT) selftests/run.sh --long

check-debug: toolroot
	@$(IN_TOOLROOT) ORCA_TIMEOUT_SCALE=$(ORCA_TIMEOUT_SCALE) \
		ORCA_DEBUG_KERNEL_DIR=$(ORCA_DEBUG_KERNEL_DIR) scripts/guests/check-debug.sh $(TESTS)

demo: toolroot
	@$(IN_TOOLROOT) scripts/demo/demo.sh

bench: toolroot
	@$(IN_TOOLROOT) ORCA_NO_BUILD=$(ORCA_NO_BUILD) ORCA_BENCH="$(ORCA_BENCH)" \
		ORCA_BENCH_ULPS="$(ORCA_BENCH_ULPS)" scripts/bench/bench.sh $(PAIRS)

# Not inside the toolroot: the script copies DIR, which only the host sees.
blktests: toolroot
	@BLKTESTS_ON="$(BLKTESTS_ON)" BLKTESTS_TIMEOUT="$(BLKTESTS_TIMEOUT)" \
		BLKTESTS_IMG_SIZE="$(BLKTESTS_IMG_SIZE)" ORCA_NO_BUILD=$(ORCA_NO_BUILD) \
		scripts/blktests/blktests.sh "$(BLKTESTS)" $(BLKTESTS_TESTS)

toolroot:
	@$(TOOLROOT) >/dev/null

clean:
	rm -rf emulator/build selftests/user/build out
	find drivers -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
		-o -name modules.order | xargs rm -f
	rm -f Module.symvers modules.order

.PHONY: $(TR_GOALS) check check-long check-debug demo bench blktests toolroot clean

else # inside the toolroot

KDIR ?= $(firstword $(wildcard /usr/src/linux-headers-*-amd64))
KBUILD := $(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_INFINIBAND_ORCA=m

all: module emulator provider usertests smb rnbd

# Warnings are errors for our code.
module:
	$(KBUILD) KCFLAGS=-Werror W=1 modules

emulator:
	$(MAKE) -C emulator -j2

# providers/orca, built inside rdma-core's source tree (cached in the
# toolroot) and installed where the distribution's libibverbs finds it.
provider:
	scripts/out-of-tree/provider-build.sh

# SMB Direct's ksmbd, cifs and smbdirect modules for the guests (Debian's
# kernel is built without it), in the toolroot under /opt/orca-smb.
smb:
	scripts/out-of-tree/smb-build.sh >/dev/null

# RNBD and RTRS (rnbd-client/server, rtrs-core/client/server) for the
# guests (Debian's kernel is built without them), under /opt/orca-rnbd.
rnbd:
	scripts/out-of-tree/rnbd-build.sh >/dev/null

# Userspace test programs the guest tests run (selftests/user).
usertests:
	$(MAKE) -C selftests/user

lint:
	selftests/tree/lint.sh

# The driver and the provider as patch series, generated from the tree.
patches:
	scripts/series/make-patches.sh

# Debian packages of the driver (DKMS), the provider and the emulator.
deb: emulator provider
	scripts/packaging/build-debs.sh

.PHONY: all module emulator provider usertests smb rnbd lint patches deb

endif
