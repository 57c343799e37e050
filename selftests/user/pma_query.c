// SPDX-License-Identifier: GPL-2.0
/*
 * The port's Performance Management Agent asked over the wire, as perfquery
 * asks it, through the kernel's umad interface (no libibumad: the raw
 * <rdma/ib_user_mad.h> ABI):
 *
 *   pma_query DEV GID_INDEX
 *
 * perfquery (infiniband-diags 56.1) cannot open a RoCE port: it registers
 * an agent for the SMI class too, which needs QP0, and it addresses the
 * port by LID without a GRH, which RoCE refuses.  This program registers a
 * PerformanceManagement client only, and sends each Get to QP1 of DEV's own
 * GID GID_INDEX with a GRH: the MAD leaves through the adapter's GSI QP,
 * comes back to it (loopback), the kernel's MAD layer hands it to the
 * driver's process_mad, whose GetResp travels the same way back.
 *
 * It gets ClassPortInfo (the capability mask must say 64-bit counters),
 * PortCounters and PortCountersExtended, and prints their counters one a
 * line as perfquery names them ("PortXmitData:....N"); then checks what
 * the agent refuses: a Set (the counters run free) and an attribute it
 * lacks (PortSamplesControl) answer status "unsupported method/attribute"
 * (0x0c), PortSelect 2 "invalid attribute value" (0x1c).  Exit 0 when every
 * answer came and was right.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/ib_user_mad.h>

#define MAD_SIZE		256
#define PERF_CLASS		0x04
#define METHOD_GET		0x01
#define METHOD_SET		0x02
#define METHOD_GET_RESP		0x81
#define ATTR_CLASS_PORT_INFO	0x0001
#define ATTR_SAMPLES_CONTROL	0x0010
#define ATTR_PORT_COUNTERS	0x0012
#define ATTR_PORT_COUNTERS_EXT	0x001d
#define ST_UNSUP_METHOD_ATTR	0x000c
#define ST_INVALID_ATTR_VALUE	0x001c
#define CAP_EXT_WIDTH		(1 << 9)
#define PMA_DATA		64	/* MAD header 24 + reserved 40 */

struct umad {
	struct ib_user_mad_hdr hdr;
	uint8_t mad[MAD_SIZE];
};

static int fd, agent;
static uint8_t gid[16], gid_index;
static uint32_t tid = 0x0dca0000;

static __attribute__((noreturn)) void fail(const char *what)
{
	fprintf(stderr, "pma_query: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* /dev/infiniband/umadN of DEV's port 1. */
static void open_umad(const char *dev)
{
	char path[600], val[64];
	struct dirent *de;
	DIR *d = opendir("/sys/class/infiniband_mad");

	if (!d)
		fail("/sys/class/infiniband_mad (ib_umad loaded?)");
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "umad", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/%s/ibdev",
			 de->d_name);
		if (read_sysfs(path, val, sizeof(val)) || strcmp(val, dev))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/%s/port",
			 de->d_name);
		if (read_sysfs(path, val, sizeof(val)) || strcmp(val, "1"))
			continue;
		snprintf(path, sizeof(path), "/dev/infiniband/%s", de->d_name);
		fd = open(path, O_RDWR);
		if (fd < 0)
			fail(path);
		closedir(d);
		return;
	}
	errno = ENODEV;
	fail(dev);
}

static void read_gid(const char *dev)
{
	char path[256], val[64];
	unsigned int w[8];
	int i;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/gids/%u",
		 dev, gid_index);
	if (read_sysfs(path, val, sizeof(val)) ||
	    sscanf(val, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3],
		   &w[4], &w[5], &w[6], &w[7]) != 8)
		fail(path);
	for (i = 0; i < 8; i++) {
		gid[2 * i] = w[i] >> 8;
		gid[2 * i + 1] = w[i] & 0xff;
	}
}

static void register_agent(void)
{
	struct ib_user_mad_reg_req req = {
		.qpn = 1,
		.mgmt_class = PERF_CLASS,
		.mgmt_class_version = 1,
	};

	if (ioctl(fd, IB_USER_MAD_ENABLE_PKEY, NULL) < 0)
		fail("IB_USER_MAD_ENABLE_PKEY");
	if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &req) < 0)
		fail("IB_USER_MAD_REGISTER_AGENT (PerformanceManagement)");
	agent = (int)req.id;
}

/*
 * One request and its answer: METHOD of ATTR with PortSelect PORT_SELECT;
 * the answer's MAD into @resp.  Returns its MAD status, -1 on a timeout.
 */
static int rpc(uint8_t method, uint16_t attr, uint8_t port_select,
	       uint8_t *resp)
{
	struct umad req = { 0 }, ans;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint32_t my_tid = ++tid;
	ssize_t n;

	req.hdr.id = (uint32_t)agent;
	req.hdr.timeout_ms = 2000;
	req.hdr.retries = 2;
	req.hdr.qpn = htonl(1);
	req.hdr.qkey = htonl(0x80010000);
	req.hdr.grh_present = 1;
	req.hdr.gid_index = gid_index;
	req.hdr.hop_limit = 64;
	memcpy(req.hdr.gid, gid, 16);
	req.mad[0] = 1;				/* BaseVersion */
	req.mad[1] = PERF_CLASS;
	req.mad[2] = 1;				/* ClassVersion */
	req.mad[3] = method;
	req.mad[12] = my_tid >> 24;		/* TransactionID, low word */
	req.mad[13] = my_tid >> 16;
	req.mad[14] = my_tid >> 8;
	req.mad[15] = my_tid;
	req.mad[16] = attr >> 8;
	req.mad[17] = attr & 0xff;
	req.mad[PMA_DATA + 1] = port_select;
	if (write(fd, &req, sizeof(req)) != (ssize_t)sizeof(req))
		fail("write (umad send)");
	for (;;) {
		if (poll(&pfd, 1, 15000) != 1) {
			errno = ETIMEDOUT;
			fail("no answer from umad");
		}
		n = read(fd, &ans, sizeof(ans));
		if (n < 0)
			fail("read (umad)");
		if (ans.hdr.status) {		/* our send failed */
			fprintf(stderr, "pma_query: attr %#x: send status %u\n",
				attr, ans.hdr.status);
			return -1;
		}
		if ((size_t)n < sizeof(ans.hdr) + PMA_DATA + 40 ||
		    memcmp(&ans.mad[12], &req.mad[12], 4))
			continue;		/* not ours */
		break;
	}
	if (ans.mad[1] != PERF_CLASS || ans.mad[3] != METHOD_GET_RESP ||
	    ans.mad[16] != req.mad[16] || ans.mad[17] != req.mad[17]) {
		fprintf(stderr, "pma_query: answer class %#x method %#x attr %#x%02x\n",
			ans.mad[1], ans.mad[3], ans.mad[16], ans.mad[17]);
		exit(1);
	}
	memcpy(resp, ans.mad, MAD_SIZE);
	return (ans.mad[4] << 8 | ans.mad[5]) & 0x7fff;
}

static uint64_t be(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | *p++;
	return v;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int off, len; } pc[] = {
		{ "PortRcvErrors", 10, 2 },
		{ "PortXmitData", 24, 4 },
		{ "PortRcvData", 28, 4 },
		{ "PortXmitPkts", 32, 4 },
		{ "PortRcvPkts", 36, 4 },
	}, pcx[] = {
		{ "PortXmitData", 8, 8 },
		{ "PortRcvData", 16, 8 },
		{ "PortXmitPkts", 24, 8 },
		{ "PortRcvPkts", 32, 8 },
		{ "PortUnicastXmitPkts", 40, 8 },
		{ "PortUnicastRcvPkts", 48, 8 },
		{ "PortMulticastXmitPkts", 56, 8 },
		{ "PortMulticastRcvPkts", 64, 8 },
	};
	uint8_t r[MAD_SIZE];
	const uint8_t *d = r + PMA_DATA;
	unsigned int i;
	int st, bad = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: pma_query DEV GID_INDEX\n");
		return 2;
	}
	gid_index = (uint8_t)atoi(argv[2]);
	open_umad(argv[1]);
	read_gid(argv[1]);
	register_agent();

	st = rpc(METHOD_GET, ATTR_CLASS_PORT_INFO, 0, r);
	printf("ClassPortInfo: status %#x CapMask %#llx\n", st,
	       (unsigned long long)be(d + 2, 2));
	if (st || !(be(d + 2, 2) & CAP_EXT_WIDTH) || d[0] != 1 || d[1] != 1)
		bad++;

	st = rpc(METHOD_GET, ATTR_PORT_COUNTERS, 1, r);
	printf("# Port counters: status %#x PortSelect %u\n", st, d[1]);
	if (st || d[1] != 1)
		bad++;
	for (i = 0; i < sizeof(pc) / sizeof(pc[0]); i++)
		printf("%s:%llu\n", pc[i].name,
		       (unsigned long long)be(d + pc[i].off, pc[i].len));

	st = rpc(METHOD_GET, ATTR_PORT_COUNTERS_EXT, 1, r);
	printf("# Port extended counters: status %#x PortSelect %u\n", st,
	       d[1]);
	if (st || d[1] != 1)
		bad++;
	for (i = 0; i < sizeof(pcx) / sizeof(pcx[0]); i++)
		printf("x%s:%llu\n", pcx[i].name,
		       (unsigned long long)be(d + pcx[i].off, pcx[i].len));

	st = rpc(METHOD_SET, ATTR_PORT_COUNTERS, 1, r);
	printf("# Set(PortCounters): status %#x\n", st);
	bad += st != ST_UNSUP_METHOD_ATTR;
	st = rpc(METHOD_GET, ATTR_SAMPLES_CONTROL, 1, r);
	printf("# Get(PortSamplesControl): status %#x\n", st);
	bad += st != ST_UNSUP_METHOD_ATTR;
	st = rpc(METHOD_GET, ATTR_PORT_COUNTERS, 2, r);
	printf("# Get(PortCounters) of port 2: status %#x\n", st);
	bad += st != ST_INVALID_ATTR_VALUE;
	if (bad)
		fprintf(stderr, "pma_query: %d wrong answers\n", bad);
	return bad ? 1 : 0;
}
