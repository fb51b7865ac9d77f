"""Airplane mode shared with gnome-settings-daemon: agree, never undo.

On GNOME, gsd's rfkill plugin also implements airplane mode: the Quick
Settings toggle sets its AirplaneMode property, and gsd writes one
RFKILL_OP_CHANGE_ALL with type RFKILL_TYPE_ALL (gsd 43, plugins/rfkill).
Here the real /usr/libexec/gsd-rfkill runs on the fake kernel through
rfkill-preload.so, next to the applet, on the same session bus, with a
gnome-session stand-in that says the session is active (so gsd takes the
rfkill-input inhibitor, NOINPUT, as it does in a real session).

Scenarios, each followed by 2 s in which nothing may change (no write to
the fake from either side, no state flipping back):
  1. gsd turns airplane mode on: our menu shows it on, and our list
     remembers every radio as on, so that leaving restores them;
  2. we turn it off from our menu: gsd's AirplaneMode reads false;
  3. we turn it on: gsd's AirplaneMode reads true;
  4. gsd turns it off: every radio is on and stays on (we re-block
     nothing: nothing was off before);
  5. Wi-Fi phy1 off by hand, then gsd on and gsd off again: phy1 goes off
     again, once (each radio back as it was), and gsd still says
     airplane mode is off.
"""
import os
import sys
import time

from gi.repository import GLib

import guitest as gt
from guitest import check, log, wait_for
import fakekernel
import gnomeshell
from gsdrfkill import Gsd, SessionManager, OP_CHANGE_ALL, TYPE_ALL

# With "module", the fake behaves like the rfkill-airplane module (op-5
# indicator events to every reader); by default like a stock kernel.
STOCK = 'module' not in sys.argv[1:]


def radio_items(item):
    return {e.label: e.checked for e in item.entries()
            if e.toggle_type == 'checkmark' and '(' in e.label}


def our_airplane(item):
    return item.find('Airplane mode').checked


def soft_states(fake):
    return {r['name']: r['soft'] for r in fake.state()}


def remembered():
    """Our airplane-mode list: (active, {radio key: soft before})."""
    path = os.path.join(os.environ['XDG_STATE_HOME'], 'rfkill-applet',
                        'airplane-mode.ini')
    if not os.path.exists(path):
        return (False, {})
    keyfile = GLib.KeyFile()
    keyfile.load_from_file(path, GLib.KeyFileFlags.NONE)
    active = keyfile.get_boolean('airplane-mode', 'active')
    radios = {}
    if keyfile.has_group('radios'):
        keys, _length = keyfile.get_keys('radios')
        radios = {k: keyfile.get_string('radios', k) for k in keys}
    return (active, radios)


def steady(what, fake, gsd, item, softs, airplane, seconds=2.0):
    """For `seconds`: the fake keeps `softs`, gsd's AirplaneMode and our
    menu's item both say `airplane`, and nobody writes to the fake."""
    writes = fake.writes()
    gsd_writes = len(gsd.writes())
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        now = soft_states(fake)
        check(now == softs, f'{what}: radios flipped back to {now} (want {softs})')
        check(gsd.get('AirplaneMode') == airplane,
              f'{what}: gsd AirplaneMode flipped to {not airplane}')
        check(our_airplane(item) == airplane,
              f'{what}: our menu flipped to airplane mode {not airplane}')
        time.sleep(0.1)
    check(fake.writes() == writes,
          f'{what}: {fake.writes() - writes} writes to the kernel while idle '
          f'(gsd wrote {gsd.writes()[gsd_writes:]})')
    log(f'{what}: steady for {seconds} s, radios {softs}, airplane mode {airplane}')


def test(logdir):
    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    watcher = gt.Watcher(bus)
    system_bus = gnomeshell.SystemBus(logdir)
    session = SessionManager(bus, logdir)
    fake = fakekernel.Fake(logdir, ['wlan', 'wlan', 'bluetooth'], stock=STOCK)
    applet = gt.Applet(fake.socket, logdir)
    gsd = None
    try:
        item = watcher.wait_item(applet.unique_name(bus))
        all_on = {'phy0': False, 'phy1': False, 'hci0': False}
        all_off = {'phy0': True, 'phy1': True, 'hci0': True}
        wait_for(lambda: radio_items(item) == {'Wi-Fi (phy0)': True, 'Wi-Fi (phy1)': True,
                                               'Bluetooth (hci0)': True},
                 10, 'our menu with every radio on')

        gsd = Gsd(bus, fake, logdir)
        wait_for(lambda: gsd.get('HasAirplaneMode'), 10,
                 'gsd-rfkill on the fake kernel (HasAirplaneMode true)')
        check(gsd.get('AirplaneMode') is False, 'gsd says airplane mode is on at start')
        check(gsd.get('BluetoothHasAirplaneMode'), 'gsd sees no Bluetooth radio')
        # In an active session gsd keeps rfkill-input off, as the kernel
        # key would otherwise toggle radios behind its back.
        wait_for(lambda: any(line.endswith('NOINPUT') for line in gsd.trace_lines()),
                 5, f'gsd\'s NOINPUT ioctl (trace: {gsd.trace_lines()})')
        check(gsd.writes() == [], f'gsd wrote at startup: {gsd.writes()}')
        log('gsd-rfkill up:', gsd.trace_lines())

        # 1. gsd on: our menu agrees; our list remembers every radio as on.
        gsd.set_airplane(True)
        wait_for(lambda: soft_states(fake) == all_off, 5, 'gsd blocking every radio')
        check(gsd.writes() == [(TYPE_ALL, OP_CHANGE_ALL, 1)],
              f'gsd wrote {gsd.writes()}, not one CHANGE_ALL of type ALL')
        wait_for(lambda: our_airplane(item), 5, 'our menu showing airplane mode on')
        check(not any(radio_items(item).values()),
              f'radios still checked in our menu: {radio_items(item)}')
        active, radios = wait_for(lambda: remembered()[1] and remembered(), 5,
                                  'our list of radios to restore')
        log('our list after gsd turned airplane mode on:', active, radios)
        check(len(radios) == 3 and set(radios.values()) == {'unblocked'},
              f'our list does not say every radio was on: {radios}')
        steady('1. gsd on', fake, gsd, item, all_off, True)

        # 2. Our menu off: every radio back on; gsd agrees.
        item.click('Airplane mode')
        wait_for(lambda: soft_states(fake) == all_on, 5, 'our airplane mode off')
        wait_for(lambda: gsd.get('AirplaneMode') is False, 5,
                 'gsd AirplaneMode false after ours went off')
        wait_for(lambda: not our_airplane(item), 5, 'our menu showing airplane mode off')
        steady('2. ours off', fake, gsd, item, all_on, False)

        # 3. Our menu on: gsd agrees.
        item.click('Airplane mode')
        wait_for(lambda: soft_states(fake) == all_off, 5, 'our airplane mode on')
        wait_for(lambda: gsd.get('AirplaneMode') is True, 5,
                 'gsd AirplaneMode true after ours went on')
        wait_for(lambda: our_airplane(item), 5, 'our menu showing airplane mode on')
        steady('3. ours on', fake, gsd, item, all_off, True)

        # 4. gsd off: every radio on, we re-block nothing.
        gsd.set_airplane(False)
        wait_for(lambda: soft_states(fake) == all_on, 5, 'gsd unblocking every radio')
        check(gsd.writes()[-1] == (TYPE_ALL, OP_CHANGE_ALL, 0),
              f'gsd wrote {gsd.writes()}')
        wait_for(lambda: not our_airplane(item), 5, 'our menu showing airplane mode off')
        steady('4. gsd off', fake, gsd, item, all_on, False)

        # 5. phy1 off by hand; gsd on, gsd off: phy1 is off again, once.
        item.click('Wi-Fi (phy1)')
        phy1_off = dict(all_on, phy1=True)
        wait_for(lambda: soft_states(fake) == phy1_off, 5, 'phy1 off from our menu')
        gsd.set_airplane(True)
        wait_for(lambda: soft_states(fake) == all_off, 5, 'gsd blocking every radio')
        wait_for(lambda: our_airplane(item), 5, 'our menu showing airplane mode on')
        steady('5a. gsd on with phy1 off before', fake, gsd, item, all_off, True)
        log('our list:', remembered())
        gsd.set_airplane(False)
        wait_for(lambda: soft_states(fake) == phy1_off, 5,
                 'phy1 back off after gsd ended airplane mode (as it was before)')
        wait_for(lambda: not our_airplane(item), 5, 'our menu showing airplane mode off')
        steady('5b. gsd off, phy1 restored off', fake, gsd, item, phy1_off, False)
        check(applet.proc.poll() is None, 'the applet died')
    finally:
        if gsd:
            gsd.stop()
        applet.stop()
        fake.stop()
        session.stop()
        system_bus.stop()
        loop.stop()


if __name__ == '__main__':
    gt.run(test)
