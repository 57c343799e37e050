// SPDX-License-Identifier: GPL-2.0
/*
 * An uplink port on a host network interface (uplink.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uplink.h"

int uplink_open(struct uplink *u, const char *ifname)
{
	struct sockaddr_ll sa = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_ALL) };
	struct packet_mreq mr = { .mr_type = PACKET_MR_PROMISC };
	int fd, err, one = 1, bufsz = 16 << 20;

	memset(u, 0, sizeof(*u));
	u->fd = -1;
	if (strlen(ifname) >= sizeof(u->name))
		return -ENAMETOOLONG;
	snprintf(u->name, sizeof(u->name), "%s", ifname);
	u->ifindex = (int)if_nametoindex(ifname);
	if (!u->ifindex)
		return -ENODEV;
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    htons(ETH_P_ALL));
	if (fd < 0)
		return -errno;
	sa.sll_ifindex = u->ifindex;
	mr.mr_ifindex = u->ifindex;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
		       sizeof(mr))) {
		err = -errno;
		close(fd);
		return err;
	}
	/* What we send must not come back to us as received. */
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	/*
	 * A burst the switch is too busy to read at once waits in the
	 * socket, not dropped by it: 16 MiB, past rmem_max as root may.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsz, sizeof(bufsz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bufsz, sizeof(bufsz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	u->fd = fd;
	return 0;
}

uint64_t uplink_rx_dropped(struct uplink *u)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	/* Reading them resets the kernel's counts: they add up here. */
	if (u->fd >= 0 &&
	    !getsockopt(u->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		u->rx_dropped += st.tp_drops;
	return u->rx_dropped;
}

void uplink_close(struct uplink *u)
{
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}

ssize_t uplink_recv(struct uplink *u, uint8_t *buf, size_t size)
{
	for (;;) {
		struct sockaddr_ll from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(u->fd, buf, size, MSG_DONTWAIT | MSG_TRUNC,
				     (struct sockaddr *)&from, &flen);

		if (n < 0)
			return 0;
		/* Older kernels have no PACKET_IGNORE_OUTGOING. */
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (n < ETH_HLEN || (size_t)n > size)
			return -1;
		return n;
	}
}

int uplink_send(struct uplink *u, const uint8_t *frame, size_t len)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET,
				  .sll_ifindex = u->ifindex,
				  .sll_halen = ETH_ALEN };

	memcpy(to.sll_addr, frame, ETH_ALEN);
	if (sendto(u->fd, frame, len, MSG_DONTWAIT | MSG_NOSIGNAL,
		   (struct sockaddr *)&to, sizeof(to)) == (ssize_t)len)
		return 0;
	return errno ? -errno : -EIO;
}
