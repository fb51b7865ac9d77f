#!/usr/bin/python3
"""The real rfkill-applet binary against the fake-rfkill program.

Environment (set by meson): RFKILL_APPLET, FAKE_RFKILL, and optionally
SCHEMA_DIR (compiled GSettings schemas of the build tree).
Prints TAP.
"""
import contextlib
import errno
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import traceback

APPLET = os.environ["RFKILL_APPLET"]
FAKE = os.environ["FAKE_RFKILL"]
SCHEMA_DIR = os.environ.get("SCHEMA_DIR", "")


class Fake:
    """fake-rfkill with a private state/sysfs dir, driven via --control."""

    def __init__(self, radios, *extra):
        self.dir = tempfile.mkdtemp(prefix="rfk-cli-")
        self.sock = os.path.join(self.dir, "rfkill.sock")
        self.ctl = os.path.join(self.dir, "control.sock")
        self.sysfs = os.path.join(self.dir, "sys")
        self.env = dict(os.environ,
                        LC_ALL="C.UTF-8",
                        RFKILL_SYSFS_ROOT=self.sysfs,
                        XDG_STATE_HOME=os.path.join(self.dir, "state"),
                        XDG_CONFIG_HOME=os.path.join(self.dir, "config"),
                        XDG_RUNTIME_DIR=self.dir,
                        GSETTINGS_SCHEMA_DIR=os.path.join(self.dir, "none"))
        # No session bus: an applet of the user's must not be asked.
        self.env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        self.state_file = os.path.join(self.dir, "state", "rfkill-applet",
                                       "airplane-mode.ini")
        self.proc = subprocess.Popen(
            [FAKE, "--listen", self.sock, "--control", self.ctl,
             "--sysfs", self.sysfs, "--no-stdin", "--radios", radios,
             *extra],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        assert self.proc.stdout.readline().strip() == "ready"

    def command(self, *words):
        out = subprocess.run([FAKE, "--ctl", self.ctl, *words],
                             capture_output=True, text=True, check=True)
        return out.stdout

    def soft_states(self):
        """{name: 'on'|'off'} from the fake kernel's own view."""
        states = {}
        for line in self.command("list").splitlines():
            _idx, _type, name, soft, _hard, _reasons = line.split()
            states[name] = "off" if soft == "1" else "on"
        return states

    def applet(self, *args):
        return subprocess.run([APPLET, *args], env=self.env,
                              capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


TESTS = []


def test(func):
    TESTS.append(func)
    return func


def laptop():
    """Two Wi-Fi cards (the second switched off by the user) and
    Bluetooth."""
    fake = Fake("wlan,wlan,bluetooth")
    fake.command("soft", "1", "on")
    return fake


@test
def list_prints_a_table_like_util_linux():
    with laptop() as fake:
        fake.command("hard", "2", "on", "signal")
        r = fake.applet("--device", fake.sock, "--list")
        assert r.returncode == 0, r.stderr
        assert r.stdout == (
            "ID TYPE      DEVICE SOFT      HARD      REASON\n"
            " 0 wlan      phy0   unblocked unblocked\n"
            " 1 wlan      phy1   blocked   unblocked\n"
            " 2 bluetooth hci0   unblocked blocked   hardware switch\n"
            "AIRPLANE off\n"), r.stdout


@test
def list_json_carries_the_same_facts():
    with laptop() as fake:
        fake.command("hard", "2", "on", "signal,not-owner")
        r = fake.applet("--device", fake.sock, "--list", "--json")
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        devices = doc["rfkilldevices"]
        assert [d["device"] for d in devices] == ["phy0", "phy1", "hci0"]
        assert [d["id"] for d in devices] == [0, 1, 2]
        assert [d["type"] for d in devices] == ["wlan", "wlan", "bluetooth"]
        assert [d["soft"] for d in devices] == ["unblocked", "blocked",
                                                "unblocked"]
        assert devices[2]["hard"] == "blocked"
        assert devices[2]["reasons"] == ["signal", "not-owner"]
        assert devices[0]["reasons"] == []
        assert doc["airplane-mode"] is False
        assert doc["hardware-switch"] is True
        # Bluetooth held, Wi-Fi free: the tray shows radios on.
        assert doc["switch-holds-airplane-mode"] is False


def list_json(fake):
    r = fake.applet("--device", fake.sock, "--list", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    return doc["hardware-switch"], doc["switch-holds-airplane-mode"]


@test
def list_json_says_what_the_tray_icon_says():
    """A WWAN card disabled in the BIOS is hard-blocked for good:
    "hardware-switch" (some radio hard-blocked) says so, while
    "switch-holds-airplane-mode", the tray icon's rule, does not; the
    wireless switch makes both true."""
    with Fake("wlan,bluetooth,wwan") as fake:
        fake.command("hard", "2", "on", "signal")
        assert list_json(fake) == (True, False)
        fake.command("switch", "on")
        assert list_json(fake) == (True, True)


@test
def list_json_tells_laptop_switches_from_radios():
    """A laptop's own WWAN switch (on a platform device) is not a radio:
    with the modem and Wi-Fi held and the switch free, a switch holds
    airplane mode, as the icon says; counted as a radio, the free switch
    would have said no."""
    with Fake("wlan,wwan") as fake:
        fake.command("device", "wwan", "acme_wwan", "platform",
                     "platform/ACME0001:00")
        fake.command("hard", "0", "on", "signal")
        fake.command("hard", "1", "on", "signal")
        assert list_json(fake) == (True, True)


@test
def v1_kernel_shows_unknown_reason():
    with Fake("wlan", "--v1") as fake:
        fake.command("hard", "0", "on")
        r = fake.applet("-d", fake.sock, "-l")
        assert r.returncode == 0, r.stderr
        assert " 0 wlan phy0   unblocked blocked -\n" in r.stdout, r.stdout
        assert r.stdout.endswith("AIRPLANE on\n"), r.stdout


@test
def airplane_on_then_off_restores_each_radio():
    with laptop() as fake:
        r = fake.applet("--device", fake.sock, "--airplane", "on")
        assert r.returncode == 0, r.stderr
        assert r.stdout == "Airplane mode is on.\n", r.stdout
        assert fake.soft_states() == {"phy0": "off", "phy1": "off",
                                      "hci0": "off"}
        state = os.path.join(fake.dir, "state", "rfkill-applet",
                             "airplane-mode.ini")
        assert os.path.exists(state)
        r = fake.applet("--device", fake.sock, "--list")
        assert r.stdout.endswith("AIRPLANE on\n"), r.stdout

        # A separate process turns it off: the state file carried over.
        r = fake.applet("--device", fake.sock, "--airplane", "off")
        assert r.returncode == 0, r.stderr
        assert r.stdout == "Airplane mode is off.\n", r.stdout
        assert fake.soft_states() == {"phy0": "on", "phy1": "off",
                                      "hci0": "on"}


@test
def airplane_with_a_radio_that_refuses_names_it_and_off_restores_the_rest():
    # A Wi-Fi switch whose driver refuses soft blocks: the kernel sends
    # nothing.  On names it and holds for the others; off, in a new
    # process, restores them (5 s: the kernel's confirmation timeout).
    with Fake("wlan,bluetooth") as fake:
        idx = fake.command("add", "wlan", "acme-slider").split()[0]
        fake.command("refuse", idx, "on")
        r = fake.applet("--device", fake.sock, "--airplane", "on")
        assert r.returncode == 1, r
        assert "acme-slider (Wi-Fi) did not turn off" in r.stderr, r.stderr
        assert fake.soft_states() == {"phy0": "off", "hci0": "off",
                                      "acme-slider": "on"}
        r = fake.applet("--device", fake.sock, "--list")
        assert r.stdout.endswith("AIRPLANE on\n"), r.stdout
        r = fake.applet("--device", fake.sock, "--airplane", "off")
        assert r.returncode == 0, r
        assert r.stdout == "Airplane mode is off.\n", r.stdout
        assert fake.soft_states() == {"phy0": "on", "hci0": "on",
                                      "acme-slider": "on"}


@test
def airplane_toggle_goes_both_ways():
    with laptop() as fake:
        r = fake.applet("--device", fake.sock, "--airplane", "toggle")
        assert r.returncode == 0 and "on" in r.stdout, r
        assert set(fake.soft_states().values()) == {"off"}
        r = fake.applet("--device", fake.sock, "--airplane", "toggle")
        assert r.returncode == 0 and "off" in r.stdout, r
        assert fake.soft_states() == {"phy0": "on", "phy1": "off",
                                      "hci0": "on"}


@test
def airplane_off_under_hardware_switch_fails_clearly():
    with laptop() as fake:
        fake.command("switch", "on")
        r = fake.applet("--device", fake.sock, "--airplane", "off")
        assert r.returncode == 1, r
        assert "hardware switch" in r.stderr, r.stderr
        assert fake.command("writes").strip() == "0"


@test
def airplane_types_come_from_gsettings():
    if not SCHEMA_DIR or not os.path.exists(
            os.path.join(SCHEMA_DIR, "gschemas.compiled")):
        raise AssertionError("SCHEMA_DIR with gschemas.compiled is needed")
    with laptop() as fake:
        keyfile = os.path.join(fake.dir, "config", "glib-2.0", "settings")
        os.makedirs(keyfile)
        with open(os.path.join(keyfile, "keyfile"), "w") as f:
            f.write("[io/github/rfkill_applet/RfkillApplet]\n"
                    "airplane-radio-types=['wlan']\n")
        fake.env.update(GSETTINGS_SCHEMA_DIR=SCHEMA_DIR,
                        GSETTINGS_BACKEND="keyfile")
        r = fake.applet("--device", fake.sock, "--airplane", "on")
        assert r.returncode == 0, r.stderr
        # Like the applet: only Wi-Fi counts, Bluetooth keeps playing.
        assert fake.soft_states() == {"phy0": "off", "phy1": "off",
                                      "hci0": "on"}


@test
def missing_device_is_an_error_naming_it():
    with laptop() as fake:
        path = os.path.join(fake.dir, "nothing-here")
        for args in (["--list"], ["--airplane", "on"]):
            r = fake.applet("--device", path, *args)
            assert r.returncode == 1, r
            assert path in r.stderr and "No such file" in r.stderr, r.stderr


@test
def device_that_is_no_device_is_refused():
    with laptop() as fake:
        path = os.path.join(fake.dir, "plain-file")
        with open(path, "wb") as f:
            f.write(b"\0" * 64)
        r = fake.applet("--device", path, "--list")
        assert r.returncode == 1, r
        assert path in r.stderr and "No such device" in r.stderr, r.stderr
        assert r.stdout == "", r.stdout


@contextlib.contextmanager
def scripted_peer(serve):
    """A SOCK_SEQPACKET peer where the CLI expects the kernel (a relay, a
    loaded VM), played by serve(conn) in a thread.  Yields run(*args):
    the CLI on that peer, in a private environment."""
    tmp = tempfile.mkdtemp(prefix="rfk-peer-")
    path = os.path.join(tmp, "rfkill.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    server.bind(path)
    server.listen(1)
    t = threading.Thread(target=lambda: serve(server.accept()[0]), daemon=True)
    t.start()
    env = dict(os.environ, LC_ALL="C.UTF-8",
               RFKILL_SYSFS_ROOT=os.path.join(tmp, "sys"),
               XDG_STATE_HOME=os.path.join(tmp, "state"),
               XDG_CONFIG_HOME=os.path.join(tmp, "config"),
               XDG_RUNTIME_DIR=tmp,
               GSETTINGS_SCHEMA_DIR=os.path.join(tmp, "none"))
    # No session bus: an applet of the user's must not be asked.
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)

    def run(*args):
        return subprocess.run([APPLET, "--device", path, *args], env=env,
                              capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)
    try:
        yield run
    finally:
        server.close()
        t.join(5)
        shutil.rmtree(tmp, ignore_errors=True)


@test
def slow_socket_peer_lists_every_radio_it_announced():
    """A relay whose ADDs trickle in (a loaded VM) still gives a full list:
    the list ends at the peer's end-of-list status, not after a pause."""
    def peer(conn):
        for idx, type_ in ((0, 1), (1, 1), (2, 2)):
            # struct rfkill_event_ext: idx, type, op ADD, soft, hard, reasons
            conn.send(struct.pack("<IBBBBB", idx, type_, 0, 0, 0, 0))
            threading.Event().wait(0.4)
        conn.send(bytes([0xff, ord("S"), 0, 0]))
        while conn.recv(64):  # hold the connection until the client leaves
            pass
        conn.close()

    with scripted_peer(peer) as run:
        r = run("--list", "--json")
        assert r.returncode == 0, r
        ids = [d["id"] for d in json.loads(r.stdout)["rfkilldevices"]]
        assert sorted(ids) == [0, 1, 2], r.stdout


@test
def stock_kernels_refusal_of_the_opt_in_fails_no_write():
    """A peer like a stock kernel behind a relay answers the op-5 opt-in
    (an ioctl packet) with ENOTTY.  Held back until the CLI's first write
    is in, that answer comes first: it must not be taken for the write's."""
    seen = []

    def event(op, soft):
        # struct rfkill_event_ext: idx 0, type WLAN, op, soft, hard, reasons
        return struct.pack("<IBBBBB", 0, 1, op, soft, 0, 0)

    def status(err):
        return struct.pack("<BBH", 0xFF, ord("S"), err)

    def peer(conn):
        conn.settimeout(20)
        conn.send(event(0, 0))
        conn.send(status(0))  # end of the initial list
        held = []
        while True:
            try:
                packet = conn.recv(64)
            except OSError:
                break
            if not packet:
                break
            seen.append(packet)
            if packet[:2] == bytes([0xFF, ord("I")]):
                held.append(status(errno.ENOTTY))  # no such ioctl
                continue
            for answer in held:
                conn.send(answer)
            held = []
            idx, type_, op, soft = struct.unpack_from("<IBBB", packet)
            conn.send(status(0))
            if op in (2, 3) and type_ in (0, 1) and (op == 3 or idx == 0):
                conn.send(event(2, soft))
        conn.close()

    with scripted_peer(peer) as run:
        r = run("--airplane", "on")
        assert r.returncode == 0, r
        assert seen and seen[0] == bytes([0xFF, ord("I"), 0x41, 0]), seen
        assert len(seen) > 1, "the CLI wrote nothing"


@test
def bad_arguments_exit_2_with_a_message():
    with laptop() as fake:
        cases = [
            (["--airplane", "maybe"], "maybe"),
            (["--bogus"], "--bogus"),
            (["--json"], "--json"),
            (["--list", "--airplane", "on"], "--airplane"),
            (["--list", "extra"], "extra"),
            (["--device"], "--device"),
        ]
        for args, named in cases:
            r = fake.applet(*args)
            assert r.returncode == 2, (args, r)
            assert named in r.stderr, (args, r.stderr)
            assert "--help" in r.stderr, (args, r.stderr)
            assert r.stdout == "", (args, r.stdout)
        assert fake.command("writes").strip() == "0"


@test
def version_and_help():
    r = subprocess.run([APPLET, "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("rfkill-applet "), r
    r = subprocess.run([APPLET, "--help"], capture_output=True, text=True,
                       env=dict(os.environ, LC_ALL="C.UTF-8"))
    assert r.returncode == 0, r
    for option in ("--device", "--list", "--json", "--airplane",
                   "--version"):
        assert option in r.stdout, (option, r.stdout)


@test
def fake_rfkill_help_documents_its_commands():
    r = subprocess.run([FAKE, "--help"], capture_output=True, text=True)
    assert r.returncode == 0, r
    for word in ("--radios", "--listen", "--sysfs", "--v1", "--stock",
                 "--control", "--ctl", "switch on|off", "readd IDX"):
        assert word in r.stdout, (word, r.stdout)
    r = subprocess.run([FAKE, "--radios", "toaster", "--listen", "/x"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "toaster" in r.stderr, r


@test
def corrupt_restore_list_is_shown_and_kept():
    with laptop() as fake:
        r = fake.applet("--device", fake.sock, "--airplane", "on")
        assert r.returncode == 0, r.stderr
        with open(fake.state_file, "w") as f:
            f.write("[radios\ngarbage")
        r = fake.applet("--device", fake.sock, "--list")
        assert r.returncode == 0, r.stderr
        assert "corrupt" in r.stderr, r.stderr
        assert "AIRPLANE on" in r.stdout, r.stdout
        # --list changes nothing: the writer that needs the list moves it.
        r = fake.applet("--device", fake.sock, "--airplane", "off")
        assert r.returncode == 1, r
        kept = [n for n in os.listdir(os.path.dirname(fake.state_file))
                if n.startswith("airplane-mode.ini.corrupt-")]
        assert len(kept) == 1, kept
        with open(os.path.join(os.path.dirname(fake.state_file),
                               kept[0])) as f:
            assert f.read() == "[radios\ngarbage"
        # Never "unblock everything", the next time either.
        r = fake.applet("--device", fake.sock, "--airplane", "off")
        assert r.returncode == 1, r
        assert kept[0] in r.stderr, r.stderr
        assert fake.soft_states() == {"phy0": "off", "phy1": "off",
                                      "hci0": "off"}


# A stand-in for the running applet on a private session bus: owns the
# application id, serves DevicePath and answers SetAirplaneMode /
# ToggleAirplaneMode as it is told (data/io.github.rfkill_applet.
# RfkillApplet.xml).  device "same" serves the CLI's own device.
FAKE_APPLET = r'''
import sys
from gi.repository import Gio, GLib
answer, log, device = sys.argv[1], sys.argv[2], sys.argv[3]
XML = """<node><interface name='io.github.rfkill_applet.RfkillApplet'>
<property name='DevicePath' type='s' access='read'/>
<method name='SetAirplaneMode'><arg type='b' direction='in'/></method>
<method name='ToggleAirplaneMode'><arg type='b' direction='out'/></method>
</interface></node>"""
not_ready = [0]
def call(conn, sender, path, iface, method, params, inv):
    with open(log, "a") as f:
        f.write(method + " " + repr(params.unpack()) + "\n")
    # "notready:N": the applet still starting, for N calls.
    if answer.startswith("notready:") and \
            not_ready[0] < int(answer.split(":")[1]):
        not_ready[0] += 1
        inv.return_dbus_error("io.github.rfkill_applet.RfkillApplet.Error."
                              "NotReady", "The rfkill device is not open")
    elif answer.startswith("notready:"):
        inv.return_value(None)
    elif answer != "ok":
        inv.return_dbus_error("io.github.rfkill_applet.RfkillApplet.Error."
                              "Failed", answer)
    elif method == "ToggleAirplaneMode":
        inv.return_value(GLib.Variant("(b)", (True,)))
    else:
        inv.return_value(None)
def get(conn, sender, path, iface, name):
    return GLib.Variant("s", device)
def acquired(conn, name):
    print("ready", flush=True)
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
bus.register_object("/io/github/rfkill_applet/RfkillApplet",
                    Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], call,
                    get, None)
Gio.bus_own_name_on_connection(bus, "io.github.rfkill_applet.RfkillApplet",
                               0, acquired, None)
GLib.MainLoop().run()
'''


def with_fake_applet(fake, answer, check, device=None):
    bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork",
                            "--print-address"], stdout=subprocess.PIPE,
                           text=True)
    applet = None
    try:
        fake.env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().strip()
        log = os.path.join(fake.dir, "calls")
        applet = subprocess.Popen([sys.executable, "-c", FAKE_APPLET,
                                   answer, log, device or fake.sock],
                                  env=fake.env,
                                  stdout=subprocess.PIPE, text=True)
        assert applet.stdout.readline().strip() == "ready"
        check(log)
    finally:
        if applet:
            applet.terminate()
            applet.wait(timeout=10)
        bus.terminate()
        bus.wait(timeout=10)
        fake.env.pop("DBUS_SESSION_BUS_ADDRESS", None)


@test
def airplane_asks_the_running_applet():
    with laptop() as fake:
        def check(log):
            r = fake.applet("--device", fake.sock, "--airplane", "on")
            assert r.returncode == 0, r.stderr
            assert r.stdout == "Airplane mode is on.\n", r.stdout
            with open(log) as f:
                assert f.read() == "SetAirplaneMode (True,)\n"
            r = fake.applet("--device", fake.sock, "--airplane", "toggle")
            assert r.returncode == 0, r.stderr
            assert r.stdout == "Airplane mode is on.\n", r.stdout
            # The applet is the one writer: we touched nothing.
            assert fake.command("writes").split()[0] == "0"
            assert not os.path.exists(fake.state_file)
        with_fake_applet(fake, "ok", check)


@test
def airplane_reports_the_applets_error():
    with laptop() as fake:
        def check(log):
            r = fake.applet("--device", fake.sock, "--airplane", "off")
            assert r.returncode == 1, r
            assert "Cannot turn airplane mode off: the kernel said no" \
                in r.stderr, r.stderr
            assert fake.command("writes").split()[0] == "0"
        with_fake_applet(fake, "the kernel said no", check)


@test
def airplane_does_it_itself_when_the_applet_runs_on_another_device():
    with laptop() as fake:
        def check(log):
            r = fake.applet("--device", fake.sock, "--airplane", "on")
            assert r.returncode == 0, r.stderr
            assert not os.path.exists(log), "the applet was asked"
            assert fake.soft_states() == {"phy0": "off", "phy1": "off",
                                          "hci0": "off"}
        with_fake_applet(fake, "ok", check, device="/dev/other-rfkill")


@test
def airplane_waits_for_an_applet_still_starting():
    # At login the CLI may run while the applet opens its device: it is
    # there, and will write the list itself; the CLI must not.
    with laptop() as fake:
        def check(log):
            r = fake.applet("--device", fake.sock, "--airplane", "on")
            assert r.returncode == 0, r.stderr
            with open(log) as f:
                assert f.read() == "SetAirplaneMode (True,)\n" * 4
            assert fake.command("writes").split()[0] == "0"
            assert not os.path.exists(fake.state_file)
        with_fake_applet(fake, "notready:3", check)


@test
def airplane_gives_up_on_an_applet_that_never_gets_ready():
    with laptop() as fake:
        def check(log):
            r = fake.applet("--device", fake.sock, "--airplane", "on")
            assert r.returncode == 1, r
            assert "not ready after 10 seconds" in r.stderr, r.stderr
            assert fake.command("writes").split()[0] == "0"
            assert not os.path.exists(fake.state_file)
        with_fake_applet(fake, "notready:1000000", check)


@test
def airplane_knows_the_applets_device_however_spelled():
    with laptop() as fake:
        link = os.path.join(fake.dir, "rfkill-link.sock")
        os.symlink(fake.sock, link)
        for spelling in (os.path.join(fake.dir, ".", "rfkill.sock"), link):
            def check(log):
                r = fake.applet("--device", spelling, "--airplane", "on")
                assert r.returncode == 0, r.stderr
                with open(log) as f:
                    assert f.read() == "SetAirplaneMode (True,)\n", spelling
                assert fake.command("writes").split()[0] == "0"
                assert not os.path.exists(fake.state_file)
                os.unlink(log)
            with_fake_applet(fake, "ok", check)


@test
def airplane_leaves_an_exception_alone():
    # An exception the user's applet recorded (Bluetooth turned on in an
    # earlier airplane mode): --airplane on leaves it on, --list and
    # --json say so.  The file's key is the restore list's, read back
    # from the list the CLI itself saved.
    with laptop() as fake:
        r = fake.applet("--device", fake.sock, "--airplane", "on")
        assert r.returncode == 0, r.stderr
        keys = [line.split("=")[0] for line in open(fake.state_file)
                if line.startswith("bluetooth:")]
        assert len(keys) == 1, open(fake.state_file).read()
        r = fake.applet("--device", fake.sock, "--airplane", "off")
        assert r.returncode == 0, r.stderr
        state = os.path.dirname(fake.state_file)
        with open(os.path.join(state, "airplane-exceptions.ini"), "w") as f:
            f.write(f"[exceptions]\n{keys[0]}=stays\n")
        r = fake.applet("--device", fake.sock, "--airplane", "on")
        assert r.returncode == 0, r.stderr
        assert fake.soft_states() == {"phy0": "off", "phy1": "off",
                                      "hci0": "on"}, fake.soft_states()
        r = fake.applet("--device", fake.sock, "--list")
        assert r.stdout.endswith("AIRPLANE on\nEXCEPTIONS 2\n"), r.stdout
        doc = json.loads(fake.applet("--device", fake.sock, "--list",
                                     "--json").stdout)
        assert [d["airplane-exception"] for d in doc["rfkilldevices"]] == \
            [False, False, True]
        assert doc["airplane-mode"] is True
        r = fake.applet("--device", fake.sock, "--airplane", "off")
        assert r.returncode == 0, r.stderr
        assert fake.soft_states() == {"phy0": "on", "phy1": "off",
                                      "hci0": "on"}, fake.soft_states()


@test
def list_changes_nothing_on_disk():
    # A corrupt list and corrupt refusals: --list says so and moves,
    # renames and writes nothing.
    with laptop() as fake:
        state = os.path.dirname(fake.state_file)
        os.makedirs(state)
        with open(fake.state_file, "w") as f:
            f.write("[radios\ngarbage")
        with open(os.path.join(state, "refused-radios.ini"), "w") as f:
            f.write("[refused\nx")

        def snapshot():
            files = {}
            for name in sorted(os.listdir(state)):
                st = os.stat(os.path.join(state, name))
                with open(os.path.join(state, name)) as f:
                    files[name] = (f.read(), st.st_ino, st.st_mtime_ns)
            return files
        before = snapshot()
        for args in (["--list"], ["--list", "--json"]):
            r = fake.applet("--device", fake.sock, *args)
            assert r.returncode == 0, r.stderr
            assert "corrupt" in r.stderr, r.stderr
            assert snapshot() == before, (before, snapshot())


@test
def airplane_waits_for_the_lock_on_the_restore_list():
    import fcntl
    with laptop() as fake:
        os.makedirs(os.path.dirname(fake.state_file))
        with open(fake.state_file + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            cli = subprocess.Popen([APPLET, "--device", fake.sock,
                                    "--airplane", "on"], env=fake.env,
                                   stdout=subprocess.PIPE, text=True)
            try:
                cli.wait(timeout=1)
                raise AssertionError("ran without the lock")
            except subprocess.TimeoutExpired:
                pass
            assert fake.command("writes").split()[0] == "0"
        assert cli.wait(timeout=20) == 0
        assert fake.soft_states() == {"phy0": "off", "phy1": "off",
                                      "hci0": "off"}


def main():
    print(f"1..{len(TESTS)}")
    failed = 0
    for n, func in enumerate(TESTS, 1):
        name = func.__name__.replace("_", "-")
        try:
            func()
            print(f"ok {n} - {name}")
        except Exception:
            failed += 1
            print(f"not ok {n} - {name}")
            for line in traceback.format_exc().splitlines():
                print(f"# {line}")
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
