// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Traffic generator and rate meter of the throughput benchmark: runs
 * bench/gen.bpf.c with BPF_PROG_TEST_RUN and BPF_F_TEST_XDP_LIVE_FRAMES on
 * veth ends of the current network namespace, pinned to one CPU. Every frame
 * is a 60-byte IPv4/UDP frame to DST_IP, its source address taken in turn
 * from a traffic file (bench/mklists.c).
 *
 * Usage: build/bench/gen [options] --mix NAME=FILE... --target NAME=IFNAME=MAC...
 *   --dst A        destination IPv4 address (default 198.19.0.1)
 *   --cpu N        CPU to run on (default: any)
 *   --batch N      live-frames batch size (default 64)
 *   --rounds N     rounds (default 1)
 *   --window S     seconds measured per slot (default 1)
 *   --warmup S     seconds run before each measurement (default 0.2)
 *   --repeat N     frames per BPF_PROG_TEST_RUN call (default 262144)
 *   --threads N    generator threads, all on the generator's CPU (default 2)
 *   --dns-zone Z   DNS flood: every frame a standard query (UDP to port 53) for
 *                  a name under zone Z, its first labels random (water torture)
 *   --dns-random N random 8-letter labels before the zone (1 to 4, default 1)
 *   --listed       mark the frames listed for the bare receiver (IPv4 ID not 0)
 *   --dns-fixed    the same name in every frame (letters not stamped): what
 *                  the randomness costs the receiver
 *   --payload K    with --dns-zone, what names the name (its first labels random
 *                  as above): dns (a query, the default), answers (a response
 *                  from port 53 to 40000: the question, a CNAME to the 3-label
 *                  abcdefgh.cdn.example, 3 A records owned by it), http (a TCP
 *                  segment to port 80: "GET / HTTP/1.1", its Host header) or
 *                  tls (a TCP segment to port 443: a TLS ClientHello whose only
 *                  extension is server_name)
 *
 * A round runs every mix against every target, one slot each, the targets in
 * turn (their order rotated by one each round, so that none is always first
 * after a mix change): A B C, A B C. The receive rate of a slot is taken from
 * the sending veth's tx_packets, which for a veth counts the frames its peer's
 * XDP program processed (the peer's rx xdp_packets); tx_dropped counts the
 * frames the peer's full ring refused. One line per slot on stdout:
 *   ROUND MIX TARGET RX_MPPS GEN_MPPS REFUSED
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "dns_wire.h"
#include "gen.skel.h"
#include "own_mac.h"
#include "tls_hello.h"

#define FRAME_LEN 60
#define FRAME_MAX 256
#define MAX_RANDOM_LABELS 4
#define MAX_MIXES 8
#define MAX_TARGETS 16

struct mix {
	const char *name;
	__u32 base, len;
};

struct target {
	const char *name;
	char ifname[IF_NAMESIZE];
	unsigned int ifindex;
	unsigned char frame[FRAME_MAX];
	__u32 len;
	__u32 csum_base;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "gen: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* tx_packets and tx_dropped of IFNAME (32-bit counters of getifaddrs: enough for a window). */
static void link_tx(const char *ifname, __u32 *packets, __u32 *dropped)
{
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa))
		die("getifaddrs");
	*packets = *dropped = 0;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_PACKET || !i->ifa_data ||
		    strcmp(i->ifa_name, ifname))
			continue;
		*packets = ((struct rtnl_link_stats *)i->ifa_data)->tx_packets;
		*dropped = ((struct rtnl_link_stats *)i->ifa_data)->tx_dropped;
		break;
	}
	freeifaddrs(ifa);
}

/* The DNS flood's query, if any: zone and random labels before it. */
static const char *dns_zone;
static int dns_random = 1;

/* What the flood's frames carry (--payload). */
enum payload { PAYLOAD_DNS, PAYLOAD_ANSWERS, PAYLOAD_HTTP, PAYLOAD_TLS };
static enum payload payload_kind;
static size_t name_at;	/* where the random labels start in the L4 payload */

/* "aaaaaaaa." dns_random times, then the zone: the flood's name, dotted. */
static void flood_name(char *out)
{
	int i;

	out[0] = '\0';
	for (i = 0; i < dns_random; i++)
		strcat(out, "aaaaaaaa.");
	strcat(out, dns_zone);
}

/* A response to the query (RD, RA): a CNAME to 3 labels, 3 A records owned by its target. */
static size_t answers_payload(unsigned char *out)
{
	static struct dns_msg m;
	char name[128];
	size_t target, at;
	int i;

	flood_name(name);
	dns_msg_header(&m, 0x8180, 1, 4, 0, 0);
	name_at = dns_msg_question(&m, name, 1) + 1;
	target = dns_msg_alias(&m, 5, "abcdefgh.cdn.example");
	for (i = 0; i < 3; i++) {
		dns_msg_be16(&m, 0xc000 | target);
		at = dns_msg_rr(&m, 0, 1, 1, 300);
		dns_msg_put(&m, (const unsigned char[]){ 198, 51, 100, 1 + i }, 4);
		dns_msg_rr_end(&m, at);
	}
	memcpy(out, m.b, m.len);
	return m.len;
}

/* An HTTP/1.1 request naming the flood's name in its Host header. */
static size_t http_payload(unsigned char *out)
{
	char name[128];

	flood_name(name);
	name_at = strlen("GET / HTTP/1.1\r\nHost: ");
	return sprintf((char *)out, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", name);
}

/* A ClientHello for a new flood name (bench/tls_hello.h). */
static size_t tls_payload(unsigned char *out)
{
	char name[128];
	size_t n;

	flood_name(name);
	n = client_hello(out, name);
	name_at = n - strlen(name);
	return n;
}

/* A standard query for "xxxxxxxx.(dns_random times)ZONE", type A; returns its length. */
static size_t dns_payload(unsigned char *out)
{
	size_t n = 12;
	int i;

	memset(out, 0, 12);
	out[2] = 0x01;	/* RD */
	out[5] = 1;	/* QDCOUNT */
	name_at = 13;
	for (i = 0; i < dns_random; i++) {
		out[n++] = 8;
		memset(out + n, 'a', 8);
		n += 8;
	}
	n += dns_wire_name(dns_zone, out + n);
	memcpy(out + n, "\0\1\0\1", 4);
	return n + 4;
}

/* The flood's L4 header length and payload after it (at l4), for --payload. */
static size_t flood_l4(unsigned char *l4, size_t *hdr)
{
	*hdr = sizeof(struct udphdr);
	switch (payload_kind) {
	case PAYLOAD_ANSWERS:
		return answers_payload(l4 + *hdr);
	case PAYLOAD_HTTP:
		*hdr = sizeof(struct tcphdr);
		return http_payload(l4 + *hdr);
	case PAYLOAD_TLS:
		*hdr = sizeof(struct tcphdr);
		return tls_payload(l4 + *hdr);
	default:
		return dns_payload(l4 + *hdr);
	}
}

static void build_frame(struct target *t, const unsigned char *dst_mac, __be32 dst)
{
	size_t payload = 0, hdr = sizeof(struct udphdr);
	struct ethhdr *eth = (void *)t->frame;
	struct iphdr *ip = (void *)(t->frame + ETH_HLEN);
	struct udphdr *udp = (void *)(ip + 1);
	struct tcphdr *tcp = (void *)(ip + 1);
	__u16 *w;

	memset(t->frame, 0, sizeof(t->frame));
	t->len = FRAME_LEN;
	if (dns_zone) {
		payload = flood_l4((unsigned char *)(ip + 1), &hdr);
		t->len = ETH_HLEN + sizeof(*ip) + hdr + payload;
		if (t->len < FRAME_LEN)
			t->len = FRAME_LEN;
	}
	memcpy(eth->h_dest, dst_mac, ETH_ALEN);
	if (own_mac(t->ifname, eth->h_source))
		die(t->ifname);
	eth->h_proto = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(t->len - ETH_HLEN);
	ip->frag_off = htons(0x4000);	/* DF */
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->daddr = dst;
	if (dns_zone && hdr == sizeof(struct tcphdr)) {
		ip->protocol = IPPROTO_TCP;
		tcp->source = htons(40000);
		tcp->dest = htons(payload_kind == PAYLOAD_HTTP ? 80 : 443);
		tcp->seq = htonl(1);
		tcp->ack_seq = htonl(1);
		tcp->doff = 5;
		tcp->psh = 1;
		tcp->ack = 1;
		tcp->window = htons(512);
	} else {
		udp->source = htons(payload_kind == PAYLOAD_ANSWERS ? 53 : 4096);
		udp->dest = htons(!dns_zone ? 9 : payload_kind == PAYLOAD_ANSWERS ? 40000 : 53);
		udp->len = htons(t->len - ETH_HLEN - sizeof(*ip));
	}
	t->csum_base = 0;
	for (w = (__u16 *)ip; w < (__u16 *)(ip + 1); w++)
		t->csum_base += *w;
}

/*
 * Test runs on target T until `until`. A test run ends by destroying its page
 * pool, which waits for an RCU grace period (~20 ms here, whatever the
 * repeat count): with one thread the receiver would idle meanwhile. Several
 * threads on the generator's CPU take turns, so that frames keep coming.
 */
struct worker {
	pthread_t thread;
	struct gen *skel;
	struct target *t;
	__u32 batch, repeat;
	double until;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct xdp_md ctx_in = { .data = 0, .data_end = w->t->len,
				 .ingress_ifindex = w->t->ifindex };

	do {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = w->t->frame,
			    .data_size_in = w->t->len, .ctx_in = &ctx_in,
			    .ctx_size_in = sizeof(ctx_in), .flags = BPF_F_TEST_XDP_LIVE_FRAMES,
			    .repeat = w->repeat, .batch_size = w->batch);

		if (bpf_prog_test_run_opts(bpf_program__fd(w->skel->progs.gen), &opts))
			die("BPF_PROG_TEST_RUN");
	} while (now() < w->until);
	return NULL;
}

static void sleep_until(double t)
{
	double d = t - now();
	struct timespec ts;

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* Frames stamped so far, all CPUs. */
static unsigned long long frames_sent(struct gen *skel, int ncpu)
{
	struct { __u64 next, frames; } cur[ncpu];
	unsigned long long sum = 0;
	__u32 zero = 0;
	int c;

	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.cursors), &zero, cur))
		die("cursors");
	for (c = 0; c < ncpu; c++)
		sum += cur[c].frames;
	return sum;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dst", required_argument, NULL, 'd' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "batch", required_argument, NULL, 'b' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "window", required_argument, NULL, 'w' },
		{ "warmup", required_argument, NULL, 'u' },
		{ "repeat", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 'n' },
		{ "mix", required_argument, NULL, 'm' },
		{ "target", required_argument, NULL, 't' },
		{ "dns-zone", required_argument, NULL, 'z' },
		{ "dns-random", required_argument, NULL, 'l' },
		{ "listed", no_argument, NULL, 'L' },
		{ "dns-fixed", no_argument, NULL, 'F' },
		{ "payload", required_argument, NULL, 'P' },
		{}
	};
	struct mix mixes[MAX_MIXES];
	static struct target targets[MAX_TARGETS];
	const char *files[MAX_MIXES];
	unsigned char mac[ETH_ALEN];
	int nmix = 0, ntarget = 0, cpu = -1, rounds = 1, nthreads = 2, opt, fd, err, ncpu, r, m, k;
	struct worker workers[8];
	int listed = 0, fixed = 0;
	double window = 1, warmup = 0.2, t0, t1;
	__u32 batch = 64, repeat = 262144, total = 0, p0, p1, d0, d1, zero = 0;
	__be32 dst;
	struct stat st;
	char *eq, *eq2;
	__u64 *traffic;
	struct gen *skel;
	cpu_set_t set;

	inet_pton(AF_INET, "198.19.0.1", &dst);
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (inet_pton(AF_INET, optarg, &dst) != 1) {
				fprintf(stderr, "gen: bad IPv4 address %s\n", optarg);
				return 2;
			}
			break;
		case 'c': cpu = atoi(optarg); break;
		case 'b': batch = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'w': window = atof(optarg); break;
		case 'u': warmup = atof(optarg); break;
		case 'p': repeat = atoi(optarg); break;
		case 'n': nthreads = atoi(optarg); break;
		case 'z':
			if (ntarget || strlen(optarg) > 60) {
				fprintf(stderr, "gen: --dns-zone before --target, <= 60 bytes\n");
				return 2;
			}
			dns_zone = optarg;
			break;
		case 'l':
			dns_random = atoi(optarg);
			if (ntarget || dns_random < 1 || dns_random > MAX_RANDOM_LABELS) {
				fprintf(stderr, "gen: --dns-random 1..%d, before --target\n",
					MAX_RANDOM_LABELS);
				return 2;
			}
			break;
		case 'L': listed = 1; break;
		case 'P':
			for (k = 0; k < 4; k++)
				if (!strcmp(optarg, (const char *[]){ "dns", "answers", "http", "tls" }[k]))
					break;
			if (ntarget || k == 4) {
				fprintf(stderr, "gen: --payload dns|answers|http|tls, before --target\n");
				return 2;
			}
			payload_kind = k;
			break;
		case 'F': fixed = 1; break;
		case 'm':
			eq = strchr(optarg, '=');
			if (!eq || nmix == MAX_MIXES) {
				fprintf(stderr, "gen: --mix NAME=FILE (at most %d)\n", MAX_MIXES);
				return 2;
			}
			*eq = '\0';
			mixes[nmix].name = optarg;
			files[nmix++] = eq + 1;
			break;
		case 't':
			eq = strchr(optarg, '=');
			eq2 = eq ? strchr(eq + 1, '=') : NULL;
			if (!eq2 || ntarget == MAX_TARGETS || eq2 - eq - 1 >= IF_NAMESIZE ||
			    sscanf(eq2 + 1, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
				   &mac[2], &mac[3], &mac[4], &mac[5]) != 6) {
				fprintf(stderr, "gen: --target NAME=IFNAME=MAC (at most %d)\n",
					MAX_TARGETS);
				return 2;
			}
			*eq = *eq2 = '\0';
			targets[ntarget].name = optarg;
			snprintf(targets[ntarget].ifname, IF_NAMESIZE, "%s", eq + 1);
			targets[ntarget].ifindex = if_nametoindex(eq + 1);
			if (!targets[ntarget].ifindex)
				die(eq + 1);
			build_frame(&targets[ntarget++], mac, dst);
			break;
		default:
			return 2;
		}
	}
	if (!nmix || !ntarget || rounds < 1 || window <= 0 || nthreads < 1 || nthreads > 8) {
		fprintf(stderr, "usage: %s [--dst A] [--cpu N] [--batch N] [--rounds N] "
			"[--window S] [--warmup S] --mix NAME=FILE... --target NAME=IFNAME=MAC...\n",
			argv[0]);
		return 2;
	}
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
	}
	for (m = 0; m < nmix; m++) {
		if (stat(files[m], &st))
			die(files[m]);
		mixes[m].base = total;
		mixes[m].len = st.st_size / sizeof(__u64);
		if (!mixes[m].len) {
			fprintf(stderr, "gen: %s: no traffic\n", files[m]);
			return 1;
		}
		total += mixes[m].len;
	}

	skel = gen__open();
	if (!skel)
		die("open");
	bpf_map__set_max_entries(skel->maps.traffic, total);
	err = gen__load(skel);
	if (err) {
		errno = -err;
		die("load");
	}
	if (dns_zone && !fixed) {
		/* After Ethernet, IPv4 and the L4 header: the first label's first letter. */
		skel->bss->name_off = ETH_HLEN + sizeof(struct iphdr) + name_at +
				      (payload_kind == PAYLOAD_HTTP || payload_kind == PAYLOAD_TLS ?
				       sizeof(struct tcphdr) : sizeof(struct udphdr));
		skel->bss->name_labels = dns_random;
	}
	skel->bss->id_or = listed;
	traffic = mmap(NULL, (size_t)total * sizeof(__u64), PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(skel->maps.traffic), 0);
	if (traffic == MAP_FAILED)
		die("mmap");
	for (m = 0; m < nmix; m++) {
		size_t want = (size_t)mixes[m].len * sizeof(__u64), got = 0;
		ssize_t n;

		fd = open(files[m], O_RDONLY);
		if (fd < 0)
			die(files[m]);
		while (got < want && (n = read(fd, (char *)(traffic + mixes[m].base) + got,
					       want - got)) > 0)
			got += n;
		if (got != want)
			die(files[m]);
		close(fd);
	}
	ncpu = libbpf_num_possible_cpus();
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (r = 0; r < rounds; r++) {
		for (m = 0; m < nmix; m++) {
			for (k = 0; k < ntarget; k++) {
				struct target *t = &targets[(k + r) % ntarget];
				struct { __u64 next, frames; } cur[ncpu];
				unsigned long long f0, f1;
				int i;

				memset(cur, 0, sizeof(cur));
				if (bpf_map_update_elem(bpf_map__fd(skel->maps.cursors), &zero, cur, 0))
					die("cursors");
				skel->bss->traffic_base = mixes[m].base;
				skel->bss->traffic_len = mixes[m].len;
				skel->bss->csum_base = t->csum_base;
				t0 = now();
				for (i = 0; i < nthreads; i++) {
					workers[i] = (struct worker){ .skel = skel, .t = t, .batch = batch,
								      .repeat = repeat,
								      .until = t0 + warmup + window };
					errno = pthread_create(&workers[i].thread, NULL, worker_run,
							       &workers[i]);
					if (errno)
						die("pthread_create");
				}
				sleep_until(t0 + warmup);
				link_tx(t->ifname, &p0, &d0);
				f0 = frames_sent(skel, ncpu);
				t0 = now();
				sleep_until(t0 + window);
				link_tx(t->ifname, &p1, &d1);
				f1 = frames_sent(skel, ncpu);
				t1 = now();
				for (i = 0; i < nthreads; i++)
					pthread_join(workers[i].thread, NULL);
				printf("%d %s %s %.4f %.4f %u\n", r + 1, mixes[m].name, t->name,
				       (__u32)(p1 - p0) / (t1 - t0) / 1e6, (f1 - f0) / (t1 - t0) / 1e6,
				       (__u32)(d1 - d0));
			}
		}
	}
	gen__destroy(skel);
	return 0;
}
