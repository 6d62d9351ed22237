/* SPDX-License-Identifier: MIT */
/*
 * vfio-user client internals, shared by core/bus/vfio_user*.c and the fuzzer.
 *
 *   vfio_user.c        the bus ops: one vfio-user exchange per op
 *   vfio_user_msg.c    connect, framing, sending and receiving with fds, timeouts
 *   vfio_user_reply.c  reply validation and parsing on plain buffers (fuzzed)
 *   vfio_user_json.c   the VERSION capabilities JSON, both ways
 *   vfio_user_dma.c    the DMA windows, and server DMA_READ/WRITE checked against them
 *
 * Errors (all negative errno):
 *   -error        the server answered with the ERROR flag (0 there: -EIO); a
 *                 payload or fds that come with an error reply are dropped
 *   -EPROTO       a malformed reply: header, sizes, caps, fds where none belong
 *   -EMSGSIZE     a reply larger than the request said we could take
 *   -EPROTONOSUPPORT  the server's VERSION is not one we speak
 *   -ETIMEDOUT    no (complete) reply within the timeout
 *   -ENOTCONN / -EPIPE  the server went away
 * A timeout, a dead socket, or a reply whose header cannot be trusted (wrong
 * msg_id, command, type or size: the byte stream may be out of step) marks
 * the connection dead: every later call fails at once with -ENOTCONN. A reply
 * whose header is sound but whose content is bad fails only that call.
 */
#ifndef ZCNIC_CORE_BUS_VFIO_USER_PRIV_H
#define ZCNIC_CORE_BUS_VFIO_USER_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "zcnic/bus.h"
#include "zcnic/vfio_user.h"

#define ZN_VFUC_LOG "vfio-user"

/* Most fds we put in one message (SET_IRQS chunks are also bounded by the
 * server's max_msg_fds). */
#define ZN_VFUC_SEND_FDS_MAX		64
/* First argsz offered for region info, and the most we accept to retry with. */
#define ZN_VFUC_REGION_INFO_ARGSZ	4096
#define ZN_VFUC_REGION_INFO_ARGSZ_MAX	(64u * 1024)
/* Room for the server's VERSION JSON. */
#define ZN_VFUC_VERSION_JSON_MAX	8192

/* What the server told us in its VERSION reply (defaults for absent keys). */
struct zn_vfuc_caps {
	uint16_t major;
	uint16_t minor;
	uint32_t max_msg_fds;
	uint32_t max_data_xfer_size;
	uint32_t max_dma_maps;
	uint64_t pgsizes;
};

/* A DMA window the client mapped: what server DMA_READ/WRITE may reach. */
struct zn_vfuc_win {
	uint64_t iova, len;
	uint8_t *va;
};

struct zn_vfuc_conn {
	int sock;
	bool dead;
	uint16_t next_id;
	int timeout_ms;
	pthread_mutex_t lock;		/* one exchange at a time; guards win too */
	struct zn_vfuc_caps caps;
	struct zn_vfuc_win *win;
	size_t nwin, capwin;
	uint64_t dma_reads, dma_writes;	/* server DMA_READ/WRITE served */
	uint64_t dma_refused;		/* ... and refused (bounds, sizes) */
	char who[112];			/* socket path, for log lines */
};

/* One request and its reply. Fill the inputs, zero the outputs. */
struct zn_vfuc_xact {
	uint16_t cmd;
	const struct iovec *req;	/* request payload pieces */
	unsigned nreq;
	const int *fds;			/* sent with the first byte */
	unsigned nfds;
	void *reply;			/* reply payload (without header) */
	size_t reply_max;		/* larger reply: -EMSGSIZE */
	int *rfds;			/* NULL: fds in the reply are a protocol error */
	unsigned rfds_max;
	int timeout_ms;			/* 0: the connection's */
	/* out */
	size_t reply_len;
	unsigned nrfds;
};

/*
 * vfio_user.c: the fd (owned by the device, valid until its next region info
 * or close) and fd offset that map region index, from its last region info;
 * -ENOENT when the region came without an fd. For code that maps a region on
 * someone else's behalf (the kernel-VFIO bridge, bridge/).
 */
int zn_vfuc_region_fd(struct zn_bus_dev *d, uint32_t index, int *fd, uint64_t *offset);

/* vfio_user_msg.c */
int zn_vfuc_connect(const char *path, int timeout_ms, int *sock_out);
int zn_vfuc_call(struct zn_vfuc_conn *c, struct zn_vfuc_xact *x);
/*
 * Serves the commands the server sent (DMA_READ/WRITE) without waiting for
 * more: the number served, or a negative errno when the connection died.
 * Called with c->lock held, as zn_vfuc_call (by vfio_user.c's service
 * thread).
 */
int zn_vfuc_service(struct zn_vfuc_conn *c);
const char *zn_vfuc_cmd_name(uint16_t cmd);
void zn_vfuc_close_fds(int *fds, unsigned n);

/* vfio_user_dma.c: the windows (under c->lock), and the check of a server
 * DMA_READ/WRITE (its access header a, payload length plen): 0 and *va, the
 * client memory to copy, or -EINVAL (sizes), -E2BIG (count above our
 * max_data_xfer_size), -EFAULT (not inside one window). */
int zn_vfuc_win_add(struct zn_vfuc_conn *c, uint64_t iova, uint64_t len, void *va);
void zn_vfuc_win_del(struct zn_vfuc_conn *c, uint64_t iova, uint64_t len);
void zn_vfuc_win_free(struct zn_vfuc_conn *c);
int zn_vfuc_dma_check(const struct zn_vfuc_win *win, size_t nwin, uint16_t cmd,
		      const struct zn_vfu_dma_access *a, uint64_t plen, uint8_t **va);

/* vfio_user_json.c */
int zn_vfuc_version_json(char *buf, size_t len);
int zn_vfuc_parse_version_json(const char *json, size_t len,
			      struct zn_vfuc_caps *caps, const char *who);

/*
 * vfio_user_reply.c: each takes the reply payload (after the header) as
 * received, and what was asked, and returns 0 or a negative errno with one
 * ZN_ERR line naming `who`.
 */
int zn_vfuc_parse_version(const void *p, size_t len, struct zn_vfuc_caps *caps,
			 const char *who);
int zn_vfuc_parse_device_info(const void *p, size_t len,
			     struct zn_device_info *info, const char *who);
/*
 * Region info with its capability chain. nfds: how many fds came with it.
 * Returns 0, a negative errno, or a positive argsz when the reply was cut
 * short because the offered argsz was too small: ask again with that much.
 */
int zn_vfuc_parse_region_info(const void *p, size_t len, uint32_t index,
			     uint32_t offered_argsz, unsigned nfds,
			     struct zn_region_info *info, const char *who);
int zn_vfuc_parse_irq_info(const void *p, size_t len, uint32_t index,
			  struct zn_irq_info *info, const char *who);
/* REGION_READ reply: copies count bytes to data. REGION_WRITE reply: data NULL. */
int zn_vfuc_parse_region_access(const void *p, size_t len, uint16_t cmd,
			       uint32_t region, uint64_t offset, uint32_t count,
			       void *data, const char *who);
int zn_vfuc_parse_dma_unmap(const void *p, size_t len, uint64_t addr,
			   uint64_t size, const char *who);

#endif
