#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_vfu_server (see its header for the format).

Each seed is a short, valid client session, so that the fuzzer starts from
messages that get past the header checks and mutates their fields."""
import json, os, struct, sys

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "vfu_server")
mid = [0]

def msg(cmd, payload=b"", flags=0):
    mid[0] += 1
    return struct.pack("<HHII I", mid[0], cmd, 16 + len(payload), flags, 0) + payload

def chunk(data, nfds=0, eventfd=False, poll=False, preversion=False):
    ctl = nfds | (0x10 if eventfd else 0) | (0x20 if poll else 0) | (0x40 if preversion else 0)
    return struct.pack("<BH", ctl, len(data)) + data

def version(major=0, minor=2, caps=None):
    data = b"" if caps is None else json.dumps({"capabilities": caps}).encode() + b"\0"
    return msg(1, struct.pack("<HH", major, minor) + data)

def rw(region, off, count=4, data=None):
    if data is None:
        return msg(9, struct.pack("<QII", off, region, count))
    return msg(10, struct.pack("<QII", off, region, len(data)) + data)

cfg_on = rw(7, 4, data=struct.pack("<H", 6))
seeds = {
    "version_json": chunk(version(caps={"max_msg_fds": 8, "max_data_xfer_size": 1048576,
                                         "pgsizes": 4096, "max_dma_maps": 16})),
    "version_bare": chunk(version(0, 0)),
    "discovery": chunk(msg(4, struct.pack("<IIII", 16, 0, 0, 0))
                       + msg(5, struct.pack("<IIIIQQ", 4096, 0, 2, 0, 0, 0))
                       + msg(5, struct.pack("<IIIIQQ", 32, 0, 7, 0, 0, 0))
                       + msg(7, struct.pack("<IIII", 16, 0, 2, 0)), preversion=True),
    "config": chunk(rw(7, 0, 64) + rw(7, 0x10, data=b"\xff" * 4) + rw(7, 0x10, 4) + cfg_on,
                    preversion=True),
    "edu_regs": chunk(cfg_on + rw(0, 0) + rw(0, 4, data=struct.pack("<I", 0x12345678))
                      + rw(0, 8, data=struct.pack("<I", 6)) + rw(0, 0x20, 4), poll=True,
                      preversion=True),
    "dma": chunk(msg(2, struct.pack("<IIQQQ", 32, 3, 0, 0x100000, 0x4000)), nfds=1,
                 preversion=True)
           + chunk(cfg_on + rw(0, 0x80, data=struct.pack("<Q", 0x100000))
                   + rw(0, 0x88, data=struct.pack("<Q", 0x40000))
                   + rw(0, 0x90, data=struct.pack("<Q", 256))
                   + rw(0, 0x98, data=struct.pack("<Q", 5)), poll=True)
           + chunk(rw(0, 0x98, data=struct.pack("<Q", 7)) + msg(3, struct.pack("<IIQQ", 24, 0,
                   0x100000, 0x4000)), poll=True),
    "irqs": chunk(msg(8, struct.pack("<IIIII", 20, 0x24, 2, 0, 4)), nfds=4, eventfd=True,
                  preversion=True)
            + chunk(cfg_on + rw(0, 0x60, data=struct.pack("<I", 1))
                    + rw(2, 8, data=struct.pack("<Q", 0x10002)), poll=True)
            + chunk(msg(8, struct.pack("<IIIII", 20, 0x21, 2, 0, 0)) + msg(13)),
    "malformed": chunk(msg(99) + msg(4, b"\x00" * 8) + msg(16, b"\x00" * 8)
                       + struct.pack("<HHII I", 50, 4, 8, 0, 0), preversion=True),
}
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"{len(seeds)} seeds in {out}", file=sys.stderr)
