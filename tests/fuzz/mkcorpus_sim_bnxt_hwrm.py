#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_sim_bnxt_hwrm (see its header for the format).

The seeds are whole, valid sessions built from drivers/bnxt/bnxt_hw.h's
layouts: a bring-up with the context memory, rings with and without DPIs, a
VNIC with HDS, RSS and filters, RX buffers, frames in and out. The fuzzer
starts from commands that the model accepts and mutates their fields."""
import os, struct

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "sim_bnxt_hwrm")
IOVA, REQ_OFF, RESP_OFF = 0x100000, 0x1000, 0x2000
NONE = 0xFFFF

def rec(ctl, data):
    return struct.pack("<BH", ctl, len(data)) + data

def hdr(req_type, seq):
    return struct.pack("<HHHHQ", req_type, NONE, seq, NONE, IOVA + RESP_OFF)

class Session:
    def __init__(self):
        self.out, self.seq = b"", 0

    def cmd(self, req_type, body, size=24, short=False):
        self.seq += 1
        req = (hdr(req_type, self.seq) + body).ljust(size, b"\0")
        self.out += rec((2 if short else 0) | 8, req)

    def mem(self, off, data):
        self.out += rec(1, struct.pack("<H", off // 16) + data)

    def doorbell(self, value, dpi):
        self.out += rec(3, struct.pack("<QB", value, dpi))

    def frame(self, data):
        self.out += rec(3 | 4, data)

def db64(typ, xid, idx):
    return typ << 60 | 1 << 56 | xid << 32 | idx

def udp_frame(dst, payload):
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + 8 + len(payload), 0, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    udp = struct.pack(">HHHH", 40000, 4791, 8 + len(payload), 0)
    return dst + bytes([2, 0, 0, 0, 0, 1]) + b"\x08\x00" + ip + udp + payload

def bringup(s, dpis=True):
    s.cmd(0x00, bytes([1, 10, 3]))                                    # VER_GET
    s.cmd(0x11, b"")                                                  # FUNC_RESET
    s.cmd(0x15, struct.pack("<H", NONE))                              # FUNC_QCAPS
    s.cmd(0x192, b"", 16)                                             # BS_QCAPS
    # context memory: (enable, lvl offset, dir offset, entries, entry size)
    page = [0x4000]
    def alloc(n):
        off = page[0]
        page[0] += n * 4096
        return off
    bs = bytearray(336)
    types = [(0x1, 0x18, 0x28, 64, 256), (0x2, 0x19, 0x30, 64, 128), (0x4, 0x1a, 0x38, 128, 64),
             (0x8, 0x1b, 0x40, 128, 64), (0x10, 0x1c, 0x48, 256, 32), (0x20, 0x1d, 0x50, 160, 64)]
    types += [(0x40 << i, 0x1e + i, 0x58 + 8 * i, 64, 64) for i in range(8)]
    enables = 0
    for en, lvl_off, dir_off, entries, esize in types:
        enables |= en
        npages = (entries * esize + 4095) // 4096
        data = alloc(npages)
        if npages == 1:
            bs[lvl_off] = 0
            struct.pack_into("<Q", bs, dir_off, IOVA + data)
        else:
            pte = alloc(1)
            s.mem(pte, b"".join(struct.pack("<Q", IOVA + data + 4096 * i | 1)
                                for i in range(npages)))
            bs[lvl_off] = 1
            struct.pack_into("<Q", bs, dir_off, IOVA + pte)
    struct.pack_into("<I", bs, 0x14, enables)
    struct.pack_into("<IIII", bs, 0xa8, 64, 64, 128, 256)             # qp, srq, cq, stat
    struct.pack_into("<I", bs, 0xb8, 160)                             # tqm_sp
    struct.pack_into("<8I", bs, 0xbc, *([64] * 8))                    # tqm rings
    struct.pack_into("<HHHHHHHHHHHH", bs, 0xe4, 0, 64, 256, 64, 128, 128, 64, 64, 64, 64,
                     32, 64)
    s.seq += 1
    bs[0:16] = hdr(0x193, s.seq)
    s.out += rec(2 | 8, bytes(bs))                                    # BS_CFG (short)
    s.cmd(0x16, struct.pack("<H", NONE))                              # FUNC_QCFG
    rg = bytearray(96)
    struct.pack_into("<IIH", rg, 0, 0, 0x13, 1)
    struct.pack_into("<I", rg, 0x48 - 16, 0x101)
    s.cmd(0x1d, bytes(rg), 112)                                       # FUNC_DRV_RGTR
    s.cmd(0x30, b"")                                                  # QUEUE_QPORTCFG

RINGS = {  # id: (type, size, mem offset, dpi, extra fields)
    1: (5, 64, 0x30000, 17, {}),
    2: (0, 256, 0x31000, 18, {"nq": 1}),
    3: (1, 64, 0x35000, 19, {"cmpl": 2}),
    4: (0, 256, 0x36000, 20, {"nq": 1}),
    5: (2, 64, 0x3a000, 21, {"buf": 256}),
    6: (4, 64, 0x3b000, 22, {"buf": 1024, "rx": 5}),
}

def rings(s, dpis=True):
    for rid, (typ, size, off, dpi, x) in RINGS.items():
        body = bytearray(80)
        enables = {0: 0x80, 1: 0, 2: 0x100, 4: 0x140, 5: 0}[typ] | (0x2000 if dpis else 0)
        struct.pack_into("<IBBHQIBBHI", body, 0, enables, typ, 0, 0, IOVA + off, 0, 12, 0, 0,
                         size)
        struct.pack_into("<HHHHHH", body, 0x2c - 16, 0, x.get("cmpl", 0), 0, x.get("buf", 0),
                         x.get("rx", 0), x.get("nq", 0))
        body[0x4c - 16] = 2
        struct.pack_into("<H", body, 0x58 - 16, dpi if dpis else 0)
        s.cmd(0x50, bytes(body), 96)                                  # RING_ALLOC
    func_cfg = bytearray(144)
    struct.pack_into("<HHII", func_cfg, 0, NONE, 0, 0, 0x4000)
    struct.pack_into("<H", func_cfg, 0x50 - 16, 1)
    s.cmd(0x17, bytes(func_cfg), 160, short=True)                     # FUNC_CFG

def vnic(s):
    s.cmd(0x40, struct.pack("<I", 1))                                 # VNIC_ALLOC default
    s.cmd(0x42, struct.pack("<IIHHHHHHHH", 0, 0x60, 0, 0, 0, 0, 0, 0, 5, 4), 48)
    s.cmd(0x48, struct.pack("<IIIHHH", 0xe, 5, 0, 256, 0, 0), 40)     # PLCMODES HDS
    s.cmd(0x70, b"", 16)                                              # RSS ctx
    s.mem(0x3c000, struct.pack("<HH", 5, 4) * 64)
    s.mem(0x3c100, bytes(range(40)))
    s.cmd(0x46, struct.pack("<IHBBQQHBB", 0x3f, 0, 0, 0, IOVA + 0x3c000, IOVA + 0x3c100, 0,
                            0, 0), 48)                                # VNIC_RSS_CFG
    l2 = bytearray(80)
    struct.pack_into("<II", l2, 0, 0x59, 0x8003)                      # any MAC -> VNIC 0
    struct.pack_into("<H", l2, 0x4e - 16, 0)
    s.cmd(0x90, bytes(l2), 96)
    s.cmd(0x93, struct.pack("<II", 0, 0x8), 56)                       # RX mask BCAST
    nt = bytearray(112)
    struct.pack_into("<II", nt, 0, 0, 0x11210)
    nt[0x28 - 16], nt[0x29 - 16] = 4, 17
    struct.pack_into(">H", nt, 0x74 - 16, 4791)
    s.cmd(0x99, bytes(nt), 128)                                       # n-tuple -> VNIC 0

def traffic(s, dpis=True):
    rx = b"".join(struct.pack("<HHIQ", 4, 256, i, IOVA + 0x40000 + 256 * i) for i in range(63))
    agg = b"".join(struct.pack("<HHIQ", 6, 1024, i, IOVA + 0x50000 + 1024 * i)
                   for i in range(63))
    s.mem(0x3a000, rx)
    s.mem(0x3b000, agg)
    s.doorbell(db64(2, 6, 63), 22 - 17 if dpis else 0xff)            # AGG, then RX
    s.doorbell(db64(2, 5, 63), 21 - 17 if dpis else 0xff)
    s.doorbell(db64(4, 4, 0), 20 - 17 if dpis else 0xff)
    s.frame(udp_frame(b"\xff" * 6, bytes(range(200))))
    s.frame(udp_frame(b"\xff" * 6, bytes(8)))
    f = udp_frame(b"\x02\x00\x00\x00\x00\x02", bytes(64))
    s.mem(0x70000, f)
    s.mem(0x35000, struct.pack("<HHIQ", 0x40 | 1 << 8, len(f), 7, IOVA + 0x70000))
    s.doorbell(db64(0, 3, 1), 19 - 17 if dpis else 0xff)              # TX
    s.doorbell(db64(4, 4, 6), 20 - 17 if dpis else 0xff)              # CQ consumed
    s.cmd(0x51, struct.pack("<BBH", 1, 0, 3))                         # RING_FREE TX

def main():
    os.makedirs(out, exist_ok=True)
    seeds = {}
    s = Session(); s.cmd(0x00, bytes([1, 10, 3])); seeds["ver_get"] = s.out
    s = Session(); bringup(s); rings(s); vnic(s); traffic(s); seeds["bringup_traffic"] = s.out
    s = Session(); bringup(s); rings(s, False); vnic(s); traffic(s, False)
    seeds["bringup_legacy_db"] = s.out
    s = Session(); s.cmd(0x1234, b""); s.cmd(0x50, b"", 96)
    s.out += rec(2, struct.pack("<HHHHQ", 0x15, 0x4321, 0, 24, IOVA + REQ_OFF))
    seeds["errors"] = s.out
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"{len(seeds)} seeds in {out}")

if __name__ == "__main__":
    main()
