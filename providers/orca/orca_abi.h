/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The uverbs commands that carry ORCA driver data: the core command or
 * response followed by the struct of include/uapi/rdma/orca-abi.h (which the
 * build copies to kernel-headers/rdma/orca-abi.h; kernel-abi/orca-abi.h is
 * generated from it).  Commands not listed here carry no driver data.
 */
#ifndef ORCA_PROVIDER_ABI_H
#define ORCA_PROVIDER_ABI_H

#include <infiniband/kern-abi.h>
#include <rdma/orca-abi.h>
#include <kernel-abi/orca-abi.h>

DECLARE_DRV_CMD(orca_ucmd_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT,
		orca_alloc_ucontext_req, orca_alloc_ucontext_resp);
DECLARE_DRV_CMD(orca_ucmd_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD,
		empty, orca_alloc_pd_resp);
DECLARE_DRV_CMD(orca_ucmd_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		orca_create_cq, orca_create_cq_resp);
DECLARE_DRV_CMD(orca_ucmd_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		orca_create_cq, orca_create_cq_resp);
DECLARE_DRV_CMD(orca_ucmd_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		orca_resize_cq, empty);
DECLARE_DRV_CMD(orca_ucmd_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		orca_create_qp, orca_create_qp_resp);
DECLARE_DRV_CMD(orca_ucmd_create_qp_ex, IB_USER_VERBS_EX_CMD_CREATE_QP,
		orca_create_qp, orca_create_qp_resp);
DECLARE_DRV_CMD(orca_ucmd_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		orca_create_srq, orca_create_srq_resp);
DECLARE_DRV_CMD(orca_ucmd_create_xsrq, IB_USER_VERBS_CMD_CREATE_XSRQ,
		orca_create_srq, orca_create_srq_resp);
DECLARE_DRV_CMD(orca_ucmd_modify_srq, IB_USER_VERBS_CMD_MODIFY_SRQ,
		orca_modify_srq, empty);
DECLARE_DRV_CMD(orca_ucmd_create_ah, IB_USER_VERBS_CMD_CREATE_AH,
		empty, orca_create_ah_resp);

#endif /* ORCA_PROVIDER_ABI_H */
