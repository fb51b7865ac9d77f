#!/usr/bin/python3
"""Writes the seed corpora for fuzz-events (corpus/) and fuzz-policy
(corpus-policy/); run once, the output is committed.

Input format: u8 type mask (0xff all), then operations (see fuzz-events.c):
  0 len bytes   one event read      1 idx blocked   set one radio
  2 enabled     airplane mode       3 errno         write status
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


def seed(mask, *ops):
    """ops: bytes = an event read; tuples = ('set', idx, blocked),
    ('airplane', on) or ('status', errno)."""
    out = bytes([mask])
    for op in ops:
        if isinstance(op, bytes):
            out += bytes([0, len(op)]) + op
        elif op[0] == "set":
            out += bytes([1, op[1], op[2]])
        elif op[0] == "airplane":
            out += bytes([2, op[1]])
        else:
            out += bytes([3, op[1]])
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
    # Requests confirmed by the events a kernel would send.
    "set-blocked": seed(0xff, ev(0, WLAN, ADD), ("set", 0, 1), ("status", 0),
                        ev(0, WLAN, CHANGE, 1), ("set", 0, 0),
                        ("set", 0, 1), ev(0, WLAN, CHANGE, 0),
                        ev(0, WLAN, CHANGE, 1)),
    "airplane-round-trip": seed(0xff, ev(0, WLAN, ADD), ev(1, WLAN, ADD, 1),
                                ev(2, BT, ADD), ("airplane", 1),
                                ev(0, WLAN, CHANGE, 1), ev(2, BT, CHANGE, 1),
                                ev(2, BT, DEL), ev(3, BT, ADD, 0),
                                ev(3, BT, CHANGE, 1), ("airplane", 0),
                                ev(0, WLAN, CHANGE, 0),
                                ev(3, BT, CHANGE, 0)),
    "airplane-superseded": seed(0xff, ev(0, WLAN, ADD), ("airplane", 1),
                                ("airplane", 0), ev(0, WLAN, CHANGE, 1),
                                ev(0, WLAN, CHANGE, 0)),
    "write-refused": seed(0xff, ev(0, 200, ADD), ("set", 0, 1),
                          ("status", 22), ("set", 5, 1)),
}


# fuzz-policy: u8 type mask, u8 active, then per radio
# type | name | state (soft, hard, writing << 2, no-path << 4) | remembered
# (in list, was blocked << 1, under "type:name" << 2).
SOFT, HARD, UNBLOCKING, BLOCKING, NO_PATH = 1, 2, 2 << 2, 3 << 2, 1 << 4
KNOWN, WAS_BLOCKED, BY_NAME = 1, 2, 4


def radio(type_, name=0, state=0, remembered=0):
    return bytes([type_, name, state, remembered])


def policy(mask, active, *radios):
    return bytes([mask, active]) + b"".join(radios)


POLICY_SEEDS = {
    "off-laptop": policy(0xff, 1, radio(WLAN, 0, SOFT, KNOWN),
                         radio(WLAN, 1, SOFT, KNOWN | WAS_BLOCKED),
                         radio(BT, 0, SOFT, KNOWN)),
    "on-laptop": policy(0xff, 0, radio(WLAN), radio(WLAN, 1, SOFT),
                        radio(BT, 0, HARD)),
    "in-flight": policy(0xff, 1, radio(WLAN, 0, UNBLOCKING, KNOWN),
                        radio(BT, 0, SOFT | BLOCKING, KNOWN | WAS_BLOCKED)),
    "older-list": policy(0xff, 1, radio(WLAN, 0, SOFT | NO_PATH,
                                        KNOWN | BY_NAME),
                         radio(BT, 0, SOFT, KNOWN | WAS_BLOCKED | BY_NAME)),
    "wlan-only": policy(1 << WLAN, 1, radio(WLAN, 0, SOFT, KNOWN),
                        radio(BT), radio(WWAN, 0, SOFT)),
    "newcomer": policy(0xff, 1, radio(WLAN, 0, SOFT, KNOWN), radio(WLAN, 3),
                       radio(200, 0)),
    "empty": policy(0xff, 1),
}


def write(outdir, seeds):
    os.makedirs(outdir, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    top = sys.argv[1] if len(sys.argv) > 1 else here
    write(os.path.join(top, "corpus"), SEEDS)
    write(os.path.join(top, "corpus-policy"), POLICY_SEEDS)
