/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORCA event queues (orca_eq.c): EQ 0 for asynchronous events and command
 * completions, one completion EQ per vector; and the handlers they
 * dispatch to, each defined with its object.
 */
#ifndef ORCA_EQ_H
#define ORCA_EQ_H

#include "orca.h"

/* orca_eq.c */
#define ORCA_QP_EVENT_TYPES	(BIT(ORCA_EQE_QP_FATAL) | \
				 BIT(ORCA_EQE_QP_REQ_ERR) | \
				 BIT(ORCA_EQE_QP_ACCESS_ERR) | \
				 BIT(ORCA_EQE_QP_LAST_WQE) | \
				 BIT(ORCA_EQE_SQ_DRAINED) | \
				 BIT(ORCA_EQE_COMM_EST))

int orca_async_eq_init(struct orca_dev *odev);
void orca_async_eq_cleanup(struct orca_dev *odev);
int orca_comp_eqs_init(struct orca_dev *odev);
void orca_comp_eqs_cleanup(struct orca_dev *odev);
int orca_comp_eq_bind_cq(struct orca_dev *odev, u32 comp_vector, u32 *eqn);
void orca_comp_eq_unbind_cq(struct orca_dev *odev, u32 eqn, u32 cqn);
void orca_async_eq_scrub(struct orca_dev *odev, u32 types, u32 handle);
void orca_unknown_object_event(struct orca_dev *odev, const char *what,
			       u32 handle);

/* What the EQs dispatch to: orca_cq.c, orca_qp.c, orca_srq.c, orca_port.c */
void orca_cq_comp_event(struct orca_dev *odev, u32 cqn);
void orca_cq_async_event(struct orca_dev *odev, u32 cqn);
void orca_qp_async_event(struct orca_dev *odev, u32 qpn,
			 enum ib_event_type type);
void orca_srq_async_event(struct orca_dev *odev, u32 srqn,
			  enum ib_event_type type);
void orca_port_changed(struct orca_dev *odev);

#endif /* ORCA_EQ_H */
