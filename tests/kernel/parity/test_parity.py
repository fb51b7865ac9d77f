#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Parity of our rfkill.ko with the in-tree one, on one kernel: boot the
same VM twice, once with Debian's rfkill.ko and asus-wireless.ko and once
with ours, run parity-probe in both and diff the two transcripts.  The test
passes only when they are equal after the exception list
(tests/kernel/allowed_differences.py, shared with the differential fuzzer); the diff is
printed as TAP comments either way.

  test_parity.py --kernel KVER --probe parity-probe
                    --source-dir kernel/ --work-dir DIR --tos-aml tos6205.aml
                    --asus-aml atk4002.aml [--asus-aml more.aml]...
                    [--version V] [--timeout S]
                    [--fake-probe parity-probe-host --fake-rfkill fake-rfkill
                     --preload rfkill-preload.so]

Both transcripts are kept in DIR (stock.txt, ours.txt, parity.diff).
With --fake-*, the in-tree transcript of this run is also compared with
the fake kernel's (fake_parity.py: fake.txt, fake-parity.diff).
"""

import argparse
import difflib
import os
import re
import subprocess
import sys

from vm.testlib import VMRUN, Tap, kbuild

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from allowed_differences import normalize  # noqa: E402
import fake_parity  # noqa: E402

# uinput: the probe's key steps
RADIOS = ['mac80211_hwsim radios=2', 'hci_vhci', 'toshiba_bluetooth', 'uinput']

def summary(changed):
    """The distinct differences, with how often each was seen: the step
    or snapshot a line came from is left out (RFKILL_TYPE differs in every
    uevent; that is one finding, not a hundred)."""
    seen = {}
    for line in changed:
        sign, rest = line[0], line[1:]
        words = rest.split(' ')
        if words[0] in ('uevent', 'ev', 'read', 'write', 'led', 'kmsg') and len(words) > 2:
            words = [words[0]] + words[2:]
        elif words[0] == 'sysfs' and len(words) > 3:
            words = [words[0], '<dev>'] + words[3:]
        key = sign + ' '.join(words)
        seen[key] = seen.get(key, 0) + 1
    return [f'{n:5d}x {k}' for k, n in seen.items()]


def build(args, tap):
    b = kbuild(args.kernel, args.source_dir, args.work_dir, 'src',
               ['rfkill/rfkill.ko', 'asus-wireless/asus-wireless.ko'],
               [f'RFKILL_AIRPLANE_VERSION={args.version}'])
    tap.check(b.ok, f'rfkill.ko and asus-wireless.ko build against {b.headers}')
    if not b.ok:
        tap.diag(b.tail(40))
        tap.diag('command: ' + ' '.join(b.cmd))
        return None
    return b.kos


def run_probe(args, tap, label, modules):
    cmd = VMRUN + ['--kernel', args.kernel,
           '--guest-program', args.probe,
           '--acpitable', args.tos_aml,
           '--qemu-arg=-device', '--qemu-arg=pc-testdev',
           '--timeout', str(args.timeout)] + modules
    for aml in args.asus_aml:
        cmd += ['--acpitable', aml]
    for m in RADIOS:
        cmd += ['--in-tree-module', m]
    run = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                         text=True)
    transcript = []
    inside = False
    for line in run.stdout.splitlines():
        m = re.match(r'^(not ok|ok)\s+\d+(.*)$', line)
        if m:
            tap.raw(m.group(1) == 'ok', f' - [{label}]' + m.group(2).removeprefix(' -'))
        elif line == '# parity-begin':
            inside = True
        elif line == '# parity-end':
            inside = False
        elif inside and line.startswith('# '):
            transcript.append(line[2:])
        elif not re.match(r'^1\.\.\d+$', line) and not inside:
            print(line, flush=True)
    if run.stderr.strip():
        tap.diag(f'[{label}] vmrun stderr:\n' + run.stderr.strip()[-2000:])
    tap.check(run.returncode == 0, f'[{label}] vmrun passed its own checks (rc={run.returncode})')
    complete = bool(transcript) and transcript[-1] == 'end'
    tap.check(complete, f'[{label}] the probe ran to its end ({len(transcript)} lines)')
    with open(os.path.join(args.work_dir, f'{label}.txt'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(transcript) + '\n')
    return transcript if complete else None


def check_fake(args, tap, stock):
    """The fake kernel against the in-tree transcript this run just made."""
    fake, diag = fake_parity.run(args.fake_probe, args.fake_rfkill,
                                 args.preload, args.work_dir)
    for d in diag:
        tap.diag('[fake] ' + d)
    tap.check(fake is not None, '[fake] the probe ran to its end on fake-rfkill')
    if fake is None:
        return
    diff = fake_parity.compare(stock, fake, args.kernel, args.work_dir)
    compared = len(fake_parity.scope(stock, args.kernel))
    changed = [l for l in diff if l[:1] in '+-' and l[:3] not in ('+++', '---')]
    tap.diag(f'{args.kernel}: fake-rfkill compared on {compared} in-tree lines; '
             'cut (what the fake does not model):\n' + '\n'.join(fake_parity.cuts()))
    if diff:
        tap.diag('fake parity diff (- in-tree, + fake-rfkill):\n' + '\n'.join(diff))
        print(f'fake parity {args.kernel}: fake-rfkill differs from the in-tree '
              f'module; diff in {args.work_dir}/fake-parity.diff:\n' + '\n'.join(diff),
              file=sys.stderr)
    tap.check(not diff, f'{args.kernel}: fake-rfkill behaves like the in-tree '
              f'rfkill.ko where it models it ({len(changed)} lines differ)')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--probe', required=True)
    ap.add_argument('--source-dir', required=True, help='kernel/ of the checkout')
    ap.add_argument('--work-dir', required=True)
    ap.add_argument('--tos-aml', required=True)
    ap.add_argument('--asus-aml', required=True, action='append',
                    help='an ASUS SSDT (the first one owns the debug port)')
    ap.add_argument('--version', default='0.1.0')
    ap.add_argument('--timeout', type=float, default=600)
    ap.add_argument('--fake-probe', help='parity-probe built for the host')
    ap.add_argument('--fake-rfkill', help='tests/fake/fake-rfkill')
    ap.add_argument('--preload', help='rfkill-preload.so')
    args = ap.parse_args()
    args.work_dir = os.path.abspath(args.work_dir)
    os.makedirs(args.work_dir, exist_ok=True)
    tap = Tap()

    kos = build(args, tap)
    if not kos:
        return tap.done()
    rfkill_ko, asus_ko = kos
    stock = run_probe(args, tap, 'stock', ['--in-tree-module', 'rfkill',
                                           '--in-tree-module', 'asus_wireless'])
    if stock is not None and args.fake_probe:
        check_fake(args, tap, stock)
    ours = run_probe(args, tap, 'ours', ['--module', rfkill_ko, '--module', asus_ko])
    if stock is None or ours is None:
        return tap.done()

    raw = sum(1 for line in difflib.unified_diff(stock, ours, n=0)
              if line[:1] in '+-' and line[:3] not in ('+++', '---'))
    diff = list(difflib.unified_diff(normalize(stock), normalize(ours),
                                     'in-tree', 'ours', n=1, lineterm=''))
    with open(os.path.join(args.work_dir, 'parity.diff'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(diff) + '\n')
    changed = [l for l in diff if l[:1] in '+-' and l[:3] not in ('+++', '---')]
    tap.diag(f'{args.kernel}: {raw} raw differing lines, {len(changed)} after the '
             f'exception list; transcripts in {args.work_dir}')
    if diff:
        distinct = summary(changed)
        tap.diag('distinct differences (- in-tree, + ours):\n' + '\n'.join(distinct))
        tap.diag('parity diff (- in-tree, + ours):\n' + '\n'.join(diff))
        # meson --print-errorlogs shows stderr: the findings belong there too
        print(f'parity {args.kernel}: {len(changed)} lines differ after the exception list; '
              f'full diff in {args.work_dir}/parity.diff\n'
              'distinct differences (- in-tree, + ours):\n' + '\n'.join(distinct),
              file=sys.stderr)
    tap.check(not diff, f'{args.kernel}: ours behaves like the in-tree rfkill.ko '
              f'apart from the exception list ({len(changed)} lines differ)')
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
