/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libibverbs test programs here share: dying with the program's
 * name and an error, a monotonic clock in ms, KTAP case lines, opening a
 * device by name, looking up a GID of port 1, and an RC QP on one CQ
 * connected RESET -> INIT -> RTR -> RTS through a GID of the device itself.  Header-only (every NAME.c here is a program of
 * its own, see Makefile).
 */
#ifndef ORCA_SELFTESTS_VERBS_HELPERS_H
#define ORCA_SELFTESTS_VERBS_HELPERS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#define PORT		1

/* "PROGRAM: WHAT: strerror(ERR)" on stderr, exit status 1. */
static inline __attribute__((noreturn))
void die_err(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(err));
	exit(1);
}

static inline __attribute__((noreturn))
void die(const char *what)
{
	die_err(what, errno);
}

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* KTAP case lines: "ok N WHAT" or "not ok N WHAT"; ktap_failed after. */
static int ktap_tests, ktap_failed;

static inline void result(bool ok, const char *what)
{
	ktap_tests++;
	printf("%s %d %s\n", ok ? "ok" : "not ok", ktap_tests, what);
	fflush(stdout);
	if (!ok)
		ktap_failed = 1;
}

static inline struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		die("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die_err(name, ENODEV);
	return ctx;
}

/* GID @index of port 1. */
static inline void query_gid(struct ibv_context *ctx, int index,
			     union ibv_gid *gid)
{
	if (ibv_query_gid(ctx, PORT, index, gid))
		die("ibv_query_gid");
}

/* An RC QP with @cq for sends and receives, one SGE each way. */
static inline struct ibv_qp *create_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
					  uint32_t max_send_wr,
					  uint32_t max_recv_wr)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = max_send_wr, .max_recv_wr = max_recv_wr,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &qa);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

/* Polls @cq for one completion into @wc, up to @ms; false on a timeout. */
static inline bool wait_one_wc(struct ibv_cq *cq, struct ibv_wc *wc, uint64_t ms)
{
	uint64_t end = now_ms() + ms;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n)
			return true;
	} while (now_ms() < end);
	return false;
}

/* How connect_rc() connects a QP; zero fields are zero in the attributes. */
struct rc_conn {
	union ibv_gid gid;	/* the peer's (here: the device's own) */
	int gid_index;		/* the source GID */
	uint32_t dest_qpn;
	uint32_t sq_psn, rq_psn;
	enum ibv_mtu mtu;
	unsigned int access;	/* qp_access_flags */
	uint8_t timeout;
	uint8_t rd_atomic;	/* max_rd_atomic and max_dest_rd_atomic; 0: 1 */
	bool rtr_only;		/* stop at RTR: a QP that only receives */
	const char *label;	/* prefix of the die() messages, or NULL */
};

/* RESET -> INIT -> RTR (-> RTS) as @c says; dies on a refused step. */
static inline void connect_rc(struct ibv_qp *qp, const struct rc_conn *c)
{
	const char *label = c->label ? c->label : "";
	struct ibv_qp_attr a = {};
	char what[64];

	a.qp_state = IBV_QPS_INIT;
	a.port_num = PORT;
	a.qp_access_flags = c->access;
	snprintf(what, sizeof(what), "%sto INIT", label);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die(what);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = c->mtu;
	a.dest_qp_num = c->dest_qpn;
	a.rq_psn = c->rq_psn;
	a.max_dest_rd_atomic = c->rd_atomic ? c->rd_atomic : 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = c->gid;
	a.ah_attr.grh.sgid_index = c->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = PORT;
	snprintf(what, sizeof(what), "%sto RTR", label);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die(what);
	if (c->rtr_only)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = c->timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = c->sq_psn;
	a.max_rd_atomic = c->rd_atomic ? c->rd_atomic : 1;
	snprintf(what, sizeof(what), "%sto RTS", label);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die(what);
}

#endif /* ORCA_SELFTESTS_VERBS_HELPERS_H */
