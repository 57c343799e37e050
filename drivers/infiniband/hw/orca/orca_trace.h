/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORCA tracepoints (events/orca/): firmware commands as they are posted and
 * completed, event queue entries, QP state changes and the death of the
 * device.  A disabled tracepoint costs one static branch: everything an
 * event records is computed in its TP_fast_assign.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM orca

#if !defined(_ORCA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ORCA_TRACE_H

#include <linux/ktime.h>
#include <linux/tracepoint.h>

#include "orca.h"

/*
 * What each value prints as.  The values are enum constants: they are also
 * exported to the tools that parse the events' formats.
 */
TRACE_DEFINE_ENUM(ORCA_CMD_NOP);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_DEVICE);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_PORT);
TRACE_DEFINE_ENUM(ORCA_CMD_SET_PORT);
TRACE_DEFINE_ENUM(ORCA_CMD_SET_GID);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_STATS);
TRACE_DEFINE_ENUM(ORCA_CMD_CREATE_EQ);
TRACE_DEFINE_ENUM(ORCA_CMD_DESTROY_EQ);
TRACE_DEFINE_ENUM(ORCA_CMD_ALLOC_UAR);
TRACE_DEFINE_ENUM(ORCA_CMD_DEALLOC_UAR);
TRACE_DEFINE_ENUM(ORCA_CMD_CREATE_PD);
TRACE_DEFINE_ENUM(ORCA_CMD_DESTROY_PD);
TRACE_DEFINE_ENUM(ORCA_CMD_CREATE_CQ);
TRACE_DEFINE_ENUM(ORCA_CMD_RESIZE_CQ);
TRACE_DEFINE_ENUM(ORCA_CMD_DESTROY_CQ);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_CQ);
TRACE_DEFINE_ENUM(ORCA_CMD_MODIFY_CQ);
TRACE_DEFINE_ENUM(ORCA_CMD_CREATE_MR);
TRACE_DEFINE_ENUM(ORCA_CMD_DESTROY_MR);
TRACE_DEFINE_ENUM(ORCA_CMD_CREATE_QP);
TRACE_DEFINE_ENUM(ORCA_CMD_MODIFY_QP);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_QP);
TRACE_DEFINE_ENUM(ORCA_CMD_DESTROY_QP);
TRACE_DEFINE_ENUM(ORCA_CMD_CREATE_AH);
TRACE_DEFINE_ENUM(ORCA_CMD_DESTROY_AH);
TRACE_DEFINE_ENUM(ORCA_CMD_CREATE_SRQ);
TRACE_DEFINE_ENUM(ORCA_CMD_MODIFY_SRQ);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_SRQ);
TRACE_DEFINE_ENUM(ORCA_CMD_DESTROY_SRQ);

TRACE_DEFINE_ENUM(ORCA_CMD_ST_OK);
TRACE_DEFINE_ENUM(ORCA_CMD_ST_BAD_OPCODE);
TRACE_DEFINE_ENUM(ORCA_CMD_ST_BAD_PARAM);
TRACE_DEFINE_ENUM(ORCA_CMD_ST_BAD_HANDLE);
TRACE_DEFINE_ENUM(ORCA_CMD_ST_BAD_STATE);
TRACE_DEFINE_ENUM(ORCA_CMD_ST_NO_RESOURCES);
TRACE_DEFINE_ENUM(ORCA_CMD_ST_BUSY);
TRACE_DEFINE_ENUM(ORCA_CMD_ST_DMA_ERROR);
TRACE_DEFINE_ENUM(ORCA_CMD_ST_BAD_LENGTH);
TRACE_DEFINE_ENUM(ORCA_CMD_ST_INTERNAL);

TRACE_DEFINE_ENUM(ORCA_EQE_COMP);
TRACE_DEFINE_ENUM(ORCA_EQE_CMD_DONE);
TRACE_DEFINE_ENUM(ORCA_EQE_PORT_CHANGE);
TRACE_DEFINE_ENUM(ORCA_EQE_QP_FATAL);
TRACE_DEFINE_ENUM(ORCA_EQE_QP_REQ_ERR);
TRACE_DEFINE_ENUM(ORCA_EQE_QP_ACCESS_ERR);
TRACE_DEFINE_ENUM(ORCA_EQE_QP_LAST_WQE);
TRACE_DEFINE_ENUM(ORCA_EQE_SQ_DRAINED);
TRACE_DEFINE_ENUM(ORCA_EQE_COMM_EST);
TRACE_DEFINE_ENUM(ORCA_EQE_CQ_ERR);
TRACE_DEFINE_ENUM(ORCA_EQE_SRQ_LIMIT);
TRACE_DEFINE_ENUM(ORCA_EQE_SRQ_ERR);
TRACE_DEFINE_ENUM(ORCA_EQE_DEVICE_FATAL);

TRACE_DEFINE_ENUM(IB_QPS_RESET);
TRACE_DEFINE_ENUM(IB_QPS_INIT);
TRACE_DEFINE_ENUM(IB_QPS_RTR);
TRACE_DEFINE_ENUM(IB_QPS_RTS);
TRACE_DEFINE_ENUM(IB_QPS_SQD);
TRACE_DEFINE_ENUM(IB_QPS_SQE);
TRACE_DEFINE_ENUM(IB_QPS_ERR);

TRACE_DEFINE_ENUM(ORCA_QPS_SRC_MODIFY);
TRACE_DEFINE_ENUM(ORCA_QPS_SRC_ADAPTER);

#define orca_show_cmd_opcode(op)					\
	__print_symbolic(op,						\
			 { ORCA_CMD_NOP, "NOP" },	\
			 { ORCA_CMD_QUERY_DEVICE, "QUERY_DEVICE" },	\
			 { ORCA_CMD_QUERY_PORT, "QUERY_PORT" },	\
			 { ORCA_CMD_SET_PORT, "SET_PORT" },	\
			 { ORCA_CMD_SET_GID, "SET_GID" },	\
			 { ORCA_CMD_QUERY_STATS, "QUERY_STATS" },	\
			 { ORCA_CMD_CREATE_EQ, "CREATE_EQ" },	\
			 { ORCA_CMD_DESTROY_EQ, "DESTROY_EQ" },	\
			 { ORCA_CMD_ALLOC_UAR, "ALLOC_UAR" },	\
			 { ORCA_CMD_DEALLOC_UAR, "DEALLOC_UAR" },	\
			 { ORCA_CMD_CREATE_PD, "CREATE_PD" },	\
			 { ORCA_CMD_DESTROY_PD, "DESTROY_PD" },	\
			 { ORCA_CMD_CREATE_CQ, "CREATE_CQ" },	\
			 { ORCA_CMD_RESIZE_CQ, "RESIZE_CQ" },	\
			 { ORCA_CMD_DESTROY_CQ, "DESTROY_CQ" },	\
			 { ORCA_CMD_QUERY_CQ, "QUERY_CQ" },	\
			 { ORCA_CMD_MODIFY_CQ, "MODIFY_CQ" },	\
			 { ORCA_CMD_CREATE_MR, "CREATE_MR" },	\
			 { ORCA_CMD_DESTROY_MR, "DESTROY_MR" },	\
			 { ORCA_CMD_SET_ODP, "SET_ODP" },	\
			 { ORCA_CMD_MR_INSTALL, "MR_INSTALL" },	\
			 { ORCA_CMD_MR_INVALIDATE, "MR_INVALIDATE" },	\
			 { ORCA_CMD_CREATE_QP, "CREATE_QP" },	\
			 { ORCA_CMD_MODIFY_QP, "MODIFY_QP" },	\
			 { ORCA_CMD_QUERY_QP, "QUERY_QP" },	\
			 { ORCA_CMD_DESTROY_QP, "DESTROY_QP" },	\
			 { ORCA_CMD_CREATE_AH, "CREATE_AH" },	\
			 { ORCA_CMD_DESTROY_AH, "DESTROY_AH" },	\
			 { ORCA_CMD_CREATE_SRQ, "CREATE_SRQ" },	\
			 { ORCA_CMD_MODIFY_SRQ, "MODIFY_SRQ" },	\
			 { ORCA_CMD_QUERY_SRQ, "QUERY_SRQ" },	\
			 { ORCA_CMD_DESTROY_SRQ, "DESTROY_SRQ" })

#define orca_show_cmd_status(st)					\
	__print_symbolic(st,						\
			 { ORCA_CMD_ST_OK, "OK" },	\
			 { ORCA_CMD_ST_BAD_OPCODE, "BAD_OPCODE" },	\
			 { ORCA_CMD_ST_BAD_PARAM, "BAD_PARAM" },	\
			 { ORCA_CMD_ST_BAD_HANDLE, "BAD_HANDLE" },	\
			 { ORCA_CMD_ST_BAD_STATE, "BAD_STATE" },	\
			 { ORCA_CMD_ST_NO_RESOURCES, "NO_RESOURCES" },	\
			 { ORCA_CMD_ST_BUSY, "BUSY" },	\
			 { ORCA_CMD_ST_DMA_ERROR, "DMA_ERROR" },	\
			 { ORCA_CMD_ST_BAD_LENGTH, "BAD_LENGTH" },	\
			 { ORCA_CMD_ST_INTERNAL, "INTERNAL" })

#define orca_show_eqe_type(type)					\
	__print_symbolic(type,						\
			 { ORCA_EQE_COMP, "COMP" },	\
			 { ORCA_EQE_CMD_DONE, "CMD_DONE" },	\
			 { ORCA_EQE_PORT_CHANGE, "PORT_CHANGE" },	\
			 { ORCA_EQE_QP_FATAL, "QP_FATAL" },	\
			 { ORCA_EQE_QP_REQ_ERR, "QP_REQ_ERR" },	\
			 { ORCA_EQE_QP_ACCESS_ERR, "QP_ACCESS_ERR" },	\
			 { ORCA_EQE_QP_LAST_WQE, "QP_LAST_WQE" },	\
			 { ORCA_EQE_SQ_DRAINED, "SQ_DRAINED" },	\
			 { ORCA_EQE_COMM_EST, "COMM_EST" },	\
			 { ORCA_EQE_CQ_ERR, "CQ_ERR" },	\
			 { ORCA_EQE_SRQ_LIMIT, "SRQ_LIMIT" },	\
			 { ORCA_EQE_SRQ_ERR, "SRQ_ERR" },	\
			 { ORCA_EQE_DEVICE_FATAL, "DEVICE_FATAL" })

#define orca_show_qp_state(state)					\
	__print_symbolic(state,						\
			 { IB_QPS_RESET, "RESET" },	\
			 { IB_QPS_INIT, "INIT" },	\
			 { IB_QPS_RTR, "RTR" },	\
			 { IB_QPS_RTS, "RTS" },	\
			 { IB_QPS_SQD, "SQD" },	\
			 { IB_QPS_SQE, "SQE" },	\
			 { IB_QPS_ERR, "ERR" })

#define orca_show_qp_src(src)						\
	__print_symbolic(src,						\
			 { ORCA_QPS_SRC_MODIFY, "modify" },	\
			 { ORCA_QPS_SRC_ADAPTER, "adapter" })

TRACE_EVENT(orca_cmd_submit,
	    TP_PROTO(const struct orca_dev *odev, u16 opcode, u16 token),
	    TP_ARGS(odev, opcode, token),

	    TP_STRUCT__entry(__string(dev, pci_name(odev->pdev))
			     __field(u16, opcode)
			     __field(u16, token)
	    ),

	    TP_fast_assign(__assign_str(dev);
			   __entry->opcode = opcode;
			   __entry->token = token;
	    ),

	    TP_printk("%s opcode=0x%02x %s token=%u", __get_str(dev),
		      __entry->opcode, orca_show_cmd_opcode(__entry->opcode),
		      __entry->token)
);

/*
 * @posted: when the command was posted, or 0 if this tracepoint was off
 * then (its latency then reads 0).
 */
TRACE_EVENT(orca_cmd_complete,
	    TP_PROTO(const struct orca_dev *odev, u16 opcode, u16 token,
		     u8 status, u32 syndrome, ktime_t posted),
	    TP_ARGS(odev, opcode, token, status, syndrome, posted),

	    TP_STRUCT__entry(__string(dev, pci_name(odev->pdev))
			     __field(u16, opcode)
			     __field(u16, token)
			     __field(u8, status)
			     __field(u32, syndrome)
			     __field(s64, latency_us)
	    ),

	    TP_fast_assign(__assign_str(dev);
			   __entry->opcode = opcode;
			   __entry->token = token;
			   __entry->status = status;
			   __entry->syndrome = syndrome;
			   __entry->latency_us = posted ?
				ktime_us_delta(ktime_get(), posted) : 0;
	    ),

	    TP_printk("%s opcode=0x%02x %s token=%u status=0x%x %s syndrome=0x%x latency_us=%lld",
		      __get_str(dev), __entry->opcode,
		      orca_show_cmd_opcode(__entry->opcode), __entry->token,
		      __entry->status, orca_show_cmd_status(__entry->status),
		      __entry->syndrome, __entry->latency_us)
);

TRACE_EVENT(orca_eq_event,
	    TP_PROTO(const struct orca_eq *eq, const struct orca_eqe *eqe),
	    TP_ARGS(eq, eqe),

	    TP_STRUCT__entry(__string(dev, pci_name(eq->odev->pdev))
			     __field(u32, eqn)
			     __field(u8, type)
			     __field(u32, data)
	    ),

	    TP_fast_assign(__assign_str(dev);
			   __entry->eqn = eq->eqn;
			   __entry->type = eqe->type;
			   __entry->data = le32_to_cpu(eqe->data);
	    ),

	    TP_printk("%s eqn=%u type=0x%02x %s obj=%u", __get_str(dev),
		      __entry->eqn, __entry->type,
		      orca_show_eqe_type(__entry->type), __entry->data)
);

TRACE_EVENT(orca_qp_state,
	    TP_PROTO(const struct orca_dev *odev, u32 qpn,
		     enum ib_qp_state old, enum ib_qp_state new,
		     enum orca_qp_state_src src),
	    TP_ARGS(odev, qpn, old, new, src),

	    TP_STRUCT__entry(__string(dev, pci_name(odev->pdev))
			     __field(u32, qpn)
			     __field(u8, old)
			     __field(u8, new)
			     __field(u8, src)
	    ),

	    TP_fast_assign(__assign_str(dev);
			   __entry->qpn = qpn;
			   __entry->old = old;
			   __entry->new = new;
			   __entry->src = src;
	    ),

	    TP_printk("%s qpn=%u %s->%s by=%s", __get_str(dev), __entry->qpn,
		      orca_show_qp_state(__entry->old),
		      orca_show_qp_state(__entry->new),
		      orca_show_qp_src(__entry->src))
);

/* On-demand paging (orca_odp.c): a page fault taken, and its end. */
TRACE_EVENT(orca_odp_fault,
	    TP_PROTO(const struct orca_dev *odev,
		     const struct orca_page_fault *rec),
	    TP_ARGS(odev, rec),

	    TP_STRUCT__entry(__string(dev, pci_name(odev->pdev))
			     __field(u32, token)
			     __field(u32, qpn)
			     __field(u32, mkey)
			     __field(u64, va)
			     __field(u32, length)
			     __field(u8, kind)
			     __field(u8, flags)
	    ),

	    TP_fast_assign(__assign_str(dev);
			   __entry->token = le32_to_cpu(rec->token);
			   __entry->qpn = le32_to_cpu(rec->qpn);
			   __entry->mkey = le32_to_cpu(rec->mkey);
			   __entry->va = le64_to_cpu(rec->va);
			   __entry->length = le32_to_cpu(rec->length);
			   __entry->kind = rec->kind;
			   __entry->flags = rec->flags;
	    ),

	    TP_printk("%s token=%#x qpn=%u kind=%u flags=%#x mkey=%#x va=%#llx len=%u",
		      __get_str(dev), __entry->token, __entry->qpn,
		      __entry->kind, __entry->flags, __entry->mkey,
		      __entry->va, __entry->length)
);

TRACE_EVENT(orca_odp_resolve,
	    TP_PROTO(const struct orca_dev *odev, u32 token, int err,
		     ktime_t t0),
	    TP_ARGS(odev, token, err, t0),

	    TP_STRUCT__entry(__string(dev, pci_name(odev->pdev))
			     __field(u32, token)
			     __field(int, err)
			     __field(s64, latency_us)
	    ),

	    TP_fast_assign(__assign_str(dev);
			   __entry->token = token;
			   __entry->err = err;
			   __entry->latency_us = ktime_us_delta(ktime_get(), t0);
	    ),

	    TP_printk("%s token=%#x err=%d latency_us=%lld", __get_str(dev),
		      __entry->token, __entry->err, __entry->latency_us)
);

TRACE_EVENT(orca_dev_dead,
	    TP_PROTO(const struct orca_dev *odev, const char *reason),
	    TP_ARGS(odev, reason),

	    TP_STRUCT__entry(__string(dev, pci_name(odev->pdev))
			     __string(reason, reason)
	    ),

	    TP_fast_assign(__assign_str(dev);
			   __assign_str(reason);
	    ),

	    TP_printk("%s reason=%s", __get_str(dev), __get_str(reason))
);

#endif /* _ORCA_TRACE_H */

/* The driver is also built out of tree (M=): its Makefile adds -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE orca_trace
#include <trace/define_trace.h>
