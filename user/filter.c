// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>

static inline __u64 *bloomxdp_filter_word(void *filter, __u32 index)
{
	return (__u64 *)filter + index;
}

#include <bloomxdp/bloom.h>
#include "filter.h"

static void filter_init(struct filter *f, const struct bloomxdp_config *cfg)
{
	memset(f, 0, sizeof(*f));
	f->map_fd = -1;
	f->bits = cfg->bits;
	f->hashes = cfg->hashes;
	f->bytes = ((size_t)cfg->bits / BLOOMXDP_WORD_BITS + 1) * sizeof(__u64);
	memcpy(f->hash_key, cfg->hash_key, sizeof(f->hash_key));
}

static int filter_map(struct filter *f)
{
	void *mem;

	mem = mmap(NULL, f->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f->map_fd, 0);
	if (mem == MAP_FAILED)
		return -errno;
	f->words = mem;
	return 0;
}

int filter_create(const struct bloomxdp_config *cfg, struct filter *f)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	int ret;

	filter_init(f, cfg);
	f->map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bloomxdp_bits", sizeof(__u32),
				   sizeof(__u64), cfg->bits / BLOOMXDP_WORD_BITS + 1, &opts);
	if (f->map_fd < 0)
		return -errno;
	ret = filter_map(f);
	if (ret)
		filter_close(f);
	return ret;
}

int filter_init_memory(const struct bloomxdp_config *cfg, struct filter *f)
{
	filter_init(f, cfg);
	f->words = calloc(f->bytes / sizeof(__u64), sizeof(__u64));
	return f->words ? 0 : -ENOMEM;
}

int filter_open_live(int outer_fd, const struct bloomxdp_config *cfg, struct filter *f)
{
	__u32 slot = BLOOMXDP_FILTER_SLOT, id;
	int ret;

	filter_init(f, cfg);
	if (bpf_map_lookup_elem(outer_fd, &slot, &id))
		return -errno;
	f->map_fd = bpf_map_get_fd_by_id(id);
	if (f->map_fd < 0)
		return -errno;
	ret = filter_map(f);
	if (ret)
		filter_close(f);
	return ret;
}

int filter_install(int outer_fd, const struct filter *f)
{
	__u32 slot = BLOOMXDP_FILTER_SLOT;

	if (bpf_map_update_elem(outer_fd, &slot, &f->map_fd, BPF_ANY))
		return -errno;
	return 0;
}

void filter_close(struct filter *f)
{
	if (f->words && f->map_fd < 0)
		free(f->words);
	else if (f->words)
		munmap(f->words, f->bytes);
	if (f->map_fd >= 0)
		close(f->map_fd);
	f->words = NULL;
	f->map_fd = -1;
}

bool filter_insert_hash(struct filter *f, __u64 hash)
{
	struct bloomxdp_probe probe;
	bool changed = false;
	__u64 *word, mask;
	__u32 i;

	bloomxdp_probe_init(&probe, hash, f->bits);
	for (i = 0; i < f->hashes; i++) {
		word = &f->words[bloomxdp_word_index(probe.pos)];
		mask = bloomxdp_word_mask(probe.pos);
		if (!(*word & mask)) {
			/*
			 * One whole-word store: the XDP program may read this word
			 * right now. Writers are serialised by the attachment lock.
			 */
			__atomic_store_n(word, *word | mask, __ATOMIC_RELAXED);
			changed = true;
		}
		bloomxdp_probe_next(&probe, f->bits);
	}
	return changed;
}

bool filter_test_hash(const struct filter *f, __u64 hash)
{
	return bloomxdp_bits_test(f->words, f->bits, f->hashes, hash);
}

static __u64 key_kind(const struct bloomxdp_key *key)
{
	return (key->word[0] & 0xff) == BLOOMXDP_KEY_IPV4 ? BLOOMXDP_HAS_IPV4 : BLOOMXDP_HAS_IPV6;
}

bool filter_insert(struct filter *f, const struct bloomxdp_key *key)
{
	filter_header_set(f, key_kind(key));
	return filter_insert_hash(f, bloomxdp_siphash13(f->hash_key, key));
}

bool filter_test(const struct filter *f, const struct bloomxdp_key *key)
{
	return (filter_header(f) & key_kind(key)) &&
	       filter_test_hash(f, bloomxdp_siphash13(f->hash_key, key));
}

__u64 filter_popcount(const struct filter *f)
{
	size_t i, nwords = f->bits / BLOOMXDP_WORD_BITS;
	__u64 set = 0;

	for (i = 0; i < nwords; i++)
		set += __builtin_popcountll(f->words[i]);
	return set;
}

__u64 filter_header(const struct filter *f)
{
	return __atomic_load_n(&f->words[bloomxdp_header_index(f->bits)], __ATOMIC_RELAXED);
}

void filter_header_set(struct filter *f, __u64 kinds)
{
	__u64 *hdr = &f->words[bloomxdp_header_index(f->bits)];

	/* One whole-word store, as for the bits; writers hold the attachment lock. */
	if ((*hdr | kinds) != *hdr)
		__atomic_store_n(hdr, *hdr | kinds, __ATOMIC_RELAXED);
}
