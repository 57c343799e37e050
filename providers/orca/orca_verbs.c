// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA provider control verbs that need no provider state: device and port
 * queries, protection domains, memory regions and address handles.  They
 * are plain uverbs commands; only AH creation returns driver data (the
 * adapter's address handle, which UD send WQEs name).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "orca.h"
#include "orca_abi.h"

int orca_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int err;

	err = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (err)
		return err;

	/* The kernel packs major.minor.patch as 16-bit fields. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

int orca_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

struct ibv_pd *orca_alloc_pd(struct ibv_context *context)
{
	struct orca_ucmd_alloc_pd_resp resp = {};
	struct orca_ucmd_alloc_pd cmd = {};
	struct orca_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	err = ibv_cmd_alloc_pd(context, &pd->ibv_pd, &cmd.ibv_cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	atomic_init(&pd->refcount, 1);
	return &pd->ibv_pd;
}

/*
 * A parent domain is the provider's alone: the kernel sees its PD, whose
 * handle it carries (ibv_initialize_parent_domain()).  It keeps its PD and
 * thread domain referenced, and is kept by the objects created on it.
 */
struct ibv_pd *
orca_alloc_parent_domain(struct ibv_context *context,
			 struct ibv_parent_domain_init_attr *attr)
{
	struct orca_pd *parent;

	if (ibv_check_alloc_parent_domain(attr))
		return NULL;
	if (!check_comp_mask(attr->comp_mask,
			     IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT) ||
	    orca_parent_domain(attr->pd)) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (!attr->alloc || !attr->free)) {
		errno = EINVAL;
		return NULL;
	}
	parent = calloc(1, sizeof(*parent));
	if (!parent) {
		errno = ENOMEM;
		return NULL;
	}
	atomic_init(&parent->refcount, 1);
	parent->protection_domain = to_opd(attr->pd);
	atomic_fetch_add(&parent->protection_domain->refcount, 1);
	if (attr->td) {
		parent->td = to_otd(attr->td);
		atomic_fetch_add(&parent->td->refcount, 1);
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		parent->alloc = attr->alloc;
		parent->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		parent->pd_context = attr->pd_context;
	ibv_initialize_parent_domain(&parent->ibv_pd,
				     &parent->protection_domain->ibv_pd);
	return &parent->ibv_pd;
}

void orca_parent_get(struct orca_pd *parent)
{
	atomic_fetch_add(&parent->refcount, 1);
}

void orca_parent_put(struct orca_pd *parent)
{
	atomic_fetch_sub(&parent->refcount, 1);
}

int orca_dealloc_pd(struct ibv_pd *ibpd)
{
	struct orca_pd *pd = to_opd(ibpd);
	int err;

	/* Parent domains on a PD, objects on a parent domain. */
	if (atomic_load(&pd->refcount) > 1)
		return EBUSY;
	if (pd->protection_domain) {
		atomic_fetch_sub(&pd->protection_domain->refcount, 1);
		if (pd->td)
			atomic_fetch_sub(&pd->td->refcount, 1);
		free(pd);
		return 0;
	}
	err = ibv_cmd_dealloc_pd(ibpd);
	if (err)
		return err;
	free(pd);
	return 0;
}

/*
 * A thread domain is a promise that one thread uses the QPs and CQs made
 * on it, so they go without the provider's locks.  The adapter has no
 * per-thread resource (one doorbell page per context), so there is nothing
 * else to it.
 */
/*
 * XRC domains (ORCA_UCTX_CAP_XRC): plain uverbs commands; sharing one
 * between processes through a file (ibv_open_xrcd(3)) is the kernel's.
 */
struct ibv_xrcd *orca_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ibv_open_xrcd cmd = {};
	struct verbs_xrcd *xrcd;
	int err;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_open_xrcd(context, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(xrcd);
		errno = err;
		return NULL;
	}
	return &xrcd->xrcd;
}

int orca_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int err;

	err = ibv_cmd_close_xrcd(xrcd);
	if (err)
		return err;
	free(xrcd);
	return 0;
}

struct ibv_td *orca_alloc_td(struct ibv_context *context,
			     struct ibv_td_init_attr *attr)
{
	struct orca_td *td;

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	td->ibv_td.context = context;
	atomic_init(&td->refcount, 1);
	return &td->ibv_td;
}

int orca_dealloc_td(struct ibv_td *ibtd)
{
	struct orca_td *td = to_otd(ibtd);

	if (atomic_load(&td->refcount) > 1)
		return EBUSY;
	free(td);
	return 0;
}

struct ibv_mr *orca_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	err = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * The kernel attaches and pins the dma-buf and registers its pages as it
 * does a user MR's (no driver data either way).  Its errors are the
 * caller's: EBADF for fd -1, which UCX and NCCL take for "dma-buf MRs are
 * supported".
 */
struct ibv_mr *orca_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access)
{
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	err = ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr,
				    NULL);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * The kernel registers a new MR in the adapter and replaces the old one
 * (new keys, which ibv_cmd_rereg_mr() copies into the ibv_mr).
 */
int orca_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;

	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}

int orca_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;
	free(vmr);
	return 0;
}

/*
 * Prefetching pages of on-demand MRs: the kernel does it (the adapter
 * faults what is not prefetched); EOPNOTSUPP from a kernel without it.
 */
int orca_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	return ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
}

/* Memory windows: the kernel allocates them, BIND_MW WQEs bind them. */
struct ibv_mw *orca_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ibv_alloc_mw cmd = {};
	struct ibv_mw *mw;
	int err;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	err = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	return mw;
}

int orca_dealloc_mw(struct ibv_mw *mw)
{
	int err;

	err = ibv_cmd_dealloc_mw(mw);
	if (err)
		return err;
	free(mw);
	return 0;
}

struct ibv_ah *orca_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct orca_ucmd_create_ah_resp resp = {};
	struct orca_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	err = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}
	ah->ahn = resp.ahn;
	return &ah->ibv_ah;
}

int orca_destroy_ah(struct ibv_ah *ibah)
{
	int err;

	err = ibv_cmd_destroy_ah(ibah);
	if (err)
		return err;
	free(to_oah(ibah));
	return 0;
}

/*
 * The adapter moves a QP to ERR by itself on a fatal error (spec,
 * data-path.rst): follow it, so that posting on a QP that was in RTR, which
 * the provider refuses, is accepted and flushed as in ERR.
 */
void orca_async_event(struct ibv_context *context,
		      struct ibv_async_event *event)
{
	switch (event->event_type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
		__atomic_store_n(&to_oqp(event->element.qp)->state,
				 IBV_QPS_ERR, __ATOMIC_RELEASE);
		break;
	default:
		break;
	}
}

/*
 * UD multicast: the kernel attaches the QP (the adapter filters by MGID);
 * the provider keeps nothing of its own.
 */
int orca_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid)
{
	return ibv_cmd_attach_mcast(qp, gid, lid);
}

int orca_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid)
{
	return ibv_cmd_detach_mcast(qp, gid, lid);
}
