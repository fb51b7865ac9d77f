"""A click that fails says so: one notification, replaced by the next.

Scenario: Wi-Fi and Bluetooth on the fake kernel, python3-dbusmock's
notification daemon.  The user turns airplane mode on, the wireless
switch goes off, and "Airplane mode" is clicked to end it: the radios
stay off, and a notification "Cannot turn airplane mode off" says a
hardware switch blocks them; Wi-Fi, held by the switch, is greyed out
with the reason.  Two quick clicks on
Wi-Fi (the second undoes the first) are no failure.  Wi-Fi's driver then
refuses soft blocks: a click gives one notification, "Cannot turn Wi-Fi
(phy0) off", that replaces the first; and so on for "Start at login"
with its folder not writable and for a light rule on a kernel without
the light's ops.  Failures are told with "Notifications" unchecked too
(that setting is about switches), logged as messages, not warnings, and
never stack.
"""
import os
import time

import fakekernel
import guitest as gt
from guitest import check, log, wait_for

QUIET_S = 1.0  # how long "no more notifications" is watched for
# The manager waits this long for a radio to carry out a change
# (RFK_CONFIRM_MS in src/core); a refusal is said after it.
REFUSAL_S = 5


def failures(notifications):
    return [c for c in notifications.notify_calls()
            if c['hints'].get('category') == 'device.error']


def wait_failures(notifications, count, what):
    return wait_for(lambda: len(failures(notifications)) >= count and
                    failures(notifications), REFUSAL_S + 5, what)


def radios_and_switches(s):
    fake, notifications = s.fake, s.notifications
    applet = s.start_applet()
    item = s.watcher.wait_item(applet.unique_name(s.bus))
    wait_for(lambda: item.find('Wi-Fi (phy0)').enabled, 10, 'radios ready')

    # Failures are no switch flips: told with Notifications off.
    item.click('Notifications')
    wait_for(lambda: not item.find('Notifications').checked, 5,
             'Notifications unchecked')

    # Airplane mode on, then the wireless switch holds every radio.
    item.click('Airplane mode')
    wait_for(lambda: all(r['soft'] for r in fake.state()), 5,
             'airplane mode on')
    fake.set_hard_all(True)
    wait_for(lambda: item.find('Wi-Fi (phy0) — blocked: hardware switch'),
             5, 'the switch in the menu')
    check(failures(notifications) == [],
          f'a failure before any failed: {failures(notifications)}')

    # Ending airplane mode cannot turn them on.
    item.click('Airplane mode')
    first = wait_failures(notifications, 1, 'a failure notification')[0]
    log('switch:', first['summary'], '|', first['body'])
    check(first['summary'] == 'Cannot turn airplane mode off',
          f'summary names the action: {first}')
    check('hardware switch' in first['body'],
          f'body says why: {first["body"]!r}')
    check(first['replaces_id'] == 0, f'the first replaces nothing: {first}')
    check(first['hints'].get('desktop-entry') == gt.APP_ID, f'{first}')
    first_id = len(notifications.notify_calls())  # dbusmock counts from 1

    # A radio the switch holds is greyed out with the reason: no click.
    held = item.find('Wi-Fi (phy0) — blocked: hardware switch')
    check(not held.enabled, f'a radio a switch holds is insensitive: {held}')

    fake.set_hard_all(False)
    wait_for(lambda: item.find('Wi-Fi (phy0)'), 5, 'switch back on')
    wait_for(lambda: not fake.radio('phy0')['soft'], 5, 'phy0 on')

    # Two quick clicks: the second undoes the first, which it supersedes
    # (or follows): no failure either way.
    item.click('Wi-Fi (phy0)')
    item.click('Wi-Fi (phy0)')
    time.sleep(QUIET_S)
    wait_for(lambda: not fake.radio('phy0')['soft'], 5, 'phy0 on again')
    check(len(failures(notifications)) == 1,
          f'a superseded click is no failure: {failures(notifications)}')

    # Wi-Fi's driver refuses: told after the manager's timeout, naming
    # the radio and what was asked, replacing the last failure.
    fake.command(f'refuse {fake.radio("phy0")["idx"]} on')
    item.click('Wi-Fi (phy0)')
    calls = wait_failures(notifications, 2, 'the refusal told')
    time.sleep(QUIET_S)
    calls = failures(notifications)
    check(len(calls) == 2, f'one refusal, one notification: {calls}')
    refused = calls[1]
    log('refusal:', refused['summary'], '|', refused['body'])
    check(refused['summary'] == 'Cannot turn Wi-Fi (phy0) off',
          f'summary names the radio and the action: {refused}')
    check(refused['body'] == 'phy0 (Wi-Fi) did not turn off',
          f'body: {refused["body"]!r}')
    check(refused['replaces_id'] == first_id,
          f'replaces the last failure ({first_id}): {refused}')
    fake.command(f'refuse {fake.radio("phy0")["idx"]} off')

    # "Start at login" cannot write its override: the folder is a file.
    autostart = os.path.join(os.environ['XDG_CONFIG_HOME'], 'autostart')
    with open(autostart, 'w') as f:
        f.write('not a folder\n')
    item.click('Start at login')
    calls = wait_failures(notifications, 3, 'the autostart failure')
    log('autostart:', calls[2]['summary'], '|', calls[2]['body'])
    check(calls[2]['summary'] == 'Cannot turn “Start at login” off',
          f'summary: {calls[2]}')
    check(autostart in calls[2]['body'], f'body names the folder: {calls[2]}')
    check(calls[2]['replaces_id'] == first_id, f'replaces: {calls[2]}')
    wait_for(lambda: item.find('Start at login').checked, 5,
             'the check mark shows the truth again')

    out = applet.output()
    check('Message' in out and 'Cannot turn airplane mode off' in out,
          f'failures are logged as messages: {out}')
    check('WARNING' not in out, f'failures are no warnings: {out}')
    check(len(failures(notifications)) == 3,
          f'each failure told once: {failures(notifications)}')
    applet.stop()
    fake.stop()


def light_on_stock_kernel(s, logdir):
    s.restart_notifications()
    # Not phy0: refused-radios.ini remembers its refusal.
    fake = fakekernel.Fake(logdir, ['bluetooth'], stock=True)
    s.on_exit(fake.stop)
    applet = gt.Applet(fake.socket, logdir, name='applet-stock')
    s.on_exit(applet.stop)
    item = s.watcher.wait_item(applet.unique_name(s.bus))
    wait_for(lambda: item.find('Bluetooth (hci0)').enabled, 10, 'radio ready')
    item.click('Follow airplane mode')
    calls = wait_failures(s.notifications, 1, 'the light rule failure')
    log('light:', calls[0]['summary'], '|', calls[0]['body'])
    check(calls[0]['summary'] ==
          'Cannot set the airplane-mode light to “Follow airplane mode”',
          f'summary: {calls[0]}')
    check(calls[0]['body'] == 'Not supported by this kernel',
          f'body: {calls[0]}')
    time.sleep(QUIET_S)
    check(len(failures(s.notifications)) == 1,
          f'told once: {failures(s.notifications)}')


def test(logdir):
    with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True,
                    notifications=True) as s:
        radios_and_switches(s)
        light_on_stock_kernel(s, logdir)


if __name__ == '__main__':
    gt.run(test)
