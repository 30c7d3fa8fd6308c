/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's control socket: DIR/IFNAME.sock, DIR being /run/bloomxdp or
 * $BLOOMXDP_RUN_DIR, a unix stream socket of mode 0600 in a directory of mode
 * 0700, both the effective uid's (root's). One request a connection: a JSON
 * object on one line; one reply line, {"ok":true,...} or
 * {"ok":false,"error":"..."}. The server runs in the daemon's loop, never
 * blocking it: CONTROL_CLIENTS connections at most, each CONTROL_LINE_MAX
 * bytes of request and CONTROL_TIMEOUT_MS from accept to its reply's end.
 */
#ifndef BLOOMXDP_CONTROL_H
#define BLOOMXDP_CONTROL_H

#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include <bloomxdp/common.h>
#include "service/top.h"

#define CONTROL_DIR_DEFAULT "/run/bloomxdp"
#define CONTROL_DIR_ENV "BLOOMXDP_RUN_DIR"
#define CONTROL_LINE_MAX 4096
#define CONTROL_CLIENTS 8
#define CONTROL_TIMEOUT_MS 2000
/* The descriptors the loop polls for it: the listener and each connection. */
#define CONTROL_POLL_FDS (1 + CONTROL_CLIENTS)
/* query: keys in one request. */
#define CONTROL_KEYS_MAX 64
/* A reply the client reads: larger is not the daemon's. */
#define CONTROL_REPLY_MAX (4 << 20)

enum control_cmd { CONTROL_STATUS, CONTROL_RELOAD, CONTROL_REFRESH, CONTROL_QUERY, CONTROL_TOP };

/* "status", "reload", "refresh", "query", "top". */
const char *control_cmd_name(enum control_cmd cmd);

struct control_request {
	enum control_cmd cmd;
	bool text;		/* "text": the command's text, not its JSON */
	bool accept;		/* refresh: "accept" */
	unsigned int n;		/* top: "n", the entries wanted (1..TOP_MAX; 10) */
	char list[BLOOMXDP_LIST_NAME_MAX + 1];	/* refresh: the list; query: "list" or "" */
	int nkeys;
	const char *keys[CONTROL_KEYS_MAX];	/* query: into keybuf */
	char keybuf[CONTROL_LINE_MAX];
};

/*
 * One request line (without its newline) into req: 0, or -EINVAL with a
 * one-line reason in why: not JSON, not an object, an unknown "cmd" or
 * member, a member of the wrong type.
 */
int control_parse(const char *line, size_t len, struct control_request *req, char *why,
		  size_t why_len);

struct json;
/*
 * Error replies carry "errno", the reason's number (errno(3)).
 * The daemon's answer to req: its members added to the reply object j after
 * "ok":true (the payload first: "status", "query" or "text"), 0; or -errno
 * with what to do in why (what it added to j is dropped).
 */
typedef int (*control_handler_fn)(void *ctx, const struct control_request *req,
				  struct json *j, char *why, size_t why_len);

struct control_server;

/*
 * Binds DIR/ifname.sock (the directory made 0700 when missing; each level
 * opened without following links), holding DIR/ifname.lock: another daemon
 * of ifname (its lock held) is refused (-EADDRINUSE), a socket left by a dead
 * one replaced, anything else at that name refused (a link is not
 * followed). 0 or -errno, said. Connections are refused (ECONNREFUSED: the
 * CLI does the work itself) until control_server_listen().
 */
int control_server_start(const char *ifname, control_handler_fn fn, void *ctx,
			 struct control_server **out);
/* Accepts connections from now on: the daemon's loop runs. 0 or -errno, said. */
int control_server_listen(struct control_server *s);
/* Closes every connection and removes the socket (if it is still the one it made). */
void control_server_stop(struct control_server *s);
/*
 * Its descriptors for poll(), into fds (room for CONTROL_POLL_FDS): how many;
 * *timeout lowered to the nearest connection's deadline. NULL s: none.
 */
int control_poll_fds(struct control_server *s, struct pollfd *fds, int *timeout);
/* After poll(): accepts, reads, answers, writes; closes what is answered or late. */
void control_run(struct control_server *s);

/* The socket's path for ifname (checked): 0, or -errno said. */
int control_path(const char *ifname, char *path, size_t len);
/*
 * The client: request (one JSON object, no newline) to the daemon of ifname,
 * its reply line (malloc'd, without the newline) in *reply, within
 * timeout_ms. -ENOENT, nothing said, when no daemon listens there (no
 * socket, or a dead one's): the caller does the work itself. Else 0 or
 * -errno, said.
 */
int control_call(const char *ifname, const char *request, int timeout_ms, char **reply);

/* A reply read. */
struct control_reply {
	char *line;		/* the reply as read (malloc'd) */
	const char *payload;	/* member's value as the daemon wrote it (not terminated) */
	size_t payload_len;
	char *text;		/* "text", malloc'd, or NULL */
	char error[512];	/* ok false: "error", for the caller to say */
};
/*
 * reply (control_call()'s) read: 0 with member's value (if member) and
 * "text"; when the daemon answered ok false, -"errno" of the reply (else
 * -EIO) with its "error" in r->error, unsaid; -EPROTO when it is not a
 * reply (said).
 */
int control_reply_read(const char *reply, const char *member, struct control_reply *r);
void control_reply_free(struct control_reply *r);

/* req as its request line (malloc'd): 0, or -E2BIG over CONTROL_LINE_MAX. */
int control_request_line(const struct control_request *req, char **line);
/*
 * req asked of the daemon of ifname, its reply in r (member: the payload
 * wanted, or NULL). 0; -ENOENT when no daemon answers there; -E2BIG for a
 * request too large for the socket; when the daemon refused, its errno with
 * its error in r->error, unsaid (status and query then do the work
 * themselves, as without a daemon). r is freed by control_reply_free()
 * whatever the result.
 */
int control_ask(const char *ifname, const struct control_request *req, const char *member,
		int timeout_ms, struct control_reply *r);
/*
 * control_ask() with JSON (member's value, the payload wanted) or text (member
 * NULL: the reply's "text") written to out, a line of JSON ending in a
 * newline: control_ask()'s result. When the daemon refused, its error is in
 * error (error_len bytes; may be NULL), unsaid.
 */
int control_ask_write(const char *ifname, const struct control_request *req, const char *member,
		      FILE *out, char *error, size_t error_len);
/* How long the CLI waits for a reply: status, query; refresh (a fetch). */
#define CONTROL_CALL_MS 30000
#define CONTROL_REFRESH_MS 300000

#endif
