// SPDX-License-Identifier: GPL-2.0
/* orca-wire's command line (wire_switch.c has the manual). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "switch.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: orca-wire --socket PATH [--pcap FILE] [--pcap-snaplen N]\n"
		"                 [--drop-pct N] [--reorder-pct N] [--faults-rc-only]\n"
		"                 [--isolate] [--seed S] [--qemu-wait-scale N]\n"
		"                 [--link-rate MBPS [--queue-bytes N]\n"
		"                  [--ecn MIN,MAX,PCT [--ecn-at enqueue|dequeue]]\n"
		"                  [--pfc CLASS[,CLASS...] [--pfc-xoff BYTES]\n"
		"                  [--pfc-storm-ms MS]]]\n"
		"                 [--port-rate WHO=MBPS ...] [--uplink IFNAME] [--log FILE]\n");
	exit(2);
}

static unsigned int parse_pct(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > 100)
		usage();
	return (unsigned int)v;
}

/* How many times slower the guests are: 1 to 100. */
static uint32_t parse_scale(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v < 1 || v > 100)
		usage();
	return (uint32_t)v;
}

/* At least an Ethernet header, at most what the pcap header can say. */
static uint32_t parse_snaplen(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v < 14 || v > PCAP_MAX_SNAPLEN)
		usage();
	return (uint32_t)v;
}

/* A number in [min, max], or the usage message. */
static uint32_t parse_u32(const char *s, uint32_t min, uint32_t max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v < min || v > max)
		usage();
	return (uint32_t)v;
}

/* --ecn MIN,MAX,PCT: RED's thresholds in bytes and its top probability. */
static void parse_ecn(struct egress_cfg *c, const char *s)
{
	unsigned int min, max, pct;
	int end = 0;

	if (sscanf(s, "%u,%u,%u%n", &min, &max, &pct, &end) != 3 ||
	    s[end] || min >= max || pct > 100)
		usage();
	c->ecn_min_bytes = min;
	c->ecn_max_bytes = max;
	c->ecn_max_pct = pct;
}

/* --port-rate WHO=MBPS: a port's own link rate. */
static void parse_port_rate(struct wire *w, char *s)
{
	char *eq = strrchr(s, '=');

	if (!eq || eq == s || w->nr_port_rates == MAX_PORT_RATES)
		usage();
	*eq = '\0';
	w->port_rate[w->nr_port_rates].who = s;
	w->port_rate[w->nr_port_rates].mbps = parse_u32(eq + 1, 1, 400000);
	w->nr_port_rates++;
}

/* --pfc's classes: a comma-separated list of 0-7, as a bit mask. */
static uint8_t parse_classes(const char *s)
{
	uint8_t mask = 0;
	char *end;

	do {
		unsigned long c = strtoul(s, &end, 10);

		if (end == s || c >= EGRESS_CLASSES)
			usage();
		mask |= 1u << c;
		s = end + 1;
	} while (*end == ',');
	if (*end)
		usage();
	return mask;
}

void parse_args(struct wire *w, int argc, char **argv, const char **pcap,
		const char **logfile, const char **uplink)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "pcap", required_argument, NULL, 'p' },
		{ "pcap-snaplen", required_argument, NULL, 'n' },
		{ "drop-pct", required_argument, NULL, 'd' },
		{ "reorder-pct", required_argument, NULL, 'r' },
		{ "faults-rc-only", no_argument, NULL, 'R' },
		{ "isolate", no_argument, NULL, 'I' },
		{ "seed", required_argument, NULL, 'S' },
		{ "qemu-wait-scale", required_argument, NULL, 'w' },
		{ "log", required_argument, NULL, 'l' },
		{ "link-rate", required_argument, NULL, 'L' },
		{ "queue-bytes", required_argument, NULL, 'Q' },
		{ "ecn", required_argument, NULL, 'E' },
		{ "ecn-at", required_argument, NULL, 'e' },
		{ "pfc", required_argument, NULL, 'P' },
		{ "pfc-xoff", required_argument, NULL, 'X' },
		{ "pfc-storm-ms", required_argument, NULL, 'W' },
		{ "uplink", required_argument, NULL, 'U' },
		{ "port-rate", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool storm_set = false, ecn_at_set = false;
	int c;

	w->qemu_policy = wire_link_policy_qemu;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			w->path = optarg;
			break;
		case 'p':
			*pcap = optarg;
			break;
		case 'n':
			w->snaplen = parse_snaplen(optarg);
			break;
		case 'd':
			w->drop_pct = parse_pct(optarg);
			break;
		case 'r':
			w->reorder_pct = parse_pct(optarg);
			break;
		case 'R':
			w->faults_rc_only = true;
			break;
		case 'I':
			w->isolate = true;
			break;
		case 'S':
			w->rng = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			w->qemu_policy.wait_ms = wire_link_policy_qemu.wait_ms *
						 parse_scale(optarg);
			break;
		case 'l':
			*logfile = optarg;
			break;
		case 'L':
			w->eg_cfg.rate_mbps = parse_u32(optarg, 1, 400000);
			break;
		case 'Q':
			w->eg_cfg.queue_bytes = parse_u32(optarg, 9018,
							  1u << 30);
			break;
		case 'E':
			parse_ecn(&w->eg_cfg, optarg);
			break;
		case 'e':
			if (strcmp(optarg, "enqueue") && strcmp(optarg, "dequeue"))
				usage();
			w->eg_cfg.ecn_dequeue = !strcmp(optarg, "dequeue");
			ecn_at_set = true;
			break;
		case 'P':
			w->pfc.lossless = parse_classes(optarg);
			break;
		case 'X':
			w->pfc.xoff = parse_u32(optarg, 1, 1u << 30);
			break;
		case 'W':
			w->pfc.storm_ms = parse_u32(optarg, 0, 3600000);
			storm_set = true;
			break;
		case 'U':
			*uplink = optarg;
			break;
		case 'T':
			parse_port_rate(w, optarg);
			break;
		default:
			usage();
		}
	}
	if (!w->path || optind != argc)
		usage();
	/* Queues and marking model a link: without a rate they mean nothing. */
	if (!w->eg_cfg.rate_mbps &&
	    (w->eg_cfg.queue_bytes || w->eg_cfg.ecn_max_bytes ||
	     w->pfc.lossless || w->nr_port_rates))
		usage();
	if (ecn_at_set && !w->eg_cfg.ecn_max_bytes)
		usage();
	if (!w->eg_cfg.queue_bytes)
		w->eg_cfg.queue_bytes = EGRESS_QUEUE_DEFAULT;
	/*
	 * PFC: pause a port whose frames fill a quarter of a queue, resume it
	 * at an eighth; the rest, and the headroom above the queue, take what
	 * is in flight meanwhile.
	 */
	w->eg_cfg.lossless = w->pfc.lossless;
	if (!w->pfc.xoff)
		w->pfc.xoff = w->eg_cfg.queue_bytes / 4;
	w->pfc.xon = w->pfc.xoff / 2;
	if (!storm_set)
		w->pfc.storm_ms = PFC_STORM_MS_DEFAULT;
	if (!w->rng)
		w->rng = 0x9e3779b97f4a7c15ULL;	/* xorshift needs non-zero */
}
