# SPDX-License-Identifier: GPL-2.0-or-later
"""What the host sides of the kernel and e2e suites share: TAP output
(meson runs them with protocol 'tap') and building a Kbuild tree of the
checkout for one installed kernel.

  from vm.testlib import Tap, kbuild, VMRUN
"""

import fcntl
import os
import shutil
import sys
import threading

from vm import kernels

# How every suite runs the VM harness's runner (PYTHONPATH names tests/).
VMRUN = [sys.executable, '-m', 'vm.vmrun']

# Helper threads (the e2e bridge) log through diag() while the main thread
# prints checks: each line must reach stdout whole, or TAP breaks.
_out_lock = threading.Lock()


def _emit(line):
    with _out_lock:
        sys.stdout.write(line + '\n')
        sys.stdout.flush()


class Tap:
    """TAP on stdout: numbered checks, '# ' comments, the plan at the end."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, ok, desc, detail=None):
        """'ok N - desc' or 'not ok N - desc' (then detail as comments);
        returns ok."""
        self.raw(ok, f' - {desc}')
        if not ok and detail:
            self.diag(detail)
        return ok

    ok = check

    def raw(self, ok, rest):
        """A check whose text after the number is given as is: another
        TAP stream passed through, renumbered after ours."""
        self.n += 1
        self.failed += not ok
        _emit(f'{"ok" if ok else "not ok"} {self.n}{rest}')

    def diag(self, text):
        for line in str(text).splitlines() or ['']:
            _emit('# ' + line)

    def bail(self, why):
        _emit(f'Bail out! {why}')
        sys.exit(1)

    def done(self):
        _emit(f'1..{self.n}')
        return 1 if self.failed else 0


# What a copy of the tree leaves out: build products of an in-tree build.
KBUILD_SKIP = shutil.ignore_patterns(
    '*.o', '*.ko', '*.mod', '*.mod.c', '.*.cmd', 'modules.order',
    'Module.symvers', '.tmp_versions', 'meson.build')


class KBuild:
    """The result of kbuild(): cmd, headers, src (the copy), returncode,
    kos (absolute paths), missing (those not built), log_path."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def ok(self):
        return self.returncode == 0 and not self.missing

    def output(self):
        with open(self.log_path, encoding='utf-8', errors='replace') as log:
            return log.read()

    def tail(self, lines):
        with open(self.log_path, encoding='utf-8', errors='replace') as log:
            return ''.join(log.readlines()[-lines:])


def kbuild(kver, source_dir, work_dir, name, kos, make_args=(), extra_dirs=()):
    """Builds the Kbuild tree source_dir against kver's headers in a copy,
    work_dir/name: `make M=` writes its objects next to the sources, and
    the checkout is shared.  The tests of one kernel share work_dir; a lock
    lets the first one build and the others wait and reuse the build (make
    is incremental).  Output goes to work_dir/name.log; kos are relative
    to the tree.  A kernel in a kernel root (kernels.py) is built inside
    that chroot, with work_dir and extra_dirs (absolute host paths that
    make_args name) visible at the same paths."""
    work_dir = os.path.abspath(work_dir)  # make M= needs an absolute path
    os.makedirs(work_dir, exist_ok=True)
    src = os.path.join(work_dir, name)
    log_path = os.path.join(work_dir, name + '.log')
    try:
        kernel = kernels.find(kver)
    except LookupError as e:
        with open(log_path, 'w', encoding='utf-8') as log:
            log.write(f'{e}\n')
        return KBuild(cmd=['kernels.find', kver], headers=f'(no headers for {kver})',
                      src=src, returncode=1, kos=[], missing=kos,
                      log_path=log_path)
    with open(os.path.join(work_dir, '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.copytree(source_dir, src, ignore=KBUILD_SKIP, dirs_exist_ok=True)
        with open(log_path, 'w', encoding='utf-8') as log:
            rc, cmd = kernel.make([f'M={src}', '-j2', 'modules', *make_args],
                                  [work_dir, *extra_dirs], log)
    paths = [os.path.join(src, k) for k in kos]
    return KBuild(cmd=cmd, headers=kernel.headers, src=src, returncode=rc,
                  kos=paths, missing=[p for p in paths if not os.path.isfile(p)],
                  log_path=log_path)
