"""No StatusNotifierWatcher on the bus (GNOME Shell without the
AppIndicator extension): the icon cannot appear.  The applet says so once,
naming the Debian package gnome-shell-extension-appindicator, with
actions to quit and to stop starting at login; meanwhile it works quietly
(the D-Bus API, the CLI through it, the hardware-switch notification);
a watcher that appears later gets the icon and its menu."""
import os
import subprocess
import sys
import time

from gi.repository import Gio, GLib

import guitest as gt
from guitest import check, wait_for, log
import fakekernel
from rfkapi import Api

NOTICE = 'Airplane Mode runs without a tray icon'
# An XEmbed tray (i3bar, stalonetray) is whoever owns the X selection
# _NET_SYSTEM_TRAY_S0; libayatana's fallback icon shows there.
XEMBED_TRAY = r'''
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, Gdk
clipboard = Gtk.Clipboard.get(Gdk.Atom.intern("_NET_SYSTEM_TRAY_S0", False))
clipboard.set_text("tray", -1)
print("ready", flush=True)
Gtk.main()
'''
GRACE_S = 3  # RFK_APP_NOTICE_TRAY_GRACE_S in src/ui/rfk-app-notice.h


def notify_calls(bus):
    """Every Notify so far: (replaces_id, summary, body, actions)."""
    reply = bus.call_sync('org.freedesktop.Notifications',
                          '/org/freedesktop/Notifications',
                          'org.freedesktop.DBus.Mock', 'GetMethodCalls',
                          GLib.Variant('(s)', ('Notify',)), None,
                          Gio.DBusCallFlags.NONE, 5000, None)
    return [(a[1], a[3], a[4], a[5]) for _t, a in reply.unpack()[0]]


def invoke_action(bus, notification_id, action):
    """What the notification daemon sends when the user clicks an action."""
    bus.call_sync('org.freedesktop.Notifications', '/org/freedesktop/Notifications',
                  'org.freedesktop.DBus.Mock', 'EmitSignal',
                  GLib.Variant('(sssav)', ('org.freedesktop.Notifications',
                                           'ActionInvoked', 'us',
                                           [GLib.Variant('u', notification_id),
                                            GLib.Variant('s', action)])),
                  None, Gio.DBusCallFlags.NONE, 5000, None)


def notice_id(bus):
    """The mock numbers new notifications 1, 2, ... in order."""
    new = [c for c in notify_calls(bus) if c[0] == 0]
    ids = [i + 1 for i, c in enumerate(new) if c[1] == NOTICE]
    check(len(ids) == 1, f'one notice: {notify_calls(bus)}')
    return ids[0]


def wait_notice(bus, started):
    calls = wait_for(lambda: [c for c in notify_calls(bus) if c[1] == NOTICE],
                     GRACE_S + 10, 'the no-tray notice')
    elapsed = time.monotonic() - started
    check(elapsed >= GRACE_S - 0.5, f'notice after {elapsed:.1f} s, before the '
          f'grace period for a tray that starts with the session')
    _rid, _summary, body, actions = calls[0]
    check('gnome-shell-extension-appindicator' in body, f'body: {body!r}')
    check('rfkill-applet --airplane' in body, f'body: {body!r}')
    check(actions == ['quit', 'Quit', 'no-autostart', 'Do Not Start at Login'],
          f'actions: {actions}')
    return calls[0]


def test(logdir):
    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    notifications = gt.NotificationMock(bus, logdir)
    fake = fakekernel.Fake(logdir, ['wlan', 'wlan', 'bluetooth'])
    started = time.monotonic()
    applet = gt.Applet(fake.socket, logdir)
    api = Api(bus)
    second = None
    try:
        unique = applet.unique_name(bus)
        wait_notice(bus, started)

        # Quiet operation: the API and the CLI work without any icon.
        api.call('SetRadioBlocked', GLib.Variant('(ub)', (fake.radio('phy1')['idx'], True)))
        api.call('SetAirplaneMode', GLib.Variant('(b)', (True,)))
        check(all(r['soft'] for r in fake.state()), f'airplane on: {fake.state()}')
        r = subprocess.run([gt.program('RFK_APPLET'), '--device', fake.socket,
                            '--airplane', 'off'], capture_output=True, text=True,
                           timeout=30)
        check(r.returncode == 0, f'--airplane off: {r}')
        check(not fake.radio('phy0')['soft'] and fake.radio('phy1')['soft'],
              f'restored as before: {fake.state()}')
        # It still tells about switches.
        fake.set_hard_all(True)
        wait_for(lambda: any('Hardware switch' in c[1] for c in notify_calls(bus)),
                 5, 'the hardware-switch notification')
        fake.set_hard_all(False)
        # Once per run: nothing more about the tray.
        time.sleep(1)
        check(len([c for c in notify_calls(bus) if c[1] == NOTICE]) == 1,
              f'the notice repeated: {notify_calls(bus)}')

        # A watcher that appears later gets the icon and its menu.
        watcher = gt.Watcher(bus)
        item = watcher.wait_item(unique)
        wait_for(lambda: item.find('Airplane mode').enabled, 5, 'the menu')
        log('menu once a watcher appeared:', item.dump())

        # "Quit" on the notice ends the applet.
        invoke_action(bus, notice_id(bus), 'quit')
        code = applet.proc.wait(10 * gt.TIMEOUT_SCALE)
        check(code == 0, f'Quit action: exit status {code}')
        watcher_gone = watcher  # the next run must find no watcher
        bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                      'org.freedesktop.DBus', 'ReleaseName',
                      GLib.Variant('(s)', (gt.WATCHER_NAME,)), None,
                      Gio.DBusCallFlags.NONE, -1, None)
        bus.unregister_object(watcher_gone.reg_id)

        # "Do Not Start at Login" writes the user's autostart override and
        # ends the applet.
        notifications.stop()
        notifications = gt.NotificationMock(bus, logdir)
        started = time.monotonic()
        second = gt.Applet(fake.socket, logdir, name='applet-2')
        second.unique_name(bus)
        wait_notice(bus, started)
        invoke_action(bus, notice_id(bus), 'no-autostart')
        code = second.proc.wait(10 * gt.TIMEOUT_SCALE)
        check(code == 0, f'no-autostart action: exit status {code}')
        override = os.path.join(os.environ['XDG_CONFIG_HOME'], 'autostart',
                                gt.APP_ID + '.desktop')
        with open(override) as f:
            check('Hidden=true' in f.read(), 'the override does not hide the entry')

        # An XEmbed tray instead of a watcher: the fallback icon shows, so
        # no notice.
        tray = subprocess.Popen([sys.executable, '-c', XEMBED_TRAY],
                                stdout=subprocess.PIPE, text=True)
        try:
            check(tray.stdout.readline().strip() == 'ready', 'XEmbed tray stand-in')
            calls = len(notify_calls(bus))
            third = gt.Applet(fake.socket, logdir, name='applet-3')
            try:
                third.unique_name(bus)
                time.sleep((GRACE_S + 2) * gt.TIMEOUT_SCALE)
                check(len(notify_calls(bus)) == calls,
                      f'noticed despite an XEmbed tray: {notify_calls(bus)[calls:]}')
            finally:
                third.stop()
        finally:
            tray.terminate()
            tray.wait(5)
    finally:
        api.close()
        applet.stop()
        if second:
            second.stop()
        notifications.stop()
        fake.stop()
        loop.stop()


if __name__ == '__main__':
    gt.run(test)
