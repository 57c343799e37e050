// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA RoCE port: pairing with the netdev that carries the port's MAC,
 * port attributes and state events, the GID table, and telling the adapter
 * the Ethernet MTU in use.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/if_macvlan.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "orca_eq.h"
#include "orca_port.h"

#define ORCA_MIN_ETH_MTU	576
#define ORCA_MAX_ETH_MTU	9000
#define ORCA_MAX_GID_TBL_LEN	1024U

static void orca_port_work(struct work_struct *work);

/* Re-read the adapter's view of the port; called with port->lock held. */
static int orca_port_refresh(struct orca_dev *odev)
{
	struct orca_port *port = &odev->port;
	struct orca_com_port_info attr;
	int err;

	lockdep_assert_held(&port->lock);
	err = orca_com_query_port(odev, &attr);
	if (err) {
		port->link_up = false;
		return err;
	}
	port->link_up = attr.state == ORCA_PORT_STATE_ACTIVE;
	port->max_mtu = clamp_t(u8, attr.max_mtu, IB_MTU_256, IB_MTU_4096);
	port->speed_mbps = attr.speed_mbps;
	return 0;
}

/**
 * orca_port_init_hw() - read the port's MAC, attributes and GID table size
 * @odev: device with a working command queue
 *
 * Return: 0 or a negative errno.
 */
int orca_port_init_hw(struct orca_dev *odev)
{
	struct orca_port *port = &odev->port;
	struct orca_com_port_info attr;
	u32 lo, hi, len;
	int err;

	mutex_init(&port->lock);
	INIT_WORK(&port->work, orca_port_work);
	port->state = IB_PORT_DOWN;
	/* Byte 0 of the MAC is the low byte of PORT_MAC_LO. */
	lo = orca_rd32(odev, ORCA_REG_PORT_MAC_LO);
	hi = orca_rd32(odev, ORCA_REG_PORT_MAC_HI);
	port->mac[0] = lo;
	port->mac[1] = lo >> 8;
	port->mac[2] = lo >> 16;
	port->mac[3] = lo >> 24;
	port->mac[4] = hi;
	port->mac[5] = hi >> 8;
	if (!is_valid_ether_addr(port->mac)) {
		dev_err(&odev->pdev->dev, "invalid port MAC %pM\n", port->mac);
		return -EINVAL;
	}

	err = orca_com_query_port(odev, &attr);
	if (err)
		return err;
	mutex_lock(&port->lock);
	port->link_up = attr.state == ORCA_PORT_STATE_ACTIVE;
	port->max_mtu = clamp_t(u8, attr.max_mtu, IB_MTU_256, IB_MTU_4096);
	port->speed_mbps = attr.speed_mbps;
	mutex_unlock(&port->lock);

	len = attr.gid_table_len;
	if (odev->caps.gid_table_len)
		len = len ? min(len, odev->caps.gid_table_len) :
			    odev->caps.gid_table_len;
	if (!len) {
		dev_err(&odev->pdev->dev, "device reports no GID entries\n");
		return -EINVAL;
	}
	/* The core allocates the whole table: bound what the device says. */
	port->gid_tbl_len = min(len, ORCA_MAX_GID_TBL_LEN);
	return 0;
}

static enum ib_port_state orca_port_state(struct orca_dev *odev,
					  struct net_device *ndev)
{
	if (ndev && netif_running(ndev) && netif_carrier_ok(ndev) &&
	    odev->port.link_up)
		return IB_PORT_ACTIVE;
	return IB_PORT_DOWN;
}

/*
 * Everything that needs a command or the RTNL runs here rather than in the
 * notifier (which holds the RTNL) or in the EQ 0 thread (which must not
 * wait for a command completion it is the one to deliver).
 */
static void orca_port_work(struct work_struct *work)
{
	struct orca_dev *odev = container_of(work, struct orca_dev, port.work);
	struct orca_port *port = &odev->port;
	struct ib_event ev = {};
	struct net_device *ndev;
	enum ib_port_state state;
	bool rescan, changed;
	u32 mtu;

	ndev = ib_device_get_netdev(&odev->ibdev, ORCA_PORT);

	mutex_lock(&port->lock);
	orca_port_refresh(odev);
	if (ndev) {
		mtu = clamp_t(u32, READ_ONCE(ndev->mtu), ORCA_MIN_ETH_MTU,
			      ORCA_MAX_ETH_MTU);
		if (mtu != port->eth_mtu && !orca_com_set_port(odev, mtu))
			port->eth_mtu = mtu;
	}
	rescan = port->need_rescan;
	port->need_rescan = false;
	state = orca_port_state(odev, ndev);
	changed = state != port->state;
	port->state = state;
	mutex_unlock(&port->lock);

	if (ndev && rescan)
		rdma_roce_rescan_port(&odev->ibdev, ORCA_PORT);
	dev_put(ndev);

	if (!changed)
		return;
	ev.device = &odev->ibdev;
	ev.element.port_num = ORCA_PORT;
	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					     IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

/**
 * orca_port_changed() - the adapter reported a port change
 * @odev: device
 *
 * Called from the EQ 0 thread; the port is re-read from a work item.
 */
void orca_port_changed(struct orca_dev *odev)
{
	/* Before registration, orca_ib_register() runs the work once. */
	if (test_bit(ORCA_DEV_REGISTERED, &odev->flags))
		schedule_work(&odev->port.work);
}

/*
 * The port's netdev is the NIC whose permanent address is the MAC the
 * adapter reported at probe.  dev_addr is not used: `ip link set address`
 * changes it, so pairing by it would leave the port unpaired after a
 * reload, or pair it with whatever netdev took that address (a bridge or
 * bond copies its port's MAC).  rxe is paired by name and mlx5 by its PCI
 * function; perm_addr is the identity ORCA's NIC keeps.
 */
static bool orca_netdev_matches(struct orca_dev *odev, struct net_device *ndev)
{
	return ndev->type == ARPHRD_ETHER && !is_vlan_dev(ndev) &&
	       !netif_is_macvlan(ndev) &&
	       ether_addr_equal(ndev->perm_addr, odev->port.mac);
}

/*
 * Runs under the RTNL, which also serialises port->netdev: the notifier is
 * its only writer until orca_port_cleanup() has unregistered it.
 */
static int orca_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct orca_dev *odev = container_of(nb, struct orca_dev, port.nb);
	struct orca_port *port = &odev->port;

	if (READ_ONCE(port->closing))
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_UP:
		if (port->netdev == ndev || port->netdev ||
		    !orca_netdev_matches(odev, ndev))
			break;
		if (ib_device_set_netdev(&odev->ibdev, ndev, ORCA_PORT))
			break;
		port->netdev = ndev;
		mutex_lock(&port->lock);
		port->need_rescan = true;
		mutex_unlock(&port->lock);
		orca_port_changed(odev);
		break;
	case NETDEV_UNREGISTER:
		if (port->netdev != ndev)
			break;
		ib_device_set_netdev(&odev->ibdev, NULL, ORCA_PORT);
		port->netdev = NULL;
		orca_port_changed(odev);
		break;
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		if (port->netdev == ndev)
			orca_port_changed(odev);
		break;
	default:
		break;
	}
	return NOTIFY_DONE;
}

/**
 * orca_port_init() - start pairing the port with its netdev
 * @odev: device, not yet registered with the RDMA core
 *
 * Registering the notifier replays NETDEV_REGISTER and NETDEV_UP for every
 * existing netdev, so a netdev that appeared before us is found the same
 * way as one that appears later.  One that exists now is the ib_device's
 * before ib_register_device(): the core then fills the GID table while
 * registering, before it calls the clients, so a ULP that reads GID 0 in
 * its add callback (ib_srpt) finds it, as on rxe and mlx5.
 *
 * Return: 0 or a negative errno.
 */
int orca_port_init(struct orca_dev *odev)
{
	struct orca_port *port = &odev->port;

	port->nb.notifier_call = orca_netdev_event;
	return register_netdevice_notifier(&port->nb);
}

void orca_port_cleanup(struct orca_dev *odev)
{
	struct orca_port *port = &odev->port;

	WRITE_ONCE(port->closing, true);
	unregister_netdevice_notifier(&port->nb);
	/* Also ignores PORT_CHANGE events that arrive until EQ 0 is gone. */
	disable_work_sync(&port->work);
	if (port->netdev) {
		ib_device_set_netdev(&odev->ibdev, NULL, ORCA_PORT);
		port->netdev = NULL;
	}
}

static void orca_speed_to_ib(u32 mbps, u16 *speed, u8 *width)
{
	*width = IB_WIDTH_1X;
	if (mbps <= 2500) {
		*speed = IB_SPEED_SDR;
	} else if (mbps <= 5000) {
		*speed = IB_SPEED_DDR;
	} else if (mbps <= 10000) {
		*speed = IB_SPEED_QDR;
	} else if (mbps <= 25000) {
		*speed = IB_SPEED_EDR;
	} else if (mbps <= 50000) {
		*speed = IB_SPEED_HDR;
	} else if (mbps <= 100000) {
		*speed = IB_SPEED_EDR;
		*width = IB_WIDTH_4X;
	} else {
		*speed = IB_SPEED_HDR;
		*width = IB_WIDTH_4X;
	}
}

int orca_query_port(struct ib_device *ibdev, u32 port_num,
		    struct ib_port_attr *attr)
{
	struct orca_dev *odev = to_odev(ibdev);
	struct orca_port *port = &odev->port;
	struct net_device *ndev;
	enum ib_mtu mtu;
	int eth_mtu;

	ndev = ib_device_get_netdev(ibdev, port_num);

	mutex_lock(&port->lock);
	attr->state = orca_port_state(odev, ndev);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = port->max_mtu;
	attr->active_mtu = IB_MTU_256;
	if (ndev) {
		eth_mtu = READ_ONCE(ndev->mtu) - ORCA_ROCE_HDR_OVERHEAD;
		mtu = ib_mtu_int_to_enum(eth_mtu);
		attr->active_mtu = min(mtu, port->max_mtu);
	}
	orca_speed_to_ib(port->speed_mbps, &attr->active_speed,
			 &attr->active_width);
	attr->gid_tbl_len = port->gid_tbl_len;
	mutex_unlock(&port->lock);
	dev_put(ndev);

	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->ip_gids = true;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = odev->caps.max_msg_size;
	return 0;
}

/* Without this op the core derives InfiniBand from the node type. */
enum rdma_link_layer orca_get_link_layer(struct ib_device *ibdev, u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

int orca_get_port_immutable(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_immutable *immutable)
{
	struct orca_dev *odev = to_odev(ibdev);

	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = odev->port.gid_tbl_len;
	immutable->pkey_tbl_len = 1;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

int orca_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		    u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

int orca_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct orca_dev *odev = to_odev(attr->device);
	u8 mac[ETH_ALEN];
	u16 vlan;
	int err;

	if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	err = rdma_read_gid_l2_fields(attr, &vlan, mac);
	if (err)
		return err;
	return orca_com_set_gid(odev, attr->index, ORCA_GID_TYPE_ROCE_V2, mac,
				vlan, attr->gid.raw);
}

int orca_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct orca_dev *odev = to_odev(attr->device);

	/* Clearing the entry cannot meaningfully fail on a dead device. */
	orca_com_set_gid(odev, attr->index, 0, NULL, 0xffff, NULL);
	return 0;
}
