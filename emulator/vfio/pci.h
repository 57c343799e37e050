/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The adapter's PCI function as the vfio-user client sees it: the regions
 * (BARs, config space), the config space itself with its BAR sizing and
 * MSI-X capability, and the dispatch of BAR accesses to the engine.
 */
#ifndef ORCA_EMU_PCI_H
#define ORCA_EMU_PCI_H

#include <stdint.h>

#include "engine/engine.h"

/* Region indexes as in <linux/vfio.h> (VFIO_PCI_*_REGION_INDEX). */
#define PCI_REGION_BAR0		0
#define PCI_REGION_BAR5		5
#define PCI_REGION_ROM		6
#define PCI_REGION_CONFIG	7
#define PCI_REGION_VGA		8
#define PCI_NUM_REGIONS		9

/* Region flags as VFIO_REGION_INFO_FLAG_*. */
#define PCI_REGION_F_READ	(1u << 0)
#define PCI_REGION_F_WRITE	(1u << 1)

#define PCI_CFG_SIZE		256
/* Where our capabilities live in config space. */
#define PCI_CAP_MSIX_OFF	0x40

struct pci_func {
	uint8_t cfg[PCI_CFG_SIZE];
	uint8_t wmask[PCI_CFG_SIZE];	/* bits the guest may change */
	struct orca_engine *eng;
	unsigned int num_msix;
};

void vfio_pci_func_init(struct pci_func *f, struct orca_engine *eng,
			unsigned int num_msix);

/* Size and PCI_REGION_F_* flags of a region; -EINVAL for a bad index. */
int vfio_pci_region_info(const struct pci_func *f, uint32_t index,
			 uint64_t *size, uint32_t *flags);

/*
 * Region accesses from the client.  Each checks that [off, off + count)
 * lies inside the region and that the access has a width the region
 * supports; -EINVAL otherwise.  Never blocks.
 */
int vfio_pci_region_read(struct pci_func *f, uint32_t index, uint64_t off,
			 void *buf, uint32_t count);
int vfio_pci_region_write(struct pci_func *f, uint32_t index, uint64_t off,
			  const void *buf, uint32_t count);

/* MSI-X enable bit of the capability (for logs and tests). */
int vfio_pci_msix_enabled(const struct pci_func *f);

#endif /* ORCA_EMU_PCI_H */
