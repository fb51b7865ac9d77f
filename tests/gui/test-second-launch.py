"""A second launch (the menu's launcher, a double click) while the applet
runs: the second process exits at once and adds no icon, and the running
applet tells the user it is already running and where its icon is; a
third launch replaces that notification instead of stacking another.
With a tray there is no "no tray" notice; once the tray is gone, the
answer to a launch names the missing extension."""
import time

from gi.repository import Gio, GLib

import guitest as gt
from guitest import check, wait_for
import fakekernel

RUNNING = 'Airplane Mode is already running'
GRACE_S = 3  # RFK_APP_NOTICE_TRAY_GRACE_S in src/ui/rfk-app-notice.h


def notify_calls(bus):
    """Every Notify so far: (replaces_id, summary, body, actions)."""
    reply = bus.call_sync('org.freedesktop.Notifications',
                          '/org/freedesktop/Notifications',
                          'org.freedesktop.DBus.Mock', 'GetMethodCalls',
                          GLib.Variant('(s)', ('Notify',)), None,
                          Gio.DBusCallFlags.NONE, 5000, None)
    return [(a[1], a[3], a[4], a[5]) for _t, a in reply.unpack()[0]]


def launch(fake, logdir, name):
    second = gt.Applet(fake.socket, logdir, name=name)
    code = second.proc.wait(10 * gt.TIMEOUT_SCALE)
    output = second.output()
    second.stop()
    check(code == 0, f'{name} exited with {code}: {output}')


def test(logdir):
    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    watcher = gt.Watcher(bus)
    notifications = gt.NotificationMock(bus, logdir)
    fake = fakekernel.Fake(logdir, ['wlan', 'bluetooth'])
    applet = gt.Applet(fake.socket, logdir)
    try:
        watcher.wait_item(applet.unique_name(bus))
        # With a tray, no notice about a missing one.
        time.sleep((GRACE_S + 1) * gt.TIMEOUT_SCALE)
        check(notify_calls(bus) == [], f'notified with a tray: {notify_calls(bus)}')

        before = len(watcher.registrations())
        launch(fake, logdir, 'second')
        calls = wait_for(lambda: [c for c in notify_calls(bus) if c[1] == RUNNING],
                         5, 'the "already running" notification')
        check(len(calls) == 1, f'{calls}')
        rid, _summary, body, actions = calls[0]
        check(rid == 0 and 'tray' in body and actions == [],
              f'first answer: {calls[0]}')
        check(len(watcher.registrations()) == before,
              f'a second icon: {watcher.registrations()}')
        check(applet.proc.poll() is None, 'the first instance died')

        # Again: the same notification, replaced (the mock's first id is 1).
        launch(fake, logdir, 'third')
        calls = wait_for(lambda: [c for c in notify_calls(bus) if c[1] == RUNNING][1:],
                         5, 'the second answer')
        check(calls[0][0] == 1, f'stacked instead of replaced: {calls}')

        # The tray goes away: the answer names what is missing.
        bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                      'org.freedesktop.DBus', 'ReleaseName',
                      GLib.Variant('(s)', (gt.WATCHER_NAME,)), None,
                      Gio.DBusCallFlags.NONE, -1, None)
        time.sleep(0.3)
        launch(fake, logdir, 'fourth')
        calls = wait_for(lambda: [c for c in notify_calls(bus) if c[1] == RUNNING][2:],
                         5, 'the answer without a tray')
        check('gnome-shell-extension-appindicator' in calls[0][2]
              and 'quit' in calls[0][3], f'without a tray: {calls[0]}')
    finally:
        applet.stop()
        notifications.stop()
        fake.stop()
        loop.stop()


if __name__ == '__main__':
    gt.run(test)
