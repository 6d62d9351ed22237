/* SPDX-License-Identifier: MIT */
/*
 * VERSION: the handshake (vfio-user spec "VFIO_USER_VERSION").
 *
 * The reply keeps the proposed major (we speak only 0), takes the smaller
 * minor, and carries a subset of the proposed capabilities: for each of
 * max_msg_fds, max_data_xfer_size, pgsizes and max_dma_maps that the client
 * named, our value (what we can receive, what we can map). Keys we do not
 * know (migration, twin_socket, write_multiple, ...) are left out, which
 * tells the client we do not offer them. A missing JSON, or one without
 * "capabilities", means every default. Any failure closes the connection
 * after the error reply, as the spec lets a server do.
 */
#include <ctype.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "sim/vfu/priv.h"

struct caps {
	bool has_fds, has_xfer, has_pgsizes, has_maps;
	int64_t max_fds, max_xfer, pgsizes, max_maps;
};

static int get_int(struct json_object *caps, const char *key, bool *has, int64_t *val,
		   int64_t min, int64_t max, const char **bad)
{
	struct json_object *jo;

	if (!json_object_object_get_ex(caps, key, &jo))
		return 0;
	if (json_object_get_type(jo) != json_type_int) {
		*bad = key;
		return -EINVAL;
	}
	*val = json_object_get_int64(jo);
	if (*val < min || *val > max) {
		*bad = key;
		return -EINVAL;
	}
	*has = true;
	return 0;
}

static int parse_caps(const char *json, struct caps *c, const char **bad)
{
	struct json_object *top = NULL, *caps;
	json_tokener *tok = json_tokener_new();
	size_t len = strlen(json);
	int ret = -EINVAL;

	if (!tok) {
		*bad = "out of memory";
		return -ENOMEM;
	}
	if (len <= INT32_MAX)
		top = json_tokener_parse_ex(tok, json, (int)len);
	if (!top || json_tokener_get_error(tok) != json_tokener_success ||
	    json_object_get_type(top) != json_type_object) {
		*bad = "not a JSON object";
		goto out;
	}
	/* One object and nothing after it but blanks: text json-c would stop
	 * before and ignore is still malformed. */
	for (size_t i = json_tokener_get_parse_end(tok); i < len; i++) {
		if (!isspace((unsigned char)json[i])) {
			*bad = "text after the JSON object";
			goto out;
		}
	}
	if (!json_object_object_get_ex(top, "capabilities", &caps)) {
		ret = 0;
		goto out;
	}
	if (json_object_get_type(caps) != json_type_object) {
		*bad = "capabilities";
		goto out;
	}
	if (get_int(caps, "max_msg_fds", &c->has_fds, &c->max_fds, 0,
		    VFU_CLIENT_MAX_FDS_LIMIT, bad) ||
	    get_int(caps, "max_data_xfer_size", &c->has_xfer, &c->max_xfer, 1, UINT32_MAX, bad) ||
	    get_int(caps, "pgsizes", &c->has_pgsizes, &c->pgsizes, 1, INT64_MAX, bad) ||
	    get_int(caps, "max_dma_maps", &c->has_maps, &c->max_maps, 0, UINT32_MAX, bad))
		goto out;
	ret = 0;
out:
	json_object_put(top);
	json_tokener_free(tok);
	return ret;
}

static int add_int(struct json_object *obj, const char *key, int64_t v)
{
	struct json_object *jv = json_object_new_int64(v);

	if (!jv)
		return -ENOMEM;
	if (json_object_object_add(obj, key, jv)) {
		json_object_put(jv);
		return -ENOMEM;
	}
	return 0;
}

static int send_reply(struct zn_vfu_dev *dev, struct vfu_req *rq, uint16_t minor,
		      const struct caps *c, uint64_t pgsizes, uint64_t max_maps)
{
	struct json_object *top = json_object_new_object();
	struct json_object *caps = json_object_new_object();
	struct zn_vfu_version *v;
	const char *s;
	size_t slen;
	int ret = -ENOMEM;

	if (!top || !caps)
		goto out;
	if ((c->has_fds && add_int(caps, "max_msg_fds", ZN_VFU_MAX_MSG_FDS)) ||
	    (c->has_xfer && add_int(caps, "max_data_xfer_size", ZN_VFU_MAX_XFER)) ||
	    (c->has_pgsizes && add_int(caps, "pgsizes", (int64_t)pgsizes)) ||
	    (c->has_maps && add_int(caps, "max_dma_maps", (int64_t)max_maps)))
		goto out;
	if (json_object_object_add(top, "capabilities", caps))
		goto out;
	caps = NULL;	/* owned by top now */
	s = json_object_to_json_string_ext(top, JSON_C_TO_STRING_PLAIN);
	if (!s)
		goto out;
	slen = strlen(s) + 1;	/* the NUL travels too */
	v = malloc(sizeof(*v) + slen);
	if (!v)
		goto out;
	v->major = ZN_VFU_VERSION_MAJOR;
	v->minor = minor;
	memcpy(v->data, s, slen);
	ret = vfu_reply(dev, rq, v, sizeof(*v) + slen, NULL, 0);
	free(v);
out:
	json_object_put(caps);
	json_object_put(top);
	if (ret == -ENOMEM)
		vfu_send_error(dev, &rq->hdr, ENOMEM);
	return ret;
}

static int fail(struct zn_vfu_dev *dev, struct vfu_req *rq, enum zn_vfu_err why,
		const char *detail)
{
	dev->conn.closing = true;
	return vfu_refuse(dev, rq, why, 0, "%s; closing", detail);
}

int vfu_handle_version(struct zn_vfu_dev *dev, struct vfu_req *rq)
{
	struct zn_vfu_version v;
	struct caps c = { .has_fds = false };
	const char *bad = NULL;
	uint64_t pgsizes = VFU_PGSIZES & ZN_VFU_DEFAULT_PGSIZES;
	uint64_t max_maps = VFU_MAX_DMA_MAPS;
	char detail[96];

	if (rq->nfds)
		return fail(dev, rq, ZN_VFU_ERR_UNEXPECTED_FDS, "fds with VERSION");
	if (rq->len < sizeof(v))
		return fail(dev, rq, ZN_VFU_ERR_BAD_SIZE, "payload shorter than major/minor");
	memcpy(&v, rq->data, sizeof(v));
	if (v.major != ZN_VFU_VERSION_MAJOR) {
		snprintf(detail, sizeof(detail), "major %u, we speak %u", v.major,
			 ZN_VFU_VERSION_MAJOR);
		return fail(dev, rq, ZN_VFU_ERR_BAD_VERSION, detail);
	}
	if (rq->len > sizeof(v)) {
		const char *json = (const char *)rq->data + sizeof(v);
		size_t jlen = rq->len - sizeof(v);

		/* "version data ... (including terminating NUL)" */
		if (json[jlen - 1] != '\0' || strlen(json) != jlen - 1)
			return fail(dev, rq, ZN_VFU_ERR_BAD_JSON, "JSON not NUL-terminated");
		if (parse_caps(json, &c, &bad)) {
			snprintf(detail, sizeof(detail), "bad capabilities JSON (%s)", bad);
			return fail(dev, rq, ZN_VFU_ERR_BAD_JSON, detail);
		}
	}
	if (c.has_pgsizes) {
		pgsizes = (uint64_t)c.pgsizes & VFU_PGSIZES;
		if (!pgsizes)
			return fail(dev, rq, ZN_VFU_ERR_BAD_JSON, "no page size in common");
	}
	if (c.has_maps && (uint64_t)c.max_maps < max_maps)
		max_maps = (uint64_t)c.max_maps;
	if (send_reply(dev, rq, v.minor < ZN_VFU_VERSION_MINOR ? v.minor : ZN_VFU_VERSION_MINOR,
		       &c, pgsizes, max_maps) < 0) {
		dev->conn.closing = true;
		return -ENOMEM;
	}
	dev->conn.negotiated = true;
	if (c.has_fds)
		dev->conn.client_max_fds = (uint32_t)c.max_fds;
	if (c.has_xfer)
		dev->conn.client_max_xfer = (uint64_t)c.max_xfer;
	dev->conn.pgsizes = pgsizes;
	dev->conn.max_dma_maps = max_maps;
	ZN_SIM_INFO("vfu", "%s: client speaks %u.%u, max_msg_fds %u, max_data_xfer_size %llu",
		    dev->name, v.major, v.minor, dev->conn.client_max_fds,
		    (unsigned long long)dev->conn.client_max_xfer);
	return 0;
}
