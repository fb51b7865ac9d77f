# SPDX-License-Identifier: GPL-2.0-or-later
"""A running test VM for the e2e suite: radios, LED and a relay to its
/dev/rfkill, plus the checks the scenarios share (TAP and the module
build come from the shared VM harness, tests/vm).

The VM is booted by the harness's runner (vm.vmrun),
which is called, not copied: this module only adds the qemu arguments for
the relay's virtio-serial port, runs rfkill-relay as the long-lived guest
program and keeps vmrun's own checks (modules loaded, guest exit status,
clean dmesg) as part of the scenario's TAP output.

The guest has mac80211_hwsim (radios=2: phy0, phy1), hci_vhci (hci0, kept
open by the init shell), an ATK4002 device from an SSDT whose HSWC writes
the LED to the debugcon port 0x440, and asus-wireless driving that LED.
"""

import errno
import os
import re
import shlex
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import rfkill_bridge as rb
from vm.testlib import VMRUN, Tap, kbuild  # noqa: F401 (Tap: for the scenarios)

# How the SSDT's HSWC reports the LED on port 0x440: the kernel suite's
# ATK4002 fixture (tests/kernel/asus/fixtures) logs '1' on, '0' off.
# Markers are "[[name]]" and are matched first, so digits inside them are
# never taken for LED writes.
LED_ON = ord("1")

# In-tree modules the scenarios need, in load order (vmrun adds their deps).
RADIO_MODULES = ["mac80211_hwsim radios=2", "hci_vhci"]
# virtio-serial for the relay; built in on 6.12, modules on 6.1.
VIRTIO_MODULES = ["virtio_pci", "virtio_console"]

TYPE_WLAN, TYPE_BLUETOOTH = 1, 2

# The host's root, read-only, at /host in the guest (9p over virtio), for
# E2eVm(host_root=True): a chroot there runs the host's own programs
# (python3, Xvfb, dbus-daemon, the applet from the build tree) without
# copying them and their data into the initramfs.
HOST_ROOT_MODULES = ["9pnet_virtio", "9p"]
HOST_ROOT_TAG = "hostroot"
HOST_ROOT = "/host"
# cache=loose: the guest keeps what it read (the tree does not change
# while a test runs), and a large msize; both for speed under TCG.
HOST_ROOT_OPTIONS = "trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose"
# multidevs=remap: the host's mount points (/proc, /sys, /dev, …) would
# otherwise reach the guest with the same inode number, and a mount onto
# one of them lands on another.
HOST_ROOT_QEMU = ["-virtfs", f"local,path=/,mount_tag={HOST_ROOT_TAG},"
                  "security_model=none,readonly=on,multidevs=remap"]


def host_root_setup(keep=()):
    """Guest shell commands that mount the host's root at /host.  The
    guest's /dev, /proc and /sys replace the host's there, and /tmp and
    /run are fresh tmpfs, so nothing of the host's running system (its
    buses, its X sockets) shows through; the paths in keep that lie
    under /tmp or /run (a build tree there) are bound back from the
    host.  Prints "host-root: failed" if the mount fails."""
    back = "".join(f"\n  mkdir -p {HOST_ROOT}{q} && "
                   f"mount --bind /hostroot{q} {HOST_ROOT}{q}"
                   for q in sorted({shlex.quote(p) for p in keep
                                    if p.startswith(("/tmp/", "/run/"))}))
    return f"""mkdir -p /hostroot {HOST_ROOT}
if mount -t 9p -o {HOST_ROOT_OPTIONS} {HOST_ROOT_TAG} /hostroot &&
    mount --bind /hostroot {HOST_ROOT}; then
  mount -t tmpfs -o mode=1777 tmpfs {HOST_ROOT}/tmp
  mount -t tmpfs -o mode=0755 tmpfs {HOST_ROOT}/run
  for d in dev proc sys; do mount --bind /$d {HOST_ROOT}/$d; done{back}
else
  echo 'host-root: failed'
fi"""


def kbuild_checked(tap, kver, source_dir, work_dir, name, kos, what, extra=()):
    """Builds the Kbuild tree source_dir for kver in a copy under
    work_dir/name, as the kernel suite does (testlib.kbuild; tests of one
    kernel share work_dir and its build); returns the paths of kos
    (relative to the tree) or None after a failed check."""
    b = kbuild(kver, source_dir, work_dir, name, kos, extra)
    if not tap.ok(b.ok, f"{what} build for {kver}",
                  f"{' '.join(b.cmd)}: rc={b.returncode}, missing {b.missing}\n"
                  + b.tail(30)):
        return None
    return b.kos


def build_modules(tap, kver, source_dir, work_dir, version=None):
    """Our rfkill.ko and asus-wireless.ko from kernel/."""
    return kbuild_checked(tap, kver, source_dir, work_dir, "src",
                          ["rfkill/rfkill.ko", "asus-wireless/asus-wireless.ko"],
                          "our rfkill.ko and asus-wireless.ko",
                          [f"RFKILL_AIRPLANE_VERSION={version}"] if version else [])


def build_notify_trigger(tap, kver, source_dir, work_dir):
    """The kernel suite's test-only acpi-notify-trigger.ko, which lets the
    guest raise the firmware's airplane-mode key event."""
    kos = kbuild_checked(tap, kver, source_dir, work_dir, "notify-trigger",
                         ["acpi-notify-trigger.ko"], "acpi-notify-trigger.ko")
    return kos[0] if kos else None


def builtin_modules(kver):
    try:
        with open(f"/lib/modules/{kver}/modules.builtin") as f:
            return {os.path.basename(l.strip()).split(".ko")[0].replace("-", "_")
                    for l in f}
    except OSError:
        return set()


def led_log_entries(data):
    """Markers and LED writes from the debugcon log, in order:
    ("mark", name) and ("led", True/False)."""
    out = []
    for m in re.finditer(rb"\[\[([^\]\n]*)\]\]|([01])", data):
        if m.group(1) is not None:
            out.append(("mark", m.group(1).decode()))
        else:
            out.append(("led", m.group(2)[0] == LED_ON))
    return out


class E2eVm:
    """Context manager: boots the VM, connects relay and bridge."""

    def __init__(self, tap, kernel, relay_bin, acpi_table,
                 modules=(), timeout=240, keep=False, in_session=False,
                 host_binaries=(), setup="", host_root=False):
        self.tap = tap
        self.kernel = kernel
        self.relay_bin = relay_bin
        self.acpi_table = acpi_table
        self.modules = list(modules)
        self.timeout = timeout
        self.keep = keep
        self.in_session = in_session
        # Host programs copied into the guest with their libraries, as
        # /guest/bin/NAME (/tmp is a fresh tmpfs in the guest, so a build
        # dir under /tmp would hide them at their host path), and shell
        # commands run there before the relay starts (their output goes
        # to the console log: console_lines()).
        self.host_binaries = list(host_binaries)
        self.setup = setup
        # The host's root over 9p (host_root_setup() mounts it).
        self.host_root = host_root
        self.tmp = tempfile.mkdtemp(prefix=f"e2e-{kernel}-")
        self.qemu_socket = os.path.join(self.tmp, "relay.sock")
        self.device = os.path.join(self.tmp, "rfkill.sock")
        self.sysfs_root = os.path.join(self.tmp, "sysfs")
        self.led_log = os.path.join(self.tmp, "led.log")
        self.console_log = os.path.join(self.tmp, "console.log")
        self.proc = None
        self.relay = None
        self.bridge = None
        self.monitor = None
        self.vm_tap = []
        self._out = []

    # -- lifecycle --------------------------------------------------------
    def __enter__(self):
        builtin = builtin_modules(self.kernel)
        cmd = VMRUN + ["--kernel", self.kernel,
               "--guest-program", self.relay_bin,
               "--guest-args", "--mark-port 0x440",
               # hci_vhci only creates hci0 while /dev/vhci stays open; the
               # init shell keeps fd 3 for the whole run.
               "--setup", "exec 3<>/dev/vhci && printf '\\377\\000' >&3"
               + ("\n" + self.setup if self.setup else ""),
               "--acpitable", self.acpi_table,
               "--debugcon", self.led_log,
               "--console-log", self.console_log,
               "--timeout", str(self.timeout),
               # the relay talks to this boot; a second one would lose it
               "--one-boot",
               "--qemu-arg=-device", "--qemu-arg=virtio-serial",
               "--qemu-arg=-chardev",
               f"--qemu-arg=socket,id=relay,path={self.qemu_socket},"
               "server=on,wait=off",
               "--qemu-arg=-device",
               f"--qemu-arg=virtserialport,chardev=relay,name={rb.RELAY_PORT}"]
        for b in self.host_binaries:
            cmd += ["--host-binary", b,
                    "--file", f"{b}:{self.guest_binary(b)}"]
        for m in VIRTIO_MODULES + (HOST_ROOT_MODULES if self.host_root
                                   else []):
            if m not in builtin:
                cmd += ["--in-tree-module", m]
        if self.host_root:
            cmd += [f"--qemu-arg={a}" for a in HOST_ROOT_QEMU]
        for m in self.modules:
            cmd += ["--module", m]
        for m in RADIO_MODULES:
            cmd += ["--in-tree-module", m]
        if not any(os.path.basename(m).startswith("asus") for m in self.modules):
            cmd += ["--in-tree-module", "asus_wireless"]
        self.tap.diag("vm: " + " ".join(cmd))
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._pump, daemon=True).start()
        try:
            self.relay = rb.Relay(self.qemu_socket, timeout=self.timeout / 2,
                                  abort=lambda: self.proc.poll() is not None)
        except rb.RelayError as err:
            self._finish(quit_guest=False)
            self.tap.ok(False, f"guest relay answers ({err})")
            self._report_vm()
            self.tap.bail("no relay to the guest")
        self.tap.ok(True, f"guest relay answers after "
                    f"{time.monotonic() - self.started:.1f} s "
                    f"(event size {self.relay.max_event_size})")
        self.bridge = rb.Bridge(self.relay, self.device, self.sysfs_root,
                                log=self.tap.diag)
        self.monitor = self.relay.open_channel()
        # it checks op-5 events, which only come to an fd that asks (a
        # stock kernel answers ENOTTY/ENOSYS and sends none anyway)
        self.monitor.ioctl(rb.IOC_AIRPLANE_MODE_EVENTS)
        return self

    def __exit__(self, *exc):
        self._finish(quit_guest=True)
        self._report_vm()
        if self.keep or self.tap.failed:
            self.tap.diag(f"kept {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return False

    def _pump(self):
        for line in self.proc.stdout:
            self._out.append(line.rstrip("\n"))

    def _finish(self, quit_guest):
        if quit_guest and self.relay and not self.relay.closed.is_set():
            try:
                if self.bridge:
                    self.bridge.close()
                self.relay.quit()
            except (rb.RelayError, TimeoutError, OSError) as err:
                self.tap.diag(f"relay quit: {err}")
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.relay:
            self.relay.close()
        time.sleep(0.1)

    def _report_vm(self):
        """vmrun's own checks become ours, prefixed "vm:"."""
        for line in self._out:
            m = re.match(r"^(not ok|ok) \d+ - (.*)$", line)
            if m:
                self.tap.ok(m.group(1) == "ok", "vm: " + m.group(2))
            elif line.startswith("#") and (self.tap.failed or
                                           "boot" in line):
                self.tap.diag("vm" + line[1:])
        self.tap.ok(self.proc.returncode == 0,
                    f"vm: vmrun exited {self.proc.returncode}")

    @staticmethod
    def guest_binary(host_path):
        """Where a host_binaries program is in the guest."""
        return "/guest/bin/" + os.path.basename(host_path)

    def console_lines(self, prefix):
        """Lines of the guest console that start with prefix (the prefix
        removed), e.g. the output of the setup commands."""
        try:
            with open(self.console_log, "rb") as f:
                data = f.read().decode(errors="replace")
        except OSError:
            return []
        return [l.rstrip("\r")[len(prefix):] for l in data.split("\n")
                if l.startswith(prefix)]

    # -- guest state ------------------------------------------------------
    def radios(self):
        """{name: {"idx", "type", "soft", "hard"}} from guest sysfs."""
        out = {}
        for ev in self.monitor_adds():
            base = f"/sys/class/rfkill/rfkill{ev['idx']}"
            try:
                name = self.relay.read_file(base + "/name").strip()
                out[name] = {
                    "idx": ev["idx"],
                    "type": self.relay.read_file(base + "/type").strip(),
                    "soft": int(self.relay.read_file(base + "/soft")),
                    "hard": int(self.relay.read_file(base + "/hard")),
                }
            except OSError:
                continue    # removed meanwhile
        return out

    def monitor_adds(self):
        adds = {}
        for data in list(self.monitor.events):
            ev = rb.decode_event(data)
            if ev["op"] == rb.OP_ADD:
                adds[ev["idx"]] = ev
            elif ev["op"] == rb.OP_DEL:
                adds.pop(ev["idx"], None)
        return list(adds.values())

    def wait_adds(self, count, timeout=10.0):
        """Waits for the ADD events of `count` radios on the monitor (the
        kernel queues one per radio on open); returns the radios."""
        deadline = time.monotonic() + timeout
        while len(self.monitor_adds()) < count and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        return self.radios()

    def wait_radios(self, want, timeout=10.0):
        """Polls guest sysfs until {name: soft} matches; returns the last
        reading."""
        deadline = time.monotonic() + timeout
        while True:
            now = self.radios()
            if all(n in now and now[n]["soft"] == s for n, s in want.items()):
                return now
            if time.monotonic() > deadline:
                return now
            time.sleep(0.1)

    # -- the LED ----------------------------------------------------------
    def mark(self, name):
        self.relay.mark(f"[[{name}]]")

    def led_since(self, mark):
        """LED writes after marker `mark` (None if the marker is missing)."""
        try:
            with open(self.led_log, "rb") as f:
                entries = led_log_entries(f.read())
        except OSError:
            return None
        seen = None
        for kind, value in entries:
            if kind == "mark" and value == mark:
                seen = []
            elif kind == "led" and seen is not None:
                seen.append(value)
        return seen

    def led_before(self, mark):
        """The LED state written last before marker `mark`, or None."""
        try:
            with open(self.led_log, "rb") as f:
                entries = led_log_entries(f.read())
        except OSError:
            return None
        last = None
        for kind, value in entries:
            if kind == "mark" and value == mark:
                return last
            if kind == "led":
                last = value
        return None

    def wait_led(self, mark, lit, timeout=10.0):
        """Waits until the last LED write after `mark` is `lit`; returns
        the writes seen after the mark."""
        deadline = time.monotonic() + timeout
        while True:
            seen = self.led_since(mark)
            if seen and seen[-1] == lit:
                return seen
            if time.monotonic() > deadline:
                return seen
            time.sleep(0.05)

    def led_log_text(self):
        try:
            with open(self.led_log, "rb") as f:
                data = f.read()
        except OSError:
            return "(no LED log)"
        return " ".join(f"<{v}>" if k == "mark" else ("ON" if v else "off")
                        for k, v in led_log_entries(data))

    # -- the product on the host -----------------------------------------
    def env(self, extra=None):
        """Environment for the product: names from the bridge's sysfs, and
        (unless a desktop session already set them up) a private HOME."""
        env = dict(os.environ)
        env["RFKILL_SYSFS_ROOT"] = self.sysfs_root
        if not self.in_session:
            env["XDG_STATE_HOME"] = os.path.join(self.tmp, "state")
            env["XDG_CONFIG_HOME"] = os.path.join(self.tmp, "config")
            env["XDG_CACHE_HOME"] = os.path.join(self.tmp, "cache")
            env["HOME"] = self.tmp
            env["LC_ALL"] = "C.UTF-8"
        env.update(extra or {})
        return env

    def run_applet(self, applet, *args, timeout=30):
        cmd = [applet, "--device", self.device, *args]
        try:
            r = subprocess.run(cmd, env=self.env(), capture_output=True,
                               text=True, stdin=subprocess.DEVNULL,
                               timeout=timeout)
        except subprocess.TimeoutExpired as err:
            return subprocess.CompletedProcess(cmd, -1, err.stdout or "",
                                               f"timed out after {timeout} s")
        return r


# -- checks the scenarios share -------------------------------------------
def set_soft(vm, radio, soft):
    idx = vm.radios()[radio]["idx"]
    return vm.monitor.write(rb.encode_event(idx, 0, rb.OP_CHANGE, soft))


def check_led(tap, vm, mark, lit, what):
    """The step after `mark` switched the LED to `lit` (it must have been
    the other way before, so a step that changes nothing fails)."""
    seen = vm.wait_led(mark, lit)
    before = vm.led_before(mark)
    word = "lights" if lit else "goes dark"
    good = before is (not lit) and bool(seen) and seen[-1] == lit
    if good and lit:
        # No flicker: once lit, the LED stays lit for this step.
        good = False not in seen[seen.index(True):]
    tap.ok(good, f"{what}: the LED {word} on the debugcon",
           f"LED before: {before}, writes after [[{mark}]]: {seen}\n"
           f"log: {vm.led_log_text()}")


def check_led_stays(tap, vm, mark, lit, what):
    """The step after `mark` left the LED as it was (`lit`)."""
    time.sleep(0.5)  # trigger events reach the LED at once; allow the ACPI work
    seen = vm.led_since(mark)
    before = vm.led_before(mark)
    word = "lit" if lit else "dark"
    tap.ok(before is lit and seen is not None and (not lit) not in seen,
           f"{what}: the LED stays {word}",
           f"LED before: {before}, writes after [[{mark}]]: {seen}")


def indicator_events_since(vm, start):
    return [e["soft"] for e in map(rb.decode_event, vm.monitor.events[start:])
            if e["op"] == rb.OP_INDICATOR_CHANGE]


class Client:
    """A second program on the bridge, speaking the socket transport."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.events = []
        # The bridge ends the initial ADDs with a status packet.
        while True:
            packet = self.sock.recv(256)
            if not packet:
                raise OSError(errno.EPIPE, "bridge closed the connection")
            if rb.parse_status(packet) is not None:
                break
            self.events.append(packet)

    def write(self, data):
        """Returns the errno of the guest's write()."""
        self.sock.send(data)
        while True:
            packet = self.sock.recv(256)
            if not packet:
                raise OSError(errno.EPIPE, "bridge closed the connection")
            status = rb.parse_status(packet)
            if status is not None:
                return status
            self.events.append(packet)

    def drain(self, quiet=0.5):
        """Keeps the events that come until none has for `quiet` s."""
        self.sock.settimeout(quiet)
        try:
            while True:
                packet = self.sock.recv(256)
                if not packet:
                    break
                if rb.parse_status(packet) is None:
                    self.events.append(packet)
        except (socket.timeout, BlockingIOError):
            pass
        finally:
            self.sock.settimeout(10)

    def close(self):
        self.sock.close()
