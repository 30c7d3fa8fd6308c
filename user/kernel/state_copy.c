// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A copy of an input as a load reads it (kernel/state_dir.h, struct
 * state_copy): its blocks queued to a thread of its own, which hashes and
 * writes them while the reader parses the next ones. A write that failed is
 * returned by the reader's next write, or by state_copy_drain() at the end of
 * the input: the load fails where it failed before.
 */
#define _GNU_SOURCE	/* sync_file_range() */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomic_file.h"
#include "util/log.h"
#include "util/sha256.h"
#include "kernel/state_dir.h"

/* Blocks read and not yet written: how far the reader may run ahead of the writer. */
#define COPY_QUEUE 16
/* Blocks the writer waits for before it wakes (or the end): a wake-up a block cost the reader. */
#define COPY_WAKE 4
/* Written back as it grows, this much at a time: the fsync at its end waits for less. */
#define COPY_WRITEBACK (8 << 20)

struct copy_block {
	void *buf;
	size_t len, cap;
};

struct copy_writer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* a block queued, written, or the end asked for */
	struct copy_block q[COPY_QUEUE];
	unsigned int head, count;	/* the oldest block queued, how many are */
	bool stop;		/* no block comes after those queued */
	int fd;
	struct sha256 hash;	/* the copy's (one EVP context, its pointer copied) */
	int err;		/* the first write that failed; the blocks after it are dropped */
	off_t written, started;	/* bytes written, and given to writeback */
};

/* One block hashed and written; writeback started on what was written since the last start. */
static int copy_block_write(struct copy_writer *w, const struct copy_block *b)
{
	int ret = sha256_update(&w->hash, b->buf, b->len) ? -EIO :
		  file_write_all(w->fd, b->buf, b->len);

	if (ret)
		return ret;
	w->written += b->len;
	if (w->written - w->started >= COPY_WRITEBACK) {
		/* A hint: state_copy_finish()'s fsync makes it durable. */
		(void)sync_file_range(w->fd, w->started, w->written - w->started,
				      SYNC_FILE_RANGE_WRITE);
		w->started = w->written;
	}
	return 0;
}

static void *copy_writer_run(void *arg)
{
	struct copy_writer *w = arg;
	struct copy_block *b;
	int ret;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		/* Emptied: asleep until a few blocks are queued; once awake, all of them. */
		if (!w->count)
			while (w->count < COPY_WAKE && !w->stop)
				pthread_cond_wait(&w->cond, &w->lock);
		if (!w->count)
			break;
		b = &w->q[w->head];
		pthread_mutex_unlock(&w->lock);
		ret = w->err ? w->err : copy_block_write(w, b);
		pthread_mutex_lock(&w->lock);
		w->err = ret;
		w->head = (w->head + 1) % COPY_QUEUE;
		w->count--;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* The writer of c's blocks; none (they are written as they come) when no thread is to be had. */
static void copy_writer_start(struct state_copy *c)
{
	struct copy_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return;
	w->fd = c->fd;
	w->hash = c->hash;
	if (pthread_mutex_init(&w->lock, NULL))
		goto err_free;
	if (pthread_cond_init(&w->cond, NULL))
		goto err_lock;
	if (pthread_create(&w->thread, NULL, copy_writer_run, w))
		goto err_cond;
	c->writer = w;
	return;
err_cond:
	pthread_cond_destroy(&w->cond);
err_lock:
	pthread_mutex_destroy(&w->lock);
err_free:
	free(w);
}

int state_copy_begin(const struct state_dir *sd, struct state_copy *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = atomic_file_temp(sd->fd, c->tmp);
	if (c->fd < 0) {
		log_error("cannot create a file in %s: %s", sd->path, strerror(-c->fd));
		return c->fd;
	}
	return sha256_init(&c->hash);
}

/* n bytes at buf into the writer's queue, once a block is free; the writer's error, if any. */
static int copy_queue(struct copy_writer *w, const void *buf, size_t n)
{
	struct copy_block *b;
	void *grown;
	int ret;

	pthread_mutex_lock(&w->lock);
	while (w->count == COPY_QUEUE && !w->err)
		pthread_cond_wait(&w->cond, &w->lock);
	ret = w->err;
	/* The block after the last queued: the writer takes blocks from the head only. */
	b = &w->q[(w->head + w->count) % COPY_QUEUE];
	pthread_mutex_unlock(&w->lock);
	if (ret)
		return ret;
	if (b->cap < n) {
		grown = realloc(b->buf, n);
		if (!grown)
			return -ENOMEM;
		b->buf = grown;
		b->cap = n;
	}
	memcpy(b->buf, buf, n);
	b->len = n;
	pthread_mutex_lock(&w->lock);
	w->count++;
	if (w->count >= COPY_WAKE)
		pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

int state_copy_write(struct state_copy *c, const void *buf, size_t n)
{
	int ret;

	if (c->err)
		return c->err;
	if (!c->writer && !c->bytes)
		copy_writer_start(c);
	if (c->writer) {
		ret = copy_queue(c->writer, buf, n);
		/* Not an error of the copy's writes: the reader's memory. */
		if (ret == -ENOMEM)
			return ret;
	} else {
		ret = sha256_update(&c->hash, buf, n) ? -EIO : file_write_all(c->fd, buf, n);
	}
	c->err = ret;
	if (!ret)
		c->bytes += n;
	return ret;
}

int state_copy_drain(struct state_copy *c)
{
	struct copy_writer *w = c->writer;
	int i;

	if (!w)
		return c->err;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	if (!c->err)
		c->err = w->err;
	for (i = 0; i < COPY_QUEUE; i++)
		free(w->q[i].buf);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
	c->writer = NULL;
	return c->err;
}

int state_copy_finish(struct state_copy *c)
{
	int ret = state_copy_drain(c);

	if (ret)
		return ret;
	if (sha256_final(&c->hash, c->sha256))
		return -EIO;
	if (fsync(c->fd) || lseek(c->fd, 0, SEEK_SET))
		return -errno;
	return 0;
}

int state_copy_commit(const struct state_dir *sd, struct state_copy *c, const char *name)
{
	int ret = atomic_file_commit(sd->fd, c->tmp, name);

	if (ret)
		log_error("cannot write %s/%s: %s", sd->path, name, strerror(-ret));
	return ret;
}

void state_copy_close(const struct state_dir *sd, struct state_copy *c)
{
	(void)state_copy_drain(c);
	if (c->fd > 0)
		close(c->fd);
	c->fd = -1;
	if (c->tmp[0])
		unlinkat(sd->fd, c->tmp, 0);
	c->tmp[0] = '\0';
	sha256_free(&c->hash);
}
