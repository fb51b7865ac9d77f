#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The kernels the VM suites can boot, and where each one's files are.

A kernel is either installed on the host (/boot/vmlinuz-KVER,
/lib/modules/KVER, /usr/src/linux-headers-KVER: bookworm's 6.1 and 6.12)
or lives in a kernel root, a chroot whose own toolchain must build for it
(sid's newest line and trixie's 6.12 builds, prepared by kernel_root.py):
ROOT/usr/lib/modules/KVER/vmlinuz, its modules and modules.dep, and
ROOT/usr/src/linux-headers-KVER.  Kernel roots are named by the
environment variable RFKILL_KERNEL_ROOTS (':'-separated); tests/vm's
meson.build sets it for every test.

As a program (meson calls it at configure time):
  python3 -m vm.kernels [--root ROOT]... [--modversions | --no-modversions]
prints one KVER per line, oldest first: every kernel that can be booted
and built for; --modversions keeps those with CONFIG_MODVERSIONS=y,
--no-modversions those without.
"""

import argparse
import glob
import os
import re
import subprocess

ROOTS_ENV = 'RFKILL_KERNEL_ROOTS'


def kver_key(kver):
    return [int(p) if p.isdigit() else p for p in re.split(r'(\d+)', kver)]


class Kernel:
    """Paths of one kernel as seen from the host.  root is '/' for an
    installed kernel; otherwise builds run chrooted into root, and
    headers_in_root is the headers' path inside it."""

    def __init__(self, kver, root, vmlinuz, moddir, headers_in_root):
        self.kver = kver
        self.root = root
        self.vmlinuz = vmlinuz
        self.moddir = moddir
        self.headers_in_root = headers_in_root

    @property
    def chrooted(self):
        return self.root != '/'

    @property
    def headers(self):
        """The headers directory on the host."""
        return os.path.join(self.root, self.headers_in_root.lstrip('/'))

    def usable(self):
        return (os.path.isfile(self.vmlinuz) and
                os.path.isfile(os.path.join(self.moddir, 'modules.dep')) and
                os.path.isfile(os.path.join(self.headers, 'Module.symvers')))

    def config(self, name):
        """CONFIG_name of the headers' .config ('y', 'm', or None)."""
        try:
            with open(os.path.join(self.headers, '.config'), encoding='utf-8') as f:
                for line in f:
                    if line.startswith(f'CONFIG_{name}='):
                        return line.strip().split('=', 1)[1]
        except OSError:
            pass
        return None

    def make(self, make_args, dirs, stdout):
        """Runs `make -C HEADERS make_args...` with stdout/stderr to the
        file object stdout; returns (returncode, argv shown in logs).
        dirs are the absolute host directories make reads or writes (M=,
        KBUILD_EXTRA_SYMBOLS), see run()."""
        return self.run(['make', '-C', self.headers_in_root, *make_args],
                        dirs, stdout)

    def run(self, cmd, dirs, stdout):
        """Runs cmd where this kernel's modules are built: on the host, or
        chrooted into the kernel root, where the headers are at
        headers_in_root.  Output goes to the file object stdout; returns
        (returncode, argv shown in logs).  dirs are absolute host
        directories cmd reads or writes: for a chrooted kernel they are
        bind-mounted at the same path inside the root, with a /proc, in a
        private mount namespace that goes away with the command, so nothing
        is left mounted (and removing the cache cannot reach the host's
        files)."""
        if not self.chrooted:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=stdout,
                               stderr=subprocess.STDOUT)
            return r.returncode, cmd
        # objtool reads /proc/self (its stack limit)
        script = ['set -e', 'mount -t proc proc ' + shell_quote(
            os.path.join(self.root, 'proc'))]
        for d in dirs:
            inside = os.path.join(self.root, d.lstrip('/'))
            os.makedirs(inside, exist_ok=True)
            script.append(f'mount --bind {shell_quote(d)} {shell_quote(inside)}')
        script.append('exec chroot ' + shell_quote(self.root) + ' /usr/bin/env -i '
                      'PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 ' +
                      ' '.join(shell_quote(c) for c in cmd))
        full = ['unshare', '--mount', '--propagation', 'private', '--',
                'sh', '-c', '\n'.join(script)]
        r = subprocess.run(full, stdin=subprocess.DEVNULL, stdout=stdout,
                           stderr=subprocess.STDOUT)
        return r.returncode, ['chroot', self.root] + cmd


def shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def env_roots():
    return [r for r in os.environ.get(ROOTS_ENV, '').split(':') if r]


def host_kernel(kver):
    return Kernel(kver, '/', f'/boot/vmlinuz-{kver}', f'/lib/modules/{kver}',
                  f'/usr/src/linux-headers-{kver}')


def rooted_kernel(root, kver):
    root = os.path.abspath(root)
    moddir = os.path.join(root, 'usr/lib/modules', kver)
    return Kernel(kver, root, os.path.join(moddir, 'vmlinuz'), moddir,
                  f'/usr/src/linux-headers-{kver}')


def find(kver, roots=None):
    """The Kernel for kver: installed on the host, else in one of roots
    (default: $RFKILL_KERNEL_ROOTS).  Raises LookupError with a hint."""
    k = host_kernel(kver)
    if k.usable():
        return k
    roots = env_roots() if roots is None else roots
    for root in roots:
        k = rooted_kernel(root, kver)
        if k.usable():
            return k
    raise LookupError(
        f'kernel {kver}: no /boot/vmlinuz-{kver} with modules and headers, '
        f'and not in a kernel root ({ROOTS_ENV}={":".join(roots) or "unset"}; '
        'tests/vm/kernel_root.py prepares one)')


def available(roots):
    found = {}
    for vmlinuz in glob.glob('/boot/vmlinuz-*'):
        kver = os.path.basename(vmlinuz)[len('vmlinuz-'):]
        if host_kernel(kver).usable():
            found[kver] = host_kernel(kver)
    for root in roots:
        for moddir in glob.glob(os.path.join(root, 'usr/lib/modules/*')):
            kver = os.path.basename(moddir)
            k = rooted_kernel(root, kver)
            if kver not in found and k.usable():
                found[kver] = k
    return [found[k] for k in sorted(found, key=kver_key)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', action='append', default=[],
                    help='a kernel root (also from $' + ROOTS_ENV + ')')
    which = ap.add_mutually_exclusive_group()
    which.add_argument('--modversions', action='store_true',
                       help='only kernels built with CONFIG_MODVERSIONS=y')
    which.add_argument('--no-modversions', action='store_true',
                       help='only kernels built without it')
    args = ap.parse_args()
    for k in available(args.root + env_roots()):
        on = k.config('MODVERSIONS') == 'y'
        if (args.modversions and not on) or (args.no_modversions and on):
            continue
        print(k.kver)


if __name__ == '__main__':
    main()
