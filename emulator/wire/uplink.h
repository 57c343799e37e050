/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An uplink (issue 33): one orca-wire port on a host network interface,
 * through an AF_PACKET socket, so that the fabric leaves the machine the
 * way any Ethernet does: through a TAP device, a veth pair into a bridge,
 * or a physical NIC, with no tunnel of our own.  Frames the interface
 * receives come in on that port; frames for the port go out on the
 * interface.  The switch program (wire_switch.c) uses it.
 */
#ifndef ORCA_EMU_UPLINK_H
#define ORCA_EMU_UPLINK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * struct uplink - an interface taken as a switch port
 * @fd: the AF_PACKET socket, bound to the interface, non-blocking
 * @ifindex: the interface's index
 * @name: its name
 * @rx_dropped: frames the socket's queue had no room for (the kernel's)
 */
struct uplink {
	int fd;
	int ifindex;
	char name[16];
	uint64_t rx_dropped;
};

/*
 * Opens @ifname (which must exist and be up) in promiscuous mode: every
 * frame on the link, not only those for one MAC.  0, or -errno.
 */
int uplink_open(struct uplink *u, const char *ifname);
void uplink_close(struct uplink *u);

/* Frames the interface received that the socket had no room for. */
uint64_t uplink_rx_dropped(struct uplink *u);

/*
 * The next frame the interface received into @buf (@size bytes): its
 * length, 0 if there is none now, or -1 for one that is not a frame
 * (shorter than an Ethernet header, longer than @size).  Frames this
 * socket sent, which the interface shows it too, are skipped.
 */
ssize_t uplink_recv(struct uplink *u, uint8_t *buf, size_t size);

/* Sends one frame; 0, or -errno (-EAGAIN: the interface's queue is full). */
int uplink_send(struct uplink *u, const uint8_t *frame, size_t len);

#endif /* ORCA_EMU_UPLINK_H */
