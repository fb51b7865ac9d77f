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
import subprocess
import tempfile

import gi
gi.require_version('GdkPixbuf', '2.0')
from gi.repository import GdkPixbuf, Gio, GLib  # noqa: E402

import guitest as gt  # noqa: E402
from guitest import check, log, wait_for  # noqa: E402
from desktop import diff_box, stable, xdotool  # noqa: E402

EXTENSION_UUID = 'ubuntu-appindicators@ubuntu.com'
EXTENSION_DIR = '/usr/share/gnome-shell/extensions/' + EXTENSION_UUID
SCREENSHOT_NAME = 'org.gnome.Screenshot'
# run-in-session.py's Xvfb screen and the shell's top bar there.
SCREEN_W, SCREEN_H = 640, 480
BAR_H = 32
# Where the status icons are: right of the clock and its notification
# bell (the date and time, centred, reach x = 370 and change every minute).
STATUS_X = 420


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
        gt.own_name(self.bus, SCREENSHOT_NAME)

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
            # A loaded machine can starve the shell for seconds.
            Gio.DBusCallFlags.NONE, 60000, None).unpack()
        check(ok and used == path, f'{method} failed: {ok} {used}')
        return GdkPixbuf.Pixbuf.new_from_file(path)

    # ---- the desktop as a user sees it --------------------------------

    def status_area(self):
        """The top bar right of the clock, where the status icons are."""
        return self.grab(STATUS_X, 0, SCREEN_W - STATUS_X, BAR_H)

    def below_bar(self):
        return self.grab(0, BAR_H, SCREEN_W, SCREEN_H - BAR_H)

    def leave_overview(self):
        """The shell starts in the overview: once it has settled, leave it,
        as a user would, for the plain desktop."""
        overview = stable(self.below_bar, 'the overview at startup', 20, step=4)
        xdotool('key', 'Escape')
        stable(self.below_bar, 'the desktop after leaving the overview', 20,
               differs_from=[overview], step=4)

    def wait_new_icon(self, empty, what):
        """The centre (x, y) of one icon that appeared in the status area
        since `empty` was grabbed."""
        def drawn():
            box = diff_box(empty, self.status_area())
            return box if box and box[2] - box[0] >= 8 and box[3] - box[1] >= 8 else None
        wait_for(drawn, 10, what)
        box = diff_box(empty, stable(self.status_area, what + ' settled'))
        log(what, 'drawn at', box, '(status area coordinates)')
        x0, y0, x1, y1 = box
        check(x1 - x0 <= 48 and y1 - y0 <= BAR_H, f'more than one new icon? {box}')
        return STATUS_X + (x0 + x1) // 2, (y0 + y1) // 2

    def open_menu(self, x, y, what, save_as, min_w=120, min_h=150):
        """Clicks at (x, y) in the top bar and waits for a menu of at least
        min_w x min_h below it; saves the screen.  Returns the screen below
        the bar before the click, the menu drawn, and its box there."""
        before = self.below_bar()
        xdotool('mousemove', x, y, 'click', '1')

        def drawn():
            b = diff_box(before, self.below_bar(), step=2)
            return b if b and b[3] - b[1] > min_h and b[2] - b[0] > min_w else None
        box = wait_for(drawn, 10, what)
        menu = stable(self.below_bar, what + ' drawn completely', step=2)
        self.grab(save_as=save_as)
        log(what, 'at', box, '(below the bar) saved', save_as)
        check(box[0] <= x <= box[2] + 4, f'{what} at {box} is not below x={x}')
        return before, menu, box

    def wait_closed(self, before, what='the menu closed'):
        xdotool('mousemove', 20, SCREEN_H - 20)
        wait_for(lambda: diff_box(before, self.below_bar(), step=2) is None, 5,
                 what)

    def stop(self):
        # Mutter 43 segfaults on SIGTERM in --x11 mode; its exit status
        # says nothing about the test.
        gt.end_process(self.proc)
        self.log.close()
        self.system_bus.stop()
        shutil.rmtree(self.shots, ignore_errors=True)
