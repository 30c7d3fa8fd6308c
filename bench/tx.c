// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sender and program-time reader of the hook benchmark (bench/hooks.sh) and of
 * the QUIC Initial flood (bench/quic.sh).
 *
 *   build/bench/tx send MODE IFNAME DST_MAC TRAFFIC ROLE OTHER_IP SECONDS [BATCH]
 *       Sends 60-byte IPv4/UDP frames out of IFNAME (current network
 *       namespace), BATCH (64) a sendmmsg, for SECONDS (at most 60), through
 *       MODE: "ip", a raw IPv4 socket (IPPROTO_RAW: the header is ours) bound
 *       to IFNAME, routed by the stack (DST_MAC unused: the neighbour's); or
 *       "packet", an AF_PACKET SOCK_RAW socket, frames to DST_MAC. Neither
 *       sets PACKET_QDISC_BYPASS: every frame goes through dev_queue_xmit, so
 *       through IFNAME's tc egress hook, and then arrives at the veth peer's
 *       ingress hooks. Each frame takes the next address of TRAFFIC
 *       (bench/mklists.c's traffic-*.bin: 8 bytes a frame, the address in the
 *       low 4) as its source (ROLE src: frames arriving at a receiver) or its
 *       destination (ROLE dst: frames leaving one), OTHER_IP the other
 *       address. The IPv4 ID is 1 in every frame: the bare receiver drops
 *       them all. With "packet", a frame the tc egress program drops fails its
 *       send with ENOBUFS: it is counted as refused, and the batch goes on
 *       with the next frame (one frame a system call when all are dropped);
 *       "ip" is told of no such drop. Prints one line:
 *       "sent S refused R seconds T mpps M".
 *
 *   build/bench/tx stats PROG_ID...
 *       One line a program, from bpf_obj_get_info_by_fd():
 *       "prog ID name N run_time_ns T run_cnt C verified_insns V"
 *       (run_time_ns and run_cnt grow only while kernel.bpf_stats_enabled is 1).
 *
 *   build/bench/tx hold-stats SECONDS
 *       Keeps the kernel's bpf_stats on (BPF_ENABLE_STATS: counted apart from
 *       kernel.bpf_stats_enabled, so a sysctl write of 0 by another process does
 *       not stop them) for at most SECONDS, or until its parent exits
 *       (PR_SET_PDEATHSIG). Prints "holding" once on.
 *
 *   build/bench/tx run PROG_ID SRC_IP DST_IP REPEAT [POOL PORT]
 *       BPF_PROG_TEST_RUN of the program (XDP or tc) on one such frame from
 *       SRC_IP to DST_IP, REPEAT times: the program hot, the same frame each
 *       time. With POOL, the frame is UDP to PORT carrying POOL's first
 *       datagram (a QUIC Initial: bench/quic.sh). Prints "ns N retval R" (N:
 *       the kernel's mean time a run).
 *
 *   build/bench/tx udp DST_IP PORT POOL SECONDS [BATCH [POOL_SIZE]]
 *       Sends the datagrams of POOL (one a line, in hex: the QUIC Initials
 *       bench/quic.sh captured), the first POOL_SIZE of them (0: all) in
 *       turn, to DST_IP:PORT through a connected UDP socket of the current
 *       network namespace, BATCH (64) a sendmmsg, for SECONDS (at most 60).
 *       Prints "sent S refused R seconds T mpps M" (refused: ENOBUFS).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf.h>
#include "own_mac.h"

#define FRAME_LEN 60
#define BATCH_MAX 256
#define SECONDS_MAX 60.0
#define DGRAM_MAX 1472		/* a UDP payload in an IPv4 packet of 1500 bytes */
#define POOL_MAX 4096

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "tx: %s: %s\n", what, strerror(err));
	return 1;
}

struct traffic {
	const __u64 *addr;
	size_t n, next;
};

static int traffic_open(const char *path, struct traffic *t)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size < 8 || st.st_size % 8) {
		close(fd);
		return -EINVAL;
	}
	t->n = st.st_size / 8;
	t->addr = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (t->addr == MAP_FAILED)
		return -errno;
	t->next = 0;
	return 0;
}

/* The frame all others are copied from: addresses and checksum stamped per frame. */
static int frame_template(unsigned char *f, const char *ifname, const unsigned char *dst_mac)
{
	struct ethhdr *eth = (void *)f;
	struct iphdr *ip = (void *)(f + ETH_HLEN);
	struct udphdr *udp = (void *)(ip + 1);

	memset(f, 0, FRAME_LEN);
	memcpy(eth->h_dest, dst_mac, ETH_ALEN);
	if (own_mac(ifname, eth->h_source))
		return -errno;
	eth->h_proto = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(FRAME_LEN - ETH_HLEN);
	ip->id = htons(1);
	ip->frag_off = htons(0x4000);	/* DF */
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	udp->source = htons(4096);
	udp->dest = htons(9);
	udp->len = htons(FRAME_LEN - ETH_HLEN - sizeof(*ip));
	return 0;
}

static void frame_stamp(unsigned char *f, __be32 saddr, __be32 daddr)
{
	struct iphdr *ip = (void *)(f + ETH_HLEN);
	const __u16 *w;
	__u32 sum = 0;

	ip->saddr = saddr;
	ip->daddr = daddr;
	ip->check = 0;
	for (w = (const __u16 *)ip; w < (const __u16 *)(ip + 1); w++)
		sum += *w;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->check = (__u16)~sum;
}

struct sender {
	int fd;
	int ip_mode;		/* a raw IPv4 socket (the stack routes), not AF_PACKET */
	unsigned int batch;
	int role_src;
	__be32 other;
	struct sockaddr_ll ll;
	unsigned char frames[BATCH_MAX][FRAME_LEN];
	struct sockaddr_in sin[BATCH_MAX];
	struct iovec iov[BATCH_MAX];
	struct mmsghdr msg[BATCH_MAX];
	unsigned long long sent, refused;
};

/*
 * Stamps the next batch and sends it. AF_PACKET: a frame dropped at tc egress
 * fails with ENOBUFS and ends the sendmmsg; it is counted and skipped. A raw
 * IPv4 socket (no IP_RECVERR) reports no such drop: the batch goes on.
 */
static int send_batch(struct sender *s, struct traffic *t)
{
	unsigned int i, done = 0;
	int n;

	for (i = 0; i < s->batch; i++) {
		__be32 a = (__be32)(t->addr[t->next] & 0xffffffffu);
		__be32 daddr = s->role_src ? s->other : a;

		t->next = t->next + 1 < t->n ? t->next + 1 : 0;
		frame_stamp(s->frames[i], s->role_src ? a : s->other, daddr);
		s->sin[i].sin_addr.s_addr = daddr;
	}
	while (done < s->batch) {
		n = sendmmsg(s->fd, s->msg + done, s->batch - done, 0);
		if (n > 0) {
			s->sent += n;
			done += n;
			continue;
		}
		if (n < 0 && errno != ENOBUFS && errno != EINTR)
			return -errno;
		if (n < 0 && errno == ENOBUFS) {
			s->refused++;
			done++;
		}
	}
	return 0;
}

/* The socket, bound to IFNAME, and the batch's messages. */
static int sender_open(struct sender *s, const char *ifname, const unsigned char *mac)
{
	unsigned int i, off = s->ip_mode ? ETH_HLEN : 0;
	int err;

	s->ll.sll_family = AF_PACKET;
	s->ll.sll_halen = ETH_ALEN;
	s->ll.sll_ifindex = if_nametoindex(ifname);
	if (!s->ll.sll_ifindex)
		return -errno;
	memcpy(s->ll.sll_addr, mac, ETH_ALEN);
	if (s->ip_mode) {
		/* IPPROTO_RAW: the header is ours (IP_HDRINCL), sends only. */
		s->fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
		if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_BINDTODEVICE, ifname,
					    strlen(ifname)))
			return -errno;
	} else {
		s->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);	/* protocol 0: sends only */
		if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&s->ll, sizeof(s->ll)))
			return -errno;
		s->ll.sll_protocol = htons(ETH_P_IP);	/* skb->protocol of what is sent */
	}
	for (i = 0; i < s->batch; i++) {
		err = frame_template(s->frames[i], ifname, mac);
		if (err)
			return err;
		s->iov[i].iov_base = s->frames[i] + off;
		s->iov[i].iov_len = FRAME_LEN - off;
		s->msg[i].msg_hdr.msg_iov = &s->iov[i];
		s->msg[i].msg_hdr.msg_iovlen = 1;
		s->sin[i].sin_family = AF_INET;
		s->msg[i].msg_hdr.msg_name = s->ip_mode ? (void *)&s->sin[i] : (void *)&s->ll;
		s->msg[i].msg_hdr.msg_namelen = s->ip_mode ? sizeof(s->sin[i]) : sizeof(s->ll);
	}
	return 0;
}

static int cmd_send(int argc, char **argv)
{
	static struct sender s;
	unsigned char mac[ETH_ALEN] = {};
	struct traffic t = {};
	double seconds, t0, t1;
	int err;

	if (argc < 9)
		return fail("usage", EINVAL);
	s.ip_mode = !strcmp(argv[2], "ip");
	if (!s.ip_mode && strcmp(argv[2], "packet"))
		return fail("MODE (packet or ip)", EINVAL);
	if (!s.ip_mode && sscanf(argv[4], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
				 &mac[2], &mac[3], &mac[4], &mac[5]) != 6)
		return fail("DST_MAC", EINVAL);
	err = traffic_open(argv[5], &t);
	if (err)
		return fail(argv[5], -err);
	s.role_src = !strcmp(argv[6], "src");
	if (!s.role_src && strcmp(argv[6], "dst"))
		return fail("ROLE (src or dst)", EINVAL);
	if (inet_pton(AF_INET, argv[7], &s.other) != 1)
		return fail("OTHER_IP", EINVAL);
	seconds = atof(argv[8]);
	if (!(seconds > 0 && seconds <= SECONDS_MAX))
		return fail("SECONDS (0 to 60)", EINVAL);
	s.batch = argc > 9 ? (unsigned int)atoi(argv[9]) : 64;
	if (s.batch < 1 || s.batch > BATCH_MAX)
		return fail("BATCH (1 to 256)", EINVAL);
	err = sender_open(&s, argv[3], mac);
	if (err)
		return fail(argv[3], -err);
	t0 = now();
	do {
		err = send_batch(&s, &t);
		if (err)
			return fail("sendmmsg", -err);
		t1 = now();
	} while (t1 - t0 < seconds);
	close(s.fd);
	printf("sent %llu refused %llu seconds %.3f mpps %.3f\n", s.sent, s.refused, t1 - t0,
	       (s.sent + s.refused) / (t1 - t0) / 1e6);
	return 0;
}

/* Datagrams, one a line in hex. */
struct pool {
	unsigned char (*data)[DGRAM_MAX];
	unsigned short *len;
	size_t n;
};

/* Reads at most max (0: POOL_MAX) datagrams of path into p: 0 or a negative errno. */
static int pool_read(const char *path, size_t max, struct pool *p)
{
	static char line[2 * DGRAM_MAX + 2];
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!max || max > POOL_MAX)
		max = POOL_MAX;
	p->n = 0;
	p->data = calloc(max, sizeof(*p->data));
	p->len = calloc(max, sizeof(*p->len));
	if (!p->data || !p->len)
		err = -ENOMEM;
	while (!err && p->n < max && fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n"), i;
		unsigned int byte;

		if (!n || n % 2 || line[n] != '\n') {
			err = -EINVAL;	/* empty, odd, or longer than a datagram */
			break;
		}
		for (i = 0; i < n / 2 && !err; i++) {
			if (sscanf(line + 2 * i, "%2x", &byte) != 1)
				err = -EINVAL;
			p->data[p->n][i] = (unsigned char)byte;
		}
		p->len[p->n++] = (unsigned short)(n / 2);
	}
	fclose(f);
	if (!err && !p->n)
		err = -ENODATA;
	return err;
}

static int cmd_udp(int argc, char **argv)
{
	static struct mmsghdr msg[BATCH_MAX];
	static struct iovec iov[BATCH_MAX];
	struct sockaddr_in dst = { .sin_family = AF_INET };
	unsigned long long sent = 0, refused = 0;
	unsigned int batch, i, done;
	struct pool p = {};
	double seconds, t0, t1;
	size_t next = 0;
	int fd, n, err;

	if (argc < 6)
		return fail("usage", EINVAL);
	if (inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1)
		return fail("DST_IP", EINVAL);
	dst.sin_port = htons((unsigned short)atoi(argv[3]));
	err = pool_read(argv[4], argc > 7 ? strtoul(argv[7], NULL, 10) : 0, &p);
	if (err)
		return fail(argv[4], -err);
	seconds = atof(argv[5]);
	if (!(seconds > 0 && seconds <= SECONDS_MAX))
		return fail("SECONDS (0 to 60)", EINVAL);
	batch = argc > 6 ? (unsigned int)atoi(argv[6]) : 64;
	if (batch < 1 || batch > BATCH_MAX)
		return fail("BATCH (1 to 256)", EINVAL);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&dst, sizeof(dst)))
		return fail("UDP socket", errno);
	for (i = 0; i < batch; i++) {
		msg[i].msg_hdr.msg_iov = &iov[i];
		msg[i].msg_hdr.msg_iovlen = 1;
	}
	t0 = now();
	do {
		for (i = 0; i < batch; i++) {
			iov[i].iov_base = p.data[next];
			iov[i].iov_len = p.len[next];
			next = next + 1 < p.n ? next + 1 : 0;
		}
		for (done = 0; done < batch;) {
			n = sendmmsg(fd, msg + done, batch - done, 0);
			if (n > 0) {
				sent += n;
				done += n;
			} else if (n < 0 && errno == ENOBUFS) {
				refused++;
				done++;
			} else if (n < 0 && errno != EINTR) {
				return fail("sendmmsg", errno);
			}
		}
		t1 = now();
	} while (t1 - t0 < seconds);
	close(fd);
	printf("sent %llu refused %llu seconds %.3f mpps %.3f\n", sent, refused, t1 - t0,
	       (sent + refused) / (t1 - t0) / 1e6);
	return 0;
}

/* The test frame: FRAME_LEN bytes to UDP port 9, or a pool's first datagram to UDP PORT. */
static int run_frame(unsigned char *f, int argc, char **argv, __be32 saddr, __be32 daddr)
{
	unsigned char mac[ETH_ALEN] = { 2, 0, 0, 0, 0, 1 };
	struct iphdr *ip = (void *)(f + ETH_HLEN);
	struct udphdr *udp = (void *)(ip + 1);
	struct pool p = {};
	int err, len;

	memset(f, 0, FRAME_LEN);
	frame_template(f, "lo", mac);	/* the source MAC: loopback's, zeros */
	len = FRAME_LEN;
	if (argc > 7) {
		err = pool_read(argv[6], 1, &p);
		if (err)
			return err;
		memcpy(udp + 1, p.data[0], p.len[0]);
		len = (int)((unsigned char *)(udp + 1) - f) + p.len[0];
		ip->tot_len = htons(len - ETH_HLEN);
		udp->len = htons(len - ETH_HLEN - sizeof(*ip));
		udp->dest = htons((unsigned short)atoi(argv[7]));
		free(p.data);
		free(p.len);
	}
	frame_stamp(f, saddr, daddr);
	return len;
}

static int cmd_run(int argc, char **argv)
{
	static unsigned char frame[ETH_HLEN + sizeof(struct iphdr) + sizeof(struct udphdr) +
				   DGRAM_MAX];
	__be32 saddr, daddr;
	int fd, len;

	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame);
	if (argc < 6)
		return fail("usage", EINVAL);
	if (inet_pton(AF_INET, argv[3], &saddr) != 1 || inet_pton(AF_INET, argv[4], &daddr) != 1)
		return fail("SRC_IP or DST_IP", EINVAL);
	opts.repeat = (__u32)strtoul(argv[5], NULL, 10);
	if (opts.repeat < 1 || opts.repeat > 100000000)
		return fail("REPEAT (1 to 100000000)", EINVAL);
	len = run_frame(frame, argc, argv, saddr, daddr);
	if (len < 0)
		return fail(argv[6], -len);
	opts.data_size_in = (__u32)len;
	fd = bpf_prog_get_fd_by_id((__u32)strtoul(argv[2], NULL, 10));
	if (fd < 0)
		return fail(argv[2], errno);
	if (bpf_prog_test_run_opts(fd, &opts)) {
		close(fd);
		return fail("BPF_PROG_TEST_RUN", errno);
	}
	close(fd);
	printf("ns %u retval %u\n", opts.duration, opts.retval);
	return 0;
}

static int cmd_stats(int argc, char **argv)
{
	int i, fd;

	for (i = 2; i < argc; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		fd = bpf_prog_get_fd_by_id((__u32)strtoul(argv[i], NULL, 10));
		if (fd < 0)
			return fail(argv[i], errno);
		if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
			close(fd);
			return fail(argv[i], errno);
		}
		close(fd);
		printf("prog %u name %s run_time_ns %llu run_cnt %llu verified_insns %u\n", info.id,
		       info.name[0] ? info.name : "-", (unsigned long long)info.run_time_ns,
		       (unsigned long long)info.run_cnt, info.verified_insns);
	}
	return 0;
}

static int cmd_hold_stats(int argc, char **argv)
{
	double secs = atof(argv[2]);
	struct timespec ts;
	int fd;

	(void)argc;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		return fail("prctl", errno);
	fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0)
		return fail("BPF_ENABLE_STATS", -fd);
	printf("holding\n");
	fflush(stdout);
	if (secs > 14400)
		secs = 14400;	/* four hours at most */
	if (secs > 0) {
		ts.tv_sec = (time_t)secs;
		ts.tv_nsec = (long)((secs - ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "send"))
		return cmd_send(argc, argv);
	if (argc >= 3 && !strcmp(argv[1], "stats"))
		return cmd_stats(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "hold-stats"))
		return cmd_hold_stats(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "udp"))
		return cmd_udp(argc, argv);
	fprintf(stderr, "usage: tx send packet|ip IFNAME DST_MAC TRAFFIC src|dst OTHER_IP SECONDS"
			" [BATCH]\n"
			"       tx stats PROG_ID...\n"
			"       tx hold-stats SECONDS\n"
			"       tx run PROG_ID SRC_IP DST_IP REPEAT [POOL PORT]\n"
			"       tx udp DST_IP PORT POOL SECONDS [BATCH [POOL_SIZE]]\n");
	return 2;
}
