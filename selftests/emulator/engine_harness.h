/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test library for the engine's unit tests: a fake struct emu_host whose
 * "guest RAM" is a malloc'ed 16 MiB window at GUEST_BASE (anything outside
 * is unmapped) and whose irq_raise records vectors, plus a minimal driver:
 * boot the command queue, submit a command and wait for its completion
 * (checking phase and token), create EQ 0 and the common objects.
 * Everything goes through the engine's real entry points.
 */
#ifndef ORCA_ENGINE_HARNESS_H
#define ORCA_ENGINE_HARNESS_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "orca_hw.h"

#include "engine/engine.h"
#include "ktap.h"

#define GUEST_BASE	0x100000000ull
#define GUEST_SIZE	(16u << 20)
#define UNMAPPED	0x300000000ull	/* page aligned, outside the RAM */
#define TEST_MSIX	8
#define ARRAY_SIZE_T(a)	(sizeof(a) / sizeof((a)[0]))

struct fake_host {
	uint8_t *ram;
	atomic_int dma_depth;		/* dma_begin nesting */
	atomic_int dma_outside;		/* dma_ptr called outside a section */
	atomic_uint irqs[ORCA_MAX_MSIX];
	atomic_uint irq_total;
};

struct th {
	struct fake_host fh;
	struct emu_host host;
	struct emu_config cfg;
	struct orca_engine *eng;
	uint64_t brk;			/* bump allocator in guest RAM */
	/* driver side of the command queue */
	uint64_t cmdq, comp;
	unsigned int log_depth;
	uint16_t pi;
	uint16_t token;
	struct orca_cmd_comp last;	/* last completion seen */
	/* EQ 0 */
	uint64_t eq0;
	unsigned int eq0_log;
	uint32_t eq0_ci;
};

static void fh_dma_begin(void *p)
{
	atomic_fetch_add(&((struct fake_host *)p)->dma_depth, 1);
}

static void fh_dma_end(void *p)
{
	atomic_fetch_sub(&((struct fake_host *)p)->dma_depth, 1);
}

static void *fh_dma_ptr(void *p, uint64_t addr, size_t len)
{
	struct fake_host *fh = p;

	if (atomic_load(&fh->dma_depth) <= 0)
		atomic_fetch_add(&fh->dma_outside, 1);
	if (addr < GUEST_BASE || len > GUEST_SIZE ||
	    addr - GUEST_BASE > GUEST_SIZE - len)
		return NULL;
	return fh->ram + (addr - GUEST_BASE);
}

static void fh_irq_raise(void *p, unsigned int vector)
{
	struct fake_host *fh = p;

	if (vector < ORCA_MAX_MSIX)
		atomic_fetch_add(&fh->irqs[vector], 1);
	atomic_fetch_add(&fh->irq_total, 1);
}

static const struct emu_host_ops fh_ops = {
	.dma_begin = fh_dma_begin,
	.dma_end = fh_dma_end,
	.dma_ptr = fh_dma_ptr,
	.irq_raise = fh_irq_raise,
};

/*
 * A held or slow engine (host.ops = &fh_stall_ops): its thread waits where
 * it enters a DMA section while fh_stall is set, before it takes any
 * doorbell or frame, and each entry costs fh_slow_us more.  A descheduled
 * or slow adapter, as a loaded host makes one.
 */
static atomic_bool fh_stall;
static atomic_uint fh_slow_us;

static void fh_stall_dma_begin(void *p)
{
	while (atomic_load(&fh_stall))
		usleep(1000);
	if (atomic_load(&fh_slow_us))
		usleep(atomic_load(&fh_slow_us));
	fh_dma_begin(p);
}

static const struct emu_host_ops fh_stall_ops = {
	.dma_begin = fh_stall_dma_begin,
	.dma_end = fh_dma_end,
	.dma_ptr = fh_dma_ptr,
	.irq_raise = fh_irq_raise,
};

static inline bool in_ram(uint64_t addr, uint64_t len)
{
	return addr >= GUEST_BASE && len <= GUEST_SIZE &&
	       addr - GUEST_BASE <= GUEST_SIZE - len;
}

static inline void *gptr(struct th *t, uint64_t addr)
{
	return t->fh.ram + (addr - GUEST_BASE);
}

/* Zeroed guest memory, @align a power of two (0: 4 KiB). */
static inline uint64_t galloc(struct th *t, uint64_t size, uint64_t align)
{
	uint64_t a;

	if (!align)
		align = 4096;
	a = (t->brk + align - 1) & ~(align - 1);
	if (a + size > GUEST_BASE + GUEST_SIZE) {
		printf("# harness: guest RAM exhausted\n");
		abort();
	}
	t->brk = a + size;
	memset(gptr(t, a), 0, size);
	return a;
}

static inline void th_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static inline uint32_t rd(struct th *t, uint32_t off)
{
	return engine_reg_read(t->eng, off);
}

static inline void wr(struct th *t, uint32_t off, uint32_t val)
{
	engine_reg_write(t->eng, off, val);
}

static inline void th_init_msix(struct th *t, unsigned int num_msix)
{
	memset(t, 0, sizeof(*t));
	t->fh.ram = calloc(1, GUEST_SIZE);
	if (!t->fh.ram)
		abort();
	t->host.ops = &fh_ops;
	t->host.priv = &t->fh;
	t->cfg = (struct emu_config){
		.mac = { 0x02, 0x00, 0x00, 0xaa, 0xbb, 0xcc },
		.eth_mtu = 1500,
		.num_msix = num_msix,
	};
	t->brk = GUEST_BASE;
	t->eng = engine_create(&t->host, &t->cfg);
	if (!t->eng)
		abort();
	/* What the driver's pci_set_master() does. */
	engine_set_bus_master(t->eng, true);
}

static inline void th_init(struct th *t)
{
	th_init_msix(t, TEST_MSIX);
}

static inline void th_fini(struct th *t)
{
	engine_destroy(t->eng);
	CHECK(atomic_load(&t->fh.dma_outside) == 0);
	CHECK(atomic_load(&t->fh.dma_depth) == 0);
	free(t->fh.ram);
}

static inline void wr64(struct th *t, uint32_t lo, uint64_t v)
{
	wr(t, lo, (uint32_t)v);
	wr(t, lo + 4, (uint32_t)(v >> 32));
}

/* Programs and enables a command queue of 1 << log_depth entries. */
static inline bool th_boot_at(struct th *t, unsigned int log_depth,
			      uint64_t cmdq, uint64_t comp)
{
	t->cmdq = cmdq;
	t->comp = comp;
	t->log_depth = log_depth;
	t->pi = 0;
	wr64(t, ORCA_REG_CMDQ_BASE_LO, cmdq);
	wr64(t, ORCA_REG_CMDQ_COMP_BASE_LO, comp);
	wr(t, ORCA_REG_CMDQ_CFG, log_depth);
	wr(t, ORCA_REG_DEV_CTRL, ORCA_CTRL_CMDQ_ENABLE);
	return rd(t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_CMDQ_ENABLED;
}

static inline bool th_boot(struct th *t, unsigned int log_depth)
{
	uint64_t depth = 1ull << log_depth;

	return th_boot_at(t, log_depth,
			  galloc(t, depth * sizeof(struct orca_cmd), 0),
			  galloc(t, depth * sizeof(struct orca_cmd_comp), 0));
}

/* A command to put in the ring. */
struct tcmd {
	uint16_t opcode;
	uint16_t flags;
	const void *in;
	size_t in_size;
	uint64_t in_addr;
	uint32_t in_len;
	uint64_t out_addr;
	uint32_t out_len;
};

/* Writes the command at the producer index; does not ring. */
static inline uint16_t th_post(struct th *t, const struct tcmd *c)
{
	uint32_t slot = t->pi & ((1u << t->log_depth) - 1);
	uint64_t addr = t->cmdq + slot * sizeof(struct orca_cmd);
	struct orca_cmd *e, dummy;

	/* Tests of unmapped rings still "post" (into nowhere). */
	e = in_ram(addr, sizeof(*e)) ? gptr(t, addr) : &dummy;
	memset(e, 0, sizeof(*e));
	e->opcode = htole16(c->opcode);
	e->flags = htole16(c->flags);
	e->token = htole16(++t->token);
	e->in_len = htole32(c->in_len);
	e->out_len = htole32(c->out_len);
	e->in_addr = htole64(c->in_addr);
	e->out_addr = htole64(c->out_addr);
	if (c->in)
		memcpy(e->in, c->in, c->in_size);
	t->pi++;
	return t->token;
}

static inline void th_ring(struct th *t)
{
	wr(t, ORCA_REG_CMDQ_DB, t->pi);
}

/*
 * The completion of command number @n (0-based since boot), if its phase
 * says it is there and its token is @token; copies it to t->last.
 */
static inline bool th_completed(struct th *t, uint16_t n, uint16_t token)
{
	uint32_t slot = n & ((1u << t->log_depth) - 1);
	uint8_t phase = ((n >> t->log_depth) & 1) ? 0 : ORCA_CMD_COMP_PHASE;
	uint64_t addr = t->comp + slot * sizeof(struct orca_cmd_comp);
	struct orca_cmd_comp *c;

	if (!in_ram(addr, sizeof(*c)))
		return false;
	c = gptr(t, addr);
	if ((atomic_load((_Atomic uint8_t *)&c->flags) &
	     ORCA_CMD_COMP_PHASE) != phase)
		return false;
	if (le16toh(c->token) != token)
		return false;
	t->last = *c;
	return true;
}

/* Submits one command, waits; returns its status or -1 (no completion). */
static inline int th_exec(struct th *t, const struct tcmd *c)
{
	uint16_t n = t->pi;
	uint16_t token = th_post(t, c);

	th_ring(t);
	engine_flush(t->eng);
	if (!th_completed(t, n, token))
		return -1;
	return t->last.status;
}

static inline int th_cmd(struct th *t, uint16_t op, const void *in,
			 size_t size)
{
	struct tcmd c = { .opcode = op, .in = in, .in_size = size };

	return th_exec(t, &c);
}

static inline uint32_t th_out_handle(struct th *t)
{
	struct orca_cmd_handle_out h;

	memcpy(&h, t->last.out, sizeof(h));
	return le32toh(h.handle);
}

/* Destroy-style command on one handle. */
static inline int th_destroy(struct th *t, uint16_t op, uint32_t handle)
{
	struct orca_cmd_destroy_obj d = { .handle = htole32(handle) };

	return th_cmd(t, op, &d, sizeof(d));
}

/* Creates an EQ with its ring in one page; returns eqn or -status. */
static inline int64_t th_create_eq_at(struct th *t, unsigned int log_depth,
				      unsigned int vector, uint64_t *ring)
{
	uint64_t bytes = (uint64_t)sizeof(struct orca_eqe) << log_depth;
	uint64_t npages = (bytes + 4095) / 4096;
	struct orca_cmd_create_eq in = {
		.log_depth = log_depth,
		.page_shift = 12,
		.msix_vector = htole16(vector),
		.npages = htole32(npages),
	};
	struct tcmd c = {
		.opcode = ORCA_CMD_CREATE_EQ, .in = &in, .in_size = sizeof(in),
	};
	uint64_t buf = galloc(t, npages * 4096, 0);
	int st;

	if (npages == 1) {
		in.page_addr = htole64(buf);
	} else {
		uint64_t list = galloc(t, 8 * npages, 8);
		uint64_t *l = gptr(t, list), i;

		for (i = 0; i < npages; i++)
			l[i] = htole64(buf + i * 4096);
		c.in_addr = list;
		c.in_len = 8 * npages;
	}
	st = th_exec(t, &c);
	if (st)
		return st < 0 ? -100 : -st;
	if (ring)
		*ring = buf;
	return th_out_handle(t);
}

/* EQ 0 on vector 0; t->eq0* track the driver's view. */
static inline bool th_create_eq0(struct th *t, unsigned int log_depth)
{
	int64_t eqn = th_create_eq_at(t, log_depth, 0, &t->eq0);

	t->eq0_log = log_depth;
	t->eq0_ci = 0;
	return eqn == 0;
}

static inline void th_eq_db(struct th *t, uint32_t eqn, uint32_t ci,
			    bool arm)
{
	wr(t, ORCA_REG_EQ_DB, FIELD_PREP(ORCA_EQ_DB_EQN, eqn) |
	   FIELD_PREP(ORCA_EQ_DB_CI, ci) | (arm ? ORCA_EQ_DB_ARM : 0));
	engine_flush(t->eng);
}

/* Next EQE of EQ 0 if its phase says it is new; advances eq0_ci. */
static inline bool th_eq0_next(struct th *t, struct orca_eqe *out)
{
	uint32_t slot = t->eq0_ci & ((1u << t->eq0_log) - 1);
	uint8_t phase = ((t->eq0_ci >> t->eq0_log) & 1) ? 0 : ORCA_EQE_PHASE;
	struct orca_eqe *e = gptr(t, t->eq0 + slot * sizeof(*e));

	if ((atomic_load((_Atomic uint8_t *)&e->flags) & ORCA_EQE_PHASE) !=
	    phase)
		return false;
	*out = *e;
	t->eq0_ci++;
	return true;
}

static inline unsigned int th_irqs(struct th *t, unsigned int vector)
{
	return atomic_load(&t->fh.irqs[vector]);
}

static inline int64_t th_handle_or_neg(struct th *t, int st)
{
	if (st)
		return st < 0 ? -100 : -st;
	return th_out_handle(t);
}

static inline int64_t th_create_pd(struct th *t)
{
	return th_handle_or_neg(t, th_cmd(t, ORCA_CMD_CREATE_PD, NULL, 0));
}

static inline int64_t th_alloc_uar(struct th *t)
{
	return th_handle_or_neg(t, th_cmd(t, ORCA_CMD_ALLOC_UAR, NULL, 0));
}

/* A valid CREATE_CQ input with a fresh buffer and doorbell record. */
static inline struct orca_cmd_create_cq th_cq_in(struct th *t, uint32_t eqn,
						 uint32_t uar,
						 unsigned int log_depth)
{
	uint64_t bytes = (uint64_t)sizeof(struct orca_cqe) << log_depth;
	struct orca_cmd_create_cq in = {
		.log_depth = log_depth,
		.page_shift = 12,
		.eqn = htole16(eqn),
		.npages = htole32(1),
		.page_addr = htole64(galloc(t, bytes < 4096 ? 4096 : bytes, 0)),
		.db_rec_addr = htole64(galloc(t, 64, 64)),
		.uar = htole32(uar),
	};

	return in;
}

static inline int64_t th_create_cq(struct th *t, uint32_t eqn, uint32_t uar)
{
	struct orca_cmd_create_cq in = th_cq_in(t, eqn, uar, 6);

	return th_handle_or_neg(t, th_cmd(t, ORCA_CMD_CREATE_CQ, &in,
					  sizeof(in)));
}

/*
 * A valid CREATE_QP: its page list at *in_addr (sq then rq pages) with
 * in_len bytes; 4 KiB pages.
 */
struct th_qp_req {
	struct orca_cmd_create_qp in;
	uint64_t list;
	uint32_t list_len;
};

static inline struct th_qp_req th_qp_in(struct th *t, uint8_t type,
					uint32_t pdn, uint32_t cqn,
					uint32_t uar, uint32_t srqn)
{
	struct th_qp_req r = { 0 };
	uint32_t sq_np, rq_np, i;
	uint64_t *l;

	r.in.qp_type = type;
	r.in.page_shift = 12;
	r.in.log_sq_depth = 6;
	r.in.log_rq_depth = srqn ? 0 : 6;
	r.in.flags = htole32(srqn ? ORCA_QP_F_USE_SRQ : 0);
	r.in.pdn = htole32(pdn);
	r.in.send_cqn = htole32(cqn);
	r.in.recv_cqn = htole32(cqn);
	r.in.srqn = htole32(srqn);
	r.in.max_send_sge = 2;
	r.in.max_recv_sge = 2;
	r.in.max_inline_data = htole16(32);
	sq_np = ((orca_send_wqe_stride(2) << 6) + 4095) / 4096;
	rq_np = srqn ? 0 : ((orca_recv_wqe_stride(2) << 6) + 4095) / 4096;
	r.in.sq_npages = htole32(sq_np);
	r.in.rq_npages = htole32(rq_np);
	r.in.uar = htole32(uar);
	r.in.db_rec_addr = htole64(galloc(t, 64, 64));
	r.list_len = 8 * (sq_np + rq_np);
	r.list = galloc(t, r.list_len, 8);
	l = gptr(t, r.list);
	for (i = 0; i < sq_np + rq_np; i++)
		l[i] = htole64(galloc(t, 4096, 0));
	return r;
}

static inline int th_qp_exec(struct th *t, const struct th_qp_req *r)
{
	struct tcmd c = {
		.opcode = ORCA_CMD_CREATE_QP, .in = &r->in,
		.in_size = sizeof(r->in), .in_addr = r->list,
		.in_len = r->list_len,
	};

	return th_exec(t, &c);
}

static inline int64_t th_create_qp(struct th *t, uint8_t type, uint32_t pdn,
				   uint32_t cqn, uint32_t uar, uint32_t srqn)
{
	struct th_qp_req r = th_qp_in(t, type, pdn, cqn, uar, srqn);

	return th_handle_or_neg(t, th_qp_exec(t, &r));
}

static inline int th_set_gid(struct th *t, uint16_t index, uint8_t type)
{
	struct orca_cmd_set_gid in = {
		.port = 1,
		.type = type,
		.index = htole16(index),
		.mac = { 0x02, 0x00, 0x00, 0xaa, 0xbb, 0xcc },
		.vlan = htole16(0xffff),
		.gid = { [10] = 0xff, [11] = 0xff, 10, 0, 0, (uint8_t)index },
	};

	return th_cmd(t, ORCA_CMD_SET_GID, &in, sizeof(in));
}

/* The usual fixture: booted queue, EQ 0, a UAR, a PD, a CQ, GID 0. */
struct th_objs {
	uint32_t uar, pdn, cqn;
};

static inline bool th_setup(struct th *t, struct th_objs *o)
{
	int64_t uar, pdn, cqn;

	th_init(t);
	if (!th_boot(t, 5) || !th_create_eq0(t, 8))
		return false;
	uar = th_alloc_uar(t);
	pdn = th_create_pd(t);
	cqn = th_create_cq(t, 0, uar < 0 ? 0 : uar);
	if (uar < 0 || pdn <= 0 || cqn <= 0)
		return false;
	o->uar = uar;
	o->pdn = pdn;
	o->cqn = cqn;
	return th_set_gid(t, 0, ORCA_GID_TYPE_ROCE_V2) == ORCA_CMD_ST_OK;
}

#endif /* ORCA_ENGINE_HARNESS_H */
