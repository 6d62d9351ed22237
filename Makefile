# zcnic — GNU Make build.
#
#   make               libzcnic (static + shared), libznsim, the apps
#   make SAN=1 ...     the same with AddressSanitizer + UBSan (separate build dir)
#   make OWNER=0 ...   without the data path's owner assertion (core/debug/owner.h)
#   make test          install missing packages, build, run every test
#   make test-long     the long runs: 1,000,000 frames of 60..9000 bytes through
#                      mlx5 and bnxt, 100 bnxt bring-up cycles, 256 MiB each
#                      way over zcnic's TCP (test_tcp_pair), 64 MiB each way
#                      between the liburing-style TCP programs and Linux, the
#                      long mlx5 fault cases (a recovery that fails, a refused
#                      bring-up)
#   make soak          traffic under random injected faults for ten minutes, every
#                      byte checked (SOAK_SECS=N for another length; make test runs 10 s)
#   make run           the main job (on zn-nicsim when no NIC is bound)
#   make cost          instructions per operation of each hot path (callgrind,
#                      exact), by layer, with the system and allocator calls
#                      made on the way; the table and build/bench/cost.json
#   make fuzz          libFuzzer targets (clang)
#   make fuzz-long     every fuzz target for ten minutes (FUZZ_SECS), crashes kept
#   make test-vfio     core/bus against real kernel VFIO in QEMU guests (also run by make test)
#   make test-dpdk     DPDK's bnxt PMD (dpdk-testpmd) on two bnxt models through the bridge
#                      (also run by make test, as tests/integration/dpdk_bnxt.sh)
#   make install PREFIX=/usr/local [DESTDIR=...]
#   make help          this text
#
# Sources are found by layout, so adding a file needs no Makefile change:
#   core/** drivers/**   -> libzcnic          sim/**        -> libznsim
#   apps/NAME/*.c        -> bin/NAME          tests/unit/test_*.c -> CMocka binaries
#   tests/progs/NAME.c   -> test helper programs    tests/fuzz/fuzz_*.c -> fuzzers
#   bridge/*.c           -> lib/libznvfio.so (the kernel-VFIO bridge, LD_PRELOAD)

VERSION   := 0.1.0
PREFIX    ?= /usr/local
CC        ?= cc
SAN       ?= 0
OWNER     ?= 1
BUILD     ?= $(if $(filter 1,$(SAN)),build-san,build)

WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wno-missing-field-initializers
CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 $(WARN) -fPIC -D_GNU_SOURCE -Iinclude -Iinclude/compat -I. -MMD -MP
CFLAGS    += $(if $(filter 1,$(OWNER)),-DZN_DEBUG_OWNER)
LDLIBS    := -lpci -lnuma -ljson-c -lpthread -lrt -lm
ifeq ($(SAN),1)
SANFLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
CFLAGS    += $(SANFLAGS)
LDFLAGS   += $(SANFLAGS)
endif

LIB_SRCS  := $(sort $(shell find core drivers -name '*.c' 2>/dev/null))
SIM_SRCS  := $(sort $(shell find sim -name '*.c' 2>/dev/null))
BRIDGE_SRCS := $(sort $(wildcard bridge/*.c))
# apps/common/*.c is not an app: it is compiled into every app (the command
# line's shared rules, e.g. how numbers are read).
APPS      := $(filter-out common,$(sort $(notdir $(patsubst %/,%,$(dir $(wildcard apps/*/*.c))))))
APP_COMMON_OBJS = $(call obj,$(wildcard apps/common/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
TSUP_SRCS := $(sort $(wildcard tests/unit/support/*.c))
PROG_SRCS := $(sort $(wildcard tests/progs/*.c))
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))

obj        = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
LIB_OBJS  := $(call obj,$(LIB_SRCS))
SIM_OBJS  := $(call obj,$(SIM_SRCS))
TSUP_OBJS := $(call obj,$(TSUP_SRCS))
LIBA      := $(BUILD)/lib/libzcnic.a
LIBSO     := $(BUILD)/lib/libzcnic.so
SIMA      := $(BUILD)/lib/libznsim.a
BRIDGE_OBJS := $(call obj,$(BRIDGE_SRCS))
BRIDGESO  := $(BUILD)/lib/libznvfio.so
APP_BINS  := $(addprefix $(BUILD)/bin/,$(APPS))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
PROG_BINS := $(patsubst tests/progs/%.c,$(BUILD)/tests/%,$(PROG_SRCS))

# zn-bench measures the kernel path with the system liburing (Debian's
# liburing-dev), whose header has the same name as zcnic's own
# include/compat/liburing.h: so its kernel-path files (apps/zn-bench/kern_*.c)
# are compiled without -Iinclude/compat, and zn-bench links -luring before
# libzcnic.a, so that io_uring_* resolve to the system library and the
# archive's compat object (core/uring/compat/liburing.o) is never pulled in
# (zn-bench's zcnic side uses only the native zn_uring_* API).
# APP_LIBS_<app>: extra libraries of one app, ahead of the zcnic archives.
BENCH_KERN_OBJS := $(call obj,$(wildcard apps/zn-bench/kern_*.c))
$(BENCH_KERN_OBJS): CFLAGS := $(filter-out -Iinclude/compat,$(CFLAGS))
APP_LIBS_zn-bench := -luring
APP_LIBS_zn-nicsim := -lpcap

.PHONY: all deps test test-long test-vfio test-dpdk run cost fuzz fuzz-long install clean tests help soak
all: $(LIBA) $(LIBSO) $(SIMA) $(BRIDGESO) $(APP_BINS)
tests: all $(UNIT_BINS) $(PROG_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# The shared library exports exactly core/libzcnic.map: the library is
# compiled with hidden visibility, and the installed headers give what they
# declare default visibility (#pragma GCC visibility); the map names the ABI
# and its version. scripts/check-exports.sh checks map == exports ==
# declarations of the installed headers. The static archive holds the same
# objects: hidden symbols link statically as before (apps, unit tests).
LIBMAP    := core/libzcnic.map
$(LIB_OBJS): CFLAGS += -fvisibility=hidden

$(LIBSO): $(LIB_OBJS) $(LIBMAP)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libzcnic.so.0 -Wl,--version-script=$(LIBMAP) $(LDFLAGS) \
	    $(LIB_OBJS) -o $@ $(LDLIBS)

# libznvfio.so: the bridge and the zcnic objects it uses (the archive's
# members it pulls), every symbol but the libc entry points it replaces
# local (bridge/libznvfio.map), so that it never binds to, nor is bound by,
# the zcnic a program may carry itself.
$(BRIDGE_OBJS): CFLAGS += -fvisibility=hidden
$(BRIDGESO): $(BRIDGE_OBJS) $(LIBA) bridge/libznvfio.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,--version-script=bridge/libznvfio.map -Wl,--no-undefined $(LDFLAGS) \
	    $(BRIDGE_OBJS) $(LIBA) -o $@ -Wl,--as-needed -ldl $(LDLIBS)

$(SIMA): $(SIM_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

.SECONDARY:
.SECONDEXPANSION:
$(BUILD)/bin/%: $$(call obj,$$(wildcard apps/%/*.c)) $(APP_COMMON_OBJS) $(LIBA) $(SIMA)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(filter %.o,$^) $(APP_LIBS_$*) $(SIMA) $(LIBA) -o $@ $(LDLIBS)

$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(TSUP_OBJS) $(LIBA) $(SIMA)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(filter %.o,$^) $(SIMA) $(LIBA) -o $@ $(LDLIBS) -lcmocka

# The bridge's unit test carries the bridge itself (its libc entry points
# come first in the binary, as LD_PRELOAD would put them).
$(BUILD)/tests/test_vfio_bridge: $(BRIDGE_OBJS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/progs/%.o $(TSUP_OBJS) $(LIBA) $(SIMA)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(filter %.o,$^) $(SIMA) $(LIBA) -o $@ $(LDLIBS) -lcmocka

deps:
	@scripts/deps.sh

help:
	@sed -n '1,/^$$/s/^# \{0,1\}//p' Makefile

test: deps
	@$(MAKE) --no-print-directory tests
	@BUILD=$(BUILD) SAN=$(SAN) scripts/run-tests.sh

test-long: deps
	@$(MAKE) --no-print-directory tests
	@BUILD=$(BUILD) ZN_MLX5_FRAMES=1000000 tests/integration/mlx5_port.sh
	@BUILD=$(BUILD) ZN_BNXT_FRAMES=1000000 ZN_BNXT_CYCLES=100 tests/integration/bnxt_pair.sh
	@BUILD=$(BUILD) ZN_FAULTS_LONG=1 ZN_FAULTS='^mlx5-(flr-dead|flr-tx|cmd-fail-start)$$' tests/integration/faults.sh
	@ZN_TCP_LONG_MIB=256 $(BUILD)/tests/test_tcp_pair
	@BUILD=$(BUILD) ZN_TCP_LIBURING_MIB=64 tests/integration/tcp_liburing.sh

SOAK_SECS ?= 600
soak: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) SOAK_SECS=$(SOAK_SECS) tests/integration/fault_soak.sh

test-vfio: deps
	@scripts/test-vfio.sh

test-dpdk: deps
	@scripts/deps.sh dpdk || true
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) SAN=$(SAN) tests/integration/dpdk_bnxt.sh

run: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) scripts/run.sh

# valgrind does not run ASan builds: the counts are the plain build's.
cost: deps
ifeq ($(SAN),1)
	@echo "make cost counts the plain build (valgrind does not run ASan builds): run it without SAN=1"; exit 2
else
	@BUILD=$(BUILD) scripts/cost.sh
endif

# libFuzzer: its own build dir, everything compiled by clang with coverage.
FUZZ_BUILD := build-fuzz
FUZZ_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -Iinclude -Iinclude/compat -I. -Wall -Wextra -Werror \
               -Wno-missing-field-initializers -fsanitize=fuzzer-no-link,address,undefined
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(FUZZ_BUILD)/%,$(FUZZ_SRCS))
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(LIB_SRCS) $(SIM_SRCS))
fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

# Ten minutes per target (FUZZ_SECS=N to change), findings in build-fuzz/findings/.
fuzz-long: fuzz
	@scripts/fuzz-long.sh
$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJS)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -o $@ $(LDLIBS)

install: all
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBSO) $(DESTDIR)$(PREFIX)/lib/libzcnic.so.$(VERSION)
	install -m 755 $(BRIDGESO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libzcnic.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libzcnic.so.0
	ln -sf libzcnic.so.0 $(DESTDIR)$(PREFIX)/lib/libzcnic.so
	cp -r include/zcnic $(DESTDIR)$(PREFIX)/include/
	[ ! -d include/compat ] || { install -d $(DESTDIR)$(PREFIX)/include/zcnic-compat && \
	  cp -r include/compat/. $(DESTDIR)$(PREFIX)/include/zcnic-compat/; }
	[ -z "$(APP_BINS)" ] || install -m 755 $(APP_BINS) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@LIBS@|$(LDLIBS)|g' scripts/zcnic.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/zcnic.pc

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) $(FUZZ_BUILD) -name '*.d' 2>/dev/null)
