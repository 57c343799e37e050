/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A link between an adapter's port and the wire switch: four frame rings
 * (frame_ring.h) in one memfd, eight eventfds for their wake-ups, and a
 * connected SOCK_SEQPACKET pair whose only use is to tell each side that
 * the other has gone (its end reads as hung up when the process exits).
 *
 * The adapter creates it all and hands the switch its share in one
 * datagram with SCM_RIGHTS, sent on the switch's ordinary socket: a
 * 12-byte "attach" message no frame can be confused with (a frame has at
 * least an Ethernet header).  The switch answers "ok" on the control
 * socket.  An older switch, which reads no file descriptors, makes the
 * kernel close them: the adapter sees the hang-up and keeps datagrams.
 *
 * Two adapters can share a link with no switch (a point-to-point link):
 * the one that attaches uses it as above, the other takes it mirrored
 * (wire_link_accept()'s @mirror), so that what one sends up comes down to
 * the other.
 *
 * The wire/ layer's interface for the port: the link, its frame rings,
 * the policy of a full link (link_policy.h) and PFC's frames (pfc.h),
 * included here.  The switch
 * program (wire_switch.c) is the other end.
 */
#ifndef ORCA_EMU_WIRE_LINK_H
#define ORCA_EMU_WIRE_LINK_H

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include "frame_ring.h"
#include "link_policy.h"
#include "pfc.h"

#define WIRE_LINK_NR_RINGS	4
#define WIRE_LINK_NR_FDS	(2 + 2 * WIRE_LINK_NR_RINGS)	/* memfd, control, eventfds */
#define WIRE_LINK_MSG_LEN	12

/*
 * Two lanes each way.  The port thread's carries the guest's virtio-net
 * frames; the engine's, its RoCEv2 frames: the engine builds into roce_up
 * and takes RoCEv2 frames the switch sends this port from roce_down in
 * place, with no thread between it and the switch (port.h).
 */
struct wire_link_mem {
	struct frame_ring_mem up;	/* adapter's port -> switch */
	struct frame_ring_mem down;	/* switch -> adapter's port */
	struct frame_ring_mem roce_up;	/* adapter's engine -> switch */
	struct frame_ring_mem roce_down; /* switch -> adapter's engine */
	/*
	 * What the switch tells the port of the link, as autonegotiation
	 * would: its rate in Mb/s (0: not modelled), which PFC's pause
	 * quanta are counted in.  Written once after the attach.
	 */
	uint32_t rate_mbps;
};

/**
 * struct wire_link - either side's handle on a link
 * @mem: both rings, shared
 * @ctl: control socket: readable with nothing to read = the peer is gone
 * @efd: data and space eventfds of up, down, roce_up, roce_down
 * @up: port -> switch ring (the adapter produces, the switch consumes)
 * @down: switch -> port ring: every frame but RoCEv2 ones
 * @roce_up: engine -> switch ring
 * @roce_down: switch -> engine ring: RoCEv2 frames (roce_classify())
 */
struct wire_link {
	struct wire_link_mem *mem;
	int ctl;
	int efd[2 * WIRE_LINK_NR_RINGS];
	struct frame_ring up;
	struct frame_ring down;
	struct frame_ring roce_up;
	struct frame_ring roce_down;
};

/*
 * Adapter side: create a link and attach it to the switch at @to, sending
 * from @sock; waits up to @timeout_ms for the switch's answer.  0, or
 * -errno with nothing left open.  @wait_peer: @to is another adapter's
 * port (a point-to-point link), which may not have bound its socket yet:
 * keep trying within @timeout_ms.
 */
int wire_link_attach(struct wire_link *l, int sock, const struct sockaddr *to,
		     socklen_t to_len, int timeout_ms, bool wait_peer);

/*
 * Switch side: receive one datagram like recvfrom(MSG_DONTWAIT | MSG_TRUNC),
 * plus up to WIRE_LINK_NR_FDS descriptors passed with it (*nfds of them,
 * which the caller then owns).
 */
ssize_t wire_link_recv(int sock, void *buf, size_t size,
		       struct sockaddr_un *from, socklen_t *from_len,
		       int *fds, int *nfds);

/*
 * Switch side: take the link an attach message (@msg, @len) carried in
 * @fds; writes the link's rate @rate_mbps (0: not modelled) and answers
 * the adapter, which so finds the rate there once attached.  Owns the fds in every case: 0, or -errno with
 * all of them closed.  @mirror: the taker is the other adapter of a
 * point-to-point link, no switch between the two: its up rings are the
 * attacher's down rings and the other way round, so both ports use the
 * link as they would a switch's.
 */
int wire_link_accept(struct wire_link *l, const void *msg, size_t len,
		     const int *fds, int nfds, bool mirror, uint32_t rate_mbps);

void wire_link_close(struct wire_link *l);

/* Port side: the rate the switch announced, 0 if none. */
uint32_t wire_link_rate(const struct wire_link *l);

#endif /* ORCA_EMU_WIRE_LINK_H */
