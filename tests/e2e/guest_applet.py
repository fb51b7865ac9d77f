#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""e2e, inside the guest: the tray applet writes the real /dev/rfkill.

test_applet.py runs this in the guest before the relay starts, in the
host's root (shared read-only over 9p, chrooted), as an unprivileged user
whose group may write /dev/rfkill, in the gui suite's throw-away session:

  tests/gui/run-in-session.py guest_applet.py --applet build/rfkill-applet

It starts rfkill-applet without --device, so the applet opens
/dev/rfkill as it does on a desktop, and clicks "Airplane mode" twice
through its dbusmenu with the gui suite's watcher and client
(tests/gui/guitest.py).  A radio is already blocked by hand (by root,
before this runs).  It judges nothing: it prints what it saw, one fact a
line, and test_applet.py checks the facts on the host:

  fd MODES          how the applet holds /dev/rfkill: "rw", "ro", or
                    "none" (from /proc/PID/fdinfo)
  state STEP N=S…   soft state of every radio in /sys/class/rfkill after
                    STEP (before, on, off)
  events STEP N=S…  the CHANGE events that a reader of its own got from
                    the kernel during STEP, in order
  menu STEP 0|1     whether "Airplane mode" is checked after STEP
  exit N            the applet's exit status after SIGTERM
  error TEXT        what went wrong (printed instead of the rest)
"""

import argparse
import os
import signal
import subprocess
import sys
import time

import rfkill_bridge as rb
from gui import guitest as gt

SYSFS = "/sys/class/rfkill"
DEVICE = "/dev/rfkill"
AIRPLANE = "Airplane mode"
# Everything here runs in an emulated CPU (qemu TCG), ten or more times
# slower than on the host: wait generously, poll often.
WAIT_S = 30.0
# After the wanted state shows up, how long to go on watching for a late
# write (a radio that flashes on, a restore that undoes itself).
SETTLE_S = 1.0


def radio_names():
    """{idx: name} of every radio in sysfs."""
    names = {}
    for entry in os.listdir(SYSFS):
        if entry.startswith("rfkill"):
            with open(os.path.join(SYSFS, entry, "name")) as f:
                names[int(entry[len("rfkill"):])] = f.read().strip()
    return names


def soft_states():
    """{name: soft} from sysfs, as the kernel has it now."""
    states = {}
    for entry in os.listdir(SYSFS):
        if entry.startswith("rfkill"):
            base = os.path.join(SYSFS, entry)
            with open(os.path.join(base, "name")) as f, \
                    open(os.path.join(base, "soft")) as g:
                states[f.read().strip()] = int(g.read())
    return states


def words(states):
    return " ".join(f"{n}={s}" for n, s in sorted(states.items()))


class EventReader:
    """A /dev/rfkill reader of our own (read access is enough): the kernel
    tells every open fd about every change, so this sees each write the
    applet makes, as gsd-rfkill or `rfkill event` would."""

    def __init__(self):
        self.fd = os.open(DEVICE, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        self.changes = []       # [(name, soft)] in the kernel's order
        self.names = {}

    def poll(self):
        while True:
            try:
                data = os.read(self.fd, 64)  # one event per read()
            except BlockingIOError:
                return
            ev = rb.decode_event(data)
            if ev["op"] != rb.OP_CHANGE:
                continue
            if ev["idx"] not in self.names:
                self.names = radio_names()
            self.changes.append((self.names.get(ev["idx"], f"#{ev['idx']}"),
                                 ev["soft"]))

    def take(self):
        """The changes since the last take()."""
        self.poll()
        taken, self.changes = self.changes, []
        return taken


def device_modes(pid):
    """How process pid holds /dev/rfkill: a list of "rw"/"ro"/"wo"."""
    modes = []
    fd_dir = f"/proc/{pid}/fd"
    for fd in os.listdir(fd_dir):
        try:
            if os.readlink(os.path.join(fd_dir, fd)) != DEVICE:
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                flags = next(int(l.split()[1], 8) for l in f
                             if l.startswith("flags:"))
        except (OSError, StopIteration):
            continue  # closed meanwhile
        modes.append({os.O_RDWR: "rw", os.O_RDONLY: "ro",
                      os.O_WRONLY: "wo"}[flags & os.O_ACCMODE])
    return sorted(modes)


def wait_states(reader, want):
    """Polls until sysfs has want (or WAIT_S passes), then watches
    SETTLE_S more; returns the states then."""
    deadline = time.monotonic() + WAIT_S
    while soft_states() != want and time.monotonic() < deadline:
        reader.poll()
        time.sleep(0.05)
    end = time.monotonic() + SETTLE_S
    while time.monotonic() < end:
        reader.poll()
        time.sleep(0.05)
    return soft_states()


def radio_items(item):
    """The menu's radio items (their labels name the type, then the
    device, e.g. "Wi-Fi (wlan0)")."""
    return [e for e in item.entries()
            if e.label.startswith(("Wi-Fi (", "Bluetooth ("))]


def checked(item):
    """The "Airplane mode" check mark as the menu shows it now."""
    return item.find(AIRPLANE).checked


def report_step(reader, item, step, want, menu_want):
    states = wait_states(reader, want)
    print(f"state {step} {words(states)}", flush=True)
    print(f"events {step} " + " ".join(f"{n}={s}" for n, s in reader.take()),
          flush=True)
    # The menu follows the kernel's confirmation: give it time.
    try:
        gt.wait_for(lambda: checked(item) == menu_want, WAIT_S, "the menu")
    except gt.TestFailure:
        pass  # reported as it is
    print(f"menu {step} {int(checked(item))}", flush=True)


def scenario(applet_path, logdir):
    reader = EventReader()
    reader.take()       # the ADD of each radio, sent to every new fd
    before = soft_states()
    print(f"state before {words(before)}", flush=True)

    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    watcher = gt.Watcher(bus)
    log = open(os.path.join(logdir, "applet.log"), "w")
    # No --device: the default, /dev/rfkill, as installed.
    applet = subprocess.Popen([applet_path], stdout=log,
                              stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL)
    try:
        regs = gt.wait_for(watcher.registrations, WAIT_S,
                           "the applet's tray item")
        item = gt.Item(bus, *regs[-1])
        gt.wait_for(lambda: len(radio_items(item)) == len(before), WAIT_S,
                    "every radio in the menu")
        print(f"fd {' '.join(device_modes(applet.pid)) or 'none'}",
              flush=True)
        print(f"menu before {int(checked(item))}", flush=True)

        item.click(AIRPLANE)
        report_step(reader, item, "on", {n: 1 for n in before}, True)
        item.click(AIRPLANE)
        report_step(reader, item, "off", before, False)
    finally:
        applet.send_signal(signal.SIGTERM)
        try:
            code = applet.wait(10)
        except subprocess.TimeoutExpired:
            applet.kill()
            code = applet.wait()
        print(f"exit {code}", flush=True)
        loop.stop()
        log.close()
        # GLib's report of a broken precondition: a bug however it went.
        with open(os.path.join(logdir, "applet.log"), errors="replace") as f:
            criticals = [l for l in f.read().splitlines() if "CRITICAL **" in l]
        print(f"criticals {len(criticals)} {' | '.join(criticals[:3])}".strip(),
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--applet", required=True)
    args = ap.parse_args()
    logdir = os.path.join(os.environ["HOME"], "logs")
    os.makedirs(logdir, exist_ok=True)
    try:
        scenario(args.applet, logdir)
    except Exception as err:  # every failure becomes a fact for the host
        print(f"error {type(err).__name__}: {err}".replace("\n", " "),
              flush=True)
        try:
            with open(os.path.join(logdir, "applet.log")) as f:
                for line in f.read().splitlines()[-20:]:
                    print(f"error applet: {line}", flush=True)
        except OSError:
            pass
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
