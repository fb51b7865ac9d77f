#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot one kernel with one fake-ASUS SSDT and check the airplane-mode LED
as the "hardware" sees it.

The shared runner (tests/vm/vmrun.py) boots the guest, loads the
radios on top of our rfkill.ko and runs guest/scenario.sh, which checks
what the guest can see and marks every step on the debugcon port.  The
fixture's HSWC writes each LED change to the same port, so the host log
reads like "<load>0<block-all>1<unblock-0>0...".  This script passes the
runner's TAP through and adds one check per step: the LED sequence the
step produced, with repeats of the same state folded (two "off" writes in
a row are one physical state; whether the LED work ran in between is a
matter of scheduling).  The raw log is printed as a TAP comment.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

from vm.testlib import VMRUN, Tap, kbuild

RELOADS = 100

# How many checks guest/scenario.sh reports for each fixture: the guest
# prints its plan last, so the plan only says how many ran; these say how
# many must run.  A fixture without HSWC has no LED, so its four LED checks
# are two "no LED, and why" checks.  A check added to or removed from the
# scenario changes them here too.
GUEST_CHECKS = {'atk4002': 30, 'atk4001': 30, 'e202sa': 30, 'nohswc': 26}

# LED states each step must leave on the LED, for a fixture with a working
# LED ('1' on, '0' off).  Radios start unblocked: phy0, phy1, hci0.
LED_STEPS = [
    ('load', '0'),               # trigger attached: not in airplane mode
    ('block-all', '1'),          # CHANGE_ALL: every radio blocked
    ('unblock-0', '0'),          # one radio back: not airplane mode
    ('unblock-all', ''),         # already off
    ('block-0', ''),
    ('block-1', ''),
    ('block-2', '1'),            # the last radio blocked: airplane mode
    ('owner-acquire', ''),       # ACQUIRE alone changes nothing
    ('owner-change-0', '0'),     # the owner overrides the kernel
    ('owner-change-1', '1'),
    ('owner-change-0', '0'),
    ('owner-exit', '1'),         # back to the kernel: all still blocked
    ('suspend', '01'),           # LED core: off on suspend, restored on resume
    ('resumed', ''),
    ('suspend-mem', '01'),       # the same through a real S3 and RTC wakeup
    ('resumed-mem', ''),
    ('manual', '010'),           # trigger none (off), brightness 1, 0
    ('trigger-back', '1'),       # trigger again: airplane mode
    ('unblock-all', '0'),
    ('notify-89', ''),           # unknown event: nothing
    ('hotkey-on', '1'),          # KEY_RFKILL: rfkill-input blocks all
    ('hotkey-off', '0'),         # and unblocks all again
    ('block-all', '1'),
    ('reload', '01' * RELOADS),  # each unload turns it off, each load shows airplane mode
    ('unload', '0'),             # unregistering turns the LED off
    ('end', ''),
]


def expected_steps(fixture):
    if fixture in ('atk4002', 'atk4001'):
        return LED_STEPS
    if fixture == 'e202sa':
        # HSWC is called for every change but the firmware drops it: '.'
        return [(s, '.' if w else '') for s, w in LED_STEPS]
    if fixture == 'nohswc':
        # no LED at all, and the steps that need one are not run
        return [(s, '') for s, w in LED_STEPS
                if s not in ('manual', 'trigger-back')]
    raise SystemExit(f'unknown fixture {fixture}')


def kbuild_checked(args, tap, src_dir, name, kos):
    """Builds src_dir in WORK/name (testlib.kbuild); returns the .ko paths."""
    b = kbuild(args.kernel, src_dir, args.work_dir, name, kos,
               [f'RFKILL_AIRPLANE_VERSION={args.version}'])
    tap.check(b.ok, f'{", ".join(os.path.basename(k) for k in kos)} '
              f'build against {b.headers}')
    # rfkill/ belongs to the kernel module's tests; check our own files
    output = b.output()
    warnings = [l for l in output.splitlines()
                if 'warning:' in l and ('asus-wireless' in l or 'notify-trigger' in l)]
    tap.check(not warnings, f'{name}: no compiler warnings in asus-wireless '
              'or notify-trigger')
    if not b.ok or warnings:
        if output:
            tap.diag(output[-3000:])
        tap.diag('command: ' + ' '.join(b.cmd))
    return b.kos if b.ok else None


def build_modules(args, tap):
    """The fixture tests of one kernel share WORK; kbuild's lock lets the
    first one build and the others reuse it (make is incremental)."""
    ours = kbuild_checked(args, tap, args.kernel_src, 'src',
                          ['rfkill/rfkill.ko', 'asus-wireless/asus-wireless.ko'])
    notify = kbuild_checked(args, tap, args.notify_src, 'notify-trigger',
                            ['acpi-notify-trigger.ko'])
    if not ours or not notify:
        return None
    return ours + notify


def fold(writes):
    return re.sub(r'(.)\1+', r'\1', writes)


def parse_log(text):
    """'<a>01<b>1' -> [('a', '01'), ('b', '1')]; writes before the first
    marker are returned under the step name ''."""
    steps = [('', '')]
    for m in re.finditer(r'<([^<>]*)>|([^<>])', text):
        if m.group(1) is not None:
            steps.append((m.group(1), ''))
        else:
            name, writes = steps[-1]
            steps[-1] = (name, writes + m.group(2))
    return steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--fixture', required=True)
    ap.add_argument('--aml', required=True)
    ap.add_argument('--kernel-src', required=True, help='kernel/ of the checkout')
    ap.add_argument('--notify-src', required=True,
                    help='tests/kernel/asus/notify-trigger of the checkout')
    ap.add_argument('--work-dir', required=True, help='build dir for this kernel')
    ap.add_argument('--version', default='0.1.0')
    ap.add_argument('--guest-helper', required=True)
    ap.add_argument('--scenario', required=True)
    ap.add_argument('--timeout', type=float, default=600)
    args = ap.parse_args()

    tap = Tap()
    for path in (args.aml, args.guest_helper, args.scenario):
        if not tap.check(os.path.isfile(path), f'{path} exists'):
            return tap.done()
    kos = build_modules(args, tap)
    if not kos:
        return tap.done()
    rfkill_ko, asus_ko, notify_ko = kos

    with tempfile.TemporaryDirectory(prefix='asus-vm-') as tmp:
        led_log = os.path.join(tmp, 'led.log')
        cmd = VMRUN + ['--kernel', args.kernel,
               '--module', rfkill_ko,
               '--in-tree-module', 'mac80211_hwsim radios=2',
               '--in-tree-module', 'hci_vhci',
               '--in-tree-module', 'evdev',
               '--guest-program', args.scenario,
               '--guest-args', args.fixture,
               '--guest-checks', str(GUEST_CHECKS[args.fixture]),
               '--file', f'{args.guest_helper}:/guest/asus-guest',
               '--file', f'{asus_ko}:/guest/asus-wireless.ko',
               '--file', f'{notify_ko}:/guest/acpi-notify-trigger.ko',
               '--acpitable', args.aml,
               '--debugcon', led_log,
               '--timeout', str(args.timeout)]
        run = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, text=True)
        # pass the runner's checks through, renumbered after ours
        count = 0
        for line in run.stdout.splitlines():
            m = re.match(r'^(not ok|ok)\b(?:\s+\d+)?(.*)$', line)
            if m:
                count += 1
                tap.raw(m.group(1) == 'ok', m.group(2))
            elif not re.match(r'^1\.\.\d+$', line):
                print(line, flush=True)
        try:
            with open(led_log, encoding='latin-1') as f:
                text = f.read()
        except OSError as e:
            text = ''
            print(f'# cannot read {led_log}: {e.strerror}')

    tap.check(run.returncode == 0 and count > 0,
              f'vmrun: {count} guest-side checks ran and passed (rc={run.returncode})')
    print(f'# LED log on the host ({args.fixture}, {args.kernel}): {text}')

    got = parse_log(text)
    stray = got[0][1]
    tap.check(stray == '', f'no LED writes before the first step (got "{stray}")')
    got = got[1:]
    want = expected_steps(args.fixture)
    tap.check([s for s, _ in got] == [s for s, _ in want],
              'the guest marked every step in order')
    tap.check('?' not in text, 'HSWC never got an argument the firmware ignores')
    for i, (step, writes) in enumerate(want):
        raw = got[i][1] if i < len(got) and got[i][0] == step else None
        if raw is None:
            tap.check(False, f'step {step}: not seen')
            continue
        desc = f'step {step}: LED sequence "{fold(writes)}"'
        if fold(raw) != fold(writes):
            desc += f' (got "{fold(raw)}", raw "{raw}")'
        elif raw != writes:
            desc += f' (raw "{raw}")'
        tap.check(fold(raw) == fold(writes), desc)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
