// SPDX-License-Identifier: GPL-2.0
/*
 * MSI-X eventfds (see irq.h).  The lock is held across the eventfd write so
 * that the socket thread cannot close (and the kernel reuse) a descriptor
 * the engine is about to signal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "irq.h"
#include "util/log.h"

int vfio_irq_table_init(struct irq_table *t, unsigned int nr_vectors)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->fds = calloc(nr_vectors ? nr_vectors : 1, sizeof(*t->fds));
	t->raised = calloc(nr_vectors ? nr_vectors : 1, sizeof(*t->raised));
	if (!t->fds || !t->raised) {
		free(t->fds);
		free(t->raised);
		return -ENOMEM;
	}
	for (i = 0; i < nr_vectors; i++)
		t->fds[i] = -1;
	t->nr = nr_vectors;
	pthread_mutex_init(&t->lock, NULL);
	return 0;
}

void vfio_irq_table_destroy(struct irq_table *t)
{
	if (!t->fds)
		return;
	vfio_irq_release_all(t);
	pthread_mutex_destroy(&t->lock);
	free(t->fds);
	free(t->raised);
	t->fds = NULL;
	t->raised = NULL;
}

int vfio_irq_assign(struct irq_table *t, unsigned int vector, int fd)
{
	int old;

	if (vector >= t->nr)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	old = t->fds[vector];
	t->fds[vector] = fd;
	pthread_mutex_unlock(&t->lock);
	if (old >= 0)
		close(old);
	if (old >= 0 || fd >= 0)
		emu_dbg("irq: vector %u %s", vector,
			fd >= 0 ? "assigned" : "cleared");
	return 0;
}

void vfio_irq_release_all(struct irq_table *t)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		vfio_irq_assign(t, i, -1);
}

void vfio_irq_raise(struct irq_table *t, unsigned int vector)
{
	uint64_t one = 1;

	if (vector >= t->nr)
		return;
	pthread_mutex_lock(&t->lock);
	t->raised[vector]++;
	/*
	 * An eventfd write fails only when its counter would overflow, which
	 * means the interrupt is already pending: nothing is lost.
	 */
	if (t->fds[vector] >= 0 &&
	    write(t->fds[vector], &one, sizeof(one)) != sizeof(one))
		emu_dbg("irq: vector %u: eventfd write failed", vector);
	pthread_mutex_unlock(&t->lock);
}
