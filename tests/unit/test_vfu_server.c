/*
 * sim/vfu: the vfio-user server with the edu model, spoken to with raw
 * messages built here from include/zcnic/vfio_user.h (not the core/bus
 * client), so that the server is checked against the specification alone.
 *
 * Each test starts a fresh server thread on a temporary socket.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/clock.h"
#include "sim/edu/edu_hw.h"
#include "sim/log.h"
#include "sim/model.h"
#include "sim/vfu/vfu.h"
#include "zcnic/vfio_user.h"

#define WAIT_MS		3000	/* every wait in here is bounded by this */
#define IOVA		0x100000ull
#define REPLY_MAX	(ZN_VFU_MAX_MSG_SIZE + 64)

/* ---- The server under test ---- */

static struct {
	char dir[64];
	char path[96];
	struct zn_sim_device *sim;
	struct zn_vfu_loop *loop;
	pthread_t thread;
	pthread_mutex_t log_lock;
	char log[8192];
} S = { .log_lock = PTHREAD_MUTEX_INITIALIZER };

static void log_sink(enum zn_sim_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	pthread_mutex_lock(&S.log_lock);
	size_t used = strlen(S.log);
	snprintf(S.log + used, sizeof(S.log) - used, "%s: %s\n", comp, msg);
	pthread_mutex_unlock(&S.log_lock);
}

static bool log_has(const char *needle)
{
	bool found;

	pthread_mutex_lock(&S.log_lock);
	found = strstr(S.log, needle) != NULL;
	pthread_mutex_unlock(&S.log_lock);
	return found;
}

static void *loop_thread(void *arg)
{
	(void)arg;
	zn_vfu_loop_run(S.loop);
	return NULL;
}

static int start_server(const char *spec)
{
	char err[256];

	zn_sim_log_set_sink(log_sink, NULL);
	S.log[0] = '\0';
	snprintf(S.dir, sizeof(S.dir), "/tmp/zn-vfu-test-XXXXXX");
	if (!mkdtemp(S.dir))
		return -1;
	snprintf(S.path, sizeof(S.path), "%s/edu0.sock", S.dir);
	if (zn_sim_device_create(spec, &S.sim, err, sizeof(err))) {
		fprintf(stderr, "create: %s\n", err);
		return -1;
	}
	if (zn_vfu_dev_listen(S.sim->dev, S.path) || zn_vfu_loop_new(&S.loop) ||
	    zn_vfu_loop_add_dev(S.loop, S.sim->dev))
		return -1;
	return pthread_create(&S.thread, NULL, loop_thread, NULL) ? -1 : 0;
}

static int setup(void **state)
{
	(void)state;
	return start_server("edu0=edu");
}

static int teardown(void **state)
{
	(void)state;
	zn_vfu_loop_stop(S.loop);
	pthread_join(S.thread, NULL);
	zn_sim_device_free(S.sim);
	zn_vfu_loop_free(S.loop);
	rmdir(S.dir);
	zn_sim_log_set_sink(NULL, NULL);
	return 0;
}

static struct zn_vfu_stats stats(void)
{
	struct zn_vfu_stats s;

	zn_vfu_dev_stats(S.sim->dev, &s);
	return s;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Polls expr every millisecond for at most WAIT_MS. */
#define WAIT_FOR(expr)                                                  \
	do {                                                            \
		int waited_ = 0;                                        \
		while (!(expr) && waited_++ < WAIT_MS)                  \
			sleep_ms(1);                                    \
		assert_true(expr);                                      \
	} while (0)

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the DIR's own fd */
}

/* ---- A raw client ---- */

struct reply {
	struct zn_vfu_hdr hdr;
	uint8_t *data;
	uint32_t len;
	int fds[16];
	unsigned nfds;
};

static uint16_t next_id = 1;

static int cli_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", S.path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void send_raw(int fd, const void *buf, size_t len, const int *fds, unsigned nfds)
{
	union {
		char b[CMSG_SPACE(sizeof(int) * 16)];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds) {
		struct cmsghdr *cm;

		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	assert_int_equal(n, (ssize_t)len);
}

static uint16_t send_msg_flags(int fd, uint16_t cmd, uint32_t flags, const void *payload,
			       size_t len, const int *fds, unsigned nfds)
{
	uint8_t *buf = malloc(sizeof(struct zn_vfu_hdr) + len);
	struct zn_vfu_hdr h = {
		.msg_id = next_id++,
		.cmd = cmd,
		.msg_size = (uint32_t)(sizeof(h) + len),
		.flags = flags,
	};

	assert_non_null(buf);
	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), payload, len);
	send_raw(fd, buf, sizeof(h) + len, fds, nfds);
	free(buf);
	return h.msg_id;
}

static uint16_t send_msg(int fd, uint16_t cmd, const void *payload, size_t len, const int *fds,
			 unsigned nfds)
{
	return send_msg_flags(fd, cmd, ZN_VFU_F_TYPE_COMMAND, payload, len, fds, nfds);
}

/* Reads exactly len bytes; -1 on EOF or timeout. fds go to r. */
static int read_full(int fd, void *buf, size_t len, struct reply *r)
{
	size_t have = 0;

	while (have < len) {
		union {
			char b[CMSG_SPACE(sizeof(int) * 16)];
			struct cmsghdr align;
		} cbuf;
		struct iovec iov = { (uint8_t *)buf + have, len - have };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.b,
				     .msg_controllen = sizeof(cbuf.b) };
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, WAIT_MS) != 1)
			return -1;
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
		if (n <= 0)
			return -1;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k && r && r->nfds < 16; i++)
				memcpy(&r->fds[r->nfds++], CMSG_DATA(cm) + i * sizeof(int),
				       sizeof(int));
		}
		have += (size_t)n;
	}
	return 0;
}

static int recv_reply(int fd, struct reply *r)
{
	memset(r, 0, sizeof(*r));
	if (read_full(fd, &r->hdr, sizeof(r->hdr), r))
		return -1;
	assert_true(r->hdr.msg_size >= sizeof(r->hdr));
	assert_true(r->hdr.msg_size <= REPLY_MAX);
	r->len = r->hdr.msg_size - (uint32_t)sizeof(r->hdr);
	r->data = malloc(r->len + 1);
	assert_non_null(r->data);
	if (r->len && read_full(fd, r->data, r->len, r))
		return -1;
	return 0;
}

static void reply_free(struct reply *r)
{
	for (unsigned i = 0; i < r->nfds; i++)
		close(r->fds[i]);
	free(r->data);
	memset(r, 0, sizeof(*r));
}

/* No byte arrives within ms. */
static bool quiet(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 0;
}

/* The server closed the connection. */
static bool at_eof(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, WAIT_MS) != 1)
		return false;
	return recv(fd, &c, 1, 0) == 0;
}

/* Sends, waits for the reply with the same id; returns its errno (0: ok). */
static int xact_fds(int fd, uint16_t cmd, const void *payload, size_t len, const int *fds,
		    unsigned nfds, struct reply *r)
{
	uint16_t id = send_msg(fd, cmd, payload, len, fds, nfds);

	assert_int_equal(recv_reply(fd, r), 0);
	assert_int_equal(r->hdr.msg_id, id);
	assert_int_equal(r->hdr.cmd, cmd);
	assert_int_equal(r->hdr.flags & ZN_VFU_F_TYPE_MASK, ZN_VFU_F_TYPE_REPLY);
	if (r->hdr.flags & ZN_VFU_F_ERROR) {
		assert_int_equal(r->hdr.msg_size, sizeof(r->hdr));
		return (int)r->hdr.error_no;
	}
	return 0;
}

static int xact(int fd, uint16_t cmd, const void *payload, size_t len, struct reply *r)
{
	return xact_fds(fd, cmd, payload, len, NULL, 0, r);
}

/* The same, dropping the reply. */
static int call(int fd, uint16_t cmd, const void *payload, size_t len, const int *fds,
		unsigned nfds)
{
	struct reply r;
	int err = xact_fds(fd, cmd, payload, len, fds, nfds, &r);

	reply_free(&r);
	return err;
}

static int version(int fd, uint16_t major, uint16_t minor, const char *json, struct reply *r)
{
	size_t jl = json ? strlen(json) + 1 : 0;
	uint8_t buf[512];
	struct zn_vfu_version v = { major, minor };

	memcpy(buf, &v, sizeof(v));
	if (jl)
		memcpy(buf + sizeof(v), json, jl);
	return xact(fd, ZN_VFU_VERSION, buf, sizeof(v) + jl, r);
}

static int connect_ready(void)
{
	int fd = cli_connect();
	struct reply r;

	assert_int_equal(version(fd, 0, 2, "{\"capabilities\":{\"max_msg_fds\":16,"
				 "\"max_data_xfer_size\":1048576}}", &r), 0);
	reply_free(&r);
	return fd;
}

static int region_rw(int fd, uint32_t region, uint64_t off, void *buf, uint32_t count,
		     bool write)
{
	uint8_t *msg = malloc(sizeof(struct zn_vfu_region_access) + count);
	struct zn_vfu_region_access a = { .offset = off, .region = region, .count = count };
	struct reply r;
	int err;

	assert_non_null(msg);
	memcpy(msg, &a, sizeof(a));
	if (write)
		memcpy(msg + sizeof(a), buf, count);
	err = xact(fd, write ? ZN_VFU_REGION_WRITE : ZN_VFU_REGION_READ, msg,
		   sizeof(a) + (write ? count : 0), &r);
	if (!err) {
		struct zn_vfu_region_access out;

		assert_int_equal(r.len, sizeof(out) + (write ? 0 : count));
		memcpy(&out, r.data, sizeof(out));
		assert_int_equal(out.offset, off);
		assert_int_equal(out.region, region);
		assert_int_equal(out.count, count);
		if (!write)
			memcpy(buf, r.data + sizeof(out), count);
	}
	reply_free(&r);
	free(msg);
	return err;
}

static uint64_t rd(int fd, uint32_t region, uint64_t off, uint32_t size)
{
	uint64_t v = 0;

	assert_int_equal(region_rw(fd, region, off, &v, size, false), 0);
	return v;
}

static void wr(int fd, uint32_t region, uint64_t off, uint64_t v, uint32_t size)
{
	assert_int_equal(region_rw(fd, region, off, &v, size, true), 0);
}

#define CFG ZN_VFU_PCI_CONFIG_REGION

static void enable(int fd, uint16_t bits)
{
	wr(fd, CFG, 0x04, bits, 2);
	assert_int_equal(rd(fd, CFG, 0x04, 2), bits);
}

#define MEM_MASTER 0x6

static int dma_map(int fd, uint64_t iova, uint64_t size, uint64_t offset, uint32_t flags,
		   int memfd)
{
	struct zn_vfu_dma_map m = { sizeof(m), flags, offset, iova, size };

	return call(fd, ZN_VFU_DMA_MAP, &m, sizeof(m), &memfd, memfd >= 0 ? 1 : 0);
}

static int dma_unmap(int fd, uint64_t iova, uint64_t size, struct reply *r)
{
	struct zn_vfu_dma_unmap u = { sizeof(u), 0, iova, size };

	return xact(fd, ZN_VFU_DMA_UNMAP, &u, sizeof(u), r);
}

static int set_irqs(int fd, uint32_t flags, uint32_t index, uint32_t start, uint32_t count,
		    const int *fds, unsigned nfds)
{
	struct zn_vfu_irq_set s = { sizeof(s), flags, index, start, count };

	return call(fd, ZN_VFU_DEVICE_SET_IRQS, &s, sizeof(s), fds, nfds);
}

#define EVT (ZN_VFU_IRQ_SET_DATA_EVENTFD | ZN_VFU_IRQ_SET_ACTION_TRIGGER)

/* The eventfd fires within WAIT_MS; returns its counter. */
static uint64_t efd_wait(int efd)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	uint64_t v = 0;

	if (poll(&p, 1, WAIT_MS) != 1)
		return 0;
	assert_int_equal(read(efd, &v, sizeof(v)), sizeof(v));
	return v;
}

static bool efd_quiet(int efd, int ms)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };

	return poll(&p, 1, ms) == 0;
}

static int new_memfd(size_t size)
{
	int fd = memfd_create("test-dma", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	return fd;
}

static void edu_dma(int fd, uint64_t src, uint64_t dst, uint64_t cnt, uint64_t cmd)
{
	wr(fd, 0, EDU_REG_DMA_SRC, src, 8);
	wr(fd, 0, EDU_REG_DMA_DST, dst, 8);
	wr(fd, 0, EDU_REG_DMA_CNT, cnt, 8);
	wr(fd, 0, EDU_REG_DMA_CMD, cmd, 8);
	WAIT_FOR(!(rd(fd, 0, EDU_REG_DMA_CMD, 8) & EDU_DMA_CMD_RUN));
}

/* ---- VERSION ---- */

static struct json_object *reply_caps(const struct reply *r)
{
	struct json_object *top, *caps;
	const char *js = (const char *)r->data + sizeof(struct zn_vfu_version);

	assert_true(r->len > sizeof(struct zn_vfu_version));
	assert_int_equal(r->data[r->len - 1], '\0');
	top = json_tokener_parse(js);
	assert_non_null(top);
	assert_true(json_object_object_get_ex(top, "capabilities", &caps));
	json_object_get(caps);
	json_object_put(top);
	return caps;
}

static int64_t cap_int(struct json_object *caps, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(caps, key, &v))
		return -1;
	return json_object_get_int64(v);
}

static void test_version_with_json(void **state)
{
	int fd = cli_connect();
	struct reply r;
	struct zn_vfu_version v;
	struct json_object *caps;

	(void)state;
	assert_int_equal(version(fd, 0, 7,
				 "{\"capabilities\":{\"max_msg_fds\":16,\"max_data_xfer_size\":"
				 "65536,\"pgsizes\":2101248,\"max_dma_maps\":100,\"migration\":"
				 "{\"pgsize\":4096},\"write_multiple\":true}}", &r), 0);
	memcpy(&v, r.data, sizeof(v));
	assert_int_equal(v.major, 0);
	assert_int_equal(v.minor, ZN_VFU_VERSION_MINOR);	/* min(7, ours) */
	caps = reply_caps(&r);
	/* our limits, for the keys the client named; nothing it did not */
	assert_int_equal(cap_int(caps, "max_msg_fds"), ZN_VFU_MAX_MSG_FDS);
	assert_int_equal(cap_int(caps, "max_data_xfer_size"), ZN_VFU_MAX_XFER);
	assert_int_equal(cap_int(caps, "pgsizes"), 2101248);	/* 4K | 2M, both ours */
	assert_int_equal(cap_int(caps, "max_dma_maps"), 100);
	assert_false(json_object_object_get_ex(caps, "migration", NULL));
	assert_false(json_object_object_get_ex(caps, "write_multiple", NULL));
	json_object_put(caps);
	reply_free(&r);

	/* QEMU proposes 0.0: the minor follows it down */
	close(fd);
	WAIT_FOR(stats().disconnects == 1);
	fd = cli_connect();
	assert_int_equal(version(fd, 0, 0, "{\"capabilities\":{\"max_msg_fds\":1}}", &r), 0);
	memcpy(&v, r.data, sizeof(v));
	assert_int_equal(v.minor, 0);
	caps = reply_caps(&r);
	assert_int_equal(cap_int(caps, "max_msg_fds"), ZN_VFU_MAX_MSG_FDS);
	assert_int_equal(cap_int(caps, "max_data_xfer_size"), -1);
	json_object_put(caps);
	reply_free(&r);
	assert_int_equal(stats().msgs[ZN_VFU_VERSION], 2);
	close(fd);
}

static void test_version_without_json(void **state)
{
	int fd = cli_connect();
	struct reply r;
	struct json_object *caps;
	struct zn_vfu_device_info info = { .argsz = sizeof(info) };

	(void)state;
	assert_int_equal(version(fd, 0, 2, NULL, &r), 0);
	caps = reply_caps(&r);
	/* nothing proposed, nothing answered: the client assumes defaults */
	assert_int_equal(json_object_object_length(caps), 0);
	json_object_put(caps);
	reply_free(&r);
	/* a client that said nothing gets no fd-less surprise: defaults work */
	assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_INFO, &info, sizeof(info), &r), 0);
	reply_free(&r);
	close(fd);
}

static void test_version_wrong_major_rejected(void **state)
{
	int fd = cli_connect();
	struct reply r;

	(void)state;
	assert_int_equal(version(fd, 1, 0, NULL, &r), ENOTSUP);
	reply_free(&r);
	assert_true(at_eof(fd));
	close(fd);
	assert_int_equal(stats().errors[ZN_VFU_ERR_BAD_VERSION], 1);
	assert_true(log_has("unsupported major version"));
	/* the next client is served */
	fd = connect_ready();
	close(fd);
}

static void test_version_bad_json_rejected(void **state)
{
	static const char *bad[] = {
		"{\"capabilities\":{\"max_msg_fds\":\"many\"}}",
		"{\"capabilities\":[]}",
		"not json",
		"{\"capabilities\":{\"max_msg_fds\":2000}}",
		"{\"capabilities\":{\"pgsizes\":512}}",	/* no page size in common */
	};
	struct reply r;

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int fd = cli_connect();

		assert_int_equal(version(fd, 0, 0, bad[i], &r), EINVAL);
		reply_free(&r);
		assert_true(at_eof(fd));
		close(fd);
	}
	/* JSON without its NUL */
	{
		int fd = cli_connect();
		uint8_t buf[16] = { 0, 0, 0, 0, '{', '}' };

		assert_int_equal(xact(fd, ZN_VFU_VERSION, buf, 6, &r), EINVAL);
		reply_free(&r);
		close(fd);
	}
	assert_int_equal(stats().errors[ZN_VFU_ERR_BAD_JSON], 6);
}

static void test_command_before_version_rejected(void **state)
{
	int fd = cli_connect();
	struct zn_vfu_device_info info = { .argsz = sizeof(info) };
	struct reply r;

	(void)state;
	assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_INFO, &info, sizeof(info), &r), EINVAL);
	reply_free(&r);
	assert_true(at_eof(fd));
	close(fd);
	assert_int_equal(stats().errors[ZN_VFU_ERR_NOT_NEGOTIATED], 1);
	fd = connect_ready();
	/* and a second VERSION is refused, the connection stays */
	assert_int_equal(version(fd, 0, 0, NULL, &r), EINVAL);
	reply_free(&r);
	assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_INFO, &info, sizeof(info), &r), 0);
	reply_free(&r);
	assert_int_equal(stats().errors[ZN_VFU_ERR_VERSION_AGAIN], 1);
	close(fd);
}

/* ---- Discovery ---- */

static void test_device_info(void **state)
{
	int fd = connect_ready();
	struct zn_vfu_device_info info = { .argsz = 4096 }, out;
	struct reply r;

	(void)state;
	assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_INFO, &info, sizeof(info), &r), 0);
	assert_int_equal(r.len, sizeof(out));
	memcpy(&out, r.data, sizeof(out));
	assert_int_equal(out.argsz, sizeof(out));
	assert_int_equal(out.flags, ZN_VFU_DEV_F_PCI | ZN_VFU_DEV_F_RESET);
	assert_int_equal(out.num_regions, 9);
	assert_int_equal(out.num_irqs, 5);
	reply_free(&r);

	info.argsz = 8;
	assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_INFO, &info, sizeof(info), &r), EINVAL);
	reply_free(&r);
	info.argsz = 16;
	info.num_irqs = 3;
	assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_INFO, &info, sizeof(info), &r), EINVAL);
	reply_free(&r);
	assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_INFO, &info, 8, &r), EINVAL);
	reply_free(&r);
	assert_int_equal(stats().errors[ZN_VFU_ERR_BAD_ARGSZ], 1);
	assert_int_equal(stats().errors[ZN_VFU_ERR_NONZERO_FIELD], 1);
	assert_int_equal(stats().errors[ZN_VFU_ERR_BAD_SIZE], 1);
	close(fd);
}

static int region_info(int fd, uint32_t index, uint32_t argsz, struct reply *r)
{
	struct zn_vfu_region_info in = { .argsz = argsz, .index = index };

	return xact(fd, ZN_VFU_DEVICE_GET_REGION_INFO, &in, sizeof(in), r);
}

static void test_region_info_all(void **state)
{
	static const uint64_t sizes[9] = { EDU_BAR0_SIZE, 0, EDU_BAR2_SIZE, 0, 0, 0, 0, 256, 0 };
	int fd = connect_ready();
	struct zn_vfu_region_info out;
	struct reply r;

	(void)state;
	for (uint32_t i = 0; i < 9; i++) {
		assert_int_equal(region_info(fd, i, sizeof(out), &r), 0);
		memcpy(&out, r.data, sizeof(out));
		assert_int_equal(out.index, i);
		assert_int_equal(out.size, sizes[i]);
		assert_int_equal(out.flags & (ZN_VFU_REGION_F_READ | ZN_VFU_REGION_F_WRITE),
				 sizes[i] ? 3 : 0);
		assert_int_equal(!!(out.flags & ZN_VFU_REGION_F_MMAP), i == 2);
		assert_int_equal(r.nfds, 0);
		reply_free(&r);
	}
	assert_int_equal(region_info(fd, 9, sizeof(out), &r), EINVAL);
	reply_free(&r);
	assert_int_equal(region_info(fd, 0, 16, &r), EINVAL);	/* argsz < 32 */
	reply_free(&r);
	{
		struct zn_vfu_region_info in = { .argsz = 64, .index = 0, .size = 1 };

		assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_REGION_INFO, &in, sizeof(in), &r),
				 EINVAL);
		reply_free(&r);
	}
	assert_int_equal(stats().errors[ZN_VFU_ERR_BAD_INDEX], 1);
	assert_int_equal(stats().errors[ZN_VFU_ERR_BAD_ARGSZ], 1);
	assert_int_equal(stats().errors[ZN_VFU_ERR_NONZERO_FIELD], 1);
	close(fd);
}

static void test_region_info_argsz_and_doorbell(void **state)
{
	int fd = connect_ready();
	struct zn_vfu_region_info out;
	struct zn_vfu_cap_sparse_mmap cap;
	struct zn_vfu_sparse_area area;
	const uint32_t full = sizeof(out) + sizeof(cap) + sizeof(area);
	volatile uint64_t *page;
	struct reply r;

	(void)state;
	/* argsz too small for the caps: the fixed part, the size needed, no fd */
	assert_int_equal(region_info(fd, 2, sizeof(out), &r), 0);
	assert_int_equal(r.len, sizeof(out));
	memcpy(&out, r.data, sizeof(out));
	assert_int_equal(out.argsz, full);
	assert_true(out.flags & ZN_VFU_REGION_F_MMAP);
	assert_false(out.flags & ZN_VFU_REGION_F_CAPS);
	assert_int_equal(out.cap_offset, 0);
	assert_int_equal(r.nfds, 0);
	reply_free(&r);
	assert_int_equal(region_info(fd, 2, full - 1, &r), 0);
	assert_int_equal(r.nfds, 0);
	reply_free(&r);

	/* big enough: the sparse area and one fd */
	assert_int_equal(region_info(fd, 2, 4096, &r), 0);
	assert_int_equal(r.len, full);
	assert_int_equal(r.nfds, 1);
	memcpy(&out, r.data, sizeof(out));
	memcpy(&cap, r.data + out.cap_offset, sizeof(cap));
	memcpy(&area, r.data + out.cap_offset + sizeof(cap), sizeof(area));
	assert_int_equal(out.argsz, full);
	assert_int_equal(out.flags, ZN_VFU_REGION_F_READ | ZN_VFU_REGION_F_WRITE |
				    ZN_VFU_REGION_F_MMAP | ZN_VFU_REGION_F_CAPS);
	assert_int_equal(out.cap_offset, sizeof(out));
	assert_int_equal(out.size, EDU_BAR2_SIZE);
	assert_int_equal(cap.header.id, ZN_VFU_REGION_CAP_SPARSE_MMAP);
	assert_int_equal(cap.header.version, 1);
	assert_int_equal(cap.header.next, 0);
	assert_int_equal(cap.nr_areas, 1);
	assert_int_equal(area.offset, 0);
	assert_int_equal(area.size, 4096);

	page = mmap(NULL, area.size, PROT_READ | PROT_WRITE, MAP_SHARED, r.fds[0],
		    (off_t)(out.offset + area.offset));
	assert_true(page != MAP_FAILED);
	reply_free(&r);

	/* the doorbell: a plain store, echoed by the model */
	enable(fd, 0x2);
	page[EDU_DB_ECHO_DOORBELL / 8] = 0x1234;
	WAIT_FOR(page[EDU_DB_ECHO / 8] == 0x1234);
	assert_int_equal(page[EDU_DB_REACTIONS / 8], 1);
	page[EDU_DB_ECHO_DOORBELL / 8] = 0xabcdef;
	WAIT_FOR(page[EDU_DB_ECHO / 8] == 0xabcdef);
	assert_int_equal(page[EDU_DB_REACTIONS / 8], 2);
	/* messages reach the mapped page too */
	assert_int_equal(rd(fd, 2, EDU_DB_ECHO, 8), 0xabcdef);
	wr(fd, 2, EDU_DB_ECHO_DOORBELL, 77, 8);
	WAIT_FOR(page[EDU_DB_ECHO / 8] == 77);

	/* stores with memory decoding off never reach the device */
	enable(fd, 0);
	page[EDU_DB_ECHO_DOORBELL / 8] = 99;
	sleep_ms(20);
	enable(fd, 0x2);
	sleep_ms(20);
	assert_int_equal(page[EDU_DB_ECHO / 8], 77);
	munmap((void *)page, 4096);
	close(fd);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Store-to-reaction latency of a polled doorbell: informative numbers, and
 * every doorbell must be seen (each wait is bounded). */
static void test_doorbell_latency(void **state)
{
	enum { N = 200 };
	int fd = connect_ready();
	uint64_t lat[N];
	volatile uint64_t *page;
	struct reply r;

	(void)state;
	assert_int_equal(region_info(fd, 2, 4096, &r), 0);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, r.fds[0], 0);
	assert_true(page != MAP_FAILED);
	reply_free(&r);
	enable(fd, 0x2);
	for (int i = 0; i < N; i++) {
		uint64_t v = 1000 + (uint64_t)i, t0 = zn_now_ns();

		if (i == N / 2)
			sleep_ms(5);	/* let the loop back off once: the slow path */
		t0 = zn_now_ns();
		__atomic_store_n(&page[EDU_DB_ECHO_DOORBELL / 8], v, __ATOMIC_RELEASE);
		while (__atomic_load_n(&page[EDU_DB_ECHO / 8], __ATOMIC_ACQUIRE) != v)
			assert_true(zn_now_ns() - t0 < WAIT_MS * 1000000ull);
		lat[i] = zn_now_ns() - t0;
	}
	assert_int_equal(page[EDU_DB_REACTIONS / 8], N);
	qsort(lat, N, sizeof(lat[0]), cmp_u64);
	print_message("doorbell -> model reaction: median %.1f us, p99 %.1f us, max %.1f us\n",
		      lat[N / 2] / 1e3, lat[N * 99 / 100] / 1e3, lat[N - 1] / 1e3);
	munmap((void *)page, 4096);
	close(fd);
}

/* A client that cannot take fds (max_msg_fds 0) is offered no mapping, and
 * reaches the doorbell page by message instead. */
static void test_region_info_no_fds_client(void **state)
{
	int fd = cli_connect();
	struct zn_vfu_region_info out;
	struct reply r;

	(void)state;
	assert_int_equal(version(fd, 0, 2, "{\"capabilities\":{\"max_msg_fds\":0}}", &r), 0);
	reply_free(&r);
	assert_int_equal(region_info(fd, 2, 4096, &r), 0);
	assert_int_equal(r.len, sizeof(out));
	assert_int_equal(r.nfds, 0);
	memcpy(&out, r.data, sizeof(out));
	assert_int_equal(out.argsz, sizeof(out));
	assert_int_equal(out.flags, ZN_VFU_REGION_F_READ | ZN_VFU_REGION_F_WRITE);
	reply_free(&r);
	enable(fd, 0x2);
	wr(fd, 2, EDU_DB_ECHO_DOORBELL, 42, 8);
	WAIT_FOR(rd(fd, 2, EDU_DB_ECHO, 8) == 42);
	close(fd);
}

static void test_config_space(void **state)
{
	int fd = connect_ready();
	uint8_t c[256];

	(void)state;
	assert_int_equal(region_rw(fd, CFG, 0, c, sizeof(c), false), 0);
	assert_int_equal(c[0] | c[1] << 8, EDU_VENDOR_ID);
	assert_int_equal(c[2] | c[3] << 8, EDU_DEVICE_ID);
	assert_int_equal(c[0x06] & 0x10, 0x10);			/* capability list */
	assert_int_equal(c[0x08], EDU_REVISION);
	assert_int_equal(c[0x09], 0x00);
	assert_int_equal(c[0x0a], 0xff);
	assert_int_equal(c[0x0b], 0x00);
	assert_int_equal(c[0x0e], 0x00);			/* type 0 */
	assert_int_equal(c[0x2c] | c[0x2d] << 8, EDU_SUBSYS_VENDOR_ID);
	assert_int_equal(c[0x2e] | c[0x2f] << 8, EDU_SUBSYS_ID);
	assert_int_equal(c[0x3d], 1);				/* INTA# */
	assert_int_equal(c[0x34], 0x40);
	assert_int_equal(c[0x40], 0x05);			/* MSI */
	assert_int_equal(c[0x41], 0x50);
	assert_int_equal(c[0x42] & 0x80, 0x80);			/* 64-bit */
	assert_int_equal(c[0x42] & 0x0e, 0);			/* 1 vector */
	assert_int_equal(c[0x50], 0x11);			/* MSI-X */
	assert_int_equal(c[0x51], 0);
	assert_int_equal((c[0x52] | c[0x53] << 8) & 0x7ff, EDU_MSIX_VECTORS - 1);
	assert_int_equal(rd(fd, CFG, 0x54, 4), EDU_MSIX_TABLE | 2);
	assert_int_equal(rd(fd, CFG, 0x58, 4), EDU_MSIX_PBA | 2);
	assert_int_equal(rd(fd, CFG, 0x10, 4), 0);		/* 32-bit memory BAR */

	/* BAR sizing: all-ones reads back the size mask */
	wr(fd, CFG, 0x10, 0xffffffff, 4);
	assert_int_equal(rd(fd, CFG, 0x10, 4), 0xfff00000);
	wr(fd, CFG, 0x18, 0xffffffff, 4);
	assert_int_equal(rd(fd, CFG, 0x18, 4), 0xffffe000);
	wr(fd, CFG, 0x14, 0xffffffff, 4);
	assert_int_equal(rd(fd, CFG, 0x14, 4), 0);		/* unimplemented */
	wr(fd, CFG, 0x10, 0xfe000000, 4);
	assert_int_equal(rd(fd, CFG, 0x10, 4), 0xfe000000);
	/* read-only IDs, writable COMMAND bits only */
	wr(fd, CFG, 0x00, 0xdeadbeef, 4);
	assert_int_equal(rd(fd, CFG, 0x00, 4), 0x11e81234);
	wr(fd, CFG, 0x04, 0xffff, 2);
	assert_int_equal(rd(fd, CFG, 0x04, 2), 0x0547);
	/* MSI enable and address are writable, capability bits are not */
	wr(fd, CFG, 0x42, 0xffff, 2);
	assert_int_equal(rd(fd, CFG, 0x42, 2), 0x00f1);
	/* out of range */
	assert_int_equal(region_rw(fd, CFG, 250, c, 8, false), EINVAL);
	assert_int_equal(stats().errors[ZN_VFU_ERR_BAD_RANGE], 1);
	close(fd);
}

/* ---- BAR0 registers ---- */

static void test_bar0_registers(void **state)
{
	int fd = connect_ready();
	uint32_t v;

	(void)state;
	/* memory decoding off: vfio-pci's -EIO */
	assert_int_equal(region_rw(fd, 0, EDU_REG_ID, &v, 4, false), EIO);
	assert_int_equal(stats().errors[ZN_VFU_ERR_MEM_DISABLED], 1);
	enable(fd, 0x2);
	assert_int_equal(rd(fd, 0, EDU_REG_ID, 4), EDU_ID_VALUE);
	wr(fd, 0, EDU_REG_LIVENESS, 0x12345678, 4);
	assert_int_equal(rd(fd, 0, EDU_REG_LIVENESS, 4), 0xedcba987);
	/* wrong sizes read all-ones and are ignored */
	assert_int_equal(rd(fd, 0, EDU_REG_ID, 2), 0xffff);
	assert_int_equal(rd(fd, 0, EDU_REG_ID, 8), 0xffffffffffffffffull);
	wr(fd, 0, EDU_REG_LIVENESS, 1, 2);
	assert_int_equal(rd(fd, 0, EDU_REG_LIVENESS, 4), 0xedcba987);
	assert_int_equal(rd(fd, 0, 0x1000, 4), 0xffffffff);	/* nothing there */
	/* factorial */
	wr(fd, 0, EDU_REG_FACT, 10, 4);
	WAIT_FOR(!(rd(fd, 0, EDU_REG_STATUS, 4) & EDU_STATUS_COMPUTING));
	assert_int_equal(rd(fd, 0, EDU_REG_FACT, 4), 3628800);
	wr(fd, 0, EDU_REG_FACT, 40, 4);
	WAIT_FOR(!(rd(fd, 0, EDU_REG_STATUS, 4) & EDU_STATUS_COMPUTING));
	assert_int_equal(rd(fd, 0, EDU_REG_FACT, 4), 0);	/* 40! mod 2^32 */
	/* 64-bit DMA registers, 4-byte halves */
	wr(fd, 0, EDU_REG_DMA_SRC, 0x1122334455667788ull, 8);
	assert_int_equal(rd(fd, 0, EDU_REG_DMA_SRC, 8), 0x1122334455667788ull);
	assert_int_equal(rd(fd, 0, EDU_REG_DMA_SRC, 4), 0x55667788);
	/* the last byte of BAR0 is addressable, one past is not */
	assert_int_equal(rd(fd, 0, EDU_BAR0_SIZE - 4, 4), 0xffffffff);
	assert_int_equal(region_rw(fd, 0, EDU_BAR0_SIZE - 2, &v, 4, false), EINVAL);
	close(fd);
}

/* ---- DMA ---- */

static void test_dma_both_ways(void **state)
{
	int fd = connect_ready();
	int mfd = new_memfd(3 * 4096);
	uint8_t *mem = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	struct zn_vfu_dma_unmap u;
	struct reply r;

	(void)state;
	assert_true(mem != MAP_FAILED);
	for (int i = 0; i < 4096; i++)
		mem[4096 + i] = (uint8_t)(i * 7 + 3);
	/* the window is pages 1-2 of the memfd, at IOVA 1 MiB */
	assert_int_equal(dma_map(fd, IOVA, 2 * 4096, 4096,
				 ZN_VFU_DMA_F_READ | ZN_VFU_DMA_F_WRITE, mfd), 0);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 1);
	enable(fd, MEM_MASTER);
	edu_dma(fd, IOVA, EDU_DMA_BUF_ADDR, 4096, EDU_DMA_CMD_RUN);
	edu_dma(fd, EDU_DMA_BUF_ADDR, IOVA + 4096, 4096, EDU_DMA_CMD_RUN | EDU_DMA_CMD_TO_RAM);
	assert_memory_equal(mem + 2 * 4096, mem + 4096, 4096);
	/* a part of the buffer, to an offset */
	memset(mem + 2 * 4096, 0, 4096);
	edu_dma(fd, EDU_DMA_BUF_ADDR + 100, IOVA + 4096 + 8, 50,
		EDU_DMA_CMD_RUN | EDU_DMA_CMD_TO_RAM);
	assert_memory_equal(mem + 2 * 4096 + 8, mem + 4096 + 100, 50);
	assert_int_equal(mem[2 * 4096 + 7], 0);
	assert_int_equal(mem[2 * 4096 + 58], 0);

	/* unmap echoes the entry; the window is gone */
	assert_int_equal(dma_unmap(fd, IOVA, 2 * 4096, &r), 0);
	assert_int_equal(r.len, sizeof(u));
	memcpy(&u, r.data, sizeof(u));
	assert_int_equal(u.argsz, sizeof(u));
	assert_int_equal(u.flags, 0);
	assert_int_equal(u.addr, IOVA);
	assert_int_equal(u.size, 2 * 4096);
	reply_free(&r);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 0);
	assert_int_equal(stats().dma_maps, 1);
	assert_int_equal(stats().dma_unmaps, 1);
	/* and the device can no longer reach it */
	memset(mem + 2 * 4096, 0xee, 4096);
	edu_dma(fd, EDU_DMA_BUF_ADDR, IOVA + 4096, 16, EDU_DMA_CMD_RUN | EDU_DMA_CMD_TO_RAM);
	assert_int_equal(mem[2 * 4096], 0xee);
	assert_int_equal(stats().dma_err_unmapped, 1);
	munmap(mem, 3 * 4096);
	close(mfd);
	close(fd);
}

static void test_dma_fault_reported(void **state)
{
	int fd = connect_ready();
	int mfd = new_memfd(4096);
	uint32_t id;

	(void)state;
	assert_int_equal(dma_map(fd, IOVA, 4096, 0, ZN_VFU_DMA_F_READ | ZN_VFU_DMA_F_WRITE, mfd),
			 0);
	enable(fd, MEM_MASTER);
	/* outside any window */
	edu_dma(fd, 0x300000, EDU_DMA_BUF_ADDR, 64, EDU_DMA_CMD_RUN);
	/* straddling the end of the window */
	edu_dma(fd, EDU_DMA_BUF_ADDR, IOVA + 4096 - 8, 16, EDU_DMA_CMD_RUN | EDU_DMA_CMD_TO_RAM);
	assert_int_equal(stats().dma_err_unmapped, 2);
	assert_int_equal(rd(fd, 2, EDU_DB_DMA_ERRORS, 8), 2);
	/* Received Master Abort latched in PCI status, write-1-to-clear */
	assert_int_equal(rd(fd, CFG, 0x06, 2) & 0x2000, 0x2000);
	wr(fd, CFG, 0x06, 0x2000, 2);
	assert_int_equal(rd(fd, CFG, 0x06, 2) & 0x2000, 0);
	assert_true(log_has("not mapped"));
	/* a device-side range outside its buffer moves nothing and is counted */
	edu_dma(fd, IOVA, EDU_DMA_BUF_ADDR + 4000, 200, EDU_DMA_CMD_RUN);
	/* 28-bit mask: 0x10100000 is clamped to 0x100000, which is mapped */
	edu_dma(fd, 0x10000000 | IOVA, EDU_DMA_BUF_ADDR, 16, EDU_DMA_CMD_RUN);
	assert_int_equal(stats().dma_err_unmapped, 2);
	assert_true(log_has("clamping DMA"));
	/* the device still works */
	id = (uint32_t)rd(fd, 0, EDU_REG_ID, 4);
	assert_int_equal(id, EDU_ID_VALUE);
	close(mfd);
	close(fd);
}

static volatile sig_atomic_t sigbus_seen;

/* Counts sent SIGBUSes; a fault that gets here escaped the server's guard. */
static void count_sigbus(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] = "test_vfu_server: a DMA fault reached the old SIGBUS handler\n";

	(void)sig;
	(void)uc;
	if (si->si_code > 0) {
		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(98);
		_exit(99);
	}
	sigbus_seen++;
}

/*
 * A client that shrinks its DMA file after DMA_MAP: the model's next copy
 * into the lost page faults (SIGBUS). The server survives, counts the error
 * and the device reports it, as a DMA the host did not complete.
 */
static void test_dma_truncated_file(void **state)
{
	int fd = connect_ready();
	int mfd = new_memfd(2 * 4096);
	uint8_t *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	struct sigaction mine = { .sa_sigaction = count_sigbus, .sa_flags = SA_SIGINFO }, old;

	(void)state;
	assert_true(mem != MAP_FAILED);
	for (int i = 0; i < 64; i++)
		mem[i] = (uint8_t)(i + 1);
	/* Ours, standing for whatever handled SIGBUS before the server came. */
	assert_int_equal(sigaction(SIGBUS, &mine, &old), 0);
	sigbus_seen = 0;
	assert_int_equal(dma_map(fd, IOVA, 2 * 4096, 0, ZN_VFU_DMA_F_READ | ZN_VFU_DMA_F_WRITE,
				 mfd), 0);
	enable(fd, MEM_MASTER);
	assert_int_equal(ftruncate(mfd, 4096), 0);	/* page 1 of the window is gone */
	edu_dma(fd, IOVA + 4096 + 64, EDU_DMA_BUF_ADDR, 64, EDU_DMA_CMD_RUN);
	edu_dma(fd, EDU_DMA_BUF_ADDR, IOVA + 4096, 64, EDU_DMA_CMD_RUN | EDU_DMA_CMD_TO_RAM);
	assert_int_equal(stats().dma_err_bus, 2);
	assert_int_equal(stats().dma_err_unmapped, 0);
	assert_int_equal(rd(fd, 2, EDU_DB_DMA_ERRORS, 8), 2);
	assert_int_equal(rd(fd, CFG, 0x06, 2) & 0x2000, 0x2000);	/* master abort */
	assert_true(log_has("DMA [0x101040, +0x40) refused: the client's memory behind the "
			    "window is gone (file truncated after DMA_MAP?)"));
	assert_int_equal(sigbus_seen, 0);

	/* The page still there still works, both ways. */
	edu_dma(fd, IOVA, EDU_DMA_BUF_ADDR, 64, EDU_DMA_CMD_RUN);
	edu_dma(fd, EDU_DMA_BUF_ADDR, IOVA + 1024, 64, EDU_DMA_CMD_RUN | EDU_DMA_CMD_TO_RAM);
	assert_memory_equal(mem + 1024, mem, 64);
	assert_int_equal(stats().dma_err_bus, 2);
	assert_int_equal(rd(fd, 0, EDU_REG_ID, 4), EDU_ID_VALUE);

	/* A SIGBUS that is no DMA copy's still reaches the handler before ours. */
	assert_int_equal(raise(SIGBUS), 0);
	assert_int_equal(sigbus_seen, 1);
	assert_int_equal(stats().dma_err_bus, 2);
	assert_int_equal(sigaction(SIGBUS, &old, NULL), 0);
	munmap(mem, 4096);
	close(mfd);
	close(fd);
}

static void test_dma_needs_bus_master(void **state)
{
	int fd = connect_ready();
	int mfd = new_memfd(4096);
	int efd = eventfd(0, EFD_CLOEXEC);
	uint8_t *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);

	(void)state;
	assert_true(mem != MAP_FAILED);
	memset(mem, 0x5a, 4096);
	assert_int_equal(dma_map(fd, IOVA, 4096, 0, ZN_VFU_DMA_F_READ | ZN_VFU_DMA_F_WRITE, mfd),
			 0);
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSI_IRQ, 0, 1, &efd, 1), 0);
	enable(fd, 0x2);	/* memory only */
	/* completes (RUN clears) but moves nothing and signals nothing */
	edu_dma(fd, EDU_DMA_BUF_ADDR, IOVA, 64, EDU_DMA_CMD_RUN | EDU_DMA_CMD_TO_RAM |
		EDU_DMA_CMD_IRQ);
	assert_int_equal(mem[0], 0x5a);
	assert_int_equal(stats().dma_err_no_master, 1);
	assert_int_equal(stats().irq_no_master, 1);
	assert_true(efd_quiet(efd, 20));
	assert_int_equal(rd(fd, 0, EDU_REG_IRQ_STATUS, 4), EDU_IRQ_DMA);
	/* with bus mastering it works */
	wr(fd, 0, EDU_REG_IRQ_ACK, EDU_IRQ_DMA, 4);
	enable(fd, MEM_MASTER);
	edu_dma(fd, EDU_DMA_BUF_ADDR, IOVA, 64, EDU_DMA_CMD_RUN | EDU_DMA_CMD_TO_RAM |
		EDU_DMA_CMD_IRQ);
	assert_int_equal(mem[0], 0);
	assert_int_equal(efd_wait(efd), 1);
	munmap(mem, 4096);
	close(mfd);
	close(efd);
	close(fd);
}

static void test_dma_map_errors(void **state)
{
	int fd = connect_ready();
	int mfd = new_memfd(4 * 4096), small = new_memfd(4096), efd = eventfd(0, EFD_CLOEXEC);
	int two[2] = { mfd, small };
	struct zn_vfu_dma_map m = { 31, ZN_VFU_DMA_F_READ, 0, IOVA, 4096 };
	int base;
	struct reply r;

	(void)state;
	base = count_fds();
	assert_int_equal(dma_map(fd, IOVA, 2 * 4096, 0, 3, mfd), 0);
	assert_int_equal(dma_map(fd, IOVA + 4096, 4096, 0, 3, mfd), EEXIST);	/* overlap */
	assert_int_equal(dma_map(fd, IOVA - 4096, 2 * 4096, 0, 3, mfd), EEXIST);
	assert_int_equal(dma_map(fd, IOVA + 0x10000 + 1, 4096, 0, 3, mfd), EINVAL); /* align */
	assert_int_equal(dma_map(fd, IOVA + 0x10000, 2 * 4096, 0, 3, small), EINVAL); /* past EOF */
	assert_int_equal(dma_map(fd, IOVA + 0x10000, 4096, 0, 3, efd), EINVAL);	/* not a file */
	assert_int_equal(dma_map(fd, IOVA + 0x10000, 4096, 0, 0x10, mfd), EINVAL);	/* flags */
	assert_int_equal(dma_map(fd, IOVA + 0x10000, 0, 0, 3, mfd), EINVAL);	/* empty */
	assert_int_equal(call(fd, ZN_VFU_DMA_MAP, &m, sizeof(m), &mfd, 1), EINVAL);	/* argsz */
	m.argsz = sizeof(m);
	assert_int_equal(call(fd, ZN_VFU_DMA_MAP, &m, sizeof(m), two, 2), EINVAL);	/* 2 fds */
	assert_int_equal(call(fd, ZN_VFU_DMA_MAP, &m, sizeof(m) - 8, &mfd, 1), EINVAL);
	/* every fd that came with a refused message was closed */
	assert_int_equal(count_fds(), base);

	assert_int_equal(dma_unmap(fd, IOVA + 0x40000, 4096, &r), ENOENT);
	reply_free(&r);
	assert_int_equal(dma_unmap(fd, IOVA, 4096, &r), EINVAL);	/* not exact */
	reply_free(&r);
	{
		struct zn_vfu_dma_unmap u = { sizeof(u), 2, IOVA, 2 * 4096 };	/* UNMAP_ALL */

		assert_int_equal(xact(fd, ZN_VFU_DMA_UNMAP, &u, sizeof(u), &r), EINVAL);
		reply_free(&r);
	}
	/* a window without an fd is recorded but out of the device's reach */
	assert_int_equal(dma_map(fd, 0x200000, 4096, 0, 3, -1), 0);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 2);
	enable(fd, MEM_MASTER);
	edu_dma(fd, 0x200000, EDU_DMA_BUF_ADDR, 16, EDU_DMA_CMD_RUN);
	assert_int_equal(stats().dma_err_no_fd, 1);
	/* a read-only window refuses device writes */
	assert_int_equal(dma_map(fd, 0x300000, 4096, 4096, ZN_VFU_DMA_F_READ, mfd), 0);
	edu_dma(fd, EDU_DMA_BUF_ADDR, 0x300000, 16, EDU_DMA_CMD_RUN | EDU_DMA_CMD_TO_RAM);
	assert_int_equal(stats().dma_err_perm, 1);
	edu_dma(fd, 0x300000, EDU_DMA_BUF_ADDR, 16, EDU_DMA_CMD_RUN);
	assert_int_equal(stats().dma_err_perm, 1);

	{
		struct zn_vfu_stats s = stats();

		assert_int_equal(s.errors[ZN_VFU_ERR_DMA_OVERLAP], 2);
		assert_int_equal(s.errors[ZN_VFU_ERR_BAD_RANGE], 2);
		assert_int_equal(s.errors[ZN_VFU_ERR_BAD_FD], 2);
		assert_int_equal(s.errors[ZN_VFU_ERR_BAD_FLAGS], 2);
		assert_int_equal(s.errors[ZN_VFU_ERR_BAD_ARGSZ], 1);
		assert_int_equal(s.errors[ZN_VFU_ERR_TOO_MANY_FDS], 1);
		assert_int_equal(s.errors[ZN_VFU_ERR_BAD_SIZE], 1);
		assert_int_equal(s.errors[ZN_VFU_ERR_DMA_NOT_FOUND], 1);
		assert_int_equal(s.errors[ZN_VFU_ERR_DMA_PARTIAL], 1);
		assert_int_equal(s.dma_maps, 3);
	}
	close(mfd);
	close(small);
	close(efd);
	close(fd);
}

/* ---- Interrupts ---- */

static void test_irq_info(void **state)
{
	static const uint32_t count[5] = { 1, 1, EDU_MSIX_VECTORS, 1, 1 };
	int fd = connect_ready();
	struct zn_vfu_irq_info in = { .argsz = sizeof(in) }, out;
	struct reply r;

	(void)state;
	for (uint32_t i = 0; i < 5; i++) {
		in.index = i;
		assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_IRQ_INFO, &in, sizeof(in), &r), 0);
		assert_int_equal(r.len, sizeof(out));
		memcpy(&out, r.data, sizeof(out));
		assert_int_equal(out.argsz, sizeof(out));
		assert_int_equal(out.index, i);
		assert_int_equal(out.count, count[i]);
		assert_true(out.flags & ZN_VFU_IRQ_INFO_EVENTFD);
		assert_false(out.flags & ZN_VFU_IRQ_INFO_NORESIZE);
		reply_free(&r);
	}
	in.index = 5;
	assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_IRQ_INFO, &in, sizeof(in), &r), EINVAL);
	reply_free(&r);
	close(fd);
}

static void test_msi_interrupts(void **state)
{
	int fd = connect_ready();
	int efd = eventfd(0, EFD_CLOEXEC);

	(void)state;
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSI_IRQ, 0, 1, &efd, 1), 0);
	enable(fd, MEM_MASTER);
	wr(fd, 0, EDU_REG_IRQ_RAISE, 0x1, 4);
	assert_int_equal(efd_wait(efd), 1);
	assert_int_equal(rd(fd, 0, EDU_REG_IRQ_STATUS, 4), 1);
	wr(fd, 0, EDU_REG_IRQ_ACK, 0x1, 4);
	assert_int_equal(rd(fd, 0, EDU_REG_IRQ_STATUS, 4), 0);
	/* the factorial interrupt */
	wr(fd, 0, EDU_REG_STATUS, EDU_STATUS_IRQFACT, 4);
	wr(fd, 0, EDU_REG_FACT, 4, 4);
	assert_int_equal(efd_wait(efd), 1);
	assert_int_equal(rd(fd, 0, EDU_REG_IRQ_STATUS, 4), EDU_IRQ_FACT);
	assert_int_equal(rd(fd, 0, EDU_REG_FACT, 4), 24);
	assert_int_equal(stats().irqs[ZN_VFU_PCI_MSI_IRQ], 2);
	/* disable: DATA_NONE, count 0; then raising is counted, not signalled */
	assert_int_equal(set_irqs(fd, ZN_VFU_IRQ_SET_DATA_NONE | ZN_VFU_IRQ_SET_ACTION_TRIGGER,
				  ZN_VFU_PCI_MSI_IRQ, 0, 0, NULL, 0), 0);
	wr(fd, 0, EDU_REG_IRQ_RAISE, 0x2, 4);
	assert_true(efd_quiet(efd, 20));
	assert_int_equal(stats().irq_no_eventfd, 1);	/* INTx, no eventfd */
	close(efd);
	close(fd);
}

static void test_msix_interrupts(void **state)
{
	int fd = connect_ready();
	int efd[4];
	struct reply r;
	volatile uint64_t *page;

	(void)state;
	for (int i = 0; i < 4; i++)
		efd[i] = eventfd(0, EFD_CLOEXEC);
	/* in two chunks, as a client limited by max_msg_fds would */
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSIX_IRQ, 0, 2, efd, 2), 0);
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSIX_IRQ, 2, 2, efd + 2, 2), 0);
	enable(fd, MEM_MASTER);
	wr(fd, 0, EDU_REG_IRQ_RAISE, 0x1, 4);	/* edu uses vector 0 */
	assert_int_equal(efd_wait(efd[0]), 1);
	/* the extension's interrupt doorbell picks the vector */
	assert_int_equal(region_info(fd, 2, 4096, &r), 0);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, r.fds[0], 0);
	assert_true(page != MAP_FAILED);
	reply_free(&r);
	page[EDU_DB_IRQ_DOORBELL / 8] = (1ull << 16) | 2;
	assert_int_equal(efd_wait(efd[2]), 1);
	page[EDU_DB_IRQ_DOORBELL / 8] = (2ull << 16) | 3;
	assert_int_equal(efd_wait(efd[3]), 1);
	assert_true(efd_quiet(efd[1], 10));
	/* a client-side trigger (loopback): DATA_BOOL picks vector 1 of 0-1 */
	{
		uint8_t msg[sizeof(struct zn_vfu_irq_set) + 2];
		struct zn_vfu_irq_set s = { sizeof(msg), ZN_VFU_IRQ_SET_DATA_BOOL |
					    ZN_VFU_IRQ_SET_ACTION_TRIGGER, ZN_VFU_PCI_MSIX_IRQ, 0, 2 };

		memcpy(msg, &s, sizeof(s));
		msg[sizeof(s)] = 0;
		msg[sizeof(s) + 1] = 1;
		assert_int_equal(call(fd, ZN_VFU_DEVICE_SET_IRQS, msg, sizeof(msg), NULL, 0), 0);
		assert_int_equal(efd_wait(efd[1]), 1);
		assert_true(efd_quiet(efd[0], 10));
	}
	assert_int_equal(stats().irqs[ZN_VFU_PCI_MSIX_IRQ], 4);
	/* MSI cannot be enabled alongside */
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSI_IRQ, 0, 1, efd, 1), EINVAL);
	assert_int_equal(stats().errors[ZN_VFU_ERR_IRQ_BUSY], 1);
	/* de-assign vector 3 (DATA_EVENTFD without fds) */
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSIX_IRQ, 3, 1, NULL, 0), 0);
	page[EDU_DB_IRQ_DOORBELL / 8] = (3ull << 16) | 3;
	WAIT_FOR(stats().irq_no_eventfd == 1);
	/* a vector past the table is counted */
	page[EDU_DB_IRQ_DOORBELL / 8] = (4ull << 16) | 9;
	WAIT_FOR(stats().irq_bad_vector == 1);
	/* the MSI-X table is emulated, vectors come out of reset masked */
	assert_int_equal(rd(fd, 2, EDU_MSIX_TABLE + 12, 4), 1);
	wr(fd, 2, EDU_MSIX_TABLE + 16, 0xfee00000, 4);
	assert_int_equal(rd(fd, 2, EDU_MSIX_TABLE + 16, 4), 0xfee00000);
	assert_int_equal(rd(fd, 2, EDU_MSIX_PBA, 8), 0);
	munmap((void *)page, 4096);
	for (int i = 0; i < 4; i++)
		close(efd[i]);
	close(fd);
}

static void test_set_irqs_refused(void **state)
{
	int fd = connect_ready();
	int efd[3], mfd = new_memfd(4096);
	int base;
	struct zn_vfu_irq_set s = { 24, EVT, ZN_VFU_PCI_MSIX_IRQ, 0, 1 };

	(void)state;
	for (int i = 0; i < 3; i++)
		efd[i] = eventfd(0, EFD_CLOEXEC);
	base = count_fds();
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSIX_IRQ, 0, 3, efd, 2), EINVAL);
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSIX_IRQ, 0, 2, efd, 3), EINVAL);
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSIX_IRQ, 3, 2, efd, 2), EINVAL);
	assert_int_equal(set_irqs(fd, EVT, 5, 0, 1, efd, 1), EINVAL);
	assert_int_equal(set_irqs(fd, ZN_VFU_IRQ_SET_ACTION_TRIGGER, 2, 0, 1, efd, 1), EINVAL);
	assert_int_equal(set_irqs(fd, EVT | ZN_VFU_IRQ_SET_DATA_NONE, 2, 0, 1, efd, 1), EINVAL);
	assert_int_equal(set_irqs(fd, ZN_VFU_IRQ_SET_DATA_NONE | ZN_VFU_IRQ_SET_ACTION_TRIGGER,
				  2, 0, 1, efd, 1), EINVAL);
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSIX_IRQ, 0, 1, &mfd, 1), EINVAL);
	assert_int_equal(set_irqs(fd, ZN_VFU_IRQ_SET_DATA_NONE | ZN_VFU_IRQ_SET_ACTION_MASK,
				  ZN_VFU_PCI_MSI_IRQ, 0, 1, NULL, 0), EINVAL);
	assert_int_equal(call(fd, ZN_VFU_DEVICE_SET_IRQS, &s, sizeof(s), efd, 1), EINVAL);
	assert_int_equal(count_fds(), base);
	{
		struct zn_vfu_stats st = stats();

		assert_int_equal(st.errors[ZN_VFU_ERR_MISSING_FDS], 1);
		assert_int_equal(st.errors[ZN_VFU_ERR_TOO_MANY_FDS], 1);
		assert_int_equal(st.errors[ZN_VFU_ERR_BAD_RANGE], 1);
		assert_int_equal(st.errors[ZN_VFU_ERR_BAD_INDEX], 1);
		assert_int_equal(st.errors[ZN_VFU_ERR_BAD_FLAGS], 2);
		assert_int_equal(st.errors[ZN_VFU_ERR_UNEXPECTED_FDS], 1);
		assert_int_equal(st.errors[ZN_VFU_ERR_BAD_FD], 1);
		assert_int_equal(st.errors[ZN_VFU_ERR_IRQ_UNSUPPORTED], 1);
		assert_int_equal(st.errors[ZN_VFU_ERR_BAD_ARGSZ], 1);
	}
	for (int i = 0; i < 3; i++)
		close(efd[i]);
	close(mfd);
	close(fd);
}

static void test_intx(void **state)
{
	int fd = connect_ready();
	int efd = eventfd(0, EFD_CLOEXEC);

	(void)state;
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_INTX_IRQ, 0, 1, &efd, 1), 0);
	enable(fd, 0x2);	/* INTx needs no bus mastering */
	wr(fd, 0, EDU_REG_IRQ_RAISE, 0x1, 4);
	assert_int_equal(efd_wait(efd), 1);
	assert_int_equal(rd(fd, CFG, 0x06, 2) & 0x8, 0x8);	/* interrupt status */
	/* a level: another raise while asserted is no new edge */
	wr(fd, 0, EDU_REG_IRQ_RAISE, 0x2, 4);
	assert_true(efd_quiet(efd, 20));
	wr(fd, 0, EDU_REG_IRQ_ACK, 0x3, 4);
	assert_int_equal(rd(fd, CFG, 0x06, 2) & 0x8, 0);
	/* masked: counted; unmask while asserted delivers it */
	assert_int_equal(set_irqs(fd, ZN_VFU_IRQ_SET_DATA_NONE | ZN_VFU_IRQ_SET_ACTION_MASK,
				  ZN_VFU_PCI_INTX_IRQ, 0, 1, NULL, 0), 0);
	wr(fd, 0, EDU_REG_IRQ_RAISE, 0x1, 4);
	assert_true(efd_quiet(efd, 20));
	assert_int_equal(stats().irq_masked, 1);
	assert_int_equal(set_irqs(fd, ZN_VFU_IRQ_SET_DATA_NONE | ZN_VFU_IRQ_SET_ACTION_UNMASK,
				  ZN_VFU_PCI_INTX_IRQ, 0, 1, NULL, 0), 0);
	assert_int_equal(efd_wait(efd), 1);
	wr(fd, 0, EDU_REG_IRQ_ACK, 0x1, 4);
	/* COMMAND.INTX_DISABLE holds it back until cleared */
	enable(fd, 0x402);
	wr(fd, 0, EDU_REG_IRQ_RAISE, 0x1, 4);
	assert_true(efd_quiet(efd, 20));
	enable(fd, 0x2);
	assert_int_equal(efd_wait(efd), 1);
	assert_int_equal(stats().irqs[ZN_VFU_PCI_INTX_IRQ], 3);
	close(efd);
	close(fd);
}

/* ---- Reset ---- */

static void test_device_reset(void **state)
{
	int fd = connect_ready();
	int mfd = new_memfd(4096), efd = eventfd(0, EFD_CLOEXEC);

	(void)state;
	assert_int_equal(dma_map(fd, IOVA, 4096, 0, 3, mfd), 0);
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSI_IRQ, 0, 1, &efd, 1), 0);
	enable(fd, MEM_MASTER);
	wr(fd, 0, EDU_REG_LIVENESS, 5, 4);
	wr(fd, 0, EDU_REG_DMA_CNT, 64, 8);
	assert_int_equal(call(fd, ZN_VFU_DEVICE_RESET, NULL, 0, NULL, 0), 0);
	assert_int_equal(stats().resets, 1);
	/* device state gone; config space, DMA windows and eventfds kept */
	assert_int_equal(rd(fd, CFG, 0x04, 2), MEM_MASTER);
	assert_int_equal(rd(fd, 0, EDU_REG_LIVENESS, 4), 0);
	assert_int_equal(rd(fd, 0, EDU_REG_DMA_CNT, 8), 0);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 1);
	wr(fd, 0, EDU_REG_IRQ_RAISE, 0x1, 4);
	assert_int_equal(efd_wait(efd), 1);
	/* a reset with a payload is malformed */
	assert_int_equal(call(fd, ZN_VFU_DEVICE_RESET, "x", 1, NULL, 0), EINVAL);
	close(mfd);
	close(efd);
	close(fd);
}

/* ---- Malformed input ---- */

static void test_unknown_and_unsupported(void **state)
{
	int fd = connect_ready();
	uint8_t payload[32] = { 0 };

	(void)state;
	assert_int_equal(call(fd, 99, payload, 8, NULL, 0), ENOSYS);
	assert_int_equal(call(fd, 14, payload, 8, NULL, 0), ENOSYS);	/* was DIRTY_PAGES */
	assert_int_equal(call(fd, 0, NULL, 0, NULL, 0), ENOSYS);
	assert_int_equal(call(fd, ZN_VFU_DEVICE_FEATURE, payload, 8, NULL, 0), ENOTSUP);
	assert_int_equal(call(fd, ZN_VFU_REGION_WRITE_MULTI, payload, 8, NULL, 0), ENOTSUP);
	assert_int_equal(call(fd, ZN_VFU_DEVICE_GET_REGION_IO_FDS, payload, 16, NULL, 0),
			 ENOTSUP);
	assert_int_equal(call(fd, ZN_VFU_DMA_READ, payload, 16, NULL, 0), ENOTSUP);
	assert_int_equal(call(fd, ZN_VFU_MIG_DATA_READ, payload, 8, NULL, 0), ENOTSUP);
	assert_int_equal(stats().errors[ZN_VFU_ERR_UNKNOWN_CMD], 3);
	assert_int_equal(stats().errors[ZN_VFU_ERR_UNSUPPORTED_CMD], 5);
	assert_int_equal(stats().msgs[0], 3);
	assert_true(log_has("refused: unknown command [unknown_cmd]: command 99 (Function not implemented)"));
	close(fd);
}

static void test_malformed_messages(void **state)
{
	int fd = connect_ready();
	int efd = eventfd(0, EFD_CLOEXEC);
	struct zn_vfu_device_info info = { .argsz = sizeof(info) };
	struct zn_vfu_region_access a = { .offset = 0, .region = CFG, .count = 4 };
	uint8_t buf[64] = { 0 };
	struct reply r;
	int base = count_fds();

	(void)state;
	/* wrong sizes */
	assert_int_equal(call(fd, ZN_VFU_DEVICE_GET_INFO, &info, 8, NULL, 0), EINVAL);
	memcpy(buf, &a, sizeof(a));
	assert_int_equal(call(fd, ZN_VFU_REGION_READ, buf, sizeof(a) + 4, NULL, 0), EINVAL);
	assert_int_equal(call(fd, ZN_VFU_REGION_WRITE, buf, sizeof(a) + 2, NULL, 0), EINVAL);
	assert_int_equal(call(fd, ZN_VFU_REGION_READ, buf, 8, NULL, 0), EINVAL);
	/* an fd where none belongs */
	assert_int_equal(call(fd, ZN_VFU_DEVICE_GET_INFO, &info, sizeof(info), &efd, 1), EINVAL);
	/* bad region, count too large for max_data_xfer_size */
	a.region = 12;
	assert_int_equal(call(fd, ZN_VFU_REGION_READ, &a, sizeof(a), NULL, 0), EINVAL);
	a.region = 0;
	a.count = ZN_VFU_MAX_XFER + 1;
	assert_int_equal(call(fd, ZN_VFU_REGION_READ, &a, sizeof(a), NULL, 0), E2BIG);
	/* a reply is not a command */
	assert_int_equal(send_msg_flags(fd, ZN_VFU_DEVICE_GET_INFO, ZN_VFU_F_TYPE_REPLY, &info,
					sizeof(info), NULL, 0) > 0, 1);
	assert_int_equal(recv_reply(fd, &r), 0);
	assert_int_equal(r.hdr.error_no, EINVAL);
	reply_free(&r);
	assert_int_equal(count_fds(), base);
	{
		struct zn_vfu_stats s = stats();

		assert_int_equal(s.errors[ZN_VFU_ERR_BAD_SIZE], 4);
		assert_int_equal(s.errors[ZN_VFU_ERR_UNEXPECTED_FDS], 1);
		assert_int_equal(s.errors[ZN_VFU_ERR_BAD_INDEX], 1);
		assert_int_equal(s.errors[ZN_VFU_ERR_XFER_TOO_BIG], 1);
		assert_int_equal(s.errors[ZN_VFU_ERR_BAD_TYPE], 1);
	}
	/* the connection is fine after all that */
	assert_int_equal(call(fd, ZN_VFU_DEVICE_GET_INFO, &info, sizeof(info), NULL, 0), 0);
	close(efd);
	close(fd);
}

static void test_too_many_fds(void **state)
{
	int fd = connect_ready();
	int efd[10];
	struct zn_vfu_irq_set s = { sizeof(s), EVT, ZN_VFU_PCI_MSIX_IRQ, 0, 4 };
	int base;

	(void)state;
	for (int i = 0; i < 10; i++)
		efd[i] = eventfd(0, EFD_CLOEXEC);
	base = count_fds();
	/* 10 > ZN_VFU_MAX_MSG_FDS: the kernel truncates, we refuse and close all */
	assert_int_equal(call(fd, ZN_VFU_DEVICE_SET_IRQS, &s, sizeof(s), efd, 10), EINVAL);
	assert_int_equal(stats().errors[ZN_VFU_ERR_TOO_MANY_FDS], 1);
	assert_int_equal(count_fds(), base);
	for (int i = 0; i < 10; i++)
		close(efd[i]);
	close(fd);
}

static void test_oversized_message(void **state)
{
	int fd = connect_ready();
	size_t body = ZN_VFU_MAX_MSG_SIZE + 4096 - sizeof(struct zn_vfu_hdr);
	struct zn_vfu_hdr h = { .msg_id = 4242, .cmd = ZN_VFU_REGION_WRITE,
				.msg_size = (uint32_t)(sizeof(h) + body) };
	uint8_t *junk = calloc(1, body);
	struct zn_vfu_device_info info = { .argsz = sizeof(info) };
	struct reply r;

	(void)state;
	assert_non_null(junk);
	send_raw(fd, &h, sizeof(h), NULL, 0);
	/* refused at once, then its body is skipped to stay in step */
	assert_int_equal(recv_reply(fd, &r), 0);
	assert_int_equal(r.hdr.msg_id, 4242);
	assert_true(r.hdr.flags & ZN_VFU_F_ERROR);
	assert_int_equal(r.hdr.error_no, EMSGSIZE);
	reply_free(&r);
	for (size_t off = 0; off < body; off += 65536) {
		size_t n = body - off < 65536 ? body - off : 65536;

		assert_int_equal(send(fd, junk + off, n, MSG_NOSIGNAL), (ssize_t)n);
	}
	assert_int_equal(call(fd, ZN_VFU_DEVICE_GET_INFO, &info, sizeof(info), NULL, 0), 0);
	assert_int_equal(stats().errors[ZN_VFU_ERR_OVERSIZED], 1);
	free(junk);
	close(fd);
}

static void test_short_msg_size_closes(void **state)
{
	int fd = connect_ready();
	struct zn_vfu_hdr h = { .msg_id = 7, .cmd = ZN_VFU_DEVICE_GET_INFO, .msg_size = 8 };
	struct reply r;

	(void)state;
	send_raw(fd, &h, sizeof(h), NULL, 0);
	assert_int_equal(recv_reply(fd, &r), 0);
	assert_int_equal(r.hdr.error_no, EINVAL);
	reply_free(&r);
	assert_true(at_eof(fd));
	assert_int_equal(stats().errors[ZN_VFU_ERR_BAD_MSG_SIZE], 1);
	close(fd);
}

static void test_framing_partial_and_pipelined(void **state)
{
	int fd = connect_ready();
	uint8_t msg[2][sizeof(struct zn_vfu_hdr) + sizeof(struct zn_vfu_region_access) + 4];
	struct zn_vfu_region_access a = { .offset = EDU_REG_LIVENESS, .region = 0, .count = 4 };
	uint32_t v = 0x0f0f0f0f;
	struct reply r;

	(void)state;
	enable(fd, 0x2);
	for (int i = 0; i < 2; i++) {
		struct zn_vfu_hdr h = { .msg_id = (uint16_t)(900 + i), .cmd = ZN_VFU_REGION_WRITE,
					.msg_size = sizeof(msg[i]) };

		memcpy(msg[i], &h, sizeof(h));
		memcpy(msg[i] + sizeof(h), &a, sizeof(a));
		memcpy(msg[i] + sizeof(h) + sizeof(a), &v, 4);
	}
	/* one byte at a time */
	for (size_t i = 0; i < sizeof(msg[0]); i++) {
		send_raw(fd, &msg[0][i], 1, NULL, 0);
		if (i + 1 < sizeof(msg[0]))
			assert_true(quiet(fd, 0));
	}
	assert_int_equal(recv_reply(fd, &r), 0);
	assert_int_equal(r.hdr.msg_id, 900);
	assert_int_equal(r.hdr.flags, ZN_VFU_F_TYPE_REPLY);
	reply_free(&r);
	/* two in one write, answered in order */
	send_raw(fd, msg, sizeof(msg), NULL, 0);
	assert_int_equal(recv_reply(fd, &r), 0);
	assert_int_equal(r.hdr.msg_id, 900);
	reply_free(&r);
	assert_int_equal(recv_reply(fd, &r), 0);
	assert_int_equal(r.hdr.msg_id, 901);
	reply_free(&r);
	/* NO_REPLY: silent even when refused; the next reply is the next one */
	send_msg_flags(fd, 99, ZN_VFU_F_NO_REPLY, NULL, 0, NULL, 0);
	send_msg_flags(fd, ZN_VFU_REGION_WRITE, ZN_VFU_F_NO_REPLY, msg[0] + 16,
		       sizeof(msg[0]) - 16, NULL, 0);
	assert_int_equal(rd(fd, 0, EDU_REG_LIVENESS, 4), ~v);
	assert_int_equal(stats().errors[ZN_VFU_ERR_UNKNOWN_CMD], 1);
	close(fd);
}

/* ---- Clients come and go ---- */

static void test_disconnect_cleans_up(void **state)
{
	int base = count_fds();
	int fd = connect_ready();
	int mfd = new_memfd(4096), efd[2] = { eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC) };
	struct zn_vfu_hdr half = { .msg_id = 1, .cmd = ZN_VFU_DEVICE_GET_INFO, .msg_size = 32 };
	volatile uint64_t *page;
	struct reply r;

	(void)state;
	assert_int_equal(dma_map(fd, IOVA, 4096, 0, 3, mfd), 0);
	assert_int_equal(set_irqs(fd, EVT, ZN_VFU_PCI_MSIX_IRQ, 0, 2, efd, 2), 0);
	assert_int_equal(region_info(fd, 2, 4096, &r), 0);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, r.fds[0], 0);
	assert_true(page != MAP_FAILED);
	reply_free(&r);
	enable(fd, 0x2);
	page[0] = 5;
	WAIT_FOR(page[EDU_DB_ECHO / 8] == 5);
	/* half a message, and gone */
	send_raw(fd, &half, 10, NULL, 0);
	close(fd);
	WAIT_FOR(stats().disconnects == 1);
	assert_int_equal(stats().errors[ZN_VFU_ERR_TRUNCATED], 1);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 0);
	close(mfd);
	close(efd[0]);
	close(efd[1]);
	/* the server holds none of the client's fds any more */
	assert_int_equal(count_fds(), base);

	/* the next client gets a fresh device, not the old pages */
	fd = connect_ready();
	assert_int_equal(rd(fd, CFG, 0x04, 2), 0);
	enable(fd, 0x2);
	assert_int_equal(rd(fd, 2, EDU_DB_ECHO, 8), 0);
	page[0] = 6;		/* the old mapping reaches nothing */
	sleep_ms(20);
	assert_int_equal(rd(fd, 2, EDU_DB_REACTIONS, 8), 0);
	assert_int_equal(stats().clients, 2);
	munmap((void *)page, 4096);
	close(fd);
}

static void test_second_client_waits(void **state)
{
	int a = connect_ready();
	int b = cli_connect();
	struct zn_vfu_version v = { 0, 0 };
	struct reply r;

	(void)state;
	send_msg(b, ZN_VFU_VERSION, &v, sizeof(v), NULL, 0);
	assert_true(quiet(b, 100));	/* queued behind a */
	close(a);
	assert_int_equal(recv_reply(b, &r), 0);
	assert_false(r.hdr.flags & ZN_VFU_F_ERROR);
	reply_free(&r);
	assert_int_equal(stats().clients, 2);
	close(b);
}

static void test_buffer_feed_matches_socket(void **state)
{
	struct zn_sim_device *d;
	char err[128];
	uint8_t stream[64];
	struct zn_vfu_version v = { 0, 0 };
	struct zn_vfu_hdr h = { .msg_id = 1, .cmd = ZN_VFU_VERSION, .msg_size = 20 };
	struct zn_vfu_stats s;

	(void)state;
	assert_int_equal(zn_sim_device_create("fuzz0=edu", &d, err, sizeof(err)), 0);
	assert_int_equal(zn_vfu_dev_attach_buffer(d->dev, NULL, NULL), 0);
	memcpy(stream, &h, sizeof(h));
	memcpy(stream + sizeof(h), &v, sizeof(v));
	h.msg_id = 2;
	h.cmd = 99;
	h.msg_size = 16;
	memcpy(stream + 20, &h, sizeof(h));
	/* in odd pieces */
	assert_int_equal(zn_vfu_dev_feed(d->dev, stream, 7, NULL, 0), 0);
	assert_int_equal(zn_vfu_dev_feed(d->dev, stream + 7, 29, NULL, 0), 0);
	zn_vfu_dev_stats(d->dev, &s);
	assert_int_equal(s.msgs[ZN_VFU_VERSION], 1);
	assert_int_equal(s.errors[ZN_VFU_ERR_UNKNOWN_CMD], 1);
	zn_vfu_dev_detach(d->dev);
	zn_sim_device_free(d);
}

/* ---- PCI Express config space, dma_probe: a device with no model ---- */

#define PCIE_DSN	0x0123456789abcdefull

static struct zn_vfu_dev *raw_dev;

static int setup_pcie(void **state)
{
	struct zn_vfu_dev_desc d = {
		.vendor_id = 0x1af4, .device_id = 0x1234, .class_code = 0x020000,
		.msix_vectors = 4, .msix_table_bar = 0, .msix_table_offset = 0x1000,
		.msix_pba_bar = 0, .msix_pba_offset = 0x2000,
		.bar[0] = { .size = 0x4000, .type = ZN_VFU_BAR_MEM64 },
		.pcie = true, .dsn = PCIE_DSN,
	};

	(void)state;
	zn_sim_log_set_sink(log_sink, NULL);
	S.log[0] = '\0';
	S.sim = NULL;
	snprintf(S.dir, sizeof(S.dir), "/tmp/zn-vfu-test-XXXXXX");
	if (!mkdtemp(S.dir))
		return -1;
	snprintf(S.path, sizeof(S.path), "%s/pcie0.sock", S.dir);
	if (zn_vfu_dev_new("pcie0", &raw_dev) || zn_vfu_dev_realize(raw_dev, &d) ||
	    zn_vfu_dev_listen(raw_dev, S.path) || zn_vfu_loop_new(&S.loop) ||
	    zn_vfu_loop_add_dev(S.loop, raw_dev))
		return -1;
	return pthread_create(&S.thread, NULL, loop_thread, NULL) ? -1 : 0;
}

static int teardown_pcie(void **state)
{
	(void)state;
	zn_vfu_loop_stop(S.loop);
	pthread_join(S.thread, NULL);
	zn_vfu_dev_free(raw_dev);
	raw_dev = NULL;
	zn_vfu_loop_free(S.loop);
	rmdir(S.dir);
	zn_sim_log_set_sink(NULL, NULL);
	return 0;
}

static void test_pcie_config_space(void **state)
{
	int fd = connect_ready();
	struct zn_vfu_region_info out;
	struct reply r;
	uint8_t c[4096];
	unsigned cap, exp = 0, hops = 0;

	(void)state;
	assert_int_equal(region_info(fd, CFG, sizeof(out), &r), 0);
	memcpy(&out, r.data, sizeof(out));
	assert_int_equal(out.size, 4096);
	reply_free(&r);
	assert_int_equal(region_rw(fd, CFG, 0, c, sizeof(c), false), 0);
	assert_int_equal(c[0x06] & 0x10, 0x10);
	/* walk the list: MSI-X at 0x40, then PCI Express (ID 0x10) */
	for (cap = c[0x34]; cap && hops < 8; cap = c[cap + 1], hops++)
		if (c[cap] == 0x10)
			exp = cap;
	assert_int_equal(c[0x34], 0x40);
	assert_int_equal(c[0x40], 0x11);
	assert_int_equal(exp, 0x50);
	assert_int_equal(c[exp + 1], 0);			/* last */
	assert_int_equal(c[exp + 2] & 0xf, 2);			/* version 2 */
	assert_int_equal(c[exp + 2] & 0xf0, 0);			/* endpoint */
	/* Device Serial Number at 0x100: ID 3, version 1, no next */
	assert_int_equal(rd(fd, CFG, 0x100, 4), 0x00010003);
	assert_int_equal(rd(fd, CFG, 0x104, 4), (uint32_t)PCIE_DSN);
	assert_int_equal(rd(fd, CFG, 0x108, 4), (uint32_t)(PCIE_DSN >> 32));
	assert_int_equal(rd(fd, CFG, 0xffc, 4), 0);
	/* Device Control writable (not bit 15), Device Capabilities read-only,
	 * the DSN read-only, Device Status error bits write-1-to-clear */
	wr(fd, CFG, exp + 8, 0xffff, 2);
	assert_int_equal(rd(fd, CFG, exp + 8, 2), 0x7fff);
	wr(fd, CFG, exp + 4, 0, 4);
	assert_int_equal(rd(fd, CFG, exp + 4, 4), 0x8001);
	wr(fd, CFG, 0x104, 0, 4);
	assert_int_equal(rd(fd, CFG, 0x104, 4), (uint32_t)PCIE_DSN);
	wr(fd, CFG, exp + 0xa, 0xffff, 2);
	assert_int_equal(rd(fd, CFG, exp + 0xa, 2), 0);
	/* the end of the 4 KiB space */
	assert_int_equal(region_rw(fd, CFG, 4092, c, 8, false), EINVAL);
	close(fd);
}

static void test_dma_probe_is_silent(void **state)
{
	int fd = connect_ready();
	int mfd = new_memfd(2 * 4096);
	struct zn_vfu_stats s;

	(void)state;
	assert_int_equal(dma_map(fd, IOVA, 4096, 0, ZN_VFU_DMA_F_READ, mfd), 0);
	assert_int_equal(zn_vfu_dma_probe(raw_dev, IOVA, 64, ZN_VFU_DMA_FROM_RAM), -EPERM);
	enable(fd, MEM_MASTER);
	assert_int_equal(zn_vfu_dma_probe(raw_dev, IOVA, 4096, ZN_VFU_DMA_FROM_RAM), 0);
	assert_int_equal(zn_vfu_dma_probe(raw_dev, IOVA + 8, 4096, ZN_VFU_DMA_FROM_RAM), -EFAULT);
	assert_int_equal(zn_vfu_dma_probe(raw_dev, IOVA - 4096, 8, ZN_VFU_DMA_FROM_RAM), -EFAULT);
	assert_int_equal(zn_vfu_dma_probe(raw_dev, IOVA, 0, ZN_VFU_DMA_FROM_RAM), -EFAULT);
	assert_int_equal(zn_vfu_dma_probe(raw_dev, IOVA, 8, ZN_VFU_DMA_TO_RAM), -EACCES);
	/* nothing counted, no Received Master Abort */
	zn_vfu_dev_stats(raw_dev, &s);
	assert_int_equal(s.dma_err_unmapped + s.dma_err_perm + s.dma_err_no_master, 0);
	assert_int_equal(rd(fd, CFG, 0x06, 2) & 0x2000, 0);
	/* the counted path, for contrast */
	assert_null(zn_vfu_dma_ptr(raw_dev, IOVA + 8, 4096, ZN_VFU_DMA_FROM_RAM, NULL));
	zn_vfu_dev_stats(raw_dev, &s);
	assert_int_equal(s.dma_err_unmapped, 1);
	close(mfd);
	close(fd);
}

static void test_model_options(void **state)
{
	struct zn_sim_device *d;
	char err[256];

	(void)state;
	assert_int_equal(zn_sim_device_create("x=edu,bogus=1", &d, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no option 'bogus'"));
	assert_int_equal(zn_sim_device_create("x=edu,msix=100", &d, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "msix=100"));
	assert_int_equal(zn_sim_device_create("x=nosuch", &d, err, sizeof(err)), -ENOENT);
	assert_int_equal(zn_sim_device_create("bad name=edu", &d, err, sizeof(err)), -EINVAL);
	assert_int_equal(zn_sim_device_create("x=edu,msix=0,dma_delay_ms=5", &d, err,
					      sizeof(err)), 0);
	zn_sim_device_free(d);
}

/* ---- Foreign clients (messages another implementation sends) ---- */

/* A client that sends its whole argsz-sized reply buffer as the request. */
static void test_region_info_long_request(void **state)
{
	uint8_t req[4096] = { 0 };
	struct zn_vfu_region_info in = { .argsz = 64, .index = 0 }, out;
	int fd = connect_ready();
	struct reply r;

	(void)state;
	memcpy(req, &in, sizeof(in));
	assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_REGION_INFO, req, 64, &r), 0);
	assert_int_equal(r.len, sizeof(out));
	memcpy(&out, r.data, sizeof(out));
	assert_int_equal(out.index, 0);
	assert_int_equal(out.size, EDU_BAR0_SIZE);
	reply_free(&r);
	/* the mappable BAR, asked with a 4 KiB buffer sent whole (junk after
	 * the structure is the client's buffer, not a field) */
	in.argsz = sizeof(req);
	in.index = 2;
	memset(req, 0xa5, sizeof(req));
	memcpy(req, &in, sizeof(in));
	assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_REGION_INFO, req, sizeof(req), &r), 0);
	memcpy(&out, r.data, sizeof(out));
	assert_int_equal(out.size, EDU_BAR2_SIZE);
	assert_true(out.flags & ZN_VFU_REGION_F_MMAP);
	assert_true(out.flags & ZN_VFU_REGION_F_CAPS);
	assert_int_equal(out.cap_offset, sizeof(out));
	assert_int_equal(r.len, out.argsz);
	assert_int_equal(r.nfds, 1);
	reply_free(&r);
	/* shorter than the structure is still refused */
	assert_int_equal(xact(fd, ZN_VFU_DEVICE_GET_REGION_INFO, req, 24, &r), EINVAL);
	reply_free(&r);
	assert_int_equal(stats().errors[ZN_VFU_ERR_BAD_SIZE], 1);
	close(fd);
}

static int dma_unmap_flags(int fd, uint32_t flags, uint64_t iova, uint64_t size,
			   struct reply *r)
{
	struct zn_vfu_dma_unmap u = { sizeof(u), flags, iova, size };

	return xact(fd, ZN_VFU_DMA_UNMAP, &u, sizeof(u), r);
}

static void test_dma_unmap_all(void **state)
{
	int fd = connect_ready();
	int mfd = new_memfd(2 * 4096);
	uint8_t *mem = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	struct zn_vfu_dma_unmap u;
	struct reply r;

	(void)state;
	assert_true(mem != MAP_FAILED);
	/* nothing mapped: unmapping everything is a success that does nothing */
	assert_int_equal(dma_unmap_flags(fd, ZN_VFU_DMA_UNMAP_F_ALL, 0, 0, &r), 0);
	reply_free(&r);
	assert_int_equal(dma_map(fd, IOVA, 4096, 0, 3, mfd), 0);
	assert_int_equal(dma_map(fd, IOVA + 0x10000, 4096, 4096, 3, mfd), 0);
	assert_int_equal(dma_map(fd, 0x200000, 4096, 0, 3, -1), 0);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 3);
	/* unmap-all takes address and size 0, nothing else; dirty bitmaps no */
	assert_int_equal(dma_unmap_flags(fd, ZN_VFU_DMA_UNMAP_F_ALL, IOVA, 4096, &r), EINVAL);
	reply_free(&r);
	assert_int_equal(dma_unmap_flags(fd, ZN_VFU_DMA_UNMAP_F_ALL | 1, 0, 0, &r), EINVAL);
	reply_free(&r);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 3);

	assert_int_equal(dma_unmap_flags(fd, ZN_VFU_DMA_UNMAP_F_ALL, 0, 0, &r), 0);
	assert_int_equal(r.len, sizeof(u));	/* the entry, echoed */
	memcpy(&u, r.data, sizeof(u));
	assert_int_equal(u.argsz, sizeof(u));
	assert_int_equal(u.flags, ZN_VFU_DMA_UNMAP_F_ALL);
	assert_int_equal(u.addr, 0);
	assert_int_equal(u.size, 0);
	reply_free(&r);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 0);
	assert_int_equal(stats().dma_unmaps, 2);
	assert_int_equal(stats().errors[ZN_VFU_ERR_BAD_FLAGS], 2);
	/* the device reaches none of them now */
	enable(fd, MEM_MASTER);
	memset(mem, 0xee, 4096);
	edu_dma(fd, EDU_DMA_BUF_ADDR, IOVA, 16, EDU_DMA_CMD_RUN | EDU_DMA_CMD_TO_RAM);
	assert_int_equal(mem[0], 0xee);
	assert_int_equal(stats().dma_err_unmapped, 1);
	/* and the same addresses map again */
	assert_int_equal(dma_map(fd, IOVA, 4096, 0, 3, mfd), 0);
	munmap(mem, 2 * 4096);
	close(mfd);
	close(fd);
}

/* ---- Stalled clients ---- */

#define STALL_MS	150

/* The connection is closed by the server within WAIT_MS (bytes before the
 * end are read and dropped). */
static bool dropped(int fd)
{
	char buf[65536];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, WAIT_MS) != 1)
			return false;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return true;
	}
}

/* A well-behaved client is served: VERSION and DEVICE_GET_INFO. */
static void served(void)
{
	struct zn_vfu_device_info info = { .argsz = sizeof(info) };
	int fd = connect_ready();

	assert_int_equal(call(fd, ZN_VFU_DEVICE_GET_INFO, &info, sizeof(info), NULL, 0), 0);
	close(fd);
}

static void test_stalled_handshake_dropped(void **state)
{
	uint64_t t0;
	int a, b;
	struct reply r;
	struct zn_vfu_version v = { 0, 2 };

	(void)state;
	zn_vfu_dev_set_timeouts(S.sim->dev, STALL_MS, STALL_MS);
	a = cli_connect();		/* connects, never sends */
	sleep_ms(20);
	t0 = zn_now_ms();
	b = cli_connect();		/* waits in the backlog meanwhile */
	send_msg(b, ZN_VFU_VERSION, &v, sizeof(v), NULL, 0);
	assert_int_equal(recv_reply(b, &r), 0);
	assert_false(r.hdr.flags & ZN_VFU_F_ERROR);
	reply_free(&r);
	/* served once a's time ran out, not after b's own timeout */
	assert_true(zn_now_ms() - t0 < 5 * STALL_MS + 1000);
	assert_true(dropped(a));
	assert_int_equal(stats().errors[ZN_VFU_ERR_STALLED], 1);
	assert_true(log_has("stalled: sent no VERSION within 150 ms"));
	close(a);
	close(b);
	served();
	assert_int_equal(stats().clients, 3);
}

static void test_stalled_message_dropped(void **state)
{
	struct zn_vfu_device_info info = { .argsz = sizeof(info) };
	struct zn_vfu_hdr h = { .msg_id = 9, .cmd = ZN_VFU_DEVICE_GET_INFO,
				.msg_size = sizeof(h) + sizeof(info) };
	int fd;

	(void)state;
	zn_vfu_dev_set_timeouts(S.sim->dev, STALL_MS, STALL_MS);
	/* half a header */
	fd = connect_ready();
	send_raw(fd, &h, 7, NULL, 0);
	assert_true(dropped(fd));
	close(fd);
	assert_int_equal(stats().errors[ZN_VFU_ERR_STALLED], 1);
	assert_true(log_has("stalled: stopped inside a message within 150 ms"));
	/* a header and half its body */
	fd = connect_ready();
	send_raw(fd, &h, sizeof(h), NULL, 0);
	send_raw(fd, &info, 5, NULL, 0);
	assert_true(dropped(fd));
	close(fd);
	assert_int_equal(stats().errors[ZN_VFU_ERR_STALLED], 2);
	assert_int_equal(stats().errors[ZN_VFU_ERR_TRUNCATED], 2);
	/* half a VERSION counts against the handshake too */
	fd = cli_connect();
	send_raw(fd, &h, 3, NULL, 0);
	assert_true(dropped(fd));
	close(fd);
	assert_int_equal(stats().errors[ZN_VFU_ERR_STALLED], 3);
	served();
}

static void test_idle_client_kept(void **state)
{
	struct zn_vfu_device_info info = { .argsz = sizeof(info) };
	int fd;

	(void)state;
	zn_vfu_dev_set_timeouts(S.sim->dev, STALL_MS, STALL_MS);
	fd = connect_ready();
	/* idle between messages for longer than any limit: still its device */
	assert_true(quiet(fd, 3 * STALL_MS));
	assert_int_equal(call(fd, ZN_VFU_DEVICE_GET_INFO, &info, sizeof(info), NULL, 0), 0);
	assert_int_equal(stats().errors[ZN_VFU_ERR_STALLED], 0);
	assert_int_equal(stats().disconnects, 0);
	close(fd);
}

static void test_unread_replies_dropped(void **state)
{
	struct zn_vfu_region_access a = { .offset = 0, .region = 0, .count = ZN_VFU_MAX_XFER };
	int fd;

	(void)state;
	zn_vfu_dev_set_timeouts(S.sim->dev, STALL_MS, STALL_MS);
	fd = connect_ready();
	enable(fd, 0x2);
	/* a 1 MiB reply the client never reads: more than the socket holds */
	send_msg(fd, ZN_VFU_REGION_READ, &a, sizeof(a), NULL, 0);
	sleep_ms(3 * STALL_MS);
	assert_true(dropped(fd));
	close(fd);
	assert_int_equal(stats().errors[ZN_VFU_ERR_STALLED], 1);
	assert_true(log_has("stalled: did not read its replies within 150 ms"));
	served();
}

/* ---- A hostile client campaign ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: a fixed seed, so every run replays the same campaign */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* Sends one message and expects exactly its reply (error or not). */
static int hostile_call(int fd, uint16_t cmd, uint32_t flags, const void *p, size_t len,
			const int *fds, unsigned nfds)
{
	uint16_t id = send_msg_flags(fd, cmd, flags, p, len, fds, nfds);
	struct reply r;
	int err;

	assert_int_equal(recv_reply(fd, &r), 0);
	assert_int_equal(r.hdr.msg_id, id);
	assert_int_equal(r.hdr.cmd, cmd);
	err = r.hdr.flags & ZN_VFU_F_ERROR ? (int)r.hdr.error_no : 0;
	reply_free(&r);
	return err;
}

static void hostile_headers(void)
{
	struct zn_vfu_device_info info = { .argsz = sizeof(info) };
	int fd;

	/* msg_size below the header: refused and closed, every value */
	for (uint32_t sz = 0; sz < sizeof(struct zn_vfu_hdr); sz++) {
		struct zn_vfu_hdr h = { .msg_id = 1, .cmd = ZN_VFU_DEVICE_GET_INFO, .msg_size = sz };
		struct reply r;

		fd = connect_ready();
		send_raw(fd, &h, sizeof(h), NULL, 0);
		assert_int_equal(recv_reply(fd, &r), 0);
		assert_int_equal(r.hdr.error_no, EINVAL);
		reply_free(&r);
		assert_true(at_eof(fd));
		close(fd);
	}
	fd = connect_ready();
	/* every type and flag bit but NO_REPLY, unknown and removed commands */
	for (uint32_t bit = 0; bit < 32; bit++)
		if (bit != 4)
			assert_int_not_equal(hostile_call(fd, ZN_VFU_DEVICE_GET_INFO, 1u << bit, &info,
							  sizeof(info), NULL, 0), 0);
	assert_int_equal(hostile_call(fd, 0, 0, NULL, 0, NULL, 0), ENOSYS);
	assert_int_equal(hostile_call(fd, 14, 0, NULL, 0, NULL, 0), ENOSYS);
	assert_int_equal(hostile_call(fd, 19, 0, &info, sizeof(info), NULL, 0), ENOSYS);
	assert_int_equal(hostile_call(fd, 0xffff, 0, NULL, 0, NULL, 0), ENOSYS);
	assert_int_equal(hostile_call(fd, ZN_VFU_DMA_READ, 0, &info, sizeof(info), NULL, 0),
			 ENOTSUP);
	close(fd);
}

static void hostile_json(void)
{
	static const char *const bad[] = {
		"", "{", "}", "[]", "null", "42", "\"x\"", "{\"capabilities\":[]}",
		"{\"capabilities\":{\"max_msg_fds\":\"8\"}}",
		"{\"capabilities\":{\"max_msg_fds\":-1}}",
		"{\"capabilities\":{\"max_msg_fds\":100000}}",
		"{\"capabilities\":{\"max_data_xfer_size\":18446744073709551616}}",
		"{\"capabilities\":{\"pgsizes\":0}}",
		"{\"capabilities\":{\"pgsizes\":1}}",
		"{\"capabilities\":{\"max_dma_maps\":1e99}}",
		"{\"capabilities\":{\"max_msg_fds\":1}} trailing",
	};
	uint8_t buf[16384];
	struct zn_vfu_version v = { 0, 2 };
	int fd;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t jl = strlen(bad[i]) + 1;

		fd = cli_connect();
		memcpy(buf, &v, sizeof(v));
		memcpy(buf + sizeof(v), bad[i], jl);
		assert_int_equal(hostile_call(fd, ZN_VFU_VERSION, 0, buf, sizeof(v) + jl, NULL, 0),
				 EINVAL);
		assert_true(at_eof(fd));
		close(fd);
	}
	/* no NUL, a NUL inside, deep nesting, 16 KiB of brackets */
	fd = cli_connect();
	memcpy(buf, &v, sizeof(v));
	memcpy(buf + sizeof(v), "{}", 2);
	assert_int_equal(hostile_call(fd, ZN_VFU_VERSION, 0, buf, sizeof(v) + 2, NULL, 0), EINVAL);
	close(fd);
	fd = cli_connect();
	memcpy(buf + sizeof(v), "{}\0{}", 6);
	assert_int_equal(hostile_call(fd, ZN_VFU_VERSION, 0, buf, sizeof(v) + 6, NULL, 0), EINVAL);
	close(fd);
	fd = cli_connect();
	memset(buf + sizeof(v), '[', sizeof(buf) - sizeof(v) - 1);
	buf[sizeof(buf) - 1] = '\0';
	assert_int_equal(hostile_call(fd, ZN_VFU_VERSION, 0, buf, sizeof(buf), NULL, 0), EINVAL);
	close(fd);
}

static void hostile_dma(void)
{
	static const struct { uint64_t iova, size, off; uint32_t flags; } maps[] = {
		{ 1, 4096, 0, 3 }, { 0, 4095, 0, 3 }, { 0, 4096, 1, 3 }, { 0, 0, 0, 3 },
		{ ~0ull & ~4095ull, 8192, 0, 3 }, { 0, ~0ull & ~4095ull, 0, 3 },
		{ 0, 4096, ~0ull & ~4095ull, 3 }, { 0, 4096, 0, 0xfc }, { 0, 1ull << 40, 0, 3 },
	};
	int fd = cli_connect(), mfd = new_memfd(4096), efd = eventfd(0, EFD_CLOEXEC);
	int sp[2], pp[2];
	struct reply r;

	assert_int_equal(version(fd, 0, 2, "{\"capabilities\":{\"max_msg_fds\":8,"
				 "\"max_dma_maps\":3}}", &r), 0);
	reply_free(&r);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	assert_int_equal(pipe2(pp, O_CLOEXEC), 0);
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		assert_int_not_equal(dma_map(fd, maps[i].iova, maps[i].size, maps[i].off,
					     maps[i].flags, mfd), 0);
	assert_int_equal(dma_map(fd, IOVA, 4096, 0, 3, efd), EINVAL);
	assert_int_equal(dma_map(fd, IOVA, 4096, 0, 3, sp[0]), EINVAL);
	assert_int_equal(dma_map(fd, IOVA, 4096, 0, 3, pp[0]), EINVAL);
	for (int i = 0; i < 3; i++)
		assert_int_equal(dma_map(fd, IOVA + (uint64_t)i * 0x10000, 4096, 0, 3, mfd), 0);
	assert_int_equal(dma_map(fd, IOVA + 0x100000, 4096, 0, 3, mfd), ENOSPC);
	assert_int_equal(dma_unmap(fd, ~0ull - 4095, 4096, &r), ENOENT);
	reply_free(&r);
	assert_int_equal(dma_unmap(fd, IOVA, ~0ull, &r), ENOENT);
	reply_free(&r);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 3);
	close(sp[0]);
	close(sp[1]);
	close(pp[0]);
	close(pp[1]);
	close(efd);
	close(mfd);
	close(fd);
}

static void hostile_regions_and_irqs(void)
{
	static const uint64_t offs[] = { 0, 1, 0xff, 0x100, 0xfff, 0x1000, 0xfffff, 0x100000,
					 ~0ull, ~0ull - 3, 1ull << 63 };
	static const uint32_t counts[] = { 0, 1, 3, 4, 8, 4096, ZN_VFU_MAX_XFER,
					   ZN_VFU_MAX_XFER + 1, ~0u };
	int fd = connect_ready();
	int efd[8], sp[2];

	enable(fd, MEM_MASTER);
	for (uint32_t reg = 0; reg < 12; reg++)
		for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++)
			for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
				struct zn_vfu_region_access a = { offs[o], reg, counts[c] };

				/* a read: the count asks, the payload stays 16 bytes */
				hostile_call(fd, ZN_VFU_REGION_READ, 0, &a, sizeof(a), NULL, 0);
				/* a write that claims more than it carries */
				if (counts[c] > 8)
					assert_int_not_equal(hostile_call(fd, ZN_VFU_REGION_WRITE, 0,
									  &a, sizeof(a), NULL, 0), 0);
			}
	for (int i = 0; i < 8; i++)
		efd[i] = eventfd(0, EFD_CLOEXEC);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	for (int k = 0; k < 3000; k++) {
		struct zn_vfu_irq_set s = {
			.argsz = sizeof(s),
			.flags = (uint32_t)(1u << (rnd() % 3)) | (uint32_t)(8u << (rnd() % 3)),
			.index = (uint32_t)(rnd() % 7),
			.start = (uint32_t)(rnd() % 4 == 0 ? ~0u - (rnd() % 4) : rnd() % 6),
			.count = (uint32_t)(rnd() % 6),
		};
		uint8_t buf[sizeof(s) + 8];
		unsigned nfds = (unsigned)(rnd() % 5);
		int fds[4];
		size_t len = sizeof(s);

		if (rnd() % 8 == 0)
			s.flags = (uint32_t)rnd();
		for (unsigned i = 0; i < nfds; i++)
			fds[i] = rnd() % 6 == 0 ? sp[0] : efd[rnd() % 8];
		if (rnd() % 2)
			len += rnd() % 8;
		s.argsz = rnd() % 8 ? (uint32_t)len : (uint32_t)rnd();
		memset(buf, 1, sizeof(buf));
		memcpy(buf, &s, sizeof(s));
		hostile_call(fd, ZN_VFU_DEVICE_SET_IRQS, 0, buf, len, fds, nfds);
	}
	for (int i = 0; i < 8; i++)
		close(efd[i]);
	close(sp[0]);
	close(sp[1]);
	close(fd);
}

static void hostile_fd_flood(void)
{
	struct zn_vfu_device_info info = { .argsz = sizeof(info) };
	int fd = connect_ready(), efd[16];

	for (int i = 0; i < 16; i++)
		efd[i] = eventfd(0, EFD_CLOEXEC);
	for (int k = 0; k < 500; k++) {
		unsigned n = 1 + (unsigned)(k % 16);

		/* fds with commands that take none, and more than max_msg_fds */
		assert_int_equal(hostile_call(fd, k % 2 ? ZN_VFU_DEVICE_GET_INFO : ZN_VFU_DMA_MAP,
					      0, &info, sizeof(info), efd, n), EINVAL);
	}
	for (int i = 0; i < 16; i++)
		close(efd[i]);
	close(fd);
}

static void hostile_random_messages(void)
{
	int fd = connect_ready();

	for (int k = 0; k < 5000; k++) {
		uint8_t p[96];
		size_t len = (size_t)(rnd() % sizeof(p));
		uint16_t cmd = (uint16_t)(1 + rnd() % 20);
		uint32_t flags = rnd() % 16 == 0 ? (uint32_t)rnd() & ~ZN_VFU_F_NO_REPLY : 0;

		for (size_t i = 0; i < len; i++)
			p[i] = (uint8_t)rnd();
		/* plausible sizes and argsz often, so the handlers' checks run */
		if (rnd() % 2 && len >= 4) {
			uint32_t argsz = (uint32_t)len;

			memcpy(p, &argsz, sizeof(argsz));
		}
		if (cmd == ZN_VFU_DEVICE_RESET && rnd() % 2)
			len = 0;
		hostile_call(fd, cmd, flags, p, len, NULL, 0);
	}
	close(fd);
}

static void hostile_connections(void)
{
	struct zn_vfu_hdr h = { .msg_id = 1, .cmd = ZN_VFU_VERSION, .msg_size = 20 };

	for (int k = 0; k < 2000; k++) {
		int fd = cli_connect();

		/* gone at once, after a byte, mid-header, mid-body */
		if (k % 4 == 1)
			send_raw(fd, &h, 1, NULL, 0);
		else if (k % 4 == 2)
			send_raw(fd, &h, 9, NULL, 0);
		else if (k % 4 == 3)
			send_raw(fd, &h, sizeof(h), NULL, 0);
		close(fd);
	}
	WAIT_FOR(stats().disconnects >= stats().clients && !zn_vfu_dev_connected(S.sim->dev));
}

/* The cases of a hostile-client campaign against the server, replayed: it
 * must answer each as the spec says, leak nothing, and keep serving. */
static void test_hostile_client_campaign(void **state)
{
	int base = count_fds();
	int fd, mfd;
	uint8_t *mem;

	(void)state;
	zn_vfu_dev_set_timeouts(S.sim->dev, 1000, 1000);
	hostile_headers();
	hostile_json();
	hostile_dma();
	hostile_regions_and_irqs();
	hostile_fd_flood();
	hostile_random_messages();
	hostile_connections();
	/* connections still in the backlog are accepted and closed after ours
	 * are gone: wait for the server to get through them */
	WAIT_FOR(!zn_vfu_dev_connected(S.sim->dev) && count_fds() == base);
	assert_int_equal(stats().errors[ZN_VFU_ERR_STALLED], 0);
	assert_true(stats().clients > 2000);

	/* a well-behaved client gets a working device: DMA both ways, an MSI-X */
	fd = connect_ready();
	mfd = new_memfd(2 * 4096);
	mem = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	assert_true(mem != MAP_FAILED);
	for (int i = 0; i < 4096; i++)
		mem[i] = (uint8_t)(i * 13 + 1);
	assert_int_equal(dma_map(fd, IOVA, 2 * 4096, 0, 3, mfd), 0);
	enable(fd, MEM_MASTER);
	edu_dma(fd, IOVA, EDU_DMA_BUF_ADDR, 4096, EDU_DMA_CMD_RUN);
	edu_dma(fd, EDU_DMA_BUF_ADDR, IOVA + 4096, 4096, EDU_DMA_CMD_RUN | EDU_DMA_CMD_TO_RAM);
	assert_memory_equal(mem, mem + 4096, 4096);
	wr(fd, 0, EDU_REG_LIVENESS, 0x12345678, 4);
	assert_int_equal(rd(fd, 0, EDU_REG_LIVENESS, 4), ~0x12345678u);
	munmap(mem, 2 * 4096);
	close(mfd);
	close(fd);
	WAIT_FOR(!zn_vfu_dev_connected(S.sim->dev) && count_fds() == base);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_version_with_json),
		T(test_version_without_json),
		T(test_version_wrong_major_rejected),
		T(test_version_bad_json_rejected),
		T(test_command_before_version_rejected),
		T(test_device_info),
		T(test_region_info_all),
		T(test_region_info_argsz_and_doorbell),
		T(test_doorbell_latency),
		T(test_region_info_no_fds_client),
		T(test_config_space),
		T(test_bar0_registers),
		T(test_dma_both_ways),
		T(test_dma_fault_reported),
		T(test_dma_truncated_file),
		T(test_dma_needs_bus_master),
		T(test_dma_map_errors),
		T(test_irq_info),
		T(test_msi_interrupts),
		T(test_msix_interrupts),
		T(test_set_irqs_refused),
		T(test_intx),
		T(test_device_reset),
		T(test_unknown_and_unsupported),
		T(test_malformed_messages),
		T(test_too_many_fds),
		T(test_oversized_message),
		T(test_short_msg_size_closes),
		T(test_framing_partial_and_pipelined),
		T(test_disconnect_cleans_up),
		T(test_second_client_waits),
		T(test_region_info_long_request),
		T(test_dma_unmap_all),
		T(test_stalled_handshake_dropped),
		T(test_stalled_message_dropped),
		T(test_idle_client_kept),
		T(test_unread_replies_dropped),
		T(test_hostile_client_campaign),
		cmocka_unit_test(test_buffer_feed_matches_socket),
		cmocka_unit_test(test_model_options),
		cmocka_unit_test_setup_teardown(test_pcie_config_space, setup_pcie, teardown_pcie),
		cmocka_unit_test_setup_teardown(test_dma_probe_is_silent, setup_pcie, teardown_pcie),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
