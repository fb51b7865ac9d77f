"""The resume guard: a radio the user had off stays off after suspend.

Scenario: a private system bus with python3-dbusmock's logind, which
sends PrepareForSleep as logind does around a suspend.  The user turns
Bluetooth off from the menu; the system sleeps and wakes; "another
program" (the fake kernel's control socket, as a driver or BlueZ would)
turns it on.  The applet switches it off again and says so once, with a
"Keep It On" button; the same program turning it on again gets one
retry, then the guard gives up and says that.  A re-enumerated adapter
(a new index, the same name) is kept off too.  The button turns the radio
on for good.  A radio the user had on is never touched, nor is anything
after the setting is unchecked in the menu.
"""
import os
import subprocess
import time

import guitest as gt
from guitest import check, log, wait_for
from gi.repository import Gio, GLib

QUIET_S = 1.0
LOGIND = 'org.freedesktop.login1'
KEPT = 'Radio kept off after resume'
LEFT_ON = 'Radio left on after resume'


class Logind:
    """python3-dbusmock's logind template on a private system bus."""

    def __init__(self, logdir):
        self.daemon = subprocess.Popen(
            ['dbus-daemon', '--session', '--nofork', '--print-address'],
            stdout=subprocess.PIPE, text=True)
        self.address = self.daemon.stdout.readline().strip()
        self.log = open(os.path.join(logdir, 'logind.log'), 'w')
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.address)
        self.mock = subprocess.Popen(
            ['/usr/bin/python3', '-m', 'dbusmock', '--system', '--template',
             'logind'], stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.bus = Gio.DBusConnection.new_for_address_sync(
            self.address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
            | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        wait_for(self._has_owner, 10, 'the mock logind')

    def _has_owner(self):
        return self.bus.call_sync(
            'org.freedesktop.DBus', '/org/freedesktop/DBus',
            'org.freedesktop.DBus', 'NameHasOwner',
            GLib.Variant('(s)', (LOGIND,)), GLib.VariantType('(b)'),
            Gio.DBusCallFlags.NONE, -1, None).unpack()[0]

    def prepare_for_sleep(self, sleeping):
        self.bus.call_sync(
            LOGIND, '/org/freedesktop/login1', 'org.freedesktop.DBus.Mock',
            'EmitSignal',
            GLib.Variant('(sssav)', (LOGIND + '.Manager', 'PrepareForSleep',
                                     'b', [GLib.Variant('b', sleeping)])),
            None, Gio.DBusCallFlags.NONE, 5000, None)

    def suspend_and_resume(self):
        self.prepare_for_sleep(True)
        self.prepare_for_sleep(False)

    def stop(self):
        for proc in (self.mock, self.daemon):
            proc.terminate()
            proc.wait(5)
        self.log.close()


def other_program_turns_on(fake, name):
    """A driver, BlueZ or a sleep script: not the applet."""
    fake.command(f'soft {fake.radio(name)["idx"]} off')


def test(logdir):
    with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True,
                    notifications=True) as s:
        fake, notifications = s.fake, s.notifications
        logind = Logind(logdir)
        s.on_exit(logind.stop)
        applet = s.start_applet(
            extra_env={'DBUS_SYSTEM_BUS_ADDRESS': logind.address})
        item = s.watcher.wait_item(applet.unique_name(s.bus))
        wait_for(lambda: item.find('Bluetooth (hci0)').enabled, 10,
                 'radios ready')
        check(item.find('Keep radios off after suspend').checked,
              'the setting is on by default, and in the menu')

        # The user turns Bluetooth off; Wi-Fi stays on.
        item.click('Bluetooth (hci0)')
        wait_for(lambda: fake.radio('hci0')['soft'], 5, 'hci0 off')

        # Without a sleep, another program's change stands.
        other_program_turns_on(fake, 'hci0')
        time.sleep(QUIET_S)
        check(not fake.radio('hci0')['soft'], 'no sleep: left on')
        item.click('Bluetooth (hci0)')
        wait_for(lambda: fake.radio('hci0')['soft'], 5, 'hci0 off again')

        # Suspend and resume; BlueZ turns it on: off again, told once.
        logind.suspend_and_resume()
        time.sleep(0.3)  # the signals reach the applet
        other_program_turns_on(fake, 'hci0')
        wait_for(lambda: notifications.calls_with(KEPT), 5,
                 'the kept-off notification')
        wait_for(lambda: fake.radio('hci0')['soft'], 5, 'hci0 kept off')
        n = notifications.calls_with(KEPT)[0]
        log('kept:', n['summary'], '|', n['body'], '|', n['actions'])
        check('Bluetooth (hci0)' in n['body'], f'names the radio: {n["body"]!r}')
        check(len(n['actions']) == 2 and n['actions'][1] == 'Keep It On'
              and n['actions'][0].startswith('app.keep-radio-on'),
              f'a "Keep It On" button: {n["actions"]}')
        check(not fake.radio('phy0')['soft'], 'Wi-Fi, which was on, untouched')

        # The same program again: one retry, silent; then it gives up.
        other_program_turns_on(fake, 'hci0')
        wait_for(lambda: fake.radio('hci0')['soft'], 5, 'hci0 off (retry)')
        time.sleep(QUIET_S)
        check(len(notifications.calls_with(KEPT)) == 1,
              f'told once: {notifications.notify_calls()}')
        other_program_turns_on(fake, 'hci0')
        wait_for(lambda: notifications.calls_with(LEFT_ON), 5,
                 'the gave-up notification')
        time.sleep(QUIET_S)
        check(not fake.radio('hci0')['soft'], 'left on after the retry')
        log('gave up:', notifications.calls_with(LEFT_ON)[0]['body'])

        # A USB adapter re-enumerates at resume: a new index, in the
        # type's global state (on), the same name.  Kept off.
        item.click('Bluetooth (hci0)')
        wait_for(lambda: fake.radio('hci0')['soft'], 5, 'hci0 off')
        logind.suspend_and_resume()
        time.sleep(0.3)
        old = fake.radio('hci0')['idx']
        fake.remove('hci0')
        new = fake.add('bluetooth', 'hci0')
        check(new != old, f'a new index: {old} -> {new}')
        wait_for(lambda: fake.radio('hci0')['soft'], 5,
                 'the re-enumerated adapter kept off')

        # The button: the user wants it on, and it stays on.
        calls = notifications.notify_calls()
        last = [c for c in calls if c['summary'] == KEPT][-1]
        notification_id = last['replaces_id'] or 1
        notifications.invoke_action(notification_id, last['actions'][0])
        wait_for(lambda: not fake.radio('hci0')['soft'], 5,
                 '"Keep It On" turned it on')
        other_program_turns_on(fake, 'hci0')  # changes nothing: on
        time.sleep(QUIET_S)
        check(not fake.radio('hci0')['soft'], 'stays on after the button')

        # Setting off (menu item): nothing is kept off.
        item.click('Bluetooth (hci0)')
        wait_for(lambda: fake.radio('hci0')['soft'], 5, 'hci0 off')
        item.click('Keep radios off after suspend')
        wait_for(lambda: not item.find('Keep radios off after suspend').checked,
                 5, 'the setting unchecked')
        n_before = len(notifications.notify_calls())
        logind.suspend_and_resume()
        time.sleep(0.3)
        other_program_turns_on(fake, 'hci0')
        time.sleep(QUIET_S)
        check(not fake.radio('hci0')['soft'], 'setting off: left on')
        check(len(notifications.notify_calls()) == n_before,
              f'setting off: silent: {notifications.notify_calls()[n_before:]}')


if __name__ == '__main__':
    gt.run(test)
