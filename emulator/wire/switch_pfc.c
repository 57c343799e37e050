// SPDX-License-Identifier: GPL-2.0
/*
 * orca-wire's side of priority flow control (--pfc; the frame and the
 * pause decision are wire/pfc.c's): the bytes each ingress port has in
 * lossless queues, the PFC frames that pause and resume it, and the storm
 * watchdog.
 */
#include <string.h>

#include "util/clock.h"
#include "switch.h"

/* A queued frame leaves PFC's account of its ingress port. */
void sw_pfc_unaccount(struct wire *w, const struct egress_frame *f)
{
	struct pfc_ingress *in;
	unsigned int c;

	if (f->src < 0 || f->src >= MAX_PORTS)
		return;
	in = &w->ports[f->src].pfc;
	c = egress_class(f->data, f->len);
	in->bytes[c] = in->bytes[c] > f->len ? in->bytes[c] - (uint32_t)f->len : 0;
}

static void pfc_gone(void *ctx, const struct egress_frame *f)
{
	sw_pfc_unaccount(ctx, f);
}

/* @port's egress is about to drop what it holds: out of the accounts. */
void sw_pfc_forget_queued(struct wire *w, int port)
{
	struct egress *e = &w->ports[port].eg;

	for (int c = 0; c < EGRESS_CLASSES; c++)
		for (const struct egress_frame *f = e->q[c].head; f; f = f->next)
			sw_pfc_unaccount(w, f);
}

/*
 * Ingress port @port has gone: the frames of it that other ports still
 * queue are no longer anyone's to pause for.
 */
void sw_pfc_forget_ingress(struct wire *w, int port)
{
	for (int i = 0; i < MAX_PORTS; i++) {
		struct egress *e = &w->ports[i].eg;

		if (!w->ports[i].used || i == port)
			continue;
		for (int c = 0; c < EGRESS_CLASSES; c++)
			for (struct egress_frame *f = e->q[c].head; f; f = f->next)
				if (f->src == port)
					f->src = -1;
	}
}

/*
 * --pfc's watchdog: a lossless queue that has sent nothing for storm_ms
 * (its port took nothing: a hung adapter, a guest that stopped reading)
 * pauses its senders for ever, and their peers through them.  It is
 * flushed, its frames counted, and stays lossy until a frame of its class
 * leaves again; its senders' accounts fall, and they are resumed.
 */
static void pfc_watchdog(struct wire *w, uint64_t now)
{
	uint64_t storm = (uint64_t)w->pfc.storm_ms * 1000000;

	for (int i = 0; i < MAX_PORTS; i++) {
		struct egress *e = &w->ports[i].eg;
		unsigned int n;

		if (!w->ports[i].used || !e->queued)
			continue;
		for (unsigned int c = 0; c < EGRESS_CLASSES; c++) {
			if (!e->q[c].head || !egress_lossless(e, c) ||
			    now - e->progress_ns[c] < storm)
				continue;
			n = egress_flush_class(e, c, pfc_gone, w);
			w->st.pfc_storms++;
			wlog(w, "port %d: pfc storm: class %u sent nothing for %llu ms: %u frames flushed, lossy until it sends again",
			     i, c,
			     (unsigned long long)((now - e->progress_ns[c]) / 1000000),
			     n);
		}
	}
}

/* The switch port's own MAC, the source of its PFC frames. */
static void port_mac(int port, uint8_t mac[6])
{
	static const uint8_t base[6] = { 0x02, 0x0a, 0x0c, 0x5f, 0x00, 0x00 };

	memcpy(mac, base, 6);
	mac[5] = (uint8_t)port;
}

/*
 * --pfc: every ingress port is told what its accounts call for (pause,
 * refresh, resume), in a PFC frame that goes out at once, ahead of any
 * queue, as a MAC sends its control frames.  w->eg_wait_ns: no later than
 * the next refresh.
 */
void sw_pfc_round(struct wire *w)
{
	uint64_t now = now_ns();

	if (w->pfc.storm_ms)
		pfc_watchdog(w, now);
	for (int i = 0; i < MAX_PORTS; i++) {
		struct wire_port *p = &w->ports[i];
		uint16_t quanta[PFC_PRIOS];
		uint8_t buf[PFC_FRAME_LEN], mac[6];
		uint64_t next = 0, xoff, xon;
		struct frame f = { .data = buf, .len = PFC_FRAME_LEN,
				   .src_port = -1 };
		uint8_t enable;

		if (!p->used)
			continue;
		xoff = p->pfc.xoff_tx;
		xon = p->pfc.xon_tx;
		enable = pfc_due(&w->pfc, &p->pfc, now, p->eg_cfg.rate_mbps,
				 quanta, &next);
		if (next && next > now &&
		    (!w->eg_wait_ns || next - now < w->eg_wait_ns))
			w->eg_wait_ns = next - now;
		if (!enable)
			continue;
		port_mac(i, mac);
		pfc_frame_build(buf, mac, enable, quanta);
		w->st.pfc_frames++;
		w->st.pfc_xoff += p->pfc.xoff_tx - xoff;
		w->st.pfc_xon += p->pfc.xon_tx - xon;
		send_copy(w, i, &f);
	}
}
