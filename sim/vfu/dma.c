/* SPDX-License-Identifier: MIT */
/*
 * DMA windows: DMA_MAP / DMA_UNMAP (vfio-user spec "VFIO_USER_DMA_MAP",
 * "VFIO_USER_DMA_UNMAP") and the device-side access helpers.
 *
 * A window with an fd is mmap()ed MAP_SHARED at the given file offset and the
 * fd closed at once (the mapping keeps the file). The file must be a regular
 * file (memfd, tmpfs, hugetlbfs) at least offset + size long: touching a page
 * past its end raises SIGBUS. A window without an fd is recorded, as the spec
 * asks, but we do not implement DMA_READ/WRITE, so the device cannot reach
 * it: accesses fail with -ENODEV.
 *
 * The client keeps its fd and may still shrink the file after DMA_MAP (or a
 * tmpfs page may fail to be allocated). Checking the size before each access
 * would cost an fstat and still race with the client, so the copies of
 * zn_vfu_dma_read/write run under a SIGBUS guard instead: a handler that, when
 * the fault lies in the copy under way on its thread, jumps out of the copy,
 * which then fails like a DMA the host did not complete (dma.err_bus). Every
 * other SIGBUS goes to the handler there before ours, or the default action.
 *
 * Windows are kept sorted and disjoint (overlap is EEXIST, as the spec and
 * VFIO_IOMMU_MAP_DMA require), so a lookup is a binary search.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/vfu/priv.h"

#define DMA_ALIGN	4096ull

/* Index of the first window whose end is above iova. */
static size_t lower_bound(const struct zn_vfu_dev *dev, uint64_t iova)
{
	size_t lo = 0, hi = dev->nwin;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct vfu_win *w = &dev->win[mid];

		if (w->iova + w->size <= iova)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void win_release(struct zn_vfu_dev *dev, struct vfu_win *w)
{
	if (dev->desc.ops && dev->desc.ops->dma_unmap)
		dev->desc.ops->dma_unmap(dev->desc.opaque, w->iova, w->size);
	if (w->va)
		munmap(w->va, w->size);
}

void vfu_dma_unmap_all(struct zn_vfu_dev *dev)
{
	for (size_t i = 0; i < dev->nwin; i++)
		win_release(dev, &dev->win[i]);
	free(dev->win);
	dev->win = NULL;
	dev->capwin = 0;
	__atomic_store_n(&dev->nwin, 0, __ATOMIC_RELAXED);
}

uint64_t zn_vfu_dev_dma_windows(const struct zn_vfu_dev *dev)
{
	return __atomic_load_n(&dev->nwin, __ATOMIC_RELAXED);
}

/* ---- The SIGBUS guard ---- */

struct dma_guard {
	sigjmp_buf jb;
	uintptr_t lo, hi;	/* the client memory the copy touches */
};

static __thread struct dma_guard *dma_guard_cur;
static struct sigaction sigbus_prev;
static pthread_mutex_t sigbus_lock = PTHREAD_MUTEX_INITIALIZER;

static void sigbus_handler(int sig, siginfo_t *si, void *uc)
{
	struct dma_guard *g = dma_guard_cur;
	uintptr_t a = (uintptr_t)si->si_addr;

	/* si_code > 0: a fault, not a SIGBUS someone sent. */
	if (g && si->si_code > 0 && a >= g->lo && a < g->hi)
		siglongjmp(g->jb, 1);
	if (sigbus_prev.sa_flags & SA_SIGINFO) {
		sigbus_prev.sa_sigaction(sig, si, uc);
		return;
	}
	if (sigbus_prev.sa_handler != SIG_DFL && sigbus_prev.sa_handler != SIG_IGN) {
		sigbus_prev.sa_handler(sig);
		return;
	}
	if (sigbus_prev.sa_handler == SIG_IGN && si->si_code <= 0)
		return;
	sigaction(SIGBUS, &(struct sigaction){ .sa_handler = SIG_DFL }, NULL);
	/* A fault re-runs the access on return and dies of it, with a core. */
	if (si->si_code <= 0)
		raise(sig);
}

/*
 * Called whenever a window with memory behind it is mapped, not once: the
 * process (a test framework, say) may have put another handler in since.
 * SA_NODEFER: the guard jumps out with sigsetjmp(.., 0), which saves no
 * signal mask, so SIGBUS must not be blocked while the handler runs.
 */
static void sigbus_guard_install(void)
{
	struct sigaction cur, sa = { .sa_sigaction = sigbus_handler,
				     .sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART };

	pthread_mutex_lock(&sigbus_lock);
	if (sigaction(SIGBUS, NULL, &cur) == 0 &&
	    !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == sigbus_handler)) {
		sigbus_prev = cur;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, NULL))
			ZN_SIM_WARN("dma", "cannot install the SIGBUS handler: %s; a client that "
				    "truncates its DMA memory can crash the server", strerror(errno));
	}
	pthread_mutex_unlock(&sigbus_lock);
}

static int check_fd(int fd, uint64_t offset, uint64_t size, const char **why)
{
	struct stat st;

	if (fstat(fd, &st)) {
		*why = "fstat failed";
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file (memfd, tmpfs or hugetlbfs)";
		return -EINVAL;
	}
	if (st.st_size < 0 || offset > (uint64_t)st.st_size ||
	    size > (uint64_t)st.st_size - offset) {
		*why = "offset + size beyond the end of the file";
		return -EINVAL;
	}
	return 0;
}

int vfu_handle_dma_map(struct zn_vfu_dev *dev, struct vfu_req *rq)
{
	struct zn_vfu_dma_map m;
	struct vfu_win w = { 0 };
	const char *why = NULL;
	size_t pos;
	int prot = PROT_NONE, fd = -1;

	if (rq->nfds > 1)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_TOO_MANY_FDS, 0, "%u fds, at most 1",
				  rq->nfds);
	if (rq->len != sizeof(m))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_SIZE, 0, "payload %u, want %zu",
				  rq->len, sizeof(m));
	memcpy(&m, rq->data, sizeof(m));
	/* "argsz is the size of the above structure" */
	if (m.argsz != sizeof(m))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_ARGSZ, 0, "argsz %u, want %zu",
				  m.argsz, sizeof(m));
	if (m.flags & ~(ZN_VFU_DMA_F_READ | ZN_VFU_DMA_F_WRITE))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_FLAGS, 0, "flags %#x", m.flags);
	if (m.size == 0 || m.addr + m.size < m.addr)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_RANGE, 0, "empty or wrapping window");
	if ((m.addr | m.size | m.offset) & (DMA_ALIGN - 1))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_RANGE, 0,
				  "addr/size/offset not 4 KiB aligned (pgsizes)");
	if (rq->nfds == 0 && m.offset)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_NONZERO_FIELD, 0,
				  "offset must be zero without an fd");
	pos = lower_bound(dev, m.addr);
	if (pos < dev->nwin && dev->win[pos].iova < m.addr + m.size)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_DMA_OVERLAP, 0,
				  "[%#llx, +%#llx) overlaps [%#llx, +%#llx)",
				  (unsigned long long)m.addr, (unsigned long long)m.size,
				  (unsigned long long)dev->win[pos].iova,
				  (unsigned long long)dev->win[pos].size);
	if (dev->nwin >= dev->conn.max_dma_maps)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_DMA_LIMIT, 0, "%zu windows mapped",
				  dev->nwin);
	if (dev->dma_gate && dev->dma_gate(dev->dma_gate_ctx))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_DMA_LIMIT, ENOMEM,
				  "[%#llx, +%#llx) refused (dma-refuse fault)",
				  (unsigned long long)m.addr, (unsigned long long)m.size);
	if (dev->nwin == dev->capwin) {
		size_t cap = dev->capwin ? dev->capwin * 2 : 16;
		struct vfu_win *nw = realloc(dev->win, cap * sizeof(*nw));

		if (!nw)
			return vfu_refuse(dev, rq, ZN_VFU_ERR_DMA_LIMIT, ENOMEM, "no memory");
		dev->win = nw;
		dev->capwin = cap;
	}
	w.iova = m.addr;
	w.size = m.size;
	w.offset = m.offset;
	w.flags = m.flags;
	if (rq->nfds == 1) {
		fd = rq->fds[0];
		if (check_fd(fd, m.offset, m.size, &why))
			return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_FD, 0, "%s", why);
		if (m.flags & ZN_VFU_DMA_F_READ)
			prot |= PROT_READ;
		if (m.flags & ZN_VFU_DMA_F_WRITE)
			prot |= PROT_WRITE;
		w.va = mmap(NULL, m.size, prot, MAP_SHARED, fd, (off_t)m.offset);
		if (w.va == MAP_FAILED) {
			int err = errno;

			return vfu_refuse(dev, rq, ZN_VFU_ERR_DMA_MMAP, err, "mmap of %#llx bytes",
					  (unsigned long long)m.size);
		}
		close(fd);
		rq->fds[0] = -1;
		sigbus_guard_install();
	}
	memmove(&dev->win[pos + 1], &dev->win[pos], (dev->nwin - pos) * sizeof(w));
	dev->win[pos] = w;
	__atomic_store_n(&dev->nwin, dev->nwin + 1, __ATOMIC_RELAXED);
	VFU_INC(dev->stats.dma_maps);
	ZN_SIM_DEBUG("dma", "%s: map [%#llx, +%#llx) flags %#x%s", dev->name,
		     (unsigned long long)w.iova, (unsigned long long)w.size, w.flags,
		     w.va ? "" : " (no fd)");
	return vfu_reply(dev, rq, NULL, 0, NULL, 0);
}

int vfu_handle_dma_unmap(struct zn_vfu_dev *dev, struct vfu_req *rq)
{
	struct zn_vfu_dma_unmap u;
	size_t pos;

	if (rq->len != sizeof(u))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_SIZE, 0, "payload %u, want %zu",
				  rq->len, sizeof(u));
	memcpy(&u, rq->data, sizeof(u));
	if (u.argsz < sizeof(u))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_ARGSZ, 0, "argsz %u < %zu", u.argsz,
				  sizeof(u));
	/* The spec says "flags is unused in this version", but clients send
	 * VFIO's unmap-all (Linux vfio.h VFIO_DMA_UNMAP_FLAG_ALL, which
	 * libvfio-user serves): address and size 0, every window goes. The
	 * dirty bitmap flag is not supported. */
	if (u.flags == ZN_VFU_DMA_UNMAP_F_ALL) {
		if (u.addr || u.size)
			return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_FLAGS, 0,
					  "unmap-all with address %#llx size %#llx, want 0",
					  (unsigned long long)u.addr, (unsigned long long)u.size);
		ZN_SIM_DEBUG("dma", "%s: unmap all (%zu windows)", dev->name, dev->nwin);
		vfu_dma_unmap_all(dev);
		VFU_INC(dev->stats.dma_unmaps);
		return vfu_reply(dev, rq, rq->data, sizeof(u), NULL, 0);
	}
	if (u.flags)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_FLAGS, 0, "flags %#x", u.flags);
	pos = lower_bound(dev, u.addr);
	if (pos == dev->nwin || u.addr + u.size <= dev->win[pos].iova || u.size == 0 ||
	    u.addr + u.size < u.addr) {
		return vfu_refuse(dev, rq, ZN_VFU_ERR_DMA_NOT_FOUND, 0,
				  "[%#llx, +%#llx) is not mapped", (unsigned long long)u.addr,
				  (unsigned long long)u.size);
	}
	if (dev->win[pos].iova != u.addr || dev->win[pos].size != u.size)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_DMA_PARTIAL, 0,
				  "[%#llx, +%#llx) does not match [%#llx, +%#llx) exactly",
				  (unsigned long long)u.addr, (unsigned long long)u.size,
				  (unsigned long long)dev->win[pos].iova,
				  (unsigned long long)dev->win[pos].size);
	/* "the server must release all references ... before replying": models
	 * hold none across messages, and dma_unmap lets them drop caches. */
	win_release(dev, &dev->win[pos]);
	memmove(&dev->win[pos], &dev->win[pos + 1], (dev->nwin - pos - 1) * sizeof(dev->win[0]));
	__atomic_store_n(&dev->nwin, dev->nwin - 1, __ATOMIC_RELAXED);
	VFU_INC(dev->stats.dma_unmaps);
	ZN_SIM_DEBUG("dma", "%s: unmap [%#llx, +%#llx)", dev->name, (unsigned long long)u.addr,
		     (unsigned long long)u.size);
	/* "The server responds with the original DMA entry in the request." */
	return vfu_reply(dev, rq, rq->data, sizeof(u), NULL, 0);
}

/* ---- Device side ---- */

static void *dma_fault(struct zn_vfu_dev *dev, uint64_t *counter, int err, int *errp,
		       uint64_t iova, uint64_t len, const char *why)
{
	VFU_INC(*counter);
	/* What a PCI function sees when its request is not completed. */
	vfu_pci_set_status(dev, PCI_STATUS_REC_MASTER_ABORT, true);
	ZN_SIM_LOG_RL_AT(&dev->rl_fault, ZN_SIM_LOG_WARN, "dma", "%s: DMA [%#llx, +%#llx) refused: %s", dev->name,
		      (unsigned long long)iova, (unsigned long long)len, why);
	if (errp)
		*errp = -err;
	return NULL;
}

void *zn_vfu_dma_ptr(struct zn_vfu_dev *dev, uint64_t iova, uint64_t len,
		     enum zn_vfu_dma_dir dir, int *err)
{
	const struct vfu_win *w;
	size_t pos;

	if (!(vfu_pci_cmd(dev) & PCI_COMMAND_MASTER))
		return dma_fault(dev, &dev->stats.dma_err_no_master, EPERM, err, iova, len,
				 "bus mastering is off (PCI COMMAND bit 2)");
	if (len == 0 || iova + len < iova)
		return dma_fault(dev, &dev->stats.dma_err_unmapped, EFAULT, err, iova, len,
				 "empty or wrapping range");
	pos = lower_bound(dev, iova);
	if (pos == dev->nwin || dev->win[pos].iova > iova)
		return dma_fault(dev, &dev->stats.dma_err_unmapped, EFAULT, err, iova, len,
				 "not mapped");
	w = &dev->win[pos];
	if (iova + len > w->iova + w->size)
		return dma_fault(dev, &dev->stats.dma_err_unmapped, EFAULT, err, iova, len,
				 "runs past the end of its window");
	if (!w->va)
		return dma_fault(dev, &dev->stats.dma_err_no_fd, ENODEV, err, iova, len,
				 "window mapped without an fd (no DMA_READ/WRITE here)");
	if ((dir == ZN_VFU_DMA_FROM_RAM && !(w->flags & ZN_VFU_DMA_F_READ)) ||
	    (dir == ZN_VFU_DMA_TO_RAM && !(w->flags & ZN_VFU_DMA_F_WRITE)))
		return dma_fault(dev, &dev->stats.dma_err_perm, EACCES, err, iova, len,
				 dir == ZN_VFU_DMA_TO_RAM ? "window not writable" :
							    "window not readable");
	if (err)
		*err = 0;
	return (uint8_t *)w->va + (iova - w->iova);
}

/* memcpy under the SIGBUS guard; client is the side in the window. */
static int dma_copy(struct zn_vfu_dev *dev, uint64_t iova, void *dst, const void *src,
		    uint64_t len, const void *client)
{
	struct dma_guard g = { .lo = (uintptr_t)client, .hi = (uintptr_t)client + len };

	if (sigsetjmp(g.jb, 0)) {
		dma_guard_cur = NULL;
		dma_fault(dev, &dev->stats.dma_err_bus, EIO, NULL, iova, len,
			  "the client's memory behind the window is gone (file truncated "
			  "after DMA_MAP?)");
		return -EIO;
	}
	dma_guard_cur = &g;
	/* The handler, on this thread, must see the guard before the copy faults. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	memcpy(dst, src, len);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	dma_guard_cur = NULL;
	return 0;
}

int zn_vfu_dma_probe(struct zn_vfu_dev *dev, uint64_t iova, uint64_t len,
		     enum zn_vfu_dma_dir dir)
{
	const struct vfu_win *w;
	size_t pos;

	if (!(vfu_pci_cmd(dev) & PCI_COMMAND_MASTER))
		return -EPERM;
	if (len == 0 || iova + len < iova)
		return -EFAULT;
	pos = lower_bound(dev, iova);
	if (pos == dev->nwin || dev->win[pos].iova > iova)
		return -EFAULT;
	w = &dev->win[pos];
	if (iova + len > w->iova + w->size)
		return -EFAULT;
	if (!w->va)
		return -ENODEV;
	if ((dir == ZN_VFU_DMA_FROM_RAM && !(w->flags & ZN_VFU_DMA_F_READ)) ||
	    (dir == ZN_VFU_DMA_TO_RAM && !(w->flags & ZN_VFU_DMA_F_WRITE)))
		return -EACCES;
	return 0;
}

int zn_vfu_dma_read(struct zn_vfu_dev *dev, uint64_t iova, void *dst, uint64_t len)
{
	int err;
	void *p = zn_vfu_dma_ptr(dev, iova, len, ZN_VFU_DMA_FROM_RAM, &err);

	if (!p)
		return err;
	return dma_copy(dev, iova, dst, p, len, p);
}

int zn_vfu_dma_write(struct zn_vfu_dev *dev, uint64_t iova, const void *src, uint64_t len)
{
	int err;
	void *p = zn_vfu_dma_ptr(dev, iova, len, ZN_VFU_DMA_TO_RAM, &err);

	if (!p)
		return err;
	return dma_copy(dev, iova, p, src, len, p);
}
