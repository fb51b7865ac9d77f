#!/usr/bin/python3
"""The installed rfkill-applet in a session with a tray.

A StatusNotifierWatcher stand-in (what a panel's tray provides) takes the
applet's item.  Checks, with the fake kernel's radios:
  - the item registers and is Active;
  - its icon is one of the applet's own, installed under its IconThemePath
    in hicolor (which every icon theme inherits);
  - `rfkill-applet --airplane on` blocks the
    radios and turns the icon to the airplane-mode one; off restores both;
  - SIGTERM ends the applet with status 0.

Usage: applet-session.py SOCKET FAKE-RFKILL CONTROL-SOCKET
"""
import os
import signal
import subprocess
import sys
import time

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

APP_ID = 'io.github.rfkill_applet.RfkillApplet'
WATCHER = 'org.kde.StatusNotifierWatcher'
ITEM = 'org.kde.StatusNotifierItem'
WATCHER_XML = f'''<node><interface name="{WATCHER}">
  <method name="RegisterStatusNotifierItem"><arg type="s" direction="in"/></method>
  <method name="RegisterStatusNotifierHost"><arg type="s" direction="in"/></method>
  <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
  <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
  <property name="ProtocolVersion" type="i" access="read"/>
  <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
  <signal name="StatusNotifierHostRegistered"/>
</interface></node>'''


def fail(message):
    print(f'applet-session: FAIL: {message}', file=sys.stderr)
    sys.exit(1)


class Watcher:
    """Keeps every item that registers, as (bus name, object path)."""

    def __init__(self, bus):
        self.bus, self.items = bus, []
        info = Gio.DBusNodeInfo.new_for_xml(WATCHER_XML).interfaces[0]
        bus.register_object('/StatusNotifierWatcher', info, self._call,
                            self._get, None)
        reply = bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                              'org.freedesktop.DBus', 'RequestName',
                              GLib.Variant('(su)', (WATCHER, 4)), None,
                              Gio.DBusCallFlags.NONE, -1, None)
        if reply.unpack()[0] != 1:
            fail(f'cannot own {WATCHER}')

    def _call(self, conn, sender, path, iface, method, params, invocation):
        if method == 'RegisterStatusNotifierItem':
            arg = params.unpack()[0]
            # An object path (libayatana) or a bus name (the spec's form).
            item = (sender, arg) if arg.startswith('/') else (arg, '/StatusNotifierItem')
            self.items.append(item)
        invocation.return_value(None)

    def _get(self, conn, sender, path, iface, prop):
        return {
            'RegisteredStatusNotifierItems': GLib.Variant('as', [n + p for n, p in self.items]),
            'IsStatusNotifierHostRegistered': GLib.Variant('b', True),
            'ProtocolVersion': GLib.Variant('i', 0),
        }[prop]


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    context = GLib.MainContext.default()
    while time.monotonic() < deadline:
        while context.iteration(False):
            pass
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    fail(f'timed out after {timeout} s waiting for {what}')


def main():
    sock, fake, control = sys.argv[1:4]
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    watcher = Watcher(bus)
    applet = subprocess.Popen(['rfkill-applet', '--device', sock])

    def props():
        reply = bus.call_sync(name, path, 'org.freedesktop.DBus.Properties', 'GetAll',
                              GLib.Variant('(s)', (ITEM,)), None,
                              Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]

    def radios():
        out = subprocess.run([fake, '--ctl', control, 'list'], check=True,
                             capture_output=True, text=True).stdout
        return [tuple(line.split()[3:5]) for line in out.splitlines()]

    def registered():
        if applet.poll() is not None:
            fail(f'the applet exited with status {applet.returncode}')
        return watcher.items and watcher.items[0]

    name, path = wait_for(registered, 30, 'the applet\'s item')
    print('item registered:', name, path)
    wait_for(lambda: props().get('IconName') == APP_ID + '-radios-on', 10,
             'the radios-on icon')
    p = props()
    print('item:', {k: p[k] for k in ('Id', 'Status', 'IconName', 'IconThemePath', 'Title')})
    if p['Status'] != 'Active':
        fail(f'status {p["Status"]} with radios')
    icon = os.path.join(p['IconThemePath'], 'hicolor', 'scalable', 'status',
                        p['IconName'] + '.svg')
    if not os.path.isfile(icon):
        fail(f'the published icon is not installed: {icon}')

    subprocess.run(['rfkill-applet', '--device', sock, '--airplane', 'on'], check=True)
    wait_for(lambda: props().get('IconName') == APP_ID + '-airplane-mode', 10,
             'the airplane-mode icon')
    if radios() != [('1', '0')] * 2:
        fail(f'airplane mode on, radios {radios()}')
    icon = os.path.join(p['IconThemePath'], 'hicolor', 'scalable', 'status',
                        props()['IconName'] + '.svg')
    if not os.path.isfile(icon):
        fail(f'the airplane-mode icon is not installed: {icon}')

    subprocess.run(['rfkill-applet', '--device', sock, '--airplane', 'off'], check=True)
    wait_for(lambda: props().get('IconName') == APP_ID + '-radios-on', 10,
             'the radios-on icon back')
    if radios() != [('0', '0')] * 2:
        fail(f'airplane mode off, radios {radios()}')

    applet.send_signal(signal.SIGTERM)
    code = applet.wait(15)
    if code != 0:
        fail(f'exit status {code} on SIGTERM')
    print('applet-session: ok')


if __name__ == '__main__':
    try:
        main()
    finally:
        subprocess.run(['pkill', '-TERM', '-x', '-P', str(os.getpid()), 'rfkill-applet'],
                       check=False)
