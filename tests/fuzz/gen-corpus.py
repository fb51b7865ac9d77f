#!/usr/bin/python3
"""Writes the seed corpus for fuzz-events (run once; output is committed).

Input format: u8 type mask (0xff all), then packets  u8 len | bytes.
"""
import os
import struct
import sys

ADD, DEL, CHANGE, CHANGE_ALL, ACQUIRE, INDICATOR = range(6)
WLAN, BT, WWAN = 1, 2, 5


def ev(idx, type_, op, soft=0, hard=0, reasons=None, extra=b""):
    b = struct.pack("<IBBBB", idx, type_, op, soft, hard)
    if reasons is not None:
        b += bytes([reasons])
    return b + extra


def seed(mask, *packets):
    out = bytes([mask])
    for p in packets:
        out += bytes([len(p)]) + p
    return out


SEEDS = {
    "laptop-ext": seed(0xff, ev(0, WLAN, ADD, reasons=0),
                       ev(1, WLAN, ADD, 1, reasons=0),
                       ev(2, BT, ADD, reasons=0),
                       ev(0, WLAN, CHANGE, 1, reasons=0),
                       ev(2, BT, CHANGE, 0, 1, reasons=1),
                       ev(2, BT, CHANGE, 0, 0, reasons=0)),
    "laptop-v1": seed(0xff, ev(0, WLAN, ADD), ev(1, BT, ADD, 0, 1),
                      ev(0, WLAN, CHANGE, 1), ev(1, BT, CHANGE, 1, 1)),
    "short-reads": seed(0xff, b"", b"\x01", ev(0, WLAN, ADD)[:7],
                        b"\xff\x53\x00\x00", ev(0, WLAN, ADD)),
    "oversize": seed(0xff, ev(3, WWAN, ADD, 1, 1, 3, b"\xaa" * 40),
                     ev(3, WWAN, CHANGE, 0, 0, 0, b"\x55" * 200)),
    "idx-reuse": seed(0xff, ev(0, WLAN, ADD), ev(0, BT, ADD, 1),
                      ev(0, BT, DEL), ev(0, WLAN, ADD)),
    "del-unknown": seed(0xff, ev(7, WLAN, DEL), ev(8, BT, CHANGE, 1),
                        ev(1, WLAN, ADD), ev(9, WLAN, DEL)),
    "unknown-type-op": seed(0xff, ev(0, 200, ADD), ev(0, 200, 77, 1),
                            ev(0, 200, CHANGE_ALL, 1), ev(0, 200, CHANGE, 1)),
    "indicator": seed(0xff, ev(0, 0, INDICATOR, 1), ev(0, 0, INDICATOR, 0),
                      ev(0, 0, ACQUIRE)),
    "wlan-only-mask": seed(1 << WLAN, ev(0, WLAN, ADD, 1), ev(1, BT, ADD),
                           ev(1, BT, CHANGE, 1), ev(0, WLAN, CHANGE, 0)),
}

if __name__ == "__main__":
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(outdir, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
