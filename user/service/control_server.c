// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The control socket's server, in the daemon's loop (control.h): every
 * descriptor non-blocking, each connection bounded in bytes and time, a
 * request answered when its line is whole; nothing here ever waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <net/if.h>

#include "service/control.h"
#include "util/dirs.h"
#include "util/json.h"
#include "util/log.h"

struct control_conn {
	int fd;				/* -1: free */
	__u64 deadline_ms;
	size_t in_len;
	char in[CONTROL_LINE_MAX];
	char *out;			/* the reply, being written; NULL: still reading */
	size_t out_len, out_off;
};

struct control_server {
	int fd;
	int dir_fd;
	int lock_fd;			/* IFNAME.lock, held (flock) for the daemon's life */
	bool listening;
	char name[IF_NAMESIZE + 8];	/* IFNAME.sock */
	char path[PATH_MAX];		/* for messages */
	dev_t dev;
	ino_t ino;			/* the socket it bound: removed at the end if still it */
	control_handler_fn handler;
	void *ctx;
	struct control_conn conn[CONTROL_CLIENTS];
};

static __u64 now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000ULL + t.tv_nsec / 1000000;
}

/* The socket's name through the directory's descriptor: no path resolved again. */
static int fd_address(const struct control_server *s, struct sockaddr_un *sa)
{
	*sa = (struct sockaddr_un){ .sun_family = AF_UNIX };
	if (snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s", s->dir_fd,
		     s->name) >= (int)sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

/* The directory: DIR's parent opened, DIR in it made 0700 or checked (own_dir_open()). */
static int dir_open(struct control_server *s, const char *ifname)
{
	char parent[PATH_MAX], *slash;
	int pfd, ret;

	ret = control_path(ifname, s->path, sizeof(s->path));
	if (ret)
		return ret;
	snprintf(s->name, sizeof(s->name), "%s.sock", ifname);
	snprintf(parent, sizeof(parent), "%s", s->path);
	*strrchr(parent, '/') = '\0';		/* DIR */
	slash = strrchr(parent, '/');
	if (!slash || !slash[1]) {
		log_error("%s: the control socket's directory must be absolute and not /: set $"
			  CONTROL_DIR_ENV " to another", parent);
		return -EINVAL;
	}
	*slash = '\0';
	pfd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0) {
		ret = -errno;
		log_error("cannot open %s: %s", parent[0] ? parent : "/", strerror(-ret));
		return ret;
	}
	*slash = '/';
	s->dir_fd = own_dir_open(pfd, slash + 1, parent, true, 077, "start the daemon again");
	close(pfd);
	return s->dir_fd < 0 ? s->dir_fd : 0;
}

/*
 * IFNAME.lock beside the socket, locked: one daemon of an interface at a
 * time, whether its socket listens yet or not. The file stays (unlinking a
 * lock file races with the next daemon's open).
 */
static int lock_name(struct control_server *s)
{
	int ifname_len = strlen(s->name) - strlen(".sock"), ret;
	char name[IF_NAMESIZE + 8];

	snprintf(name, sizeof(name), "%.*s.lock", ifname_len, s->name);
	s->lock_fd = openat(s->dir_fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->lock_fd < 0) {
		ret = -errno;
		log_error("cannot open %.*s.lock: %s%s", (int)(strlen(s->path) - strlen(".sock")),
			  s->path, strerror(-ret), ret == -ELOOP ? " (a symbolic link: check it, "
			  "remove it, and start the daemon again)" : "");
		return ret;
	}
	if (!flock(s->lock_fd, LOCK_EX | LOCK_NB))
		return 0;
	ret = -errno;
	if (ret == -EWOULDBLOCK) {
		log_error("%s: another daemon of %.*s runs: stop it first (systemctl stop "
			  "bloomxdp@%.*s)", s->path, ifname_len, s->name, ifname_len, s->name);
		return -EADDRINUSE;
	}
	log_error("cannot lock %s: %s", name, strerror(-ret));
	return ret;
}

/*
 * What is at the socket's name: nothing (0), a dead daemon's socket (removed,
 * 0), a live one (-EADDRINUSE) or anything else (-EEXIST), said.
 */
static int clear_name(struct control_server *s)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd, ret;

	if (fstatat(s->dir_fd, s->name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		log_error("%s is %s, not a socket: someone else may have made it; check it, "
			  "remove it (not what it may point to), and start the daemon again",
			  s->path, S_ISLNK(st.st_mode) ? "a symbolic link" : "there");
		return -EEXIST;
	}
	ret = fd_address(s, &sa);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (ret || fd < 0)
		return ret ? ret : -errno;
	ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	close(fd);
	if (!ret || ret == -EAGAIN) {
		log_error("%s: another daemon answers there: stop it first (systemctl stop "
			  "bloomxdp@%.*s)", s->path, (int)(strlen(s->name) - strlen(".sock")),
			  s->name);
		return -EADDRINUSE;
	}
	if (ret != -ECONNREFUSED) {
		log_error("cannot tell whether %s is a live daemon's: %s", s->path,
			  strerror(-ret));
		return ret;
	}
	if (unlinkat(s->dir_fd, s->name, 0) && errno != ENOENT) {
		ret = -errno;
		log_error("cannot remove the stale %s: %s", s->path, strerror(-ret));
		return ret;
	}
	log_info("%s: a dead daemon's socket, replaced", s->path);
	return 0;
}

static int listen_on(struct control_server *s)
{
	struct sockaddr_un sa;
	struct stat st;
	mode_t old;
	int ret;

	ret = fd_address(s, &sa);
	if (ret)
		return ret;
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->fd < 0)
		return -errno;
	/* Made 0600 at once: never a moment with more. bind() follows no link at its name. */
	old = umask(0177);
	ret = bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old);
	if (!ret && fstatat(s->dir_fd, s->name, &st, AT_SYMLINK_NOFOLLOW))
		ret = -errno;
	if (!ret) {
		s->dev = st.st_dev;
		s->ino = st.st_ino;
	}
	if (ret)
		log_error("cannot bind %s: %s", s->path, strerror(-ret));
	return ret;
}

int control_server_listen(struct control_server *s)
{
	int ret;

	if (!s || s->listening)
		return 0;
	if (listen(s->fd, CONTROL_CLIENTS)) {
		ret = -errno;
		log_error("cannot listen on %s: %s", s->path, strerror(-ret));
		return ret;
	}
	s->listening = true;
	return 0;
}

int control_server_start(const char *ifname, control_handler_fn fn, void *ctx,
			 struct control_server **out)
{
	struct control_server *s = calloc(1, sizeof(*s));
	int i, ret;

	if (!s)
		return -ENOMEM;
	s->fd = s->dir_fd = s->lock_fd = -1;
	s->handler = fn;
	s->ctx = ctx;
	for (i = 0; i < CONTROL_CLIENTS; i++)
		s->conn[i].fd = -1;
	ret = dir_open(s, ifname);
	if (!ret)
		ret = lock_name(s);
	if (!ret)
		ret = clear_name(s);
	if (!ret)
		ret = listen_on(s);
	if (ret) {
		control_server_stop(s);
		return ret;
	}
	*out = s;
	return 0;
}

static void conn_close(struct control_conn *c)
{
	close(c->fd);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->in_len = c->out_len = c->out_off = 0;
}

void control_server_stop(struct control_server *s)
{
	struct stat st;
	int i;

	if (!s)
		return;
	for (i = 0; i < CONTROL_CLIENTS; i++)
		if (s->conn[i].fd >= 0)
			conn_close(&s->conn[i]);
	if (s->fd >= 0) {
		close(s->fd);
		if (!fstatat(s->dir_fd, s->name, &st, AT_SYMLINK_NOFOLLOW) &&
		    st.st_dev == s->dev && st.st_ino == s->ino)
			unlinkat(s->dir_fd, s->name, 0);
	}
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s);
}

int control_poll_fds(struct control_server *s, struct pollfd *fds, int *timeout)
{
	__u64 now = now_ms();
	int i, n = 0, left;

	if (!s || !s->listening)
		return 0;
	fds[n++] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
	for (i = 0; i < CONTROL_CLIENTS; i++) {
		struct control_conn *c = &s->conn[i];

		if (c->fd < 0)
			continue;
		fds[n++] = (struct pollfd){ .fd = c->fd, .events = c->out ? POLLOUT : POLLIN };
		left = c->deadline_ms > now ? (int)(c->deadline_ms - now) : 0;
		if (*timeout < 0 || left < *timeout)
			*timeout = left;
	}
	return n;
}

/* The reply to one request line: {"ok":true,...} by the handler, or the error. */
static void answer(struct control_server *s, struct control_conn *c, const char *error)
{
	struct control_request *req = NULL;
	char why[512] = "";
	FILE *out;
	struct json j;
	long end = -1;
	int ret = -EINVAL;

	out = open_memstream(&c->out, &c->out_len);
	if (!out) {
		conn_close(c);
		return;
	}
	if (error) {
		snprintf(why, sizeof(why), "%s", error);
	} else {
		req = malloc(sizeof(*req));
		ret = req ? control_parse(c->in, c->in_len, req, why, sizeof(why)) : -ENOMEM;
	}
	if (!ret) {
		json_start(&j, out);
		json_object_start(&j);
		json_kv_bool(&j, "ok", true);
		ret = s->handler(s->ctx, req, &j, why, sizeof(why));
		json_object_end(&j);
		json_end(&j);
	}
	free(req);
	if (ret) {
		rewind(out);
		json_start(&j, out);
		json_object_start(&j);
		json_kv_bool(&j, "ok", false);
		json_kv_string(&j, "error", why[0] ? why : strerror(-ret));
		json_kv_u64(&j, "errno", -ret);
		json_object_end(&j);
		json_end(&j);
		/* What the handler wrote past the error's end is cut off. */
		end = ftell(out);
	}
	if (fclose(out) || !c->out_len) {
		conn_close(c);
		return;
	}
	if (end >= 0)
		c->out_len = end;
}

/* Reads what the client sent; answers once the line is whole, too long, or ended. */
static void conn_read(struct control_server *s, struct control_conn *c)
{
	char *nl, why[96];
	ssize_t n;

	n = read(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len);
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			conn_close(c);
		return;
	}
	nl = memchr(c->in + c->in_len, '\n', n);
	c->in_len += n;
	if (nl) {
		c->in_len = nl - c->in;
		answer(s, c, NULL);
	} else if (c->in_len == sizeof(c->in)) {
		snprintf(why, sizeof(why), "the request is over %d bytes: send one JSON object "
			 "on one line", CONTROL_LINE_MAX);
		answer(s, c, why);
	} else if (!n) {
		/* The client ended without a newline: what it sent is its request. */
		if (c->in_len)
			answer(s, c, NULL);
		else
			conn_close(c);
	}
}

static void conn_write(struct control_conn *c)
{
	ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			conn_close(c);
		return;
	}
	c->out_off += n;
	if (c->out_off == c->out_len)
		conn_close(c);
}

/* New connections, into free slots; past CONTROL_CLIENTS, closed at once. */
static void accept_new(struct control_server *s, __u64 now)
{
	int fd, i;

	while ((fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		for (i = 0; i < CONTROL_CLIENTS && s->conn[i].fd >= 0; i++)
			;
		if (i == CONTROL_CLIENTS) {
			log_warn("%s: %d connections already: one more refused", s->path,
				 CONTROL_CLIENTS);
			close(fd);
			continue;
		}
		s->conn[i].fd = fd;
		s->conn[i].deadline_ms = now + CONTROL_TIMEOUT_MS;
	}
}

void control_run(struct control_server *s)
{
	__u64 now = now_ms();
	int i;

	if (!s || !s->listening)
		return;
	for (i = 0; i < CONTROL_CLIENTS; i++) {
		struct control_conn *c = &s->conn[i];

		if (c->fd >= 0 && now >= c->deadline_ms)
			conn_close(c);
		else if (c->fd >= 0 && !c->out)
			conn_read(s, c);
		if (c->fd >= 0 && c->out)
			conn_write(c);
	}
	accept_new(s, now);
}
