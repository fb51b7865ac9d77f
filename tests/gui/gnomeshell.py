"""A real GNOME Shell 43 with the AppIndicator extension, for the GUI tests.

Runs inside the session made by run-in-session.py (temporary HOME and
XDG_*, Xvfb, private session bus).  What the shell needs on top of that,
as found on Debian bookworm (see the shared TESTING notes):
  - a system bus that answers (gnome-shell 43 dies without one): a private
    dbus-daemon, exported as DBUS_SYSTEM_BUS_ADDRESS;
  - its settings before it starts: the extension enabled, user extensions
    allowed, no welcome dialog, no notification banners (as root the shell
    shows a "privileged user" banner over the top bar);
  - `gnome-shell --x11 --replace` in the Xvfb display: a real X11
    compositing window manager, driven with xdotool like a user would.

Screenshots go through org.gnome.Shell.Screenshot, which answers only
callers that own an allow-listed name: we own org.gnome.Screenshot on the
connection that calls it.
"""
import os
import shutil
import signal
import subprocess
import tempfile

import gi
gi.require_version('GdkPixbuf', '2.0')
from gi.repository import GdkPixbuf, Gio, GLib  # noqa: E402

import guitest as gt  # noqa: E402
from guitest import check, wait_for  # noqa: E402

EXTENSION_UUID = 'ubuntu-appindicators@ubuntu.com'
EXTENSION_DIR = '/usr/share/gnome-shell/extensions/' + EXTENSION_UUID
SCREENSHOT_NAME = 'org.gnome.Screenshot'


def check_installed():
    missing = []
    if not shutil.which('gnome-shell'):
        missing.append('gnome-shell')
    if not os.path.isdir(EXTENSION_DIR):
        missing.append('gnome-shell-extension-appindicator')
    check(not missing, 'missing test tools: apt-get install ' + ' '.join(missing))


def name_owner_pid(bus, name):
    owner = bus.call_sync(
        'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
        'GetNameOwner', GLib.Variant('(s)', (name,)), GLib.VariantType('(s)'),
        Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
    return bus.call_sync(
        'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
        'GetConnectionUnixProcessID', GLib.Variant('(s)', (owner,)),
        GLib.VariantType('(u)'), Gio.DBusCallFlags.NONE, -1, None).unpack()[0]


class SystemBus:
    """A private bus standing in for the system bus."""

    def __init__(self, logdir):
        path = os.path.join(os.environ['XDG_RUNTIME_DIR'], 'system_bus_socket')
        self.log = open(os.path.join(logdir, 'system-bus.log'), 'w')
        self.proc = subprocess.Popen(
            ['dbus-daemon', '--session', '--nofork', '--print-address',
             '--address=unix:path=' + path],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        address = self.proc.stdout.readline().strip()
        check(address, 'the private system bus did not start')
        os.environ['DBUS_SYSTEM_BUS_ADDRESS'] = address

    def stop(self):
        self.proc.terminate()
        self.proc.wait(5)
        self.proc.stdout.close()
        self.log.close()


def gsettings_set(schema, key, value):
    subprocess.run(['gsettings', 'set', schema, key, value], check=True)


class Shell:
    """gnome-shell --x11 with the AppIndicator extension on our display."""

    def __init__(self, logdir):
        check_installed()
        self.bus = gt.session_bus()
        self.system_bus = SystemBus(logdir)
        gsettings_set('org.gnome.shell', 'enabled-extensions', f"['{EXTENSION_UUID}']")
        gsettings_set('org.gnome.shell', 'disable-user-extensions', 'false')
        gsettings_set('org.gnome.shell', 'welcome-dialog-last-shown-version', "'99.0'")
        gsettings_set('org.gnome.desktop.notifications', 'show-banners', 'false')
        env = dict(os.environ, LIBGL_ALWAYS_SOFTWARE='1')
        self.log = open(os.path.join(logdir, 'gnome-shell.log'), 'w')
        self.proc = subprocess.Popen(['gnome-shell', '--x11', '--replace'], env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.shots = tempfile.mkdtemp(prefix='shots-', dir=os.environ['XDG_RUNTIME_DIR'])
        self.count = 0
        self._own(SCREENSHOT_NAME)

    def _own(self, name):
        reply = self.bus.call_sync(
            'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'RequestName', GLib.Variant('(su)', (name, 4)), GLib.VariantType('(u)'),
            Gio.DBusCallFlags.NONE, -1, None)
        check(reply.unpack()[0] == 1, f'cannot own {name}')

    def alive(self):
        check(self.proc.poll() is None,
              f'gnome-shell exited with {self.proc.returncode}')
        return True

    def wait_ready(self, timeout=30):
        """The shell's Screenshot service and the extension's
        StatusNotifierWatcher, both owned by the shell process itself."""
        for name, what in (('org.gnome.Shell.Screenshot', 'the shell'),
                           (gt.WATCHER_NAME, 'the AppIndicator extension')):
            def owned():
                self.alive()
                return name_owner_pid(self.bus, name) == self.proc.pid
            wait_for(owned, timeout, f'{what} to own {name}')

    def registered_items(self):
        reply = self.bus.call_sync(
            gt.WATCHER_NAME, gt.WATCHER_PATH, 'org.freedesktop.DBus.Properties',
            'Get', GLib.Variant('(ss)', (gt.WATCHER_NAME,
                                         'RegisteredStatusNotifierItems')),
            GLib.VariantType('(v)'), Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]

    def grab(self, x=None, y=None, width=None, height=None, save_as=None):
        """The screen (or an area) as the compositor draws it, as a pixbuf."""
        self.alive()
        self.count += 1
        path = save_as or os.path.join(self.shots, f'grab-{self.count}.png')
        if x is None:
            method, args = 'Screenshot', GLib.Variant('(bbs)', (False, False, path))
        else:
            method, args = 'ScreenshotArea', GLib.Variant(
                '(iiiibs)', (x, y, width, height, False, path))
        ok, used = self.bus.call_sync(
            'org.gnome.Shell.Screenshot', '/org/gnome/Shell/Screenshot',
            'org.gnome.Shell.Screenshot', method, args, GLib.VariantType('(bs)'),
            Gio.DBusCallFlags.NONE, 10000, None).unpack()
        check(ok and used == path, f'{method} failed: {ok} {used}')
        return GdkPixbuf.Pixbuf.new_from_file(path)

    def stop(self):
        # Mutter 43 segfaults on SIGTERM in --x11 mode; its exit status
        # says nothing about the test.
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        self.system_bus.stop()
        shutil.rmtree(self.shots, ignore_errors=True)
