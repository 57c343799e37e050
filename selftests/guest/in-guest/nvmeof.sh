#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe over Fabrics on RDMA through the orca adapters, the kernel ULP path
# end to end (rdma_cm, CM MADs on QP1, FRWR, RC data): guest 0 exports a
# ramdisk with nvmet-rdma, guest 1 connects with nvme-rdma, writes 8 MiB
# of random data with O_DIRECT, reads it back and compares, disconnects.
. "$ORCA_TOP/selftests/guest/lib/guest.sh"

book=${ORCA_RUN_DIR:?}/nvmeof
nqn=orca-test
ok_if "two guests" test "${ORCA_GUEST_COUNT:-1}" = 2 || ktap_done
ok_if "orca module loads" orca_load || ktap_done

if [ "$gi" = 0 ]; then
	ok_if "nvmet-rdma and brd load" sh -c \
		"modprobe nvmet && modprobe nvmet-rdma && modprobe brd rd_nr=1 rd_size=16384" ||
		ktap_done
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	c=/sys/kernel/config/nvmet
	s=$c/subsystems/$nqn
	p=$c/ports/1
	ok_if "target exports /dev/ram0 on 10.0.0.1:4420" sh -c "
		mkdir $s && echo 1 > $s/attr_allow_any_host &&
		mkdir $s/namespaces/1 &&
		echo /dev/ram0 > $s/namespaces/1/device_path &&
		echo 1 > $s/namespaces/1/enable && mkdir $p &&
		echo rdma > $p/addr_trtype && echo ipv4 > $p/addr_adrfam &&
		echo 10.0.0.1 > $p/addr_traddr && echo 4420 > $p/addr_trsvcid &&
		ln -s $s $p/subsystems/$nqn"
	touch "$book-ready"
	ok_if "host finished" wait_for 200 test -e "$book-done"
	ok_if "target saw the host's controller" sh -c \
		"dmesg | grep -q 'nvmet: Created nvm controller'"
	rm -f "$p/subsystems/$nqn"
else
	ok_if "nvme-rdma loads" modprobe nvme-rdma
	ok_if "target ready" wait_for 120 test -e "$book-ready"
	ok_if "nvme connect -t rdma" nvme connect -t rdma -a 10.0.0.1 -s 4420 -n $nqn
	ok_if "namespace appears" wait_for 20 test -b /dev/nvme0n1
	dd if=/dev/urandom of=/tmp/nvmeof.data bs=1M count=8 2>/dev/null
	ok_if "write 8 MiB (O_DIRECT)" dd if=/tmp/nvmeof.data of=/dev/nvme0n1 \
		bs=1M count=8 oflag=direct
	ok_if "read 8 MiB back (O_DIRECT)" dd if=/dev/nvme0n1 of=/tmp/nvmeof.back \
		bs=1M count=8 iflag=direct
	ok_if "data read back is the data written" cmp /tmp/nvmeof.data /tmp/nvmeof.back
	ok_if "nvme disconnect" nvme disconnect -n $nqn
	touch "$book-done"
fi
ok_if "no warnings in dmesg" sh -c "! dmesg | grep -E 'WARNING|BUG:|Oops|refcount_t'"
ktap_done
