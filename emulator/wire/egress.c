// SPDX-License-Identifier: GPL-2.0
/*
 * A switch port's egress: rate, per-class queues, drops and ECN marking
 * (egress.h).
 */
#include <stdlib.h>
#include <string.h>

#include "egress.h"

#define ETH_HLEN	14
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86dd
#define ETH_P_8021Q	0x8100
#define ECN_MASK	3u
#define ECN_CE		3u
void egress_init(struct egress *e, const struct egress_cfg *cfg,
		 uint64_t seed)
{
	memset(e, 0, sizeof(*e));
	e->cfg = cfg;
	e->rng = seed ? seed : 0x2545f4914f6cdd1dULL;
	for (int c = 0; c < EGRESS_CLASSES; c++)
		e->q[c].tail = &e->q[c].head;
	token_bucket_init(&e->bucket, cfg->rate_mbps);
}

void egress_fini(struct egress *e)
{
	for (int c = 0; c < EGRESS_CLASSES; c++) {
		while (e->q[c].head) {
			struct egress_frame *f = e->q[c].head;

			e->q[c].head = f->next;
			e->st.dropped++;
			free(f);
		}
		e->q[c].tail = &e->q[c].head;
		e->q[c].bytes = 0;
	}
	e->queued = 0;
}

/* The IP header's offset and version (4 or 6), or 0 for a non-IP frame. */
static int ip_header(const uint8_t *f, size_t len, size_t *off)
{
	size_t o = 12;
	unsigned int type;

	if (len < ETH_HLEN)
		return 0;
	type = f[o] << 8 | f[o + 1];
	if (type == ETH_P_8021Q) {
		o += 4;
		if (len < o + 2)
			return 0;
		type = f[o] << 8 | f[o + 1];
	}
	o += 2;
	if (type == ETH_P_IP && len >= o + 20 && (f[o] >> 4) == 4 &&
	    (f[o] & 0x0f) >= 5 && len >= o + (f[o] & 0x0fu) * 4) {
		*off = o;
		return 4;
	}
	if (type == ETH_P_IPV6 && len >= o + 40 && (f[o] >> 4) == 6) {
		*off = o;
		return 6;
	}
	return 0;
}

/* The IP traffic class byte (IPv4 TOS), or -1 for a non-IP frame. */
static int traffic_class(const uint8_t *f, size_t len, size_t *off, int *ver)
{
	*ver = ip_header(f, len, off);
	if (*ver == 4)
		return f[*off + 1];
	if (*ver == 6)
		return (f[*off] & 0x0f) << 4 | f[*off + 1] >> 4;
	return -1;
}

unsigned int egress_class(const uint8_t *frame, size_t len)
{
	size_t off;
	int ver, tc = traffic_class(frame, len, &off, &ver);

	return tc < 0 ? 0 : (unsigned int)tc >> 5;	/* DSCP >> 3 */
}

static void ipv4_checksum(uint8_t *ip)
{
	size_t hlen = (ip[0] & 0x0fu) * 4;
	uint32_t sum = 0;

	ip[10] = ip[11] = 0;
	for (size_t i = 0; i < hlen; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	ip[10] = sum >> 8;
	ip[11] = sum & 0xff;
}

bool egress_mark_ce(uint8_t *frame, size_t len)
{
	size_t off;
	int ver, tc = traffic_class(frame, len, &off, &ver);

	if (tc < 0 || !((unsigned int)tc & ECN_MASK))
		return false;		/* not IP, or Not-ECT */
	if (ver == 4) {
		frame[off + 1] |= ECN_CE;
		ipv4_checksum(frame + off);
	} else {
		frame[off + 1] |= ECN_CE << 4;
	}
	return true;
}

static uint32_t rand32(struct egress *e)
{
	e->rng ^= e->rng << 13;
	e->rng ^= e->rng >> 7;
	e->rng ^= e->rng << 17;
	return (uint32_t)(e->rng >> 32);
}

/* RED's marking decision for a queue of @depth bytes. */
static bool mark_due(struct egress *e, uint32_t depth)
{
	const struct egress_cfg *c = e->cfg;
	uint64_t p;

	if (!c->ecn_max_bytes || depth <= c->ecn_min_bytes)
		return false;
	if (depth >= c->ecn_max_bytes || c->ecn_max_bytes <= c->ecn_min_bytes)
		return true;
	/* p in millionths: pct * (depth - min) / (max - min) */
	p = (uint64_t)c->ecn_max_pct * 10000 * (depth - c->ecn_min_bytes) /
	    (c->ecn_max_bytes - c->ecn_min_bytes);
	return rand32(e) % 1000000 < p;
}

/* RED's decision for @f, a queue of @depth bytes about it; counted. */
static void mark_if_due(struct egress *e, struct egress_frame *f,
			uint32_t depth)
{
	if (!mark_due(e, depth))
		return;
	if (egress_mark_ce(f->data, f->len))
		e->st.marked++;
	else
		e->st.not_ect++;
}

bool egress_lossless(const struct egress *e, unsigned int c)
{
	return c < EGRESS_CLASSES && (e->cfg->lossless >> c & 1) &&
	       !(e->lossy_now >> c & 1);
}

bool egress_has_room(const struct egress *e, unsigned int c, size_t len)
{
	return c < EGRESS_CLASSES &&
	       (uint64_t)e->q[c].bytes + len <= e->cfg->queue_bytes;
}

bool egress_enqueue(struct egress *e, const uint8_t *frame, size_t len,
		    uint64_t now_ns)
{
	return egress_enqueue_from(e, frame, len, -1, now_ns);
}

bool egress_enqueue_from(struct egress *e, const uint8_t *frame, size_t len,
			 int src, uint64_t now_ns)
{
	unsigned int c = egress_class(frame, len);
	bool lossless = egress_lossless(e, c);
	struct egress_frame *f;
	uint32_t depth = e->q[c].bytes;

	if (!egress_has_room(e, c, len)) {
		e->st.dropped++;
		if (lossless)
			e->st.lossless_dropped++;
		return false;
	}
	f = malloc(sizeof(*f) + len);
	if (!f) {
		e->st.dropped++;
		return false;
	}
	f->next = NULL;
	f->src = lossless ? src : -1;
	f->len = len;
	memcpy(f->data, frame, len);
	f->ecn_undecided = e->cfg->ecn_dequeue;
	if (!f->ecn_undecided)
		mark_if_due(e, f, depth);
	if (!e->q[c].head)
		e->progress_ns[c] = now_ns;	/* the watchdog's clock starts */
	*e->q[c].tail = f;
	e->q[c].tail = &f->next;
	e->q[c].bytes += len;
	if (e->q[c].bytes > e->st.deepest)
		e->st.deepest = e->q[c].bytes;
	if (e->q[c].bytes > e->st.deepest_since)
		e->st.deepest_since = e->q[c].bytes;
	e->queued++;
	e->st.enqueued++;
	e->st.class_enqueued[c]++;
	return true;
}

static int top_class(const struct egress *e)
{
	for (int c = EGRESS_CLASSES - 1; c >= 0; c--)
		if (e->q[c].head)
			return c;
	return -1;
}

const struct egress_frame *egress_peek(struct egress *e, uint64_t now_ns,
				       uint64_t *wait_ns)
{
	int c = top_class(e);
	struct egress_frame *f;
	uint64_t wait;

	if (c < 0)
		return NULL;
	token_bucket_refill(&e->bucket, e->cfg->rate_mbps, now_ns);
	f = e->q[c].head;
	wait = token_bucket_wait(&e->bucket, e->cfg->rate_mbps, f->len);
	if (!wait) {
		/* Decided once, though a full ring may offer it again. */
		if (f->ecn_undecided) {
			f->ecn_undecided = false;
			mark_if_due(e, f, e->q[c].bytes - (uint32_t)f->len);
		}
		return f;
	}
	*wait_ns = wait;
	return NULL;
}

void egress_pop(struct egress *e)
{
	int c = top_class(e);
	struct egress_frame *f;

	if (c < 0)
		return;
	f = e->q[c].head;
	token_bucket_take(&e->bucket, f->len);
	e->q[c].head = f->next;
	if (!f->next)
		e->q[c].tail = &e->q[c].head;
	e->q[c].bytes -= f->len;
	e->queued--;
	e->st.sent++;
	e->progress_ns[c] = e->bucket.last_ns;
	e->lossy_now &= ~(1u << c);	/* it drains: lossless again */
	free(f);
}

unsigned int egress_flush_class(struct egress *e, unsigned int c,
				void (*gone)(void *ctx,
					     const struct egress_frame *f),
				void *ctx)
{
	unsigned int n = 0;

	if (c >= EGRESS_CLASSES)
		return 0;
	while (e->q[c].head) {
		struct egress_frame *f = e->q[c].head;

		e->q[c].head = f->next;
		if (gone)
			gone(ctx, f);
		e->queued--;
		e->st.storm_dropped++;
		n++;
		free(f);
	}
	e->q[c].tail = &e->q[c].head;
	e->q[c].bytes = 0;
	e->lossy_now |= 1u << c;
	return n;
}
