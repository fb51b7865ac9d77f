"""The resume guard through the doors users use, in random sequences
checked against a small model of RULES.md ("Suspend and resume", and the
airplane-mode rows it meets), written from RULES.md, not from the C code.

The steps: logind's PrepareForSleep(true) then (false) (python3-dbusmock
on a private system bus, as in test-resume.py); another program turning a
radio on (the fake kernel's control socket, as a driver or BlueZ would);
a menu click on a radio (dbusmenu Event); SetRadioBlocked,
BluetoothAirplaneMode and SetAirplaneMode on our D-Bus API; a middle click (SecondaryActivate);
`rfkill-applet --airplane toggle`.  Each step is waited for (until the
kernel has been quiet), so the order is known, and after each one the
radios' soft states and AirplaneMode are compared with the model.  Each
sequence ends with SetAirplaneMode(false), which shows the list it left.

The model:
  - sleep: the radios that are off are remembered; the guard watches (a
    sequence lasts well under the 20 s window);
  - another program turns on a remembered radio: it goes off again; the
    second time too; the third time it stays on and is forgotten.  One
    that stays on while airplane mode held ends airplane mode by hand:
    the list is dropped;
  - a request of ours for a radio or a type forgets those radios; one
    that turns radios on while airplane mode holds with a list makes them
    exceptions (RULES.md, "Exceptions"), unless no other radio would be
    left taking part: then airplane mode ends and the list is dropped;
  - any airplane-mode request ends the watch; on and off as RULES.md's
    "Requests" (the same rules as test-doors.py's model).

  RFK_RESUME_DOORS_SEED   the seed (default: random, printed)
  RFK_RESUME_DOORS_RUNS   sequences of 8 steps (default 16, about 100 s)
  RFK_RESUME_DOORS_ONLY   replay these sequence numbers ("3,17")
  RFK_RESUME_DOORS_VERBOSE  "1": print every sequence, passing or not
"""
import os
import random
import subprocess
import sys
import time

import guitest as gt
import rfkapi
from guitest import check, log, wait_for
from gi.repository import GLib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
Logind = __import__('test-resume').Logind

RADIO_TYPES = ['wlan', 'wlan', 'bluetooth']
STEPS = 8
QUIET_S = 0.4


def onoff(blocked):
    return 'off' if blocked else 'on'


class Model:
    def __init__(self, soft):
        self.soft = dict(soft)      # name -> soft-blocked
        self.list = None            # name -> soft state to restore
        self.remembered = None      # name -> times turned on; None: no watch
        self.exceptions = set()     # names airplane mode leaves alone

    def taking_part(self):
        return [n for n in self.soft if n not in self.exceptions]

    def airplane(self):
        mine = self.taking_part()
        return bool(mine) and all(self.soft[n] for n in mine)

    def sleep(self):
        self.remembered = {n: 0 for n, b in self.soft.items() if b}

    def other_on(self, n):
        if not self.soft[n]:
            return 'already on'
        held = self.airplane()
        self.soft[n] = False
        # Every radio that takes part on at once (here: the last one off,
        # the others being exceptions) while our list is active: airplane
        # mode ended elsewhere, which ends the watch too; the radios the
        # list has as off go off again.
        if held and self.list is not None and \
                not any(self.soft[m] for m in self.taking_part()):
            self.remembered = None
            for m in self.taking_part():
                self.soft[m] = self.list.get(m, False)
            self.list = None
            return 'every radio on: airplane mode ended elsewhere'
        if self.remembered is not None and n in self.remembered:
            self.remembered[n] += 1
            if self.remembered[n] <= 2:
                self.soft[n] = True
                return 'kept off'
            del self.remembered[n]
        if held and not self.airplane():
            self.list = None
            return 'left on: airplane mode ended by hand'
        return 'left on'

    def radios(self, names, blocked):
        """A request of ours for these radios (one, or a type's)."""
        for n in names:
            if self.remembered is not None:
                self.remembered.pop(n, None)
        held = self.airplane()
        turning_on = [n for n in names if self.soft[n] and not blocked
                      and n not in self.exceptions]
        if held and self.list is not None and turning_on and \
                len(turning_on) < len(self.taking_part()):
            self.exceptions.update(turning_on)
        for n in names:
            self.soft[n] = blocked
        if held and not self.airplane():
            self.list = None

    def radio(self, n, blocked):
        self.radios([n], blocked)

    def bluetooth(self, blocked):
        """Our BluetoothAirplaneMode property: a request for the type."""
        self.radios([n for n in self.soft if n.startswith('hci')], blocked)

    def airplane_on(self):
        self.remembered = None
        mine = self.taking_part()
        if self.list is not None and self.airplane():
            for n in mine:
                self.list.setdefault(n, self.soft[n])
        else:
            self.list = {n: self.soft[n] for n in mine}
        for n in mine:
            self.soft[n] = True

    def airplane_off(self):
        self.remembered = None
        if self.list is None and not self.airplane():
            return
        targets = {n: (self.list or {}).get(n, False) for n in self.taking_part()}
        self.list = None
        self.soft.update(targets)

    def toggle(self):
        if self.airplane():
            self.airplane_off()
        else:
            self.airplane_on()

    def describe(self):
        radios = ' '.join(f'{n}={onoff(b)}' for n, b in sorted(self.soft.items()))
        memory = 'none' if self.list is None else ' '.join(
            f'{n}={onoff(b)}' for n, b in sorted(self.list.items()))
        watch = 'no watch' if self.remembered is None else 'watching ' + (
            ' '.join(f'{n}:{k}' for n, k in sorted(self.remembered.items())) or 'nothing')
        spared = ' '.join(sorted(self.exceptions)) or 'none'
        return f'{radios}; list: {memory}; exceptions: {spared}; {watch}'


def random_step(rng, model, slept, touched):
    """The next step, drawn from what the model says now: other programs
    mostly turn on radios that are off, often one a door request just
    touched, and door requests leave radios off as often as on; airplane
    mode, which ends the watch, is asked for now and then.  So a defect
    shows in fewer sequences."""
    names = sorted(model.soft)
    off = [n for n in names if model.soft[n]] or names
    n = rng.choice(names)
    r = rng.random()
    if not slept:  # a radio or two off, then the sleep
        return ('sleep',) if r < 0.6 else ('SetRadioBlocked', n, True)
    if r < 0.1:
        return ('sleep',)
    if r < 0.5:
        near = [t for t in touched[-2:] if t in off]
        return ('other-on', rng.choice(near if near and rng.random() < 0.6 else off))
    if r < 0.65:
        return ('click', n)
    if r < 0.8:
        return ('SetRadioBlocked', n, rng.random() < 0.6)
    if r < 0.88:
        return ('BluetoothAirplaneMode', rng.random() < 0.6)
    if r < 0.94:
        return ('SetAirplaneMode', rng.random() < 0.5)
    if r < 0.97:
        return ('middle-click',)
    return ('cli-toggle',)


def random_start(seed, index, names):
    rng = random.Random(f'{seed}:{index}')
    start = {n: rng.random() < 0.5 for n in names}
    return rng, start, rng.random() < 0.3


class Rig:
    def __init__(self, s, logdir):
        self.fake = s.fake
        self.logind = Logind(logdir)
        s.on_exit(self.logind.stop)
        self.applet = s.start_applet(
            extra_env={'DBUS_SYSTEM_BUS_ADDRESS': self.logind.address})
        self.item = s.watcher.wait_item(self.applet.unique_name(s.bus))
        self.api = rfkapi.Api(s.bus)
        s.on_exit(self.api.close)
        wait_for(lambda: self.api.get('DeviceState') == 'ready', 10, 'ready')
        self.names = [r['name'] for r in self.fake.state()]
        self.idx = {r['name']: r['idx'] for r in self.fake.state()}
        self.labels = wait_for(self._labels, 10, 'every radio in the menu')

    def _labels(self):
        labels = {}
        for e in self.item.layout().children:
            for n in self.names:
                if e.toggle_type == 'checkmark' and f'({n})' in e.label \
                        and not e.label.endswith(' in airplane mode'):
                    labels[n] = e.label
        return labels if len(labels) == len(self.names) else None

    def soft(self):
        return {r['name']: r['soft'] for r in self.fake.state()}

    def settle(self, model):
        """Until the kernel is quiet; then up to 1 s more (the 500 ms of
        the hand rule) for what we read to match the model."""
        give_up = time.monotonic() + 10 * gt.TIMEOUT_SCALE
        while True:
            before = (self.fake.writes(), self.fake.command('list'))
            time.sleep(QUIET_S)
            after = (self.fake.writes(), self.fake.command('list'))
            if before == after or time.monotonic() > give_up:
                break
        end = time.monotonic() + 1.0 * gt.TIMEOUT_SCALE
        while True:
            got = (self.soft(), self.api.get('AirplaneMode'))
            if got == (model.soft, model.airplane()) or time.monotonic() > end:
                return got
            time.sleep(0.05)

    def set_airplane(self, on):
        self.api.call('SetAirplaneMode', GLib.Variant('(b)', (on,)))

    def step(self, step, model):
        kind = step[0]
        if kind == 'sleep':
            self.logind.suspend_and_resume()
            time.sleep(0.3)  # the signals reach the applet
            model.sleep()
            return ''
        if kind == 'other-on':
            self.fake.command(f'soft {self.idx[step[1]]} off')
            # RULES.md: a hand ends airplane mode after 500 ms.
            time.sleep(0.6)
            return model.other_on(step[1])
        if kind == 'click':
            blocked = not model.soft[step[1]]
            self.item.click(self.labels[step[1]])
            model.radio(step[1], blocked)
            return f'-> {onoff(blocked)}'
        if kind == 'SetRadioBlocked':
            self.api.call('SetRadioBlocked',
                          GLib.Variant('(ub)', (self.idx[step[1]], step[2])))
            model.radio(step[1], step[2])
            return ''
        if kind == 'BluetoothAirplaneMode':
            self.api.set('BluetoothAirplaneMode', GLib.Variant('b', step[1]))
            model.bluetooth(step[1])
            return ''
        if kind == 'SetAirplaneMode':
            self.set_airplane(step[1])
            model.airplane_on() if step[1] else model.airplane_off()
            return ''
        if kind == 'middle-click':
            self.item.secondary_activate()
            model.toggle()
            return ''
        if kind == 'cli-toggle':
            r = subprocess.run([gt.program('RFK_APPLET'), '--device', self.fake.socket,
                                '--airplane', 'toggle'], capture_output=True,
                               text=True, timeout=30 * gt.TIMEOUT_SCALE)
            model.toggle()
            # Success says nothing on stderr (a GLib CRITICAL did).
            check(r.returncode == 0 and not r.stderr.strip(),
                  f'--airplane toggle: exit {r.returncode}: {(r.stdout + r.stderr).strip()}')
            return r.stdout.strip()
        raise ValueError(kind)

    def reset(self, start, with_list):
        """The start state, one awaited request at a time; an airplane-mode
        request first, which also ends any watch."""
        self.set_airplane(False)
        # Exceptions outlive a sequence: removed as a user does, from the
        # menu ("… stays on in airplane mode"); with airplane mode off
        # that writes nothing.  Which ones: Radios (the menu may lag).
        def spared():
            return [r['name'] for r in self.api.get('Radios') if r['airplane-exception']]

        def entry(name):
            for e in self.item.layout().children:
                if e.visible and f'({name}) stays' in e.label:
                    return e
            return None
        # An item clicked just before the menu replaces it is lost (the
        # menu catches up at its own pace): clicked again until it is gone.
        for _ in range(5):
            for name in spared():
                self.item.click(wait_for(lambda: entry(name), 5,
                                         f'the menu item of the exception {name}'))
            try:
                wait_for(lambda: not spared(), 1, 'every exception removed')
                break
            except gt.TestFailure:
                pass
        wait_for(lambda: not spared(), 5, 'every exception removed')
        for n, blocked in self.soft().items():
            if blocked != start[n]:
                self.api.call('SetRadioBlocked',
                              GLib.Variant('(ub)', (self.idx[n], start[n])))
        model = Model(start)
        if with_list:
            self.set_airplane(True)
            model.airplane_on()
        got = self.settle(model)
        check(got == (model.soft, model.airplane()),
              f'start state {model.describe()}: got {got}')
        return model

    def sequence(self, seed, index):
        rng, start, with_list = random_start(seed, index, self.names)
        model = self.reset(start, with_list)
        trace = [f'start: {model.describe()}']
        slept, touched = False, []
        for _ in range(STEPS):
            step = random_step(rng, model, slept, touched)
            slept = slept or step[0] == 'sleep'
            if step[0] in ('click', 'SetRadioBlocked'):
                touched.append(step[1])
            elif step[0] == 'BluetoothAirplaneMode':
                touched.append('hci0')
            note = self.step(step, model)
            got = self.settle(model)
            trace.append(f'{" ".join(map(str, step))} {note} => {model.describe()}')
            if got != (model.soft, model.airplane()):
                return trace, f'after {step}: expected {model.soft}, ' \
                    f'AirplaneMode {model.airplane()}; got {got}'
        self.set_airplane(False)
        model.airplane_off()
        got = self.settle(model)
        trace.append(f'SetAirplaneMode False (the probe) => {model.describe()}')
        if got != (model.soft, model.airplane()):
            return trace, f'the probe: expected {model.soft}; got {got}'
        return trace, None


def test(logdir):
    seed = int(os.environ.get('RFK_RESUME_DOORS_SEED') or random.randrange(1 << 30))
    runs = int(os.environ.get('RFK_RESUME_DOORS_RUNS', '16'))
    only = os.environ.get('RFK_RESUME_DOORS_ONLY')
    verbose = os.environ.get('RFK_RESUME_DOORS_VERBOSE') == '1'
    indices = [int(i) for i in only.split(',')] if only else range(runs)
    log(f'seed {seed} (replay: RFK_RESUME_DOORS_SEED={seed} RFK_RESUME_DOORS_ONLY=N)')
    with gt.Session(logdir, RADIO_TYPES, watcher=True, notifications=True) as s:
        rig = Rig(s, logdir)
        failures = []
        t0 = time.monotonic()
        for index in indices:
            trace, problem = rig.sequence(seed, index)
            if verbose and not problem:
                log(f'sequence {index}:\n  ' + '\n  '.join(trace))
            if problem:
                failures.append(index)
                log(f'sequence {index} (seed {seed}) FAILED: {problem}\n  '
                    + '\n  '.join(trace))
                if len(failures) >= 3:
                    break
        log(f'{len(indices)} sequences of {STEPS} steps in '
            f'{time.monotonic() - t0:.0f} s, {len(failures)} failing: {failures}')
        check(not failures, f'sequences {failures} broke the rules (seed {seed}); '
              f'replay with RFK_RESUME_DOORS_SEED={seed} '
              f'RFK_RESUME_DOORS_ONLY={",".join(map(str, failures))}')


if __name__ == '__main__':
    gt.run(test)
