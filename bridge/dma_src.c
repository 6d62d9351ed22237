/* SPDX-License-Identifier: MIT */
/*
 * What backs the memory of a VFIO_IOMMU_MAP_DMA: a vfio-user server reaches
 * client memory only through a file it maps (DMA_MAP with an fd; zn-nicsim
 * serves no DMA_READ/WRITE), so each mapping is cut at the boundaries of the
 * process's mappings (/proc/self/maps, proc(5)) and each piece is given the
 * file behind it:
 *
 *   shared file mappings (hugetlbfs files, memfds, shared anonymous memory,
 *   which is a shmem file): the file itself, opened through
 *   /proc/self/map_files (needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE),
 *   else a dup of an open fd of the same inode, else the path if it still
 *   names that inode;
 *   private anonymous memory (malloc, --no-huge pools, MAP_HUGETLB private):
 *   made shareable in place by core/mem's zn_mem_adopt, same address, same
 *   contents;
 *   private file mappings, stacks, vdso: refused (EFAULT), with a message:
 *   the device would not see what the process writes there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bridge/bridge.h"
#include "zcnic/log.h"
#include "zcnic/mem.h"

#define MAPS		"/proc/self/maps"
#define DELETED		" (deleted)"

struct vma {
	uint64_t start, end, off;
	char perms[5];
	unsigned maj, min;
	unsigned long inode;
	char path[ZNB_PATH_MAX];
};

static bool parse_vma(const char *line, struct vma *v)
{
	int n = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %lu %n", &v->start,
		   &v->end, v->perms, &v->off, &v->maj, &v->min, &v->inode, &n) < 7 || !n)
		return false;
	snprintf(v->path, sizeof(v->path), "%s", line + n);
	v->path[strcspn(v->path, "\n")] = '\0';
	return true;
}

static bool same_file(int fd, const struct vma *v)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_ino == v->inode &&
	       major(st.st_dev) == v->maj && minor(st.st_dev) == v->min;
}

/* An open fd of this process on the same inode, duplicated. */
static int fd_of_inode(const struct vma *v)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int found = -1;

	if (!d)
		return -1;
	while (found < 0 && (e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] != '.' && fd != dirfd(d) && !znb_fd_is_ours(fd) &&
		    same_file(fd, v))
			found = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	}
	closedir(d);
	return found;
}

static int file_of(const struct vma *v)
{
	char path[64];
	size_t plen = strlen(v->path), dlen = strlen(DELETED);
	int fd;

	snprintf(path, sizeof(path), "/proc/self/map_files/%" PRIx64 "-%" PRIx64, v->start,
		 v->end);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	fd = fd_of_inode(v);
	if (fd >= 0)
		return fd;
	if (v->path[0] == '/' && (plen < dlen || strcmp(v->path + plen - dlen, DELETED))) {
		fd = open(v->path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 && same_file(fd, v))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	return -1;
}

static bool anonymous(const struct vma *v)
{
	return v->inode == 0 && (!v->path[0] || !strcmp(v->path, "[heap]"));
}

static int piece_of(const struct vma *v, uint64_t va, uint64_t len, struct znb_piece *p)
{
	p->va = va;
	p->len = len;
	p->fd = -1;
	if (!strchr(v->perms, 'r') || !strchr(v->perms, 'w')) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "VFIO_IOMMU_MAP_DMA: memory at 0x%" PRIx64 " is not "
		       "readable and writable (%s): EFAULT", va, v->perms);
		return -EFAULT;
	}
	if (v->perms[3] == 's') {
		p->fd = file_of(v);
		p->off = v->off + (va - v->start);
		if (p->fd >= 0)
			return 0;
		zn_log(ZN_LOG_ERR, ZNB_LOG, "VFIO_IOMMU_MAP_DMA: cannot open the file behind "
		       "0x%" PRIx64 " (%s) to share it with the device (run as root, or keep an "
		       "fd of it open): EFAULT", va, v->path[0] ? v->path : "shared memory");
		return -EFAULT;
	}
	if (anonymous(v) || !strcmp(v->path, "/anon_hugepage" DELETED)) {
		struct zn_dma_region *r;
		int rc = zn_mem_adopt((void *)(uintptr_t)va, len, &r);

		if (rc == 0)
			p->adopted = r;
		if (rc >= 0)
			rc = zn_mem_va_to_fd((void *)(uintptr_t)va, len, &p->fd, &p->off);
		if (rc == 0)
			p->fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
		if (rc == 0 && p->fd >= 0)
			return 0;
		zn_log(ZN_LOG_ERR, ZNB_LOG, "VFIO_IOMMU_MAP_DMA: cannot make the anonymous "
		       "memory at 0x%" PRIx64 " (+0x%" PRIx64 ") shareable with the device: %s",
		       va, len, strerror(rc < 0 ? -rc : errno));
		if (p->adopted)
			zn_dma_region_free(p->adopted);
		p->adopted = NULL;
		return rc < 0 ? rc : -EFAULT;
	}
	zn_log(ZN_LOG_ERR, ZNB_LOG, "VFIO_IOMMU_MAP_DMA: memory at 0x%" PRIx64 " is a private "
	       "mapping of %s: the device would not see the process's writes there; map DMA "
	       "memory MAP_SHARED (or anonymous): EFAULT", va, v->path[0] ? v->path : "a file");
	return -EFAULT;
}

void znb_dma_pieces_free(struct znb_piece *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (p[i].fd >= 0)
			close(p[i].fd);
		if (p[i].adopted)
			zn_dma_region_free(p[i].adopted);
	}
	free(p);
}

/* The VMAs covering [va, end), in order (maps is sorted); pieces appended. */
static int collect(FILE *f, uint64_t va, uint64_t iova, uint64_t end,
		   struct znb_piece **out, unsigned *n)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned room = 0;
	uint64_t at = va;
	struct vma *v = malloc(sizeof(*v));
	int rc = 0;

	if (!v)
		return -ENOMEM;
	while (rc == 0 && at < end && getline(&line, &cap, f) > 0) {
		uint64_t lo, hi;

		if (!parse_vma(line, v) || v->end <= at)
			continue;
		if (v->start > at)
			break;		/* a hole */
		lo = at;
		hi = v->end < end ? v->end : end;
		if (*n == room) {
			struct znb_piece *np = realloc(*out, (room ? room * 2 : 4) * sizeof(*np));

			if (!np) {
				rc = -ENOMEM;
				break;
			}
			*out = np;
			room = room ? room * 2 : 4;
		}
		memset(&(*out)[*n], 0, sizeof(**out));
		rc = piece_of(v, lo, hi - lo, &(*out)[*n]);
		if (rc == 0) {
			(*out)[*n].iova = iova + (lo - va);
			(*n)++;
		}
		at = hi;
	}
	if (rc == 0 && at < end) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "VFIO_IOMMU_MAP_DMA: nothing is mapped at 0x%" PRIx64
		       " (inside 0x%" PRIx64 "+0x%" PRIx64 "): EFAULT", at, va, end - va);
		rc = -EFAULT;
	}
	free(line);
	free(v);
	return rc;
}

int znb_dma_pieces(uint64_t va, uint64_t iova, uint64_t len, struct znb_piece **out,
		   unsigned *n)
{
	FILE *f = fopen(MAPS, "re");
	int rc;

	*out = NULL;
	*n = 0;
	if (!f)
		return -errno;
	rc = collect(f, va, iova, va + len, out, n);
	fclose(f);
	if (rc < 0) {
		znb_dma_pieces_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}
