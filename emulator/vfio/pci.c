// SPDX-License-Identifier: GPL-2.0
/*
 * The adapter's PCI function (see pci.h).  Config space is a byte array
 * plus a write mask: BAR sizing falls out of the mask (the low bits of a
 * BAR are read-only, so writing all-ones reads back the size mask), and the
 * ROM BAR, IDs and capabilities are simply not writable.  BAR 0 goes to the
 * engine's register file, BAR 4 to its doorbells; BAR 2 holds the MSI-X
 * table and PBA, which QEMU emulates, so we only answer its PBA reads.
 */
#include <errno.h>
#include <string.h>

#include "orca_hw.h"

#include "util/log.h"
#include "pci.h"

/* Config space offsets and bits (PCI Local Bus 3.0). */
#define CFG_VENDOR_ID		0x00
#define CFG_DEVICE_ID		0x02
#define CFG_COMMAND		0x04
#define CFG_STATUS		0x06
#define CFG_REVISION		0x08
#define CFG_CLASS_PROG		0x09
#define CFG_CACHE_LINE		0x0c
#define CFG_LATENCY		0x0d
#define CFG_HEADER_TYPE		0x0e
#define CFG_BAR0		0x10
#define CFG_SUBSYS_VENDOR	0x2c
#define CFG_SUBSYS_ID		0x2e
#define CFG_ROM			0x30
#define CFG_CAP_PTR		0x34
#define CFG_INT_LINE		0x3c
#define CFG_INT_PIN		0x3d

#define CMD_IO			0x0001
#define CMD_MEMORY		0x0002
#define CMD_MASTER		0x0004
#define CMD_PARITY		0x0040
#define CMD_SERR		0x0100
#define CMD_INTX_DISABLE	0x0400
#define STATUS_CAP_LIST		0x0010

#define BAR_MEM_TYPE_64		0x04

#define CAP_ID_MSIX		0x11
#define MSIX_FLAGS		2	/* u16 message control */
#define MSIX_TABLE		4	/* u32 offset | BIR */
#define MSIX_PBA		8
#define MSIX_FLAGS_ENABLE	0x8000
#define MSIX_FLAGS_MASKALL	0x4000

static uint64_t bar_size(unsigned int bar)
{
	switch (bar) {
	case ORCA_BAR_REGS:
		return ORCA_BAR_REGS_SIZE;
	case ORCA_BAR_MSIX:
		return ORCA_BAR_MSIX_SIZE;
	case ORCA_BAR_UAR:
		return ORCA_BAR_UAR_SIZE;
	default:
		return 0;	/* upper half of a 64-bit BAR */
	}
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static void set_wmask32(struct pci_func *f, unsigned int off, uint32_t mask)
{
	put32(&f->wmask[off], mask);
}

void vfio_pci_func_init(struct pci_func *f, struct orca_engine *eng,
			unsigned int num_msix)
{
	uint8_t *c = f->cfg;
	unsigned int bar;

	memset(f, 0, sizeof(*f));
	f->eng = eng;
	f->num_msix = num_msix;

	put16(c + CFG_VENDOR_ID, ORCA_PCI_VENDOR_ID);
	put16(c + CFG_DEVICE_ID, ORCA_PCI_DEVICE_ID);
	put16(c + CFG_STATUS, STATUS_CAP_LIST);
	c[CFG_REVISION] = ORCA_PCI_REVISION;
	c[CFG_CLASS_PROG] = ORCA_PCI_CLASS & 0xff;
	c[CFG_CLASS_PROG + 1] = (ORCA_PCI_CLASS >> 8) & 0xff;
	c[CFG_CLASS_PROG + 2] = (ORCA_PCI_CLASS >> 16) & 0xff;
	c[CFG_HEADER_TYPE] = 0;
	put16(c + CFG_SUBSYS_VENDOR, ORCA_PCI_SUBSYS_VENDOR_ID);
	put16(c + CFG_SUBSYS_ID, ORCA_PCI_SUBSYS_DEVICE_ID);
	c[CFG_CAP_PTR] = PCI_CAP_MSIX_OFF;
	c[CFG_INT_PIN] = 0;	/* MSI-X only: keep INTx out of the way */

	put16(&f->wmask[CFG_COMMAND], CMD_IO | CMD_MEMORY | CMD_MASTER |
	      CMD_PARITY | CMD_SERR | CMD_INTX_DISABLE);
	f->wmask[CFG_CACHE_LINE] = 0xff;
	f->wmask[CFG_LATENCY] = 0xff;
	f->wmask[CFG_INT_LINE] = 0xff;

	/* 64-bit BAR pairs: low dword keeps its type bits, high is free. */
	for (bar = 0; bar < 6; bar += 2) {
		uint64_t size = bar_size(bar);
		unsigned int off = CFG_BAR0 + 4 * bar;

		if (!size)
			continue;
		put32(c + off, BAR_MEM_TYPE_64);
		set_wmask32(f, off, ~(uint32_t)(size - 1));
		set_wmask32(f, off + 4, 0xffffffff);
	}

	/* MSI-X: table and PBA in BAR 2; only enable and mask-all change. */
	c[PCI_CAP_MSIX_OFF] = CAP_ID_MSIX;
	c[PCI_CAP_MSIX_OFF + 1] = 0;	/* end of the list */
	put16(c + PCI_CAP_MSIX_OFF + MSIX_FLAGS, num_msix - 1);
	put32(c + PCI_CAP_MSIX_OFF + MSIX_TABLE,
	      ORCA_MSIX_TABLE_OFFSET | ORCA_BAR_MSIX);
	put32(c + PCI_CAP_MSIX_OFF + MSIX_PBA,
	      ORCA_MSIX_PBA_OFFSET | ORCA_BAR_MSIX);
	put16(&f->wmask[PCI_CAP_MSIX_OFF + MSIX_FLAGS],
	      MSIX_FLAGS_ENABLE | MSIX_FLAGS_MASKALL);
}

int vfio_pci_region_info(const struct pci_func *f, uint32_t index,
			 uint64_t *size, uint32_t *flags)
{
	if (index >= PCI_NUM_REGIONS)
		return -EINVAL;
	*size = 0;
	*flags = 0;
	if (index <= PCI_REGION_BAR5)
		*size = bar_size(index);
	else if (index == PCI_REGION_CONFIG)
		*size = PCI_CFG_SIZE;
	if (*size)
		*flags = PCI_REGION_F_READ | PCI_REGION_F_WRITE;
	return 0;
}

int vfio_pci_msix_enabled(const struct pci_func *f)
{
	const uint8_t *p = &f->cfg[PCI_CAP_MSIX_OFF + MSIX_FLAGS];

	return !!((p[0] | p[1] << 8) & MSIX_FLAGS_ENABLE);
}

/* Bounds of an access to a region of @size; overflow-safe. */
static int access_ok(uint64_t size, uint64_t off, uint32_t count)
{
	return count && off < size && count <= size - off;
}

/* The register file and doorbells take aligned 32-bit accesses only. */
static int dword_access_ok(uint64_t size, uint64_t off, uint32_t count)
{
	return access_ok(size, off, count) && !(off % 4) && !(count % 4);
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

int vfio_pci_region_read(struct pci_func *f, uint32_t index, uint64_t off,
			 void *buf, uint32_t count)
{
	uint8_t *out = buf;
	uint32_t i;

	switch (index) {
	case PCI_REGION_CONFIG:
		if (!access_ok(PCI_CFG_SIZE, off, count))
			return -EINVAL;
		memcpy(out, &f->cfg[off], count);
		return 0;
	case ORCA_BAR_REGS:
		if (!dword_access_ok(ORCA_BAR_REGS_SIZE, off, count))
			return -EINVAL;
		for (i = 0; i < count; i += 4)
			put32(out + i, engine_reg_read(f->eng, off + i));
		return 0;
	case ORCA_BAR_MSIX:
		/*
		 * QEMU emulates the table; PBA reads reach us.  Nothing is
		 * ever pending here because masking happens in QEMU too.
		 */
		if (!access_ok(ORCA_BAR_MSIX_SIZE, off, count))
			return -EINVAL;
		memset(out, 0, count);
		return 0;
	case ORCA_BAR_UAR:
		/* Doorbells are write-only. */
		if (!dword_access_ok(ORCA_BAR_UAR_SIZE, off, count))
			return -EINVAL;
		memset(out, 0, count);
		return 0;
	default:
		return -EINVAL;
	}
}

static void config_write(struct pci_func *f, uint64_t off, const uint8_t *in,
			 uint32_t count)
{
	uint32_t i;

	for (i = 0; i < count; i++) {
		uint8_t m = f->wmask[off + i];

		f->cfg[off + i] = (f->cfg[off + i] & ~m) | (in[i] & m);
	}
}

int vfio_pci_region_write(struct pci_func *f, uint32_t index, uint64_t off,
			  const void *buf, uint32_t count)
{
	const uint8_t *in = buf;
	uint32_t i;

	switch (index) {
	case PCI_REGION_CONFIG:
		if (!access_ok(PCI_CFG_SIZE, off, count))
			return -EINVAL;
		config_write(f, off, in, count);
		/* Bus Master Enable gates every DMA of the engine. */
		if (off < CFG_COMMAND + 1 && off + count > CFG_COMMAND)
			engine_set_bus_master(f->eng,
					      f->cfg[CFG_COMMAND] & CMD_MASTER);
		return 0;
	case ORCA_BAR_REGS:
		if (!dword_access_ok(ORCA_BAR_REGS_SIZE, off, count))
			return -EINVAL;
		for (i = 0; i < count; i += 4)
			engine_reg_write(f->eng, off + i, get32(in + i));
		return 0;
	case ORCA_BAR_MSIX:
		if (!access_ok(ORCA_BAR_MSIX_SIZE, off, count))
			return -EINVAL;
		return 0;	/* QEMU owns the table; the PBA is read-only */
	case ORCA_BAR_UAR:
		if (!dword_access_ok(ORCA_BAR_UAR_SIZE, off, count))
			return -EINVAL;
		for (i = 0; i < count; i += 4) {
			uint64_t o = off + i;

			engine_uar_write(f->eng, o / ORCA_UAR_PAGE_SIZE,
					 o % ORCA_UAR_PAGE_SIZE, get32(in + i));
		}
		return 0;
	default:
		return -EINVAL;
	}
}
