"""The session D-Bus API (data/io.github.rfkill_applet.RfkillApplet.xml)
as a client sees it, on a laptop with two Wi-Fi cards, Bluetooth and a
modem: the served interface is the published XML; every property against
the fake kernel's own state; every method; bad arguments (a clear D-Bus
error, nothing changed); PropertiesChanged with the changed values only;
two clients at once; `--airplane` through the API."""
import os
import subprocess

from gi.repository import GLib

import guitest as gt
from guitest import check, wait_for, log
import fakekernel
import rfkapi
from rfkapi import Api

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'data')
V = GLib.Variant
INVALID = 'org.freedesktop.DBus.Error.InvalidArgs'



def announced(api, name):
    """The last value PropertiesChanged gave for name, or None."""
    values = [c[name] for c in api.changed() if name in c]
    return values[-1] if values else None


def gsettings(*args):
    return subprocess.run(['gsettings'] + list(args), capture_output=True,
                          text=True, check=True).stdout.strip()


def radios_match_the_kernel(api, fake, item):
    radios = api.get('Radios')
    kernel = fake.state()
    check([r['index'] for r in radios] != [], 'no radios')
    by_index = {r['index']: r for r in radios}
    check(sorted(by_index) == sorted(k['idx'] for k in kernel),
          f'indices {sorted(by_index)} vs {kernel}')
    menu_labels = {e.label for e in item.entries()}
    numbers = {'wlan': 1, 'bluetooth': 2, 'wwan': 5}
    for k in kernel:
        r = by_index[k['idx']]
        reasons = [n for bit, n in ((1, 'signal'), (2, 'not-owner'))
                   if k['hard'] and k['reasons'] & bit]
        want = dict(index=k['idx'], type=k['type'], name=k['name'],
                    soft=k['soft'], hard=k['hard'], reasons=reasons)
        got = {key: r[key] for key in want}
        check(got == want, f'radio {k["name"]}: {got} != {want}')
        check(r['type-number'] == numbers[k['type']], f'type-number: {r}')
        # The friendly label is the menu's (a blocked radio adds why).
        check(any(label.startswith(r['label']) for label in menu_labels)
              and k['name'] in r['label'], f'label {r["label"]!r} not in the '
              f'menu {menu_labels}')
    return True


def expect_unchanged(fake, writes, settings_before):
    check(fake.writes() == writes, 'a refused call wrote to the kernel')
    check(gsettings('list-recursively', gt.APP_ID) == settings_before,
          'a refused call changed the settings')


def test(logdir):
    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    watcher = gt.Watcher(bus)
    fake = fakekernel.Fake(logdir, ['wlan', 'wlan', 'bluetooth', 'wwan'])
    applet = gt.Applet(fake.socket, logdir)
    api = Api(bus)
    try:
        item = watcher.wait_item(applet.unique_name(bus))
        wait_for(lambda: api.get('DeviceState') == 'ready', 10, 'ready')

        # The served interface is the published one, member for member.
        # The applet's introspection comes from the XML it embeds, so it
        # shows the build used the published file; what the applet really
        # serves is what its handlers answer: each property's type from
        # Get and GetAll, and its access from a Set of its own value.
        published = rfkapi.signature(rfkapi.interface_from_file(
            os.path.join(DATA, gt.APP_ID + '.xml'), gt.APP_ID))
        served = rfkapi.signature(api.introspect())
        check(served == published, f'introspected {served} != published {published}')
        answered = rfkapi.served_properties(api, published[0])
        differ = {k: (answered.get(k), v) for k, v in published[0].items()
                  if answered.get(k) != v}
        check(not differ, f'served != published (served, published): {differ}')
        # gsd's ten properties, same types and access.
        gsd = rfkapi.signature(rfkapi.interface_from_file(
            os.path.join(DATA, rfkapi.GSD_NAME + '.xml'), rfkapi.GSD_NAME))[0]
        check(len(gsd) == 10 and all(served[0][k] == v for k, v in gsd.items()),
              f'gsd properties {gsd} vs ours {served[0]}')

        # Every property at start: all radios on.
        props = api.get_all()
        check(set(props) == set(published[0]), f'GetAll: {sorted(props)}')
        want = dict(AirplaneMode=False, HardwareAirplaneMode=False,
                    HasAirplaneMode=True, ShouldShowAirplaneMode=True,
                    BluetoothAirplaneMode=False,
                    BluetoothHardwareAirplaneMode=False,
                    BluetoothHasAirplaneMode=True, WwanAirplaneMode=False,
                    WwanHardwareAirplaneMode=False, WwanHasAirplaneMode=True,
                    AirplaneRadioTypes=['all'], AirplaneModeError='',
                    LedRule='kernel', LedStatus='kernel', LedError='',
                    DevicePath=fake.socket, DeviceState='ready', DeviceError='')
        for name, value in want.items():
            check(props[name] == value, f'{name} = {props[name]!r}, not {value!r}')
        wait_for(lambda: radios_match_the_kernel(api, fake, item), 5, 'radios')

        # SetRadioBlocked: returns once the kernel has it; PropertiesChanged
        # carries what changed, and nothing that did not.
        hci0 = fake.radio('hci0')['idx']
        api.clear()
        api.call('SetRadioBlocked', V('(ub)', (hci0, True)))
        check(fake.radio('hci0')['soft'], 'hci0 not blocked when the call returned')
        wait_for(lambda: any(c.get('BluetoothAirplaneMode') is True
                             for c in api.changed()), 5,
                 'PropertiesChanged: BluetoothAirplaneMode')
        changed = {}
        for c in api.changed():
            changed.update(c)
        check('Radios' in changed and 'WwanHasAirplaneMode' not in changed
              and 'AirplaneMode' not in changed,
              f'changed: {sorted(changed)}')
        check(api.get('BluetoothAirplaneMode') is True, 'BluetoothAirplaneMode')
        radios_match_the_kernel(api, fake, item)

        # The gsd-style writes: every radio of the type.
        api.set('BluetoothAirplaneMode', V('b', False))
        wait_for(lambda: not fake.radio('hci0')['soft'], 5, 'Bluetooth on again')
        api.set('WwanAirplaneMode', V('b', True))
        wait_for(lambda: fake.radio('wwan0')['soft'], 5, 'the modem off')
        wait_for(lambda: api.get('WwanAirplaneMode') is True, 5, 'WwanAirplaneMode')
        api.set('WwanAirplaneMode', V('b', False))
        wait_for(lambda: not fake.radio('wwan0')['soft'], 5, 'the modem on')

        # Hardware: a switch on Bluetooth alone, then on the modem.
        fake.set_hard('hci0', True)
        wait_for(lambda: api.get('BluetoothHardwareAirplaneMode') is True, 5,
                 'BluetoothHardwareAirplaneMode')
        check(api.get('BluetoothAirplaneMode') is True, 'hard counts as blocked')
        check(api.get('HardwareAirplaneMode') is False, 'not every radio is hard-blocked')
        wait_for(lambda: radios_match_the_kernel(api, fake, item), 5, 'reason signal')
        fake.set_hard('wwan0', True, 'not-owner')
        wait_for(lambda: api.get('WwanHardwareAirplaneMode') is True, 5,
                 'WwanHardwareAirplaneMode')
        wait_for(lambda: radios_match_the_kernel(api, fake, item), 5, 'reason not-owner')
        fake.set_hard('hci0', False)
        fake.set_hard('wwan0', False)
        fake.set_hard_all(True)
        wait_for(lambda: api.get('HardwareAirplaneMode') is True, 5,
                 'HardwareAirplaneMode under the switch')
        fake.set_hard_all(False)
        wait_for(lambda: api.get('HardwareAirplaneMode') is False, 5, 'switch back')
        # Announcements are coalesced per main-loop pass: a True -> False
        # -> True that one pass sees is no change at all.  Wait until
        # "off" was announced, so that the next "on" is a change.
        wait_for(lambda: announced(api, 'AirplaneMode') is not True, 5,
                 'PropertiesChanged: AirplaneMode off after the switch')

        # Airplane mode through the API keeps each radio's memory: phy1,
        # off before, stays off afterwards.
        api.call('SetRadioBlocked', V('(ub)', (fake.radio('phy1')['idx'], True)))
        api.clear()
        api.call('SetAirplaneMode', V('(b)', (True,)))
        check(all(r['soft'] for r in fake.state()), f'not all off: {fake.state()}')
        wait_for(lambda: any(c.get('AirplaneMode') is True for c in api.changed()),
                 5, 'PropertiesChanged: AirplaneMode')
        check(api.get('AirplaneMode') and api.get('WwanAirplaneMode'), 'airplane on')
        wait_for(lambda: item.find('Airplane mode').checked, 5, 'the menu agrees')
        check(api.call('ToggleAirplaneMode', None, '(b)') == (False,), 'toggle off')
        check(not fake.radio('phy0')['soft'] and fake.radio('phy1')['soft'],
              f'not restored: {fake.state()}')
        check(api.call('ToggleAirplaneMode', None, '(b)') == (True,), 'toggle on')
        api.set('AirplaneMode', V('b', False))
        wait_for(lambda: not fake.radio('phy0')['soft'], 5, 'AirplaneMode=false')
        check(fake.radio('phy1')['soft'], 'phy1 came back on')

        # The radio types airplane mode counts; HasAirplaneMode and
        # HardwareAirplaneMode follow them.
        api.set('AirplaneRadioTypes', V('as', ['wifi', 'bluetooth']))
        check(gsettings('get', gt.APP_ID, 'airplane-radio-types')
              == "['wlan', 'bluetooth']", 'the key')
        wait_for(lambda: api.get('AirplaneRadioTypes') == ['wlan', 'bluetooth'],
                 5, 'AirplaneRadioTypes')
        fake.set_hard('wwan0', True)
        api.set('AirplaneRadioTypes', V('as', ['wwan']))
        wait_for(lambda: api.get('HardwareAirplaneMode') is True, 5,
                 'HardwareAirplaneMode counts the modem alone')
        wait_for(lambda: api.get('AirplaneMode') is True, 5,
                 'AirplaneMode: the only counted radio is blocked')
        fake.set_hard('wwan0', False)
        api.set('AirplaneRadioTypes', V('as', ['all']))
        wait_for(lambda: api.get('AirplaneMode') is False, 5, 'every type again')

        # The light: a rule, its status, the light itself.
        api.set('LedRule', V('s', 'airplane-mode'))
        check(gsettings('get', gt.APP_ID, 'led-rule') == "'airplane-mode'", 'led key')
        wait_for(lambda: api.get('LedStatus') == 'owned', 5, 'LedStatus owned')
        check(api.get('LedRule') == 'airplane-mode' and api.get('LedError') == '',
              'LedRule/LedError')
        api.call('SetAirplaneMode', V('(b)', (True,)))
        wait_for(lambda: api.get('AirplaneLight') is True, 5, 'AirplaneLight lit')
        log('fake indicator:', fake.indicator())
        api.call('SetAirplaneMode', V('(b)', (False,)))
        wait_for(lambda: api.get('AirplaneLight') is False, 5, 'AirplaneLight dark')
        api.set('LedRule', V('s', 'kernel'))
        wait_for(lambda: api.get('LedStatus') == 'kernel', 5, 'LedStatus kernel')

        # Bad arguments: a clear error, and nothing changed.
        writes = fake.writes()
        settings_before = gsettings('list-recursively', gt.APP_ID)
        state_before = fake.state()
        msg = api.expect_error(rfkapi.APP_ID + '.Error.NoSuchRadio', api.call,
                               'SetRadioBlocked', V('(ub)', (4242, True)))
        check('4242' in msg, msg)
        api.expect_error(INVALID, api.call, 'SetRadioBlocked', V('(s)', ('phy0',)))
        api.expect_error(INVALID, api.call, 'SetAirplaneMode', V('(s)', ('on',)))
        api.expect_error(INVALID, api.set, 'AirplaneMode', V('s', 'on'))
        msg = api.expect_error(INVALID, api.set, 'AirplaneRadioTypes',
                               V('as', ['wlan', 'toaster']))
        check('toaster' in msg, msg)
        msg = api.expect_error(INVALID, api.set, 'LedRule', V('s', 'blink'))
        check('blink' in msg, msg)
        # GDBus answers read-only properties itself (InvalidArgs).
        for prop, value in (('HardwareAirplaneMode', V('b', True)),
                            ('Radios', V('aa{sv}', []))):
            msg = api.expect_error(INVALID, api.set, prop, value)
            check('not writable' in msg, msg)
        api.expect_error(INVALID, api.get, 'NoSuchProperty')
        api.expect_error('org.freedesktop.DBus.Error.UnknownMethod', api.call,
                         'Explode', None)
        expect_unchanged(fake, writes, settings_before)
        check(fake.state() == state_before, 'radios changed')
        check(applet.proc.poll() is None, 'the applet died of bad arguments')

        # Two clients at once, each on its own connection: both answered,
        # both told.
        other = Api(rfkapi.new_connection())
        api.clear()
        replies = []

        def done(conn, result, who):
            try:
                conn.call_finish(result)
                replies.append(who)
            except GLib.Error as error:
                replies.append(f'{who}: {error.message}')
        for who, client, radio in (('a', api, 'phy0'), ('b', other, 'wwan0')):
            client.bus.call(gt.APP_ID, rfkapi.PATH, rfkapi.IFACE, 'SetRadioBlocked',
                            V('(ub)', (fake.radio(radio)['idx'], True)), None,
                            0, 15000, None, done, who)
        wait_for(lambda: len(replies) == 2, 10, 'both replies')
        check(sorted(replies) == ['a', 'b'], f'replies: {replies}')
        check(fake.radio('phy0')['soft'] and fake.radio('wwan0')['soft'],
              f'both changes: {fake.state()}')
        for client in (api, other):
            wait_for(lambda: any(c.get('WwanAirplaneMode') is True
                                 for c in client.changed()), 5,
                     'each client told')
        replies.clear()
        for who, client in (('a', api), ('b', other)):
            client.bus.call(gt.APP_ID, rfkapi.PATH, rfkapi.IFACE, 'SetAirplaneMode',
                            V('(b)', (True,)), None, 0, 15000, None, done, who)
        wait_for(lambda: len(replies) == 2, 10, 'both airplane replies')
        check(sorted(replies) == ['a', 'b'], f'replies: {replies}')
        check(other.get('AirplaneMode') is True and api.get('AirplaneMode') is True,
              'airplane on for both')
        api.call('SetAirplaneMode', V('(b)', (False,)))
        other.close()

        # `--airplane` asks the applet (its method call is on the bus).
        monitor_log = open(os.path.join(logdir, 'dbus-monitor.log'), 'w')
        monitor = subprocess.Popen(['dbus-monitor', '--session',
                                    f"interface='{rfkapi.IFACE}'"],
                                   stdout=monitor_log, stderr=subprocess.STDOUT)
        try:
            wait_for(lambda: os.path.getsize(monitor_log.name) > 0, 5, 'dbus-monitor')
            r = subprocess.run([gt.program('RFK_APPLET'), '--device', fake.socket,
                                '--airplane', 'on'], capture_output=True, text=True,
                               timeout=30)
            check(r.returncode == 0 and r.stdout == 'Airplane mode is on.\n',
                  f'--airplane on: {r}')
            check(api.get('AirplaneMode') is True, 'not on')
            wait_for(lambda: 'member=SetAirplaneMode' in open(monitor_log.name).read(),
                     5, 'the CLI calling SetAirplaneMode')
            r = subprocess.run([gt.program('RFK_APPLET'), '--device', fake.socket,
                                '--airplane', 'toggle'], capture_output=True,
                               text=True, timeout=30)
            check(r.returncode == 0 and r.stdout == 'Airplane mode is off.\n',
                  f'--airplane toggle: {r}')
            wait_for(lambda: 'member=ToggleAirplaneMode' in open(monitor_log.name).read(),
                     5, 'the CLI calling ToggleAirplaneMode')
        finally:
            monitor.terminate()
            monitor.wait(5)
            monitor_log.close()
        check(fake.radio('phy1')['soft'] and not fake.radio('hci0')['soft'],
              f'the memory kept through the CLI: {fake.state()}')

        # The device goes away: the state says so and methods refuse.
        fake.stop()
        wait_for(lambda: api.get('DeviceState') != 'ready', 5, 'DeviceState')
        check(api.get('DeviceError') != '', 'DeviceError empty')
        api.expect_error(rfkapi.APP_ID + '.Error.NotReady', api.call,
                         'SetAirplaneMode', V('(b)', (True,)))

        api.call('Quit')
        check(applet.proc.wait(10 * gt.TIMEOUT_SCALE) == 0, 'Quit: exit status')
    finally:
        api.close()
        applet.stop()
        fake.stop()
        loop.stop()


if __name__ == '__main__':
    gt.run(test)
