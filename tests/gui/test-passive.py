"""No radios at all (a desktop PC, a VM): the tray item is passive, so
panels hide it, like gsd's ShouldShowAirplaneMode.  It is active again
when a radio appears, and passive again when the last one goes.
A device that cannot be read (no permission) keeps the item active: the
menu says what is wrong.
"""
import guitest as gt
from guitest import check, wait_for


def status(item):
    return item.props()['Status']


def test(logdir):
    with gt.Session(logdir, [], watcher=True) as s:
        bus, watcher, fake = s.bus, s.watcher, s.fake
        applet = s.start_applet()
        item = watcher.wait_item(applet.unique_name(bus))
        wait_for(lambda: 'No radios' in [e.label for e in item.entries()], 5,
                 'the menu settled on "No radios"')
        check(status(item) == 'Passive', f'no radios: {status(item)}')
        desc = item.props().get('IconAccessibleDesc')
        check(desc == 'No radios', f'accessible description: {desc!r}')

        fake.add('wlan', 'phy0')
        wait_for(lambda: status(item) == 'Active', 5, 'active with a radio')
        check('Wi-Fi (phy0)' in [e.label for e in item.entries()], 'the radio listed')

        fake.remove('phy0')
        wait_for(lambda: status(item) == 'Passive', 5, 'passive again')

        # The device goes away (no /dev/rfkill): still nothing to switch.
        fake.add('bluetooth', 'hci0')
        wait_for(lambda: status(item) == 'Active', 5, 'active with hci0')
        fake.stop()
        wait_for(lambda: status(item) == 'Passive', 5, 'passive without a device')


if __name__ == '__main__':
    gt.run(test)
