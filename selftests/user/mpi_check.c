// SPDX-License-Identifier: GPL-2.0
/*
 * mpi_check: what an MPI job needs of the network underneath it, checked
 * byte for byte, across however many ranks mpirun started (one per guest):
 *
 *   ring        MPI_Sendrecv to the right neighbour, from the left one, at
 *               sizes from 1 byte to 1 MiB + 13 (UCX's eager, bcopy,
 *               zcopy and rendezvous protocols);
 *   all-to-all  every rank MPI_Isend()s to every other and MPI_Irecv()s
 *               from every other at once, 64 B to 1 MiB;
 *   allreduce   MPI_Allreduce MPI_SUM of int64 (1 to 131072 elements,
 *               1 MiB) and MPI_MAX of doubles, in place and not, against
 *               the results worked out here;
 *
 * each payload byte a function of its sender, size, round and offset, so a
 * byte from the wrong message, peer or place is found.  Every rank counts
 * its own errors; rank 0 prints one line per check, "CHECK ok NAME" or
 * "CHECK not ok NAME (N errors)", and the exit status is 1 if any failed.
 *
 * With -b ITERS it then measures, printing "BENCH NAME VALUE UNIT":
 * ping-pong latency of 8 B between ranks 0 and 1 (half the round trip,
 * mean of ITERS, after ITERS / 10 unmeasured) and the time of one
 * MPI_Allreduce of 8 B and of 64 KiB (the slowest rank's mean).
 *
 * Built with mpicc (selftests/user/Makefile: mpi_*.c).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, nranks;
static int failed;

/* A byte of a message, mixed from everything that tells messages apart. */
static uint8_t pattern(int src, int size, int round, int i)
{
	uint32_t x = (uint32_t)i * 2654435761u + (uint32_t)src * 0x9e3779b9u +
		     (uint32_t)size * 0x85ebca6bu + (uint32_t)round * 0xc2b2ae35u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return (uint8_t)(x ^ x >> 24);
}

static void fill(uint8_t *b, int src, int size, int round)
{
	int i;

	for (i = 0; i < size; i++)
		b[i] = pattern(src, size, round, i);
}

/* Bytes of @b that are not what @src sent; the first one is reported. */
static long verify(const uint8_t *b, int src, int size, int round,
		   const char *what)
{
	long bad = 0;
	int i, first = -1;

	for (i = 0; i < size; i++) {
		if (b[i] != pattern(src, size, round, i)) {
			if (first < 0)
				first = i;
			bad++;
		}
	}
	if (bad)
		fprintf(stderr,
			"rank %d: %s: %ld of %d bytes from rank %d wrong, first at %d (0x%02x, want 0x%02x)\n",
			rank, what, bad, size, src, first, b[first],
			pattern(src, size, round, first));
	return bad;
}

/* Rank 0 reports @name with every rank's error count. */
static void report(const char *name, long errors)
{
	long total = 0;

	MPI_Allreduce(&errors, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (rank)
		return;
	if (total) {
		printf("CHECK not ok %s (%ld errors)\n", name, total);
		failed = 1;
	} else {
		printf("CHECK ok %s\n", name);
	}
	fflush(stdout);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return p;
}

static const int sizes[] = { 1, 100, 4096, 16384 + 7, 65536, 1048576 + 13 };
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))
#define MAXSIZE (1048576 + 13)

static void check_ring(void)
{
	int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
	uint8_t *tx = xmalloc(MAXSIZE), *rx = xmalloc(MAXSIZE);
	long errors = 0;
	int s, round;

	for (s = 0; s < NSIZES; s++) {
		for (round = 0; round < 3; round++) {
			fill(tx, rank, sizes[s], round);
			memset(rx, 0xee, sizes[s]);
			MPI_Sendrecv(tx, sizes[s], MPI_BYTE, right, round,
				     rx, sizes[s], MPI_BYTE, left, round,
				     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			errors += verify(rx, left, sizes[s], round, "ring");
		}
	}
	free(tx);
	free(rx);
	report("ring MPI_Sendrecv 1 B..1 MiB", errors);
}

static void check_alltoall(void)
{
	static const int asz[] = { 64, 16384 + 7, 1048576 + 13 };
	MPI_Request *req = xmalloc(sizeof(*req) * 2 * nranks);
	uint8_t *tx = xmalloc(MAXSIZE);
	uint8_t **rx = xmalloc(sizeof(*rx) * nranks);
	long errors = 0;
	int s, p, n;

	for (p = 0; p < nranks; p++)
		rx[p] = xmalloc(MAXSIZE);
	for (s = 0; s < (int)(sizeof(asz) / sizeof(asz[0])); s++) {
		/* One send buffer for all peers: it is only read. */
		fill(tx, rank, asz[s], 100 + s);
		n = 0;
		for (p = 0; p < nranks; p++) {
			if (p == rank)
				continue;
			memset(rx[p], 0xee, asz[s]);
			MPI_Irecv(rx[p], asz[s], MPI_BYTE, p, s, MPI_COMM_WORLD,
				  &req[n++]);
		}
		for (p = 0; p < nranks; p++) {
			if (p == rank)
				continue;
			MPI_Isend(tx, asz[s], MPI_BYTE, p, s, MPI_COMM_WORLD,
				  &req[n++]);
		}
		MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
		for (p = 0; p < nranks; p++)
			if (p != rank)
				errors += verify(rx[p], p, asz[s], 100 + s,
						 "all-to-all");
	}
	for (p = 0; p < nranks; p++)
		free(rx[p]);
	free(rx);
	free(tx);
	free(req);
	report("all-to-all MPI_Isend/MPI_Irecv 64 B..1 MiB", errors);
}

static void check_allreduce(void)
{
	static const int counts[] = { 1, 1000, 131072 };
	int64_t *in = xmalloc(sizeof(*in) * 131072);
	int64_t *out = xmalloc(sizeof(*out) * 131072);
	double *din = xmalloc(sizeof(*din) * 131072);
	double *dout = xmalloc(sizeof(*dout) * 131072);
	int64_t n = nranks;
	long errors = 0, dbad = 0;
	int c, i, inplace;

	for (c = 0; c < 3; c++) {
		for (inplace = 0; inplace < 2; inplace++) {
			long bad = 0;

			for (i = 0; i < counts[c]; i++) {
				in[i] = (int64_t)(rank + 1) * (i + 1);
				out[i] = -1;
			}
			if (inplace)
				MPI_Allreduce(MPI_IN_PLACE, in, counts[c],
					      MPI_INT64_T, MPI_SUM,
					      MPI_COMM_WORLD);
			else
				MPI_Allreduce(in, out, counts[c], MPI_INT64_T,
					      MPI_SUM, MPI_COMM_WORLD);
			for (i = 0; i < counts[c]; i++) {
				int64_t got = inplace ? in[i] : out[i];
				int64_t want = (int64_t)(i + 1) * n * (n + 1) / 2;

				if (got != want && !bad++)
					fprintf(stderr,
						"rank %d: allreduce sum of %d%s: [%d] = %lld, want %lld\n",
						rank, counts[c],
						inplace ? " in place" : "", i,
						(long long)got, (long long)want);
			}
			errors += bad;
		}
		/* MAX: rank r contributes r + i / 2, the last rank wins. */
		for (i = 0; i < counts[c]; i++) {
			din[i] = rank + i * 0.5;
			dout[i] = -1;
		}
		MPI_Allreduce(din, dout, counts[c], MPI_DOUBLE, MPI_MAX,
			      MPI_COMM_WORLD);
		for (i = 0; i < counts[c]; i++)
			if (dout[i] != (nranks - 1) + i * 0.5 && !dbad++)
				fprintf(stderr,
					"rank %d: allreduce max of %d: [%d] = %g, want %g\n",
					rank, counts[c], i, dout[i],
					(nranks - 1) + i * 0.5);
	}
	free(in);
	free(out);
	free(din);
	free(dout);
	report("MPI_Allreduce SUM int64 1..131072 (in place and not)", errors);
	report("MPI_Allreduce MAX double 1..131072", dbad);
}

static void bench_pingpong(int iters)
{
	uint8_t tx[8], rx[8];
	int warm = iters / 10, i;
	double t0 = 0;
	long errors = 0;

	fill(tx, rank, 8, 7);
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0; i < warm + iters; i++) {
		if (i == warm)
			t0 = MPI_Wtime();
		if (rank == 0) {
			MPI_Send(tx, 8, MPI_BYTE, 1, 9, MPI_COMM_WORLD);
			MPI_Recv(rx, 8, MPI_BYTE, 1, 9, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(rx, 8, MPI_BYTE, 0, 9, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(tx, 8, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
		}
	}
	if (rank <= 1)
		errors = verify(rx, 1 - rank, 8, 7, "ping-pong");
	if (rank == 0)
		printf("BENCH pingpong_8B_latency %.2f us\n",
		       (MPI_Wtime() - t0) * 1e6 / iters / 2);
	report("ping-pong 8 B (bench) data", errors);
}

static void bench_allreduce(int iters, int count, const char *name)
{
	double *in = xmalloc(sizeof(*in) * count);
	double *out = xmalloc(sizeof(*out) * count);
	double t, worst;
	int warm = iters / 10, i;

	for (i = 0; i < count; i++)
		in[i] = rank + i;
	MPI_Barrier(MPI_COMM_WORLD);
	t = 0;
	for (i = 0; i < warm + iters; i++) {
		if (i == warm)
			t = MPI_Wtime();
		MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
	}
	t = (MPI_Wtime() - t) * 1e6 / iters;
	MPI_Reduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("BENCH %s %.2f us\n", name, worst);
	free(in);
	free(out);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double t0 = now_s(), t1;
	int bench = 0, opt;

	MPI_Init(&argc, &argv);
	t1 = now_s();
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "b:")) != -1) {
		switch (opt) {
		case 'b':
			bench = atoi(optarg);
			break;
		default:
			if (!rank)
				fprintf(stderr, "usage: mpi_check [-b ITERS]\n");
			MPI_Finalize();
			return 2;
		}
	}
	if (nranks < 2) {
		if (!rank)
			fprintf(stderr, "mpi_check: needs 2 ranks or more\n");
		MPI_Finalize();
		return 2;
	}
	if (!rank) {
		/* Where a slow job spends its time (TCG guests). */
		printf("mpi_check: %d ranks, MPI_Init took %.1f s\n", nranks,
		       t1 - t0);
		fflush(stdout);
	}
	check_ring();
	check_alltoall();
	check_allreduce();
	if (!rank)
		printf("mpi_check: checks took %.1f s\n", now_s() - t1);
	if (bench > 0) {
		bench_pingpong(bench);
		bench_allreduce(bench, 1, "allreduce_8B_time");
		bench_allreduce(bench / 10 ? bench / 10 : 1, 8192,
				"allreduce_64KiB_time");
	}
	MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return failed;
}
