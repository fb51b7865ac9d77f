"""No StatusNotifierWatcher on the bus (GNOME Shell without the
AppIndicator extension): the icon cannot appear.  The applet says so once,
naming the Debian package gnome-shell-extension-appindicator, with
actions to quit and to stop starting at login; meanwhile it works quietly
(the D-Bus API, the CLI through it, the hardware-switch notification);
a watcher that appears later gets the icon and its menu."""
import glob
import json
import os
import subprocess
import sys
import time

from gi.repository import GLib

import guitest as gt
from guitest import check, wait_for, log
from rfkapi import Api

NOTICE = 'Airplane Mode runs without a tray icon'
# What GNOME's extension list calls Debian's gnome-shell-extension-
# appindicator (its metadata.json "name"), not upstream's name.
EXTENSION_NAME = 'Ubuntu AppIndicators'


def installed_extension_name():
    """The name the installed package gives the extension, or None."""
    for path in glob.glob('/usr/share/gnome-shell/extensions/'
                          '*appindicator*/metadata.json'):
        with open(path) as f:
            return json.load(f).get('name')
    return None
# An XEmbed tray (i3bar, stalonetray) is whoever owns the X selection
# _NET_SYSTEM_TRAY_S0; the applet's XEmbed icon shows there.
XEMBED_TRAY = r'''
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, Gdk
clipboard = Gtk.Clipboard.get(Gdk.Atom.intern("_NET_SYSTEM_TRAY_S0", False))
clipboard.set_text("tray", -1)
print("ready", flush=True)
Gtk.main()
'''


def notice_id(notifications):
    """The mock numbers new notifications 1, 2, ... in order."""
    new = [c for c in notifications.notify_calls() if c['replaces_id'] == 0]
    ids = [i + 1 for i, c in enumerate(new) if c['summary'] == NOTICE]
    check(len(ids) == 1, f'one notice: {notifications.notify_calls()}')
    return ids[0]


def wait_notice(notifications, started):
    calls = wait_for(lambda: notifications.calls_with(NOTICE),
                     gt.TRAY_GRACE_S + 10, 'the no-tray notice')
    elapsed = time.monotonic() - started
    check(elapsed >= gt.TRAY_GRACE_S - 0.5, f'notice after {elapsed:.1f} s, before '
          f'the grace period for a tray that starts with the session')
    body, actions = calls[0]['body'], calls[0]['actions']
    check('gnome-shell-extension-appindicator' in body, f'body: {body!r}')
    # Named as the user finds it in GNOME's extension list.
    check(f'“{EXTENSION_NAME}”' in body, f'body: {body!r}')
    installed = installed_extension_name()
    check(installed in (None, EXTENSION_NAME),
          f'the package now calls the extension {installed!r}')
    check('rfkill-applet --airplane' in body, f'body: {body!r}')
    # GNotification buttons: application actions, named "app.<action>".
    check(actions == ['app.notice-quit', 'Quit',
                      'app.notice-no-autostart', 'Do Not Start at Login'],
          f'actions: {actions}')
    return calls[0]


def test(logdir):
    with gt.Session(logdir, ['wlan', 'wlan', 'bluetooth'], notifications=True) as s:
        bus, fake = s.bus, s.fake
        started = time.monotonic()
        applet = s.start_applet()
        api = Api(bus)
        s.on_exit(api.close)
        unique = applet.unique_name(bus)
        wait_notice(s.notifications, started)

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
        wait_for(lambda: any('Hardware switch' in c['summary']
                             for c in s.notifications.notify_calls()),
                 5, 'the hardware-switch notification')
        fake.set_hard_all(False)
        # Once per run: nothing more about the tray.
        time.sleep(1)
        check(len(s.notifications.calls_with(NOTICE)) == 1,
              f'the notice repeated: {s.notifications.notify_calls()}')

        # A watcher that appears later gets the icon and its menu.
        watcher = gt.Watcher(bus)
        item = watcher.wait_item(unique)
        wait_for(lambda: item.find('Airplane mode').enabled, 5, 'the menu')
        log('menu once a watcher appeared:', item.dump())

        # "Quit" on the notice ends the applet.
        s.notifications.invoke_action(notice_id(s.notifications), 'app.notice-quit')
        code = applet.proc.wait(10 * gt.TIMEOUT_SCALE)
        check(code == 0, f'Quit action: exit status {code}')
        watcher.release()  # the next run must find no watcher

        # "Do Not Start at Login" writes the user's autostart override and
        # ends the applet.
        s.restart_notifications()
        started = time.monotonic()
        second = s.start_applet(name='applet-2')
        second.unique_name(bus)
        wait_notice(s.notifications, started)
        # It cannot write (the folder is a file): told, and still running.
        autostart = os.path.join(os.environ['XDG_CONFIG_HOME'], 'autostart')
        with open(autostart, 'w') as f:
            f.write('not a folder\n')
        s.notifications.invoke_action(notice_id(s.notifications),
                                      'app.notice-no-autostart')
        failed = wait_for(lambda: s.notifications.calls_with(
            'Cannot turn “Start at login” off'), 10, 'the failure told')[0]
        log('no-autostart failed:', failed['body'])
        check(failed['hints'].get('category') == 'device.error', f'{failed}')
        check(autostart in failed['body'], f'body: {failed}')
        time.sleep(0.5)
        check(second.proc.poll() is None, 'the applet quit without doing it')
        second.stop()
        os.unlink(autostart)

        # Done this time: the applet ends.  (A notice whose button was
        # pressed is gone: a new run shows a new one.)
        s.restart_notifications()
        started = time.monotonic()
        second = s.start_applet(name='applet-2b')
        second.unique_name(bus)
        wait_notice(s.notifications, started)
        s.notifications.invoke_action(notice_id(s.notifications),
                                      'app.notice-no-autostart')
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
            calls = len(s.notifications.notify_calls())
            third = gt.Applet(fake.socket, logdir, name='applet-3')
            try:
                third.unique_name(bus)
                time.sleep((gt.TRAY_GRACE_S + 2) * gt.TIMEOUT_SCALE)
                check(len(s.notifications.notify_calls()) == calls,
                      'noticed despite an XEmbed tray: '
                      f'{s.notifications.notify_calls()[calls:]}')
            finally:
                third.stop()
        finally:
            tray.terminate()
            tray.wait(5)


if __name__ == '__main__':
    gt.run(test)
