#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_bnxt_cmpl_walk (see its header for the format).

Each seed is a completion ring a correct device could write (frames whole, split,
jumbo, flagged in error, an HWRM_DONE, a ring that wraps into its second pass),
so that the fuzzer starts from records that get past the V, type and opaque
checks and mutates their fields. Layouts: drivers/bnxt/bnxt_hw.h."""
import os, struct

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "bnxt_cmpl_walk")

RX_L2, RX_AGG, HWRM_DONE, TX_L2 = 0x11, 0x12, 0x20, 0x00
NORMAL, JUMBO, HDS = 0 << 7, 1 << 7, 2 << 7
RSS_VALID, ITYPE_UDP, ERROR = 0x400, 3 << 12, 0x40

def header(cq_log=2, rx_log=2, agg_log=3, hdr=256, agg=2048, mru=9018, cq_raw=0,
           rx_posted=60, agg_posted=120, cons4=0):
    return struct.pack("<BBBHHHIBBB", cq_log, rx_log, agg_log, hdr, agg, mru, cq_raw,
                       rx_posted, agg_posted, cons4)

# A record is a list of slots; a slot is a function of its V bit, because a
# record that wraps around the ring end has V flip in the middle.
def rx(opaque, length, nagg, flags, errors=0, rss=0x12345678, flags2=0x3):
    lo = lambda v: struct.pack("<HHIBBBBI", RX_L2 | flags, length, opaque, (nagg << 1) | v, 0,
                               42, 0, rss)
    hi = lambda v: struct.pack("<IIHHI", flags2, 0, errors | v, 0, 0)
    return [lo, hi]

def agg(opaque, length):
    return [lambda v: struct.pack("<HHIII", RX_AGG, length, opaque, v, 0)]

def done(seq):
    return [lambda v: struct.pack("<HHIII", HWRM_DONE, seq, 0, v, 0)]

def tx(opaque):
    return [lambda v: struct.pack("<HHIHHI", TX_L2, 0, opaque, v, 0, 0)]

def ring(records, cq_log=2, cq_raw=0, **kw):
    """The seed: header + ring memory with the records laid out from cq_raw on,
    each slot with the V its raw index calls for (hw-docs/bnxt.md section 6)."""
    size = 16 << cq_log
    mem = [bytes(16)] * size
    raw = cq_raw
    for rec in records:
        for slot in rec:
            mem[raw % size] = slot(0 if raw & size else 1)
            raw += 1
    return header(cq_log=cq_log, cq_raw=cq_raw, **kw) + b"".join(mem)

def frames(rx0, agg0, n):
    """n frames: whole, split (2 AGG), jumbo (1 AGG) in turn."""
    recs, a = [], agg0
    for i in range(n):
        kind = i % 3
        if kind == 0:
            recs.append(rx((rx0 + i) & 63, 60 + i, 0, NORMAL | RSS_VALID | ITYPE_UDP))
        elif kind == 1:
            recs += [rx((rx0 + i) & 63, 42, 2, HDS | RSS_VALID | ITYPE_UDP),
                     agg(a & 127, 2048), agg((a + 1) & 127, 1000)]
            a += 2
        else:
            recs += [rx((rx0 + i) & 63, 256, 1, JUMBO | ITYPE_UDP), agg(a & 127, 1244)]
            a += 1
    return recs

seeds = {
    "frames": ring(frames(0, 0, 12)),
    "split_9000": ring([rx(0, 42, 5, HDS | ITYPE_UDP)] +
                       [agg(i, 2048 if i < 4 else 8958 - 4 * 2048) for i in range(5)]),
    "error_frame": ring([rx(0, 42, 1, HDS | ERROR, errors=0x100), agg(0, 100),
                         rx(1, 60, 0, NORMAL)]),
    "hwrm_done": ring([done(7), rx(0, 64, 0, NORMAL), done(8)]),
    "second_pass": ring(frames(0, 0, 9), cq_raw=64),
    "wraps": ring(frames(20, 20, 9), cq_raw=58, cons4=5),
    "stray_agg": ring([agg(0, 500), rx(0, 60, 0, NORMAL)]),
    "tx_on_rx_ring": ring([tx(5), rx(0, 60, 0, NORMAL)]),
}

os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
