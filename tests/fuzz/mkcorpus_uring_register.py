#!/usr/bin/env python3
"""Seed corpus for fuzz_uring_register: op index, nr_args, harness bits, then the argument."""
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus",
                                                         "uring_register")
os.makedirs(out, exist_ok=True)

# indexes into the harness's op table (tests/fuzz/fuzz_uring_register.c)
BUFFERS, FILES, PROBE, ZCRX_IFQ, QUERY, PBUF_RING, PBUF_UNREG, PBUF_STATUS = range(8)
SYNC_CANCEL, ZCRX_CTRL, EVENTFD, EVENTFD_ASYNC, IOWQ_AFF, IOWQ_MAX, RING_FDS = range(8, 15)
RING_FDS_UNREG, ENABLE, RESTRICT, SEND_MSG, FILES2, FILES_UPD, FILES_UPD2 = range(15, 22)
ALLOC_RANGE, RAW = range(22, 24)
CLOCK, MEM_REGION = range(24, 26)
RESIZE = 26
DISABLED, ARG_NULL, BLIND, TABLE, DEFER = 1, 2, 4, 8, 16
FD_OFF = 2048   # the harness's fd array in the argument


def ptr(kind, off=0):
    """A pointer field: kind 0 NULL, 1 harness memory (page aligned), 2 unaligned, 3 the arg."""
    return (off << 2) | kind


def seed(op, nr, bits, payload=b""):
    return bytes([op, nr & 0xff, bits]) + payload


iov = lambda base, length: struct.pack("<QQ", base, length)
buf_reg = lambda addr, entries, bgid, flags=0: struct.pack("<QIHH3Q", addr, entries, bgid, flags,
                                                           0, 0, 0)
# io_uring_query_hdr: next_entry, query_data, query_op, size, result, resv[3]
qhdr = lambda nxt, data, op, size: struct.pack("<QQIIi3I", nxt, data, op, size, 0, 0, 0, 0)
ifq = lambda if_idx, rxq, rq, flags, area, region: struct.pack("<IIIIQQ", if_idx, rxq, rq, flags,
                                                               area, region) + bytes(64)
area = lambda addr, length, flags=0: struct.pack("<QQQII2Q", addr, length, 0, flags, 0, 0, 0)
region = lambda addr, size, flags=1: struct.pack("<QQIIQ4Q", addr, size, flags, 0, 0, 0, 0, 0, 0)

seeds = {
    "buffers_ok": seed(BUFFERS, 3, 0, iov(ptr(1, 0), 4096) + iov(0, 0) + iov(ptr(2, 100), 77)),
    "buffers_efault": seed(BUFFERS, 2, 0, iov(ptr(1), 64) + iov(0, 5)),
    "buffers_overflow": seed(BUFFERS, 1, 0, iov(2**64 - 1, 16)),
    "buffers_zero": seed(BUFFERS, 0, 0),
    "files": seed(FILES, 5, 0, struct.pack("<5i", 0, 1, 2, 3, -2)),
    "files_skip": seed(FILES, 2, 0, struct.pack("<2i", 1, -2)),
    "probe": seed(PROBE, 64, 0),
    "probe_dirty": seed(PROBE, 8, 0, b"\x01"),
    "probe_big": seed(PROBE, 255, 0),
    # next_entry: bit 0 set = the header in grid slot (value >> 1); the grid is 40 bytes
    "query_chain": seed(QUERY, 0, BLIND, qhdr(1 | 1 << 1, ptr(1), 0, 64) +
                        qhdr(1 | 2 << 1, ptr(1, 4096), 1, 64) + qhdr(0, ptr(1, 8192), 2, 16)),
    "query_loop": seed(QUERY, 0, 0, qhdr(1, ptr(1), 0, 64)),
    "zcrx_ifq": seed(ZCRX_IFQ, 1, 0, ifq(1, 0, 64, 0, 1, 1).ljust(512, b"\0") +
                     area(ptr(1), 65536).ljust(512, b"\0") + region(ptr(1, 65536), 8192)),
    "zcrx_ifq_noregion": seed(ZCRX_IFQ, 1, 0, ifq(7, 3, 100, 0, 1, 0).ljust(512, b"\0") +
                              area(ptr(2, 5), 100)),
    "pbuf_ring": seed(PBUF_RING, 1, 0, buf_reg(ptr(1), 8, 3)),
    "pbuf_ring_mmap": seed(PBUF_RING, 1, 0, buf_reg(0, 16, 4, 1)),
    "pbuf_status": seed(PBUF_STATUS, 1, 0, struct.pack("<I", 3)),
    "sync_cancel": seed(SYNC_CANCEL, 1, 0, struct.pack("<QiIqqB", 7, 0, 1, 0, 1000, 0)),
    "zcrx_ctrl": seed(ZCRX_CTRL, 1, 0, struct.pack("<II", 0, 0)),
    "eventfd": seed(EVENTFD, 1, 0, struct.pack("<i", 3)),
    "eventfd_bad": seed(EVENTFD_ASYNC, 1, 0, struct.pack("<i", 2)),
    "iowq": seed(IOWQ_MAX, 2, 0, struct.pack("<II", 4, 8)),
    "ring_fds": seed(RING_FDS, 2, 0, struct.pack("<IIQIIQ", 2**32 - 1, 0, 1, 5, 0, 1)),
    "enable": seed(ENABLE, 0, DISABLED | ARG_NULL),
    "restrict": seed(RESTRICT, 0, DISABLED),
    # io_uring_restriction: opcode u16, op/flags u8, resv u8, resv2[3] u32
    "restrict_nop": seed(RESTRICT, 3, DISABLED, struct.pack("<HBB3I", 1, 0, 0, 0, 0, 0) +
                         struct.pack("<HBB3I", 0, 8, 0, 0, 0, 0) +
                         struct.pack("<HBB3I", 2, 0x10, 0, 0, 0, 0)),
    "restrict_required": seed(RESTRICT, 2, DISABLED, struct.pack("<HBB3I", 1, 0, 0, 0, 0, 0) +
                              struct.pack("<HBB3I", 3, 1, 0, 0, 0, 0)),
    "restrict_bad": seed(RESTRICT, 2, DISABLED, struct.pack("<HBB3I", 1, 0, 0, 0, 0, 0) +
                         struct.pack("<HBB3I", 1, 200, 0, 0, 0, 0)),
    "restrict_enabled": seed(RESTRICT, 1, 0, struct.pack("<HBB3I", 1, 0, 0, 0, 0, 0)),
    # io_uring_file_index_range: off, len, resv
    "alloc_range": seed(ALLOC_RANGE, 0, TABLE, struct.pack("<IIQ", 1, 2, 0)),
    "alloc_range_wrap": seed(ALLOC_RANGE, 0, TABLE, struct.pack("<IIQ", 2**32 - 1, 2, 0)),
    "send_msg": seed(SEND_MSG, 1, BLIND, struct.pack("<BBHiQQI", 40, 0, 0, 1, 9, 0, 3)),
    "raw_unknown": seed(RAW, 200, ARG_NULL),
    # fd entries: bit 3 = IORING_REGISTER_FILES_SKIP, else 0 -1, 1 the ring, 2 a handle, 3 an eventfd
    "files2_sparse": seed(FILES2, 1, 0, struct.pack("<IIQQQ", 4, 1, 0, 0, 0)),
    "files2_data": seed(FILES2, 1, 0, struct.pack("<IIQQQ", 3, 0, 0, 1, 0).ljust(FD_OFF, b"\0") +
                        struct.pack("<3i", 2, 0, 1)),
    "clock_boottime": seed(CLOCK, 0, 0, struct.pack("<4I", 7, 0, 0, 0)),
    "clock_bad": seed(CLOCK, 0, 0, struct.pack("<4I", 0, 0, 0, 0)),
    # io_uring_mem_region_reg: region_uptr (bit 0: the descriptor at arg + 1024), flags, resv[2]
    "region_wait_user": seed(MEM_REGION, 1, DISABLED, struct.pack("<QQ2Q", 1, 1, 0, 0)
                             .ljust(1024, b"\0") + region(ptr(1, 8192), 4096)),
    "region_wait_kernel": seed(MEM_REGION, 1, DISABLED, struct.pack("<QQ2Q", 1, 1, 0, 0)
                               .ljust(1024, b"\0") + region(0, 8192, 0)),
    "region_enabled": seed(MEM_REGION, 1, 0, struct.pack("<QQ2Q", 1, 1, 0, 0)
                           .ljust(1024, b"\0") + region(ptr(1), 4096)),
    "files_update": seed(FILES_UPD, 3, TABLE, struct.pack("<IIQ", 0, 0, 1).ljust(FD_OFF, b"\0") +
                         struct.pack("<3i", 2, 8, 0)),
    "files_update2": seed(FILES_UPD2, 1, TABLE, struct.pack("<IIQQII", 1, 0, 1, 0, 2, 0)
                          .ljust(FD_OFF, b"\0") + struct.pack("<2i", 8, 2)),
}
# io_uring_params: sq_entries, cq_entries, flags (CQSIZE 1 << 3, CLAMP 1 << 4), the rest 0
params = lambda sq, cq, flags: struct.pack("<III", sq, cq, flags).ljust(120, b"\0")
seeds.update({
    "resize_grow": seed(RESIZE, 1, DEFER, params(100, 0, 0)),
    "resize_cqsize_clamp": seed(RESIZE, 1, DEFER, params(2, 200000, (1 << 3) | (1 << 4))),
    "resize_no_defer": seed(RESIZE, 1, 0, params(16, 0, 0)),
    "resize_bad_flags": seed(RESIZE, 1, DEFER, params(16, 0, 1 << 10)),
})
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
