#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Build rfkill.ko and the rfkill_selftest fake radio for KVER, boot KVER
in qemu (the VM harness, tests/vm; PYTHONPATH names tests/) and run the
guest programs; prints TAP.

  test_selftest.py --kernel KVER --source-dir kernel/ --work-dir DIR
                   [--version V] [--boot NAME]...

Four boots:
  main        rfkill_selftest radio, guest.sh (driver API, LEDs, polling)
  persistent  the radio registered persistent and soft blocked
  input       mac80211_hwsim + uinput, check-input (keys, EPO, NOINPUT,
              uevent, sysfs state, suspend/resume, rmmod)
  default-off rfkill default_state=0, check-input default-off
  pm-lock     guest.sh pm-lock: suspend/resume while another path holds
              rfkill_global_mutex (selftest-slow's set_block waits)
--boot NAME (repeatable) runs only those boots.
The kernel/ tree is copied to DIR/src first (kbuild writes next to the
sources).
"""

import argparse
import os
import shutil
import subprocess
import sys

from vm import kernels
from vm.testlib import VMRUN

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = shutil.ignore_patterns('*.o', '*.ko', '*.mod', '*.mod.c', '.*.cmd',
                              'modules.order', 'Module.symvers', 'meson.build')


def make(kernel, work_dir, mdir, extra, log):
    """kbuild for kernel (vm.kernels: on the host, or in the
    chroot of a kernel root with work_dir visible at the same path)."""
    with open(log, 'w', encoding='utf-8') as f:
        rc, cmd = kernel.make(['-j2', f'M={mdir}', 'modules'] + extra,
                              [work_dir], f)
    return rc == 0, ' '.join(cmd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--source-dir', required=True)
    ap.add_argument('--work-dir', required=True)
    ap.add_argument('--version', default='')
    ap.add_argument('--timeout', default='300')
    ap.add_argument('--boot', action='append',
                    help='run only this boot (main, persistent, input, '
                    'default-off, pm-lock)')
    a = ap.parse_args()
    a.work_dir = os.path.abspath(a.work_dir)

    # the VM harness knows where each kernel's files are
    try:
        kernel = kernels.find(a.kernel)
    except LookupError as e:
        print(f'not ok 1 - {e}\n1..1')
        return 1
    headers = kernel.headers
    src = os.path.join(a.work_dir, 'src')
    shutil.rmtree(a.work_dir, ignore_errors=True)
    shutil.copytree(a.source_dir, src, ignore=SKIP)
    n = 0
    failed = 0

    def tap(ok, desc):
        nonlocal n, failed
        n += 1
        failed += not ok
        print(f'{"ok" if ok else "not ok"} {n} - {desc}', flush=True)

    ver = [f'RFKILL_AIRPLANE_VERSION={a.version}'] if a.version else []
    ok, cmd = make(kernel, a.work_dir, src, ver, os.path.join(a.work_dir, 'build.log'))
    tap(ok, f'rfkill.ko builds against {headers}')
    st = os.path.join(src, 'rfkill', 'selftest')
    if ok:
        ok, cmd = make(kernel, a.work_dir, st, [
            'KBUILD_EXTRA_SYMBOLS=' + os.path.join(src, 'Module.symvers')],
            os.path.join(a.work_dir, 'selftest-build.log'))
        tap(ok, 'rfkill_selftest.ko builds against our Module.symvers')
    if not ok:
        print(f'# failed: {cmd} (log in {a.work_dir})')
        print(f'1..{n}')
        return 1

    input_test = os.path.join(a.work_dir, 'check-input')
    r = subprocess.run(['cc', '-static', '-O2', '-Wall', '-o', input_test,
                        '-I', os.path.join(src, 'include', 'uapi'),
                        os.path.join(HERE, 'check-input.c')],
                       capture_output=True, text=True)
    tap(r.returncode == 0, 'check-input builds (static)')
    if r.returncode != 0:
        print('# ' + r.stderr.replace('\n', '\n# '))

    rfkill_ko = os.path.join(src, 'rfkill', 'rfkill.ko')
    selftest_ko = os.path.join(st, 'rfkill_selftest.ko')
    hwsim = ['--in-tree-module', 'mac80211_hwsim radios=2',
             '--in-tree-module', 'uinput']
    guest_sh = os.path.join(HERE, 'guest.sh')
    boots = [
        ('main', ['--module', rfkill_ko, '--module', selftest_ko,
                  '--host-binary', '/usr/sbin/rfkill',
                  '--guest-program', guest_sh] +
                 (['--file', input_test + ':/check-input']
                  if os.path.exists(input_test) else [])),
        ('persistent', ['--module', rfkill_ko, '--module',
                        selftest_ko + ' persistent=1 initial_sw=1',
                        '--guest-program', guest_sh,
                        '--guest-args', 'persistent']),
        ('input', ['--module', rfkill_ko] + hwsim +
                  ['--guest-program', input_test]),
        ('default-off', ['--module', rfkill_ko + ' default_state=0'] + hwsim +
                        ['--guest-program', input_test,
                         '--guest-args', 'default-off']),
        ('pm-lock', ['--module', rfkill_ko, '--module', selftest_ko,
                     '--guest-program', guest_sh, '--guest-args', 'pm-lock']),
    ]
    for name, vmargs in boots:
        if a.boot and name not in a.boot:
            continue
        if name in ('input', 'default-off') and not os.path.exists(input_test):
            continue
        cmd = VMRUN + ['--kernel', a.kernel,
               '--timeout', a.timeout] + vmargs
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True)
        label = f'[{name}] '
        for line in r.stdout.splitlines():
            # renumber vmrun's TAP into one plan
            if line.startswith(('ok ', 'not ok ')):
                good = line.startswith('ok ')
                desc = line.split(' - ', 1)[1] if ' - ' in line else line
                tap(good, label + desc)
            elif line.startswith('1..'):
                continue
            else:
                print(line if line.startswith('#') else '# ' + line)
        if r.stderr.strip():
            for line in r.stderr.strip().splitlines()[-20:]:
                print('# stderr: ' + line)
        tap(r.returncode == 0, f'{label}vmrun exit status 0 (got {r.returncode})')
    print(f'1..{n}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
