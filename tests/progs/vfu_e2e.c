/*
 * vfu_e2e: drives zn-nicsim's edu device through zn_bus_open("vfio-user:...")
 * the way a driver would, and prints one TAP line ("ok - ..." / "not ok -
 * ...") per check; tests/integration/vfio_user.sh numbers them.
 *
 *   vfu_e2e basic SOCK             identification, config space, BARs, DMA
 *                                  both ways, MSI and MSI-X, reset
 *   vfu_e2e server-death SOCK PID  kill the server (PID) mid-session: the
 *                                  next call fails fast with -ENOTCONN/-EPIPE
 *   vfu_e2e client-death SOCK      a client that dies holding DMA maps and
 *                                  eventfds; a new client then works
 *
 * Device facts: sim/edu/edu_hw.h (QEMU's edu plus zcnic's BAR2 doorbell page).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/edu/edu_hw.h"
#include "zcnic/bus.h"
#include "zcnic/mem.h"

#define TIMEOUT_MS	3000
#define WAIT_MS		2000	/* for the model to react (DMA, doorbell, irq) */
#define DMA_IOVA	0x200000ull	/* below edu's 28-bit DMA mask */
#define DMA_LEN		(64 * 1024)
#define PCI_VENDOR_ID	0x00
#define PCI_DEVICE_ID	0x02
#define PCI_COMMAND	0x04
#define PCI_CMD_MEM_MASTER 0x6

static int failures;

static bool check_line(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The condition is evaluated before the message's arguments are. */
#define check(cond, ...) ({ bool ok_ = (cond); check_line(ok_, __VA_ARGS__); })

static bool check_line(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
	return ok;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int open_dev(const char *sock, struct zn_bus_dev **d)
{
	struct zn_bus_open_opts o = { .timeout_ms = TIMEOUT_MS };
	char spec[256];

	snprintf(spec, sizeof(spec), "vfio-user:%s", sock);
	return zn_bus_open(spec, &o, d);
}

/* Poll a register until (v & mask) == want, within WAIT_MS. edu takes 4-byte
 * accesses below 0x80 and 8-byte ones from there on. */
static bool wait_reg(struct zn_bus_dev *d, uint32_t bar, uint64_t off, uint64_t mask,
		     uint64_t want)
{
	int64_t end = now_ms() + WAIT_MS;
	uint64_t v;

	do {
		uint32_t v32;

		if (off < 0x80) {
			if (zn_bus_read32(d, bar, off, &v32) < 0)
				return false;
			v = v32;
		} else if (zn_bus_read64(d, bar, off, &v) < 0) {
			return false;
		}
		if ((v & mask) == want)
			return true;
		usleep(100);
	} while (now_ms() < end);
	return false;
}

static bool eventfd_fired(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	eventfd_t v;

	if (poll(&p, 1, WAIT_MS) != 1)
		return false;
	return eventfd_read(fd, &v) == 0 && v >= 1;
}

static bool eventfd_quiet(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 20) == 0;
}

static bool fact_check(struct zn_bus_dev *d)
{
	uint32_t v = 0;

	return zn_bus_write32(d, 0, EDU_REG_FACT, 10) == 0 &&
	       wait_reg(d, 0, EDU_REG_STATUS, EDU_STATUS_COMPUTING, 0) &&
	       zn_bus_read32(d, 0, EDU_REG_FACT, &v) == 0 && v == 3628800;
}

static void identify(struct zn_bus_dev *d)
{
	uint32_t id = 0, live = 0;
	uint16_t ven = 0, dev = 0, cmd = 0;

	check(zn_bus_cfg_read16(d, PCI_VENDOR_ID, &ven) == 0 && ven == EDU_VENDOR_ID &&
	      zn_bus_cfg_read16(d, PCI_DEVICE_ID, &dev) == 0 && dev == EDU_DEVICE_ID,
	      "config space IDs %04x:%04x", ven, dev);
	/* The device decodes no BAR access before COMMAND.MEMORY is set. */
	check(zn_bus_read32(d, 0, EDU_REG_ID, &id) == -EIO,
	      "BAR0 access with memory decoding off is refused");
	check(zn_bus_enable_bus_master(d) == 0 &&
	      zn_bus_cfg_read16(d, PCI_COMMAND, &cmd) == 0 &&
	      (cmd & PCI_CMD_MEM_MASTER) == PCI_CMD_MEM_MASTER,
	      "memory decoding and bus mastering on (command %#06x)", cmd);
	check(zn_bus_read32(d, 0, EDU_REG_ID, &id) == 0 && id == EDU_ID_VALUE,
	      "BAR0 identification register reads %#x", id);
	check(zn_bus_write32(d, 0, EDU_REG_LIVENESS, 0x12345678) == 0 &&
	      zn_bus_read32(d, 0, EDU_REG_LIVENESS, &live) == 0 && live == ~0x12345678u,
	      "liveness register inverts what is written (%#x)", live);
}

/* BAR0 is all trapped; BAR2 page 0 is a mapped doorbell page, page 1 trapped. */
static volatile uint64_t *map_bars(struct zn_bus_dev *d)
{
	void *va0 = (void *)1, *va2 = NULL;
	uint64_t size0 = 0, size2 = 0;
	volatile uint64_t *page;
	uint32_t v = 1;

	check(zn_bus_map_bar(d, 0, &va0, &size0) == 0 && !va0 && size0 == EDU_BAR0_SIZE,
	      "BAR0: %#llx bytes, trapped (no mapping)", (unsigned long long)size0);
	if (!check(zn_bus_map_bar(d, 2, &va2, &size2) == 0 && va2 && size2 == EDU_BAR2_SIZE &&
		   d->region[2].nr_sparse == 1 && d->region[2].sparse[0].offset == 0 &&
		   d->region[2].sparse[0].size == 4096,
		   "BAR2: %#llx bytes, page 0 mapped as a sparse area", (unsigned long long)size2))
		return NULL;
	page = va2;
	check(zn_bus_read32(d, 2, EDU_MSIX_TABLE + 12, &v) == 0,
	      "BAR2 page 1 (MSI-X table) is reached through REGION_READ");
	page[EDU_DB_ECHO_DOORBELL / 8] = 0xabcdef;
	{
		int64_t end = now_ms() + WAIT_MS;

		while (page[EDU_DB_ECHO / 8] != 0xabcdef && now_ms() < end)
			usleep(50);
	}
	check(page[EDU_DB_ECHO / 8] == 0xabcdef && page[EDU_DB_REACTIONS / 8] >= 1,
	      "doorbell store in the mapped page: the model echoes it (reactions %llu)",
	      (unsigned long long)page[EDU_DB_REACTIONS / 8]);
	return page;
}

static bool run_dma(struct zn_bus_dev *d, uint64_t src, uint64_t dst, uint64_t cmd)
{
	return zn_bus_write64(d, 0, EDU_REG_DMA_SRC, src) == 0 &&
	       zn_bus_write64(d, 0, EDU_REG_DMA_DST, dst) == 0 &&
	       zn_bus_write64(d, 0, EDU_REG_DMA_CNT, EDU_DMA_BUF_SIZE) == 0 &&
	       zn_bus_write64(d, 0, EDU_REG_DMA_CMD, cmd | EDU_DMA_CMD_RUN) == 0 &&
	       wait_reg(d, 0, EDU_REG_DMA_CMD, EDU_DMA_CMD_RUN, 0);
}

/* RAM -> edu buffer -> back to another part of RAM: the bytes must match. */
static bool dma_round_trip(struct zn_bus_dev *d, struct zn_dma_region *r, uint8_t seed,
			   uint64_t irq_cmd)
{
	uint8_t *va = r->va;

	for (unsigned i = 0; i < EDU_DMA_BUF_SIZE; i++) {
		va[i] = (uint8_t)(i * 13 + seed);
		va[0x8000 + i] = 0;
	}
	if (!run_dma(d, r->iova, EDU_DMA_BUF_ADDR, 0))
		return false;
	if (!run_dma(d, EDU_DMA_BUF_ADDR, r->iova + 0x8000, EDU_DMA_CMD_TO_RAM | irq_cmd))
		return false;
	return memcmp(va, va + 0x8000, EDU_DMA_BUF_SIZE) == 0;
}

static struct zn_dma_region *dma_setup(struct zn_bus_dev *d)
{
	struct zn_dma_region *r = NULL;

	if (!check(zn_dma_region_alloc("vfu-e2e", DMA_LEN, -1, ZN_DMA_NO_HUGE, &r) == 0 &&
		   zn_dma_region_set_iova(r, DMA_IOVA) == 0,
		   "a core/mem DMA region at IOVA %#llx", DMA_IOVA))
		return NULL;
	if (!check(zn_bus_dma_map(d, r) == 0, "DMA_MAP of the region's memfd")) {
		zn_dma_region_free(r);
		return NULL;
	}
	return r;
}

static void interrupts(struct zn_bus_dev *d, struct zn_dma_region *r, volatile uint64_t *page)
{
	struct zn_irq_info msi = { 0 }, msix = { 0 };
	int efd[EDU_MSIX_VECTORS], mfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	uint32_t st = 0;
	bool ok = true;

	check(d->ops->get_irq_info(d, ZN_IRQ_MSI, &msi) == 0 && msi.count == EDU_MSI_VECTORS &&
	      d->ops->get_irq_info(d, ZN_IRQ_MSIX, &msix) == 0 &&
	      msix.count == EDU_MSIX_VECTORS && (msix.flags & 1),
	      "irq info: MSI %u vector(s), MSI-X %u vectors", msi.count, msix.count);

	/* MSI: edu raises on IRQ_RAISE and on a finished DMA with the IRQ bit. */
	check(zn_bus_set_irqs(d, ZN_IRQ_MSI, 0, 1, &mfd) == 0, "SET_IRQS: MSI eventfd");
	check(zn_bus_write32(d, 0, EDU_REG_IRQ_RAISE, 0x40) == 0 && eventfd_fired(mfd) &&
	      zn_bus_read32(d, 0, EDU_REG_IRQ_STATUS, &st) == 0 && st == 0x40,
	      "MSI: IRQ_RAISE fires the eventfd (status %#x)", st);
	check(zn_bus_write32(d, 0, EDU_REG_IRQ_ACK, 0x40) == 0 &&
	      zn_bus_read32(d, 0, EDU_REG_IRQ_STATUS, &st) == 0 && st == 0,
	      "MSI: IRQ_ACK clears the status");
	check(dma_round_trip(d, r, 7, EDU_DMA_CMD_IRQ) && eventfd_fired(mfd) &&
	      zn_bus_read32(d, 0, EDU_REG_IRQ_STATUS, &st) == 0 && st == EDU_IRQ_DMA,
	      "MSI: a DMA with the IRQ bit fires when done (status %#x)", st);
	zn_bus_write32(d, 0, EDU_REG_IRQ_ACK, EDU_IRQ_DMA);
	check(zn_bus_set_irqs(d, ZN_IRQ_MSI, 0, 0, NULL) == 0, "SET_IRQS: MSI disabled");

	/* MSI-X: each vector has its own eventfd; the doorbell names the vector. */
	for (int i = 0; i < EDU_MSIX_VECTORS; i++)
		efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	check(zn_bus_set_irqs(d, ZN_IRQ_MSIX, 0, EDU_MSIX_VECTORS, efd) == 0,
	      "SET_IRQS: %d MSI-X eventfds", EDU_MSIX_VECTORS);
	for (int v = EDU_MSIX_VECTORS - 1; v >= 0 && page; v--) {
		page[EDU_DB_IRQ_DOORBELL / 8] = ((uint64_t)(EDU_MSIX_VECTORS - v) << 16) | (unsigned)v;
		ok &= eventfd_fired(efd[v]);
		for (int o = 0; o < EDU_MSIX_VECTORS; o++)
			if (o != v)
				ok &= eventfd_quiet(efd[o]);
	}
	check(page && ok, "MSI-X: the doorbell fires exactly the vector it names");
	check(zn_bus_write32(d, 0, EDU_REG_IRQ_RAISE, 1) == 0 && eventfd_fired(efd[0]) &&
	      zn_bus_write32(d, 0, EDU_REG_IRQ_ACK, 1) == 0,
	      "MSI-X: IRQ_RAISE fires vector 0");
	check(zn_bus_set_irqs(d, ZN_IRQ_MSIX, 0, 0, NULL) == 0, "SET_IRQS: MSI-X disabled");
	for (int i = 0; i < EDU_MSIX_VECTORS; i++)
		close(efd[i]);
	close(mfd);
}

static int mode_basic(const char *sock)
{
	struct zn_bus_dev *d = NULL;
	struct zn_dma_region *r;
	volatile uint64_t *page;
	uint32_t v = 1;
	int rc = open_dev(sock, &d);

	if (!check(rc == 0, "zn_bus_open(vfio-user:%s): %s", sock, strerror(-rc)))
		return 1;
	check(d->info.num_regions >= 9 && d->info.num_irqs == 5 && (d->info.flags & 2),
	      "device info: PCI, %u regions, %u irq types", d->info.num_regions,
	      d->info.num_irqs);
	identify(d);
	check(fact_check(d), "factorial register: 10! = 3628800");
	page = map_bars(d);
	r = dma_setup(d);
	if (r) {
		check(dma_round_trip(d, r, 1, 0), "DMA: RAM -> device -> RAM, %d bytes intact",
		      EDU_DMA_BUF_SIZE);
		check(!page || page[EDU_DB_DMA_ERRORS / 8] == 0, "DMA: no transfer faulted");
		interrupts(d, r, page);
		check(zn_bus_dma_unmap(d, r) == 0, "DMA_UNMAP");
		check(zn_bus_dma_unmap(d, r) < 0, "DMA_UNMAP of what is not mapped fails");
	}
	check(zn_bus_write32(d, 0, EDU_REG_LIVENESS, 5) == 0 && zn_bus_reset(d) == 0 &&
	      zn_bus_read32(d, 0, EDU_REG_LIVENESS, &v) == 0 && v == 0,
	      "DEVICE_RESET returns the registers to power-on state (liveness %#x)", v);
	check(!page || page[EDU_DB_ECHO / 8] == 0, "reset cleared the doorbell page");
	check(zn_bus_read32(d, 0, EDU_REG_ID, &v) == 0 && v == EDU_ID_VALUE,
	      "the device answers after reset");
	zn_bus_close(d);
	if (r)
		zn_dma_region_free(r);
	return failures ? 1 : 0;
}

static int mode_server_death(const char *sock, pid_t server)
{
	struct zn_bus_dev *d = NULL;
	uint32_t v = 0;
	int64_t t0, dt;
	int rc = open_dev(sock, &d);

	if (!check(rc == 0, "zn_bus_open(vfio-user:%s)", sock))
		return 1;
	check(zn_bus_enable_bus_master(d) == 0 &&
	      zn_bus_read32(d, 0, EDU_REG_ID, &v) == 0 && v == EDU_ID_VALUE,
	      "the device answers before the server dies");
	check(kill(server, SIGKILL) == 0, "killed zn-nicsim (pid %d)", (int)server);
	t0 = now_ms();
	/* Until the kernel has torn the process down, a call may still find it
	 * alive; each call is bounded by the timeout anyway. */
	do {
		rc = zn_bus_read32(d, 0, EDU_REG_ID, &v);
	} while (rc == 0 && now_ms() - t0 < TIMEOUT_MS);
	dt = now_ms() - t0;
	check(rc == -ENOTCONN || rc == -EPIPE, "the next call fails with %s (%d)",
	      strerror(-rc), rc);
	check(dt < 1000, "and it fails promptly (%lld ms)", (long long)dt);
	t0 = now_ms();
	rc = zn_bus_write32(d, 0, EDU_REG_LIVENESS, 1);
	check(rc == -ENOTCONN && now_ms() - t0 < 50, "later calls fail at once with -ENOTCONN");
	zn_bus_close(d);
	return failures ? 1 : 0;
}

/* The dying client: DMA map, MSI-X eventfds, a doorbell; then it is killed. */
static void doomed_client(const char *sock, int ready)
{
	struct zn_bus_dev *d = NULL;
	struct zn_dma_region *r = NULL;
	int efd[EDU_MSIX_VECTORS];
	void *va;

	if (open_dev(sock, &d) || zn_bus_enable_bus_master(d) ||
	    zn_dma_region_alloc("doomed", DMA_LEN, -1, ZN_DMA_NO_HUGE, &r) ||
	    zn_dma_region_set_iova(r, DMA_IOVA) || zn_bus_dma_map(d, r) ||
	    zn_bus_map_bar(d, 2, &va, NULL) || !va)
		_exit(1);
	for (int i = 0; i < EDU_MSIX_VECTORS; i++)
		efd[i] = eventfd(0, EFD_CLOEXEC);
	if (zn_bus_set_irqs(d, ZN_IRQ_MSIX, 0, EDU_MSIX_VECTORS, efd) ||
	    zn_bus_write32(d, 0, EDU_REG_LIVENESS, 0x55) ||
	    write(ready, "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static int mode_client_death(const char *sock)
{
	struct zn_bus_dev *d = NULL;
	struct zn_dma_region *r;
	int pfd[2], status = 0, rc;
	uint16_t cmd = 0xffff;
	uint32_t v = 1;
	pid_t pid;
	char c = 0;
	struct pollfd p;

	if (pipe(pfd))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		doomed_client(sock, pfd[1]);
	}
	close(pfd[1]);
	p = (struct pollfd){ .fd = pfd[0], .events = POLLIN };
	check(poll(&p, 1, TIMEOUT_MS * 2) == 1 && read(pfd[0], &c, 1) == 1 && c == 'r',
	      "a first client mapped DMA, set MSI-X eventfds and wrote a register");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(pfd[0]);
	check(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the first client was killed");

	rc = open_dev(sock, &d);
	if (!check(rc == 0, "a new client connects after it (%s)", strerror(-rc)))
		return 1;
	/* The server resets a device whose client is lost: config space too. */
	check(zn_bus_cfg_read16(d, PCI_COMMAND, &cmd) == 0 && cmd == 0,
	      "the new client finds the command register at power-on 0 (%#x)", cmd);
	check(zn_bus_enable_bus_master(d) == 0 &&
	      zn_bus_read32(d, 0, EDU_REG_LIVENESS, &v) == 0 && v == 0,
	      "and the registers at power-on state (liveness %#x)", v);
	check(zn_bus_read32(d, 0, EDU_REG_ID, &v) == 0 && v == EDU_ID_VALUE,
	      "the new client reads the identification register");
	r = dma_setup(d);	/* the same IOVA: the server dropped the dead client's map */
	if (r) {
		check(dma_round_trip(d, r, 3, 0), "DMA works for the new client");
		zn_bus_dma_unmap(d, r);
		zn_dma_region_free(r);
	}
	zn_bus_close(d);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_DFL);	/* a SIGPIPE kills us: the client must not raise one */
	if (argc == 3 && !strcmp(argv[1], "basic"))
		return mode_basic(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "server-death"))
		return mode_server_death(argv[2], (pid_t)atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "client-death"))
		return mode_client_death(argv[2]);
	fprintf(stderr, "usage: vfu_e2e basic SOCK | server-death SOCK PID | client-death SOCK\n");
	return 2;
}
