/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORCA devlink (orca_devlink.c): an instance per PCI function (struct
 * orca_pf), and its "fw_fatal" health reporter, whose recovery brings up
 * a new orca_dev; and the adapter's congestion control as the instance's
 * parameters (orca_cc.c).
 */
#ifndef ORCA_DEVLINK_H
#define ORCA_DEVLINK_H

#include "orca.h"

/* orca_devlink.c: the devlink instance and its fw_fatal health reporter */
struct orca_pf *orca_pf_alloc(struct pci_dev *pdev);
int orca_pf_register(struct orca_pf *pf);
void orca_pf_unregister(struct orca_pf *pf);
void orca_pf_free(struct orca_pf *pf);
void orca_devlink_report_dead(struct orca_dev *odev);

/* orca_cc.c: congestion control, as devlink parameters */
int orca_cc_params_register(struct orca_pf *pf);
void orca_cc_params_unregister(struct orca_pf *pf);

#endif /* ORCA_DEVLINK_H */
