// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA rdma-core provider: device matching and the device context.
 *
 * The driver registers as RDMA_DRIVER_ORCA, which libibverbs matches
 * first; the PCI modalias matches too, so the provider binds whatever id
 * the kernel reports.  Built against kernel headers without the id (the
 * out-of-tree builds, scripts/out-of-tree/provider-build.sh and the
 * driver's Makefile), both sides take RDMA_DRIVER_UNKNOWN instead and the
 * PCI match binds.  A context maps its UAR page, the only MMIO the data
 * path ever touches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "orca.h"
#include "orca_abi.h"

static void orca_free_context(struct ibv_context *ibctx);

static const struct verbs_context_ops orca_ctx_ops = {
	.alloc_mw = orca_alloc_mw,
	.alloc_parent_domain = orca_alloc_parent_domain,
	.alloc_pd = orca_alloc_pd,
	.alloc_td = orca_alloc_td,
	.async_event = orca_async_event,
	.advise_mr = orca_advise_mr,
	.attach_mcast = orca_attach_mcast,
	.bind_mw = orca_bind_mw,
	.cq_event = orca_cq_event,
	.create_ah = orca_create_ah,
	.create_cq = orca_create_cq,
	.create_cq_ex = orca_create_cq_ex,
	.create_qp = orca_create_qp,
	.create_qp_ex = orca_create_qp_ex,
	.create_srq = orca_create_srq,
	.dealloc_mw = orca_dealloc_mw,
	.dealloc_pd = orca_dealloc_pd,
	.dealloc_td = orca_dealloc_td,
	.dereg_mr = orca_dereg_mr,
	.destroy_ah = orca_destroy_ah,
	.destroy_cq = orca_destroy_cq,
	.destroy_qp = orca_destroy_qp,
	.destroy_srq = orca_destroy_srq,
	.detach_mcast = orca_detach_mcast,
	.free_context = orca_free_context,
	.modify_cq = orca_modify_cq,
	.modify_qp = orca_modify_qp,
	.modify_srq = orca_modify_srq,
	.poll_cq = orca_poll_cq,
	.post_recv = orca_post_recv,
	.post_send = orca_post_send,
	.post_srq_recv = orca_post_srq_recv,
	.query_device_ex = orca_query_device_ex,
	.query_port = orca_query_port,
	.query_qp = orca_query_qp,
	.query_qp_data_in_order = orca_query_qp_data_in_order,
	.query_srq = orca_query_srq,
	.reg_dmabuf_mr = orca_reg_dmabuf_mr,
	.reg_mr = orca_reg_mr,
	.req_notify_cq = orca_req_notify_cq,
	.rereg_mr = orca_rereg_mr,
	.resize_cq = orca_resize_cq,
};

/* ORCA_UCTX_CAP_XRC: XRC domains, SRQs and QPs (dummy ops otherwise). */
static const struct verbs_context_ops orca_xrc_ops = {
	.close_xrcd = orca_close_xrcd,
	.create_srq_ex = orca_create_srq_ex,
	.get_srq_num = orca_get_srq_num,
	.open_qp = orca_open_qp,
	.open_xrcd = orca_open_xrcd,
};

/* The response must describe the layouts this library was built for. */
static int orca_check_ucontext(struct orca_context *ctx,
			       const struct orca_alloc_ucontext_resp *resp)
{
	if (FIELD_GET(ORCA_IF_VERSION_MAJOR, resp->if_version) !=
	    ORCA_IF_MAJOR) {
		verbs_err(&ctx->ibv_ctx, "orca: device interface %u.%u, provider supports %u.x\n",
			  (unsigned int)FIELD_GET(ORCA_IF_VERSION_MAJOR,
						  resp->if_version),
			  (unsigned int)FIELD_GET(ORCA_IF_VERSION_MINOR,
						  resp->if_version),
			  ORCA_IF_MAJOR);
		return EPROTONOSUPPORT;
	}
	if (resp->cqe_size != sizeof(struct orca_cqe)) {
		verbs_err(&ctx->ibv_ctx, "orca: CQE size %u, expected %zu\n",
			  resp->cqe_size, sizeof(struct orca_cqe));
		return EPROTONOSUPPORT;
	}
	return 0;
}

static struct verbs_context *orca_alloc_context(struct ibv_device *ibdev,
						int cmd_fd,
						void *private_data)
{
	struct orca_ucmd_alloc_ucontext_resp resp = {};
	struct orca_ucmd_alloc_ucontext cmd = {};
	struct orca_context *ctx;
	long page_size;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_ORCA);
	if (!ctx)
		return NULL;

	page_size = sysconf(_SC_PAGESIZE);
	ctx->page_size = page_size > ORCA_UQUEUE_ALIGN ? page_size :
							 ORCA_UQUEUE_ALIGN;
	pthread_mutex_init(&ctx->qp_table_mutex, NULL);
	pthread_mutex_init(&ctx->srq_table_mutex, NULL);
	pthread_mutex_init(&ctx->db_mutex, NULL);
	list_head_init(&ctx->db_pages);

	err = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	err = orca_check_ucontext(ctx, &resp.drv_payload);
	if (err)
		goto err_free;
	ctx->caps = resp.caps;
	ctx->max_inline_data = resp.max_inline_data;
	ctx->max_send_sge = resp.max_send_sge;
	ctx->max_recv_sge = resp.max_recv_sge;
	/* As the kernel clamps them: a CQE's wqe_idx has 16 bits. */
	ctx->max_sq_depth = min_t(uint32_t, resp.max_sq_depth,
				  1U << ORCA_MAX_LOG_WQ_DEPTH);
	ctx->max_srq_wr = min_t(uint32_t, resp.max_srq_wr,
				1U << ORCA_MAX_LOG_WQ_DEPTH);
	ctx->max_srq_sge = min_t(uint32_t, resp.max_srq_sge, ORCA_MAX_SGE);
	ctx->max_cqe = resp.max_cqe;

	/* Doorbells are trapped, uncached writes: no read, no WC mapping. */
	ctx->uar = mmap(NULL, ORCA_UAR_PAGE_SIZE, PROT_WRITE, MAP_SHARED,
			cmd_fd, resp.uar_mmap_key);
	if (ctx->uar == MAP_FAILED) {
		err = errno;
		verbs_err(&ctx->ibv_ctx, "orca: cannot map the UAR page: %s\n",
			  strerror(err));
		goto err_free;
	}

	verbs_set_ops(&ctx->ibv_ctx, &orca_ctx_ops);
	if (ctx->caps & ORCA_UCTX_CAP_XRC)
		verbs_set_ops(&ctx->ibv_ctx, &orca_xrc_ops);
	return &ctx->ibv_ctx;

err_free:
	pthread_mutex_destroy(&ctx->db_mutex);
	pthread_mutex_destroy(&ctx->srq_table_mutex);
	pthread_mutex_destroy(&ctx->qp_table_mutex);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	errno = err;
	return NULL;
}

static void orca_free_context(struct ibv_context *ibctx)
{
	struct orca_context *ctx = to_octx(ibctx);
	unsigned int i;

	/* Each was reported on the data path only in a debug build. */
	if (ctx->bad_cqes)
		verbs_err(&ctx->ibv_ctx,
			  "orca: %" PRIu64 " CQEs dropped: they named no outstanding WQE or no QP\n",
			  ctx->bad_cqes);
	munmap(ctx->uar, ORCA_UAR_PAGE_SIZE);
	for (i = 0; i < ORCA_QP_TABLE_L1; i++) {
		free(ctx->qp_table[i]);
		free(ctx->srq_table[i]);
	}
	/* Every object, and so every record slot, is gone by now. */
	pthread_mutex_destroy(&ctx->db_mutex);
	pthread_mutex_destroy(&ctx->srq_table_mutex);
	pthread_mutex_destroy(&ctx->qp_table_mutex);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static struct verbs_device *orca_device_alloc(struct verbs_sysfs_dev *sdev)
{
	struct orca_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->ibv_dev;
}

static void orca_device_free(struct verbs_device *vdev)
{
	free(container_of(vdev, struct orca_device, ibv_dev));
}

static const struct verbs_match_ent orca_match_table[] = {
	VERBS_DRIVER_ID(RDMA_DRIVER_ORCA),
	VERBS_PCI_MATCH(ORCA_PCI_VENDOR_ID, ORCA_PCI_DEVICE_ID, NULL),
	{},
};

static const struct verbs_device_ops orca_dev_ops = {
	.name = "orca",
	.match_min_abi_version = ORCA_UVERBS_ABI_VERSION,
	.match_max_abi_version = ORCA_UVERBS_ABI_VERSION,
	.match_table = orca_match_table,
	.alloc_device = orca_device_alloc,
	.uninit_device = orca_device_free,
	.alloc_context = orca_alloc_context,
};

PROVIDER_DRIVER(orca, orca_dev_ops);
