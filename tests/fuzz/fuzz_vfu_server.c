/*
 * libFuzzer target: the vfio-user server's parser and dispatcher (sim/vfu)
 * with the edu model behind it, fed as a client byte stream without a socket
 * (zn_vfu_dev_feed), with real fds riding on the chunks.
 *
 * Input: chunks of [ctl u8][len u16 LE][len bytes]. ctl:
 *   bits 0-3  fds to attach to the chunk (0-15; more than the server's 8
 *             are refused as the socket path refuses a truncated cmsg)
 *   bit 4     fd kind: 0 memfd of FD_MEMFD_SIZE bytes, 1 eventfd
 *   bit 5     run a model poll after the chunk (DMA, doorbells, factorial)
 *   bit 6     (first chunk only) feed a valid VERSION first, to get past
 *             the handshake quickly
 * After each input the session is detached, as a disconnect would, and the
 * process must hold exactly the fds it held before: nothing may leak.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/log.h"
#include "sim/model.h"
#include "sim/vfu/vfu.h"
#include "zcnic/vfio_user.h"

#define FD_MEMFD_SIZE	(64 * 1024)
#define MAX_CHUNK_FDS	15

static struct zn_sim_device *dev;
static int base_fds;

static void quiet_sink(enum zn_sim_log_level l, const char *c, const char *m, void *a)
{
	(void)l; (void)c; (void)m; (void)a;
}

/* The fds this harness or the server make: memfds and eventfds. (Counting
 * every fd would trip over libFuzzer's own, e.g. its symbolizer pipes.) */
static int count_fds(bool print)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		abort();
	while ((e = readdir(d))) {
		char path[300], target[256];
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strncmp(target, "/memfd:", 7) && strcmp(target, "anon_inode:[eventfd]"))
			continue;
		n++;
		if (print)
			fprintf(stderr, "  fd %s -> %s\n", e->d_name, target);
	}
	closedir(d);
	return n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256];

	(void)argc;
	(void)argv;
	zn_sim_log_set_sink(quiet_sink, NULL);
	if (zn_sim_device_create("fuzz=edu", &dev, err, sizeof(err))) {
		fprintf(stderr, "fuzz_vfu_server: %s\n", err);
		abort();
	}
	base_fds = count_fds(false);
	return 0;
}

static int make_fd(int kind)
{
	int fd;

	if (kind)
		return eventfd(0, EFD_CLOEXEC);
	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd >= 0 && ftruncate(fd, FD_MEMFD_SIZE) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void feed_version(void)
{
	static const char json[] = "{\"capabilities\":{\"max_msg_fds\":8}}";
	uint8_t msg[sizeof(struct zn_vfu_hdr) + sizeof(struct zn_vfu_version) + sizeof(json)];
	struct zn_vfu_hdr h = { .msg_id = 0, .cmd = ZN_VFU_VERSION, .msg_size = sizeof(msg) };
	struct zn_vfu_version v = { 0, 2 };

	memcpy(msg, &h, sizeof(h));
	memcpy(msg + sizeof(h), &v, sizeof(v));
	memcpy(msg + sizeof(h) + sizeof(v), json, sizeof(json));
	zn_vfu_dev_feed(dev->dev, msg, sizeof(msg), NULL, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool first = true;

	if (zn_vfu_dev_attach_buffer(dev->dev, NULL, NULL))
		abort();
	while (size >= 3) {
		uint8_t ctl = data[0];
		size_t len = (size_t)data[1] | (size_t)data[2] << 8;
		int fds[MAX_CHUNK_FDS];
		unsigned nfds = 0;
		int ret;

		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		if (first && (ctl & 0x40))
			feed_version();
		first = false;
		for (unsigned i = 0; i < (ctl & 0xfu); i++) {
			int fd = make_fd(ctl & 0x10);

			if (fd >= 0)
				fds[nfds++] = fd;
		}
		ret = zn_vfu_dev_feed(dev->dev, data, len, fds, nfds);
		if (ctl & 0x20)
			zn_vfu_dev_poll(dev->dev);
		data += len;
		size -= len;
		if (ret)
			break;
	}
	zn_vfu_dev_poll(dev->dev);
	zn_vfu_dev_detach(dev->dev);
	if (count_fds(false) != base_fds) {
		fprintf(stderr, "fuzz_vfu_server: fd leak: %d memfds/eventfds open, %d before\n",
			count_fds(true), base_fds);
		abort();
	}
	return 0;
}
