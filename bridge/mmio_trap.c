/* SPDX-License-Identifier: MIT */
/*
 * Trapped BAR pages inside a device mapping, served the way the kernel's
 * vfio-pci would if the page were not mappable: as accesses of the device.
 *
 * A program that maps a BAR whole (DPDK 22.11 ignores the sparse-mmap
 * capability) gets PROT_NONE pages where the server traps registers. A load
 * or store there faults; this handler decodes the faulting instruction (the
 * plain MOV forms compilers emit for volatile MMIO accesses: 8B load, 89
 * store, C7 store of an immediate, with or without REX, 1/2/4/8 bytes), turns
 * it into REGION_READ/WRITE, and resumes after it. A doorbell page that many
 * rings share (bnxt's legacy page) thus loses no store, which polling a
 * mapped page would (hw-docs/dpdk-bnxt.md 4).
 *
 * Anything else (another instruction, an address outside a trapped range)
 * goes to the handler that was there before, as if the bridge were absent.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "bridge/bridge.h"
#include "zcnic/log.h"

#define MAX_TRAPS	64

struct trap {
	uintptr_t lo, hi;	/* [lo, hi) in the program's address space */
	struct znb_dev *d;
	uint32_t index;		/* region */
	uint64_t roff;		/* region offset of lo */
};

static struct trap traps[MAX_TRAPS];
static unsigned ntraps;
static struct sigaction old_segv;
static bool installed;

#if defined(__x86_64__)
/* ModRM reg / rm numbers to ucontext registers */
static const int greg[16] = {
	REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

struct insn {
	unsigned len;		/* bytes */
	unsigned size;		/* operand bytes */
	bool store, imm;
	int reg;		/* register operand (load destination, store source) */
	uint64_t immv;
};

static bool decode(const uint8_t *p, struct insn *in)
{
	unsigned i = 0, rex = 0, mod, rm;
	bool opsize16 = false;

	memset(in, 0, sizeof(*in));
	while (p[i] == 0x66 || p[i] == 0x2e || p[i] == 0x3e) {	/* operand size, hints */
		opsize16 |= p[i] == 0x66;
		i++;
	}
	if ((p[i] & 0xf0) == 0x40)
		rex = p[i++];
	switch (p[i]) {
	case 0x88: in->store = true, in->size = 1; break;
	case 0x89: in->store = true; break;
	case 0x8a: in->size = 1; break;
	case 0x8b: break;
	case 0xc7: in->store = true, in->imm = true; break;
	default: return false;
	}
	i++;
	if (!in->size)
		in->size = rex & 8 ? 8 : opsize16 ? 2 : 4;
	mod = p[i] >> 6;
	in->reg = ((p[i] >> 3) & 7) | (rex & 4 ? 8 : 0);
	rm = p[i] & 7;
	i++;
	if (mod == 3)
		return false;		/* a register, not memory */
	if (rm == 4) {			/* SIB */
		if (mod == 0 && (p[i] & 7) == 5)
			i += 4;
		i++;
	} else if (mod == 0 && rm == 5) {
		i += 4;			/* RIP-relative */
	}
	i += mod == 1 ? 1 : mod == 2 ? 4 : 0;
	if (in->imm) {
		unsigned n = in->size == 2 ? 2 : 4;
		int32_t v = 0;

		memcpy(&v, p + i, n);
		in->immv = n == 2 ? (uint16_t)v : (uint64_t)(int64_t)v;	/* sign-extended */
		i += n;
	}
	in->len = i;
	return true;
}

static void chain(int sig, siginfo_t *si, void *uc)
{
	if (old_segv.sa_flags & SA_SIGINFO) {
		if (old_segv.sa_sigaction)
			old_segv.sa_sigaction(sig, si, uc);
		return;
	}
	if (old_segv.sa_handler == SIG_IGN)
		return;
	if (old_segv.sa_handler && old_segv.sa_handler != SIG_DFL) {
		old_segv.sa_handler(sig);
		return;
	}
	/* default: die of it, as without the bridge */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t a = (uintptr_t)si->si_addr;
	greg_t *g = uc->uc_mcontext.gregs;
	struct insn in;
	struct trap t = { 0 };
	uint64_t v = 0;
	int rc = -EFAULT;
	int saved = errno;

	pthread_mutex_lock(&znb_lock);
	for (unsigned i = 0; i < ntraps; i++)
		if (a >= traps[i].lo && a < traps[i].hi && traps[i].d->bus)
			t = traps[i];
	if (t.d && decode((const uint8_t *)g[REG_RIP], &in) && a + in.size <= t.hi) {
		uint64_t off = t.roff + (a - t.lo);

		if (in.store) {
			v = in.imm ? in.immv : (uint64_t)g[greg[in.reg]];
			rc = t.d->bus->ops->region_write(t.d->bus, t.index, off, &v, in.size);
		} else {
			rc = t.d->bus->ops->region_read(t.d->bus, t.index, off, &v, in.size);
			if (!rc) {
				if (in.size == 8 || in.size == 4)	/* 32-bit loads zero-extend */
					g[greg[in.reg]] = (greg_t)(in.size == 8 ? v : (uint32_t)v);
				else
					memcpy(&g[greg[in.reg]], &v, in.size);
			}
		}
	}
	pthread_mutex_unlock(&znb_lock);
	errno = saved;
	if (rc) {
		chain(sig, si, ucv);
		return;
	}
	g[REG_RIP] += in.len;
}
#endif

void znb_trap_add(struct znb_dev *d, uint32_t index, void *va, uint64_t roff, size_t len)
{
#if defined(__x86_64__)
	struct sigaction sa;

	/* called with znb_lock held */
	for (unsigned i = 0; i < ntraps; i++) {
		if (traps[i].lo == (uintptr_t)va) {
			traps[i] = (struct trap){ (uintptr_t)va, (uintptr_t)va + len, d, index, roff };
			return;
		}
	}
	if (ntraps == MAX_TRAPS) {
		zn_log(ZN_LOG_WARN, ZNB_LOG, "%s: more than %d trapped BAR ranges: this one "
		       "faults", d->bdf, MAX_TRAPS);
		return;
	}
	traps[ntraps++] = (struct trap){ (uintptr_t)va, (uintptr_t)va + len, d, index, roff };
	if (installed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old_segv) == 0)
		installed = true;
#else
	(void)d, (void)index, (void)va, (void)roff, (void)len;
#endif
}
