"""Exceptions in airplane mode (src/RULES.md, "Exceptions"): Bluetooth for
the headphones on the plane, through the doors a user uses.

The real applet on the fake kernel (Wi-Fi phy0, Bluetooth hci0), the
menu clicked through dbusmenu, our D-Bus API:
  1. airplane mode from the menu: both radios off;
  2. Bluetooth on from the menu: it goes on, Wi-Fi stays off, airplane
     mode holds (the menu's item, AirplaneMode), and the menu shows
     "Bluetooth (hci0) stays on in airplane mode", checked; Radios says
     "airplane-exception" for hci0 only;
  3. airplane mode off: Wi-Fi back on, Bluetooth untouched;
  4. Bluetooth off, airplane mode on: Bluetooth is left off ("stays off
     in airplane mode"), Wi-Fi goes off;
  5. the applet restarted: the exception is still there (it is on disk,
     0600);
  6. Bluetooth on again in airplane mode: airplane mode holds;
  7. a click on the exception's item: the exception is gone, Bluetooth
     goes off with the others (airplane mode holds), and airplane mode
     off brings both back on;
  8. RemoveAirplaneException: a radio that is none changes nothing; an
     unknown index is NoSuchRadio;
  9. the last radio airplane mode has (Wi-Fi an exception already,
     Bluetooth turned on) ends airplane mode and makes no exception.
"""
import os
import stat

import guitest as gt
import rfkapi
from guitest import check, log, wait_for
from gi.repository import GLib

V = GLib.Variant
WIFI, BT = 'Wi-Fi (phy0)', 'Bluetooth (hci0)'


def exceptions(api):
    return sorted(r['name'] for r in api.get('Radios') if r['airplane-exception'])


def exception_items(item):
    return {e.label: e.checked for e in item.layout().children
            if e.visible and e.label.endswith(' in airplane mode')}


def soft(fake):
    return {r['name']: r['soft'] for r in fake.state()}


def start(s):
    return rfkapi.start_applet(s, BT)


def airplane_shown(item, api, on):
    return item.find('Airplane mode').checked == on and api.get('AirplaneMode') == on


def test(logdir):
    with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True) as s:
        fake = s.fake
        applet, item, api = start(s)
        hci0 = fake.radio('hci0')['idx']

        # 1.
        item.click('Airplane mode')
        wait_for(lambda: soft(fake) == {'phy0': True, 'hci0': True}
                 and airplane_shown(item, api, True), 5, 'airplane mode, both off')
        check(exception_items(item) == {}, f'no exception yet: {exception_items(item)}')

        # 2.
        item.click(BT)
        wait_for(lambda: soft(fake) == {'phy0': True, 'hci0': False}, 5,
                 f'Bluetooth on, Wi-Fi off: {soft(fake)}')
        wait_for(lambda: exception_items(item) == {
            'Bluetooth (hci0) stays on in airplane mode': True}, 5,
            f'the exception in the menu: {exception_items(item)}')
        check(airplane_shown(item, api, True),
              'airplane mode holds with Bluetooth on (menu and AirplaneMode)')
        check(exceptions(api) == ['hci0'], f'Radios: {exceptions(api)}')
        check(api.get('BluetoothAirplaneMode') is False,
              'BluetoothAirplaneMode is false: a Bluetooth radio is on')

        # 3.
        item.click('Airplane mode')
        wait_for(lambda: soft(fake) == {'phy0': False, 'hci0': False}
                 and airplane_shown(item, api, False), 5,
                 f'airplane mode off: both on ({soft(fake)})')
        check(exceptions(api) == ['hci0'], 'the exception outlives airplane mode')

        # 4.
        item.click(BT)
        wait_for(lambda: soft(fake)['hci0'], 5, 'Bluetooth off')
        item.click('Airplane mode')
        wait_for(lambda: soft(fake) == {'phy0': True, 'hci0': True}
                 and airplane_shown(item, api, True), 5, 'airplane mode, Wi-Fi off')
        wait_for(lambda: exception_items(item) == {
            'Bluetooth (hci0) stays off in airplane mode': True}, 5,
            f'the item says "stays off": {exception_items(item)}')

        # 5.
        applet.stop()
        path = os.path.join(os.environ['XDG_STATE_HOME'], 'rfkill-applet',
                            'airplane-exceptions.ini')
        mode = stat.S_IMODE(os.stat(path).st_mode)
        check(mode == 0o600, f'{path} is {oct(mode)}')
        applet, item, api = start(s)
        wait_for(lambda: exceptions(api) == ['hci0'], 5,
                 f'the exception after a restart: {exceptions(api)}')
        check(airplane_shown(item, api, True), 'airplane mode after the restart')

        # 6.
        item.click(BT)
        wait_for(lambda: soft(fake) == {'phy0': True, 'hci0': False}, 5,
                 'Bluetooth on again, Wi-Fi off')
        wait_for(lambda: exception_items(item) == {
            'Bluetooth (hci0) stays on in airplane mode': True}, 5,
            f'the item says "stays on" again: {exception_items(item)}')
        check(airplane_shown(item, api, True), 'airplane mode holds')

        # 7.
        item.click('Bluetooth (hci0) stays on in airplane mode')
        wait_for(lambda: exception_items(item) == {} and exceptions(api) == [], 5,
                 f'the exception removed: {exception_items(item)}, {exceptions(api)}')
        wait_for(lambda: soft(fake) == {'phy0': True, 'hci0': True}, 5,
                 f'Bluetooth off with the others: {soft(fake)}')
        check(airplane_shown(item, api, True), 'airplane mode holds')
        item.click('Airplane mode')
        wait_for(lambda: soft(fake) == {'phy0': False, 'hci0': False}
                 and airplane_shown(item, api, False), 5,
                 f'airplane mode off: both on, Bluetooth as it was ({soft(fake)})')

        # 8.
        writes = fake.writes()
        api.call('RemoveAirplaneException', V('(u)', (hci0,)))
        msg = api.expect_error(rfkapi.APP_ID + '.Error.NoSuchRadio', api.call,
                               'RemoveAirplaneException', V('(u)', (4242,)))
        check('4242' in msg, msg)
        check(fake.writes() == writes, 'nothing written')

        # 9.
        item.click('Airplane mode')
        wait_for(lambda: soft(fake) == {'phy0': True, 'hci0': True}, 5, 'airplane mode')
        item.click(WIFI)
        wait_for(lambda: exceptions(api) == ['phy0'], 5, 'Wi-Fi an exception')
        item.click(BT)
        wait_for(lambda: soft(fake) == {'phy0': False, 'hci0': False}
                 and airplane_shown(item, api, False), 5,
                 f'the last radio on ends airplane mode ({soft(fake)})')
        check(exceptions(api) == ['phy0'], f'no exception for Bluetooth: {exceptions(api)}')


if __name__ == '__main__':
    gt.run(test)
