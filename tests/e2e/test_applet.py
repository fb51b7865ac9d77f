#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""e2e: the tray applet on the host owns the real airplane-mode LED.

Run inside the gui suite's throw-away desktop session (Xvfb, private
session bus, keyfile GSettings), with the gui suite's test watcher and
dbusmenu client:

  tests/gui/run-in-session.py test_applet.py --kernel KVER \
      --applet build/rfkill-applet --relay … --acpi-table … \
      --source-dir kernel --work-dir DIR

The story: the user picks "When Wi-Fi is off" for the light and starts the
applet.  The applet acquires the indicator in the guest kernel (nobody
else can), Wi-Fi off lights the LED although Bluetooth is still on (the
kernel's own rule would keep it dark), airplane mode from the applet's
menu blocks every radio and restores them, "Always off" from GSettings
darkens it even with every radio blocked, and when the applet is killed
the kernel takes the light back at once and lights it by its own rule.

Before all that, while the relay has not started yet, the applet runs in
the guest itself, on the real /dev/rfkill (guest_applet.py, in the host's
root over 9p): airplane mode on and off from its menu, with one radio
blocked by hand before, checked in sysfs and in the kernel's events.

With --stock (Debian's own modules) the applet's ACQUIRE must get EINVAL,
its menu must say why, and the LED keeps following the kernel's rule.
"""

import argparse
import errno
import os
import re
import shlex
import signal
import subprocess
import sys
import time

import rfkill_bridge as rb
from e2e_vm import (E2eVm, Tap, Client, build_modules,
                    build_notify_trigger, host_root_setup,
                    check_led, check_led_stays, set_soft)

try:
    from gui import guitest as gt  # the gui suite's watcher and dbusmenu client
except ImportError as err:  # pragma: no cover - reported as a failure
    gt = None
    GUITEST_ERROR = err

APP_ID = "io.github.rfkill_applet.RfkillApplet"
ACQUIRE = rb.encode_event(0, 0, rb.OP_INDICATOR_ACQUIRE)


def gsettings(*args):
    return subprocess.run(["gsettings", *args], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL)


def wait(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except Exception:  # not exported yet, radio not there yet, …
            value = None
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


NOTIFY = "/sys/module/acpi_notify_trigger/parameters/notify"

# Runs in the guest before the relay, as root: the tray applet itself on
# the real /dev/rfkill, the production path (not the relay's socket).
# guest_applet.py drives it in the gui suite's session, in the host's
# root shared over 9p (E2eVm host_root).  The user is nobody, with a
# group that may write /dev/rfkill, as the user of the active seat may
# through logind's ACL (busybox has no setfacl).  phy1 is blocked by hand
# first; afterwards it is unblocked and /dev/rfkill set back, so the
# relay's scenario starts with every radio on.
GUEST_APPLET_PREFIX = "e2e-applet-direct: "
RFKILL_GID = 4242   # no group of the host's: only the applet's user has it
GUEST_APPLET_SETUP = r"""dmesg -n 1
HOST_ROOT_SETUP
soft_by_name() {
  for d in /sys/class/rfkill/rfkill*; do
    [ "$(cat "$d/name")" = "$1" ] && echo "$2" >"$d/soft"
  done
}
soft_by_name phy1 1
mode=$(stat -c %a /dev/rfkill)
chgrp GID /dev/rfkill && chmod 0660 /dev/rfkill
chroot /host /usr/bin/env -i PATH=/usr/bin:/bin ENVIRONMENT \
  /usr/bin/setpriv --reuid=65534 --regid=65534 --groups=GID \
  /usr/bin/python3 SESSION DRIVER --applet APPLET \
  >/tmp/applet-direct 2>&1 3<&-
echo "PREFIX rc $?"
sed 's/^/PREFIX /' /tmp/applet-direct
chgrp 0 /dev/rfkill && chmod "$mode" /dev/rfkill
soft_by_name phy1 0
dmesg -n 4"""


def guest_applet_setup(applet):
    """GUEST_APPLET_SETUP for this tree and the environment meson gives
    the applet (its schemas and icons from the build tree)."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    env = {"PYTHONPATH": os.path.join(top, "tests")}
    for var in ("GSETTINGS_SCHEMA_DIR", "XDG_DATA_DIRS"):
        if os.environ.get(var):
            env[var] = os.environ[var]
    keep = [top, os.path.dirname(applet)] + [
        d for v in env.values() for d in v.split(":") if d]
    words = {
        "HOST_ROOT_SETUP": host_root_setup(keep),
        "ENVIRONMENT": " ".join(shlex.quote(f"{k}={v}")
                                for k, v in env.items()),
        "SESSION": shlex.quote(os.path.join(top, "tests/gui/run-in-session.py")),
        "DRIVER": shlex.quote(os.path.join(top, "tests/e2e/guest_applet.py")),
        "APPLET": shlex.quote(applet),
        "PREFIX ": GUEST_APPLET_PREFIX,
        "GID": str(RFKILL_GID),
    }
    # One pass, so that nothing replaced (a path) is replaced again.
    return re.sub("|".join(map(re.escape, words)),
                  lambda m: words[m.group(0)], GUEST_APPLET_SETUP)


def guest_applet_direct(tap, vm):
    """The applet's writes on the real character device, as guest_applet.py
    saw them: airplane mode on blocks every radio, off brings back exactly
    what was on (phy1, blocked by hand, stays blocked), sysfs and the
    kernel's events agree, and the menu follows."""
    lines = vm.console_lines(GUEST_APPLET_PREFIX)
    facts = {}
    for line in lines:
        key, _, rest = line.partition(" ")
        if key in ("state", "events", "menu"):
            step, _, rest = rest.partition(" ")
            key = f"{key} {step}"
        facts.setdefault(key, rest)
    errors = "\n".join(l for l in lines if l.startswith("error "))

    def pairs(key):
        return [tuple(kv.split("=", 1)) for kv in facts.get(key, "").split()]

    tap.ok(facts.get("rc") == "0", "guest: the applet's session on the real "
           "/dev/rfkill ran to the end", f"console: {lines}")
    tap.ok(facts.get("fd") == "rw", "guest: the applet, started without "
           "--device, holds the real /dev/rfkill open for reading and "
           "writing", f"fd: {facts.get('fd')!r}\n{errors}")
    before = {"phy0": "0", "phy1": "1", "hci0": "0"}
    tap.ok(dict(pairs("state before")) == before,
           "guest: phy1 blocked by hand before the applet starts",
           f"got {facts.get('state before')!r}")
    tap.ok(facts.get("menu before") == "0",
           "guest: the menu shows airplane mode unchecked at start",
           f"got {facts.get('menu before')!r}")
    for step, state, events, menu in (
            ("on", {"phy0": "1", "phy1": "1", "hci0": "1"},
             {("phy0", "1"), ("hci0", "1")}, "1"),
            ("off", before, {("phy0", "0"), ("hci0", "0")}, "0")):
        tap.ok(dict(pairs(f"state {step}")) == state,
               f"guest: menu 'Airplane mode' {step}: sysfs has {state}",
               f"got {facts.get(f'state {step}')!r}\n{errors}")
        # The kernel sends an event only for a real change: exactly
        # phy0 and hci0 switch, once each, and phy1 never comes on.
        tap.ok(set(pairs(f"events {step}")) == events and
               len(pairs(f"events {step}")) == len(events),
               f"guest: airplane mode {step}: the kernel's events switch "
               f"phy0 and hci0 once each, phy1 not at all",
               f"events: {facts.get(f'events {step}')!r}")
        tap.ok(facts.get(f"menu {step}") == menu,
               f"guest: the menu shows airplane mode "
               f"{'checked' if menu == '1' else 'unchecked'}",
               f"got {facts.get(f'menu {step}')!r}")
    tap.ok(facts.get("exit") == "0", "guest: the applet exits 0 on SIGTERM",
           f"got {facts.get('exit')!r}")
    tap.ok(facts.get("criticals") == "0", "guest: the applet logged no GLib "
           "CRITICAL", f"got {facts.get('criticals')!r}")


def soft_states(vm):
    return {n: r["soft"] for n, r in vm.radios().items()}


def wait_soft(vm, want, timeout=10.0):
    """The guest's soft states once they are want, or None."""
    return wait(lambda: soft_states(vm) == want and soft_states(vm), timeout)


def press_airplane_key(vm, mark=None):
    """The ASUS airplane key (HSWC's notify 0x88), after the pause
    rfkill-input needs between operations (200 ms)."""
    time.sleep(0.3)
    if mark:
        vm.mark(mark)
    vm.relay.write_file(NOTIFY, "0x88")


def scenario(tap, vm, applet_path, logdir):
    guest_applet_direct(tap, vm)
    radios = vm.wait_adds(3)
    if not tap.ok(sorted(radios) == ["hci0", "phy0", "phy1"],
                  "guest has phy0, phy1, hci0", f"got {radios}"):
        return

    r = gsettings("set", APP_ID, "led-rule", "wlan-blocked")
    tap.ok(r.returncode == 0, "gsettings: led-rule = wlan-blocked",
           r.stderr)

    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    watcher = gt.Watcher(bus)
    os.environ["RFK_APPLET"] = applet_path
    vm.mark("applet-start")
    applet = gt.Applet(vm.device, logdir, name="applet",
                       extra_env={"RFKILL_SYSFS_ROOT": vm.sysfs_root})
    try:
        item = watcher.wait_item(applet.unique_name(bus))
        tap.ok(True, "the applet registered its tray item")
        phy0 = wait(lambda: item.find("Wi-Fi (phy0)"))
        tap.ok(bool(phy0) and bool(item.find("Bluetooth (hci0)")),
               "its menu names the guest's radios (names through the bridge)",
               f"menu: {wait(item.dump)}")

        # It asked for op-5 events on its guest fd; our module said yes.
        asked = wait(lambda: [i for i in vm.bridge.ioctls
                              if i[1] == rb.IOC_AIRPLANE_MODE_EVENTS])
        tap.ok(bool(asked) and all(i[2] == 0 for i in asked),
               "the applet asked for op-5 events; the guest kernel said 0",
               f"bridge ioctls: {vm.bridge.ioctls}")

        # The applet took the indicator (its ACQUIRE went through the
        # bridge and the guest kernel said yes); now nobody else can.
        acquired = wait(lambda: [w for w in vm.bridge.writes
                                 if rb.decode_event(w[1])["op"] ==
                                 rb.OP_INDICATOR_ACQUIRE and w[2] == 0])
        tap.ok(bool(acquired), "the applet acquired the indicator in the "
               "guest kernel", f"bridge writes: {vm.bridge.writes}")
        other = Client(vm.device)
        err = other.write(ACQUIRE)
        tap.ok(err == errno.EACCES,
               "another program's ACQUIRE gets EACCES", f"errno {err}")
        check_led_stays(tap, vm, "applet-start", False,
                        "Wi-Fi on under 'When Wi-Fi is off'")

        # Wi-Fi off, Bluetooth on: the applet's rule, not the kernel's.
        vm.mark("wifi-off")
        tap.ok(set_soft(vm, "phy0", 1) == 0 and set_soft(vm, "phy1", 1) == 0,
               "relayed CHANGEs block phy0 and phy1")
        check_led(tap, vm, "wifi-off", True,
                  "every Wi-Fi radio off, Bluetooth on")

        # Another program flips phy0 faster than the kernel lets an owner
        # change the light (RFKILL_AIRPLANE_MODE_CHANGES_PER_SEC): the
        # applet's CHANGEs past the limit get EBUSY, and it keeps the
        # light and writes the value again once it may.
        # A slow machine flips more slowly: up to 400 flips, until one of
        # the applet's CHANGEs was refused.
        start = len(vm.bridge.writes)

        def refused():
            return [w for w in vm.bridge.writes[start:]
                    if rb.decode_event(w[1])["op"] == rb.OP_INDICATOR_CHANGE
                    and w[2] == errno.EBUSY]
        flips = 0
        while flips < 400 and not (flips and flips % 40 == 0 and refused()):
            set_soft(vm, "phy0", flips % 2)
            flips += 1
        set_soft(vm, "phy0", 1)
        busy = wait(refused)
        tap.ok(bool(busy), f"{flips} flips of phy0: {len(busy or [])} of the "
               "applet's light changes got EBUSY from the kernel",
               f"op-5 writes: {[(rb.decode_event(w[1])['soft'], w[2]) for w in vm.bridge.writes[start:]]}")
        time.sleep(1.5)  # the applet's retry, a second later
        vm.mark("after-flood")
        tap.ok(set_soft(vm, "phy0", 0) == 0, "phy0 on again after the flood")
        check_led(tap, vm, "after-flood", False,
                  "after the flood the applet still drives the light")
        vm.mark("after-flood-off")
        tap.ok(set_soft(vm, "phy0", 1) == 0, "phy0 off again")
        check_led(tap, vm, "after-flood-off", True,
                  "and lights it when every Wi-Fi radio is off again")

        # An administrator takes the light back from the applet: the
        # kernel's rule at once (hci0 is on: dark).  The applet learns it
        # at its next change of the light, shows the kernel's rule in
        # force with the reason, and does not take the light again until
        # the user chooses a rule.
        vm.mark("taken-back")
        r = vm.run_applet(applet_path, "--take-back-light")
        tap.ok(r.returncode == 0, "--take-back-light from the applet",
               f"rc={r.returncode} stdout: {r.stdout} stderr: {r.stderr}")
        check_led(tap, vm, "taken-back", False,
                  "light taken back from the applet: the kernel's rule")
        set_soft(vm, "phy0", 0)   # the applet's rule now says dark: a CHANGE
        light = lambda: item.find("Airplane-mode light")
        checked = lambda: [c.label for c in light().children
                           if c.toggle_type == "radio" and c.checked]
        reason = lambda: [c.label for c in light().children
                          if c.visible and not c.toggle_type and c.label
                          and not c.is_separator]
        tap.ok(bool(wait(lambda: checked() == ["Kernel default"] and
                         any("taken back" in t for t in reason()))),
               "the menu shows the kernel's rule in force and why",
               f"checked {checked()}, reason {reason()}")
        vm.mark("taken-back-stays")
        set_soft(vm, "phy0", 1)
        check_led_stays(tap, vm, "taken-back-stays", False,
                        "taken back: the applet's rule no longer lights it")
        vm.mark("rule-again")
        item.click("When Wi-Fi is off")
        check_led(tap, vm, "rule-again", True,
                  "the user chooses the rule again: the applet lights it")
        tap.ok(bool(wait(lambda: checked() == ["When Wi-Fi is off"]
                         and not reason())),
               "and the menu shows that rule, with no reason",
               f"checked {checked()}, reason {reason()}")

        # Airplane mode from the applet's own menu, and back.
        vm.mark("menu-airplane-on")
        item.click("Airplane mode")
        now = wait_soft(vm, {"phy0": 1, "phy1": 1, "hci0": 1})
        tap.ok(bool(now), "menu 'Airplane mode': every guest radio blocked",
               f"got {soft_states(vm)}")
        tap.ok(bool(wait(lambda: item.find("Airplane mode").checked)),
               "the menu shows airplane mode checked")
        check_led_stays(tap, vm, "menu-airplane-on", True,
                        "airplane mode on under 'When Wi-Fi is off'")
        item.click("Airplane mode")
        want = {"phy0": 1, "phy1": 1, "hci0": 0}
        now = wait_soft(vm, want)
        tap.ok(bool(now), "menu 'Airplane mode' again: hci0 back on, Wi-Fi "
               "stays off as it was before", f"got {soft_states(vm)}")
        tap.ok(bool(wait(lambda: not item.find("Airplane mode").checked)),
               "the menu shows airplane mode unchecked")

        # The airplane key (rfkill-input toggles from the kernel's "all"
        # global state): the first press blocks every radio and the applet
        # shows airplane mode, remembering that Wi-Fi was off before...
        press_airplane_key(vm, "key-on")
        now = wait_soft(vm, {"phy0": 1, "phy1": 1, "hci0": 1})
        tap.ok(bool(now), "airplane key: every guest radio blocked",
               f"got {soft_states(vm)}")
        tap.ok(bool(wait(lambda: item.find("Airplane mode").checked)),
               "airplane key: the menu shows airplane mode checked")
        # ...the second press makes the kernel turn every radio on, and the
        # applet, which remembers, switches Wi-Fi off again (the CLI test
        # shows that without the applet Wi-Fi stays on).
        press_airplane_key(vm, "key-off")
        now = wait_soft(vm, {"phy0": 1, "phy1": 1, "hci0": 0}, timeout=15)
        tap.ok(bool(now), "airplane key again: hci0 back on, the applet "
               "keeps Wi-Fi off as it was before", f"got {soft_states(vm)}")
        tap.ok(bool(wait(lambda: not item.find("Airplane mode").checked)),
               "airplane key again: the menu shows airplane mode unchecked")

        # Every radio on, airplane mode from the menu (the kernel's "all"
        # is blocked with them), then ended by turning the radios on from
        # the menu: the first two become exceptions (airplane mode holds
        # for the others), the last one ends it.  The key's next press must
        # start airplane mode again: the applet cleared "all"
        # (RFKILL_IOCTL_AIRPLANE_MODE_KEY_RESET) without moving a radio;
        # else the press would leave every radio on.
        set_soft(vm, "phy0", 0)
        set_soft(vm, "phy1", 0)
        wait_soft(vm, {"phy0": 0, "phy1": 0, "hci0": 0})
        item.click("Airplane mode")
        wait_soft(vm, {"phy0": 1, "phy1": 1, "hci0": 1})
        wait(lambda: item.find("Airplane mode").checked)
        item.click("Bluetooth (hci0)")
        now = wait_soft(vm, {"phy0": 1, "phy1": 1, "hci0": 0})
        tap.ok(bool(now) and bool(wait(
                   lambda: item.find("Airplane mode").checked and item.find(
                       "Bluetooth (hci0) stays on in airplane mode").checked)),
               "Bluetooth turned on from the menu in airplane mode: an "
               "exception, airplane mode holds, Wi-Fi stays off",
               f"got {soft_states(vm)}")
        item.click("Wi-Fi (phy0)")
        wait_soft(vm, {"phy0": 0, "phy1": 1, "hci0": 0})
        item.click("Wi-Fi (phy1)")
        now = wait_soft(vm, {"phy0": 0, "phy1": 0, "hci0": 0})
        tap.ok(bool(now) and bool(wait(
                   lambda: not item.find("Airplane mode").checked)),
               "the last radio turned on from the menu ends airplane mode",
               f"got {soft_states(vm)}")
        press_airplane_key(vm, "key-after-radio-request")
        now = wait_soft(vm, {"phy0": 1, "phy1": 1, "hci0": 1})
        tap.ok(bool(now), "then the airplane key's first press blocks every "
               "radio (airplane mode again, not every radio left on)",
               f"got {soft_states(vm)}")
        press_airplane_key(vm)
        now = wait_soft(vm, {"phy0": 0, "phy1": 0, "hci0": 0}, timeout=15)
        tap.ok(bool(now), "and the second press brings back what the first "
               "found", f"got {soft_states(vm)}")
        # The exceptions removed from the menu, as a user does; airplane
        # mode is off, so nothing is written.  Wi-Fi off by hand, as the
        # next steps start.  The menu catches up with the key's burst of
        # events a moment after the kernel (once per burst): each item is
        # clicked once the menu shows it.
        for label in ("Bluetooth (hci0) stays on in airplane mode",
                      "Wi-Fi (phy0) stays on in airplane mode"):
            shown = wait(lambda: item.find(label, visible_only=True))
            tap.ok(bool(shown), f"the menu shows '{label}' after the key",
                   f"kernel: {soft_states(vm)}; menu: {item.dump()}")
            if shown:
                item.click(shown)
        tap.ok(bool(wait(lambda: not [e for e in item.layout().children
                                      if e.visible and e.label.endswith(
                                          " in airplane mode")])),
               "the exceptions removed from the menu", item.dump())
        set_soft(vm, "phy0", 1)
        set_soft(vm, "phy1", 1)
        wait_soft(vm, {"phy0": 1, "phy1": 1, "hci0": 0})

        # The rule changes live from GSettings.
        vm.mark("rule-never")
        r = gsettings("set", APP_ID, "led-rule", "never")
        tap.ok(r.returncode == 0, "gsettings: led-rule = never", r.stderr)
        check_led(tap, vm, "rule-never", False, "rule 'Always off'")
        vm.mark("all-blocked-never")
        tap.ok(set_soft(vm, "hci0", 1) == 0, "relayed CHANGE blocks hci0")
        # Every radio off by another program: the applet's model follows.
        tap.ok(bool(wait(lambda: item.find("Airplane mode").checked)),
               "radios blocked from outside: the menu shows airplane mode")
        check_led_stays(tap, vm, "all-blocked-never", False,
                        "every radio off under 'Always off'")

        # Killed: the guest fd closes and the kernel's rule is back at once.
        vm.mark("applet-killed")
        applet.proc.send_signal(signal.SIGKILL)
        applet.proc.wait(10)
        check_led(tap, vm, "applet-killed", True,
                  "applet killed: kernel default (every radio off)")
        err = other.write(ACQUIRE)
        tap.ok(err == 0, "the indicator is free again after the kill",
               f"errno {err}")
        other.close()
    finally:
        applet.stop()
        loop.stop()
        if tap.failed:
            tap.diag("applet output:\n" + applet.output()[-3000:])


def stock_scenario(tap, vm, applet_path, logdir):
    """Debian's own rfkill.ko: the applet asks for the indicator, the
    kernel says EINVAL, the menu says why, and the LED stays the kernel's
    (rfkill-none: lit only when every radio is off)."""
    radios = vm.wait_adds(3)
    if not tap.ok(sorted(radios) == ["hci0", "phy0", "phy1"],
                  "guest has phy0, phy1, hci0", f"got {radios}"):
        return
    r = gsettings("set", APP_ID, "led-rule", "wlan-blocked")
    tap.ok(r.returncode == 0, "gsettings: led-rule = wlan-blocked", r.stderr)

    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    watcher = gt.Watcher(bus)
    os.environ["RFK_APPLET"] = applet_path
    vm.mark("applet-start")
    applet = gt.Applet(vm.device, logdir, name="applet-stock",
                       extra_env={"RFKILL_SYSFS_ROOT": vm.sysfs_root})
    try:
        item = watcher.wait_item(applet.unique_name(bus))
        tap.ok(bool(wait(lambda: item.find("Wi-Fi (phy0)"))),
               "the applet shows the guest's radios")
        asked = wait(lambda: [i for i in vm.bridge.ioctls
                              if i[1] == rb.IOC_AIRPLANE_MODE_EVENTS])
        tap.ok(bool(asked) and asked[0][2] in (errno.ENOTTY, errno.ENOSYS),
               "the applet's op-5 opt-in reached the stock kernel: "
               "ENOTTY (6.8+) or ENOSYS (6.1), and it carries on",
               f"bridge ioctls: {vm.bridge.ioctls}")
        refused = wait(lambda: [w for w in vm.bridge.writes
                                if rb.decode_event(w[1])["op"] ==
                                rb.OP_INDICATOR_ACQUIRE])
        tap.ok(bool(refused) and refused[0][2] == errno.EINVAL,
               "the applet's ACQUIRE reached the stock kernel: EINVAL",
               f"bridge writes: {vm.bridge.writes}")
        reason = wait(lambda: item.find("Not supported by this kernel"))
        # A status line: a sensitive item that does nothing, so that the
        # keyboard and screen readers reach it.
        tap.ok(bool(reason) and reason.enabled,
               "its menu says the LED rule is not supported by this kernel, "
               "in a reachable status line",
               f"menu: {wait(item.dump)}")

        vm.mark("wifi-off")
        tap.ok(set_soft(vm, "phy0", 1) == 0 and set_soft(vm, "phy1", 1) == 0,
               "relayed CHANGEs block phy0 and phy1")
        check_led_stays(tap, vm, "wifi-off", False,
                        "Wi-Fi off, Bluetooth on: the kernel's rule")
        vm.mark("menu-airplane-on")
        item.click("Airplane mode")
        tap.ok(bool(wait_soft(vm, {"phy0": 1, "phy1": 1, "hci0": 1})),
               "menu 'Airplane mode': every guest radio blocked",
               f"got {soft_states(vm)}")
        check_led(tap, vm, "menu-airplane-on", True,
                  "airplane mode on a stock kernel")
        vm.mark("applet-killed")
        applet.proc.send_signal(signal.SIGKILL)
        applet.proc.wait(10)
        check_led_stays(tap, vm, "applet-killed", True,
                        "applet killed: nothing to hand back")
    finally:
        applet.stop()
        loop.stop()
        if tap.failed:
            tap.diag("applet output:\n" + applet.output()[-3000:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--applet", required=True)
    ap.add_argument("--relay", required=True)
    ap.add_argument("--acpi-table", required=True)
    ap.add_argument("--source-dir")
    ap.add_argument("--work-dir")
    ap.add_argument("--stock", action="store_true",
                    help="Debian's own rfkill and asus-wireless")
    ap.add_argument("--version")
    ap.add_argument("--notify-trigger-dir",
                    help="tests/kernel/asus/notify-trigger (the key press)")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    tap = Tap()
    if gt is None:
        tap.ok(False, f"the gui suite's guitest module imports ({GUITEST_ERROR})")
        return tap.done()
    missing = [p for p in [args.applet, args.relay,
                           args.acpi_table] if not os.path.exists(p)]
    if missing:
        tap.ok(False, "every part of the product is built",
               "missing: " + ", ".join(missing))
        return tap.done()
    if not os.environ.get("DISPLAY") or not os.environ.get(
            "DBUS_SESSION_BUS_ADDRESS"):
        tap.ok(False, "runs in a desktop session (tests/gui/run-in-session.py)")
        return tap.done()
    modules = []
    if not args.stock:
        if not (args.source_dir and args.work_dir):
            tap.ok(False, "our modules: --source-dir and --work-dir, or "
                   "--stock")
            return tap.done()
        modules = build_modules(tap, args.kernel, args.source_dir,
                                args.work_dir, args.version)
        if not modules:
            return tap.done()
        if not args.notify_trigger_dir:
            tap.ok(False, "--notify-trigger-dir given (the airplane key)")
            return tap.done()
        trigger = build_notify_trigger(tap, args.kernel,
                                       args.notify_trigger_dir, args.work_dir)
        if not trigger:
            return tap.done()
        modules.append(trigger)
    logdir = os.path.join(os.environ.get("HOME", "/tmp"), "logs")
    os.makedirs(logdir, exist_ok=True)
    # Our modules: the applet also runs in the guest first, on the real
    # /dev/rfkill (about 20 s more under TCG; the relay waits for it).
    direct = not args.stock
    with E2eVm(tap, args.kernel, args.relay, args.acpi_table,
               modules, keep=args.keep, in_session=True,
               host_root=direct, timeout=360 if direct else 240,
               setup=guest_applet_setup(os.path.abspath(args.applet))
               if direct else "") as vm:
        try:
            (stock_scenario if args.stock else scenario)(
                tap, vm, args.applet, logdir)
        except (OSError, rb.RelayError, TimeoutError, KeyError,
                gt.TestFailure) as err:
            tap.ok(False, f"scenario ran to the end ({type(err).__name__}: "
                   f"{err})")
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
