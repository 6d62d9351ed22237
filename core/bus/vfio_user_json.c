/* SPDX-License-Identifier: MIT */
/*
 * The VERSION message's capabilities JSON (specification section
 * "VFIO_USER_VERSION"): {"capabilities":{"max_msg_fds":N,...}}. Every key is
 * optional and has a default; keys we do not know are ignored, keys we know
 * must have the documented type and a usable value.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include <json-c/json.h>

#include "core/bus/vfio_user_priv.h"
#include "zcnic/log.h"

/* Bounds on what a server may announce; outside them the reply is broken. */
#define MAX_MSG_FDS_LIMIT	1024
#define MAX_XFER_LIMIT		(1ll << 31)

int zn_vfuc_version_json(char *buf, size_t len)
{
	json_object *top = json_object_new_object();
	json_object *caps = json_object_new_object();
	const char *s;
	size_t n;
	int rc = -ENOMEM;

	if (!top || !caps)
		goto out;
	/* What we can receive, and what QEMU's client also proposes, so that a
	 * server answering with these keys stays within "a subset of those
	 * proposed". */
	if (json_object_object_add(caps, "max_msg_fds",
				   json_object_new_int(ZN_VFU_MAX_MSG_FDS)) ||
	    json_object_object_add(caps, "max_data_xfer_size",
				   json_object_new_int64(ZN_VFU_MAX_XFER)) ||
	    json_object_object_add(caps, "pgsizes",
				   json_object_new_int64(ZN_VFU_DEFAULT_PGSIZES)) ||
	    json_object_object_add(caps, "max_dma_maps",
				   json_object_new_int64(ZN_VFU_DEFAULT_MAX_DMA_MAPS)))
		goto out;
	if (json_object_object_add(top, "capabilities", caps))
		goto out;
	caps = NULL;	/* owned by top now */
	s = json_object_to_json_string_ext(top, JSON_C_TO_STRING_PLAIN);
	if (!s)
		goto out;
	n = strlen(s) + 1;
	rc = -ENOSPC;
	if (n > len)
		goto out;
	memcpy(buf, s, n);
	rc = (int)n;
out:
	json_object_put(caps);
	json_object_put(top);
	return rc;
}

static int get_num(json_object *caps, const char *key, int64_t min, int64_t max,
		   uint64_t *out, const char *who)
{
	json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(caps, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int))
		goto bad;
	n = json_object_get_int64(v);
	if (n < min)
		goto bad;
	/* json-c clamps above INT64_MAX; the unsigned reading is exact. */
	*out = n == INT64_MAX ? json_object_get_uint64(v) : (uint64_t)n;
	if (max >= 0 && *out > (uint64_t)max)
		goto bad;
	return 0;
bad:
	if (max < 0)
		ZN_ERR(ZN_VFUC_LOG, "%s: VERSION reply: capability \"%s\" is not an integer "
		       ">= %lld", who, key, (long long)min);
	else
		ZN_ERR(ZN_VFUC_LOG, "%s: VERSION reply: capability \"%s\" is not an integer "
		       "in [%lld, %lld]", who, key, (long long)min, (long long)max);
	return -EPROTO;
}

int zn_vfuc_parse_version_json(const char *json, size_t len,
			      struct zn_vfuc_caps *caps, const char *who)
{
	json_tokener *tok = json_tokener_new();
	json_object *top = NULL, *jc;
	uint64_t fds = caps->max_msg_fds, xfer = caps->max_data_xfer_size;
	uint64_t maps = caps->max_dma_maps, pgsizes = caps->pgsizes;
	int rc = -EPROTO;

	if (!tok)
		return -ENOMEM;
	if (memchr(json, '\0', len) || len > INT32_MAX)
		goto bad;
	top = json_tokener_parse_ex(tok, json, (int)len);
	if (!top || json_tokener_get_error(tok) != json_tokener_success)
		goto bad;
	for (size_t i = json_tokener_get_parse_end(tok); i < len; i++)
		if (!isspace((unsigned char)json[i]))
			goto bad;
	if (!json_object_is_type(top, json_type_object))
		goto bad;
	rc = 0;
	if (!json_object_object_get_ex(top, "capabilities", &jc))
		goto out;
	if (!json_object_is_type(jc, json_type_object)) {
		ZN_ERR(ZN_VFUC_LOG, "%s: VERSION reply: \"capabilities\" is not an object", who);
		rc = -EPROTO;
		goto out;
	}
	if ((rc = get_num(jc, "max_msg_fds", 1, MAX_MSG_FDS_LIMIT, &fds, who)) ||
	    (rc = get_num(jc, "max_data_xfer_size", 1, MAX_XFER_LIMIT, &xfer, who)) ||
	    (rc = get_num(jc, "max_dma_maps", 1, UINT32_MAX, &maps, who)) ||
	    (rc = get_num(jc, "pgsizes", 1, -1, &pgsizes, who)))
		goto out;
	caps->max_msg_fds = (uint32_t)fds;
	caps->max_data_xfer_size = (uint32_t)xfer;
	caps->max_dma_maps = (uint32_t)maps;
	caps->pgsizes = pgsizes;
	goto out;
bad:
	ZN_ERR(ZN_VFUC_LOG, "%s: VERSION reply: capabilities are not a JSON object", who);
out:
	json_object_put(top);
	json_tokener_free(tok);
	return rc;
}
