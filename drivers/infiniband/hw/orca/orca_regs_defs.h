/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ORCA PCI identity, BAR layout and register file (BAR 0).
 *
 * Part of the ORCA adapter programming interface, version 1, the one
 * definition of its layouts.  The driver includes it directly; the adapter's
 * emulator and the rdma-core provider include this very file through a
 * small header of their own that supplies the kernel types and macros it
 * uses (u8..u64, __le16..__le64, BIT, GENMASK, FIELD_PREP/FIELD_GET,
 * static_assert), so it includes nothing itself.  Everything the device
 * reads or writes, and every register, is little endian.
 */
#ifndef _ORCA_REGS_DEFS_H_
#define _ORCA_REGS_DEFS_H_

/* ------------------------------------------------------------------------
 * PCI identity
 * ------------------------------------------------------------------------
 */
#define ORCA_PCI_VENDOR_ID		0x1234	/* unassigned placeholder */
#define ORCA_PCI_DEVICE_ID		0x0dca
#define ORCA_PCI_SUBSYS_VENDOR_ID	0x1234
#define ORCA_PCI_SUBSYS_DEVICE_ID	0x0001
#define ORCA_PCI_REVISION		0x01
#define ORCA_PCI_CLASS			0x020000 /* Ethernet controller */

/* BARs: all 64-bit non-prefetchable memory BARs. */
#define ORCA_BAR_REGS			0	/* register file, 4 KiB */
#define ORCA_BAR_REGS_SIZE		0x1000
#define ORCA_BAR_MSIX			2	/* MSI-X table + PBA */
#define ORCA_BAR_MSIX_SIZE		0x1000
#define ORCA_MSIX_TABLE_OFFSET		0x0
#define ORCA_MSIX_PBA_OFFSET		0x800
#define ORCA_MAX_MSIX			64
#define ORCA_BAR_UAR			4	/* doorbell (UAR) pages */
#define ORCA_UAR_PAGE_SIZE		0x1000
#define ORCA_NUM_UARS			256
#define ORCA_BAR_UAR_SIZE		(ORCA_UAR_PAGE_SIZE * ORCA_NUM_UARS)

/* ------------------------------------------------------------------------
 * Register file (BAR 0).  32-bit registers; 64-bit addresses are written as
 * two 32-bit halves, low first.
 * ------------------------------------------------------------------------
 */
#define ORCA_REG_MAGIC			0x000	/* RO: ORCA_MAGIC */
#define ORCA_REG_IF_VERSION		0x004	/* RO: interface version */
#define ORCA_REG_FW_VERSION		0x008	/* RO: major.minor.patch */
#define ORCA_REG_DEV_STATUS		0x00c	/* RO: ORCA_STATUS_* */
#define ORCA_REG_FATAL_SYNDROME		0x010	/* RO: ORCA_FATAL_* */
#define ORCA_REG_HEARTBEAT		0x014	/* RO: counts up every 100 ms */
#define ORCA_REG_DEV_CTRL		0x018	/* RW: ORCA_CTRL_* */
#define ORCA_REG_CAPS			0x01c	/* RO: ORCA_CAPS_* */
#define ORCA_REG_CMD_TIMEOUT_MS		0x020	/* RO: command timeout */
#define ORCA_REG_RESET_TIMEOUT_MS	0x024	/* RO: reset/ready timeout */
#define ORCA_REG_CMDQ_BASE_LO		0x028	/* RW: command queue DMA base */
#define ORCA_REG_CMDQ_BASE_HI		0x02c
#define ORCA_REG_CMDQ_COMP_BASE_LO	0x030	/* RW: command completion queue */
#define ORCA_REG_CMDQ_COMP_BASE_HI	0x034
#define ORCA_REG_CMDQ_CFG		0x038	/* RW: ORCA_CMDQ_CFG_* */
#define ORCA_REG_CMDQ_DB		0x03c	/* WO: command producer index */
#define ORCA_REG_EQ_DB			0x040	/* WO: ORCA_EQ_DB_* */
#define ORCA_REG_PORT_MAC_LO		0x048	/* RO: port MAC bytes 0-3 */
#define ORCA_REG_PORT_MAC_HI		0x04c	/* RO: port MAC bytes 4-5 */

#define ORCA_MAGIC			0x4143524f	/* "ORCA" */

#define ORCA_IF_VERSION_MAJOR		GENMASK(31, 16)
#define ORCA_IF_VERSION_MINOR		GENMASK(15, 0)
#define ORCA_IF_MAJOR			1
#define ORCA_IF_MINOR			1

#define ORCA_FW_VERSION_MAJOR		GENMASK(31, 24)
#define ORCA_FW_VERSION_MINOR		GENMASK(23, 16)
#define ORCA_FW_VERSION_PATCH		GENMASK(15, 0)

#define ORCA_STATUS_READY		BIT(0)	/* reset done, registers usable */
#define ORCA_STATUS_CMDQ_ENABLED	BIT(1)	/* command queue is running */
#define ORCA_STATUS_FATAL		BIT(2)	/* see FATAL_SYNDROME; reset */

#define ORCA_FATAL_NONE			0
#define ORCA_FATAL_CMDQ_DMA		1	/* command queue DMA failed */
#define ORCA_FATAL_EQ_OVERFLOW		2	/* an event queue overflowed */
#define ORCA_FATAL_EQ_DMA		3	/* event queue DMA failed */
#define ORCA_FATAL_INTERNAL		4	/* engine error */

#define ORCA_CTRL_RESET			BIT(0)	/* write 1: full function reset */
#define ORCA_CTRL_CMDQ_ENABLE		BIT(1)	/* start the command queue */

#define ORCA_CAPS_NUM_MSIX		GENMASK(7, 0)
#define ORCA_CAPS_LOG_MAX_CMDQ		GENMASK(11, 8)

#define ORCA_CMDQ_CFG_LOG_DEPTH		GENMASK(3, 0)	/* entries = 1 << n */

/*
 * EQ doorbell: report the consumer index of an EQ and optionally re-arm its
 * interrupt.  The consumer index counts entries modulo 2^20.
 */
#define ORCA_EQ_DB_CI			GENMASK(19, 0)
#define ORCA_EQ_DB_ARM			BIT(23)
#define ORCA_EQ_DB_EQN			GENMASK(31, 24)

#endif /* _ORCA_REGS_DEFS_H_ */
