"""Names people recognise, from a real laptop's udev tree (umockdev).

    test-names.py ideapad    Lenovo IdeaPad 5 with an Intel AX200
    test-names.py thinkpad   ThinkPad T480, its WWAN disabled in the BIOS

Radios are named by their hardware and interface; the laptop's own
switches (ideapad_wlan, tpacpi_bluetooth_sw) get a section of their own
and keep their underscores (no mnemonics).  The hardware-switch icon
shows only when a switch holds the radios airplane mode counts: not for
ideapad's false hard block on ideapad_wlan, not for a WWAN disabled in
the BIOS, yes for the slider that cuts every radio.
"""
import sys

import guitest as gt
from guitest import check, log, wait_for
import fakekernel
import fakeudev

SCENARIOS = {
    'ideapad': dict(
        fixture='ideapad-5-ax200',
        # rfkill0..3 as in the fixture (and `rfkill list` on the laptop).
        radios=['wlan=ideapad_wlan', 'bluetooth=ideapad_bluetooth',
                'wlan=phy0', 'bluetooth=hci0'],
        radio_labels=['Wi-Fi — Intel Wi-Fi 6 AX200 (wlp2s0)',
                      'Bluetooth — Intel AX200 Bluetooth (hci0)'],
        switch_labels=['Wi-Fi switch (laptop, ideapad_wlan)',
                       'Bluetooth switch (laptop, ideapad_bluetooth)'],
        # ideapad_laptop on models without a slider: a hard block on its
        # switch that the Wi-Fi card does not feel.
        stuck_switch='ideapad_wlan',
        # The Wi-Fi card's bus device and interface, for the rename.
        card='/devices/pci0000:00/0000:00:02.2/0000:02:00.0',
        interface='wlp2s0',
    ),
    'thinkpad': dict(
        fixture='thinkpad-t480',
        radios=['bluetooth=tpacpi_bluetooth_sw', 'wwan=tpacpi_wwan_sw',
                'wlan=phy0', 'bluetooth=hci0'],
        radio_labels=['Wi-Fi — Intel Wireless 8265 / 8275 (wlp3s0)',
                      'Bluetooth — Intel Bluetooth (hci0)'],
        switch_labels=['Bluetooth switch (laptop, tpacpi_bluetooth_sw)',
                       'Mobile broadband switch (laptop, tpacpi_wwan_sw)'],
        # No modem fitted, or disabled in the BIOS: hard-blocked for good.
        stuck_switch='tpacpi_wwan_sw',
        card='/devices/pci0000:00/0000:00:1c.6/0000:03:00.0',
        interface='wlp3s0',
    ),
}
SCENARIO = SCENARIOS[sys.argv[1] if len(sys.argv) > 1 else 'ideapad']


def netdev(card, name):
    """A wlan interface of the card's phy0, as umockdev-record writes it."""
    return (f'P: {card}/net/{name}\nE: SUBSYSTEM=net\nE: DEVTYPE=wlan\n'
            f'E: INTERFACE={name}\nA: phy80211/name=phy0\n')


def labels(entries):
    return [e.label for e in entries if not e.is_separator]


def test(logdir):
    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    watcher = gt.Watcher(bus)
    testbed = fakeudev.Testbed(SCENARIO['fixture'])
    fake = fakekernel.Fake(logdir, SCENARIO['radios'])
    notifications = gt.NotificationMock(bus, logdir)
    applet = gt.Applet(fake.socket, logdir, extra_env=testbed.env())
    try:
        item = watcher.wait_item(applet.unique_name(bus))
        radio_labels, switch_labels = SCENARIO['radio_labels'], SCENARIO['switch_labels']
        try:
            wait_for(lambda: all(label in labels(item.entries())
                                 for label in radio_labels + switch_labels),
                     10, f'the friendly names {radio_labels + switch_labels}')
        except gt.TestFailure as failure:
            raise gt.TestFailure(f'{failure}; menu: {labels(item.entries())}')
        top = labels(item.entries())
        log('menu:', top)
        # Radios under "Airplane mode", the switches in their own section.
        first = top.index(radio_labels[0])
        check(top[first:first + 2] == radio_labels, f'radios in order: {top}')
        header = top.index('Laptop switches')
        check(header > first + 1, f'switches after the radios: {top}')
        check(top[header + 1:header + 3] == switch_labels,
              f'the switches under their heading: {top}')
        check(not item.find('Laptop switches').enabled, 'the heading is no item')
        entries = item.entries()
        sep_before = entries[[e.label for e in entries].index('Laptop switches') - 1]
        check(sep_before.is_separator, 'a separator above the switch section')

        # The kernel's underscores are text, not mnemonics: dbusmenu
        # carries a literal "_" doubled (a single one is a mnemonic).
        for label in switch_labels:
            raw = item.find(label).props['label']
            check(raw == label.replace('_', '__'),
                  f'{label!r} travels as {raw!r}: underscores became mnemonics')

        # A switch item is a working item: it soft-blocks that switch only.
        stuck = SCENARIO['stuck_switch']
        switch_label = [s for s in switch_labels if stuck in s][0]
        other = [s for s in switch_labels if s != switch_label][0]
        other_name = other.split(', ')[1].rstrip(')')
        item.click(other)
        wait_for(lambda: fake.radio(other_name)['soft'], 5, f'{other_name} switched off')
        check(not any(r['soft'] for r in fake.state() if r['name'] != other_name),
              f'only {other_name} switched: {fake.state()}')
        wait_for(lambda: not item.find(other).checked, 5, 'its mark cleared')
        item.click(other)
        wait_for(lambda: not fake.radio(other_name)['soft'], 5, f'{other_name} back on')

        icon_on = wait_for(lambda: item.props()['IconName'], 5, 'an icon')
        check('hardware' not in icon_on, f'radios on: {icon_on}')

        # A hard block that holds nothing: the menu says it, the icon
        # stays (both follow the same sync).
        fake.set_hard(stuck, True)
        blocked = f'{switch_label} — blocked: hardware switch'
        wait_for(lambda: blocked in labels(item.entries()), 5, blocked)
        check(item.props()['IconName'] == icon_on,
              f'{stuck} alone must not show the hardware-switch icon: '
              f'{item.props()["IconName"]}')
        # Even counting only that switch's type, the radio itself is on
        # (or, for the WWAN, there is none to count: the switch decides).
        log('icon with', stuck, 'hard-blocked:', item.props()['IconName'])

        # The slider: every radio and switch hard-blocked.
        fake.set_hard_all(True)
        icon_hw = wait_for(lambda: 'hardware' in item.props()['IconName']
                           and item.props()['IconName'], 5, 'the hardware-switch icon')
        log('icon with the slider off:', icon_hw)
        # The notification names the radios as the menu does.
        body = wait_for(lambda: [n['body'] for n in notifications.notify_calls()
                                 if radio_labels[0] in n['body']],
                        5, f'a notification naming {radio_labels[0]!r}: '
                           f'{[n["body"] for n in notifications.notify_calls()]}')
        check(all(label in body[-1] for label in radio_labels),
              f'the slider\'s notification names every radio: {body[-1]!r}')
        fake.set_hard_all(False)
        wait_for(lambda: item.props()['IconName'] == icon_on, 5, 'the icon back')

        # The interface is renamed (as udev renames wlan0 to its
        # predictable name, here the other way round): the label follows
        # udev's event, with no rfkill event at all.
        card, old = SCENARIO['card'], SCENARIO['interface']
        testbed.remove(f'{card}/net/{old}')
        check(testbed.add(netdev(card, 'wlan0')), 'umockdev took the new interface')
        testbed.uevent(f'{card}/net/wlan0', 'move')
        renamed = radio_labels[0].replace(f'({old})', '(wlan0)')
        try:
            wait_for(lambda: renamed in labels(item.entries()), 5, renamed)
        except gt.TestFailure as f:
            raise gt.TestFailure(f'{f}: {labels(item.entries())}')
    finally:
        applet.stop()
        notifications.stop()
        fake.stop()
        loop.stop()


if __name__ == '__main__':
    fakeudev.preload_self()
    gt.run(test)
