#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_tcp_seg (see its header for the format):
a passive open to port 80 and an active open from port 81 carried through
data, out-of-order data, FIN and RST, with options (MSS, window scale,
timestamps, SACK-permitted, SACK blocks), so that the fuzzer starts inside
the state machine rather than at the parser's first checks."""
import os, struct

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "tcp_seg")
FIN, SYN, RST, PSH, ACK = 1, 2, 4, 8, 16
FIX_ACK, FIX_SEQ = 64, 128

def opts(mss=None, ws=None, ts=None, sack_ok=False, sack=()):
    o = b""
    if mss:
        o += struct.pack("!BBH", 2, 4, mss)
    if sack_ok:
        o += b"\x04\x02"
    if ts:
        o += struct.pack("!BBII", 8, 10, *ts)
    if ws is not None:
        o += struct.pack("!BBB", 1, 3, 3) + bytes([ws])
    if sack:
        o += b"\x01\x01" + struct.pack("!BB", 5, 2 + 8 * len(sack))
        for l, r in sack:
            o += struct.pack("!II", l, r)
    while len(o) % 4:
        o += b"\x01"
    return o

def seg(sport, dport, flags, seq=0, ack=0, wnd=65535, o=b"", data=b""):
    h = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (20 + len(o)) // 4 << 4, flags,
                    wnd, 0, 0) + o
    return h + data

def rec(ctl, s):
    return struct.pack("!BH", ctl, len(s)) + s

def passive(extra):
    p = 40000
    r = rec(0, seg(p, 80, SYN, 1000, 0, 64240, opts(1460, 7, (1, 0), True)))
    r += rec(FIX_ACK, seg(p, 80, ACK, 1001, 0, 502, opts(ts=(2, 0))))
    return r + extra(p)

def active(extra):
    r = rec(FIX_ACK, seg(40000, 81, SYN | ACK, 5000, 0, 64240, opts(1400, 2, (9, 0))))
    return r + extra(40000)

seeds = {
    "passive_data": passive(lambda p: rec(FIX_ACK | 2, seg(p, 80, ACK | PSH, 1001, 0, 502,
                                                           data=bytes(range(200)))) +
                    rec(FIX_ACK | 4, seg(p, 80, ACK, 1201, 0, 502)) +
                    rec(FIX_ACK | 1, seg(p, 80, ACK | FIN, 1201, 0, 502))),
    "passive_ooo": passive(lambda p: rec(FIX_ACK | 8, seg(p, 80, ACK, 1501, 0, 502,
                                                          data=b"b" * 300)) +
                   rec(FIX_ACK, seg(p, 80, ACK, 1001, 0, 502, data=b"a" * 500)) +
                   rec(FIX_ACK | 2, seg(p, 80, ACK, 1801, 0, 502, data=b"c" * 10))),
    "passive_send_sack": passive(lambda p: rec(4, b"") +
                         rec(FIX_ACK | 1, seg(p, 80, ACK, 1001, 0, 502,
                                              opts(sack=((1, 2), (5, 9))))) +
                         rec(16, b"")),
    "passive_rst": passive(lambda p: rec(FIX_SEQ, seg(p, 80, RST, 0, 0, 0))),
    "active_data": active(lambda p: rec(FIX_ACK | 4, seg(p, 81, ACK, 5001, 0, 1000,
                                                         data=b"z" * 100)) +
                   rec(FIX_ACK | 1, seg(p, 81, ACK, 5101, 0, 1000)) +
                   rec(FIX_ACK | 16, seg(p, 81, ACK | FIN, 5101, 0, 1000))),
    "active_refused": rec(FIX_ACK, seg(40000, 81, RST | ACK, 0, 0, 0)),
    "simultaneous": rec(0, seg(40000, 81, SYN, 7000, 0, 1000)) +
                    rec(FIX_ACK, seg(40000, 81, SYN | ACK, 7000, 0, 1000)),
    "no_socket": rec(0, seg(1234, 99, SYN, 1, 0, 1000)) + rec(0, seg(1234, 99, ACK, 1, 5)),
    "timers": passive(lambda p: rec(4, b"") + rec(1, b"") + rec(1, b"") + rec(1 | 32 | 16, b"")),
}
os.makedirs(out, exist_ok=True)
for name, s in seeds.items():
    with open(os.path.join(out, name), "wb") as fh:
        fh.write(s)
