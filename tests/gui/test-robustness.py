"""The applet keeps working, with a correct menu, through what can go wrong.

Scenario, on one applet (wlan, wlan, bluetooth; LED rule airplane-mode):
  1. a notification daemon that accepts Notify and never answers: a
     hardware switch flip still shows in the menu at once, clicks work;
  2. the kernel closes the fd that owns the airplane-mode indicator (a
     relay in front of the fake closes the connection that sent op 4,
     ACQUIRE, as a driver unbind or a revoke would): radios stay right;
  3. 10,000 random byte strings as events (seeded): no crash, the real
     radios still follow the kernel;
  4. the device vanishes and returns (the socket goes away, a new fake
     comes up on the same path): the menu shows exactly the new radios;
then a second applet without CAP_DAC_OVERRIDE (so that root gets EACCES
like a user would):
  5. EACCES on open: the reason in the menu; after chmod the radios.
"""
import os
import random
import subprocess
import threading

import gi
gi.require_version('Gio', '2.0')
from gi.repository import GLib  # noqa: E402

import guitest as gt
from guitest import check, log, wait_for
import fakekernel
from seqpacket_relay import SeqpacketRelay, shutdown

class SilentNotifications:
    """Owns org.freedesktop.Notifications; Notify is never answered."""

    def __init__(self, bus):
        self.pending = []  # kept alive, so no reply is ever sent
        gt.serve_notifications(bus, self._on_call)

    def _on_call(self, conn, sender, path, iface, method, params, invocation):
        if method == 'Notify':
            self.pending.append(invocation)
        elif method == 'GetCapabilities':
            invocation.return_value(GLib.Variant('(as)', (['body'],)))
        elif method == 'GetServerInformation':
            invocation.return_value(GLib.Variant('(ssss)', ('silent', 'test', '1', '1.2')))
        else:
            invocation.return_value(None)


class Relay(SeqpacketRelay):
    """close_indicator_owner() closes the connection pair whose client sent
    op 4 (ACQUIRE): to that client, the kernel closed its fd."""

    def __init__(self, path, upstream):
        self.acquired = set()  # client sockets that sent op 4
        super().__init__(path, upstream)

    def connected(self, client, up):
        pair = (client, up)
        threading.Thread(target=self._pump, args=(pair, 0, 1), daemon=True).start()
        threading.Thread(target=self._pump, args=(pair, 1, 0), daemon=True).start()

    def _pump(self, pair, src, dst):
        while True:
            try:
                data = pair[src].recv(4096)
                if not data:
                    break
                if src == 0 and len(data) >= 6 and data[5] == 4:
                    # RFKILL_OP_AIRPLANE_MODE_INDICATOR_ACQUIRE
                    with self.lock:
                        self.acquired.add(pair[0])
                pair[dst].send(data)
            except OSError:
                break
        shutdown(*pair)

    def indicator_owner(self):
        with self.lock:
            return [p for p in self.pairs if p[0] in self.acquired]

    def close_indicator_owner(self):
        owners = self.indicator_owner()
        for pair in owners:
            shutdown(*pair)
        return len(owners)


LED_RULES = ['Kernel default', 'Follow airplane mode', 'When Wi-Fi is off',
             'When a hardware switch is off', 'Always off']


def radio_states(item):
    return {e.label: (e.checked, e.enabled) for e in item.entries()
            if e.toggle_type == 'checkmark' and '(' in e.label}


def real_radios_right(item, fake):
    """Each of the fake's radios in the menu as the fake has it."""
    states = radio_states(item)
    for r in fake.state():
        matches = [v for k, v in states.items() if f'({r["name"]})' in k]
        if not matches or matches[0][0] != (not r['soft'] and not r['hard']):
            return False
    return True


def gsettings(*args):
    subprocess.run(['gsettings'] + list(args), check=True)


def test(logdir):
    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    watcher = gt.Watcher(bus)
    silent = SilentNotifications(bus)
    gsettings('set', gt.APP_ID, 'led-rule', 'airplane-mode')
    fake = fakekernel.Fake(logdir, ['wlan', 'wlan', 'bluetooth'])
    device = os.path.join(os.environ['XDG_RUNTIME_DIR'], 'relay.sock')
    relay = Relay(device, fake.socket)
    applet = gt.Applet(device, logdir)
    second = None
    try:
        item = watcher.wait_item(applet.unique_name(bus))
        wait_for(lambda: len(radio_states(item)) == 3 and real_radios_right(item, fake),
                 10, 'three radios in the menu')
        wait_for(lambda: fake.indicator().endswith('owned'), 10,
                 'the applet owning the indicator')

        failures = []

        # 1. Notify is never answered.
        def silent_daemon():
            fake.set_hard_all(True)
            wait_for(lambda: silent.pending, 10, 'a Notify call for the switch flip')
            wait_for(lambda: 'hardware switch' in ' '.join(radio_states(item)), 3,
                     'the menu showing the switch while Notify hangs')
            fake.set_hard_all(False)
            wait_for(lambda: real_radios_right(item, fake), 3,
                     'the menu back after the switch, Notify still unanswered')
            item.click('Wi-Fi (phy1)')
            wait_for(lambda: fake.radio('phy1')['soft'], 3, 'a click applied')
            item.click('Wi-Fi (phy1)')
            wait_for(lambda: not fake.radio('phy1')['soft'], 3, 'a click applied')
        try:
            silent_daemon()
        except gt.TestFailure as failure:
            failures.append(f'unanswered Notify: {failure}')
            log('FAILED:', failures[-1])
            # The call times out after D-Bus's 25 s; go on from there,
            # without a notification on the way back to block again.
            gsettings('set', gt.APP_ID, 'notifications', 'false')
            fake.set_hard_all(False)
            wait_for(lambda: real_radios_right(item, fake), 40, 'the applet answering again')
        log(f'Notify calls left unanswered: {len(silent.pending)}')

        # 2. The kernel closes the indicator owner's fd.
        check(relay.close_indicator_owner() == 1, 'no connection acquired the indicator')
        wait_for(lambda: fake.indicator().endswith('kernel'), 5,
                 'the fake back to the kernel rule')
        fake.command(f'soft {fake.radio("hci0")["idx"]} on')
        wait_for(lambda: real_radios_right(item, fake), 5,
                 'the radios still right after the indicator fd closed')
        check(applet.proc.poll() is None, 'the applet died when its LED fd was closed')
        # The submenu still offers every rule with the user's choice
        # checked (losing the fd is no reason to change it), and says
        # why the light is not driven, without a click on the reason.
        submenu = item.find('Airplane-mode light').children
        log('LED submenu after the fd closed:', [e.label for e in submenu if e.visible])
        rules = [e.label for e in submenu if e.toggle_type == 'radio' and e.visible]
        check(rules == LED_RULES, f'LED rules after the fd closed: {rules}')
        chosen = [e.label for e in submenu if e.toggle_type == 'radio' and e.checked]
        check(chosen == ['Follow airplane mode'],
              f'the chosen LED rule after the fd closed: {chosen}')
        reasons = wait_for(lambda: [e for e in item.find('Airplane-mode light').children
                                    if e.visible and not e.toggle_type and e.label and
                                    not e.is_separator], 5,
                           'a reason in the LED submenu after the fd closed')
        # Enabled: reachable by keyboard and screen readers.
        check(len(reasons) == 1 and 'closed' in reasons[0].label and
              reasons[0].enabled,
              f'the LED reason after the fd closed: {reasons}')

        # 3. 10,000 random byte strings as events.  Well-formed ADD and
        # DEL events (at least the V1 size, op 0 or 1) are real radios
        # coming and going, not junk: they are left out, so that every
        # radio the menu shows afterwards must be one of the fake's.
        seed = 12
        log('junk events seed:', seed)
        rng = random.Random(seed)
        junk = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 41)))
                for _ in range(10000)]
        junk = [j for j in junk if not (len(j) >= 8 and j[5] in (0, 1))]
        log(f'{len(junk)} junk events after leaving out well-formed ADD/DEL')
        for start in range(0, len(junk), 1000):
            fake.batch([f'raw {j.hex()}' for j in junk[start:start + 1000]])
        check(applet.proc.poll() is None, 'the applet died on random events')
        fake.command(f'soft {fake.radio("phy0")["idx"]} on')
        wait_for(lambda: real_radios_right(item, fake), 5,
                 'the real radios right after 10,000 random events')
        phantoms = [k for k in radio_states(item)
                    if not any(f'({n})' in k for n in ('phy0', 'phy1', 'hci0'))]
        check(not phantoms, f'phantom radios from junk events: {sorted(phantoms)}')
        check(len(radio_states(item)) == 3 and
              len([e for e in item.entries() if e.toggle_type == 'checkmark'
                   and '(' in e.label]) == 3,
              f'three radio items after junk events: {radio_states(item)}')

        # 4. The device vanishes and comes back.
        relay.stop()
        fake.stop()
        wait_for(lambda: 'No rfkill support on this system' in
                 [e.label for e in item.entries()], 5, 'the reason for no device')
        fake = fakekernel.Fake(logdir, ['bluetooth', 'wwan'])
        relay = Relay(device, fake.socket)
        wait_for(lambda: set(radio_states(item)) ==
                 {'Bluetooth (hci0)', 'Mobile broadband (wwan0)'}, 10,
                 f'exactly the new radios, have {radio_states(item)}')
        check(real_radios_right(item, fake), f'menu {radio_states(item)}')
        item.click('Bluetooth (hci0)')
        wait_for(lambda: fake.radio('hci0')['soft'], 5, 'a click on the returned device')
        item.click('Quit')
        check(applet.proc.wait(30 * gt.TIMEOUT_SCALE) == 0, 'quit failed')

        # 5. EACCES on open, as a user without access gets it.
        os.chmod(device, 0)
        second = gt.Applet(device, logdir, name='no-access',
                           prefix=['setpriv', '--bounding-set=-all', '--inh-caps=-all', '--'])
        item = watcher.wait_item(second.unique_name(bus))
        wait_for(lambda: 'No permission to switch radios' in
                 [e.label for e in item.entries()], 10, 'the permission reason')
        check(not item.find('Airplane mode').enabled, 'airplane mode offered without access')
        # The status is reachable (keyboard, screen readers), and the
        # icon says the same as the menu, not "No radios to switch".
        check(item.find('No permission to switch radios').enabled,
              'the reason is an insensitive item, which keyboards skip')
        desc = item.props().get('IconAccessibleDesc')
        check(desc == 'No permission to switch radios',
              f'the icon\'s accessible description: {desc!r}')
        os.chmod(device, 0o666)
        wait_for(lambda: len(radio_states(item)) == 2 and real_radios_right(item, fake), 10,
                 'the radios once access is granted')
        check(not failures, '; '.join(failures))
    finally:
        if second is not None:
            second.stop()
        applet.stop()
        relay.stop() if os.path.exists(device) else None
        fake.stop()
        loop.stop()


if __name__ == '__main__':
    gt.run(test)
