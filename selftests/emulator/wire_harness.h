/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the emulator's tests and benchmarks of the port and the wire share:
 * the orca-wire switch as a child process (finding its binary, starting
 * it and waiting for its socket, stopping it, reading the counters of its
 * exit line: "exit: received N forwarded N ... not_roce_dropped N"), and
 * the datagram sockets that stand in for QEMU's -netdev dgram ends.  A
 * switch dies with the test that started it (PR_SET_PDEATHSIG).
 */
#ifndef ORCA_TEST_WIRE_HARNESS_H
#define ORCA_TEST_WIRE_HARNESS_H

#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* @rel (e.g. "../orca-wire") relative to the directory of this program. */
static inline void wire_bin_beside_self(char *bin, size_t size,
					const char *rel)
{
	char exe[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n < 0 ? 0 : n] = 0;
	snprintf(bin, size, "%s/%s", dirname(exe), rel);
}

/*
 * The switch a unit test runs: $ORCA_WIRE_BIN, else the one the Makefile
 * built next to the tests' folder (build/orca-wire for build/tests/).
 */
static inline void wire_find_binary(char *bin, size_t size)
{
	if (getenv("ORCA_WIRE_BIN")) {
		snprintf(bin, size, "%s", getenv("ORCA_WIRE_BIN"));
		return;
	}
	wire_bin_beside_self(bin, size, "../orca-wire");
}

/*
 * Starts the switch, argv[0] its binary (argv NULL-terminated, options
 * included), and waits up to @wait_ms for it to make its socket @sock.
 * True once it has; false if it could not start, exited first, or made
 * no socket in time (then it is killed): why is said on stdout, as a KTAP
 * diagnostic.  *pid is the child's, or -1.
 */
static inline bool wire_start(pid_t *pid, const char *sock,
			      unsigned int wait_ms, const char *const argv[])
{
	pid_t parent = getpid();
	struct stat st;
	int status;

	*pid = fork();
	if (*pid < 0)
		return false;
	if (*pid == 0) {
		/*
		 * A test that crashes (an ASan report, a signal) takes its
		 * switch with it: no orca-wire is left behind to run on.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (unsigned int i = 0; i < wait_ms / 10; i++) {
		if (stat(sock, &st) == 0)
			return true;
		if (waitpid(*pid, &status, WNOHANG) == *pid) {
			printf("# orca-wire exited (status %d) before making %s\n",
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			       sock);
			*pid = -1;
			return false;
		}
		usleep(10000);
	}
	printf("# orca-wire made no socket %s in %u ms\n", sock, wait_ms);
	kill(*pid, SIGKILL);
	waitpid(*pid, &status, 0);
	*pid = -1;
	return false;
}

/* SIGTERM, and waits for it to exit; true if it exited with status 0. */
static inline bool wire_stop(pid_t pid)
{
	int status;

	if (pid <= 0)
		return false;
	kill(pid, SIGTERM);
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/*
 * A datagram socket bound at @path (@flags: for socket(2)'s type, such as
 * SOCK_CLOEXEC); the test exits if it cannot have it.
 */
static inline int wire_bind_dgram(const char *path, int flags)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | flags, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror(path);
		exit(2);
	}
	return fd;
}

/*
 * The Internet checksum of a 20-byte IPv4 header at @ip: 0 if the header's
 * checksum field is right.  wire_ipv4_csum() writes that field.
 */
static inline uint16_t wire_ipv4_sum(const uint8_t *ip)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static inline void wire_ipv4_csum(uint8_t *ip)
{
	uint16_t sum;

	ip[10] = ip[11] = 0;
	sum = wire_ipv4_sum(ip);
	ip[10] = sum >> 8;
	ip[11] = sum & 0xff;
}

/*
 * Counter @what of the @nth (from 0; -1: the last) line of @log that has
 * @tag and @what, or ~0 if there is none.
 */
static inline unsigned long long wire_log_count(const char *log,
						const char *tag, int nth,
						const char *what)
{
	char line[1024], key[64];
	unsigned long long v = ~0ull;
	FILE *f = fopen(log, "r");
	int n = 0;
	char *p;

	snprintf(key, sizeof(key), " %s ", what);
	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, tag) || !(p = strstr(line, key)))
			continue;
		if (nth < 0 || n++ == nth)
			v = strtoull(p + strlen(key), NULL, 10);
	}
	if (f)
		fclose(f);
	return v;
}

/* Counter @what of the last exit line in @log, or ~0 if there is none. */
static inline unsigned long long wire_exit_count(const char *log,
						 const char *what)
{
	return wire_log_count(log, "exit: ", -1, what);
}

/*
 * Counter @what of the switch's @nth SIGUSR1 snapshot (orca-wire's
 * "stats: egress:" line; "deepest" is since the snapshot before), or ~0.
 */
static inline unsigned long long wire_stats_count(const char *log, int nth,
						  const char *what)
{
	return wire_log_count(log, "stats: egress: ", nth, what);
}

#endif /* ORCA_TEST_WIRE_HARNESS_H */
