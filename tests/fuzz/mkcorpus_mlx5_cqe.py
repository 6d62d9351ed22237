#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_mlx5_cqe (see its header for the format).

Each seed is a completion queue as a correct device would leave it for the
fuzz target's queue (16 WQEs of 4096 bytes, 64-byte strides, 256-byte header
entries): split frames, small frames, unsplit frames, filler CQEs, an error
CQE, across the ring's end and in the second pass, so that the fuzzer starts
past the validity checks and mutates the fields the driver validates.
Layouts: drivers/mlx5/mlx5_hw.h (struct zn_mlx5_cqe64)."""
import os, struct

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "mlx5_cqe")
LOG_CQ, RING, STRIDE, NSTRIDES = 5, 16, 64, 64
CQ = 1 << LOG_CQ

def cqe(opcode, wqe_id=0, hsize=0, hidx=0, off=0, bc=0, ctr=0, l3l4=0, ext=0, rss=0, gro=0):
    b = bytearray(64)
    b[0x04] = gro  # SHAMPO flags: 0x02 match, 0x04 flush
    struct.pack_into(">H", b, 0x02, wqe_id)
    b[0x05] = hsize
    struct.pack_into(">H", b, 0x06, hidx)
    struct.pack_into(">I", b, 0x08, off)
    struct.pack_into(">I", b, 0x0c, rss)
    b[0x10] = 0x84 if rss else 0
    b[0x1c] = ext
    b[0x1d] = l3l4
    struct.pack_into(">I", b, 0x2c, bc)
    struct.pack_into(">H", b, 0x3c, ctr)
    b[0x3f] = opcode << 4
    return b

def seed(b0, burst, thresh, kinds, agg=False):
    start = b0 & (2 * CQ - 1)
    wqe = (start * 7) % RING
    hdr = 0
    ring = bytearray(CQ * 64)
    # Slots not written this pass hold INVALID with last pass's owner.
    for s in range(CQ):
        r = start + s
        ring[(r % CQ) * 64 + 63] = 0xf0 | (0 if (r >> LOG_CQ) & 1 else 1)
    recs = []
    for k in kinds:
        if k == "split":
            pay = 1000
            st = (pay + STRIDE - 1) // STRIDE
            recs.append(cqe(2, wqe, 42, hdr, 0, st << 16 | (42 + pay), 0, 0x28, 7, 0x1234))
            recs.append(cqe(2, wqe, 0, 0, st * STRIDE, 1 << 31 | (NSTRIDES - st) << 16, st))
        elif k == "small":
            recs.append(cqe(2, wqe, 42, hdr, 0, 1 << 16 | 60, 0, 0x28, 7))
            recs.append(cqe(2, wqe, 0, 0, STRIDE, 1 << 31 | (NSTRIDES - 1) << 16, 1))
        elif k == "unsplit":
            recs.append(cqe(2, wqe, 0, hdr, 0, 2 << 16 | 100, 0))
            recs.append(cqe(2, wqe, 0, 0, 2 * STRIDE, 1 << 31 | (NSTRIDES - 2) << 16, 2))
        elif k == "full":
            recs.append(cqe(2, wqe, 54, hdr, 0, NSTRIDES << 16 | (54 + 4096), 0, 0x18, 7))
        elif k in ("gro", "gro_fill"):
            # one HW-GRO session: payloads byte after byte, strides counted
            # only where newly reached; gro ends in a filler, gro_fill uses
            # the last stride
            pay = 1000 if k == "gro" else 1024
            n = 3 if k == "gro" else 4
            used = 0
            for i in range(n):
                off = i * pay
                st = (off + pay + STRIDE - 1) // STRIDE - used
                fl = (2 if i else 0) | (4 if i == n - 1 else 0)
                recs.append(cqe(2, wqe, 54, hdr + i, off, st << 16 | (54 + pay), off // STRIDE,
                                0x28, 7, 0, fl))
                used += st
            if used < NSTRIDES:
                recs.append(cqe(2, wqe, 0, 0, used * STRIDE,
                                1 << 31 | (NSTRIDES - used) << 16, used))
            hdr += n - 1
        elif k == "error":
            e = cqe(14)
            e[0x37] = 4
            recs.append(e)
            wqe -= 1
            hdr -= 1
        wqe = (wqe + 1) % RING
        hdr += 1
    for i, rec in enumerate(recs[:CQ]):
        r = start + i
        rec[63] = (rec[63] & 0xfe) | ((r >> LOG_CQ) & 1)
        ring[(r % CQ) * 64:(r % CQ) * 64 + 64] = rec
    return bytes([b0, (burst - 1) | (0x40 if agg else 0), thresh]) + bytes(ring)

os.makedirs(out, exist_ok=True)
seeds = {
    "split3": seed(0, 32, 0, ["split"] * 3),
    "mixed": seed(0, 32, 32, ["split", "small", "unsplit", "full", "split"]),
    "error": seed(0, 8, 0, ["split", "error", "small"]),
    "across_end": seed(28, 32, 0, ["split", "small", "split", "unsplit"]),
    "second_pass": seed(37, 16, 16, ["small", "split"] * 3),
    "gro": seed(0, 32, 0, ["gro", "gro_fill", "split", "gro"], agg=True),
    "gro_across_end": seed(29, 32, 0, ["gro_fill", "small", "gro"], agg=True),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"{len(seeds)} seeds in {out}")
