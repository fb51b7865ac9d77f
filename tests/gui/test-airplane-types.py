"""The "Airplane mode turns off" submenu: which radio types airplane mode
switches, as the airplane-radio-types setting says.

Scenario: a phone user keeps Bluetooth on in flight.  One check item per
type present; unchecking Bluetooth writes the setting; airplane mode then
leaves Bluetooth alone; the last counted type cannot be unchecked; every
type checked again is the default "all".  Changed while airplane mode
holds, each radio still comes back as it was when airplane mode ends.
"""
import subprocess

import guitest as gt
from guitest import check, log, wait_for

SUBMENU = 'Airplane mode turns off'
ALL_BUT_BT = "['wlan', 'uwb', 'wimax', 'wwan', 'gps', 'fm', 'nfc']"


def gsettings(*args):
    return subprocess.run(['gsettings'] + list(args), capture_output=True,
                          text=True, check=True).stdout.strip()


def types_setting():
    return gsettings('get', gt.APP_ID, 'airplane-radio-types')


def type_items(item):
    """{label: MenuItem} of the submenu's visible items."""
    return {c.label: c for c in item.find(SUBMENU).children if c.visible}


def states(item):
    return {label: (c.checked, c.enabled) for label, c in type_items(item).items()}


def test(logdir):
    with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True) as s:
        bus, watcher, fake = s.bus, s.watcher, s.fake
        applet = s.start_applet()
        item = watcher.wait_item(applet.unique_name(bus))
        # Only the types present, each counted by default.
        wait_for(lambda: states(item) == {'Wi-Fi': (True, True),
                                          'Bluetooth': (True, True)},
                 5, 'Wi-Fi and Bluetooth checked')
        check(item.find(SUBMENU).children[0].toggle_type == 'checkmark',
              'check items')
        check(types_setting() == "['all']", types_setting())

        # Bluetooth stays on in flight.
        item.click(type_items(item)['Bluetooth'])
        wait_for(lambda: types_setting() == ALL_BUT_BT, 5,
                 f'the setting without Bluetooth ({types_setting()})')
        # Wi-Fi is the last counted type here: it cannot be unchecked.
        wait_for(lambda: states(item) == {'Wi-Fi': (True, False),
                                          'Bluetooth': (False, True)},
                 5, f'Bluetooth unchecked, Wi-Fi held: {states(item)}')
        item.click(type_items(item)['Wi-Fi'])  # an insensitive item: no effect
        check(types_setting() == ALL_BUT_BT, f'Wi-Fi stayed: {types_setting()}')

        item.click('Airplane mode')
        wait_for(lambda: fake.radio('phy0')['soft'] and item.find('Airplane mode').checked,
                 5, 'airplane mode on, Wi-Fi off')
        check(not fake.radio('hci0')['soft'], 'Bluetooth must stay on in flight')

        # Counted again during the flight: Bluetooth goes off too, the
        # setting is "all" again, and airplane mode still holds.
        item.click(type_items(item)['Bluetooth'])
        wait_for(lambda: types_setting() == "['all']", 5, 'the setting back to all')
        wait_for(lambda: fake.radio('hci0')['soft'], 5, 'Bluetooth now off too')
        check(item.find('Airplane mode').checked, 'airplane mode still on')
        # Not counted again mid-flight: nothing is switched on by it, and
        # the memory of how each radio was survives.
        item.click(type_items(item)['Bluetooth'])
        wait_for(lambda: types_setting() == ALL_BUT_BT, 5, 'Bluetooth not counted')
        check(fake.radio('hci0')['soft'] and fake.radio('phy0')['soft'],
              f'unchecking a type turns no radio on: {fake.state()}')
        item.click('Airplane mode')
        wait_for(lambda: not fake.radio('phy0')['soft'], 5, 'Wi-Fi back on')
        log('after the flight:', fake.state())

        # All types checked again; a flight with both counted, and
        # Bluetooth dropped from the count while it lasts.
        item.click(type_items(item)['Bluetooth'])
        wait_for(lambda: types_setting() == "['all']", 5, 'all again')
        fake.command(f'soft {fake.radio("hci0")["idx"]} off')
        wait_for(lambda: not item.find('Airplane mode').checked
                 and item.find('Bluetooth (hci0)').checked, 5, 'both radios on')
        item.click('Airplane mode')
        wait_for(lambda: all(r['soft'] for r in fake.state()), 5, 'both off in flight')
        item.click(type_items(item)['Bluetooth'])
        wait_for(lambda: types_setting() == ALL_BUT_BT, 5, 'Bluetooth not counted')
        check(all(r['soft'] for r in fake.state()), f'still off: {fake.state()}')
        item.click('Airplane mode')
        wait_for(lambda: not fake.radio('phy0')['soft'], 5, 'Wi-Fi back on')
        wait_for(lambda: not fake.radio('hci0')['soft'], 5,
                 'Bluetooth back on: it was on before the flight')

        # The setting changed elsewhere: the submenu follows.
        gsettings('set', gt.APP_ID, 'airplane-radio-types', "['bluetooth']")
        wait_for(lambda: states(item) == {'Wi-Fi': (False, True),
                                          'Bluetooth': (True, False)},
                 5, f'the submenu follows gsettings: {states(item)}')
        # A type that appears gets its item.
        fake.add('wwan', 'wwan0')
        wait_for(lambda: 'Mobile broadband' in type_items(item), 5, 'a WWAN item')
        check(not type_items(item)['Mobile broadband'].checked, 'WWAN not counted')


if __name__ == '__main__':
    gt.run(test)
