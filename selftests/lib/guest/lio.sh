# SPDX-License-Identifier: GPL-2.0
#
# LIO (the kernel's SCSI target) for the SRP and iSER targets in
# lib/guest/ulp-srp.sh and lib/guest/ulp-iser.sh.
#
#   lio_load              target_core_mod loaded, configfs
#                         mounted (it is a module: guest-init's mount at boot
#                         finds it only if something loaded it earlier), and
#                         LIO's state directory moved off the read-only root
#   lio_unload            target_core_mod and its backends unloaded (lsmod
#                         shown if they cannot be); while another fabric
#                         (SRP and iSER are up at once in 84-ulp-removal)
#                         is still configured, its last user unloads it

lio_cfg=/sys/kernel/config/target

lio_load() {
	modprobe target_core_mod || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config || return 1
	mkdir -p /run/target &&
	if [ "$(cat "$lio_cfg/dbroot")" != /run/target ]; then
		echo /run/target >"$lio_cfg/dbroot"
	fi
}

# target_core_mod loads its backends (iblock, pscsi, user, ...) by itself.
lio_unload() {
	local backends fabrics
	fabrics=$(find "$lio_cfg" -mindepth 1 -maxdepth 1 -type d ! -name core -printf '%f ' 2>/dev/null)
	if [ -n "$fabrics" ]; then
		echo "# target_core_mod stays: fabric $fabrics still configured"
		return 0
	fi
	backends=$(lsmod | awk '/^target_core_/ && $1 != "target_core_mod" { print $1 }')
	# shellcheck disable=SC2086
	bounded 300 unload_modules 60 $backends target_core_mod && return 0
	lsmod | grep -E '^Module|target'
	return 1
}
