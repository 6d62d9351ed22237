/* SPDX-License-Identifier: MIT */
/*
 * libznvfio.so: the kernel VFIO uAPI (Linux include/uapi/linux/vfio.h and
 * Documentation/driver-api/vfio.rst) and the sysfs a VFIO program reads,
 * presented over vfio-user devices (zn-nicsim, or any vfio-user server), for
 * programs loaded with LD_PRELOAD=libznvfio.so and
 * ZN_VFIO_DEVICES=BDF=vfio-user:PATH[,BDF=vfio-user:PATH...].
 *
 *   interpose.c  the libc entry points: divert what names a bridged path or
 *                fd, pass everything else to the next definition untouched
 *   config.c     ZN_VFIO_DEVICES, the devices, their IOMMU groups, the probe
 *   sysfs.c      the private tree (sysfs, /dev/vfio) and the path redirection
 *   fdtab.c      bridged fds: real placeholder fds mapped to objects
 *   container.c  /dev/vfio/vfio: type1 IOMMU, MAP_DMA / UNMAP_DMA
 *   dma_src.c    which file backs a DMA mapping's memory (by fd to vfio-user)
 *   group.c      /dev/vfio/N
 *   device.c     the device fd: info, regions, IRQs, reset, pread/pwrite, mmap
 *   irq.c        VFIO_DEVICE_SET_IRQS
 *
 * Every znb_* call returns >= 0 or a negative errno; interpose.c turns that
 * into -1 and errno. One lock (znb_lock) serialises every bridged operation:
 * they are control-path calls. The fd table is read without it.
 */
#ifndef ZN_BRIDGE_H
#define ZN_BRIDGE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "zcnic/bus.h"

#define ZNB_LOG			"vfio-bridge"
#define ZNB_MAX_DEVS		32
#define ZNB_BDF_LEN		16
#define ZNB_PATH_MAX		4096
/* vfio-pci's fixed region offsets: index << 40 (VFIO_PCI_OFFSET_SHIFT). */
#define ZNB_REGION_SHIFT	40
#define ZNB_NUM_REGIONS		9	/* BAR0-5, ROM, config, VGA */
#define ZNB_NUM_IRQS		5	/* INTx, MSI, MSI-X, ERR, REQ */
#define ZNB_CONFIG_MAX		4096
/* The size of a uAPI struct up to and including member m: what the kernel
 * reads and checks argsz against. */
#define ZNB_OFFSETOFEND(T, m)	(offsetof(T, m) + sizeof(((T *)0)->m))

/* The real libc functions (dlsym RTLD_NEXT), for bridge code that must not
 * come back through the interposers. */
struct znb_real {
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int (*close)(int);
};
extern struct znb_real znb_real;

extern pthread_mutex_t znb_lock;
/* Non-zero while this thread runs bridge set-up (ZN_VFIO_DEVICES parsing,
 * building the tree): its own path calls must reach the real system. */
extern __thread int znb_inside;

struct znb_container;
struct znb_group;

struct znb_dev {
	char bdf[ZNB_BDF_LEN];		/* "0000:3b:00.0" */
	char sock[ZNB_PATH_MAX];	/* vfio-user socket path */
	unsigned group;			/* IOMMU group number */
	/* From the probe (config.c), for sysfs. */
	bool probed;
	uint8_t config[ZNB_CONFIG_MAX];
	uint32_t config_size;
	uint64_t bar_size[7];		/* BAR0-5, ROM */
	/* Open state (device.c). */
	struct zn_bus_dev *bus;		/* NULL while no device fd is open */
	unsigned fd_refs;
	struct zn_region_info region[ZNB_NUM_REGIONS];
	bool region_ok[ZNB_NUM_REGIONS];
	struct znb_irq *irq;		/* per index; irq.c */
};

struct znb_group {
	unsigned num;
	bool open;			/* /dev/vfio/N is open (once at a time) */
	unsigned fd_refs;
	unsigned dev_open;		/* device fds of this group */
	struct znb_container *c;	/* SET_CONTAINER */
	struct znb_group *next_in_c;
};

struct znb_state {
	bool active;			/* ZN_VFIO_DEVICES names at least one device */
	unsigned ndev;
	struct znb_dev dev[ZNB_MAX_DEVS];
	struct znb_group group[ZNB_MAX_DEVS];	/* one per device, same index */
};
extern struct znb_state znb;

/* config.c */
void znb_config_init(void);		/* once; parses ZN_VFIO_DEVICES */
struct znb_dev *znb_dev_by_bdf(const char *bdf, size_t len);
struct znb_group *znb_group_by_num(unsigned num);
struct znb_dev *znb_group_dev(struct znb_group *g);
/* Connects, reads ids, config space and region sizes, disconnects. */
int znb_dev_probe(struct znb_dev *d);
void znb_warn_once(bool *said, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* mmio_trap.c: accesses to the PROT_NONE (trapped) pages of a device mapping
 * at va (region index, region offset roff, len bytes) become REGION_READ/
 * WRITE messages; with znb_lock held. */
void znb_trap_add(struct znb_dev *d, uint32_t index, void *va, uint64_t roff, size_t len);

/* sysfs.c */
enum znb_lookup {
	ZNB_LOOKUP,	/* a path to stat, read, follow */
	ZNB_LIST,	/* a directory to list (opendir, open O_DIRECTORY) */
};
/*
 * The path to use instead of path: buf (the private tree's copy) when path
 * names something the bridge shows, else path itself. Builds the tree on
 * first need.
 */
const char *znb_redirect(const char *path, char *buf, size_t len, enum znb_lookup how);
/* "/dev/vfio/vfio" -> 0 (container), "/dev/vfio/N" of a bridged group -> 1
 * with *g, else -1. */
int znb_dev_node(const char *path, struct znb_group **g);
/* A path of the private tree turned back into the one the program asked
 * for (realpath results); in place. */
void znb_unredirect(char *path, size_t len);
void znb_sysfs_cleanup(void);

/* fdtab.c */
enum znb_kind { ZNB_CONTAINER = 1, ZNB_GROUP, ZNB_DEVICE };
struct znb_obj {
	enum znb_kind kind;
	unsigned fds;			/* fds naming it */
	void *p;			/* container, group or device */
};
/* A new placeholder fd (memfd) naming obj: >= 0 or -errno. */
int znb_fd_new(struct znb_obj *obj, const char *name, bool cloexec);
/* The object fd names, or NULL; lock-free. */
struct znb_obj *znb_fd_get(int fd);
/* Record that newfd (from dup/dup2/dup3/F_DUPFD of oldfd) names oldfd's object. */
void znb_fd_dup(int oldfd, int newfd);
/* Forget fd (being closed); releases its object with the last fd. */
void znb_fd_forget(int fd);
#define ZNB_FDTAB_SIZE 65536
extern struct znb_obj *znb_fdtab[ZNB_FDTAB_SIZE];	/* atomic accesses only */
static inline bool znb_fd_is_ours(int fd)
{
	return fd >= 0 && fd < ZNB_FDTAB_SIZE &&
	       __atomic_load_n(&znb_fdtab[fd], __ATOMIC_ACQUIRE) != NULL;
}

/* container.c */
int znb_container_open(bool cloexec);
long znb_container_ioctl(struct znb_container *c, unsigned long req, void *arg);
void znb_container_release(struct znb_container *c);
void znb_container_get(struct znb_container *c);
bool znb_container_has_iommu(const struct znb_container *c);
/* Give a newly opened device every mapping of its container (and take
 * them back out on failure). */
int znb_container_replay(struct znb_container *c, struct znb_dev *d);
void znb_container_detach(struct znb_container *c, struct znb_group *g);
int znb_container_attach(struct znb_container *c, struct znb_group *g);

/* dma_src.c: the files behind [va, va + len) */
struct znb_piece {
	uint64_t va, iova, len;
	int fd;				/* owned */
	uint64_t off;			/* into fd */
	struct zn_dma_region *adopted;	/* anonymous memory made shareable */
};
int znb_dma_pieces(uint64_t va, uint64_t iova, uint64_t len, struct znb_piece **out,
		   unsigned *n);
void znb_dma_pieces_free(struct znb_piece *p, unsigned n);

/* group.c */
int znb_group_open(struct znb_group *g, bool cloexec);
long znb_group_ioctl(struct znb_group *g, unsigned long req, void *arg);
void znb_group_release(struct znb_group *g);

/* device.c */
int znb_device_open(struct znb_group *g, const char *name);
long znb_device_ioctl(struct znb_dev *d, unsigned long req, void *arg);
ssize_t znb_device_rw(struct znb_dev *d, void *buf, size_t len, uint64_t off, bool write);
void *znb_device_mmap(struct znb_dev *d, void *addr, size_t len, int prot, int flags,
		      uint64_t off, int *err);
void znb_device_release(struct znb_dev *d);

/* irq.c */
int znb_irq_info(struct znb_dev *d, uint32_t index, uint32_t *flags, uint32_t *count);
long znb_irq_set(struct znb_dev *d, void *arg);
void znb_irq_release(struct znb_dev *d);

#endif
