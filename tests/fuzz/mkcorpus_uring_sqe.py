#!/usr/bin/env python3
"""Seed corpus for fuzz_uring_sqe: a config byte, then raw 64-byte SQEs."""
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "uring_sqe")
os.makedirs(out, exist_ok=True)


def sqe(opcode, flags=0, fd=-1, off=0, addr=0, length=0, opflags=0, buf_index=0,
        file_index=0, addr3=0):
    # layout of struct io_uring_sqe (include/compat/liburing/io_uring.h)
    return struct.pack("<BBHiQQIIQHHIQQ", opcode, flags, 0, fd, off, addr, length, opflags,
                       0, buf_index, 0, file_index, addr3, 0)


NOP, MSG_RING, SEND_ZC = 0, 40, 47
LINK, FIXED, SKIP = 4, 1, 64
seeds = {
    "nops": bytes([0]) + sqe(NOP) * 3,
    "nop_inject_file_buf": bytes([1]) + sqe(NOP, opflags=1, length=0xfffffff2) +
        sqe(NOP, opflags=2 | 4, fd=2) + sqe(NOP, opflags=8, buf_index=1),
    "msg_self_other_fixed": bytes([0]) + sqe(MSG_RING, fd=0, length=5) +
        sqe(MSG_RING, fd=1, length=6, opflags=2, file_index=9) +
        sqe(MSG_RING, flags=FIXED, fd=3, length=7) + sqe(MSG_RING, fd=3),
    "links": bytes([4]) + sqe(NOP, flags=LINK) + sqe(NOP, flags=LINK, opflags=1, length=0xfffffff0) +
        sqe(NOP, flags=LINK | SKIP) + sqe(NOP),
    "overflow_submit_all": bytes([8 | 2]) + sqe(MSG_RING, fd=0) * 4 + sqe(70) + sqe(SEND_ZC, fd=2) +
        sqe(NOP) * 2,
}
TIMEOUT, TIMEOUT_REMOVE, ASYNC_CANCEL, LINK_TIMEOUT = 11, 12, 14, 15
PROVIDE, REMOVE = 31, 32
# addr % 3 picks the harness timespec: 0 NULL, 1 zero, 2 negative
seeds.update({
    "timeouts": bytes([0]) + sqe(TIMEOUT, addr=1, length=1) +
        sqe(TIMEOUT, addr=1, length=1, off=2, opflags=32) +
        sqe(TIMEOUT, addr=1, length=1, off=3, opflags=64) + sqe(NOP) +
        sqe(TIMEOUT_REMOVE, addr=0) + sqe(TIMEOUT, addr=2, length=1),
    "link_timeout": bytes([4]) + sqe(TIMEOUT, flags=LINK, addr=1, length=1, off=5) +
        sqe(LINK_TIMEOUT, flags=LINK, addr=1, length=1) + sqe(NOP, flags=LINK) +
        sqe(LINK_TIMEOUT, addr=1, length=1),
    "cancel": bytes([2]) + sqe(TIMEOUT, addr=1, length=1, off=9) + sqe(ASYNC_CANCEL, addr=0) +
        sqe(ASYNC_CANCEL, opflags=1) + sqe(ASYNC_CANCEL, opflags=4) +
        sqe(ASYNC_CANCEL, opflags=2, fd=0),
    "kbuf": bytes([2]) + sqe(PROVIDE, fd=4, addr=1, length=64, off=0) +
        sqe(REMOVE, fd=2) + sqe(PROVIDE, fd=0, addr=1, length=1) + sqe(REMOVE, fd=9, addr=1),
})
FILES_UPDATE, MSG_SEND_FD, ALLOC = 20, 1, 0xffffffff
# fd 0 this ring, 1 the other ring (no file table), 3 an OS fd; addr3 a
# slot of this ring's table (0 this ring, 1 empty); FILES_UPDATE's addr != 0
# is the harness's array
seeds.update({
    "msg_send_fd": bytes([2]) + sqe(MSG_RING, fd=1, addr=MSG_SEND_FD, file_index=1) +
        sqe(MSG_RING, fd=1, addr=MSG_SEND_FD, file_index=ALLOC) +
        sqe(MSG_RING, fd=1, addr=MSG_SEND_FD, addr3=1, file_index=1) +
        sqe(MSG_RING, fd=0, addr=MSG_SEND_FD, file_index=1) +
        sqe(MSG_RING, fd=1, addr=MSG_SEND_FD, length=1, opflags=1) +
        sqe(MSG_RING, fd=3, addr=MSG_SEND_FD),
    "files_update": bytes([2]) + sqe(FILES_UPDATE, addr=1, length=3, off=0) +
        sqe(FILES_UPDATE, addr=1, length=2, off=ALLOC) + sqe(FILES_UPDATE, addr=1, length=0) +
        sqe(FILES_UPDATE, addr=0, length=1, off=4) + sqe(NOP, opflags=2 | 4, fd=1),
    # INDEX_ALLOC into a NULL array: -EFAULT, no pointer arithmetic on NULL
    "files_update_alloc_null": bytes([2]) + sqe(FILES_UPDATE, addr=0, length=1, off=ALLOC),
})
NOP128, URING_CMD128 = 64, 65
NOP_CQE32 = 32
SQE_MIXED, CQE_MIXED = 16, 32
# a 128-byte opcode takes the next SQE as its second half on an SQE_MIXED ring
seeds.update({
    "mixed_nop128": bytes([SQE_MIXED | CQE_MIXED]) + sqe(NOP128) + sqe(NOP) + sqe(NOP) +
        sqe(NOP128, opflags=NOP_CQE32, off=7, addr=9) + sqe(0xff) + sqe(URING_CMD128) + sqe(NOP),
    "mixed_last_slot": bytes([SQE_MIXED | 2]) + sqe(NOP) * 7 + sqe(NOP128),
    "mixed_half_missing": bytes([SQE_MIXED]) + sqe(NOP) + sqe(NOP128),
    "nop128_plain": bytes([2]) + sqe(NOP128) + sqe(URING_CMD128) + sqe(NOP),
    "cqe_mixed_wrap": bytes([CQE_MIXED | 8]) + sqe(NOP) * 3 + sqe(NOP, opflags=NOP_CQE32, off=1, addr=2) * 5,
    "cqe32_nop": bytes([1]) + sqe(NOP, opflags=NOP_CQE32, off=3, addr=4) + sqe(NOP, opflags=NOP_CQE32 | 2, fd=9),
})
# OS-fd ops: fd 3 is the harness's empty pipe, a larger fd one that is not open
READV, WRITEV, FSYNC, READ_FIXED, CLOSE, READ, WRITE, SPLICE, READ_MSHOT = 1, 2, 3, 4, 19, 22, 23, 30, 49
SELECT = 32
seeds.update({
    "osfd_rw": bytes([2]) + sqe(READ, fd=3, length=8) + sqe(WRITE, fd=3, length=1) +
        sqe(READV, fd=3, length=2000) + sqe(READ_FIXED, flags=FIXED, fd=4, length=8) +
        sqe(READ, fd=77, length=8) + sqe(READ_MSHOT, flags=SELECT, fd=3) +
        sqe(READ, flags=SELECT, fd=3),
    "osfd_file": bytes([2]) + sqe(FSYNC, fd=3) + sqe(FSYNC, fd=3, opflags=2) +
        sqe(CLOSE, fd=77) + sqe(CLOSE, file_index=1) + sqe(CLOSE, fd=0, off=1) +
        sqe(SPLICE, fd=3, length=4),
})
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
