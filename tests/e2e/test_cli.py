#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""e2e: rfkill-applet's CLI on the host against real radios in a VM.

  test_cli.py --kernel KVER --applet build/rfkill-applet \
      --relay build/rfkill-relay \
      --acpi-table build/atk4002.aml \
      --notify-trigger-dir tests/kernel/asus/notify-trigger --work-dir DIR \
      [--source-dir kernel | --module X.ko... | --stock]

With our rfkill-airplane modules (built from --source-dir, or given with
--module) the kernel must show the
"rfkill-airplane-mode" trigger, indicator events and indicator ownership;
with --stock (Debian's own modules) the indicator ops must fail with
EINVAL and the LED follows Debian's "rfkill-none" trigger.  Everything
else is the same user story: list the radios, block one by hand, airplane
mode on (LED lights), unblock a radio (LED goes dark), block it again (LED
lights), airplane mode off (the radio blocked by hand stays blocked), the
laptop's airplane-mode key (the firmware event, through the kernel suite's
test-only acpi-notify-trigger.ko) switching every radio and the LED.
"""

import argparse
import errno
import json
import os
import sys
import time

import rfkill_bridge as rb
from e2e_vm import (E2eVm, Tap, TYPE_WLAN, TYPE_BLUETOOTH,
                    Client, build_modules, build_notify_trigger,
                    check_led, check_led_stays,
                    indicator_events_since, set_soft)

EXPECTED = {"phy0": "wlan", "phy1": "wlan", "hci0": "bluetooth"}


def block_state(value):
    """util-linux style "blocked"/"unblocked" as a boolean."""
    if value not in ("blocked", "unblocked"):
        raise ValueError(f"not a block state: {value!r}")
    return value == "blocked"


def list_json(tap, vm, applet):
    """--list --json as ({device: {type, id, soft, hard}}, airplane-mode),
    or None after a failed check."""
    r = vm.run_applet(applet, "--list", "--json")
    if not tap.ok(r.returncode == 0, "--list --json exits 0",
                  f"rc={r.returncode} stderr: {r.stderr}"):
        return None
    try:
        doc = json.loads(r.stdout)
        devices = {d["device"]: {"type": d["type"], "id": d["id"],
                                 "soft": block_state(d["soft"]),
                                 "hard": block_state(d["hard"])}
                   for d in doc["rfkilldevices"]}
        airplane = doc["airplane-mode"]
    except (ValueError, KeyError, TypeError) as err:
        tap.ok(False, "--list --json has rfkilldevices and airplane-mode",
               f"{type(err).__name__} {err}: {r.stdout}")
        return None
    return devices, airplane


def check_listing(tap, vm, applet, soft, airplane_want, step):
    got = list_json(tap, vm, applet)
    if not got:
        return
    devices, airplane = got
    ids = {n: r["idx"] for n, r in vm.radios().items()}
    want = {n: {"type": t, "id": ids.get(n), "soft": soft[n], "hard": False}
            for n, t in EXPECTED.items()}
    tap.ok(devices == want, f"{step}: --list --json shows phy0, phy1, hci0 "
           "with the guest's soft/hard states",
           f"got {devices}\nwant {want}")
    tap.ok(airplane is airplane_want,
           f"{step}: --list --json airplane is {airplane_want}",
           f"got {airplane!r}")


def airplane(tap, vm, applet, mode):
    r = vm.run_applet(applet, "--airplane", mode)
    tap.ok(r.returncode == 0, f"--airplane {mode} exits 0",
           f"rc={r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}")


def relay_protocol(tap, vm):
    """The relay answers bad requests with an errno instead of dying or
    getting out of step (every later check depends on that)."""
    err, _, _ = vm.relay.request(ord("Z"), 0)
    tap.ok(err == errno.ENOSYS, "relay: unknown request kind gets ENOSYS",
           f"errno {err}")
    err, _, _ = vm.relay.request(rb.WRITE, 9, rb.encode_event(0, 0, 2))
    tap.ok(err == errno.EBADF, "relay: write on a closed channel gets EBADF",
           f"errno {err}")
    for path, want in (("/etc/passwd", errno.EPERM),
                       ("/sys/class/rfkill/../../../etc/passwd", errno.EPERM),
                       ("/sys/class/rfkill/rfkill99/name", errno.ENOENT)):
        try:
            vm.relay.read_file(path)
            got = 0
        except OSError as e:
            got = e.errno
        tap.ok(got == want, f"relay: reading {path} gets "
               f"{errno.errorcode[want]}", f"errno {got}")


# Runs in the guest before the relay, as root: the CLI lists the real
# /dev/rfkill as a user who may only read it (mode 0444, like a user on an
# inactive seat or over SSH whom no ACL grants write access).  The kernel
# console is kept quiet meanwhile so that only these lines are prefixed.
GUEST_RO_PREFIX = "e2e-read-only: "
GUEST_RO_SETUP = """dmesg -n 1
mode=$(stat -c %a /dev/rfkill)
chmod 0444 /dev/rfkill
mkdir -p /etc /tmp/ro
echo 'root:x:0:0:root:/:/bin/sh' >/etc/passwd
echo 'nobody:x:65534:65534:nobody:/tmp/ro:/bin/sh' >>/etc/passwd
echo 'root:x:0:' >/etc/group
echo 'nogroup:x:65534:' >>/etc/group
chown 65534:65534 /tmp/ro
if su -s /bin/sh nobody -c ': 4<>/dev/rfkill' 2>/dev/null; then
  echo 'PREFIX write open allowed'
else
  echo 'PREFIX write open refused'
fi
su -s /bin/sh nobody -c 'cd /tmp/ro && HOME=/tmp/ro XDG_STATE_HOME=/tmp/ro/state \
  XDG_CONFIG_HOME=/tmp/ro/config XDG_CACHE_HOME=/tmp/ro/cache \
  GSETTINGS_BACKEND=memory APPLET --list --json >out 2>err'
echo "PREFIX rc $?"
sed 's/^/PREFIX out /' /tmp/ro/out
sed 's/^/PREFIX err /' /tmp/ro/err
chmod "$mode" /dev/rfkill
dmesg -n 4"""


# Runs in the guest after GUEST_RO_SETUP, as root: the CLI writes to the
# real /dev/rfkill itself, the production path (not the relay's socket).
# phy1 is blocked by hand first; airplane mode on must block every radio,
# and off must bring back exactly what was on.  phy1 is unblocked again
# afterwards, so the relay's scenario starts with every radio on.
GUEST_RW_PREFIX = "e2e-direct: "
GUEST_RW_SETUP = r"""dmesg -n 1
mkdir -p /tmp/rw
states() {
  for d in /sys/class/rfkill/rfkill*; do
    printf '%s=%s ' "$(cat "$d/name")" "$(cat "$d/soft")"
  done
}
soft_by_name() {
  for d in /sys/class/rfkill/rfkill*; do
    [ "$(cat "$d/name")" = "$1" ] && echo "$2" >"$d/soft"
  done
}
direct() {
  (cd /tmp/rw && HOME=/tmp/rw XDG_STATE_HOME=/tmp/rw/state \
    XDG_CONFIG_HOME=/tmp/rw/config XDG_CACHE_HOME=/tmp/rw/cache \
    GSETTINGS_BACKEND=memory APPLET "$@" >/tmp/rw/out 2>/tmp/rw/err)
  echo "PREFIX $* rc $?"
  sed "s/^/PREFIX $* err /" /tmp/rw/err
}
soft_by_name phy1 1
echo "PREFIX before $(states)"
direct --airplane on
echo "PREFIX on $(states)"
direct --airplane off
echo "PREFIX off $(states)"
soft_by_name phy1 0
dmesg -n 4"""


def guest_direct_writes(tap, vm):
    """The CLI's writes on the real character device: in the guest,
    `--airplane on` and `off` open /dev/rfkill for writing, write CHANGE
    events and wait for the kernel to confirm them."""
    lines = vm.console_lines(GUEST_RW_PREFIX)

    def states(step):
        found = [l[len(step) + 1:] for l in lines if l.startswith(step + " ")
                 and "rc " not in l and " err " not in l]
        return dict(kv.split("=", 1) for kv in (found[0].split() if found else [])
                    if "=" in kv)

    want_before = {"phy0": "0", "phy1": "1", "hci0": "0"}
    tap.ok(states("before") == want_before,
           "guest: phy1 blocked by hand before the CLI runs", f"console: {lines}")
    for step, want in (("on", {"phy0": "1", "phy1": "1", "hci0": "1"}),
                       ("off", want_before)):
        rc = [l for l in lines if l.startswith(f"--airplane {step} rc ")]
        err = [l for l in lines if l.startswith(f"--airplane {step} err ")]
        tap.ok(rc == [f"--airplane {step} rc 0"],
               f"guest: --airplane {step} on the real /dev/rfkill exits 0",
               f"{rc} {err}")
        tap.ok(states(step) == want,
               f"guest: after --airplane {step} the kernel has {want}",
               f"got {states(step)}; console: {lines}")


def guest_read_only_list(tap, vm):
    """The character-device path on the real kernel: the CLI in the guest
    opened /dev/rfkill with read access only, asked for extended events
    (RFKILL_IOCTL_MAX_SIZE) and read the ADD of every radio."""
    lines = vm.console_lines(GUEST_RO_PREFIX)
    tap.ok("write open refused" in lines,
           "guest: the unprivileged user cannot open /dev/rfkill for "
           "writing (mode 0444)", f"console: {lines}")
    rc = [l[3:] for l in lines if l.startswith("rc ")]
    out = "\n".join(l[4:] for l in lines if l.startswith("out "))
    err = "\n".join(l[4:] for l in lines if l.startswith("err "))
    tap.ok(rc == ["0"], "guest: --list --json on a read-only /dev/rfkill "
           "exits 0", f"rc {rc}\nstderr: {err}\nstdout: {out}")
    try:
        doc = json.loads(out)
        got = {d["device"]: (d["type"], d["soft"], d["hard"])
               for d in doc["rfkilldevices"]}
        airplane_mode = doc["airplane-mode"]
    except (ValueError, KeyError, TypeError) as e:
        got, airplane_mode = f"{type(e).__name__} {e}: {out!r}", None
    want = {n: (t, "unblocked", "unblocked") for n, t in EXPECTED.items()}
    tap.ok(got == want and airplane_mode is False,
           "guest: --list --json read from the real /dev/rfkill shows phy0, "
           "phy1, hci0 unblocked and airplane mode off",
           f"got {got}, airplane {airplane_mode!r}\nwant {want}")


def scenario(tap, vm, applet, stock):
    guest_read_only_list(tap, vm)
    guest_direct_writes(tap, vm)
    relay_protocol(tap, vm)
    radios = vm.wait_adds(len(EXPECTED))
    adds = {e["idx"]: e for e in vm.monitor_adds()}
    tap.ok(sorted(radios) == sorted(EXPECTED) and
           all(r["soft"] == 0 and r["hard"] == 0 for r in radios.values()),
           "guest has phy0, phy1, hci0, all unblocked", f"got {radios}")
    if sorted(radios) != sorted(EXPECTED):
        return
    types = {n: adds[r["idx"]]["type"] for n, r in radios.items()}
    tap.ok(types == {"phy0": TYPE_WLAN, "phy1": TYPE_WLAN,
                     "hci0": TYPE_BLUETOOTH},
           "relayed ADD events carry the radio types", f"got {types}")
    sizes = {e["size"] for e in adds.values()}
    tap.ok(sizes == {9}, "relayed events are extended (9 bytes)",
           f"sizes {sizes}")

    led = "asus-wireless::airplane"  # the in-tree name, with ours too
    trigger = "rfkill-none" if stock else "rfkill-airplane-mode"
    try:
        triggers = vm.relay.read_file(f"/sys/class/leds/{led}/trigger")
        current = [t[1:-1] for t in triggers.split() if t.startswith("[")]
        brightness = int(vm.relay.read_file(f"/sys/class/leds/{led}/brightness"))
    except OSError as err:
        current, brightness = [str(err)], None
    tap.ok(current == [trigger], f"{led} follows trigger {trigger}",
           f"current trigger: {current}")
    tap.ok(brightness == 0, "the LED starts dark", f"brightness {brightness}")

    check_listing(tap, vm, applet,
                  {"phy0": False, "phy1": False, "hci0": False}, False,
                  "start")
    r = vm.run_applet(applet, "--list")
    tap.ok(r.returncode == 0 and all(n in r.stdout for n in EXPECTED),
           "--list prints a table with phy0, phy1, hci0",
           f"rc={r.returncode}\n{r.stdout}{r.stderr}")

    # A radio the user switched off before airplane mode...
    vm.mark("block-phy1")
    tap.ok(set_soft(vm, "phy1", 1) == 0, "relayed CHANGE blocks phy1")
    now = vm.wait_radios({"phy1": 1})
    tap.ok(now["phy1"]["soft"] == 1, "guest sysfs: phy1 soft-blocked")
    check_led_stays(tap, vm, "block-phy1", False, "one radio of three blocked")

    # ...airplane mode on...
    start = len(vm.monitor.events)
    vm.mark("airplane-on")
    airplane(tap, vm, applet, "on")
    now = vm.wait_radios({"phy0": 1, "phy1": 1, "hci0": 1})
    tap.ok(all(r["soft"] == 1 for r in now.values()),
           "guest sysfs: phy0, phy1, hci0 soft-blocked", f"got {now}")
    changed = {rb.decode_event(e)["idx"] for e in vm.monitor.events[start:]
               if rb.decode_event(e)["op"] == rb.OP_CHANGE
               and rb.decode_event(e)["soft"] == 1}
    tap.ok({now["phy0"]["idx"], now["hci0"]["idx"]} <= changed,
           "relay saw CHANGE events blocking phy0 and hci0",
           f"blocked idx seen: {changed}")
    check_led(tap, vm, "airplane-on", True, "airplane mode on")
    if not stock:
        time.sleep(0.2)
        ind = indicator_events_since(vm, start)
        tap.ok(ind[-1:] == [1], "kernel announced indicator on (op 5 event)",
               f"indicator events: {ind}")
    check_listing(tap, vm, applet,
                  {"phy0": True, "phy1": True, "hci0": True}, True,
                  "airplane on")

    # ...one radio back on by hand: not every radio blocked any more...
    start = len(vm.monitor.events)
    vm.mark("unblock-hci0")
    tap.ok(set_soft(vm, "hci0", 0) == 0, "relayed CHANGE unblocks hci0")
    check_led(tap, vm, "unblock-hci0", False, "hci0 unblocked")
    if not stock:
        time.sleep(0.2)
        ind = indicator_events_since(vm, start)
        tap.ok(ind[-1:] == [0], "kernel announced indicator off",
               f"indicator events: {ind}")

    # ...and off again: every radio blocked lights it once more.
    vm.mark("reblock-hci0")
    tap.ok(set_soft(vm, "hci0", 1) == 0, "relayed CHANGE blocks hci0 again")
    check_led(tap, vm, "reblock-hci0", True, "every radio blocked again")

    # Airplane mode off restores what the radios were before.
    vm.mark("airplane-off")
    airplane(tap, vm, applet, "off")
    now = vm.wait_radios({"phy0": 0, "phy1": 1, "hci0": 0})
    tap.ok({n: r["soft"] for n, r in now.items()} ==
           {"phy0": 0, "phy1": 1, "hci0": 0},
           "guest sysfs: phy0 and hci0 unblocked, phy1 stays blocked",
           f"got {now}")
    check_led(tap, vm, "airplane-off", False, "airplane mode off")
    check_listing(tap, vm, applet,
                  {"phy0": False, "phy1": True, "hci0": False}, False,
                  "airplane off")

    # Toggle twice: on, then back to the same per-radio states.
    vm.mark("toggle-on")
    airplane(tap, vm, applet, "toggle")
    now = vm.wait_radios({"phy0": 1, "phy1": 1, "hci0": 1})
    tap.ok(all(r["soft"] == 1 for r in now.values()),
           "toggle: every radio blocked", f"got {now}")
    check_led(tap, vm, "toggle-on", True, "toggle on")
    vm.mark("toggle-off")
    airplane(tap, vm, applet, "toggle")
    now = vm.wait_radios({"phy0": 0, "phy1": 1, "hci0": 0})
    tap.ok({n: r["soft"] for n, r in now.items()} ==
           {"phy0": 0, "phy1": 1, "hci0": 0},
           "toggle: restored, phy1 still blocked", f"got {now}")
    check_led(tap, vm, "toggle-off", False, "toggle off")

    airplane_global_state(tap, vm, applet)
    airplane_key(tap, vm, applet)
    indicator_ops(tap, vm, applet, stock)
    relay_load(tap, vm)


def relay_load(tap, vm, count=200):
    """Many writes in a row: none lost, none reordered, every one answered
    (the applet relies on this when a new request supersedes another)."""
    idx = vm.radios()["phy0"]["idx"]
    client = Client(vm.device)
    t0 = time.monotonic()
    errs = [client.write(rb.encode_event(idx, 0, rb.OP_CHANGE, (i + 1) % 2))
            for i in range(count)]
    elapsed = time.monotonic() - t0
    tap.ok(errs == [0] * count, f"{count} CHANGE writes through the bridge "
           f"all answered 0 ({elapsed * 1000 / count:.1f} ms each)",
           f"errnos: {sorted(set(errs))}")

    def phy0_changes():
        return [e["soft"] for e in map(rb.decode_event, client.events)
                if e["op"] == rb.OP_CHANGE and e["idx"] == idx]

    deadline = time.monotonic() + 10
    while len(phy0_changes()) < count and time.monotonic() < deadline:
        try:
            client.sock.settimeout(max(0.1, deadline - time.monotonic()))
            client.events.append(client.sock.recv(256))
        except OSError:
            break
    got = phy0_changes()
    want = [(i + 1) % 2 for i in range(count)]
    tap.ok(got == want, f"the client saw all {count} CHANGE events, in order",
           f"{len(got)} events; first difference at "
           f"{next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), len(got))}")
    client.close()
    now = vm.radios()
    tap.ok(now["phy0"]["soft"] == 0, "guest sysfs: phy0 ends unblocked",
           f"got {now}")


NOTIFY = "/sys/module/acpi_notify_trigger/parameters/notify"


def press_key(vm, mark):
    """The laptop's airplane-mode key: the firmware notifies ASHS with
    0x88, asus-wireless sends KEY_RFKILL and the kernel's rfkill-input
    toggles every radio from the global state of "all"."""
    time.sleep(0.3)  # rfkill-input spaces its operations 200 ms apart
    vm.mark(mark)
    vm.relay.write_file(NOTIFY, "0x88")


def soft_states(radios):
    return {n: r["soft"] for n, r in radios.items() if n in EXPECTED}


def plugged_radio_blocked(tap, vm, what):
    """A Bluetooth controller plugged in now (a new hciN) comes up
    blocked: the kernel starts a new radio in its type's global state,
    and no program of ours runs to block it."""
    before = set(vm.radios())
    vm.relay.plug_bluetooth(True)
    deadline = time.monotonic() + 10
    new = {}
    while not new and time.monotonic() < deadline:
        time.sleep(0.1)
        new = {n: r for n, r in vm.radios().items() if n not in before}
    tap.ok(len(new) == 1 and all(r["type"] == "bluetooth" and r["soft"] == 1
                                 for r in new.values()),
           f"{what}: a Bluetooth radio plugged in comes up soft-blocked",
           f"new radios: {new}")
    vm.relay.plug_bluetooth(False)
    deadline = time.monotonic() + 10
    while set(vm.radios()) - before and time.monotonic() < deadline:
        time.sleep(0.1)
    tap.ok(not set(vm.radios()) - before,
           f"{what}: the plugged radio is gone again", f"{vm.radios()}")


def airplane_global_state(tap, vm, applet):
    """Airplane mode set by the CLI lives in the kernel's global state,
    so it holds with no program of ours running.  Starts with phy1
    blocked by hand, phy0 and hci0 on."""
    airplane(tap, vm, applet, "on")
    now = vm.wait_radios({"phy0": 1, "phy1": 1, "hci0": 1})
    tap.ok(all(r["soft"] == 1 for r in now.values()),
           "--airplane on (phy1 off before): every radio blocked",
           f"got {now}")
    plugged_radio_blocked(tap, vm, "airplane mode from the CLI")

    # phy1 was off before, so the CLI set the per-type global states but
    # not the one of "all" (resetting that on the way out would flash
    # phy1 on).  The key toggles from "all": its first press blocks what
    # is blocked already...
    press_key(vm, "key-in-airplane-1")
    time.sleep(1)
    now = vm.radios()
    tap.ok(soft_states(now) == {"phy0": 1, "phy1": 1, "hci0": 1},
           "airplane key in our airplane mode (a radio was off before): "
           "the first press keeps every radio blocked", f"got {now}")
    # ...and the second one unblocks every radio.  Only our programs
    # remember that phy1 was off before: with none running (the CLI has
    # exited), the kernel turns phy1 on too.  test_applet.py checks that
    # the applet switches it off again.
    press_key(vm, "key-in-airplane-2")
    now = vm.wait_radios({"phy0": 0, "phy1": 0, "hci0": 0})
    tap.ok(soft_states(now) == {"phy0": 0, "phy1": 0, "hci0": 0},
           "airplane key again: rfkill-input unblocks every radio (no "
           "program of ours runs to keep phy1 off)", f"got {now}")
    check_listing(tap, vm, applet,
                  {"phy0": False, "phy1": False, "hci0": False}, False,
                  "airplane mode ended by the key")

    # Every radio on before: the CLI blocks them all through the global
    # state of "all", so the key's first press ends airplane mode.
    airplane(tap, vm, applet, "on")
    now = vm.wait_radios({"phy0": 1, "phy1": 1, "hci0": 1})
    tap.ok(all(r["soft"] == 1 for r in now.values()),
           "--airplane on (every radio on before): every radio blocked",
           f"got {now}")
    plugged_radio_blocked(tap, vm, "airplane mode through \"all\"")
    press_key(vm, "key-leaves")
    now = vm.wait_radios({"phy0": 0, "phy1": 0, "hci0": 0})
    tap.ok(soft_states(now) == {"phy0": 0, "phy1": 0, "hci0": 0},
           "airplane key in our airplane mode (every radio on before): "
           "the first press unblocks every radio", f"got {now}")
    check_led(tap, vm, "key-leaves", False, "the key ended airplane mode")
    check_listing(tap, vm, applet,
                  {"phy0": False, "phy1": False, "hci0": False}, False,
                  "after the key ended airplane mode")


def airplane_key(tap, vm, applet):
    """From airplane mode off, the first press enters it (the kernel
    blocks every radio and sets every global state, so a radio plugged in
    then is blocked too) and the second leaves it.  Without the applet the
    kernel alone turns every radio on again: a radio blocked by hand
    before the first press (phy1 here) comes back on; the applet's test
    checks that it stays off when the applet runs."""
    tap.ok(set_soft(vm, "phy1", 1) == 0, "relayed CHANGE blocks phy1 "
           "before the key")
    vm.wait_radios({"phy1": 1})
    press_key(vm, "key-on")
    now = vm.wait_radios({"phy0": 1, "phy1": 1, "hci0": 1})
    tap.ok(all(r["soft"] == 1 for r in now.values()),
           "airplane key: rfkill-input blocks every radio", f"got {now}")
    check_led(tap, vm, "key-on", True, "airplane key pressed")
    check_listing(tap, vm, applet,
                  {"phy0": True, "phy1": True, "hci0": True}, True,
                  "after the key")
    plugged_radio_blocked(tap, vm, "airplane mode from the key")
    press_key(vm, "key-off")
    now = vm.wait_radios({"phy0": 0, "phy1": 0, "hci0": 0})
    tap.ok(soft_states(now) == {"phy0": 0, "phy1": 0, "hci0": 0},
           "airplane key again: rfkill-input unblocks every radio, phy1 "
           "too (no program of ours runs)", f"got {now}")
    check_led(tap, vm, "key-off", False, "airplane key pressed again")
    check_listing(tap, vm, applet,
                  {"phy0": False, "phy1": False, "hci0": False}, False,
                  "after the second key press")


def indicator_ops(tap, vm, applet, stock):
    """Two programs on the bridge: errnos as local /dev/rfkill writers
    would see them, and the LED under an indicator owner."""
    a, b = Client(vm.device), Client(vm.device)
    acquire = rb.encode_event(0, 0, rb.OP_INDICATOR_ACQUIRE)

    def change(on):
        return rb.encode_event(0, 0, rb.OP_INDICATOR_CHANGE, on)

    bad_op = rb.encode_event(0, 0, 9)
    err = a.write(bad_op)
    tap.ok(err == errno.EINVAL, "unknown op through the bridge: EINVAL",
           f"errno {err}")
    if stock:
        err = a.write(acquire)
        tap.ok(err == errno.EINVAL, "stock kernel: ACQUIRE gives EINVAL",
               f"errno {err}")
        err = a.write(change(1))
        tap.ok(err == errno.EINVAL, "stock kernel: indicator CHANGE gives "
               "EINVAL", f"errno {err}")
        r = vm.run_applet(applet, "--take-back-light")
        tap.ok(r.returncode == 1 and "cannot hand the airplane-mode light"
               in r.stderr, "stock kernel: --take-back-light says the kernel "
               "has no light to take", f"rc={r.returncode} stderr: {r.stderr}")
    else:
        err = a.write(acquire)
        tap.ok(err == 0, "first program acquires the indicator", f"errno {err}")
        err = b.write(acquire)
        tap.ok(err == errno.EACCES, "second program's ACQUIRE: EACCES",
               f"errno {err}")
        err = b.write(change(1))
        tap.ok(err == errno.EACCES, "non-owner's CHANGE: EACCES",
               f"errno {err}")
        vm.mark("owner-on")
        err = a.write(change(1))
        tap.ok(err == 0, "owner's CHANGE accepted", f"errno {err}")
        check_led(tap, vm, "owner-on", True,
                  "owner sets the indicator with radios on")
        # An administrator takes it back (the relay is root in the guest,
        # so it has CAP_NET_ADMIN): the kernel's rule at once, and the
        # former owner may not ACQUIRE again on that fd.
        vm.mark("taken-back")
        r = vm.run_applet(applet, "--take-back-light")
        tap.ok(r.returncode == 0 and "Took the airplane-mode light back"
               in r.stdout, "--take-back-light takes the light from its owner",
               f"rc={r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}")
        check_led(tap, vm, "taken-back", False,
                  "light taken back: kernel default rule (radios on)")
        err = a.write(change(1))
        tap.ok(err == errno.EACCES, "the former owner's CHANGE: EACCES",
               f"errno {err}")
        err = a.write(acquire)
        tap.ok(err == errno.EPERM, "the former owner's ACQUIRE on that fd: "
               "EPERM", f"errno {err}")
        r = vm.run_applet(applet, "--take-back-light")
        tap.ok(r.returncode == 1 and "No program holds" in r.stderr,
               "--take-back-light with nobody holding the light fails, "
               "saying so", f"rc={r.returncode} stderr: {r.stderr}")
        a.close()
        a = Client(vm.device)
        err = a.write(acquire)
        tap.ok(err == 0, "a new open of the former owner may ACQUIRE",
               f"errno {err}")
        vm.mark("owner-relights")
        err = a.write(change(1))
        tap.ok(err == 0, "and light it", f"errno {err}")
        # The LED write of that CHANGE reaches the debugcon a little
        # later: wait for it, or it would land after the next mark.
        check_led(tap, vm, "owner-relights", True,
                  "the new owner's CHANGE: the LED lights on the debugcon")
        vm.mark("owner-closes")
        a.close()
        check_led(tap, vm, "owner-closes", False,
                  "owner closed: kernel default rule (radios on)")
        # b never asked for op-5 events (its ACQUIRE was refused): like
        # gsd-rfkill, it must see only the in-tree module's ops
        b.drain()
        ops = [rb.decode_event(e)["op"] for e in b.events]
        tap.ok(ops and max(ops) <= rb.OP_CHANGE_ALL,
               "a program that never asked got no op-4/op-5 event while "
               "the owner lit and released the indicator", f"ops: {ops}")
        err = b.write(acquire)
        tap.ok(err == 0, "after the owner left, ACQUIRE succeeds",
               f"errno {err}")
    a.close()
    b.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--applet", required=True)
    ap.add_argument("--relay", required=True)
    ap.add_argument("--acpi-table", required=True)
    ap.add_argument("--source-dir", help="kernel/: build our modules")
    ap.add_argument("--work-dir", help="where to build them")
    ap.add_argument("--version", help="RFKILL_AIRPLANE_VERSION")
    ap.add_argument("--module", action="append", default=[],
                    help="an already built module instead of --source-dir")
    ap.add_argument("--stock", action="store_true",
                    help="Debian's own rfkill and asus-wireless")
    ap.add_argument("--notify-trigger-dir", required=True,
                    help="tests/kernel/asus/notify-trigger (the key press)")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    tap = Tap()
    missing = [p for p in [args.applet, args.relay,
                           args.acpi_table, *args.module]
               if not os.path.exists(p)]
    if missing:
        tap.ok(False, "every part of the product is built",
               "missing: " + ", ".join(missing))
        return tap.done()
    if not args.work_dir:
        tap.ok(False, "--work-dir given")
        return tap.done()
    modules = list(args.module)
    if not args.stock and not modules:
        if not args.source_dir:
            tap.ok(False, "our modules: --source-dir, --module or --stock")
            return tap.done()
        modules = build_modules(tap, args.kernel, args.source_dir,
                                args.work_dir, args.version)
        if not modules:
            return tap.done()
    trigger = build_notify_trigger(tap, args.kernel, args.notify_trigger_dir,
                                   args.work_dir)
    if not trigger:
        return tap.done()
    modules.append(trigger)
    applet = os.path.abspath(args.applet)
    setup = "\n".join(
        block.replace("PREFIX ", prefix).replace("APPLET", E2eVm.guest_binary(applet))
        for block, prefix in ((GUEST_RO_SETUP, GUEST_RO_PREFIX),
                              (GUEST_RW_SETUP, GUEST_RW_PREFIX)))
    with E2eVm(tap, args.kernel, args.relay, args.acpi_table,
               modules, keep=args.keep, host_binaries=[applet],
               setup=setup) as vm:
        try:
            scenario(tap, vm, args.applet, args.stock)
        except (OSError, rb.RelayError, TimeoutError, KeyError) as err:
            tap.ok(False, f"scenario ran to the end ({type(err).__name__}: "
                   f"{err})")
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
