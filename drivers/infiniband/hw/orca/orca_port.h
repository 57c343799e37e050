/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORCA RoCE port (orca_port.c): its pairing with the netdev, its state and
 * MTU, and the GID table.
 */
#ifndef ORCA_PORT_H
#define ORCA_PORT_H

#include "orca.h"

/* orca_port.c */
int orca_port_init_hw(struct orca_dev *odev);
int orca_port_init(struct orca_dev *odev);
void orca_port_cleanup(struct orca_dev *odev);
int orca_query_port(struct ib_device *ibdev, u32 port,
		    struct ib_port_attr *attr);
int orca_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *immutable);
enum rdma_link_layer orca_get_link_layer(struct ib_device *ibdev, u32 port);
int orca_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
int orca_add_gid(const struct ib_gid_attr *attr, void **context);
int orca_del_gid(const struct ib_gid_attr *attr, void **context);

#endif /* ORCA_PORT_H */
