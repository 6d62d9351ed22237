/*
 * vfu_e2e: what only zn-nicsim's edu device over vfio-user has, driven
 * through zn_bus_open("vfio-user:...") the way a driver would. edu itself
 * (registers, the factorial, DMA, MSI) is tests/progs/edu_test's, which runs
 * unchanged on both transports; tests/integration/vfio_user.sh runs both.
 *
 *   vfu_e2e device SOCK            the exact device info, BAR access refused
 *                                  until COMMAND.MEMORY is on, the BAR layout
 *                                  (BAR0 trapped, BAR2: a mapped doorbell page
 *                                  and a trapped MSI-X page), the doorbell
 *                                  echo, MSI-X vectors rung by doorbell, DMA
 *                                  faults counted in the page, DEVICE_RESET
 *   vfu_e2e server-death SOCK PID  kill the server (PID) mid-session: the
 *                                  next call fails fast with -ENOTCONN/-EPIPE
 *   vfu_e2e client-death SOCK      a client that dies holding DMA maps and
 *                                  eventfds; a new client then works
 *
 * Prints TAP lines (tests/progs/prog_tap.h). Device facts: sim/edu/edu_hw.h
 * (QEMU's edu plus zcnic's BAR2 doorbell page).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/edu/edu_hw.h"
#include "zcnic/bus.h"
#include "zcnic/mem.h"
#include "prog_tap.h"

#define TIMEOUT_MS	3000
#define WAIT_MS		2000	/* for the model to react (DMA, doorbell, irq) */
#define QUIET_MS	20	/* an eventfd that should stay silent */
#define DMA_IOVA	0x200000ull	/* below edu's 28-bit DMA mask */
#define DMA_LEN		(64 * 1024)
#define DMA_BACK	0x8000		/* where a round trip lands in the region */
#define PCI_COMMAND	0x04
#define PCI_CMD_MEM_MASTER 0x6
#define VFU_NUM_REGIONS	9	/* BAR0-5, ROM, config, VGA */
#define VFU_NUM_IRQS	5	/* INTx, MSI, MSI-X, ERR, REQ */
#define VFU_DEV_F_PCI	0x2

static int open_dev(const char *sock, struct zn_bus_dev **d)
{
	struct zn_bus_open_opts o = { .timeout_ms = TIMEOUT_MS };
	char spec[256];

	snprintf(spec, sizeof(spec), "vfio-user:%s", sock);
	return zn_bus_open(spec, &o, d);
}

static uint64_t page_rd(volatile uint64_t *page, unsigned off)
{
	return __atomic_load_n(&page[off / 8], __ATOMIC_ACQUIRE);
}

static void page_wr(volatile uint64_t *page, unsigned off, uint64_t v)
{
	__atomic_store_n(&page[off / 8], v, __ATOMIC_RELEASE);
}

static bool run_dma(struct zn_bus_dev *d, uint64_t src, uint64_t dst, uint64_t cmd)
{
	return zn_bus_write64(d, 0, EDU_REG_DMA_SRC, src) == 0 &&
	       zn_bus_write64(d, 0, EDU_REG_DMA_DST, dst) == 0 &&
	       zn_bus_write64(d, 0, EDU_REG_DMA_CNT, EDU_DMA_BUF_SIZE) == 0 &&
	       zn_bus_write64(d, 0, EDU_REG_DMA_CMD, cmd | EDU_DMA_CMD_RUN) == 0 &&
	       tap_wait_reg(d, 0, EDU_REG_DMA_CMD, 8, EDU_DMA_CMD_RUN, 0, WAIT_MS, NULL) == 0;
}

/* RAM -> edu buffer -> back to another part of RAM: the bytes must match. */
static bool dma_round_trip(struct zn_bus_dev *d, struct zn_dma_region *r, uint8_t seed)
{
	uint8_t *va = r->va;

	for (unsigned i = 0; i < EDU_DMA_BUF_SIZE; i++) {
		va[i] = (uint8_t)(i * 13 + seed);
		va[DMA_BACK + i] = 0;
	}
	return run_dma(d, r->iova, EDU_DMA_BUF_ADDR, 0) &&
	       run_dma(d, EDU_DMA_BUF_ADDR, r->iova + DMA_BACK, EDU_DMA_CMD_TO_RAM) &&
	       memcmp(va, va + DMA_BACK, EDU_DMA_BUF_SIZE) == 0;
}

static struct zn_dma_region *dma_setup(struct zn_bus_dev *d)
{
	struct zn_dma_region *r = NULL;

	if (!TAP_CHECK(zn_dma_region_alloc("vfu-e2e", DMA_LEN, -1, ZN_DMA_NO_HUGE, &r) == 0 &&
		       zn_dma_region_set_iova(r, DMA_IOVA) == 0,
		       "a core/mem DMA region at IOVA %#llx", DMA_IOVA))
		return NULL;
	if (!TAP_CHECK(zn_bus_dma_map(d, r) == 0, "DMA_MAP of the region's memfd")) {
		zn_dma_region_free(r);
		return NULL;
	}
	return r;
}

/* BAR0 is all trapped; BAR2 page 0 is a mapped doorbell page, page 1 trapped. */
static volatile uint64_t *map_bars(struct zn_bus_dev *d)
{
	void *va0 = (void *)1, *va2 = NULL;
	uint64_t size0 = 0, size2 = 0;
	volatile uint64_t *page;
	uint64_t end;
	uint32_t v = 1;

	TAP_CHECK(zn_bus_map_bar(d, 0, &va0, &size0) == 0 && !va0 && size0 == EDU_BAR0_SIZE,
		  "BAR0: %#llx bytes, trapped (no mapping)", (unsigned long long)size0);
	if (!TAP_CHECK(zn_bus_map_bar(d, 2, &va2, &size2) == 0 && va2 &&
		       size2 == EDU_BAR2_SIZE && d->region[2].nr_sparse == 1 &&
		       d->region[2].sparse[0].offset == 0 && d->region[2].sparse[0].size == 4096,
		       "BAR2: %#llx bytes, page 0 mapped as a sparse area",
		       (unsigned long long)size2))
		return NULL;
	page = va2;
	TAP_CHECK(zn_bus_read32(d, 2, EDU_MSIX_TABLE + 12, &v) == 0,
		  "BAR2 page 1 (MSI-X table) is reached through REGION_READ");
	page_wr(page, EDU_DB_ECHO_DOORBELL, 0xabcdef);
	end = zn_now_ms() + WAIT_MS;
	while (page_rd(page, EDU_DB_ECHO) != 0xabcdef && zn_now_ms() < end)
		usleep(50);
	TAP_CHECK(page_rd(page, EDU_DB_ECHO) == 0xabcdef && page_rd(page, EDU_DB_REACTIONS) == 1,
		  "doorbell store in the mapped page: the model echoes it (reactions %llu)",
		  (unsigned long long)page_rd(page, EDU_DB_REACTIONS));
	return page;
}

/* Each MSI-X vector has its own eventfd; the interrupt doorbell names one. */
static void msix_vectors(struct zn_bus_dev *d, volatile uint64_t *page)
{
	struct zn_irq_info msi = { 0 }, msix = { 0 };
	int efd[EDU_MSIX_VECTORS];
	bool ok = true;

	TAP_CHECK(d->ops->get_irq_info(d, ZN_IRQ_MSI, &msi) == 0 && msi.count == EDU_MSI_VECTORS &&
		  d->ops->get_irq_info(d, ZN_IRQ_MSIX, &msix) == 0 &&
		  msix.count == EDU_MSIX_VECTORS && (msix.flags & 1),
		  "irq info: MSI %u vector(s), MSI-X %u vectors", msi.count, msix.count);
	for (int i = 0; i < EDU_MSIX_VECTORS; i++)
		efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	TAP_CHECK(zn_bus_set_irqs(d, ZN_IRQ_MSIX, 0, EDU_MSIX_VECTORS, efd) == 0,
		  "SET_IRQS: %d MSI-X eventfds", EDU_MSIX_VECTORS);
	for (int v = EDU_MSIX_VECTORS - 1; v >= 0 && page; v--) {
		page_wr(page, EDU_DB_IRQ_DOORBELL,
			((uint64_t)(EDU_MSIX_VECTORS - v) << 16) | (unsigned)v);
		ok &= tap_eventfd_wait(efd[v], WAIT_MS) == 1;
		for (int o = 0; o < EDU_MSIX_VECTORS; o++)
			if (o != v)
				ok &= tap_eventfd_wait(efd[o], QUIET_MS) == 0;
	}
	TAP_CHECK(page && ok, "MSI-X: the doorbell fires exactly the vector it names");
	/* edu's own interrupts go to vector 0 once MSI-X has eventfds. */
	TAP_CHECK(zn_bus_write32(d, 0, EDU_REG_IRQ_RAISE, 1) == 0 &&
		  tap_eventfd_wait(efd[0], WAIT_MS) == 1 &&
		  zn_bus_write32(d, 0, EDU_REG_IRQ_ACK, 1) == 0,
		  "MSI-X: IRQ_RAISE fires vector 0");
	TAP_CHECK(zn_bus_set_irqs(d, ZN_IRQ_MSIX, 0, 0, NULL) == 0, "SET_IRQS: MSI-X disabled");
	for (int i = 0; i < EDU_MSIX_VECTORS; i++)
		close(efd[i]);
}

/* The page counts the DMAs the server refused: none, then one after unmap. */
static void dma_fault_counter(struct zn_bus_dev *d, volatile uint64_t *page)
{
	struct zn_dma_region *r = dma_setup(d);
	uint16_t status = 0;

	if (!r)
		return;
	TAP_CHECK(dma_round_trip(d, r, 1) && page && page_rd(page, EDU_DB_DMA_ERRORS) == 0,
		  "DMA round trip; the page counts no DMA error");
	TAP_CHECK(zn_bus_dma_unmap(d, r) == 0, "DMA_UNMAP");
	TAP_CHECK(zn_bus_dma_unmap(d, r) < 0, "DMA_UNMAP of what is not mapped fails");
	TAP_CHECK(run_dma(d, EDU_DMA_BUF_ADDR, DMA_IOVA, EDU_DMA_CMD_TO_RAM) && page &&
		  page_rd(page, EDU_DB_DMA_ERRORS) == 1,
		  "a DMA to the unmapped IOVA completes and is counted in the page (%llu)",
		  page ? (unsigned long long)page_rd(page, EDU_DB_DMA_ERRORS) : 0ull);
	/* As a PCI function whose request was not completed: master abort. */
	TAP_CHECK(zn_bus_cfg_read16(d, 0x06, &status) == 0 && (status & 0x2000),
		  "PCI status has Received Master Abort (%#06x)", status);
	zn_dma_region_free(r);
}

static int mode_device(const char *sock)
{
	struct zn_bus_dev *d = NULL;
	volatile uint64_t *page;
	uint16_t cmd = 0;
	uint32_t v = 1;
	int rc = open_dev(sock, &d);

	if (!TAP_CHECK(rc == 0, "zn_bus_open(vfio-user:%s): %s", sock, strerror(-rc)))
		return tap_done("vfu_e2e device");
	TAP_CHECK(d->info.num_regions == VFU_NUM_REGIONS && d->info.num_irqs == VFU_NUM_IRQS &&
		  (d->info.flags & VFU_DEV_F_PCI),
		  "device info: PCI, %u regions, %u irq types", d->info.num_regions,
		  d->info.num_irqs);
	/* zn-nicsim's device decodes no BAR access before COMMAND.MEMORY is set
	 * (vfio-pci's pci_enable_device has set it by the time a user opens). */
	TAP_CHECK(zn_bus_read32(d, 0, EDU_REG_ID, &v) == -EIO,
		  "BAR0 access with memory decoding off is refused with -EIO");
	TAP_CHECK(zn_bus_enable_bus_master(d) == 0 &&
		  zn_bus_cfg_read16(d, PCI_COMMAND, &cmd) == 0 &&
		  (cmd & PCI_CMD_MEM_MASTER) == PCI_CMD_MEM_MASTER,
		  "memory decoding and bus mastering on (command %#06x)", cmd);
	page = map_bars(d);
	msix_vectors(d, page);
	dma_fault_counter(d, page);
	/* QEMU's edu has no reset; zn-nicsim's returns to power-on state. */
	TAP_CHECK(zn_bus_write32(d, 0, EDU_REG_LIVENESS, 5) == 0 && zn_bus_reset(d) == 0 &&
		  zn_bus_read32(d, 0, EDU_REG_LIVENESS, &v) == 0 && v == 0,
		  "DEVICE_RESET returns the registers to power-on state (liveness %#x)", v);
	TAP_CHECK(!page || (page_rd(page, EDU_DB_ECHO) == 0 &&
			    page_rd(page, EDU_DB_DMA_ERRORS) == 0),
		  "reset cleared the doorbell page");
	if (page) {
		uint64_t end = zn_now_ms() + WAIT_MS;

		/* and its counters start again from 0 */
		page_wr(page, EDU_DB_ECHO_DOORBELL, 0x77);
		while (page_rd(page, EDU_DB_ECHO) != 0x77 && zn_now_ms() < end)
			usleep(50);
		TAP_CHECK(page_rd(page, EDU_DB_ECHO) == 0x77 &&
			  page_rd(page, EDU_DB_REACTIONS) == 1,
			  "after reset the next doorbell is reaction 1 (%llu)",
			  (unsigned long long)page_rd(page, EDU_DB_REACTIONS));
	}
	TAP_CHECK(zn_bus_read32(d, 0, EDU_REG_ID, &v) == 0 && v == EDU_ID_VALUE,
		  "the device answers after reset (ID %#x)", v);
	zn_bus_close(d);
	return tap_done("vfu_e2e device");
}

static int mode_server_death(const char *sock, pid_t server)
{
	struct zn_bus_dev *d = NULL;
	uint64_t t0, dt;
	uint32_t v = 0;
	int rc = open_dev(sock, &d);

	if (!TAP_CHECK(rc == 0, "zn_bus_open(vfio-user:%s)", sock))
		return tap_done("vfu_e2e server-death");
	TAP_CHECK(zn_bus_enable_bus_master(d) == 0 &&
		  zn_bus_read32(d, 0, EDU_REG_ID, &v) == 0 && v == EDU_ID_VALUE,
		  "the device answers before the server dies");
	TAP_CHECK(kill(server, SIGKILL) == 0, "killed zn-nicsim (pid %d)", (int)server);
	t0 = zn_now_ms();
	/* Until the kernel has torn the process down, a call may still find it
	 * alive; each call is bounded by the timeout anyway. */
	do {
		rc = zn_bus_read32(d, 0, EDU_REG_ID, &v);
	} while (rc == 0 && zn_now_ms() - t0 < TIMEOUT_MS);
	dt = zn_now_ms() - t0;
	TAP_CHECK(rc == -ENOTCONN || rc == -EPIPE, "the next call fails with %s (%d)",
		  strerror(-rc), rc);
	TAP_CHECK(dt < 1000, "and it fails promptly (%llu ms)", (unsigned long long)dt);
	t0 = zn_now_ms();
	rc = zn_bus_write32(d, 0, EDU_REG_LIVENESS, 1);
	dt = zn_now_ms() - t0;
	TAP_CHECK(rc == -ENOTCONN && dt < 50, "later calls fail at once with -ENOTCONN (%d, %llu ms)",
		  rc, (unsigned long long)dt);
	zn_bus_close(d);
	return tap_done("vfu_e2e server-death");
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
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		doomed_client(sock, pfd[1]);
	}
	close(pfd[1]);
	p = (struct pollfd){ .fd = pfd[0], .events = POLLIN };
	TAP_CHECK(poll(&p, 1, TIMEOUT_MS * 2) == 1 && read(pfd[0], &c, 1) == 1 && c == 'r',
		  "a first client mapped DMA, set MSI-X eventfds and wrote a register");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(pfd[0]);
	TAP_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		  "the first client was killed");

	rc = open_dev(sock, &d);
	if (!TAP_CHECK(rc == 0, "a new client connects after it (%s)", strerror(-rc)))
		return tap_done("vfu_e2e client-death");
	/* The server resets a device whose client is lost: config space too. */
	TAP_CHECK(zn_bus_cfg_read16(d, PCI_COMMAND, &cmd) == 0 && cmd == 0,
		  "the new client finds the command register at power-on 0 (%#x)", cmd);
	TAP_CHECK(zn_bus_enable_bus_master(d) == 0 &&
		  zn_bus_read32(d, 0, EDU_REG_LIVENESS, &v) == 0 && v == 0,
		  "and the registers at power-on state (liveness %#x)", v);
	TAP_CHECK(zn_bus_read32(d, 0, EDU_REG_ID, &v) == 0 && v == EDU_ID_VALUE,
		  "the new client reads the identification register");
	r = dma_setup(d);	/* the same IOVA: the server dropped the dead client's map */
	if (r) {
		TAP_CHECK(dma_round_trip(d, r, 3), "DMA works for the new client");
		zn_bus_dma_unmap(d, r);
		zn_dma_region_free(r);
	}
	zn_bus_close(d);
	return tap_done("vfu_e2e client-death");
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_DFL);	/* a SIGPIPE kills us: the client must not raise one */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "device"))
		return mode_device(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "server-death"))
		return mode_server_death(argv[2], (pid_t)atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "client-death"))
		return mode_client_death(argv[2]);
	fprintf(stderr, "usage: vfu_e2e device SOCK | server-death SOCK PID | client-death SOCK\n");
	return 2;
}
