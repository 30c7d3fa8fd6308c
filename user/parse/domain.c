// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <idn2.h>

#include "parse/domain.h"

static bool label_char_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

static int check_ascii_name(char *name, const char **why)
{
	size_t len = strlen(name), label = 0, labels = 1, i;

	if (len == 0) {
		*why = "empty name";
		return -EINVAL;
	}
	if (len > NAME_TEXT_MAX - 1) {
		*why = "name longer than 253 characters";
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		name[i] = tolower((unsigned char)name[i]);
		if (name[i] == '.') {
			if (label == 0) {
				*why = "empty label (two dots, or a leading dot)";
				return -EINVAL;
			}
			label = 0;
			labels++;
			continue;
		}
		if (!label_char_ok(name[i])) {
			*why = "a name holds only letters, digits, '-', '_' and dots";
			return -EINVAL;
		}
		if (++label > BLOOMXDP_LABEL_MAX) {
			*why = "label longer than 63 characters";
			return -EINVAL;
		}
	}
	if (label == 0) {
		*why = "empty label (two dots, or a leading dot)";
		return -EINVAL;
	}
	if (labels > BLOOMXDP_MAX_LABELS) {
		*why = "more than 16 labels: the XDP program examines the rightmost 16";
		return -EINVAL;
	}
	return 0;
}

static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

int name_normalize(const char *in, char out[NAME_TEXT_MAX], const char **why)
{
	size_t len = strlen(in);
	char buf[1024];
	char *ascii = NULL;
	int rc;

	if (len >= sizeof(buf)) {
		*why = "name longer than 253 characters";
		return -EINVAL;
	}
	memcpy(buf, in, len + 1);
	if (len > 1 && buf[len - 1] == '.')
		buf[--len] = '\0';
	if (!is_ascii(buf)) {
		rc = idn2_to_ascii_8z(buf, &ascii, IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL);
		if (rc != IDN2_OK) {
			*why = idn2_strerror(rc);
			return -EINVAL;
		}
		len = strlen(ascii);
		if (len >= sizeof(buf)) {
			idn2_free(ascii);
			*why = "name longer than 253 characters";
			return -EINVAL;
		}
		memcpy(buf, ascii, len + 1);
		idn2_free(ascii);
	}
	if (check_ascii_name(buf, why))
		return -EINVAL;
	memcpy(out, buf, len + 1);
	return 0;
}

/* The buffer layout both sides hash from. */
struct hash_buf {
	__u8 bytes[BLOOMXDP_NAME_BUF + BLOOMXDP_NAME_PAD];
};

int name_suffix_hashes(const __u64 hash_key[2], const char *name,
		       __u64 suffix[BLOOMXDP_MAX_LABELS])
{
	struct bloomxdp_labels labels = {};
	struct hash_buf buf = {};
	size_t len = strlen(name), start = 0, i;
	__u64 s = BLOOMXDP_NAME_SEED;
	__u32 j, n, slot;

	if (len > BLOOMXDP_NAME_MAX)
		len = BLOOMXDP_NAME_MAX;
	memcpy(buf.bytes, name, len);
	for (i = 0; i <= len; i++) {
		if (i == len || name[i] == '.') {
			bloomxdp_labels_push(&labels, start, i - start);
			start = i + 1;
		}
	}
	n = bloomxdp_labels_examined(&labels);
	for (j = 0; j < n; j++) {
		slot = bloomxdp_label_slot(&labels, j);
		/* As the XDP program: a label it cannot hold makes the name unmatchable. */
		if (labels.len[slot] == 0 || labels.len[slot] > BLOOMXDP_LABEL_MAX)
			return 0;
		s = bloomxdp_name_fold(hash_key, s, buf.bytes, labels.off[slot],
				       labels.len[slot]);
		suffix[j] = s;
	}
	return n;
}

__u64 name_hash(const __u64 hash_key[2], const char *name)
{
	__u64 suffix[BLOOMXDP_MAX_LABELS];
	int n = name_suffix_hashes(hash_key, name, suffix);

	/* Normalised names always have labels; 0 keeps a misuse harmless. */
	return n ? suffix[n - 1] : 0;
}

int path_prefix_hashes(const __u64 hash_key[2], const char *path, size_t len,
		       __u64 prefix[BLOOMXDP_MAX_PATH_PREFIXES],
		       size_t ends[BLOOMXDP_MAX_PATH_PREFIXES])
{
	bool truncated = len > BLOOMXDP_PATH_MAX;
	struct hash_buf buf = {};
	size_t i;
	int n = 0;

	if (truncated)
		len = BLOOMXDP_PATH_MAX;
	memcpy(buf.bytes, path, len);
	for (i = 0; i <= len && n < BLOOMXDP_MAX_PATH_PREFIXES; i++) {
		/* The whole path is a prefix too, unless it ends in '/' or was cut short. */
		if (i == len ? !truncated && (i == 0 || path[i - 1] != '/') : path[i] == '/') {
			if (ends)
				ends[n] = i;
			prefix[n++] = bloomxdp_hash_path(hash_key, buf.bytes, i);
		}
	}
	return n;
}
