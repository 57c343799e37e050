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
	struct ibv_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	err = ibv_cmd_alloc_pd(context, pd, &cmd.ibv_cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	return pd;
}

int orca_dealloc_pd(struct ibv_pd *pd)
{
	int err;

	err = ibv_cmd_dealloc_pd(pd);
	if (err)
		return err;
	free(pd);
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

int orca_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;
	free(vmr);
	return 0;
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
