/* SPDX-License-Identifier: MIT */
/*
 * core/bus back end for vfio-user servers ("vfio-user:PATH"): each bus op is
 * one exchange of the protocol (QEMU docs/interop/vfio-user.rst), done
 * synchronously under the device lock.
 *
 * Mappable regions come with one fd each (kept until the next region info or
 * close). A region is mapped by reserving its whole size PROT_NONE and
 * mapping the sparse areas, or the whole region, over the reservation from
 * that fd at region offset + area offset: a stray access to a trapped part
 * faults instead of touching something else. DMA_MAP hands the server the
 * region's memfd; a server that still reads or writes our memory by message
 * (DMA_READ/WRITE) is served from the same windows, checked against them,
 * while we wait for a reply and, between exchanges, by a service thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/bus/vfio_user_priv.h"
#include "zcnic/log.h"

#define DEFAULT_TIMEOUT_MS	5000
/* DEVICE_RESET may legitimately take long (specification, "Command
 * Concurrency"): it gets this many times the normal timeout. */
#define RESET_TIMEOUT_FACTOR	10

struct vfu_region {
	bool known;			/* info holds the last region info */
	struct zn_region_info info;
	int fd;				/* from the region info, -1 without */
	void *va;			/* mapping (reservation base) */
	size_t map_len;
};

struct vfu_dev {
	struct zn_bus_dev bus;
	struct zn_vfuc_conn conn;
	struct vfu_region region[ZN_BUS_NUM_REGIONS_MAX];
	uint32_t xfer_max;		/* REGION_READ/WRITE chunk */
	uint8_t *xfer_buf;		/* REGION_READ reply: header + chunk */
	pthread_t svc;			/* serves server DMA_READ/WRITE */
	int svc_stop;			/* eventfd: vfu_close ends it */
};

static struct vfu_dev *vdev(struct zn_bus_dev *d)
{
	return d->priv;
}

static int call(struct vfu_dev *v, struct zn_vfuc_xact *x)
{
	return zn_vfuc_call(&v->conn, x);
}

static int do_get_device_info(struct vfu_dev *v, struct zn_device_info *info)
{
	struct zn_vfu_device_info req = { .argsz = sizeof(req) }, rep;
	struct iovec iov = { &req, sizeof(req) };
	struct zn_vfuc_xact x = {
		.cmd = ZN_VFU_DEVICE_GET_INFO, .req = &iov, .nreq = 1,
		.reply = &rep, .reply_max = sizeof(rep),
	};
	int rc = call(v, &x);

	if (rc < 0)
		return rc;
	return zn_vfuc_parse_device_info(&rep, x.reply_len, info, v->conn.who);
}

static int vfu_get_device_info(struct zn_bus_dev *d, struct zn_device_info *info)
{
	struct vfu_dev *v = vdev(d);
	int rc;

	pthread_mutex_lock(&v->conn.lock);
	rc = do_get_device_info(v, info);
	pthread_mutex_unlock(&v->conn.lock);
	return rc;
}

/* One DEVICE_GET_REGION_INFO exchange; > 0: ask again with that argsz. */
static int region_info_once(struct vfu_dev *v, uint32_t index, uint32_t argsz,
			    struct zn_region_info *info, int *fd)
{
	struct zn_vfu_region_info req = { .argsz = argsz, .index = index };
	struct iovec iov = { &req, sizeof(req) };
	int fds[ZN_VFU_MAX_MSG_FDS];
	struct zn_vfuc_xact x = {
		.cmd = ZN_VFU_DEVICE_GET_REGION_INFO, .req = &iov, .nreq = 1,
		.reply_max = argsz, .rfds = fds, .rfds_max = ZN_VFU_MAX_MSG_FDS,
	};
	int rc;

	x.reply = malloc(argsz);
	if (!x.reply)
		return -ENOMEM;
	rc = call(v, &x);
	if (rc < 0)
		goto out;
	rc = zn_vfuc_parse_region_info(x.reply, x.reply_len, index, argsz, x.nrfds,
				      info, v->conn.who);
	if (rc == 0 && x.nrfds == 1) {
		*fd = fds[0];
		x.nrfds = 0;
	}
	zn_vfuc_close_fds(fds, x.nrfds);
out:
	free(x.reply);
	return rc;
}

static int vfu_get_region_info(struct zn_bus_dev *d, uint32_t index,
			       struct zn_region_info *info)
{
	struct vfu_dev *v = vdev(d);
	uint32_t argsz = ZN_VFUC_REGION_INFO_ARGSZ;
	int fd = -1, rc;

	if (index >= d->info.num_regions)
		return -EINVAL;
	pthread_mutex_lock(&v->conn.lock);
	rc = region_info_once(v, index, argsz, info, &fd);
	if (rc > 0) {
		/* The server named the room it needs; one more try with that. */
		argsz = (uint32_t)rc;
		rc = region_info_once(v, index, argsz, info, &fd);
		if (rc > 0) {
			ZN_ERR(ZN_VFUC_LOG, "%s: DEVICE_GET_REGION_INFO reply: region %u asks "
			       "for %d bytes after being given the %u it asked for",
			       v->conn.who, index, rc, argsz);
			rc = -EPROTO;
		}
	}
	if (rc == 0 && index < ZN_BUS_NUM_REGIONS_MAX) {
		struct vfu_region *r = &v->region[index];

		if (r->fd >= 0)
			close(r->fd);
		r->fd = fd;
		r->info = *info;
		r->known = true;
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&v->conn.lock);
	return rc;
}

static int map_areas(struct vfu_region *r, uint8_t *base, int prot, const char *who)
{
	const struct zn_region_info *ri = &r->info;
	uint32_t n = ri->nr_sparse ? ri->nr_sparse : 1;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t off = ri->nr_sparse ? ri->sparse[i].offset : 0;
		uint64_t len = ri->nr_sparse ? ri->sparse[i].size : ri->size;

		if (mmap(base + off, len, prot, MAP_SHARED | MAP_FIXED, r->fd,
			 (off_t)(ri->offset + off)) == MAP_FAILED) {
			int err = errno;

			ZN_ERR(ZN_VFUC_LOG, "%s: region %u: mmap of [%#" PRIx64 ", +%#" PRIx64
			       ") at fd offset %#" PRIx64 " failed: %s", who, ri->index, off,
			       len, ri->offset + off, strerror(err));
			return -err;
		}
	}
	return 0;
}

static int vfu_map_region(struct zn_bus_dev *d, uint32_t index, void **va)
{
	struct vfu_dev *v = vdev(d);
	long page = sysconf(_SC_PAGESIZE);
	struct vfu_region *r;
	struct zn_region_info info;
	size_t len;
	void *base;
	int prot = 0, rc;

	if (index >= ZN_BUS_NUM_REGIONS_MAX)
		return -EINVAL;
	r = &v->region[index];
	if (r->va) {
		*va = r->va;
		return 0;
	}
	if (!r->known) {
		rc = vfu_get_region_info(d, index, &info);
		if (rc < 0)
			return rc;
	}
	if (!(r->info.flags & ZN_REGION_F_MMAP) || r->fd < 0) {
		ZN_ERR(ZN_VFUC_LOG, "%s: region %u is not mappable; use region reads and writes",
		       v->conn.who, index);
		return -EINVAL;
	}
	/* mmap() works in pages: the fd offset and every area must be aligned. */
	if (r->info.offset % (uint64_t)page)
		goto unaligned;
	for (uint32_t i = 0; i < r->info.nr_sparse; i++)
		if ((r->info.sparse[i].offset | r->info.sparse[i].size) % (uint64_t)page)
			goto unaligned;
	if (r->info.size > SIZE_MAX - (size_t)page)
		return -EINVAL;
	len = (r->info.size + (size_t)page - 1) & ~((size_t)page - 1);
	base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		rc = -errno;
		ZN_ERR(ZN_VFUC_LOG, "%s: region %u: cannot reserve %zu bytes: %s", v->conn.who,
		       index, len, strerror(-rc));
		return rc;
	}
	if (r->info.flags & ZN_REGION_F_READ)
		prot |= PROT_READ;
	if (r->info.flags & ZN_REGION_F_WRITE)
		prot |= PROT_WRITE;
	rc = map_areas(r, base, prot, v->conn.who);
	if (rc < 0) {
		munmap(base, len);
		return rc;
	}
	r->va = base;
	r->map_len = len;
	*va = base;
	return 0;
unaligned:
	ZN_ERR(ZN_VFUC_LOG, "%s: region %u: offset or sparse areas are not page-aligned; "
	       "cannot map it", v->conn.who, index);
	return -EINVAL;
}

static int vfu_unmap_region(struct zn_bus_dev *d, uint32_t index)
{
	struct vfu_dev *v = vdev(d);
	struct vfu_region *r;

	if (index >= ZN_BUS_NUM_REGIONS_MAX)
		return -EINVAL;
	r = &v->region[index];
	if (!r->va)
		return 0;
	munmap(r->va, r->map_len);
	r->va = NULL;
	r->map_len = 0;
	return 0;
}

/* Trapped access must stay inside a region whose size we know. */
static int check_access(struct vfu_dev *v, uint32_t index, uint64_t off, size_t len)
{
	if (index >= v->bus.info.num_regions)
		return -EINVAL;
	if (index < ZN_BUS_NUM_REGIONS_MAX && v->region[index].known &&
	    (off > v->region[index].info.size || len > v->region[index].info.size - off))
		return -EINVAL;
	return 0;
}

static int vfu_region_read(struct zn_bus_dev *d, uint32_t index, uint64_t off,
			   void *buf, size_t len)
{
	struct vfu_dev *v = vdev(d);
	int rc = check_access(v, index, off, len);

	if (rc < 0)
		return rc;
	pthread_mutex_lock(&v->conn.lock);
	/* The specification caps each transfer at the server's max_data_xfer_size. */
	for (size_t done = 0; done < len && rc == 0; ) {
		uint32_t n = len - done < v->xfer_max ? (uint32_t)(len - done) : v->xfer_max;
		struct zn_vfu_region_access req = {
			.offset = off + done, .region = index, .count = n,
		};
		struct iovec iov = { &req, sizeof(req) };
		struct zn_vfuc_xact x = {
			.cmd = ZN_VFU_REGION_READ, .req = &iov, .nreq = 1,
			.reply = v->xfer_buf, .reply_max = sizeof(req) + n,
		};

		rc = call(v, &x);
		if (rc == 0)
			rc = zn_vfuc_parse_region_access(v->xfer_buf, x.reply_len,
							ZN_VFU_REGION_READ, index, req.offset,
							n, (uint8_t *)buf + done, v->conn.who);
		done += n;
	}
	pthread_mutex_unlock(&v->conn.lock);
	return rc;
}

static int vfu_region_write(struct zn_bus_dev *d, uint32_t index, uint64_t off,
			    const void *buf, size_t len)
{
	struct vfu_dev *v = vdev(d);
	int rc = check_access(v, index, off, len);

	if (rc < 0)
		return rc;
	pthread_mutex_lock(&v->conn.lock);
	for (size_t done = 0; done < len && rc == 0; ) {
		uint32_t n = len - done < v->xfer_max ? (uint32_t)(len - done) : v->xfer_max;
		struct zn_vfu_region_access req = {
			.offset = off + done, .region = index, .count = n,
		}, rep;
		struct iovec iov[2] = {
			{ &req, sizeof(req) }, { (uint8_t *)buf + done, n },
		};
		struct zn_vfuc_xact x = {
			.cmd = ZN_VFU_REGION_WRITE, .req = iov, .nreq = 2,
			.reply = &rep, .reply_max = sizeof(rep),
		};

		rc = call(v, &x);
		if (rc == 0)
			rc = zn_vfuc_parse_region_access(&rep, x.reply_len, ZN_VFU_REGION_WRITE,
							index, req.offset, n, NULL, v->conn.who);
		done += n;
	}
	pthread_mutex_unlock(&v->conn.lock);
	return rc;
}

static int vfu_get_irq_info(struct zn_bus_dev *d, uint32_t index, struct zn_irq_info *info)
{
	struct vfu_dev *v = vdev(d);
	struct zn_vfu_irq_info req = { .argsz = sizeof(req), .index = index }, rep;
	struct iovec iov = { &req, sizeof(req) };
	struct zn_vfuc_xact x = {
		.cmd = ZN_VFU_DEVICE_GET_IRQ_INFO, .req = &iov, .nreq = 1,
		.reply = &rep, .reply_max = sizeof(rep),
	};
	int rc;

	if (index >= d->info.num_irqs)
		return -EINVAL;
	pthread_mutex_lock(&v->conn.lock);
	rc = call(v, &x);
	if (rc == 0)
		rc = zn_vfuc_parse_irq_info(&rep, x.reply_len, index, info, v->conn.who);
	pthread_mutex_unlock(&v->conn.lock);
	return rc;
}

static int set_irqs_one(struct vfu_dev *v, uint32_t flags, uint32_t index,
			uint32_t start, uint32_t count, const int *fds, unsigned nfds)
{
	struct zn_vfu_irq_set req = {
		.argsz = sizeof(req), .flags = flags, .index = index,
		.start = start, .count = count,
	};
	struct iovec iov = { &req, sizeof(req) };
	struct zn_vfuc_xact x = {
		.cmd = ZN_VFU_DEVICE_SET_IRQS, .req = &iov, .nreq = 1,
		.fds = fds, .nfds = nfds,
	};

	return call(v, &x);
}

/*
 * Eventfds travel as SCM_RIGHTS, at most the server's max_msg_fds per
 * message, so a range is sent in chunks. A vector given no eventfd (fd < 0)
 * is de-assigned: DATA_EVENTFD with no fds, as the specification defines.
 */
static int vfu_set_irqs(struct zn_bus_dev *d, uint32_t index, uint32_t start,
			uint32_t count, const int *fds)
{
	const uint32_t trig_fd = ZN_VFU_IRQ_SET_DATA_EVENTFD | ZN_VFU_IRQ_SET_ACTION_TRIGGER;
	struct vfu_dev *v = vdev(d);
	uint32_t max = v->conn.caps.max_msg_fds < ZN_VFUC_SEND_FDS_MAX
		       ? v->conn.caps.max_msg_fds : ZN_VFUC_SEND_FDS_MAX;
	int rc = 0;

	if (index >= d->info.num_irqs || (count && !fds) || start + count < start)
		return -EINVAL;
	pthread_mutex_lock(&v->conn.lock);
	if (count == 0)
		rc = set_irqs_one(v, ZN_VFU_IRQ_SET_DATA_NONE | ZN_VFU_IRQ_SET_ACTION_TRIGGER,
				  index, 0, 0, NULL, 0);
	for (uint32_t i = 0; i < count && rc == 0; ) {
		bool assign = fds[i] >= 0;
		uint32_t n = 1;

		while (i + n < count && (fds[i + n] >= 0) == assign && (!assign || n < max))
			n++;
		rc = set_irqs_one(v, trig_fd, index, start + i, n, assign ? fds + i : NULL,
				  assign ? n : 0);
		i += n;
	}
	pthread_mutex_unlock(&v->conn.lock);
	return rc;
}

static int vfu_dma_map(struct zn_bus_dev *d, const struct zn_dma_region *r)
{
	struct vfu_dev *v = vdev(d);
	struct zn_vfu_dma_map req = {
		.argsz = sizeof(req), .flags = ZN_VFU_DMA_F_READ | ZN_VFU_DMA_F_WRITE,
		.offset = r->fd_offset, .addr = r->iova, .size = r->len,
	};
	struct iovec iov = { &req, sizeof(req) };
	struct zn_vfuc_xact x = {
		.cmd = ZN_VFU_DMA_MAP, .req = &iov, .nreq = 1, .fds = &r->fd, .nfds = 1,
	};
	int rc;

	if (r->fd < 0 || r->len == 0 || r->iova + r->len < r->iova)
		return -EINVAL;
	pthread_mutex_lock(&v->conn.lock);
	/* Known before the server hears of it: it may DMA_READ/WRITE at once. */
	rc = zn_vfuc_win_add(&v->conn, r->iova, r->len, r->va);
	if (rc == 0) {
		rc = call(v, &x);
		if (rc < 0)
			zn_vfuc_win_del(&v->conn, r->iova, r->len);
	}
	pthread_mutex_unlock(&v->conn.lock);
	return rc;
}

static int vfu_dma_unmap(struct zn_bus_dev *d, const struct zn_dma_region *r)
{
	struct vfu_dev *v = vdev(d);
	struct zn_vfu_dma_unmap req = { .argsz = sizeof(req), .addr = r->iova, .size = r->len };
	struct zn_vfu_dma_unmap rep;
	struct iovec iov = { &req, sizeof(req) };
	struct zn_vfuc_xact x = {
		.cmd = ZN_VFU_DMA_UNMAP, .req = &iov, .nreq = 1,
		.reply = &rep, .reply_max = sizeof(rep),
	};
	int rc;

	pthread_mutex_lock(&v->conn.lock);
	rc = call(v, &x);
	if (rc == 0)
		rc = zn_vfuc_parse_dma_unmap(&rep, x.reply_len, r->iova, r->len, v->conn.who);
	/* Served until the server confirmed it is done with the window; after
	 * that (or once the connection is gone) it is no longer reachable. */
	if (rc == 0 || v->conn.dead)
		zn_vfuc_win_del(&v->conn, r->iova, r->len);
	pthread_mutex_unlock(&v->conn.lock);
	return rc;
}

static int vfu_reset(struct zn_bus_dev *d)
{
	struct vfu_dev *v = vdev(d);
	struct zn_vfuc_xact x = {
		.cmd = ZN_VFU_DEVICE_RESET,
		.timeout_ms = v->conn.timeout_ms * RESET_TIMEOUT_FACTOR,
	};
	int rc;

	if (!(d->info.flags & ZN_VFU_DEV_F_RESET)) {
		ZN_ERR(ZN_VFUC_LOG, "%s: the device does not support reset", v->conn.who);
		return -EOPNOTSUPP;
	}
	pthread_mutex_lock(&v->conn.lock);
	rc = call(v, &x);
	pthread_mutex_unlock(&v->conn.lock);
	return rc;
}

/*
 * The service thread: serves what the server sends on its own (DMA_READ/
 * WRITE) at any time, so that the driver's poll loop needs no system call
 * for it. It sleeps in poll() on the socket; while a caller is inside an
 * exchange it waits for the lock (that caller serves server commands
 * itself), and what it then finds readable can only be a server command.
 * It ends with the connection, or when vfu_close wakes it.
 */
static void *service_thread(void *arg)
{
	struct vfu_dev *v = arg;
	struct pollfd p[2] = {
		{ .fd = v->conn.sock, .events = POLLIN }, { .fd = v->svc_stop, .events = POLLIN },
	};

	for (;;) {
		int rc = poll(p, 2, -1);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0 || p[1].revents)
			break;
		pthread_mutex_lock(&v->conn.lock);
		rc = v->conn.dead ? -ENOTCONN : zn_vfuc_service(&v->conn);
		pthread_mutex_unlock(&v->conn.lock);
		if (rc < 0)
			break;
	}
	return NULL;
}

static int service_start(struct vfu_dev *v)
{
	sigset_t all, old;
	int rc;

	v->svc_stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (v->svc_stop < 0)
		return -errno;
	/* The application's signals are not this thread's to take. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&v->svc, NULL, service_thread, v);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc < 0) {
		close(v->svc_stop);
		return rc;
	}
	pthread_setname_np(v->svc, "zn-vfu-service");
	return 0;
}

static void service_stop(struct vfu_dev *v)
{
	uint64_t one = 1;

	if (write(v->svc_stop, &one, sizeof(one)) != sizeof(one))
		ZN_ERR(ZN_VFUC_LOG, "%s: cannot stop the service thread: %s", v->conn.who,
		       strerror(errno));
	pthread_join(v->svc, NULL);
	close(v->svc_stop);
}

static void vfu_close(struct zn_bus_dev *d)
{
	struct vfu_dev *v = vdev(d);

	service_stop(v);
	for (uint32_t i = 0; i < ZN_BUS_NUM_REGIONS_MAX; i++) {
		vfu_unmap_region(d, i);
		if (v->region[i].fd >= 0)
			close(v->region[i].fd);
	}
	/* Closing the socket is the whole goodbye: the server drops our DMA
	 * maps and eventfds (specification, "Client Disconnection"). */
	close(v->conn.sock);
	pthread_mutex_destroy(&v->conn.lock);
	zn_vfuc_win_free(&v->conn);
	free(v->xfer_buf);
	free(v);
}

static const struct zn_bus_ops vfu_ops;

int zn_vfuc_region_fd(struct zn_bus_dev *d, uint32_t index, int *fd, uint64_t *offset)
{
	struct vfu_dev *v;

	if (!d || d->ops != &vfu_ops || index >= ZN_BUS_NUM_REGIONS_MAX)
		return -EINVAL;
	v = vdev(d);
	if (!v->region[index].known || v->region[index].fd < 0)
		return -ENOENT;
	*fd = v->region[index].fd;
	*offset = v->region[index].info.offset;
	return 0;
}

static const struct zn_bus_ops vfu_ops = {
	.name = "vfio-user",
	.get_device_info = vfu_get_device_info,
	.get_region_info = vfu_get_region_info,
	.map_region = vfu_map_region,
	.unmap_region = vfu_unmap_region,
	.region_read = vfu_region_read,
	.region_write = vfu_region_write,
	.get_irq_info = vfu_get_irq_info,
	.set_irqs = vfu_set_irqs,
	.dma_map = vfu_dma_map,
	.dma_unmap = vfu_dma_unmap,
	.reset = vfu_reset,
	.close = vfu_close,
};

/* VERSION: the first message on a connection (specification, "Connection
 * Initiation"). */
static int negotiate(struct vfu_dev *v)
{
	struct zn_vfu_version ver = {
		.major = ZN_VFU_VERSION_MAJOR, .minor = ZN_VFU_VERSION_MINOR,
	};
	char json[512];
	int jlen = zn_vfuc_version_json(json, sizeof(json));
	struct iovec iov[2] = { { &ver, sizeof(ver) }, { json, 0 } };
	struct zn_vfuc_xact x = {
		.cmd = ZN_VFU_VERSION, .req = iov, .nreq = 2,
		.reply_max = sizeof(ver) + ZN_VFUC_VERSION_JSON_MAX,
	};
	int rc;

	if (jlen < 0)
		return jlen;
	iov[1].iov_len = (size_t)jlen;
	x.reply = malloc(x.reply_max);
	if (!x.reply)
		return -ENOMEM;
	rc = call(v, &x);
	if (rc == 0)
		rc = zn_vfuc_parse_version(x.reply, x.reply_len, &v->conn.caps, v->conn.who);
	free(x.reply);
	return rc;
}

int zn_vfio_user_open(const char *path, const struct zn_bus_open_opts *opts,
		      struct zn_bus_dev **out)
{
	struct vfu_dev *v;
	int rc;

	if (!path || !*path || !out)
		return -EINVAL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < ZN_BUS_NUM_REGIONS_MAX; i++)
		v->region[i].fd = -1;
	v->bus.ops = &vfu_ops;
	v->bus.priv = v;
	snprintf(v->bus.name, sizeof(v->bus.name), "vfio-user:%s", path);
	snprintf(v->conn.who, sizeof(v->conn.who), "%s", path);
	v->conn.timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : DEFAULT_TIMEOUT_MS;
	pthread_mutex_init(&v->conn.lock, NULL);

	rc = zn_vfuc_connect(path, v->conn.timeout_ms, &v->conn.sock);
	if (rc < 0)
		goto err_free;
	rc = negotiate(v);
	if (rc < 0)
		goto err_close;
	rc = do_get_device_info(v, &v->bus.info);
	if (rc < 0)
		goto err_close;
	if (!(v->bus.info.flags & ZN_VFU_DEV_F_PCI)) {
		ZN_ERR(ZN_VFUC_LOG, "%s: the device is not a PCI device (flags %#x); zcnic "
		       "drives PCI devices only", path, v->bus.info.flags);
		rc = -ENODEV;
		goto err_close;
	}
	v->xfer_max = v->conn.caps.max_data_xfer_size < ZN_VFU_MAX_XFER
		      ? v->conn.caps.max_data_xfer_size : ZN_VFU_MAX_XFER;
	v->xfer_buf = malloc(sizeof(struct zn_vfu_region_access) + v->xfer_max);
	if (!v->xfer_buf) {
		rc = -ENOMEM;
		goto err_close;
	}
	rc = service_start(v);
	if (rc < 0) {
		ZN_ERR(ZN_VFUC_LOG, "%s: cannot start the service thread: %s", path,
		       strerror(-rc));
		free(v->xfer_buf);
		goto err_close;
	}
	ZN_DEBUG(ZN_VFUC_LOG, "%s: vfio-user %u.%u, max_msg_fds %u, max_data_xfer_size %u, "
		 "%u regions, %u irq types", path, v->conn.caps.major, v->conn.caps.minor,
		 v->conn.caps.max_msg_fds, v->conn.caps.max_data_xfer_size,
		 v->bus.info.num_regions, v->bus.info.num_irqs);
	*out = &v->bus;
	return 0;

err_close:
	close(v->conn.sock);
err_free:
	pthread_mutex_destroy(&v->conn.lock);
	free(v);
	return rc;
}
