#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The bench's kernel-side figures, measured in one VM boot (TAP).

The VM (tests/vm/vmrun.py) runs our rfkill.ko and asus-wireless.ko on the
kernel suite's fake ASUS device (the ATK4002 SSDT: its HSWC writes the
LED to port 0x440, '1' on, '0' off), with mac80211_hwsim radios.  The
port is an isa-debugcon whose chardev is a unix socket this script
listens on, so every byte is timestamped as it arrives on the host.

- LED: the guest writes 'B' to the port and blocks every radio
  (CHANGE_ALL), or 'U' and unblocks them; latency is the arrival of the
  LED byte minus the arrival of the marker, so the path to the host
  cancels out.  The byte must be what the fixture writes for the upstream
  driver's meaning of the airplane-mode LED (on while every radio is
  blocked): a wrong or missing byte fails the run, it is not a sample.
- storm: the guest's counts (guest/bench-storm.c) and the LED bytes the
  storm produced, the last of which must be the radios' final state.

Writes OUT/bench-kernel.json (report.py fills the bench table from it);
a failed run leaves no figures there, only the reason.
"""

import argparse
import datetime
import json
import math
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time

from vm.testlib import VMRUN, Tap, kbuild

# What the ATK4002 fixture writes for HSWC's LED arguments.
LED_BYTE = {True: b'1', False: b'0'}
MARKER = {b'B': True, b'U': False}       # the LED state the step must show
TARGET_MS = 50


class DebugconListener:
    """The host end of the debugcon chardev: qemu connects at startup;
    a thread keeps (arrival ns, byte) for every byte until qemu exits."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(1)
        self.bytes = []
        self.conn = None
        self.thread = None
        self.realtime = False

    def accept(self, timeout, alive):
        end = time.monotonic() + timeout
        while time.monotonic() < end and alive():
            if select.select([self.sock], [], [], 0.5)[0]:
                self.conn, _ = self.sock.accept()
                self.thread = threading.Thread(target=self._read, daemon=True)
                self.thread.start()
                return True
        return False

    def _read(self):
        # Real-time priority, so that a busy host (qemu's TCG thread is one)
        # does not delay the wake-up and fold a marker and its LED byte into
        # one arrival; same_chunk counts those that still are.
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
            self.realtime = True
        except OSError:
            self.realtime = False
        while True:
            chunk = self.conn.recv(4096)
            t = time.monotonic_ns()
            if not chunk:
                return
            self.bytes.extend((t, chunk[i:i + 1]) for i in range(len(chunk)))

    def close(self):
        if self.thread:
            self.thread.join(10)
        for s in (self.conn, self.sock):
            if s:
                s.close()


def tokens(data):
    """[(ns, token)]: '<name>' markers (timed at '<') and single bytes."""
    out, i = [], 0
    while i < len(data):
        t, b = data[i]
        if b == b'<':
            j = i + 1
            while j < len(data) and data[j][1] != b'>':
                j += 1
            out.append((t, b'<' + b''.join(x for _, x in data[i + 1:j]) + b'>'))
            i = j + 1
        else:
            out.append((t, b))
            i += 1
    return out


def section(toks, start, stop):
    names = [tok for _, tok in toks]
    if start not in names:
        return None
    a = names.index(start) + 1
    b = names.index(stop, a) if stop in names[a:] else len(toks)
    return toks[a:b]


def led_samples(toks, reps):
    """Latencies (ms) of block and unblock, and the errors found."""
    lat = {True: [], False: []}
    errors = []
    same_chunk = 0
    steps = []       # [marker token, [following tokens]]
    for t, tok in toks:
        if tok in MARKER:
            steps.append([(t, tok), []])
        elif steps:
            steps[-1][1].append((t, tok))
        else:
            errors.append(f'LED byte {tok!r} before the first marker')
    for (t0, marker), after in steps:
        want = LED_BYTE[MARKER[marker]]
        got = b''.join(tok for _, tok in after)
        # a repeated write of the same state is one physical state
        if not after or set(tok for _, tok in after) != {want}:
            errors.append(f'after {marker.decode()} the LED wrote {got!r}, want {want!r}')
            continue
        t1 = after[0][0]
        same_chunk += t1 == t0
        lat[MARKER[marker]].append((t1 - t0) / 1e6)
    for state, name in ((True, 'block'), (False, 'unblock')):
        if len(lat[state]) != reps and not errors:
            errors.append(f'{len(lat[state])} {name} samples, want {reps}')
    return lat, errors, same_chunk


def stats(samples):
    s = sorted(samples)
    if not s:
        return None
    def rank(p):     # nearest rank
        return s[max(0, math.ceil(p * len(s)) - 1)]
    return {'n': len(s), 'median_ms': round(rank(0.5), 3), 'p99_ms': round(rank(0.99), 3),
            'min_ms': round(s[0], 3), 'max_ms': round(s[-1], 3)}


def guest_json(stdout, phase):
    m = re.search(rf'^# bench-kernel-{phase} (\{{.*\}})$', stdout, re.M)
    return json.loads(m.group(1)) if m else None


def build(args, tap):
    b = kbuild(args.kernel, args.kernel_src, args.work_dir, 'src',
               ['rfkill/rfkill.ko', 'asus-wireless/asus-wireless.ko'],
               [f'RFKILL_AIRPLANE_VERSION={args.version}'])
    if not tap.check(b.ok, f'rfkill.ko and asus-wireless.ko build against {b.headers}',
                     b.tail(30)):
        return None
    return b.kos


def run_vm(args, kos, tmp, tap):
    """Boots the VM; returns (vmrun rc, its stdout, debugcon bytes, whether
    the host's reader ran at real-time priority)."""
    sock = os.path.join(tmp, 'debugcon.sock')
    dbg = DebugconListener(sock)
    rfkill_ko, asus_ko = kos
    cmd = VMRUN + [
        '--kernel', args.kernel,
        '--module', rfkill_ko,
        '--in-tree-module', f'mac80211_hwsim radios={args.radios}',
        '--module', asus_ko,
        '--acpitable', args.aml,
        '--guest-program', args.guest,
        '--guest-args', f'{args.radios} {args.reps} {args.gap_ms} {args.storm_seconds}',
        '--qemu-arg=-chardev', f'--qemu-arg=socket,id=dbgsock,path={sock}',
        '--qemu-arg=-device', '--qemu-arg=isa-debugcon,iobase=0x440,chardev=dbgsock',
        '--timeout', str(args.timeout),
        '--one-boot']  # the debugcon listener times this boot as it runs
    tap.diag('vm: ' + ' '.join(cmd))
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            text=True)
    out = []
    pump = threading.Thread(target=lambda: out.extend(proc.stdout), daemon=True)
    pump.start()
    connected = dbg.accept(120, lambda: proc.poll() is None)
    proc.wait()
    pump.join(10)
    dbg.close()
    tap.check(connected, 'qemu connected its debugcon to the host socket')
    return proc.returncode, ''.join(out), dbg.bytes, dbg.realtime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--kernel-src', required=True, help='kernel/ of the checkout')
    ap.add_argument('--work-dir', required=True, help='build dir for the modules')
    ap.add_argument('--version', default='0.1.0')
    ap.add_argument('--aml', required=True, help='the ATK4002 fixture')
    ap.add_argument('--guest', required=True, help='bench-kernel-guest')
    ap.add_argument('--out', required=True, help='where bench-kernel.json goes')
    ap.add_argument('--radios', type=int, default=64)
    ap.add_argument('--reps', type=int, default=100, help='blocks (and unblocks)')
    ap.add_argument('--gap-ms', type=int, default=150)
    ap.add_argument('--storm-seconds', type=int, default=10)
    ap.add_argument('--timeout', type=float, default=900)
    ap.add_argument('--target-scale', type=float, default=1.0,
                    help='judge p99 against this many times the target (bench-smoke: 2)')
    args = ap.parse_args()

    tap = Tap()
    os.makedirs(args.out, exist_ok=True)
    out_path = os.path.join(args.out, 'bench-kernel.json')
    if os.path.exists(out_path):
        os.unlink(out_path)     # never leave an older run's figures behind
    result = {'kernel': args.kernel, 'radios': args.radios,
              'when': datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds'),
              'errors': []}

    kos = build(args, tap)
    if kos:
        with tempfile.TemporaryDirectory(prefix='bench-kernel-') as tmp:
            rc, stdout, data, realtime = run_vm(args, kos, tmp, tap)
        result['host_reader_realtime'] = realtime
        for line in stdout.splitlines():
            m = re.match(r'^(not ok|ok)\b(?:\s+\d+)?(.*)$', line)
            if m:
                tap.raw(m.group(1) == 'ok', m.group(2))
            elif not re.match(r'^1\.\.\d+$', line):
                print(line, flush=True)
        if not tap.check(rc == 0, f'the VM run passed (vmrun rc={rc})'):
            result['errors'].append(f'the VM run failed (vmrun rc={rc})')
        evaluate(args, tap, tokens(data), stdout, result)
    else:
        result['errors'].append('the modules did not build')

    with open(out_path, 'w') as f:
        json.dump(result, f, indent=2, sort_keys=True)
    summary(result, out_path)
    return tap.done()


def evaluate(args, tap, toks, stdout, result):
    """The figures from the debugcon tokens and the guest's JSON lines."""
    led = section(toks, b'<led>', b'<led-end>')
    if not tap.check(led is not None, 'the LED phase was marked on the debugcon'):
        result['errors'].append('no LED phase on the debugcon')
        return
    lat, errors, same_chunk = led_samples(led, args.reps)
    for e in errors[:20]:
        tap.diag(e)
    if tap.check(not errors, f'every block lit the LED ({LED_BYTE[True]!r}) and every '
                 f'unblock put it out ({LED_BYTE[False]!r}), {args.reps} times each'):
        result['led'] = {'block': stats(lat[True]), 'unblock': stats(lat[False]),
                         'target_ms': TARGET_MS, 'same_chunk': same_chunk,
                         'guest': guest_json(stdout, 'led')}
        for name in ('block', 'unblock'):
            s = result['led'][name]
            tap.check(s['p99_ms'] < TARGET_MS * args.target_scale,
                      f'LED {name}-all p99 {s["p99_ms"]:.2f} ms < '
                      f'{TARGET_MS * args.target_scale:g} ms '
                      f'(median {s["median_ms"]:.2f}, n={s["n"]})')
    else:
        result['errors'].append(f'LED: {errors[0]}' + (f' (+{len(errors) - 1} more)'
                                                       if len(errors) > 1 else ''))

    storm = guest_json(stdout, 'storm')
    storm_toks = section(toks, b'<storm>', b'<end>')
    if not tap.check(storm is not None and storm_toks is not None,
                     'the storm ran and the guest reported its counts'):
        result['errors'].append('no storm counts from the guest')
        return
    leds = [tok for _, tok in storm_toks if tok in (b'0', b'1')]
    stray = [tok for _, tok in storm_toks if tok not in (b'0', b'1', b'<storm-end>')]
    final = LED_BYTE[bool(storm['final_all_blocked'])]
    last_led = leds[-1] if leds else None
    if not tap.check(not stray and last_led == final,
                     f'storm: the last LED byte ({last_led!r}) is the final state ({final!r}); '
                     f'{len(leds)} LED writes, no other bytes ({stray[:5]})'):
        result['errors'].append(f'storm: the last LED byte is {last_led!r}, the final state '
                                f'{final!r}' + (f', other bytes {stray[:5]}' if stray else ''))
    if not tap.check(storm['last_op5'] == storm['final_all_blocked'],
                     'storm: the last op-5 event shows the final state'):
        result['errors'].append(f'storm: the last op-5 event says {storm["last_op5"]}, the '
                                f'final state is {storm["final_all_blocked"]}')
    sec = storm['seconds']
    storm.update({'op5_per_s': round(storm['op5'] / sec, 1),
                  'events_per_s': round(storm['events'] / sec, 1),
                  'changes_per_s': round(storm['writes'] / sec, 1),
                  'led_writes': len(leds),
                  'last_op5_is_final': storm['last_op5'] == storm['final_all_blocked'],
                  'last_led_is_final': last_led == final})
    result['storm'] = storm


def summary(result, path):
    """The short result, on stderr: meson's verbose TAP view shows the
    checks and stderr, not the comments."""
    def say(text):
        print(text, file=sys.stderr, flush=True)

    say(f'kernel-indicator ({result["kernel"]}, TCG, {result["radios"]} radios):')
    led = result.get('led')
    if led:
        for name in ('block', 'unblock'):
            s = led[name]
            say(f'  LED {name}-all -> debugcon: median {s["median_ms"]:.2f} ms, '
                f'p99 {s["p99_ms"]:.2f} ms, max {s["max_ms"]:.2f} ms, n={s["n"]} '
                f'(target p99 < {led["target_ms"]} ms)')
        say(f'  {led["same_chunk"]} of {2 * led["block"]["n"]} LED bytes arrived in the '
            f'same read as their marker (0 ms: below what the host can resolve)')
    st = result.get('storm')
    if st:
        say(f'  storm {st["seconds"]:.1f} s: {st["changes_per_s"]:.0f} changes/s, '
            f'{st["events_per_s"]:.0f} events/s, op-5 {st["op5_per_s"]:.1f}/s '
            f'({st["op5"]} of {st["flips"]} flips, {st["op5_repeats"]} repeats), '
            f'last op-5 = final state: {st["last_op5_is_final"]}, '
            f'LED writes {st["led_writes"]}')
    for e in result['errors']:
        say(f'  error: {e}')
    say(f'written: {path}')


if __name__ == '__main__':
    sys.exit(main())
