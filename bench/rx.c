// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loader of the reference receivers (bench/receivers.bpf.c).
 *
 *   build/bench/rx attach KIND IFNAME [LIST.bin]
 *       KIND: bare, hash, lpm, lpmnet, pass or floor (floor: LIST is the table's
 *       bytes, a multiple of 64, filled with ones; lpmnet: rx_lpm with a list of
 *       prefixes, 8 bytes each: length, then address; mklists --prefixes). Loads the program, fills its map with
 *       the list (4-byte addresses in network order, bench/mklists.c), and
 *       attaches it in native mode to IFNAME of the current network
 *       namespace, without a link: it stays attached after this process exits
 *       and goes with the interface. Prints one line:
 *       "prog_id P map_id M memlock B entries N load_seconds S"
 *       (memlock: the kernel's own accounting of the list map, as bpftool
 *       map show prints it; 0 without a map).
 *   build/bench/rx counters PROG_ID
 *       Sums the program's per-CPU rx_counters: "packets P dropped D".
 *   build/bench/rx maps PROG_ID
 *       Every map of any program (bloomxdp's too) with the kernel's memory
 *       accounting ("memlock", as bpftool map show): one line a map, "map ID
 *       type T name N memlock B max_entries E value_size V outer O", and the
 *       inner maps that its maps of maps hold now (outer: the outer map's ID).
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "filter/exact.h"	/* map_fd_bytes(): the kernel's map_mem_usage() */
#include "receivers.skel.h"

#define BATCH 65536

struct lpm_key {
	__u32 prefixlen;
	__u32 addr;
};

struct floor_line {
	__u64 w[8];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int die(const char *what, int err)
{
	fprintf(stderr, "rx: %s: %s\n", what, strerror(err));
	return 1;
}

/* Batched updates; element by element where the map has no batch update. */
static int fill(int fd, const void *keys, size_t key_size, size_t n)
{
	static __u8 values[BATCH];
	size_t i, done = 0;
	__u32 count;
	int batch_ok = 1;

	memset(values, 1, sizeof(values));
	while (done < n) {
		count = n - done < BATCH ? n - done : BATCH;
		if (batch_ok) {
			LIBBPF_OPTS(bpf_map_batch_opts, opts);

			if (!bpf_map_update_batch(fd, (const char *)keys + done * key_size, values,
						  &count, &opts)) {
				done += count;
				continue;
			}
			if (errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP &&
			    errno != 524 /* ENOTSUPP */)
				return -errno;
			batch_ok = 0;
			count = n - done < BATCH ? n - done : BATCH;
		}
		for (i = 0; i < count; i++)
			if (bpf_map_update_elem(fd, (const char *)keys + (done + i) * key_size,
						values, BPF_ANY))
				return -errno;
		done += count;
	}
	return 0;
}

static int cmd_attach(int argc, char **argv)
{
	const char *kind = argv[2], *ifname = argv[3];
	struct bpf_program *prog = NULL, *p;
	struct bpf_map *map = NULL;
	struct bpf_prog_info info = {};
	struct bpf_map_info minfo = {};
	__u32 info_len = sizeof(info), minfo_len = sizeof(minfo);
	struct receivers *skel;
	struct lpm_key *lpm = NULL;
	__u32 *addrs = NULL;
	size_t n = 0, i;
	double t0 = 0, t1 = 0;
	unsigned int ifindex;
	struct stat st;
	int err, fd;

	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return die(ifname, errno);
	if (argc > 4 && !strcmp(kind, "floor")) {
		n = strtoull(argv[4], NULL, 0) / sizeof(struct floor_line);
	} else if (argc > 4) {
		fd = open(argv[4], O_RDONLY);
		if (fd < 0 || fstat(fd, &st))
			return die(argv[4], errno);
		n = st.st_size / 4;
		addrs = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (addrs == MAP_FAILED)
			return die("mmap", errno);
		close(fd);
	}
	skel = receivers__open();
	if (!skel)
		return die("open", errno);
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	if (!strcmp(kind, "bare")) {
		prog = skel->progs.rx_bare;
	} else if (!strcmp(kind, "hash")) {
		prog = skel->progs.rx_hash;
		map = skel->maps.list_hash;
	} else if (!strcmp(kind, "lpm") || !strcmp(kind, "lpmnet")) {
		prog = skel->progs.rx_lpm;
		map = skel->maps.list_lpm;
	} else if (!strcmp(kind, "pass")) {
		prog = skel->progs.rx_pass;
	} else if (!strcmp(kind, "floor")) {
		prog = skel->progs.rx_floor;
		map = skel->maps.floor_table;
		skel->rodata->floor_lines = n;
	} else {
		fprintf(stderr, "rx: unknown kind %s (bare, hash, lpm, pass, floor)\n", kind);
		return 2;
	}
	if (map && !n) {
		fprintf(stderr, "rx: %s needs a list\n", kind);
		return 2;
	}
	bpf_program__set_autoload(prog, true);
	if (map)
		bpf_map__set_max_entries(map, n);
	err = receivers__load(skel);
	if (err)
		return die("load", -err);
	if (map == skel->maps.list_hash) {
		t0 = now();
		err = fill(bpf_map__fd(map), addrs, sizeof(*addrs), n);
		t1 = now();
	} else if (map == skel->maps.list_lpm) {
		t0 = now();
		lpm = malloc(n * sizeof(*lpm));
		if (!lpm)
			return die("malloc", ENOMEM);
		if (!strcmp(kind, "lpmnet")) {
			n /= 2;
			memcpy(lpm, addrs, n * sizeof(*lpm));
		}
		for (i = 0; i < n && strcmp(kind, "lpmnet"); i++) {
			lpm[i].prefixlen = 32;
			lpm[i].addr = addrs[i];
		}
		err = fill(bpf_map__fd(map), lpm, sizeof(*lpm), n);
		t1 = now();
	} else if (map == skel->maps.floor_table) {
		void *mem = mmap(NULL, n * sizeof(struct floor_line), PROT_READ | PROT_WRITE,
				 MAP_SHARED, bpf_map__fd(map), 0);

		if (mem == MAP_FAILED)
			return die("mmap floor_table", errno);
		memset(mem, 0xff, n * sizeof(struct floor_line));
		munmap(mem, n * sizeof(struct floor_line));
	}
	if (err)
		return die("fill", -err);
	err = bpf_xdp_attach(ifindex, bpf_program__fd(prog), XDP_FLAGS_DRV_MODE, NULL);
	if (err)
		return die("attach (native)", -err);
	bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &info_len);
	if (map)
		bpf_obj_get_info_by_fd(bpf_map__fd(map), &minfo, &minfo_len);
	printf("prog_id %u map_id %u memlock %llu entries %zu load_seconds %.3f\n", info.id,
	       map ? minfo.id : 0, map ? (unsigned long long)map_fd_bytes(bpf_map__fd(map)) : 0ULL,
	       map ? n : 0, t1 - t0);
	receivers__destroy(skel);	/* the attachment holds the program and its maps */
	return 0;
}

static int cmd_counters(const char *id_text)
{
	struct bpf_prog_info info = {};
	__u32 info_len, map_ids[16], i, zero = 0, one = 1;
	unsigned long long packets = 0, dropped = 0;
	int prog_fd, map_fd, ncpu = libbpf_num_possible_cpus(), c;

	prog_fd = bpf_prog_get_fd_by_id(strtoul(id_text, NULL, 0));
	if (prog_fd < 0)
		return die("program", errno);
	info.nr_map_ids = 16;
	info.map_ids = (__u64)(unsigned long)map_ids;
	info_len = sizeof(info);
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &info_len))
		return die("program info", errno);
	for (i = 0; i < info.nr_map_ids && i < 16; i++) {
		struct bpf_map_info mi = {};
		__u32 mlen = sizeof(mi);
		__u64 vals[ncpu];

		map_fd = bpf_map_get_fd_by_id(map_ids[i]);
		if (map_fd < 0 || bpf_obj_get_info_by_fd(map_fd, &mi, &mlen))
			continue;
		if (strcmp(mi.name, "rx_counters")) {
			close(map_fd);
			continue;
		}
		if (!bpf_map_lookup_elem(map_fd, &zero, vals))
			for (c = 0; c < ncpu; c++)
				packets += vals[c];
		if (!bpf_map_lookup_elem(map_fd, &one, vals))
			for (c = 0; c < ncpu; c++)
				dropped += vals[c];
		close(map_fd);
	}
	printf("packets %llu dropped %llu\n", packets, dropped);
	return 0;
}

/* One map: its line, and for a map of maps, the lines of its inner maps. */
static void show_map(__u32 id, __u32 outer)
{
	struct bpf_map_info mi = {};
	__u32 mlen = sizeof(mi), key, inner;
	int fd = bpf_map_get_fd_by_id(id);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &mi, &mlen))
		return;
	printf("map %u type %u name %s memlock %llu max_entries %u value_size %u outer %u\n",
	       id, mi.type, mi.name[0] ? mi.name : "-", (unsigned long long)map_fd_bytes(fd),
	       mi.max_entries, mi.value_size, outer);
	if (mi.type == BPF_MAP_TYPE_ARRAY_OF_MAPS && mi.key_size == 4 && mi.value_size == 4)
		for (key = 0; key < mi.max_entries; key++)
			if (!bpf_map_lookup_elem(fd, &key, &inner) && inner)
				show_map(inner, id);
	close(fd);
}

/* Every map of a program, with the inner maps its maps of maps hold now. */
static int cmd_maps(const char *id_text)
{
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info), map_ids[64], i;
	int prog_fd = bpf_prog_get_fd_by_id(strtoul(id_text, NULL, 0));

	if (prog_fd < 0)
		return die("program", errno);
	info.nr_map_ids = 64;
	info.map_ids = (__u64)(unsigned long)map_ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &info_len))
		return die("program info", errno);
	for (i = 0; i < info.nr_map_ids && i < 64; i++)
		show_map(map_ids[i], 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "maps"))
		return cmd_maps(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "attach"))
		return cmd_attach(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "counters"))
		return cmd_counters(argv[2]);
	fprintf(stderr, "usage: %s attach bare|hash|lpm|pass|floor IFNAME [LIST.bin|BYTES]\n"
			"       %s counters PROG_ID\n       %s maps PROG_ID\n", argv[0], argv[0],
		argv[0]);
	return 2;
}
