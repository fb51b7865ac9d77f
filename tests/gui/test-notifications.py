"""Notifications: one per hardware switch flip and per airplane-key press,
none for our own changes; each transient, saying what did it.

Scenario: the notification daemon is python3-dbusmock's template.  The
user switches a radio and airplane mode from the menu (no notification);
then the hardware switch turns Wi-Fi and Bluetooth off at once (exactly
one notification naming both) and back on (exactly one more, replacing
the first).  With "Notifications" unchecked in the menu, a flip is
silent, and so is a radio blocked because another owner has it.  A flip
whose events come 80 ms apart is still one notification.
"""
import os
import time

import guitest as gt
from guitest import check, log, wait_for

QUIET_S = 1.0  # how long "no notification" is watched for


def test(logdir):
    with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True,
                    notifications=True) as s:
        fake, notifications = s.fake, s.notifications
        applet = s.start_applet()
        item = s.watcher.wait_item(applet.unique_name(s.bus))
        wait_for(lambda: item.find('Wi-Fi (phy0)').enabled, 10, 'radios ready')

        # Our own soft changes: no notification at all.
        item.click('Wi-Fi (phy0)')
        wait_for(lambda: fake.radio('phy0')['soft'], 5, 'phy0 blocked')
        item.click('Airplane mode')
        wait_for(lambda: fake.radio('hci0')['soft'], 5, 'airplane mode on')
        item.click('Airplane mode')
        wait_for(lambda: not fake.radio('hci0')['soft'], 5, 'airplane mode off')
        time.sleep(QUIET_S)
        check(notifications.notify_calls() == [],
              f'soft changes notified: {notifications.notify_calls()}')

        # The switch turns both radios off: one notification naming both.
        fake.set_hard_all(True)
        wait_for(lambda: notifications.notify_calls(), 5,
                 'a notification for the switch')
        time.sleep(QUIET_S)
        calls = notifications.notify_calls()
        check(len(calls) == 1, f'one flip, {len(calls)} notifications: {calls}')
        n = calls[0]
        log('first:', n['summary'], '|', n['body'].replace('\n', ' / '))
        check(n['summary'] == 'Hardware switch: radios off', f'summary: {n["summary"]}')
        check('Wi-Fi (phy0)' in n['body'] and 'Bluetooth (hci0)' in n['body'],
              f'body names both radios: {n["body"]!r}')
        check(n['hints'].get('category') == 'device', f'category: {n["hints"]}')
        check(n['hints'].get('desktop-entry') == gt.APP_ID, f'desktop-entry: {n["hints"]}')
        # Feedback, not a note to keep: the spec's "transient" hint.
        check(n['hints'].get('transient') is True, f'transient: {n["hints"]}')
        check(n['replaces_id'] == 0, f'the first one replaces nothing: {n}')
        # Our own icon, as a file (GLib sends no themed names to daemons).
        image = n['hints'].get('image-path', '')
        check(image.endswith('/' + gt.APP_ID + '-hardware-switch.svg')
              and os.path.isfile(image), f'icon: {n}')

        # Back on: one more, replacing the first (dbusmock ids start at 1).
        fake.set_hard_all(False)
        wait_for(lambda: len(notifications.notify_calls()) >= 2, 5,
                 'a notification for the switch going back')
        time.sleep(QUIET_S)
        calls = notifications.notify_calls()
        check(len(calls) == 2, f'two flips, {len(calls)} notifications: {calls}')
        n = calls[1]
        log('second:', n['summary'], '|', n['body'].replace('\n', ' / '),
            '| replaces', n['replaces_id'])
        check(n['summary'] == 'Hardware switch: radios on', f'summary: {n["summary"]}')
        check(n['replaces_id'] == 1, f'replaces_id: {n["replaces_id"]}')

        # Another owner taking the radio (NOT_OWNER) is no switch: silent.
        fake.set_hard('phy0', True, reasons='not-owner')
        wait_for(lambda: item.find('Wi-Fi (phy0) — blocked: not owner'),
                 5, 'phy0 blocked by its other owner')
        fake.set_hard('phy0', False)
        wait_for(lambda: item.find('Wi-Fi (phy0)').enabled, 5, 'phy0 released')
        time.sleep(QUIET_S)
        check(len(notifications.notify_calls()) == 2,
              f'notified for NOT_OWNER: {notifications.notify_calls()[2:]}')

        # The airplane key (the fake's rfkill-input toggling "all"): airplane
        # mode begins elsewhere, then ends elsewhere; each told once, each
        # replacing the last, and naming the key: it switches both radios.
        item.click('Wi-Fi (phy0)')
        wait_for(lambda: not fake.radio('phy0')['soft'], 5, 'phy0 on again')
        time.sleep(QUIET_S)
        for n_before, want, body in [
                (2, 'Airplane mode is on', 'Radios turned off by the airplane key or a program switching every radio.'),
                (3, 'Airplane mode is off', 'Radios turned on by the airplane key or a program switching every radio.')]:
            fake.command('key')
            wait_for(lambda: len(notifications.notify_calls()) > n_before, 5,
                     f'a notification for the key: {want!r}')
            time.sleep(QUIET_S)
            calls = notifications.notify_calls()
            check(len(calls) == n_before + 1,
                  f'one key press, {len(calls) - n_before} notifications: '
                  f'{calls[n_before:]}')
            n = calls[n_before]
            log('key:', n['summary'], '|', n['body'], '| replaces', n['replaces_id'])
            check(n['summary'] == want, f'summary: {n["summary"]}')
            check(n['body'].startswith(body), f'body says by what: {n["body"]!r}')
            check(n['hints'].get('transient') is True, f'transient: {n["hints"]}')
            check(n['replaces_id'] == 1, f'replaces_id: {n["replaces_id"]}')
        check(item.find('Airplane mode') and
              not item.find('Airplane mode').checked, 'airplane mode off again')

        # With Wi-Fi off already, the key has only Bluetooth to switch: as
        # `rfkill block 1` would, so the notification cannot name the key.
        item.click('Wi-Fi (phy0)')
        wait_for(lambda: fake.radio('phy0')['soft'], 5, 'phy0 off')
        time.sleep(QUIET_S)
        fake.command('key')
        wait_for(lambda: len(notifications.notify_calls()) > 4, 5, 'the key, one radio')
        n = notifications.notify_calls()[4]
        check(n['body'].startswith('Radios turned off by the airplane key or another program.'),
              f'one radio: {n["body"]!r}')
        fake.command('key')
        wait_for(lambda: len(notifications.notify_calls()) > 5, 5, 'the key again')
        wait_for(lambda: fake.radio('phy0')['soft'] and not fake.radio('hci0')['soft'], 5,
                 'Wi-Fi off again as it was, Bluetooth on')
        time.sleep(QUIET_S)
        check(len(notifications.notify_calls()) == 6,
              f'one each: {notifications.notify_calls()[4:]}')
        item.click('Wi-Fi (phy0)')
        wait_for(lambda: not fake.radio('phy0')['soft'], 5, 'phy0 on')

        # Notifications off (menu item bound to GSettings): silent flip.
        item.click('Notifications')
        wait_for(lambda: not item.find('Notifications').checked, 5,
                 'Notifications unchecked')
        fake.set_hard_all(True)
        wait_for(lambda: item.find('Bluetooth (hci0) — blocked: hardware switch'),
                 5, 'the flip reached the applet')
        time.sleep(QUIET_S)
        check(len(notifications.notify_calls()) == 6,
              f'notified although off: {notifications.notify_calls()}')
        fake.set_hard_all(False)
        wait_for(lambda: item.find('Wi-Fi (phy0)').enabled, 5, 'switch back')
        fake.command('key')
        wait_for(lambda: item.find('Airplane mode').checked, 5,
                 'the key turned airplane mode on')
        time.sleep(QUIET_S)
        check(len(notifications.notify_calls()) == 6,
              f'the key notified although off: {notifications.notify_calls()[6:]}')

        # One flip whose events come apart: drivers notice a switch at
        # different times, and a busy applet reads its events late.  80 ms
        # between them, 240 ms from the first to the last: still one
        # notification, naming all four, not a second one that replaces
        # the first with the late radios alone.
        item.click('Notifications')
        wait_for(lambda: item.find('Notifications').checked, 5, 'Notifications checked')
        for rtype, name in (('wwan', 'wwan0'), ('nfc', 'nfc0')):
            fake.add(rtype, name)
            wait_for(lambda: any(name in e.label for e in item.entries()), 5,
                     f'{name} in the menu')
        time.sleep(QUIET_S)
        n_before = len(notifications.notify_calls())
        for name in ('phy0', 'hci0', 'wwan0', 'nfc0'):
            fake.set_hard(name, True)
            time.sleep(0.08)
        wait_for(lambda: len(notifications.notify_calls()) > n_before, 5,
                 'a notification for the spread-out flip')
        time.sleep(QUIET_S)
        calls = notifications.notify_calls()[n_before:]
        log('spread-out flip:', [c['body'] for c in calls])
        check(len(calls) == 1 and all(name in calls[0]['body'] for name in
                                      ('phy0', 'hci0', 'wwan0', 'nfc0')),
              f'one notification naming all four: {[c["body"] for c in calls]}')

        # A switch that keeps flapping (16 flips, 100 ms apart) is told
        # within a second of its first flip, not only once it stops.
        n_before = len(notifications.notify_calls())
        for k in range(16):
            fake.set_hard('phy0', k % 2 == 1)
            time.sleep(0.1)
        during = notifications.notify_calls()[n_before:]
        check(len(during) >= 1, 'nothing told while the switch flapped for 1.6 s')


if __name__ == '__main__':
    gt.run(test)
