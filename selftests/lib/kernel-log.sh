# SPDX-License-Identifier: GPL-2.0
#
# The kernel log reports a guest test fails on, in one place: sourced by
# lib/host/host.sh (one case per guest for its whole log, kernel_log_case) and
# lib/guest/guest.sh (dmesg_quiet, a step's own check), and fed sample lines by
# selftests/tree/kernel-log-check.sh, which proves that each kind below fails
# and that harmless lines pass.
#
#   kernel_reports [EXTRA-ERE]  the report lines of a kernel log (stdin to
#                               stdout), timestamps or not, and those
#                               EXTRA-ERE adds
#   kernel_log_kinds stock|debug
#                               what that kernel can report, for a case's
#                               name ("slab, KFENCE, ... or spurious IRQ")

# The reports, as one extended regexp matched anywhere in a line (after
# the timestamp and a caller id such as "[  T123]": "watchdog: BUG: soft
# lockup" and "rcu: INFO: ..." carry a prefix), each at the start of a
# word, so "DEBUG:" or "CONFIG_DEBUG_BUGVERBOSE" are none:
#  - SLUB's consistency and poison checks (slub_debug=FZP):
#    "BUG kmalloc-64 (Tainted: G    B): Poison overwritten";
#  - every "BUG:": KFENCE, KASAN, bad page state, sleeping or scheduling
#    while atomic, soft lockups ("watchdog: BUG: soft lockup - CPU#0
#    stuck"), workqueue lockups, NULL dereferences; BUG() ("kernel BUG
#    at") and oopses; a general protection fault of the kernel ("general
#    protection fault, probably for ...": a process's own is "traps:
#    prog[1] general protection fault ip:..." and no report); panics;
#  - WARN() and lockdep ("WARNING:", "cut here", "INFO: trying to register
#    non-static key");
#  - page_poison=1: a page written after it was freed shows only as
#    "pagealloc: memory corruption" or "pagealloc: single bit error" and a
#    stack dump, no BUG or WARN;
#  - UBSAN; refcount_t saturation and underflow; list corruption
#    (DEBUG_LIST: "list_add corruption", "list_del corruption");
#  - hung tasks, RCU stalls ("rcu: INFO: rcu_preempt detected stalls",
#    "self-detected stall", expedited ones, RCU tasks'), hard lockups,
#    an interrupt nobody handled ("irq 11: nobody cared"), and kmemleak's
#    summary of a scan.
kernel_log_reports='(^|[^[:alnum:]_])('
kernel_log_reports+='BUG [^ ]+ \([^)]*\): |BUG: |kernel BUG at '
kernel_log_reports+='|Oops: |general protection fault[,:]|Kernel panic'
kernel_log_reports+='|WARNING: |-+\[ cut here \]-+'
kernel_log_reports+='|INFO: trying to register non-static key'
kernel_log_reports+='|pagealloc: (memory corruption|single bit error)'
kernel_log_reports+='|UBSAN: |refcount_t: '
kernel_log_reports+='|list_(add|del) corruption|list_add double add'
kernel_log_reports+='|INFO: task .* blocked for more than'
kernel_log_reports+='|rcu_[a-z_]+ (self-)?detected (expedited )?stall'
kernel_log_reports+='|Watchdog detected hard LOCKUP|irq [0-9]+: nobody cared'
kernel_log_reports+='|kmemleak: [0-9]+ new suspected memory leaks'
kernel_log_reports+=')'

kernel_reports() {
	grep -E "$kernel_log_reports${1:+|$1}"
}

# Reports of bugs outside ORCA that a test can prove from outside the guest,
# "KEY|ERE|WHY": a WARN ("cut here" to "end trace") whose "WARNING:" line
# matches ERE is explained, and not counted, only in a run whose own check
# printed "explained KEY" (lib/host/ulp-host.sh: the wire capture shows the
# cause).  Anywhere else it is a report like any other.
#  - iser-logout-flush: isert (7.3) completes a flushed Logout Response by
#    iscsit_release_cmd() while the command is still on the connection's
#    list.  Its send is flushed when the initiator's DREQ reaches the target
#    before the initiator's ACK of that response: rxe posts the receive's
#    completion before it sends the ACK, so under TCG the initiator can log
#    out and disconnect first.  The wire check proves that order.
kernel_log_known='
iser-logout-flush|WARNING: drivers/target/iscsi/iscsi_target_util[.]c:[0-9]+ at iscsit_release_cmd[+]|isert releases a flushed Logout Response still on its connection (the initiator ACKed it after its DREQ)
'

# kernel_log_unexplained KEYS [DROPPED]: the kernel log (stdin to stdout)
# without the WARN reports that the known reports named in KEYS (space
# separated) explain; each dropped report's key goes to the file DROPPED, one
# line each.  No KEYS: the log unchanged.
kernel_log_unexplained() {
	awk -v keys=" $1 " -v dropped="${2:-/dev/null}" -v known="$kernel_log_known" '
		BEGIN {
			n = split(known, lines, "\n")
			for (i = 1; i <= n; i++) {
				if (split(lines[i], f, "|") < 2)
					continue
				if (index(keys, " " f[1] " "))
					ere[f[1]] = f[2]
			}
		}
		function flush(drop,   i) {
			if (drop != "")
				print drop >dropped
			else
				for (i = 1; i <= held; i++)
					print buf[i]
			held = 0; key = ""
		}
		/-+\[ cut here \]-+/ { if (held) flush(""); held = 1; buf[1] = $0; next }
		held {
			buf[++held] = $0
			if (key == "" && /WARNING: /)
				for (k in ere)
					if ($0 ~ ere[k])
						key = k
			if (/---\[ end trace/)
				flush(key)
			else if (held >= 200)
				flush("")
			next
		}
		{ print }
		END { if (held) flush("") }
	'
}

# What each kernel of the guest tests can report, for the case's name:
# "NAME:CONFIG:KERNELS".  stock is make check's (Debian's, booted with
# slub_debug, page_poison and KFENCE sampling by run-guests.sh
# --kernel-checks), debug is make check-debug's (scripts/debug-kernel.sh,
# ORCA_GUEST_KERNEL set).  CONFIG is the option the report needs ("-":
# every kernel has it); kernel-log-check.sh holds each against Debian's
# config and scripts/debug-kernel.config, so a name cannot promise a
# detector its kernel lacks.
kernel_log_detectors='
KASAN:CONFIG_KASAN:debug
lockdep:CONFIG_PROVE_LOCKING:debug
kmemleak:CONFIG_DEBUG_KMEMLEAK:debug
atomic sleep:CONFIG_DEBUG_ATOMIC_SLEEP:debug
slab:CONFIG_SLUB_DEBUG:stock debug
KFENCE:CONFIG_KFENCE:stock
page poison:CONFIG_PAGE_POISONING:stock debug
UBSAN:CONFIG_UBSAN:stock debug
list corruption:CONFIG_DEBUG_LIST:stock
refcount:-:stock debug
WARN:-:stock debug
BUG:-:stock debug
oops:-:stock debug
hung task:CONFIG_DETECT_HUNG_TASK:stock debug
soft lockup:CONFIG_SOFTLOCKUP_DETECTOR:stock debug
workqueue lockup:CONFIG_WQ_WATCHDOG:debug
RCU stall:-:stock debug
spurious IRQ:-:stock debug
'

kernel_log_kinds() {
	awk -F: -v k="$1" 'NF == 3 && (" " $3 " ") ~ (" " k " ") { n[++c] = $1 }
		END {
			for (i = 1; i <= c; i++)
				printf "%s%s", i == 1 ? "" : i == c ? " or " : ", ", n[i]
		}' <<<"$kernel_log_detectors"
}
