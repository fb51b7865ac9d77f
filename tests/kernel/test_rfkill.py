#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One kernel-suite test: build our rfkill.ko for KVER (unless given), boot
KVER with it in place of the in-tree module plus Debian's hwsim/bluetooth
stack, and run the in-guest checks.  Prints TAP (meson protocol 'tap').

  test_rfkill.py --kernel KVER --guest-program PROG
                 --source-dir SRC/kernel --work-dir DIR [--version V]
                 [--module rfkill.ko] [--stock] [--timeout S]
                 [--default-off | --hard-block TOS6205.aml]

The kernel/ tree is built in a copy, DIR/src (testlib.kbuild).  --stock
boots Debian's own rfkill.ko instead (for comparison; the new-op checks are
expected to fail there).  --default-off loads rfkill with default_state=0
and runs the guest's short "radios start blocked" scenario; --hard-block
boots with a Toshiba Bluetooth switch (SSDT + qemu pc-testdev) that the
guest flips into and out of a hard block.  A module that does not build or load fails.
"""

import argparse
import os
import re
import subprocess
import sys

from vm.testlib import VMRUN, Tap, kbuild

GUEST_MODULES = ['mac80211_hwsim radios=2', 'hci_vhci', 'uinput']

# How many checks rfkill-guest-test reports in each scenario (guest/main.c),
# without the "the loaded rfkill is ours" check that --expect-rfkill-version
# adds.  The guest prints its plan last, so the plan only says how many
# checks ran; these numbers say how many must run.  A check added to or
# removed from the guest changes them here too.
GUEST_CHECKS = {'full': 191, 'default-off': 12, 'hard-block': 24}


def build(args, tap):
    b = kbuild(args.kernel, args.source_dir, args.work_dir, 'src',
               ['rfkill/rfkill.ko'],
               [f'RFKILL_AIRPLANE_VERSION={args.version}'] if args.version else [])
    tap.check(b.ok, f'rfkill.ko builds against {b.headers}')
    if not b.ok:
        tail = b.tail(40)
        if tail:
            tap.diag(tail)
        tap.diag('command: ' + ' '.join(b.cmd))
        return None
    return b.kos[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--guest-program', required=True)
    ap.add_argument('--source-dir', help='the kernel/ directory of the checkout')
    ap.add_argument('--work-dir', help='private build directory for this kernel')
    ap.add_argument('--version', help='RFKILL_AIRPLANE_VERSION for the build')
    ap.add_argument('--module', help='use this rfkill.ko instead of building one')
    ap.add_argument('--stock', action='store_true', help="boot Debian's rfkill.ko")
    ap.add_argument('--rfkill-bin', default='/usr/sbin/rfkill')
    ap.add_argument('--default-off', action='store_true',
                    help='load rfkill with default_state=0 and run the short scenario')
    ap.add_argument('--hard-block', metavar='TOS6205.aml',
                    help='hard-block scenario: toshiba_bluetooth on this SSDT, pc-testdev')
    ap.add_argument('--timeout', type=float, default=600)
    args = ap.parse_args()
    tap = Tap()

    ko = None
    if not args.stock:
        ko = args.module
        if not ko:
            if not args.source_dir or not args.work_dir:
                tap.check(False, '--source-dir and --work-dir are needed to build rfkill.ko')
                return tap.done()
            os.makedirs(args.work_dir, exist_ok=True)
            ko = build(args, tap)
            if not ko:
                return tap.done()
        version = subprocess.run(['modinfo', '-F', 'version', ko],
                                 capture_output=True, text=True,
                                 stdin=subprocess.DEVNULL).stdout.strip()
        tap.check(bool(version), f'{ko} has a MODULE_VERSION ({version or "none"})')
        vermagic = subprocess.run(['modinfo', '-F', 'vermagic', ko],
                                  capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL).stdout.strip()
        tap.check(vermagic.split(' ')[0] == args.kernel,
                  f'vermagic {vermagic.split(" ")[0] if vermagic else "none"} matches {args.kernel}')

    guest_args = ['--rfkill-bin', args.rfkill_bin]
    if args.default_off:
        guest_args.append('--default-off')
    if args.hard_block:
        guest_args.append('--hard-block')
    if ko:
        guest_args += ['--expect-rfkill-version', version or 'MODULE_VERSION-missing']
    scenario = 'default-off' if args.default_off else \
        'hard-block' if args.hard_block else 'full'
    cmd = VMRUN + ['--kernel', args.kernel,
           '--guest-program', args.guest_program,
           '--guest-args', ' '.join(guest_args),
           '--guest-checks', str(GUEST_CHECKS[scenario] + (1 if ko else 0)),
           '--host-binary', args.rfkill_bin,
           '--timeout', str(args.timeout)]
    params = ' default_state=0' if args.default_off else ''
    if ko:
        cmd += ['--module', ko + params]
    elif params:
        cmd += ['--in-tree-module', 'rfkill' + params]
    if args.hard_block:
        cmd += ['--in-tree-module', 'mac80211_hwsim radios=2',
                '--in-tree-module', 'toshiba_bluetooth',
                '--acpitable', args.hard_block,
                '--qemu-arg=-device', '--qemu-arg=pc-testdev']
    else:
        for m in GUEST_MODULES:
            cmd += ['--in-tree-module', m]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            text=True)
    seen_plan = False
    for line in proc.stdout:
        line = line.rstrip('\n')
        m = re.match(r'^(not ok|ok)\s+\d+(.*)$', line)
        if m:
            tap.raw(m.group(1) == 'ok', m.group(2))
        elif re.match(r'^1\.\.\d+', line):
            seen_plan = True
        else:
            print(line, flush=True)
    proc.wait()
    tap.check(proc.returncode == 0 and seen_plan,
              f'vmrun finished with every check passed (rc={proc.returncode})')
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
