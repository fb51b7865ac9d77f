#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Host half of the VM relay: the guest's /dev/rfkill as a local socket.

rfkill-relay (in the guest) speaks the frames of relay-proto.h over a
virtio-serial port that qemu exposes as a unix stream socket.  This module
connects to that socket and

  * `Relay` sends requests and routes the guest's answers: every request
    gets exactly one ACK and the guest handles them in order, so a single
    FIFO of waiters matches ACKs to requests;
  * `Channel` is one guest /dev/rfkill fd, used directly by tests;
  * `Bridge` listens on an AF_UNIX SOCK_SEQPACKET socket: each client that
    connects gets its own channel (its own guest fd), each packet it sends
    is one write(), each event the guest reads is one packet back.  That is
    what `rfkill-applet --device PATH` expects.  Radio names are written to
    SYSFS_ROOT/rfkillN/name before the ADD that needs them, for
    RFKILL_SYSFS_ROOT.

A socket write cannot fail with the guest's errno, so the bridge answers
every client packet, in order, with the status packet that src/core's
socket transport expects (rfk-protocol.h): u8 0xff, u8 'S', u16 errno
(little endian, 0 = success), shorter than any event so plain readers skip
it.  The status is sent from the thread that reads the guest's frames, in
the order they came, so a client sees the status of a write before the
events the write caused, as a local /dev/rfkill writer would.

Standalone use (e.g. to try the applet against a VM by hand):
  rfkill_bridge.py --qemu-socket relay.sock --listen rfkill.sock \
                   --sysfs-root /tmp/rfkill-sysfs
"""

import argparse
import collections
import errno
import os
import selectors
import socket
import struct
import sys
import threading
import time

PROTO_VERSION = 1
RELAY_PORT = "rfkill"          # virtio-serial port name (RELAY_PORT_NAME)
MAX_PAYLOAD = 255
MAX_CHANNELS = 16
ACK_HEADER = 9

SYNC = 0x00
HELLO, OPEN, WRITE, CLOSE, READ, STORE, MARK, QUIT, PLUG, IOCTL = (
    ord(c) for c in "HOWCRSMQPI")
ACK, EVENT, NAME, GONE = (ord(c) for c in "AENG")

# struct rfkill_event: u32 idx, u8 type, op, soft, hard (+ u8 reasons)
OP_ADD, OP_DEL, OP_CHANGE, OP_CHANGE_ALL = 0, 1, 2, 3
OP_INDICATOR_ACQUIRE, OP_INDICATOR_CHANGE = 4, 5
# The ioctl that asks for op-5 events (kernel/include/uapi/rfkill-airplane.h)
IOC_AIRPLANE_MODE_EVENTS = 0x41


class RelayError(Exception):
    pass


def status_packet(err):
    """The answer to one client packet (src/core/rfk-protocol.h)."""
    return struct.pack("<BBH", 0xFF, ord("S"), err)


def parse_status(data):
    """errno of a status packet, or None if data is not one."""
    if len(data) == 4 and data[0] == 0xFF and data[1] == ord("S"):
        return struct.unpack_from("<H", data, 2)[0]
    return None


def ioctl_packet(nr):
    """A client's ioctl, over the socket (src/core/rfk-protocol.h)."""
    return bytes([0xFF, ord("I"), nr, 0])


def parse_ioctl_packet(data):
    """The ioctl number of an ioctl packet, or None if data is not one."""
    if len(data) == 4 and data[0] == 0xFF and data[1] == ord("I") \
            and data[3] == 0:
        return data[2]
    return None


def encode_event(idx, type_, op, soft=0, hard=0):
    return struct.pack("<IBBBB", idx, type_, op, soft, hard)


def decode_event(data):
    """Returns a dict for one event (>= 8 bytes, like every reader; the
    7-byte writes the kernel also accepts read as hard = 0)."""
    idx, type_, op, soft, hard = struct.unpack_from(
        "<IBBBB", bytes(data).ljust(8, b"\0"))
    reasons = data[8] if len(data) > 8 else None
    return {"idx": idx, "type": type_, "op": op, "soft": soft, "hard": hard,
            "reasons": reasons, "size": len(data)}


class Relay:
    """The connection to rfkill-relay through qemu's chardev socket."""

    def __init__(self, path, timeout=60.0, abort=None):
        """abort: optional callable; when it returns true while we wait
        for the guest (e.g. qemu exited), give up at once."""
        self.path = path
        self._abort = abort or (lambda: False)
        self._sock = None
        # _send_lock orders frames and waiters alike (a waiter is queued
        # under it just before its frame goes out); _wait_lock only guards
        # the deque, so the reader never waits for a blocked send.
        self._send_lock = threading.Lock()
        self._wait_lock = threading.Lock()
        self._waiters = collections.deque()
        self._channels = {}             # chan -> Channel
        self._free = list(range(1, MAX_CHANNELS))
        self._names = []                # callbacks (idx, name)
        self.max_event_size = None
        self.closed = threading.Event()
        self._connect(timeout)

    def _connect(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.path)
                break
            except OSError as err:
                sock.close()
                if time.monotonic() > deadline or self._abort():
                    raise RelayError(f"cannot connect to {self.path}: {err}")
                time.sleep(0.05)
        self._sock = sock
        threading.Thread(target=self._reader, name="relay-reader",
                         daemon=True).start()
        # The guest may still be booting: HELLO is repeated until answered.
        while True:
            try:
                _, _, info = self.request(HELLO, 0, bytes([PROTO_VERSION]),
                                          timeout=3.0, sync=True)
                break
            except TimeoutError:
                if self._abort():
                    raise RelayError(f"no HELLO from the guest relay on "
                                     f"{self.path}: the VM is gone")
                if time.monotonic() > deadline:
                    raise RelayError(f"no HELLO from the guest relay on "
                                     f"{self.path} in {timeout:.0f} s")
        if info[0] != PROTO_VERSION:
            raise RelayError(f"guest relay speaks version {info[0]}, "
                             f"we speak {PROTO_VERSION}")
        self.max_event_size = info[1]

    def close(self):
        if self._sock:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()
        self.closed.set()

    def on_name(self, callback):
        self._names.append(callback)

    # -- requests ---------------------------------------------------------
    def request_async(self, kind, chan, payload=b"", done=None, sync=False):
        """Sends one request; done(errno, result, data) runs on the reader
        thread when its ACK arrives."""
        if len(payload) > MAX_PAYLOAD:
            raise ValueError(f"payload of {len(payload)} bytes")
        frame = bytes([kind, chan, len(payload)]) + payload
        if sync:
            frame = bytes(MAX_PAYLOAD + 5) + frame
        with self._send_lock:
            with self._wait_lock:
                self._waiters.append((kind, done))
            try:
                self._sock.sendall(frame)
            except OSError as err:
                with self._wait_lock:
                    self._waiters.pop()
                raise RelayError(f"relay socket {self.path}: {err}") from err

    def request(self, kind, chan, payload=b"", timeout=10.0, sync=False):
        """Blocking request; returns (errno, result, data)."""
        box = []
        ready = threading.Event()

        def done(err, result, data):
            box.append((err, result, data))
            ready.set()

        self.request_async(kind, chan, payload, done, sync)
        if not ready.wait(timeout):
            if self.closed.is_set():
                raise RelayError(f"relay {self.path} closed")
            raise TimeoutError(f"no answer from the guest to "
                               f"{chr(kind)!r} in {timeout} s")
        return box[0]

    def read_file(self, path):
        """A file under /sys or /proc in the guest, as text."""
        data = b""
        while True:
            err, n, chunk = self.request(
                READ, 0, struct.pack("<I", len(data)) + path.encode())
            if err:
                raise OSError(err, f"guest {path}: {os.strerror(err)}")
            data += chunk
            if n < MAX_PAYLOAD - ACK_HEADER:
                return data.decode(errors="replace")

    def write_file(self, path, data):
        """Writes data to a file under /sys in the guest."""
        err, _, _ = self.request(STORE, 0, path.encode() + b"\0" +
                                 data.encode())
        if err:
            raise OSError(err, f"guest {path}: {os.strerror(err)}")

    def mark(self, text):
        """Writes text into the debugcon log (markers between LED writes)."""
        err, _, _ = self.request(MARK, 0, text.encode())
        if err:
            raise OSError(err, f"guest marker: {os.strerror(err)}")

    def plug_bluetooth(self, plugged):
        """Plugs a virtual Bluetooth controller into the guest (hci_vhci)
        or unplugs it again."""
        err, _, _ = self.request(PLUG, 0, bytes([1 if plugged else 0]))
        if err:
            raise OSError(err, f"guest vhci plug: {os.strerror(err)}")

    def quit(self):
        """Ends the guest relay: the VM then collects dmesg and powers off."""
        self.request(QUIT, 0)

    def open_channel_async(self, on_event=None, on_gone=None):
        """Starts opening a guest fd; the Channel's `ready` event is set
        when the guest answered (`error` then holds its errno or 0)."""
        with self._wait_lock:
            if not self._free:
                raise RelayError("no free relay channel")
            chan = self._free.pop(0)
        ch = Channel(self, chan, on_event, on_gone)
        self._channels[chan] = ch

        def done(err, size, _):
            if err:
                ch.open = False
                self._release(chan)
            ch.event_size = size
            ch.error = err
            ch.ready.set()

        self.request_async(OPEN, chan, b"", done)
        return ch

    def open_channel(self, on_event=None, on_gone=None, timeout=10.0):
        ch = self.open_channel_async(on_event, on_gone)
        if not ch.ready.wait(timeout):
            raise TimeoutError(f"no answer from the guest to OPEN in "
                               f"{timeout} s")
        if ch.error:
            raise OSError(ch.error,
                          f"guest /dev/rfkill: {os.strerror(ch.error)}")
        return ch

    def _release(self, chan):
        self._channels.pop(chan, None)
        with self._wait_lock:
            if chan not in self._free:
                self._free.append(chan)

    # -- the reader thread ------------------------------------------------
    def _reader(self):
        buf = b""
        try:
            while True:
                data = self._sock.recv(65536)
                if not data:
                    break
                buf += data
                while buf:
                    if buf[0] == SYNC:
                        buf = buf[1:]
                        continue
                    if len(buf) < 3 or len(buf) < 3 + buf[2]:
                        break
                    kind, chan, length = buf[0], buf[1], buf[2]
                    payload, buf = buf[3:3 + length], buf[3 + length:]
                    self._dispatch(kind, chan, payload)
        except (OSError, RelayError) as err:
            if isinstance(err, RelayError):
                print(f"rfkill_bridge: {err}", file=sys.stderr)
        finally:
            self.closed.set()
            with self._wait_lock:
                waiters, self._waiters = list(self._waiters), collections.deque()
            for _, done in waiters:
                if done:
                    done(errno.EPIPE, -1, b"")
            for ch in list(self._channels.values()):
                ch._gone(errno.EPIPE)

    def _dispatch(self, kind, chan, payload):
        # Until HELLO is answered, the stream may start with what the guest
        # was sending to an earlier host (a virtio port write blocks while
        # no host is connected and completes for the next one); the guest
        # puts SYNC bytes before its HELLO answer, so skip to that.
        if self.max_event_size is None and not (
                kind == ACK and payload[:1] == bytes([HELLO])):
            return
        if kind == ACK:
            req, err, result = struct.unpack_from("<Bii", payload)
            with self._wait_lock:
                want, done = self._waiters.popleft() if self._waiters \
                    else (None, None)
            if req != want:
                raise RelayError(f"ACK for {chr(req)!r}, expected "
                                 f"{chr(want) if want else 'none'!r}: "
                                 "relay out of step")
            if done:
                done(err, result, payload[ACK_HEADER:])
        elif kind == NAME:
            idx = struct.unpack_from("<I", payload)[0]
            name = payload[4:].decode(errors="replace")
            for cb in self._names:
                cb(idx, name)
        elif kind == EVENT:
            ch = self._channels.get(chan)
            if ch:
                ch._event(payload)
        elif kind == GONE:
            ch = self._channels.get(chan)
            if ch:
                ch._gone(struct.unpack_from("<i", payload)[0])
        else:
            raise RelayError(f"unknown frame kind {kind} from the guest")


class Channel:
    """One /dev/rfkill fd in the guest."""

    def __init__(self, relay, chan, on_event=None, on_gone=None):
        self.relay = relay
        self.chan = chan
        self.event_size = None
        self.error = None
        self.ready = threading.Event()
        # Events are kept here until somebody takes them (attach).
        self.events = []
        self._cond = threading.Condition()
        self._on_event = on_event
        self._on_gone = on_gone
        self.open = True

    def _event(self, data):
        # Under the lock, so attach() cannot slip between buffered and
        # live events.
        with self._cond:
            if self._on_event:
                self._on_event(data)
            else:
                self.events.append(data)
            self._cond.notify_all()

    def attach(self, on_event, on_gone):
        """Hands every buffered event, then every later one, to on_event."""
        with self._cond:
            for data in self.events:
                on_event(data)
            self.events = []
            self._on_event = on_event
            self._on_gone = on_gone
            gone = not self.open
        if gone:
            on_gone(errno.EPIPE)

    def _gone(self, err):
        self.open = False
        self.relay._release(self.chan)
        with self._cond:
            self._cond.notify_all()
        if self._on_gone:
            self._on_gone(err)

    def write_async(self, data, done):
        self.relay.request_async(WRITE, self.chan, bytes(data), done)

    def write(self, data):
        """write() in the guest: returns 0 or the errno."""
        err, _, _ = self.relay.request(WRITE, self.chan, bytes(data))
        return err

    def ioctl_async(self, nr, done):
        self.relay.request_async(IOCTL, self.chan, bytes([nr]), done)

    def ioctl(self, nr):
        """ioctl(_IO('R', nr)) in the guest: returns 0 or the errno."""
        err, _, _ = self.relay.request(IOCTL, self.chan, bytes([nr]))
        return err

    def close(self):
        if self.open:
            self.open = False
            self.relay.request(CLOSE, self.chan)
            self.relay._release(self.chan)

    def wait_for(self, predicate, timeout=10.0, start=0):
        """Waits for a decoded event from index start on that matches;
        returns (index, event) or raises TimeoutError."""
        deadline = time.monotonic() + timeout
        with self._cond:
            i = start
            while True:
                while i < len(self.events):
                    ev = decode_event(self.events[i])
                    if predicate(ev):
                        return i, ev
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0 or not self.open:
                    raise TimeoutError("no matching rfkill event in the guest")
                self._cond.wait(left)


class Bridge:
    """Serves the guest's /dev/rfkill on a SOCK_SEQPACKET socket."""

    def __init__(self, relay, listen_path, sysfs_root=None, log=None):
        self.relay = relay
        self.listen_path = listen_path
        self.sysfs_root = sysfs_root
        self.log = log or (lambda msg: None)
        self._clients = {}              # socket -> Channel
        # Every client write and the guest's answer, for tests to observe:
        # (chan, event bytes, errno), appended on the reader thread.
        self.writes = []
        # The same for client ioctls: (chan, ioctl number, errno).
        self.ioctls = []
        self._sel = selectors.DefaultSelector()
        self._wake_r, self._wake_w = os.pipe()
        self._stop = False
        if sysfs_root:
            os.makedirs(sysfs_root, exist_ok=True)
            relay.on_name(self._write_name)
        try:
            os.unlink(listen_path)
        except FileNotFoundError:
            pass
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._listener.bind(listen_path)
        self._listener.listen(8)
        self._sel.register(self._listener, selectors.EVENT_READ, None)
        self._sel.register(self._wake_r, selectors.EVENT_READ, None)
        # A guest fd opened ahead of the next client (see _accept).
        self._spare = None
        self._open_spare()
        self._thread = threading.Thread(target=self._serve, name="bridge",
                                        daemon=True)
        self._thread.start()

    # Most programs treat the ADDs that arrive soon after they connect as
    # the initial list (src/core waits for 100 ms of quiet).  Opening the
    # guest fd only after accept() costs a round trip into a TCG guest,
    # which a loaded machine can stretch past that.  So the next client's
    # fd is opened in advance and its events buffered; the client then
    # reads exactly what a process that opened /dev/rfkill that moment
    # earlier would read: the kernel's ADDs, then any changes since.  A
    # spare that buffered more than SPARE_MAX events is replaced.
    SPARE_MAX = 32

    def _open_spare(self):
        try:
            self._spare = self.relay.open_channel_async()
        except RelayError as err:
            self._spare = None
            self.log(f"bridge: no spare channel: {err}")

    def _take_spare(self):
        ch, self._spare = self._spare, None
        if ch is None or not ch.ready.wait(10) or ch.error or not ch.open:
            return None
        if len(ch.events) > self.SPARE_MAX:
            ch.close()
            return None
        return ch

    def _write_name(self, idx, name):
        # Written before the ADD goes out (same reader thread), and
        # atomically, so a client never sees a half-written name.
        d = os.path.join(self.sysfs_root, f"rfkill{idx}")
        os.makedirs(d, exist_ok=True)
        tmp = os.path.join(d, ".name.tmp")
        with open(tmp, "w") as f:
            f.write(name + "\n")
        os.replace(tmp, os.path.join(d, "name"))

    def close(self):
        self._stop = True
        os.write(self._wake_w, b"x")
        self._thread.join(5)
        spare = self._take_spare()
        for ch in [spare] if spare else []:
            if not self.relay.closed.is_set():
                ch.close()
        for sock, ch in list(self._clients.items()):
            sock.close()
            if ch.open and not self.relay.closed.is_set():
                ch.close()
        self._listener.close()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def _serve(self):
        while not self._stop:
            for key, _ in self._sel.select():
                if key.fileobj is self._listener:
                    self._accept()
                elif key.fileobj == self._wake_r:
                    os.read(self._wake_r, 64)
                else:
                    self._client_packet(key.fileobj)

    def _accept(self):
        sock, _ = self._listener.accept()

        def to_client(data):
            try:
                sock.send(data)
            except OSError:
                pass    # the client left; its close is seen by _serve

        def gone(err):
            self.log(f"bridge: guest channel failed ({os.strerror(err)})")
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        try:
            ch = self._take_spare() or self.relay.open_channel()
            ch.attach(to_client, gone)
            # The guest relay forwards the ADDs of a new fd before its
            # OPEN answer, so they are all out now: mark the end of the
            # initial list (src/core/rfk-protocol.h).
            to_client(status_packet(0))
            self._open_spare()
        except (OSError, RelayError, TimeoutError) as err:
            self.log(f"bridge: {err}")
            sock.close()
            return
        self._clients[sock] = ch
        self._sel.register(sock, selectors.EVENT_READ, None)
        self.log(f"bridge: client on channel {ch.chan}")

    def _client_packet(self, sock):
        ch = self._clients[sock]
        try:
            data = sock.recv(MAX_PAYLOAD)
        except OSError:
            data = b""
        if not data:
            # The client closed its "fd": close the guest one, which is
            # what releases an indicator it owned.
            self._sel.unregister(sock)
            del self._clients[sock]
            sock.close()
            if ch.open and not self.relay.closed.is_set():
                ch.close()
            self.log(f"bridge: channel {ch.chan} closed")
            return
        nr = parse_ioctl_packet(data)

        def done(err, result, _):
            if nr is None:
                self.writes.append((ch.chan, data, err))
            else:
                self.ioctls.append((ch.chan, nr, err))
            try:
                sock.send(status_packet(err))
            except OSError:
                pass

        try:
            if nr is not None:
                ch.ioctl_async(nr, done)
            else:
                ch.write_async(data, done)
        except RelayError as err:
            self.log(f"bridge: {err}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--qemu-socket", required=True,
                    help="qemu's chardev socket of the 'rfkill' port")
    ap.add_argument("--listen", required=True,
                    help="SOCK_SEQPACKET socket to create for clients")
    ap.add_argument("--sysfs-root", help="directory for RFKILL_SYSFS_ROOT")
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args()
    try:
        relay = Relay(args.qemu_socket, args.timeout)
    except RelayError as err:
        print(f"rfkill_bridge: {err}", file=sys.stderr)
        return 1
    Bridge(relay, args.listen, args.sysfs_root,
           log=lambda m: print(m, file=sys.stderr))
    print(f"rfkill_bridge: serving {args.listen}", file=sys.stderr)
    relay.closed.wait()
    print("rfkill_bridge: guest relay closed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
