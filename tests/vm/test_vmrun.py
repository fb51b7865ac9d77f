#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Self-test of vmrun.py: it must pass a passing guest and fail every kind
of broken run (a failing check, a short plan, a kernel panic, a hang, a
WARNING in dmesg, a missing module).  A stray single-step #DB on the first
boot alone gets a second boot; on both boots, with another fault, or with
another WARNING inside its report, it fails.  Prints TAP.

  python3 tests/vm/test_vmrun.py --kernel KVER    (PYTHONPATH=tests)
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

from vm.testlib import VMRUN

# What the kernel prints for a single-step #DB it never armed (the form seen
# under TCG), written to /dev/kmsg by the guest; vmrun boots such a run again.
STRAY_TRAP = ''.join(f'echo "{l}" > /dev/kmsg; ' for l in [
    '------------[ cut here ]------------',
    'WARNING: CPU: 0 PID: 57 at arch/x86/kernel/traps.c:1120 exc_debug_kernel+0xca/0x160',
    'RIP: 0010:exc_debug_kernel+0xca/0x160',
    'RIP: 0010:__kmalloc_cache_node_noprof+0xec/0x330',
])
STRAY_END = 'echo "---[ end trace 0000000000000000 ]---" > /dev/kmsg; '
FIRST_BOOT = '! grep -q vmrun.boot=2 /proc/cmdline'

CASES = [
    # name, guest script, extra vmrun args, want rc 0?, line that must show
    ('passing guest', 'echo "ok 1 - fine"; echo "1..1"', [], True,
     r'^ok \d+ - fine$'),
    ('failing check', 'echo "ok 1 - a"; echo "not ok 2 - b"; echo "1..2"; exit 1',
     [], False, r'^not ok \d+ - b$'),
    ('short plan', 'echo "1..3"; echo "ok 1 - only one"', [], False,
     r'^not ok \d+ - guest ran its whole plan \(1 of 3\)'),
    ('kernel panic', 'echo c > /proc/sysrq-trigger; sleep 60', [], False,
     r'^not ok \d+ - guest program exited 0'),
    ('hang', 'sleep 600', ['--timeout', '40'], False,
     r'^not ok \d+ - finished within 40'),
    ('WARNING in dmesg', 'echo "WARNING: vmrun selftest" > /dev/kmsg', [], False,
     r'^# dmesg: .*WARNING: vmrun selftest'),
    ('stray #DB on the first boot only',
     f'{FIRST_BOOT} && {{ {STRAY_TRAP}{STRAY_END}}}; echo "ok 1 - fine"; echo "1..1"',
     [], True, r'^# the first boot passed every check'),
    ('stray #DB on both boots',
     f'{STRAY_TRAP}{STRAY_END}echo "ok 1 - fine"; echo "1..1"', [], False,
     r'^# dmesg: .*exc_debug_kernel'),
    ('stray #DB and a failing check on the first boot',
     f'if {FIRST_BOOT}; then {STRAY_TRAP}{STRAY_END}echo "not ok 1 - a"; '
     'else echo "ok 1 - a"; fi; echo "1..1"', [], False, r'^not ok \d+ - a$'),
    ('another WARNING inside a stray #DB\'s report',
     f'{FIRST_BOOT} && {{ {STRAY_TRAP}echo "WARNING: vmrun selftest" > /dev/kmsg; '
     f'{STRAY_END}}}; echo "ok 1 - fine"; echo "1..1"', [], False,
     r'^# dmesg: .*WARNING: vmrun selftest'),
    ('missing module', 'true', ['--in-tree-module', 'no_such_module_xyz'], False,
     r'^not ok 1 - vmrun setup: module no_such_module_xyz not found'),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kernel', required=True)
    args = ap.parse_args()
    failed = 0

    with tempfile.TemporaryDirectory(prefix='vmrun-selftest-') as tmp:
        for n, (name, script, extra, want_ok, want_line) in enumerate(CASES, 1):
            guest = os.path.join(tmp, f'case{n}.sh')
            with open(guest, 'w', encoding='utf-8') as f:
                f.write('#!/bin/sh\n' + script + '\n')
            cmd = VMRUN + ['--kernel', args.kernel,
                   '--guest-program', guest, '--timeout', '120'] + extra
            start = time.monotonic()
            run = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                                 text=True)
            took = time.monotonic() - start
            line_ok = re.search(want_line, run.stdout, re.M) is not None
            plan_ok = re.search(r'^1\.\.\d+$', run.stdout, re.M) is not None
            ok = (run.returncode == 0) == want_ok and line_ok and plan_ok
            failed += not ok
            print(f'{"ok" if ok else "not ok"} {n} - {name}: vmrun '
                  f'{"passes" if want_ok else "fails"} (rc={run.returncode}, '
                  f'{took:.0f} s)', flush=True)
            if not ok:
                for line in (run.stdout + run.stderr).splitlines()[-40:]:
                    print('# ' + line)
    print(f'1..{len(CASES)}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
