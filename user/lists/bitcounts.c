// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The counting filter's file (bitcounts.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lists/bitcounts.h"
#include "util/atomic_file.h"
#include "util/hugemem.h"
#include "kernel/state_dir.h"

static size_t bitcounts_size(__u64 bits)
{
	return sizeof(struct bitcounts_header) + (bits + 1) / 2;
}

int bitcounts_alloc(struct bitcounts *b, __u32 layout, __u64 bits, __u32 hashes)
{
	memset(b, 0, sizeof(*b));
	b->bytes = bitcounts_size(bits);
	b->hdr = huge_zeroed(b->bytes);	/* a load writes the counters of every key at random */
	if (!b->hdr)
		return -ENOMEM;
	memcpy(b->hdr->magic, BITCOUNTS_MAGIC, sizeof(BITCOUNTS_MAGIC));
	b->hdr->version = BITCOUNTS_VERSION;
	b->hdr->layout = layout;
	b->hdr->bits = bits;
	b->hdr->hashes = hashes;
	b->c = (__u8 *)(b->hdr + 1);
	return 0;
}

void bitcounts_stamp(struct bitcounts *b, __u64 generation, __u64 v4_lengths, __u64 v6_lengths)
{
	b->hdr->generation = generation;
	b->hdr->v4_lengths = v4_lengths;
	b->hdr->v6_lengths = v6_lengths;
}

int bitcounts_map(struct bitcounts *b, int dir_fd, __u32 layout, __u64 bits, __u32 hashes,
		  __u64 generation)
{
	struct bitcounts_header *h;
	struct stat st;
	void *mem;
	int fd, ret = 0;

	memset(b, 0, sizeof(*b));
	fd = openat(dir_fd, BITCOUNTS_FILE, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		ret = -EPERM;
		goto out;
	}
	if ((size_t)st.st_size != bitcounts_size(bits)) {
		ret = -ESTALE;
		goto out;
	}
	/* Only the pages a delete touches are read: a few, whatever the size of the list. */
	mem = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	h = mem;
	if (memcmp(h->magic, BITCOUNTS_MAGIC, sizeof(BITCOUNTS_MAGIC)) ||
	    h->version != BITCOUNTS_VERSION || h->layout != layout || h->bits != bits ||
	    h->hashes != hashes || h->generation != generation) {
		munmap(mem, st.st_size);
		ret = -ESTALE;
		goto out;
	}
	b->hdr = h;
	b->c = (__u8 *)(h + 1);
	b->bytes = st.st_size;
	b->mapped = true;
out:
	close(fd);
	return ret;
}

int bitcounts_sync(struct bitcounts *b)
{
	if (!b->mapped)
		return 0;
	return msync(b->hdr, b->bytes, MS_SYNC) ? -errno : 0;
}

void bitcounts_free(struct bitcounts *b)
{
	if (b->hdr)
		munmap(b->hdr, b->bytes);
	memset(b, 0, sizeof(*b));
}

int bitcounts_status(const char *ifname, const char *state_dir, __u32 layout, __u64 bits,
		     __u32 hashes, __u64 generation, __u64 *bytes, __u64 *saturated)
{
	struct bitcounts b;
	struct state_dir sd;
	int ret;

	*bytes = *saturated = 0;
	ret = state_open(state_root(state_dir), ifname, false, &sd);
	if (ret)
		return ret;
	ret = bitcounts_map(&b, sd.fd, layout, bits, hashes, generation);
	if (!ret) {
		*bytes = b.bytes;
		*saturated = b.hdr->saturated;
		bitcounts_free(&b);
	}
	state_close(&sd);
	return ret;
}

/* The counters after the header, at their place in the file. */
static void *write_body(void *arg)
{
	struct bitcounts_writer *w = arg;
	size_t head = sizeof(*w->b->hdr);

	if (lseek(w->fd, head, SEEK_SET) != (off_t)head)
		w->err = -errno;
	else
		w->err = file_write_all(w->fd, w->b->c, w->b->bytes - head);
	return NULL;
}

void bitcounts_write_start(struct bitcounts_writer *w, const struct bitcounts *b, int dir_fd)
{
	memset(w, 0, sizeof(*w));
	w->b = b;
	w->dir_fd = dir_fd;
	/* As atomic_file_write() but for the fsyncs: see bitcounts.h. */
	w->fd = atomic_file_temp(dir_fd, w->tmp);
	if (w->fd < 0) {
		w->err = w->fd;
		return;
	}
	w->threaded = !pthread_create(&w->thread, NULL, write_body, w);
	if (!w->threaded)
		write_body(w);
}

int bitcounts_write_end(struct bitcounts_writer *w, bool commit)
{
	ssize_t wrote;
	int ret;

	if (!w->b)
		return 0;	/* never started */
	if (w->threaded)
		pthread_join(w->thread, NULL);
	w->threaded = false;
	if (w->fd < 0)
		return w->err;
	ret = w->err;
	if (!ret && commit) {
		wrote = pwrite(w->fd, w->b->hdr, sizeof(*w->b->hdr), 0);
		ret = wrote == sizeof(*w->b->hdr) ? 0 : wrote < 0 ? -errno : -EIO;
	}
	close(w->fd);
	w->fd = -1;
	if (!ret && commit && renameat(w->dir_fd, w->tmp, w->dir_fd, BITCOUNTS_FILE))
		ret = -errno;
	if (ret || !commit)
		unlinkat(w->dir_fd, w->tmp, 0);
	w->err = ret;
	return ret;
}
