#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_sim_mlx5_cmd (see its header for the format).

The seeds are whole, valid sessions built from drivers/mlx5/mlx5_hw.h's
layouts (its ZN_MLX5_F_* field constants are read from the header itself):
a bring-up with page supply and capabilities, the objects of one queue pair
with SHAMPO, RSS and a flow table, a long command through the queue with a
mailbox chain, frames in. The fuzzer starts from commands that the model
accepts and mutates their fields."""
import os, re, struct

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus", "sim_mlx5_cmd")
hdr = open(os.path.join(here, "..", "..", "drivers", "mlx5", "mlx5_hw.h")).read()

F = {m.group(1): (int(m.group(2), 0), int(m.group(3), 0)) for m in re.finditer(
    r"#define ZN_MLX5_F_(\w+)\s+(0x[0-9a-fA-F]+|\d+),\s*(\d+)", hdr)}
OP = {m.group(1): int(m.group(2), 0) for m in re.finditer(
    r"#define ZN_MLX5_CMD_OP_(\w+)\s+(0x[0-9a-fA-F]+)", hdr)}
IOVA = 0x100000
PAGES = IOVA + 0x40000      # pages given to the device
RINGS = IOVA + 0x80000      # EQ, CQ, SQ, RQ rings and dbrecs
BUFS = IOVA + 0xC0000       # RX buffers, header ring


def put(buf, name, val, base=0):
    off, width = F[name]
    off += base * 8
    for i in range(width):
        bit = off + width - 1 - i
        if val >> i & 1:
            buf[bit // 8] |= 0x80 >> (bit % 8)
        else:
            buf[bit // 8] &= ~(0x80 >> (bit % 8)) & 0xFF


def boff(name):
    return F[name][0] // 8


def cmd(op, size=16, op_mod=0):
    b = bytearray(size)
    put(b, "IN_OPCODE", OP[op])
    put(b, "IN_OP_MOD", op_mod)
    return b


def rec(ctl, data):
    return struct.pack("<BH", ctl, len(data)) + bytes(data)


OUT16, OUT112, OUT272, OUT4112, OUTPAGES = 0, 2, 3, 4, 5


class Session:
    def __init__(self):
        self.out = b""
        self.next_page = 0

    def c(self, b, outsel=OUT16):
        self.out += rec(outsel << 2, b)

    def mem(self, addr, data):
        self.out += rec(1, struct.pack("<H", (addr - IOVA) // 16) + bytes(data))

    def frame(self, data):
        self.out += rec(3, data)

    def give(self, n):
        b = cmd("MANAGE_PAGES", 16 + 8 * n, 1)
        put(b, "MANAGE_PAGES_IN_INPUT_NUM_ENTRIES", n)
        for i in range(n):
            struct.pack_into(">Q", b, 16 + 8 * i, PAGES + 4096 * self.next_page)
            self.next_page += 1
        self.c(b)

    def bringup(self):
        self.c(cmd("ENABLE_HCA"))
        self.c(cmd("QUERY_ISSI"), OUT112)
        b = cmd("SET_ISSI")
        put(b, "SET_ISSI_IN_CURRENT_ISSI", 1)
        self.c(b)
        self.c(cmd("QUERY_PAGES", 16, 1))
        self.give(8)
        self.c(cmd("QUERY_HCA_CAP", 16, 1), OUT4112)
        self.c(cmd("SET_HCA_CAP", 4112, 0))
        self.c(cmd("QUERY_PAGES", 16, 2))
        self.give(32)
        self.c(cmd("INIT_HCA"))
        self.give(16)


def objects(s):
    s.c(cmd("ALLOC_UAR"))                       # uar 1
    s.c(cmd("ALLOC_PD"))                        # pd 1
    s.c(cmd("ALLOC_TRANSPORT_DOMAIN"))          # td 1
    eq = cmd("CREATE_EQ", 272 + 8)
    put(eq, "EQC_LOG_EQ_SIZE", 4, boff("CREATE_EQ_IN_EQC"))
    put(eq, "EQC_UAR_PAGE", 1, boff("CREATE_EQ_IN_EQC"))
    struct.pack_into(">Q", eq, 0x58, 1 << 0x0B | 1 << 0x0A | 1 << 0x09)
    struct.pack_into(">Q", eq, 0x110, RINGS)
    s.c(eq)
    for i in range(2):                          # cq 1 (tx), 2 (rx)
        cq = cmd("CREATE_CQ", 272 + 8)
        base = boff("CREATE_CQ_IN_CQC")
        put(cq, "CQC_LOG_CQ_SIZE", 6, base)
        put(cq, "CQC_UAR_PAGE", 1, base)
        put(cq, "CQC_DBR_ADDR", RINGS + 0x3000 + 64 * i, base)
        struct.pack_into(">Q", cq, 0x110, RINGS + 0x1000 * (1 + i))
        s.c(cq)
    mk = cmd("CREATE_MKEY", 272)
    base = boff("CREATE_MKEY_IN_MKC")
    put(mk, "MKC_LR", 1, base)
    put(mk, "MKC_LW", 1, base)
    put(mk, "MKC_LENGTH64", 1, base)
    put(mk, "MKC_PD", 1, base)
    put(mk, "MKC_QPN", 0xFFFFFF, base)
    s.c(mk)                                     # mkey 1 (PA)
    hk = cmd("CREATE_MKEY", 272 + 16)
    put(hk, "MKC_ACCESS_MODE_1_0", 1, base)
    put(hk, "MKC_LR", 1, base)
    put(hk, "MKC_LW", 1, base)
    put(hk, "MKC_PD", 1, base)
    put(hk, "MKC_START_ADDR", BUFS, base)
    put(hk, "MKC_LEN", 8192, base)
    put(hk, "MKC_LOG_PAGE_SIZE", 12, base)
    put(hk, "MKC_TRANSLATIONS_OCTWORD_SIZE", 1, base)
    put(hk, "CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE", 1)
    struct.pack_into(">QQ", hk, 0x110, BUFS | 3, (BUFS + 4096) | 3)
    s.c(hk)                                     # mkey 2 (MTT, header ring)
    tis = cmd("CREATE_TIS", 192)
    put(tis, "TISC_TRANSPORT_DOMAIN", 1, boff("CREATE_TIS_IN_TISC"))
    s.c(tis)
    sq = cmd("CREATE_SQ", 272 + 8)
    sqc = boff("CREATE_SQ_IN_SQC")
    wq = sqc + boff("SQC_WQ")
    put(sq, "SQC_CQN", 1, sqc)
    put(sq, "SQC_TIS_LST_SZ", 1, sqc)
    put(sq, "SQC_TIS_NUM_0", 1, sqc)
    put(sq, "WQ_WQ_TYPE", 1, wq)
    put(sq, "WQ_PD", 1, wq)
    put(sq, "WQ_UAR_PAGE", 1, wq)
    put(sq, "WQ_DBR_ADDR", RINGS + 0x3080, wq)
    put(sq, "WQ_LOG_WQ_STRIDE", 6, wq)
    put(sq, "WQ_LOG_WQ_SZ", 6, wq)
    struct.pack_into(">Q", sq, 0x110, RINGS + 0x4000)
    s.c(sq)
    rq = cmd("CREATE_RQ", 272 + 8)
    rqc = boff("CREATE_RQ_IN_RQC")
    wq = rqc + boff("RQC_WQ")
    put(rq, "RQC_CQN", 2, rqc)
    put(rq, "WQ_WQ_TYPE", 2, wq)
    put(rq, "WQ_PD", 1, wq)
    put(rq, "WQ_DBR_ADDR", RINGS + 0x30C0, wq)
    put(rq, "WQ_LOG_WQ_STRIDE", 5, wq)
    put(rq, "WQ_LOG_WQ_SZ", 1, wq)
    put(rq, "WQ_LOG_WQE_NUM_OF_STRIDES", 0xD, wq)     # 2^6 strides
    put(rq, "WQ_LOG_WQE_STRIDE_SIZE", 0, wq)          # 64 bytes
    put(rq, "WQ_HEADERS_MKEY", 2 << 8, wq)
    put(rq, "WQ_SHAMPO_ENABLE", 1, wq)
    put(rq, "WQ_LOG_RESERVATION_SIZE", 0, wq)
    put(rq, "WQ_LOG_MAX_NUM_OF_PACKETS_PER_RESERVATION", 2, wq)
    put(rq, "WQ_LOG_HEADERS_ENTRY_SIZE", 2, wq)
    put(rq, "WQ_LOG_HEADERS_BUFFER_ENTRY_NUM", 5, wq)
    struct.pack_into(">Q", rq, 0x110, RINGS + 0x5000)
    s.c(rq)
    # RQ WQEs: next segment + one data segment, buffers of 4 KiB, dbrec 2
    for i in range(2):
        w = bytearray(32)
        struct.pack_into(">IIQ", w, 16, 4096, 1 << 8, BUFS + 0x2000 + 4096 * i)
        s.mem(RINGS + 0x5000 + 32 * i, w)
    s.mem(RINGS + 0x30C0, struct.pack(">I", 2))
    for sqmod in (True, False):
        m = cmd("MODIFY_SQ" if sqmod else "MODIFY_RQ", 272)
        put(m, "MODIFY_SQ_IN_SQN", 1)
        put(m, "SQC_STATE", 1, boff("MODIFY_SQ_IN_SQC"))
        s.c(m)
    tir = cmd("CREATE_TIR", 272)
    t = boff("CREATE_TIR_IN_TIRC")
    put(tir, "TIRC_INLINE_RQN", 1, t)
    put(tir, "TIRC_TRANSPORT_DOMAIN", 1, t)
    s.c(tir)
    rqt = cmd("CREATE_RQT", 272 + 4)
    put(rqt, "RQTC_RQT_MAX_SIZE", 1, boff("CREATE_RQT_IN_RQTC"))
    put(rqt, "RQTC_RQT_ACTUAL_SIZE", 1, boff("CREATE_RQT_IN_RQTC"))
    struct.pack_into(">I", rqt, 0x110, 1)
    s.c(rqt)
    tir2 = cmd("CREATE_TIR", 272)
    put(tir2, "TIRC_DISP_TYPE", 1, t)
    put(tir2, "TIRC_INDIRECT_TABLE", 1, t)
    put(tir2, "TIRC_RX_HASH_FN", 2, t)
    put(tir2, "TIRC_TRANSPORT_DOMAIN", 1, t)
    put(tir2, "TIRC_RX_HASH_FIELD_SELECTOR_OUTER", 0xF, t)
    s.c(tir2)
    ft = cmd("CREATE_FLOW_TABLE", 64)
    put(ft, "FTC_LOG_SIZE", 2, boff("CREATE_FT_IN_FTC"))
    s.c(ft)
    fg = cmd("CREATE_FLOW_GROUP", 1024)
    put(fg, "CREATE_FG_IN_TABLE_ID", 1)
    put(fg, "CREATE_FG_IN_END_FLOW_INDEX", 3)
    put(fg, "CREATE_FG_IN_MATCH_CRITERIA_ENABLE", 1)
    put(fg, "L24_UDP_DPORT", 0xFFFF, boff("CREATE_FG_IN_MATCH_CRITERIA"))
    s.c(fg)
    fte = cmd("SET_FLOW_TABLE_ENTRY", 832 + 8)
    put(fte, "SET_FTE_IN_TABLE_ID", 1)
    fc = boff("SET_FTE_IN_FLOW_CONTEXT")
    put(fte, "FLOW_CTX_GROUP_ID", 1, fc)
    put(fte, "FLOW_CTX_ACTION", 4, fc)
    put(fte, "FLOW_CTX_DESTINATION_LIST_SIZE", 1, fc)
    put(fte, "L24_UDP_DPORT", 4791, fc + boff("FLOW_CTX_MATCH_VALUE"))
    put(fte, "DEST_TYPE", 2, fc + boff("FLOW_CTX_DESTINATION"))
    put(fte, "DEST_ID", 1, fc + boff("FLOW_CTX_DESTINATION"))
    s.c(fte)
    root = cmd("SET_FLOW_TABLE_ROOT", 64)
    put(root, "SET_FT_ROOT_IN_TABLE_ID", 1)
    s.c(root)
    s.c(cmd("QUERY_NIC_VPORT_CONTEXT"), OUT272)
    s.c(cmd("QUERY_VPORT_STATE"))


def udp_frame(mac, dport, n):
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + 8 + n, 0, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    udp = struct.pack(">HHHH", 4000, dport, 8 + n, 0)
    return mac + bytes(6) + b"\x08\x00" + ip + udp + bytes((i * 7) & 0xFF for i in range(n))


def send_wqe(s, sqn, idx, data_addr, n):
    w = bytearray(64)
    struct.pack_into(">II", w, 0, idx << 8 | 0x0A, sqn << 8 | 3)
    w[11] = 8
    struct.pack_into(">H", w, 16 + 12, 0)
    struct.pack_into(">IIQ", w, 32, n, 1 << 8 | 0, data_addr)
    s.mem(RINGS + 0x4000 + 64 * idx, w)
    s.mem(RINGS + 0x3080, struct.pack(">II", 0, idx + 1))


def queue_cmd(s):
    """SET_HCA_CAP (4112 bytes) through slot 0 with an 8-block chain."""
    data = bytes(cmd("SET_HCA_CAP", 4112, 0))
    mb = IOVA + 0x10000
    for k in range(8):
        blk = bytearray(576)
        chunk = data[16 + 512 * k:16 + 512 * (k + 1)]
        blk[:len(chunk)] = chunk
        nxt = mb + 1024 * (k + 1) if k < 7 else 0
        struct.pack_into(">QI", blk, 0x230, nxt, k)
        blk[0x23D] = 5
        for off in range(0, 576, 256):
            s.mem(mb + 1024 * k + off, blk[off:off + 256])
    e = bytearray(64)
    e[0] = 7
    struct.pack_into(">IQ", e, 4, 4112, mb)
    e[16:32] = data[:16]
    struct.pack_into(">I", e, 0x38, 16)
    e[0x3C] = 5
    e[0x3F] = 1
    s.out += rec(2, b"\x00" + bytes(e))


def main():
    os.makedirs(out, exist_ok=True)
    s = Session()
    s.bringup()
    with open(os.path.join(out, "bringup"), "wb") as f:
        f.write(s.out)
    objects(s)
    with open(os.path.join(out, "objects"), "wb") as f:
        f.write(s.out)
    mac = bytes([0x02, 0x6D, 0x6C, 0, 0, 0])
    s.c(cmd("QUERY_NIC_VPORT_CONTEXT"), OUT272)
    s.frame(b"\xff" * 6 + udp_frame(b"", 4791, 100)[0:])
    s.frame(udp_frame(b"\xff" * 6, 4791, 300))
    s.frame(udp_frame(b"\xff" * 6, 9, 30))
    s.mem(BUFS + 0x8000, udp_frame(b"\xff" * 6, 4791, 200))
    send_wqe(s, 1, 0, BUFS + 0x8000, 242)
    with open(os.path.join(out, "traffic"), "wb") as f:
        f.write(s.out)
    t = Session()
    queue_cmd(t)
    t.bringup()
    d = cmd("DESTROY_CQ")
    put(d, "DESTROY_CQ_IN_CQN", 9)
    t.c(d)
    t.c(cmd("TEARDOWN_HCA"))
    tk = cmd("MANAGE_PAGES", 16, 2)
    put(tk, "MANAGE_PAGES_IN_INPUT_NUM_ENTRIES", 64)
    t.c(tk, OUTPAGES)
    t.c(cmd("DISABLE_HCA"))
    with open(os.path.join(out, "queue_and_teardown"), "wb") as f:
        f.write(t.out)
    del mac


if __name__ == "__main__":
    main()
