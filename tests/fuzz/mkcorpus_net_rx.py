#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_net_rx (see its header for the format):
valid frames for 10.1.0.2 / 02:00:00:00:00:02 (UDP with and without a
checksum, an ICMP echo request, an ARP request, IP options), each under a
few piece layouts, so the fuzzer starts past the validity checks."""
import os, struct

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "net_rx")
US = bytes.fromhex("020000000002")
PEER = bytes.fromhex("020000000001")
IP_US = bytes([10, 1, 0, 2])
IP_PEER = bytes([10, 1, 0, 1])

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff

def ipv4(proto, payload, opts=b""):
    ihl = 5 + len(opts) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, ihl * 4 + len(payload), 1, 0x4000, 64,
                    proto, 0, IP_PEER, IP_US) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload

def udp(data, with_csum=True):
    u = struct.pack("!HHHH", 4000, 7000, 8 + len(data), 0) + data
    if with_csum:
        ph = IP_PEER + IP_US + struct.pack("!BBH", 0, 17, len(u))
        c = csum(ph + u) or 0xffff
        u = u[:6] + struct.pack("!H", c) + u[8:]
    return u

def eth(t, p):
    return US + PEER + struct.pack("!H", t) + p

def icmp_echo(data):
    m = struct.pack("!BBHHH", 8, 0, 0, 0x1234, 1) + data
    return m[:2] + struct.pack("!H", csum(m)) + m[4:]

frames = {
    "udp": eth(0x0800, ipv4(17, udp(bytes(range(100))))),
    "udp_nocsum": eth(0x0800, ipv4(17, udp(b"hello", False))),
    "udp_opts": eth(0x0800, ipv4(17, udp(b"x" * 33), b"\x01\x01\x01\x00")),
    "icmp": eth(0x0800, ipv4(1, icmp_echo(b"ping" * 14))),
    "arp": b"\xff" * 6 + PEER + b"\x08\x06" + struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) +
           PEER + IP_PEER + b"\0" * 6 + IP_US,
}
os.makedirs(out, exist_ok=True)
for name, f in frames.items():
    for i, (flags, ctl, splits) in enumerate([(0, 1, b"\0" * 8), (0x06, 0, b"\0" * 8),
                                              (0, 1 | (1 << 1), bytes([14, 0, 0, 0, 0, 0, 0, 0])),
                                              (0, 1 | (4 << 1), bytes([5, 9, 3, 40, 0, 0, 0, 0]))]):
        with open(os.path.join(out, "%s_%d" % (name, i)), "wb") as fh:
            fh.write(bytes([flags, ctl]) + splits + f)
