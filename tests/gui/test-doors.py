"""The doors users use, against RULES.md: our D-Bus methods and properties,
gsd's object (serve-gnome-rfkill), the dbusmenu (clicks), the
StatusNotifierItem's middle click (SecondaryActivate) and
`rfkill-applet --airplane on|off|toggle`, with several requests in flight.

The engine alone is checked against a model in tests/unit/test-rules.c;
this test checks what the doors add on top, on the real applet and the
fake kernel, by comparing the final state after each burst of requests
with a small reference model written from src/RULES.md (class
Model below; not from the C code):

  - requests are applied in the order they arrive, each to the state the
    earlier ones leave;
  - airplane on: every radio soft-blocked; the list holds each radio's
    soft state as left (an active list while airplane mode holds keeps
    its entries and gains the radios it lacks);
  - airplane off: each radio on the list gets its remembered state, one
    not on it is unblocked, the list is forgotten; no list and airplane
    mode not holding: nothing;
  - toggle: the opposite of airplane mode as the requests in flight
    leave it;
  - radios switched on by our request while airplane mode holds with a
    list become exceptions (airplane mode holds on; later airplane on and
    off leave them alone), unless no other radio would be left taking
    part: then airplane mode ends, the list is dropped, nothing else
    changes; without a list, a radio on just ends airplane mode;
  - a type write sets every radio of the type.

Arrival order is known: every request goes out on ONE D-Bus connection
(messages from one connection arrive in order), dbusmenu clicks and
SecondaryActivate included; a CLI (another connection) is started only
after our connection is flushed, and waited for before the next request.
A menu click counts as a toggle of what the earlier requests leave (the
airplane item: airplane mode; a radio item: that radio).  In the random
bursts the next request waits for a click's (immediate) Event reply:
libdbusmenu applies the click from a g_timeout_add (0, ...), so a message
right behind it could overtake it (CLICK_WAIT below); two scenarios
check that order without the wait.

Replies are checked too: ToggleAirplaneMode's answer and the CLI's words
are the state the model reaches; "Superseded" only where RULES.md allows
it (allowed_superseded(): read leniently, but never with no later
request, nor from a later identical request that changes nothing);
any other error fails.  After each burst an awaited SetAirplaneMode
(false) shows the list the burst left.  Each burst starts from a state
set one awaited call at a time (checked), so bursts are independent and
replay alone.  check_model() first checks the model itself against the
outcomes issue 27 states.

Two kernels: "prompt" (the applet on fake-rfkill directly) and "delayed"
(a relay in front of the fake holds every packet towards the applet -
events and write statuses - for 10-80 ms while a burst is sent, 0.5 s in
the CLI scenarios, so requests pile up in flight; fake-rfkill itself has
no delay option).

Part 1, scenarios: the defects of issue 27 found by hand and a few more,
each its own function (scenario_*), 5 times on each kernel.
Part 2, random bursts of 2-6 requests, seeded:
  RFK_DOORS_SEED    the seed (default: a random one, printed)
  RFK_DOORS_RUNS    bursts in all (default 2000, an eighth on the delayed
                    kernel; about 4 min when they pass)
  RFK_DOORS_REPEAT  runs of each scenario per kernel (default 5)
  RFK_DOORS_ONLY    replay bursts: "prompt:17,delayed:3" (with the same
                    seed; skips the scenarios)
  RFK_DOORS_SCENARIOS  "0" skips part 1, or a comma list of scenario names
  RFK_DOORS_MAX_FAILURES  stop each kernel's random part after this many
                    failing bursts (default 20)
  RFK_DOORS_CLICK_WAIT  "0": send the next request without waiting for a
                    dbusmenu Event's reply
Every failure prints the seed, the burst, the start state, the requests
with their replies and what the rules make of each, expected against got,
each problem tagged by kind ([state], [list], [answer], [superseded],
[error], [view], [no reply]), and how to replay it.
"""
import contextlib
import os
import random
import subprocess
import threading
import time
import queue

from gi.repository import Gio, GLib

import guitest as gt
from guitest import check, log
import fakekernel
import rfkapi
from seqpacket_relay import SeqpacketRelay, shutdown

V = GLib.Variant
RADIO_TYPES = ['wlan', 'wlan', 'bluetooth', 'wwan']
TYPE_OF_PROP = {'BluetoothAirplaneMode': 'bluetooth', 'WwanAirplaneMode': 'wwan'}
REPLY_TIMEOUT_S = 20
# After the last reply: no write and no change for this long (plus twice
# the delayed kernel's hold) is quiet.
QUIET_S = 0.03
# libdbusmenu answers Event at once and activates the item from a
# g_timeout_add (0, ...) (libdbusmenu-glib server.c, bus_event_core): a
# message right behind a click can be handled before the click.  A host
# sends one click per user action, so by default the next request waits
# for the Event's reply (a round trip, not the click's effect: everything
# sent before it stays in flight).  RFK_DOORS_CLICK_WAIT=0 sends straight on.
CLICK_WAIT = os.environ.get('RFK_DOORS_CLICK_WAIT', '1') != '0'


def onoff(blocked):
    return 'off' if blocked else 'on'


# ---------------------------------------------------------------- requests

class Req:
    """One request through one door.  kind is one of:
    SetAirplaneMode(b), ToggleAirplaneMode, SetRadioBlocked(idx, b),
    Prop(obj, name, b) (obj 'ours' or 'gsd'), ClickAirplane, ClickRadio(idx),
    SecondaryActivate, CLI(on|off|toggle)."""

    def __init__(self, kind, *args):
        self.kind, self.args = kind, args

    def text(self, names):
        a = self.args
        if self.kind == 'SetAirplaneMode':
            return f'SetAirplaneMode({str(a[0]).lower()})'
        if self.kind == 'ToggleAirplaneMode':
            return 'ToggleAirplaneMode()'
        if self.kind == 'SetRadioBlocked':
            return f'SetRadioBlocked({a[0]} {names[a[0]]}, {str(a[1]).lower()})'
        if self.kind == 'Prop':
            obj = 'ours' if a[0] == 'ours' else 'gsd\'s'
            return f'Set {obj} {a[1]}={str(a[2]).lower()}'
        if self.kind == 'ClickAirplane':
            return 'dbusmenu click "Airplane mode"'
        if self.kind == 'ClickRadio':
            return f'dbusmenu click on radio {a[0]} {names[a[0]]}'
        if self.kind == 'SecondaryActivate':
            return 'SecondaryActivate (middle click)'
        if self.kind == 'CLI':
            return f'rfkill-applet --airplane {a[0]}'
        return f'{self.kind}{a}'

    @property
    def waits(self):
        """Its reply comes once the request is carried out (the others are
        answered at once: property Set, dbusmenu Event, SecondaryActivate)."""
        return self.kind in ('SetAirplaneMode', 'ToggleAirplaneMode',
                             'SetRadioBlocked', 'CLI')


# ------------------------------------------------------------------- model

class Effect:
    def __init__(self, family, writes, targets, result=None, note=''):
        self.family = family      # 'airplane', 'radio', 'type'
        self.writes = writes      # radios whose soft state it changes
        self.targets = targets    # radios it asks a state of (changed or not)
        self.result = result      # airplane mode it aims for (airplane family)
        self.note = note


class Model:
    """RULES.md for radios that all take part (airplane-radio-types all, no
    switch-only driver, nothing refusing, no hard block), nothing added or
    removed, no other program writing."""

    def __init__(self, radios, soft, remembered=None):
        self.types = {r['idx']: r['type'] for r in radios}
        self.soft = dict(soft)
        self.list = None if remembered is None else dict(remembered)
        self.exceptions = set()

    def copy(self):
        m = Model([], {}, None)
        m.types, m.soft = dict(self.types), dict(self.soft)
        m.list = None if self.list is None else dict(self.list)
        m.exceptions = set(self.exceptions)
        return m

    def taking_part(self):
        return [i for i in self.soft if i not in self.exceptions]

    def airplane(self):
        """At least one radio takes part, each of them blocked."""
        mine = self.taking_part()
        return bool(mine) and all(self.soft[i] for i in mine)

    def type_airplane(self, rtype):
        """gsd's per-type property: at least one radio of the type, none
        unblocked."""
        mine = [i for i, t in self.types.items() if t == rtype]
        return bool(mine) and all(self.soft[i] for i in mine)

    def _set(self, targets):
        """Soft states as asked.  Radios switched on while airplane mode
        holds with a list become exceptions, unless no other radio would
        be left taking part; otherwise a radio switched on while airplane
        mode holds ends it (the list is dropped).  Returns the radios
        changed."""
        writes = {i for i, b in targets.items() if self.soft[i] != b}
        turning_on = {i for i in writes
                      if not targets[i] and i not in self.exceptions}
        held = self.airplane()
        if self.list is not None and held and turning_on and \
                len(turning_on) < len(self.taking_part()):
            self.exceptions |= turning_on
        for i in writes:
            self.soft[i] = targets[i]
        if held and not self.airplane():
            self.list = None
        return writes

    def airplane_on(self):
        """Exceptions are left as they are, neither blocked nor listed."""
        mine = self.taking_part()
        if not mine:
            return Effect('airplane', set(), set(), True, 'nothing: no radio '
                          'takes part')
        if self.list is not None and self.airplane():
            for i in mine:
                self.list.setdefault(i, self.soft[i])
        else:
            self.list = {i: self.soft[i] for i in mine}
        writes = {i for i in mine if not self.soft[i]}
        for i in writes:
            self.soft[i] = True
        return Effect('airplane', writes, set(mine), True)

    def airplane_off(self):
        mine = self.taking_part()
        if self.list is None:
            if not self.airplane():
                return Effect('airplane', set(), set(), False, 'nothing: no list, '
                              'airplane mode not holding')
            targets = {i: False for i in mine}
        else:
            targets = {i: self.list.get(i, False) for i in mine}
        self.list = None
        writes = {i for i, b in targets.items() if self.soft[i] != b}
        for i in writes:
            self.soft[i] = targets[i]
        return Effect('airplane', writes, set(targets), False)

    def set_airplane(self, on):
        return self.airplane_on() if on else self.airplane_off()

    def toggle(self):
        return self.set_airplane(not self.airplane())

    def apply(self, req):
        k, a = req.kind, req.args
        if k in ('ToggleAirplaneMode', 'ClickAirplane', 'SecondaryActivate') or \
                (k == 'CLI' and a[0] == 'toggle'):
            return self.toggle()
        if k == 'SetAirplaneMode':
            return self.set_airplane(a[0])
        if k == 'CLI':
            return self.set_airplane(a[0] == 'on')
        if k == 'Prop' and a[1] == 'AirplaneMode':
            return self.set_airplane(a[2])
        if k == 'Prop':
            rtype = TYPE_OF_PROP[a[1]]
            mine = {i for i, t in self.types.items() if t == rtype}
            return Effect('type', self._set({i: a[2] for i in mine}), mine)
        if k == 'SetRadioBlocked':
            return Effect('radio', self._set({a[0]: a[1]}), {a[0]})
        if k == 'ClickRadio':
            return Effect('radio', self._set({a[0]: not self.soft[a[0]]}), {a[0]})
        raise ValueError(k)

    def observed(self):
        """What the test reads back: each radio's soft state from the fake
        kernel, AirplaneMode and the per-type properties (ours and gsd's)."""
        out = {f'soft {i}': self.soft[i] for i in sorted(self.soft)}
        out.update({f'exception {i}': i in self.exceptions for i in sorted(self.soft)})
        a = self.airplane()
        bt, ww = self.type_airplane('bluetooth'), self.type_airplane('wwan')
        for obj in ('ours', 'gsd'):
            out[f'{obj} AirplaneMode'] = a
            out[f'{obj} BluetoothAirplaneMode'] = bt
            out[f'{obj} WwanAirplaneMode'] = ww
        return out

    def describe(self, names):
        radios = ' '.join(f'{names[i]}={onoff(self.soft[i])}' for i in sorted(self.soft))
        if self.list is None:
            memory = 'list: none'
        else:
            memory = 'list: ' + ' '.join(f'{names[i]}={onoff(b)}'
                                         for i, b in sorted(self.list.items()))
        if self.exceptions:
            memory += '; exceptions: ' + ' '.join(names[i] for i in sorted(self.exceptions))
        return f'{radios}; {memory}'


def waited_for(n, effects):
    """The radios request n may wait for: those it writes, and those it
    asks the state of that an earlier request of the burst writes (it may
    wait for that write's confirmation instead of writing again)."""
    earlier = set()
    for e in effects[:n]:
        earlier |= e.writes
    return effects[n].writes | (effects[n].targets & earlier)


def allowed_superseded(n, reqs, effects):
    """RULES.md, Order, when a later request takes over a radio an earlier
    one was still waiting for: an earlier request for one radio reports
    "Superseded"; one for several radios (airplane mode, a type) completes
    for the others; "an airplane-mode request ends an earlier one (it
    reports Superseded)".  Read as leniently as the text allows:
      - a radio request may be Superseded when a later request (any kind)
        writes a radio it may wait for;
      - an airplane-mode request may be Superseded by any later
        airplane-mode request that asks the opposite or changes something;
      - a type request never.
    What stays forbidden: Superseded with no later request at all, from a
    later request for the same thing that changes nothing (identical
    requests join: both succeed), or from requests for other radios."""
    mine = effects[n]
    waited = waited_for(n, effects)
    for later in range(n + 1, len(reqs)):
        other = effects[later]
        if mine.family == 'radio' and other.writes & waited:
            return True
        if mine.family == 'airplane' and other.family == 'airplane' and \
                (other.writes or other.result != mine.result):
            return True
    return False


# ------------------------------------------------------------ delay relay

class DelayRelay(SeqpacketRelay):
    """Packets from the fake to the applet (events, write statuses) are
    held `delay` seconds each, in order.  The applet's writes pass at
    once."""

    def __init__(self, path, upstream):
        self.delay = 0.0
        super().__init__(path, upstream)

    def connected(self, client, up):
        held = queue.Queue()
        threading.Thread(target=self._pump, args=(client, up, None),
                         daemon=True).start()
        threading.Thread(target=self._pump, args=(up, client, held),
                         daemon=True).start()
        threading.Thread(target=self._release, args=(held, client),
                         daemon=True).start()

    def _pump(self, src, dst, held):
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b''
            if not data:
                break
            if held is None:
                try:
                    dst.send(data)
                except OSError:
                    break
            else:
                held.put((time.monotonic() + self.delay, data))
        if held is not None:
            held.put((0, None))
        shutdown(src, dst)

    def _release(self, held, dst):
        while True:
            due, data = held.get()
            if data is None:
                break
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                dst.send(data)
            except OSError:
                break


# ----------------------------------------------------------------- harness

def gsettings(*args):
    subprocess.run(['gsettings'] + list(args), check=True)


def name_owner(bus, name):
    try:
        return bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                             'org.freedesktop.DBus', 'GetNameOwner',
                             V('(s)', (name,)), GLib.VariantType('(s)'),
                             Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
    except GLib.Error:
        return None


class Reply:
    def __init__(self):
        self.done = threading.Event()
        self.ok = None
        self.value = None
        self.error = None     # (D-Bus error name, message)

    def text(self):
        if not self.done.is_set():
            return 'no reply'
        if self.ok:
            return 'ok' + (f' {self.value}' if self.value not in (None, ()) else '')
        return f'error {self.error[0]}: {self.error[1]}'


class Harness:
    """One applet session on one kernel variant ('prompt' or 'delayed')."""

    def __init__(self, s, stack, variant, logdir):
        """s: the test's Session (bus, watcher); stack: what this variant
        starts (fake, relay, applet) is stopped with it."""
        self.variant, self.logdir = variant, logdir
        self.bus = s.bus
        self.fake = fakekernel.Fake(logdir, RADIO_TYPES)
        stack.callback(self.fake.stop)
        self.relay = None
        device = self.fake.socket
        if variant == 'delayed':
            device = os.path.join(os.environ['XDG_RUNTIME_DIR'], 'delay-relay.sock')
            self.relay = DelayRelay(device, self.fake.socket)
            stack.callback(self.relay.stop)
        self.device = device
        gsettings('set', gt.APP_ID, 'serve-gnome-rfkill', 'true')
        self.applet = gt.Applet(device, logdir, name=f'applet-{variant}')
        stack.callback(self.applet.stop)
        unique = self.applet.unique_name(self.bus)
        self.item = s.watcher.wait_item(unique)
        self.api = rfkapi.Api(self.bus)
        self.gsd = rfkapi.Api(self.bus, rfkapi.GSD_NAME, rfkapi.GSD_PATH, rfkapi.GSD_NAME)
        stack.callback(self.api.close)
        stack.callback(self.gsd.close)
        gt.wait_for(lambda: self.api.get('DeviceState') == 'ready', 10, 'ready')
        gt.wait_for(lambda: name_owner(self.bus, rfkapi.GSD_NAME) == unique, 10,
                    'the applet serving gsd\'s name')
        self.radios = self.fake.state()
        check([r['type'] for r in self.radios] == RADIO_TYPES, f'radios: {self.radios}')
        self.names = {r['idx']: r['name'] for r in self.radios}
        self.menu_path = self.item.menu_path()
        layout = gt.wait_for(lambda: self._menu_ids(), 10, 'every radio in the menu')
        self.airplane_id, self.radio_ids = layout
        self.bursts = self.passing = 0
        self.elapsed = self.passing_elapsed = 0.0
        self.phases = [0.0] * 4
        self.clean = False

    def _menu_ids(self):
        root = self.item.layout()
        airplane = self.item.find('Airplane mode', root).id
        ids = {}
        for e in root.children:
            for idx, name in self.names.items():
                if e.toggle_type == 'checkmark' and f'({name})' in e.label \
                        and not e.label.endswith(' in airplane mode'):
                    ids[idx] = e.id
        return (airplane, ids) if len(ids) == len(self.names) else None

    # -- sending

    def _call(self, dest, path, iface, method, params, reply_type, reply):
        def done(conn, result, _data):
            try:
                value = conn.call_finish(result)
                reply.ok = True
                reply.value = value.unpack() if value is not None else None
            except GLib.Error as error:
                reply.ok = False
                name = rfkapi.error_name(error) or str(error.domain)
                message = error.message
                if message.startswith('GDBus.Error:') and ': ' in message:
                    message = message.split(': ', 1)[1]
                reply.error = (name.rsplit('.', 1)[-1], message)
            reply.done.set()
        self.bus.call(dest, path, iface, method, params,
                      GLib.VariantType(reply_type) if reply_type else None,
                      Gio.DBusCallFlags.NO_AUTO_START,
                      int(REPLY_TIMEOUT_S * 1000 * gt.TIMEOUT_SCALE), None, done, None)

    def send(self, req):
        """Sends req without waiting for it to be carried out; returns its
        Reply (filled in by the main-loop thread)."""
        reply = Reply()
        k, a = req.kind, req.args
        ours = (gt.APP_ID, rfkapi.PATH, rfkapi.IFACE)
        if k == 'SetAirplaneMode':
            self._call(*ours, k, V('(b)', (a[0],)), None, reply)
        elif k == 'ToggleAirplaneMode':
            self._call(*ours, k, None, '(b)', reply)
        elif k == 'SetRadioBlocked':
            self._call(*ours, k, V('(ub)', (a[0], a[1])), None, reply)
        elif k == 'Prop':
            dest, path, iface = ours if a[0] == 'ours' else (
                rfkapi.GSD_NAME, rfkapi.GSD_PATH, rfkapi.GSD_NAME)
            self._call(dest, path, rfkapi.PROPS, 'Set',
                       V('(ssv)', (iface, a[1], V('b', a[2]))), None, reply)
        elif k in ('ClickAirplane', 'ClickRadio'):
            ident = self.airplane_id if k == 'ClickAirplane' else self.radio_ids[a[0]]
            self._call(self.item.name, self.menu_path, gt.MENU_IFACE, 'Event',
                       V('(isvu)', (ident, 'clicked', V('s', ''),
                                    int(time.time()) & 0xffffffff)), None, reply)
        elif k == 'SecondaryActivate':
            self._call(self.item.name, self.item.path, gt.SNI_IFACE, k,
                       V('(ii)', (0, 0)), None, reply)
        elif k == 'CLI':
            # Everything we sent is out before the CLI connects.
            self.bus.flush_sync(None)
            cli_started = time.monotonic()
            r = subprocess.run([gt.program('RFK_APPLET'), '--device', self.device,
                                '--airplane', a[0]], capture_output=True, text=True,
                               timeout=REPLY_TIMEOUT_S * gt.TIMEOUT_SCALE)
            reply.ok = r.returncode == 0
            reply.value = r.stdout.strip()
            log(f'{req.text(self.names)}: exit {r.returncode} after '
                f'{time.monotonic() - cli_started:.2f} s')
            if not reply.ok:
                reply.error = (f'exit {r.returncode}', (r.stdout + r.stderr).strip())
            elif r.stderr.strip():
                # Success says nothing on stderr (a GLib CRITICAL did).
                reply.ok = False
                reply.error = ('stderr', r.stderr.strip())
            reply.done.set()
        else:
            raise ValueError(k)
        return reply

    def call_sync(self, req):
        reply = self.send(req)
        if not reply.done.wait(REPLY_TIMEOUT_S * gt.TIMEOUT_SCALE):
            raise gt.TestFailure(f'{req.text(self.names)}: no reply')
        return reply

    # -- reading back

    def observe(self):
        out = {}
        for r in self.fake.state():
            out[f'soft {r["idx"]}'] = r['soft']
        for obj, api in (('ours', self.api), ('gsd', self.gsd)):
            props = api.get_all()
            for p in ('AirplaneMode', 'BluetoothAirplaneMode', 'WwanAirplaneMode'):
                out[f'{obj} {p}'] = props[p]
            if obj == 'ours':
                view = {r['index']: r['soft'] for r in props['Radios']}
                for r in props['Radios']:
                    out[f'exception {r["index"]}'] = r['airplane-exception']
        return out, view

    def settle(self, expected, quiet):
        """Waits until the kernel has been quiet (no write, no change) for
        `quiet` seconds, and, when what we read differs from expected,
        gives the applet up to 0.5 s more to get there; returns what we read
        and the applet's own view of the radios."""
        end = time.monotonic() + 0.5 * gt.TIMEOUT_SCALE
        give_up = time.monotonic() + 10.0 * gt.TIMEOUT_SCALE
        while True:
            before = (self.fake.writes(), self.fake.command('list'))
            time.sleep(quiet)
            after = (self.fake.writes(), self.fake.command('list'))
            if before != after and time.monotonic() < give_up:
                continue
            got, view = self.observe()
            kernel = {i: got[f'soft {i}'] for i in self.names}
            if (got == expected and view == kernel) or time.monotonic() > end:
                return got, view
            time.sleep(0.05)

    # -- a burst

    def reset(self, soft, with_list):
        """The start state, through our own API one awaited call at a time
        (the sequential path): the list forgotten, each radio as asked, and
        airplane mode on from there when with_list.  After a burst that kept
        the rules, its probe (airplane mode off) has forgotten the list
        already."""
        if not self.clean:
            self.call_sync(Req('SetAirplaneMode', False))
        self.clean = False
        self.remove_exceptions()
        for r in self.fake.state():
            if r['soft'] != soft[r['idx']]:
                self.call_sync(Req('SetRadioBlocked', r['idx'], soft[r['idx']]))
        model = Model(self.radios, soft)
        if with_list:
            self.call_sync(Req('SetAirplaneMode', True))
            model.airplane_on()
        expected = model.observed()
        got, view = self.settle(expected, 0.01)
        if got != expected:
            raise gt.TestFailure(
                f'{self.variant}: could not set the start state {model.describe(self.names)}'
                f' one request at a time: {diff(expected, got)}')
        return model

    def remove_exceptions(self):
        """As a user does: a click on each "… stays on/off in airplane
        mode" item, which, airplane mode being off, writes nothing.  Which
        radios are exceptions is read from Radios: the menu may not show
        the last one yet."""
        def spared():
            return [r['name'] for r in self.api.get('Radios') if r['airplane-exception']]

        def entry(name):
            for e in self.item.layout().children:
                if e.visible and f'({name}) stays' in e.label \
                        and e.label.endswith(' in airplane mode'):
                    return e
            return None
        # The menu catches up with the model after a burst at its own pace
        # (up to 2 s): an item clicked just before it is replaced is lost,
        # as a user's would be, so each is clicked again until it is gone.
        for _ in range(5):
            for name in spared():
                self.item.click(gt.wait_for(lambda: entry(name), 5,
                                            f'the menu item of the exception {name}'))
            try:
                gt.wait_for(lambda: not spared(), 1, 'every exception removed')
                return
            except gt.TestFailure:
                pass
        try:
            gt.wait_for(lambda: not spared(), 5, 'every exception removed')
        except gt.TestFailure as failure:
            raise gt.TestFailure(f'{failure}: Radios has {spared()}, the menu '
                                 f'{self.item.dump()}') from None

    def delay(self):
        return self.relay.delay if self.relay else 0.0

    def set_delay(self, delay):
        if self.relay:
            self.relay.delay = delay

    def burst(self, title, soft, with_list, reqs, replay='', delay=None):
        """Resets to the start state, sends reqs back to back, waits for
        quiet and compares with the model.  Returns a list of problems
        (empty when the doors kept the rules); prints the burst if any.
        On the delayed kernel, answers are held `delay` s during the burst
        only (the reset and the probe run at full speed)."""
        started = time.monotonic()
        self.set_delay(0.0)
        model = self.reset(soft, with_list)
        t_reset = time.monotonic()
        self.set_delay(SCENARIO_DELAY if delay is None else delay)
        start_text = model.describe(self.names)
        effects = [model.apply(r) for r in reqs]
        replies = []
        for r in reqs:
            reply = self.send(r)
            replies.append(reply)
            if CLICK_WAIT and r.kind in ('ClickAirplane', 'ClickRadio'):
                reply.done.wait(REPLY_TIMEOUT_S * gt.TIMEOUT_SCALE)
        deadline = time.monotonic() + REPLY_TIMEOUT_S * gt.TIMEOUT_SCALE
        for reply in replies:
            reply.done.wait(max(0.0, deadline - time.monotonic()))
        expected = model.observed()
        t_sent = time.monotonic()
        got, view = self.settle(expected, QUIET_S + 2 * self.delay())
        t_settled = time.monotonic()
        shown_delay = self.delay()
        self.set_delay(0.0)
        problems = []
        if got != expected:
            problems.append('[state] final state: ' + diff(expected, got))
        kernel = {i: got[f'soft {i}'] for i in self.names}
        if view != kernel:
            problems.append(f'[view] the applet\'s Radios {self.named(view)} != the kernel\'s '
                            f'{self.named(kernel)}')
        for n, (r, e, reply) in enumerate(zip(reqs, effects, replies)):
            what = f'request {n + 1} ({r.text(self.names)})'
            if not reply.done.is_set():
                problems.append(f'[no reply] {what}: no reply in {REPLY_TIMEOUT_S} s')
            elif not reply.ok:
                superseded = 'Superseded' in (reply.error[1] or '')
                if not (superseded and r.waits and allowed_superseded(n, reqs, effects)):
                    problems.append(
                        ('[superseded] ' if superseded else '[error] ')
                        + f'{what}: {reply.text()}'
                        + (' (rules: no later request takes it over)'
                           if superseded else ''))
            elif r.kind == 'ToggleAirplaneMode' and reply.value != (e.result,):
                problems.append(f'[answer] {what} answered {reply.value}, '
                                f'rules: {e.result}')
            elif r.kind == 'CLI':
                want = f'Airplane mode is {"on" if e.result else "off"}.'
                if reply.value != want:
                    problems.append(f'[answer] {what} printed {reply.value!r}, '
                                    f'rules: {want!r}')
        # The list as the burst left it: airplane mode off restores it.
        probe_model = model.copy()
        probe_model.airplane_off()
        probe = self.call_sync(Req('SetAirplaneMode', False))
        after = {r['idx']: r['soft'] for r in self.fake.state()}
        if got == expected and (not probe.ok or after != probe_model.soft):
            problems.append(
                '[list] SetAirplaneMode(false) after the burst left '
                f'{self.named(after)} ({probe.text()}); rules: '
                f'{self.named(probe_model.soft)}')
        self.phases = [a + b for a, b in zip(self.phases, (
            t_reset - started, t_sent - t_reset, t_settled - t_sent,
            time.monotonic() - t_settled))]
        self.bursts += 1
        self.elapsed += time.monotonic() - started
        self.clean = not problems
        if not problems:
            self.passing += 1
            self.passing_elapsed += time.monotonic() - started
        if problems:
            lines = [f'MISMATCH [{self.variant} kernel'
                     + (f', answers held {shown_delay * 1000:.0f} ms' if self.relay else '')
                     + f'] {title}' + (f'  (replay: {replay})' if replay else ''),
                     f'  start:    {start_text}',
                     '  requests, sent back to back on one connection:']
            for n, (r, e, reply) in enumerate(zip(reqs, effects, replies)):
                plan = (f'airplane {"on" if e.result else "off"}' if e.family == 'airplane'
                        else e.family)
                writes = ','.join(self.names[i] for i in sorted(e.writes)) or 'nothing'
                lines.append(f'    {n + 1}. {r.text(self.names):48} -> {reply.text():24}'
                             f' rules: {plan}, writes {writes}'
                             + (f' ({e.note})' if e.note else ''))
            lines.append(f'  rules:    {model.describe(self.names)}')
            lines.append(f'  expected: {fmt(expected)}')
            lines.append(f'  got:      {fmt(got)}')
            lines += [f'  problem:  {p}' for p in problems]
            print('\n'.join('# ' + line for line in lines), flush=True)
        return problems

    def named(self, soft):
        return ' '.join(f'{self.names[i]}={onoff(b)}' for i, b in sorted(soft.items()))


def diff(expected, got):
    keys = [k for k in expected if expected[k] != got.get(k)]
    return ', '.join(f'{k}: expected {expected[k]}, got {got.get(k)}' for k in keys) \
        or 'same'


def fmt(state):
    return ' '.join(f'{k.replace(" ", ".")}={int(v)}' for k, v in state.items())


# --------------------------------------------------------------- scenarios
# Each: (start soft states by index, with_list, requests).  Radios:
# 0 phy0 and 1 phy1 (Wi-Fi), 2 hci0 (Bluetooth), 3 wwan0 (modem).

ALL_ON = {0: False, 1: False, 2: False, 3: False}
# How long the delayed kernel holds its answers in the scenarios; with a
# CLI, long enough for the process to start and ask while ours is in flight.
SCENARIO_DELAY = 0.05
CLI_DELAY = 0.5


def scenario_toggle_wifi_on_toggle(h):
    """ToggleAirplaneMode, SetRadioBlocked(wifi, false), ToggleAirplaneMode:
    Wi-Fi on in airplane mode is an exception, so the last toggle sees
    airplane mode holding for the others and ends it; Wi-Fi stays on."""
    return h.burst('toggle, Wi-Fi on, toggle', ALL_ON, False, [
        Req('ToggleAirplaneMode'), Req('SetRadioBlocked', 0, False),
        Req('ToggleAirplaneMode')])


def scenario_toggle_gsd_bluetooth_on_toggle(h):
    """ToggleAirplaneMode, gsd's BluetoothAirplaneMode=false (GNOME Shell's
    Bluetooth switch), ToggleAirplaneMode: Bluetooth is an exception, the
    last toggle ends airplane mode and leaves Bluetooth on."""
    return h.burst('toggle, gsd BluetoothAirplaneMode=false, toggle', ALL_ON, False, [
        Req('ToggleAirplaneMode'), Req('Prop', 'gsd', 'BluetoothAirplaneMode', False),
        Req('ToggleAirplaneMode')])


def scenario_toggle_radio_off_on_airplane_on(h):
    """ToggleAirplaneMode, SetRadioBlocked(0, true), SetRadioBlocked(0,
    false), SetAirplaneMode(true): radio 0 on is an exception, so the last
    request (planned anew, not joined) leaves it on."""
    return h.burst('toggle, radio 0 off, radio 0 on, airplane on', ALL_ON, False, [
        Req('ToggleAirplaneMode'), Req('SetRadioBlocked', 0, True),
        Req('SetRadioBlocked', 0, False), Req('SetAirplaneMode', True)])


def scenario_two_middle_clicks(h):
    """Two SecondaryActivate back to back: two toggles end where they began."""
    return h.burst('two middle clicks', ALL_ON, False, [
        Req('SecondaryActivate'), Req('SecondaryActivate')])


def scenario_two_middle_clicks_from_airplane_mode(h):
    """The same, starting in airplane mode with a list (phy1 off before)."""
    return h.burst('two middle clicks from airplane mode',
                   {0: False, 1: True, 2: False, 3: False}, True, [
                       Req('SecondaryActivate'), Req('SecondaryActivate')])


def scenario_menu_click_then_middle_click(h):
    """A click on the menu's "Airplane mode" item followed at once by a
    middle click (no wait for the Event's reply): two toggles."""
    global CLICK_WAIT
    saved, CLICK_WAIT = CLICK_WAIT, False
    try:
        return h.burst('menu "Airplane mode" click, then middle click', ALL_ON, False, [
            Req('ClickAirplane'), Req('SecondaryActivate')])
    finally:
        CLICK_WAIT = saved


def scenario_identical_airplane_on_method_and_property(h):
    """SetAirplaneMode(true) still waiting when our AirplaneMode=true
    arrives: the same request, both must succeed (no "Superseded")."""
    return h.burst('SetAirplaneMode(true) + our AirplaneMode=true', ALL_ON, False, [
        Req('SetAirplaneMode', True), Req('Prop', 'ours', 'AirplaneMode', True)])


def scenario_identical_airplane_on_method_and_gsd_property(h):
    """The same with gsd's AirplaneMode=true."""
    return h.burst('SetAirplaneMode(true) + gsd AirplaneMode=true', ALL_ON, False, [
        Req('SetAirplaneMode', True), Req('Prop', 'gsd', 'AirplaneMode', True)])


def scenario_identical_airplane_on_twice(h):
    """Two SetAirplaneMode(true) back to back: both succeed."""
    return h.burst('SetAirplaneMode(true) twice', ALL_ON, False, [
        Req('SetAirplaneMode', True), Req('SetAirplaneMode', True)])


def scenario_toggle_then_cli_toggle(h):
    """ToggleAirplaneMode in flight, then `rfkill-applet --airplane toggle`
    (another connection, started once ours is flushed): two toggles end
    where they began; the CLI prints the state it left."""
    return h.burst('ToggleAirplaneMode, then --airplane toggle', ALL_ON, False, [
        Req('ToggleAirplaneMode'), Req('CLI', 'toggle')], delay=CLI_DELAY)


def scenario_airplane_on_then_cli_on(h):
    """SetAirplaneMode(true) in flight, then `--airplane on`: the same
    request twice, both succeed."""
    return h.burst('SetAirplaneMode(true), then --airplane on', ALL_ON, False, [
        Req('SetAirplaneMode', True), Req('CLI', 'on')], delay=CLI_DELAY)


def scenario_radio_click_then_method_in_order(h):
    """A click on phy0's menu item (off) and, right behind it on the same
    connection, SetRadioBlocked(phy0, false), without waiting for the
    Event's reply: applied in the order they arrive, phy0 ends on."""
    global CLICK_WAIT
    saved, CLICK_WAIT = CLICK_WAIT, False
    try:
        return h.burst('click phy0, then SetRadioBlocked(phy0, false) at once', ALL_ON,
                       False, [Req('ClickRadio', 0), Req('SetRadioBlocked', 0, False)])
    finally:
        CLICK_WAIT = saved


def scenario_airplane_click_then_method_in_order(h):
    """A click on "Airplane mode" (on) and, right behind it, SetRadioBlocked
    (phy0, false), without waiting for the Event's reply: phy0 on ends
    airplane mode, the others stay off."""
    global CLICK_WAIT
    saved, CLICK_WAIT = CLICK_WAIT, False
    try:
        return h.burst('click "Airplane mode", then SetRadioBlocked(phy0, false) at once',
                       ALL_ON, False, [Req('ClickAirplane'), Req('SetRadioBlocked', 0, False)])
    finally:
        CLICK_WAIT = saved


SCENARIOS = [scenario_toggle_wifi_on_toggle,
             scenario_toggle_gsd_bluetooth_on_toggle,
             scenario_toggle_radio_off_on_airplane_on,
             scenario_two_middle_clicks,
             scenario_two_middle_clicks_from_airplane_mode,
             scenario_menu_click_then_middle_click,
             scenario_identical_airplane_on_method_and_property,
             scenario_identical_airplane_on_method_and_gsd_property,
             scenario_identical_airplane_on_twice,
             scenario_toggle_then_cli_toggle,
             scenario_airplane_on_then_cli_on,
             scenario_radio_click_then_method_in_order,
             scenario_airplane_click_then_method_in_order]


def check_model():
    """The model against the outcomes issue 27 states (pure Python, before
    any applet runs): a wrong model must not pass for a right applet."""
    radios = [dict(idx=i, type=t) for i, t in enumerate(RADIO_TYPES)]

    def run(reqs, soft=ALL_ON, with_list=False):
        m = Model(radios, soft)
        if with_list:
            m.airplane_on()
        return m, [m.apply(r) for r in reqs]
    # Wi-Fi on in airplane mode is an exception: the second toggle ends
    # airplane mode for the others and leaves Wi-Fi on.
    m, _ = run([Req('ToggleAirplaneMode'), Req('SetRadioBlocked', 0, False),
                Req('ToggleAirplaneMode')])
    check(not m.airplane() and not m.soft[0] and m.exceptions == {0},
          'model: toggle, Wi-Fi on, toggle')
    m, _ = run([Req('ToggleAirplaneMode'), Req('Prop', 'gsd', 'BluetoothAirplaneMode', False),
                Req('ToggleAirplaneMode')])
    check(not m.airplane() and not m.soft[2] and m.exceptions == {2},
          'model: toggle, Bluetooth on, toggle')
    m, _ = run([Req('ToggleAirplaneMode'), Req('SetRadioBlocked', 0, True),
                Req('SetRadioBlocked', 0, False), Req('SetAirplaneMode', True)])
    check(m.airplane() and not m.soft[0], 'model: toggle, radio 0 off and on, airplane on')
    for start, with_list in ((ALL_ON, False), ({0: False, 1: True, 2: False, 3: False}, True)):
        m, _ = run([Req('SecondaryActivate'), Req('ClickAirplane')], start, with_list)
        want, _ = run([], start, with_list)
        check(m.soft == want.soft and m.list == want.list, 'model: two toggles')
    m, _ = run([Req('SetAirplaneMode', True)], {0: False, 1: True, 2: False, 3: False})
    m.airplane_off()
    check(m.soft == {0: False, 1: True, 2: False, 3: False}, 'model: off restores')
    # A radio on keeps the list: off restores the others, leaves it on.
    m, _ = run([Req('SetAirplaneMode', True), Req('SetRadioBlocked', 0, False),
                Req('SetAirplaneMode', False)], {0: False, 1: True, 2: False, 3: False})
    check(m.soft == {0: False, 1: True, 2: False, 3: False} and m.list is None
          and m.exceptions == {0}, 'model: a radio on is an exception')
    # The last radio airplane mode has, turned on, ends it and drops the
    # list: off then does nothing.
    m, _ = run([Req('SetAirplaneMode', True), Req('SetRadioBlocked', 0, False),
                Req('SetRadioBlocked', 1, False), Req('SetRadioBlocked', 2, False),
                Req('SetRadioBlocked', 3, False), Req('SetAirplaneMode', False)],
               {0: True, 1: True, 2: True, 3: True})
    check(m.soft == {0: False, 1: False, 2: False, 3: False} and m.list is None
          and m.exceptions == {0, 1, 2}, 'model: the last radio on drops the list')
    reqs = [Req('SetAirplaneMode', True), Req('Prop', 'ours', 'AirplaneMode', True)]
    _, effects = run(reqs)
    check(not allowed_superseded(0, reqs, effects) and
          not allowed_superseded(1, reqs, effects), 'model: identical requests join')
    reqs = [Req('ToggleAirplaneMode'), Req('ToggleAirplaneMode')]
    _, effects = run(reqs)
    check(allowed_superseded(0, reqs, effects), 'model: a toggle back ends the first')


# ---------------------------------------------------------- random bursts

def random_request(rng, n_radios):
    b = rng.random() < 0.5
    choices = [
        (3, lambda: Req('SetAirplaneMode', b)),
        (3, lambda: Req('ToggleAirplaneMode')),
        (5, lambda: Req('SetRadioBlocked', rng.randrange(n_radios), b)),
        (1, lambda: Req('Prop', 'ours', 'AirplaneMode', b)),
        (1, lambda: Req('Prop', 'gsd', 'AirplaneMode', b)),
        (1, lambda: Req('Prop', 'gsd', 'BluetoothAirplaneMode', b)),
        (1, lambda: Req('Prop', 'gsd', 'WwanAirplaneMode', b)),
        (0.5, lambda: Req('Prop', 'ours', 'BluetoothAirplaneMode', b)),
        (0.5, lambda: Req('Prop', 'ours', 'WwanAirplaneMode', b)),
        (1.5, lambda: Req('ClickAirplane')),
        (1.5, lambda: Req('ClickRadio', rng.randrange(n_radios))),
        (1.5, lambda: Req('SecondaryActivate')),
        (0.4, lambda: Req('CLI', rng.choice(['on', 'off', 'toggle']))),
    ]
    pick = rng.uniform(0, sum(w for w, _ in choices))
    for w, make in choices:
        pick -= w
        if pick <= 0:
            return make()
    return choices[-1][1]()


def random_burst(seed, variant, index, n_radios):
    rng = random.Random(f'{seed}:{variant}:{index}')
    if rng.random() < 0.1:
        soft = {i: True for i in range(n_radios)}       # all off, no list
    else:
        soft = {i: rng.random() < 0.3 for i in range(n_radios)}
    with_list = rng.random() < 0.4
    reqs = [random_request(rng, n_radios) for _ in range(rng.randint(2, 6))]
    delay = rng.choice([0.01, 0.02, 0.04, 0.08]) if variant == 'delayed' else 0.0
    return soft, with_list, reqs, delay


# -------------------------------------------------------------------- test

def test(logdir):
    seed = int(os.environ.get('RFK_DOORS_SEED') or random.SystemRandom().randrange(1 << 31))
    runs = int(os.environ.get('RFK_DOORS_RUNS', '2000'))
    only = [tuple(x.split(':')) for x in os.environ.get('RFK_DOORS_ONLY', '').split(',') if x]
    max_failures = int(os.environ.get('RFK_DOORS_MAX_FAILURES', '20'))
    pick = os.environ.get('RFK_DOORS_SCENARIOS', '')
    scenarios = [] if pick == '0' else [
        f for f in SCENARIOS if not pick or f.__name__ in pick.split(',')]
    repeat = int(os.environ.get('RFK_DOORS_REPEAT', '5'))
    per_variant = {'prompt': runs - runs // 8, 'delayed': runs // 8}
    log(f'RFK_DOORS_SEED={seed} RFK_DOORS_RUNS={runs} '
        f'(prompt {per_variant["prompt"]}, delayed {per_variant["delayed"]}); '
        f'clicks wait for the Event reply: {CLICK_WAIT}')
    check_model()
    s = gt.Session(logdir, None, watcher=True)
    try:
        failed_scenarios, random_failures, summary = run_variants(
            s, logdir, seed, per_variant, only, max_failures, scenarios, repeat)
    finally:
        s.__exit__(None, None, None)
    log('scenarios failing:', ', '.join(failed_scenarios) or 'none')
    log('random bursts failing:', ', '.join(random_failures) or 'none',
        f'(RFK_DOORS_SEED={seed})')
    check(not failed_scenarios and not random_failures,
          f'{len(failed_scenarios)} scenarios and {len(random_failures)} random bursts '
          f'broke the rules (seed {seed}; {"; ".join(summary)}); see MISMATCH above')


def run_variants(s, logdir, seed, per_variant, only, max_failures, scenarios, repeat):
    failed_scenarios = []
    random_failures = []
    summary = []
    for variant in ('prompt', 'delayed'):
        indices = ([int(i) for v, i in only if v == variant] if only
                   else range(per_variant[variant]))
        if only and not indices:
            continue
        with contextlib.ExitStack() as stack:
            h = Harness(s, stack, variant, logdir)
            for scenario in ([] if only else scenarios):
                # Timing decides whether a request is still in flight:
                # each scenario runs several times.
                failed = 0
                first = None
                for _ in range(repeat):
                    problems = scenario(h)
                    if problems:
                        failed += 1
                        first = first or problems
                verdict = 'FAIL' if failed else 'ok'
                log(f'{verdict} {scenario.__name__} [{variant}]: failed {failed} of '
                    f'{repeat} runs' + (': ' + '; '.join(first) if first else ''))
                if failed:
                    failed_scenarios.append(f'{scenario.__name__} [{variant}] '
                                            f'({failed}/{repeat})')
            h.bursts = h.passing = 0
            h.elapsed = h.passing_elapsed = 0.0
            h.phases = [0.0] * 4
            failures = 0
            categories = {}
            for index in indices:
                soft, with_list, reqs, delay = random_burst(seed, variant, index,
                                                            len(h.names))
                replay = f'RFK_DOORS_SEED={seed} RFK_DOORS_ONLY={variant}:{index}'
                problems = h.burst(f'random burst {index} of seed {seed}', soft,
                                   with_list, reqs, replay, delay)
                if problems:
                    failures += 1
                    random_failures.append(f'{variant}:{index}')
                    for tag in sorted({p.split(']')[0] + ']' for p in problems}):
                        categories[tag] = categories.get(tag, 0) + 1
                    if failures >= max_failures:
                        log(f'{variant}: {failures} failing bursts, stopping here')
                        break
            if h.bursts:
                rate = h.bursts / h.elapsed if h.elapsed else 0
                summary.append(f'{variant}: {h.bursts} bursts in {h.elapsed:.1f} s '
                               f'({rate:.1f}/s), {failures} failing; the passing ones '
                               f'{h.passing_elapsed / max(1, h.passing) * 1000:.0f} ms each')
                log(summary[-1])
                log(f'{variant}: time per burst: ' + ', '.join(
                    f'{name} {t / h.bursts * 1000:.0f} ms' for name, t in zip(
                        ('reset', 'send + replies', 'quiet + compare', 'probe'),
                        h.phases)))
                if categories:
                    log(f'{variant}: failing bursts by kind of problem (a burst may '
                        f'count in several): ' + ', '.join(
                            f'{k} {v}' for k, v in sorted(categories.items())))
    return failed_scenarios, random_failures, summary


if __name__ == '__main__':
    gt.run(test)
