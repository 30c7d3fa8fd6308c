// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The control socket's client: a request sent to the daemon, its reply read (control.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "service/control.h"
#include "util/ifname.h"
#include "util/json.h"
#include "util/log.h"

int control_path(const char *ifname, char *path, size_t len)
{
	const char *root = getenv(CONTROL_DIR_ENV);
	int ret;

	ret = ifname_check(ifname);
	if (ret)
		return ret;
	if (!root || !root[0])
		root = CONTROL_DIR_DEFAULT;
	if (snprintf(path, len, "%s/%s.sock", root, ifname) >= (int)len) {
		log_error("the control socket's path %s/%s.sock is too long (%zu bytes at most): "
			  "set $" CONTROL_DIR_ENV " to a shorter directory", root, ifname, len - 1);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Reads the reply line: up to its newline, CONTROL_REPLY_MAX bytes at most. */
static int read_reply(int fd, const char *path, char **reply)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *nl = NULL, *grown;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	while (!nl) {
		if (len + 1 == cap) {
			if (cap >= CONTROL_REPLY_MAX) {
				log_error("%s: the reply is over %d bytes: not the daemon's", path,
					  CONTROL_REPLY_MAX);
				free(buf);
				return -EPROTO;
			}
			grown = realloc(buf, cap * 2);
			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n <= 0) {
			log_error("%s: %s before the daemon's reply ended", path,
				  !n ? "the connection closed" :
				  errno == EAGAIN ? "timed out" : strerror(errno));
			free(buf);
			return n ? -EIO : -EPROTO;
		}
		nl = memchr(buf + len, '\n', n);
		len += n;
	}
	*nl = '\0';
	*reply = buf;
	return 0;
}

int control_call(const char *ifname, const char *request, int timeout_ms, char **reply)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = timeout_ms % 1000 * 1000 };
	size_t len = strlen(request);
	struct stat st;
	int fd, ret;

	ret = control_path(ifname, sa.sun_path, sizeof(sa.sun_path));
	if (ret)
		return ret;
	/* Only a socket is a daemon's: anything else there is not connected through. */
	if (lstat(sa.sun_path, &st) || !S_ISSOCK(st.st_mode))
		return -ENOENT;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		close(fd);
		if (ret == -ECONNREFUSED || ret == -ENOENT)
			return -ENOENT;
		log_error("cannot connect to %s: %s", sa.sun_path, strerror(-ret));
		return ret;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (send(fd, request, len, MSG_NOSIGNAL) != (ssize_t)len ||
	    send(fd, "\n", 1, MSG_NOSIGNAL) != 1) {
		ret = -errno;
		log_error("cannot send to %s: %s", sa.sun_path, strerror(-ret));
	} else {
		ret = read_reply(fd, sa.sun_path, reply);
	}
	close(fd);
	return ret;
}

int control_request_line(const struct control_request *req, char **line)
{
	char *text = NULL;
	size_t len = 0;
	struct json j;
	FILE *out = open_memstream(&text, &len);
	int i;

	if (!out)
		return -ENOMEM;
	json_start(&j, out);
	json_object_start(&j);
	json_kv_string(&j, "cmd", control_cmd_name(req->cmd));
	if (req->cmd == CONTROL_REFRESH || (req->cmd == CONTROL_QUERY && req->list[0]))
		json_kv_string(&j, "list", req->list);
	if (req->cmd == CONTROL_REFRESH)
		json_kv_bool(&j, "accept", req->accept);
	if (req->cmd == CONTROL_QUERY) {
		json_key(&j, "keys");
		json_array_start(&j);
		for (i = 0; i < req->nkeys; i++)
			json_string(&j, req->keys[i]);
		json_array_end(&j);
	}
	if (req->cmd == CONTROL_TOP && req->n)
		json_kv_u64(&j, "n", req->n);
	if ((req->cmd == CONTROL_STATUS || req->cmd == CONTROL_QUERY || req->cmd == CONTROL_TOP) &&
	    req->text)
		json_kv_bool(&j, "text", true);
	json_object_end(&j);
	json_end(&j);
	if (fclose(out)) {
		free(text);
		return -ENOMEM;
	}
	/* The line without its newline: what the server reads is at most CONTROL_LINE_MAX. */
	text[--len] = '\0';
	if (len >= CONTROL_LINE_MAX) {
		free(text);
		return -E2BIG;
	}
	*line = text;
	return 0;
}

int control_ask(const char *ifname, const struct control_request *req, const char *member,
		int timeout_ms, struct control_reply *r)
{
	char *line;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = control_request_line(req, &line);
	if (ret)
		return ret;
	ret = control_call(ifname, line, timeout_ms, &r->line);
	free(line);
	if (!ret)
		ret = control_reply_read(r->line, member, r);
	return ret;
}

int control_ask_write(const char *ifname, const struct control_request *req, const char *member,
		      FILE *out, char *error, size_t error_len)
{
	struct control_reply r;
	int ret;

	ret = control_ask(ifname, req, member, CONTROL_CALL_MS, &r);
	if (!ret && member)
		fprintf(out, "%.*s\n", (int)r.payload_len, r.payload);
	else if (!ret)
		fputs(r.text ? r.text : "", out);
	else if (error && error_len)
		snprintf(error, error_len, "%s", r.error);
	control_reply_free(&r);
	return ret;
}
