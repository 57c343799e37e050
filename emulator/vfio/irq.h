/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MSI-X interrupts: the eventfds the vfio-user client assigned with
 * VFIO_USER_DEVICE_SET_IRQS, one per vector.  Raising a vector writes 1 to
 * its eventfd; QEMU turns that into the guest's MSI-X message (it emulates
 * the table and masking itself).
 */
#ifndef ORCA_EMU_IRQ_H
#define ORCA_EMU_IRQ_H

#include <pthread.h>
#include <stdint.h>

struct irq_table {
	/* The socket thread reassigns vectors while the engine raises them. */
	pthread_mutex_t lock;
	unsigned int nr;	/* vectors advertised */
	int *fds;		/* -1: not assigned */
	uint64_t *raised;	/* per vector, for tests and logs */
};

int vfio_irq_table_init(struct irq_table *t, unsigned int nr_vectors);
void vfio_irq_table_destroy(struct irq_table *t);

/*
 * Take ownership of @fd for vector @vector (fd -1: de-assign).  The previous
 * eventfd is closed.  -EINVAL if @vector is out of range (then @fd is not
 * taken: the caller closes it).
 */
int vfio_irq_assign(struct irq_table *t, unsigned int vector, int fd);
void vfio_irq_release_all(struct irq_table *t);

/* Signal @vector; a no-op if the guest assigned no eventfd. */
void vfio_irq_raise(struct irq_table *t, unsigned int vector);

#endif /* ORCA_EMU_IRQ_H */
