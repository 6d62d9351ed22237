#!/usr/bin/env python3
"""Seed corpus for fuzz_zcrx_refill: a ring-size byte, then op records (see the target)."""
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "zcrx_refill")
os.makedirs(out, exist_ok=True)


def rqe(off, length=0, pad=0):
    return bytes([0]) + struct.pack("<QII", off, length, pad)


def tail(v):
    return bytes([1]) + struct.pack("<I", v & 0xffffffff)


REFILL = bytes([2])


def alloc(n):
    return bytes([3, n])


def to_user(idx, put=True):
    return bytes([4, idx | (0x80 if put else 0)])


def put(idx):
    return bytes([5]) + struct.pack("<I", idx & 0xffffffff)


def copy(keep):
    return bytes([6, 1 if keep else 0])


SCRUB = bytes([7])
seeds = {
    "return_all": bytes([3]) + alloc(4) + to_user(0) + to_user(1) + to_user(2) + rqe(0) +
        rqe(4096) + rqe(8192 + 17) + tail(3) + REFILL,
    "invalid_rqes": bytes([3]) + alloc(2) + to_user(0) + rqe(5 * 4096) + rqe(8 * 4096) +
        rqe((1 << 48) - 1) + rqe((1 << 48) | 4096) + rqe(0, pad=1) + rqe(0) + rqe(0) + tail(8) +
        REFILL,
    "bad_pointers": bytes([2]) + tail(0xffffffff) + REFILL + tail(1000) + REFILL + REFILL,
    "copy_scrub": bytes([1]) + alloc(7) + copy(True) + copy(False) + to_user(3, False) + SCRUB +
        put(3) + put(3) + put(99),
    "twice": bytes([4]) + alloc(1) + to_user(0) + to_user(0, False) + rqe(0) + rqe(0) + rqe(0) +
        tail(3) + REFILL + put(0),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
