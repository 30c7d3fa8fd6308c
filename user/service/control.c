// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The control socket's protocol: a request parsed, the client's call and its reply (control.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "service/control.h"
#include "util/log.h"

static const char *const cmd_names[] = {
	[CONTROL_STATUS] = "status", [CONTROL_RELOAD] = "reload",
	[CONTROL_REFRESH] = "refresh", [CONTROL_QUERY] = "query", [CONTROL_TOP] = "top",
};

/* The members each command takes besides "cmd". */
static const char *const cmd_members[] = {
	[CONTROL_STATUS] = "text", [CONTROL_RELOAD] = "",
	[CONTROL_REFRESH] = "list accept", [CONTROL_QUERY] = "key keys list text",
	[CONTROL_TOP] = "n text",
};

static bool member_allowed(enum control_cmd cmd, const char *key)
{
	const char *m = cmd_members[cmd], *at;
	size_t n = strlen(key);

	for (at = strstr(m, key); at; at = strstr(at + 1, key))
		if ((at == m || at[-1] == ' ') && (at[n] == ' ' || !at[n]))
			return true;
	return false;
}

/* A string member into buf (at most size - 1 bytes, no NUL inside): 0 or -EINVAL. */
static int member_text(struct json_object *v, const char *key, char *buf, size_t size,
		       char *why, size_t why_len)
{
	const char *s;
	size_t n;

	if (!json_object_is_type(v, json_type_string)) {
		snprintf(why, why_len, "\"%s\" must be a string", key);
		return -EINVAL;
	}
	s = json_object_get_string(v);
	n = json_object_get_string_len(v);
	if (!n || n >= size || memchr(s, '\0', n)) {
		snprintf(why, why_len, "\"%s\" must be 1 to %zu bytes of text", key, size - 1);
		return -EINVAL;
	}
	memcpy(buf, s, n + 1);
	return 0;
}

static int member_bool(struct json_object *v, const char *key, bool *out, char *why,
		       size_t why_len)
{
	if (!json_object_is_type(v, json_type_boolean)) {
		snprintf(why, why_len, "\"%s\" must be true or false", key);
		return -EINVAL;
	}
	*out = json_object_get_boolean(v);
	return 0;
}

/* top's "n": a whole number, 1 to TOP_MAX. */
static int member_n(struct json_object *v, unsigned int *out, char *why, size_t why_len)
{
	int64_t n;

	if (!json_object_is_type(v, json_type_int) ||
	    (n = json_object_get_int64(v)) < 1 || n > TOP_MAX) {
		snprintf(why, why_len, "\"n\" must be a whole number from 1 to %d", TOP_MAX);
		return -EINVAL;
	}
	*out = (unsigned int)n;
	return 0;
}

/* query's "key" (one) or "keys" (an array): into req->keys, copied into keybuf. */
static int member_key(struct control_request *req, struct json_object *v, size_t *used,
		      char *why, size_t why_len)
{
	size_t room = sizeof(req->keybuf) - *used;
	int ret;

	if (req->nkeys == CONTROL_KEYS_MAX) {
		snprintf(why, why_len, "at most %d keys in one query", CONTROL_KEYS_MAX);
		return -EINVAL;
	}
	ret = member_text(v, "key", req->keybuf + *used, room, why, why_len);
	if (ret)
		return ret;
	req->keys[req->nkeys++] = req->keybuf + *used;
	*used += strlen(req->keybuf + *used) + 1;
	return 0;
}

static int member_keys(struct control_request *req, struct json_object *v, size_t *used,
		       char *why, size_t why_len)
{
	size_t i, n;
	int ret;

	if (!json_object_is_type(v, json_type_array) || !json_object_array_length(v)) {
		snprintf(why, why_len, "\"keys\" must be an array of strings");
		return -EINVAL;
	}
	n = json_object_array_length(v);
	for (i = 0; i < n; i++) {
		ret = member_key(req, json_object_array_get_idx(v, i), used, why, why_len);
		if (ret)
			return ret;
	}
	return 0;
}

static int request_members(struct json_object *o, struct control_request *req, char *why,
			   size_t why_len)
{
	size_t used = 0;
	int ret = 0;

	json_object_object_foreach(o, key, v) {
		if (!strcmp(key, "cmd"))
			continue;
		if (!member_allowed(req->cmd, key)) {
			snprintf(why, why_len, "\"%s\" takes no member \"%.40s\"%s%s",
				 cmd_names[req->cmd], key, cmd_members[req->cmd][0] ?
				 "; it takes: " : "", cmd_members[req->cmd]);
			return -EINVAL;
		}
		if (!strcmp(key, "text"))
			ret = member_bool(v, key, &req->text, why, why_len);
		else if (!strcmp(key, "accept"))
			ret = member_bool(v, key, &req->accept, why, why_len);
		else if (!strcmp(key, "n"))
			ret = member_n(v, &req->n, why, why_len);
		else if (!strcmp(key, "list"))
			ret = member_text(v, key, req->list, sizeof(req->list), why, why_len);
		else if (!strcmp(key, "key"))
			ret = member_key(req, v, &used, why, why_len);
		else
			ret = member_keys(req, v, &used, why, why_len);
		if (ret)
			return ret;
	}
	if (req->cmd == CONTROL_REFRESH && !req->list[0]) {
		snprintf(why, why_len, "\"refresh\" needs \"list\": the name of a feed");
		return -EINVAL;
	}
	if (req->cmd == CONTROL_TOP && !req->n)
		req->n = 10;
	if (req->cmd == CONTROL_QUERY && !req->nkeys) {
		snprintf(why, why_len, "\"query\" needs \"key\" (or \"keys\")");
		return -EINVAL;
	}
	return 0;
}

int control_parse(const char *line, size_t len, struct control_request *req, char *why,
		  size_t why_len)
{
	struct json_tokener *tok = json_tokener_new_ex(4);
	struct json_object *o = NULL, *cmd;
	const char *name;
	size_t i;
	int ret = -EINVAL;

	memset(req, 0, sizeof(*req));
	if (!tok)
		return -ENOMEM;
	if (len && memchr(line, '\0', len))
		snprintf(why, why_len, "the request holds a NUL byte");
	else if (!(o = json_tokener_parse_ex(tok, line, (int)len)) ||
		 json_tokener_get_error(tok) != json_tokener_success)
		snprintf(why, why_len, "the request is not JSON: send one object on one line, "
			 "such as {\"cmd\":\"status\"}");
	else if (strspn(line + json_tokener_get_parse_end(tok), " \t\r") !=
		 len - json_tokener_get_parse_end(tok))
		snprintf(why, why_len, "text after the request's object: one object a line");
	else if (!json_object_is_type(o, json_type_object) ||
		 !json_object_object_get_ex(o, "cmd", &cmd) ||
		 !json_object_is_type(cmd, json_type_string))
		snprintf(why, why_len, "the request must be an object with \"cmd\": status, "
			 "reload, refresh or query");
	else
		ret = -ENOENT;
	if (ret == -ENOENT) {
		ret = -EINVAL;
		name = json_object_get_string(cmd);
		for (i = 0; i < sizeof(cmd_names) / sizeof(cmd_names[0]); i++)
			if (!strcmp(name, cmd_names[i]))
				break;
		if (i == sizeof(cmd_names) / sizeof(cmd_names[0])) {
			snprintf(why, why_len, "unknown cmd \"%.40s\": status, reload, refresh "
				 "or query", name);
		} else {
			req->cmd = i;
			ret = request_members(o, req, why, why_len);
		}
	}
	json_object_put(o);
	json_tokener_free(tok);
	return ret;
}

int control_reply_read(const char *reply, const char *member, struct control_reply *r)
{
	struct json_object *o = json_tokener_parse(reply), *v;
	char head[64];
	size_t n, len = strlen(reply);
	int ret = -EPROTO;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "ok", &v) || !json_object_is_type(v, json_type_boolean)) {
		log_error("the daemon's reply is not one: %.80s", reply);
		goto out;
	}
	if (!json_object_get_boolean(v)) {
		snprintf(r->error, sizeof(r->error), "%s",
			 json_object_object_get_ex(o, "error", &v) ? json_object_get_string(v) :
			 "(no reason)");
		ret = json_object_object_get_ex(o, "errno", &v) && json_object_get_int(v) > 0 ?
		      -json_object_get_int(v) : -EIO;
		goto out;
	}
	if (json_object_object_get_ex(o, "text", &v) && json_object_is_type(v, json_type_string)) {
		r->text = strdup(json_object_get_string(v));
		if (!r->text) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = 0;
	if (!member)
		goto out;
	/* The server writes the payload first, after "ok":true: its text as it was sent. */
	n = snprintf(head, sizeof(head), "{\"ok\":true,\"%s\":", member);
	if (n >= sizeof(head) || len < n + 2 || strncmp(reply, head, n) || reply[len - 1] != '}') {
		log_error("the daemon's reply has no \"%s\": %.80s", member, reply);
		free(r->text);
		r->text = NULL;
		ret = -EPROTO;
		goto out;
	}
	r->payload = reply + n;
	r->payload_len = len - n - 1;
out:
	json_object_put(o);
	return ret;
}

void control_reply_free(struct control_reply *r)
{
	free(r->text);
	free(r->line);
	r->text = r->line = NULL;
}

const char *control_cmd_name(enum control_cmd cmd)
{
	return cmd_names[cmd];
}
