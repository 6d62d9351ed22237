#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_bnxt_cmpl (see its header for the format).

Each seed is a completion ring as a correct device would leave it (good
frames, split frames, a frame in error, HWRM_DONE, a group across the ring's
end), so that the fuzzer starts past the validity checks and mutates the
fields that the driver validates. Layouts: drivers/bnxt/bnxt_hw.h."""
import os, struct

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "bnxt_cmpl")
CQ, RX, AGG = 64, 16, 32

def seed(b0, agg_posted, burst, records):
    """records: (slot_offset_from_raw, 16 bytes); V set from the raw index."""
    raw = b0 * 5
    ring = bytearray(CQ * 16)
    # Slots not written this pass still hold the last pass's V.
    for off in range(CQ):
        r = raw + off
        ring[(r % CQ) * 16 + 8] = 1 if (r & CQ) else 0
    for off, rec in records:
        r = raw + off
        phase = 0 if (r & CQ) else 1
        rec = bytearray(rec)
        rec[8] = (rec[8] & ~1) | phase
        i = (r % CQ) * 16
        ring[i:i + 16] = rec
    return bytes([b0, agg_posted, burst - 1]) + bytes(ring)

def rx(opaque, length, nagg, flags=0, errors=0, rss=0, flags2=0):
    lo = struct.pack("<HHIBBBBI", 0x11 | flags, length, opaque, nagg << 1, 0, 42, 0, rss)
    hi = struct.pack("<IIHHI", flags2, 0, errors, 0, 0)
    return [lo, hi]

def agg(opaque, length):
    return struct.pack("<HHIII", 0x12, length, opaque, 0, 0)

def tpa_start(opaque, length, agg_id):
    lo = struct.pack("<HHIII", 0x13 | 0x300 | 0x400, length, opaque, agg_id << 16, 0x1234)
    hi = struct.pack("<IIII", 3, 0, 0, 0)
    return [lo, hi]

def tpa_agg(opaque, length, agg_id):
    return struct.pack("<HHIII", 0x16, length, opaque, agg_id << 16, 0)

def tpa_end(agg_id, segs, nagg, seg_len):
    lo = struct.pack("<HHIII", 0x15, 0, 0, agg_id << 16 | segs << 8, 0)
    hi = struct.pack("<IIII", nagg << 24, seg_len, 0, 0)
    return [lo, hi]

def group(start, recs):
    return [(start + i, r) for i, r in enumerate(recs)]

def frames(b0, kinds):
    raw = b0 * 5
    rx_cons, agg_cons, slot, recs = raw // 3, raw // 2, 0, []
    for k in kinds:
        if k == "whole":
            g = rx(rx_cons % RX, 100, 0, flags=0x400, rss=0x12345678, flags2=3)
            rx_cons += 1
        elif k.startswith("split"):
            n = int(k[5:] or 1)
            g = rx(rx_cons % RX, 42, n, flags=0x100 | 0x400, flags2=3)
            g += [agg((agg_cons + i) % AGG, 200) for i in range(n)]
            rx_cons += 1
            agg_cons += n
        elif k == "error":
            g = rx(rx_cons % RX, 60, 1, flags=0x40, errors=0x100)
            g += [agg(agg_cons % AGG, 100)]
            rx_cons += 1
            agg_cons += 1
        elif k.startswith("tpa"):
            # an aggregation (agg_id from the name's digit): START naming
            # the next RX slot, two AGG buffers, END with their count
            i = int(k[3:] or 0)
            g = tpa_start(rx_cons % RX, 54, i)
            g += [tpa_agg((agg_cons + j) % AGG, 200, i) for j in range(2)]
            g += tpa_end(i, 2, 2, 200)
            rx_cons += 1
            agg_cons += 2
        elif k == "done":
            g = [struct.pack("<HHIII", 0x20, 0x1234, 0, 0, 0)]
        elif k == "stray":
            g = [agg(agg_cons % AGG, 100)]
            agg_cons += 1
        recs += group(slot, g)
        slot += len(g)
    return recs

os.makedirs(out, exist_ok=True)
seeds = {
    "whole3": seed(0, 20, 32, frames(0, ["whole"] * 3)),
    "split": seed(0, 20, 32, frames(0, ["split", "split", "whole", "split"])),
    "jumbo": seed(0, 30, 32, frames(0, ["split3", "split7", "split2"])),
    "error_done_stray": seed(0, 20, 32, frames(0, ["error", "done", "stray", "split"])),
    "second_pass": seed(13, 20, 8, frames(13, ["split", "whole"] * 3)),
    "across_end": seed(38, 20, 32, frames(38, ["split2", "whole", "split"])),
    # byte 1 bit 7: the queue does TPA
    "tpa": seed(0, 20 | 0x80, 32, frames(0, ["tpa1", "whole", "tpa2", "split", "tpa1"])),
    "tpa_across_end": seed(38, 24 | 0x80, 32, frames(38, ["tpa3", "split2", "tpa4"])),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"{len(seeds)} seeds in {out}")
