"""Helpers for the GUI tests: real components only.

Runs inside the private session made by run-in-session.py.  Gives:
  - Watcher: an org.kde.StatusNotifierWatcher + host that records who
    registered (sender + object path), like a real panel does;
  - Item: the applet's StatusNotifierItem and its com.canonical.dbusmenu;
  - NotificationMock: python3-dbusmock's notification_daemon template;
  - Fake: the fake kernel (tests/fake/fake-rfkill) serving /dev/rfkill's
    protocol on a socket, with its control channel;
  - Applet: rfkill-applet started with --device on that socket;
  - Session: the usual company of a test (bus, main loop, watcher,
    notification daemon, fake kernel, applets), stopped at the end.
"""
import contextlib
import os
import re
import shlex
import subprocess
import sys
import threading
import time

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

WATCHER_NAME = 'org.kde.StatusNotifierWatcher'
WATCHER_PATH = '/StatusNotifierWatcher'
SNI_IFACE = 'org.kde.StatusNotifierItem'
MENU_IFACE = 'com.canonical.dbusmenu'
APP_ID = 'io.github.rfkill_applet.RfkillApplet'
# How long the applet waits for a tray before it says there is none:
# RFK_APP_NOTICE_TRAY_GRACE_S in src/ui/rfk-app-notice.h.
TRAY_GRACE_S = 3

WATCHER_XML = '''
<node>
  <interface name="org.kde.StatusNotifierWatcher">
    <method name="RegisterStatusNotifierItem">
      <arg name="service" type="s" direction="in"/>
    </method>
    <method name="RegisterStatusNotifierHost">
      <arg name="service" type="s" direction="in"/>
    </method>
    <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
    <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
    <property name="ProtocolVersion" type="i" access="read"/>
    <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
    <signal name="StatusNotifierItemUnregistered"><arg type="s"/></signal>
    <signal name="StatusNotifierHostRegistered"/>
  </interface>
</node>
'''


# org.freedesktop.Notifications as the Desktop Notifications
# Specification defines it, for stand-in daemons (serve_notifications).
NOTIFICATIONS_XML = '''
<node>
  <interface name="org.freedesktop.Notifications">
    <method name="Notify">
      <arg type="s" direction="in"/><arg type="u" direction="in"/>
      <arg type="s" direction="in"/><arg type="s" direction="in"/>
      <arg type="s" direction="in"/><arg type="as" direction="in"/>
      <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/>
      <arg type="u" direction="out"/>
    </method>
    <method name="GetCapabilities"><arg type="as" direction="out"/></method>
    <method name="GetServerInformation">
      <arg type="s" direction="out"/><arg type="s" direction="out"/>
      <arg type="s" direction="out"/><arg type="s" direction="out"/>
    </method>
    <method name="CloseNotification"><arg type="u" direction="in"/></method>
  </interface>
</node>
'''


class TestFailure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def log(*args):
    print('#', *args, flush=True)


# Under valgrind (RFK_APPLET_WRAPPER) the applet runs many times slower;
# every wait grows by this factor.
TIMEOUT_SCALE = float(os.environ.get('RFK_TEST_TIMEOUT_SCALE', '1'))


def wait_for(predicate, timeout=10.0, what='condition'):
    """Polls predicate() until it returns a true value; returns that value."""
    timeout *= TIMEOUT_SCALE
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except (GLib.Error, TestFailure) as error:  # e.g. not exported yet
            last_error = error
        time.sleep(0.02)
    raise TestFailure(f'timed out after {timeout:.0f} s waiting for {what}'
                      + (f' (last error: {last_error})' if last_error else ''))


def session_bus():
    return Gio.bus_get_sync(Gio.BusType.SESSION, None)


def own_name(bus, name):
    """Owns name on bus now (DO_NOT_QUEUE), or fails the test."""
    reply = bus.call_sync(
        'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
        'RequestName', GLib.Variant('(su)', (name, 4)),  # DO_NOT_QUEUE
        GLib.VariantType('(u)'), Gio.DBusCallFlags.NONE, -1, None)
    check(reply.unpack()[0] == 1, f'cannot own {name}: {reply.unpack()[0]}')


def serve_notifications(bus, on_call):
    """A stand-in notification daemon: org.freedesktop.Notifications
    exported with on_call as its method handler, and the name owned."""
    info = Gio.DBusNodeInfo.new_for_xml(NOTIFICATIONS_XML).interfaces[0]
    bus.register_object('/org/freedesktop/Notifications', info, on_call, None, None)
    own_name(bus, 'org.freedesktop.Notifications')


def end_process(proc, timeout=5):
    """SIGTERM, and SIGKILL if proc has not exited timeout seconds later;
    returns its exit status."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


class MainLoopThread:
    """Dispatches our exported D-Bus objects while the test thread blocks."""

    def __init__(self):
        self.loop = GLib.MainLoop()
        self.thread = threading.Thread(target=self.loop.run, daemon=True)
        self.thread.start()

    def stop(self):
        self.loop.quit()
        self.thread.join(2)


class Watcher:
    """A StatusNotifierWatcher and host that records every registration."""

    def __init__(self, bus):
        self.bus = bus
        self.lock = threading.Lock()
        self.items = []          # [(sender, object path)] in order
        info = Gio.DBusNodeInfo.new_for_xml(WATCHER_XML).interfaces[0]
        self.reg_id = bus.register_object(WATCHER_PATH, info,
                                          self._on_call, self._on_get, None)
        own_name(bus, WATCHER_NAME)
        own_name(bus, f'org.kde.StatusNotifierHost-{os.getpid()}')

    def _on_call(self, conn, sender, path, iface, method, params, invocation):
        if method == 'RegisterStatusNotifierItem':
            service = params.unpack()[0]
            # Our item passes its object path; others pass a bus name.
            if service.startswith('/'):
                entry = (sender, service)
            else:
                entry = (service, '/StatusNotifierItem')
            with self.lock:
                self.items.append(entry)
            conn.emit_signal(None, WATCHER_PATH, WATCHER_NAME,
                             'StatusNotifierItemRegistered',
                             GLib.Variant('(s)', (entry[0] + entry[1],)))
            invocation.return_value(None)
        elif method == 'RegisterStatusNotifierHost':
            invocation.return_value(None)
        else:
            invocation.return_dbus_error('org.freedesktop.DBus.Error.UnknownMethod',
                                         method)

    def _on_get(self, conn, sender, path, iface, prop):
        if prop == 'RegisteredStatusNotifierItems':
            with self.lock:
                return GLib.Variant('as', [s + p for s, p in self.items])
        if prop == 'IsStatusNotifierHostRegistered':
            return GLib.Variant('b', True)
        if prop == 'ProtocolVersion':
            return GLib.Variant('i', 0)
        return None

    def release(self):
        """The tray goes away, as when its panel quits: the watcher's name
        is released and its object gone."""
        self.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                           'org.freedesktop.DBus', 'ReleaseName',
                           GLib.Variant('(s)', (WATCHER_NAME,)), None,
                           Gio.DBusCallFlags.NONE, -1, None)
        self.bus.unregister_object(self.reg_id)

    def registrations(self):
        with self.lock:
            return list(self.items)

    def wait_item(self, sender, timeout=10):
        """The item registered by the process owning the unique name sender."""
        found = wait_for(lambda: [i for i in self.registrations() if i[0] == sender],
                         timeout, f'a StatusNotifierItem from {sender}')
        return Item(self.bus, *found[-1])


def unescape_label(label):
    """dbusmenu keeps GTK mnemonics: "_Quit" and "wlan__0" (literal _)."""
    out, i = [], 0
    while i < len(label):
        if label[i] == '_':
            if i + 1 < len(label) and label[i + 1] == '_':
                out.append('_')
                i += 2
                continue
            i += 1
            continue
        out.append(label[i])
        i += 1
    return ''.join(out)


class MenuItem:
    def __init__(self, ident, props, children):
        self.id = ident
        self.props = props
        self.children = children

    @property
    def label(self):
        return unescape_label(self.props.get('label', ''))

    @property
    def enabled(self):
        return self.props.get('enabled', True)

    @property
    def visible(self):
        return self.props.get('visible', True)

    @property
    def checked(self):
        return self.props.get('toggle-state', 0) == 1

    @property
    def toggle_type(self):
        return self.props.get('toggle-type', '')

    @property
    def is_separator(self):
        return self.props.get('type', '') == 'separator'

    def __repr__(self):
        flags = []
        if self.toggle_type:
            flags.append('[x]' if self.checked else '[ ]')
        if not self.enabled:
            flags.append('(insensitive)')
        if not self.visible:
            flags.append('(hidden)')
        return f'<{self.id} {self.label!r} {" ".join(flags)}>'


class Item:
    """The applet's StatusNotifierItem and its dbusmenu."""

    def __init__(self, bus, name, path):
        self.bus, self.name, self.path = bus, name, path

    def props(self):
        reply = self.bus.call_sync(
            self.name, self.path, 'org.freedesktop.DBus.Properties', 'GetAll',
            GLib.Variant('(s)', (SNI_IFACE,)), GLib.VariantType('(a{sv})'),
            Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]

    def secondary_activate(self):
        self.bus.call_sync(self.name, self.path, SNI_IFACE, 'SecondaryActivate',
                           GLib.Variant('(ii)', (0, 0)), None,
                           Gio.DBusCallFlags.NONE, 5000, None)

    def click_icon(self, method):
        """A host's click on the icon: Activate (left), ContextMenu (right)."""
        self.bus.call_sync(self.name, self.path, SNI_IFACE, method,
                           GLib.Variant('(ii)', (0, 0)), None,
                           Gio.DBusCallFlags.NONE, 5000, None)

    def menu_path(self):
        return self.props()['Menu']

    def layout(self):
        reply = self.bus.call_sync(
            self.name, self.menu_path(), MENU_IFACE, 'GetLayout',
            GLib.Variant('(iias)', (0, -1, [])), None,
            Gio.DBusCallFlags.NONE, 5000, None)
        _revision, root = reply.unpack()

        def build(node):
            ident, props, children = node
            return MenuItem(ident, props, [build(c) for c in children])
        return build(root)

    def entries(self):
        """Top-level menu items, visible ones only, separators included."""
        return [c for c in self.layout().children if c.visible]

    def find(self, label, root=None, visible_only=False):
        stack = [root or self.layout()]
        while stack:
            node = stack.pop()
            if visible_only and not node.visible:
                continue
            if node.label == label:
                return node
            stack.extend(node.children)
        raise TestFailure(f'no menu item {label!r}; menu: {self.dump()}')

    def click(self, item):
        """Clicks an item as a user does: one the host shows."""
        ident = (item.id if isinstance(item, MenuItem)
                 else self.find(item, visible_only=True).id)
        self.bus.call_sync(
            self.name, self.menu_path(), MENU_IFACE, 'Event',
            GLib.Variant('(isvu)', (ident, 'clicked', GLib.Variant('s', ''),
                                    int(time.time()) & 0xffffffff)),
            None, Gio.DBusCallFlags.NONE, 5000, None)

    def revision(self):
        reply = self.bus.call_sync(
            self.name, self.menu_path(), MENU_IFACE, 'GetLayout',
            GLib.Variant('(iias)', (0, 0, [])), None,
            Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]

    def count_signals(self):
        """Counts dbusmenu signals from the item from now on: {name: n}."""
        counts = {}

        def on_signal(conn, sender, path, iface, signal, params):
            counts[signal] = counts.get(signal, 0) + 1
        self.bus.signal_subscribe(self.name, MENU_IFACE, None, self.menu_path(),
                                  None, Gio.DBusSignalFlags.NONE, on_signal)
        return counts

    def dump(self):
        return [c for c in self.layout().children]


class NotificationMock:
    """python3-dbusmock's notification daemon on the session bus."""

    def __init__(self, bus, logdir):
        self.bus = bus
        self.log = open(os.path.join(logdir, 'notification-daemon.log'), 'w')
        self.proc = subprocess.Popen(
            ['/usr/bin/python3', '-m', 'dbusmock', '--session', '--template',
             'notification_daemon'], stdout=self.log, stderr=subprocess.STDOUT)
        wait_for(lambda: self._has_owner(), 10, 'the notification daemon')

    def _has_owner(self):
        reply = self.bus.call_sync(
            'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'NameHasOwner', GLib.Variant('(s)', ('org.freedesktop.Notifications',)),
            GLib.VariantType('(b)'), Gio.DBusCallFlags.NONE, -1, None)
        return reply.unpack()[0]

    def notify_calls(self):
        """[dict] of every Notify call so far, oldest first."""
        reply = self.bus.call_sync(
            'org.freedesktop.Notifications', '/org/freedesktop/Notifications',
            'org.freedesktop.DBus.Mock', 'GetMethodCalls',
            GLib.Variant('(s)', ('Notify',)), None, Gio.DBusCallFlags.NONE, 5000, None)
        calls = []
        for _timestamp, args in reply.unpack()[0]:
            app_name, replaces_id, icon, summary, body, actions, hints, timeout = args
            calls.append(dict(app_name=app_name, replaces_id=replaces_id, icon=icon,
                              summary=summary, body=body, actions=actions,
                              hints=hints))
        return calls

    def calls_with(self, summary):
        """The Notify calls so far with this summary, oldest first."""
        return [c for c in self.notify_calls() if c['summary'] == summary]

    def invoke_action(self, notification_id, action):
        """What the daemon sends when the user clicks an action."""
        self.bus.call_sync(
            'org.freedesktop.Notifications', '/org/freedesktop/Notifications',
            'org.freedesktop.DBus.Mock', 'EmitSignal',
            GLib.Variant('(sssav)', ('org.freedesktop.Notifications',
                                     'ActionInvoked', 'us',
                                     [GLib.Variant('u', notification_id),
                                      GLib.Variant('s', action)])),
            None, Gio.DBusCallFlags.NONE, 5000, None)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(5)
        self.log.close()


def program(variable):
    """Built programs come from meson through the environment."""
    path = os.environ.get(variable)
    check(path and os.access(path, os.X_OK), f'{variable} does not name a program')
    return path


def program_file(variable):
    """A built data file that meson names in the environment."""
    path = os.environ.get(variable)
    check(path and os.path.isfile(path), f'{variable} does not name a file')
    return path


class Applet:
    """rfkill-applet on the fake kernel, with its own unique bus name.

    RFK_APPLET_WRAPPER (e.g. "valgrind --leak-check=full ...") goes in
    front of the command; "%n" in it becomes the applet's name here, for
    a log file per instance.
    """

    def __init__(self, device, logdir, name='applet', extra_env=None, prefix=()):
        env = dict(os.environ)
        env.update(extra_env or {})
        self.log_path = os.path.join(logdir, f'{name}.log')
        self.log = open(self.log_path, 'w')
        wrapper = os.environ.get('RFK_APPLET_WRAPPER', '')
        wrapper = [w.replace('%n', os.path.join(logdir, name)) for w in shlex.split(wrapper)]
        self.proc = subprocess.Popen(
            list(prefix) + wrapper + [program('RFK_APPLET'), '--device', device],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def unique_name(self, bus, timeout=10):
        """The bus name of our process (found through its pid)."""
        def lookup():
            check(self.proc.poll() is None,
                  f'the applet exited with {self.proc.returncode}: {self.output()}')
            names = bus.call_sync(
                'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                'ListNames', None, GLib.VariantType('(as)'),
                Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
            for name in names:
                if not name.startswith(':'):
                    continue
                try:
                    pid = bus.call_sync(
                        'org.freedesktop.DBus', '/org/freedesktop/DBus',
                        'org.freedesktop.DBus', 'GetConnectionUnixProcessID',
                        GLib.Variant('(s)', (name,)), GLib.VariantType('(u)'),
                        Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
                except GLib.Error:
                    continue
                if pid == self.proc.pid:
                    return name
            return None
        return wait_for(lookup, timeout, 'the applet on the bus')

    def output(self):
        self.log.flush()
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        """SIGTERM, as a session logout does; returns the exit status."""
        # valgrind checks for leaks on the way out: give it time.
        code = end_process(self.proc, 5 * TIMEOUT_SCALE)
        self.log.close()
        APPLET_EXITS.append(code)
        return code


class Session:
    """What a test starts with, stopped in reverse order when the with
    block ends: the session bus with a thread dispatching our exported
    objects and, as asked, a StatusNotifierWatcher, python3-dbusmock's
    notification daemon and the fake kernel with the given radios.

        with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True,
                        notifications=True) as s:
            applet = s.start_applet()
            item = s.watcher.wait_item(applet.unique_name(s.bus))
    """

    def __init__(self, logdir, radios=None, watcher=False, notifications=False):
        import fakekernel  # it imports this module
        self.logdir = logdir
        self._stack = contextlib.ExitStack()
        self.bus = session_bus()
        self.loop = MainLoopThread()
        self.on_exit(self.loop.stop)
        try:
            self.watcher = Watcher(self.bus) if watcher else None
            self.notifications = None
            if notifications:
                self.notifications = NotificationMock(self.bus, logdir)
                self.on_exit(lambda: self.notifications.stop())
            self.fake = None
            if radios is not None:
                self.fake = fakekernel.Fake(logdir, radios)
                self.on_exit(self.fake.stop)
        except BaseException:
            self._stack.close()
            raise

    def on_exit(self, stop):
        """stop() runs when the session ends, before what came earlier."""
        self._stack.callback(stop)

    def start_applet(self, **kwargs):
        """The applet on the fake kernel (Applet's arguments), stopped
        with the session."""
        applet = Applet(self.fake.socket, self.logdir, **kwargs)
        self.on_exit(applet.stop)
        return applet

    def restart_notifications(self):
        """A fresh notification daemon: no calls recorded, ids from 1."""
        self.notifications.stop()
        self.notifications = NotificationMock(self.bus, self.logdir)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._stack.close()
        return False


DEFINITELY_LOST = re.compile(r'^==\d+== (\S+) bytes in (\S+) blocks are definitely lost')
ERROR_SUMMARY = re.compile(r'^==\d+== ERROR SUMMARY: (\d+) errors', re.M)
# Where valgrind's first error report starts (not a leak).
FIRST_ERROR = re.compile(r'^==\d+== (Invalid|Conditional|Use of|Syscall param|'
                         r'Mismatched|Source and destination|Argument)', re.M)
# valgrind's --error-exitcode in tests/gui/meson.build: an applet that
# exits with it had a memory error or a definite leak.
VALGRIND_ERROR_EXIT = 97
# Exit statuses of the applets this test ran (Applet.stop), for run().
APPLET_EXITS = []


def check_valgrind_logs(logdir):
    """Every valgrind log of this test is complete (the leak check ran)
    and says "ERROR SUMMARY: 0 errors": no invalid access, no use of an
    uninitialised value and no definitely-lost block (definite leaks count
    as errors through --errors-for-leak-kinds) after the suppressions; and
    no applet exited with valgrind's error code."""
    logs = [n for n in sorted(os.listdir(logdir)) if n.endswith('.valgrind')]
    if 'valgrind' not in os.environ.get('RFK_APPLET_WRAPPER', ''):
        return
    check(logs, 'the applet ran under valgrind but left no log')
    for name in logs:
        with open(os.path.join(logdir, name)) as f:
            text = f.read()
        if 'LEAK SUMMARY' not in text and 'All heap blocks were freed' not in text:
            # A second instance that exited at once still summarises.
            raise TestFailure(f'{name}: valgrind did not finish its leak check')
        lost = [m.group(0) for m in map(DEFINITELY_LOST.match, text.splitlines()) if m]
        if lost:
            records = text[text.index('definitely lost in loss record') - 200:]
            raise TestFailure(f'{name}: {len(lost)} definitely-lost records: {lost}\n'
                              + records[:6000])
        summaries = ERROR_SUMMARY.findall(text)
        check(summaries, f'{name}: valgrind wrote no ERROR SUMMARY')
        if summaries[-1] != '0':
            # The first error report is where to start reading.
            first = FIRST_ERROR.search(text)
            start = first.start() if first else 0
            raise TestFailure(f'{name}: ERROR SUMMARY: {summaries[-1]} errors\n'
                              + text[start:start + 6000])
        log(f'{name}: ERROR SUMMARY: 0 errors')
    errors = [code for code in APPLET_EXITS if code == VALGRIND_ERROR_EXIT]
    check(not errors, f'an applet exited with valgrind\'s error code {VALGRIND_ERROR_EXIT}')


# GLib's report of a broken precondition in the applet ("(rfkill-applet:
# 123): GLib-GIO-CRITICAL **: ..."): a bug however the test went on.
APPLET_CRITICAL = re.compile(r'^\(rfkill-applet:\d+\): [\w-]*-?CRITICAL \*\*.*$', re.M)


def check_applet_criticals(logdir):
    """No applet of this test logged a CRITICAL."""
    found = []
    for name in sorted(os.listdir(logdir)):
        if name.endswith('.log'):
            with open(os.path.join(logdir, name), errors='replace') as f:
                found += [f'{name}: {m}' for m in APPLET_CRITICAL.findall(f.read())]
    check(not found, 'the applet logged CRITICALs:\n' + '\n'.join(found[:10]))


def run(test):
    """Runs test(ctx) with a fresh logdir; prints a TAP-ish verdict."""
    logdir = os.environ.get('RFK_TEST_LOGDIR') or os.path.join(
        os.environ['HOME'], 'logs')
    os.makedirs(logdir, exist_ok=True)
    try:
        test(logdir)
        check_valgrind_logs(logdir)
        check_applet_criticals(logdir)
    except TestFailure as failure:
        print(f'FAIL: {failure}', flush=True)
        for name in sorted(os.listdir(logdir)):
            if name.endswith('.log'):
                with open(os.path.join(logdir, name)) as f:
                    text = f.read()
                if text:
                    print(f'--- {name} ---\n{text[-4000:]}')
        for name in sorted(os.listdir(logdir)):
            if name.endswith('.valgrind'):
                with open(os.path.join(logdir, name)) as f:
                    text = f.read()
                first = FIRST_ERROR.search(text)
                if first:
                    print(f'--- {name} (first error) ---\n'
                          f'{text[first.start():first.start() + 3000]}')
                print(f'--- {name} (end) ---\n{text[-3000:]}')
        sys.exit(1)
    print('PASS', flush=True)
