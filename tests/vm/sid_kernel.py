#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Prepare Debian sid's newest kernel line for the kernel suite, without
installing anything on the host or adding sid to its apt sources.

  python3 -m vm.sid_kernel --cache DIR [--max-age HOURS] [--mirror URL]

sid's linux-headers need a newer gcc and libc than bookworm has, so
everything lives in one sid chroot, CACHE/sid, made with debootstrap:

  * the chroot's own apt (its sources name sid only) reads sid's package
    lists and picks the newest amd64 kernel at run time;
  * linux-headers-KVER is installed inside it (our modules are built there,
    see kernels.py);
  * linux-binary-KVER (vmlinuz) and linux-modules-KVER are unpacked into
    it with dpkg-deb -x, and depmod writes modules.dep, so the VM harness
    finds ROOT/usr/lib/modules/KVER/{vmlinuz,modules.dep}.

The environment variable RFKILL_KERNEL_CACHE overrides --cache (one cache
for several build directories).  A rerun reuses the chroot and the kernel;
sid's lists are re-read when older than --max-age (default 6 h, sid is
published four times a day), and when that fails but a kernel is ready,
the ready one is used with a warning.  Network steps are retried.

On success prints "KVER ROOT" on stdout; progress and errors go to stderr.
Exit status 1 with one clear "sid-kernel: ..." line on failure.  Needs root
(debootstrap, chroot).
"""

import argparse
import fcntl
import os
import re
import shutil
import subprocess
import sys
import time

PACKAGES = 'make,gcc-16,libc6-dev,kmod,xz-utils,bc,libelf-dev,pahole'
CHROOT_OK = '.rfkill-chroot-ok'
LISTS_OK = '.rfkill-lists-updated'
KERNEL_OK = '.rfkill-kernel-ok'
DEBS = '/var/cache/rfkill-kernel'
# Flavours that are not the generic amd64 kernel users run.
OTHER_FLAVOURS = ('-cloud-amd64', '-rt-amd64')
CHROOT_ENV = {
    'PATH': '/usr/sbin:/usr/bin:/sbin:/bin',
    'LANG': 'C.UTF-8',
    'HOME': '/root',
    'DEBIAN_FRONTEND': 'noninteractive',
}


class SetupError(Exception):
    pass


def log(msg):
    print(f'sid-kernel: {msg}', file=sys.stderr, flush=True)


def run(cmd, what, env=None, capture=False):
    """Runs cmd; its output goes to stderr (meson shows it on failure)."""
    log('$ ' + ' '.join(cmd))
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, env=env, text=True,
                       stdout=subprocess.PIPE if capture else sys.stderr,
                       stderr=sys.stderr)
    if r.returncode != 0:
        raise SetupError(f'{what} failed (exit {r.returncode}): {" ".join(cmd)}')
    return r.stdout if capture else None


def retried(fn, what, attempts=3, pause=20):
    """Mirrors answer 5xx or drop connections now and then: try again."""
    for i in range(1, attempts + 1):
        try:
            return fn()
        except SetupError as e:
            if i == attempts:
                raise SetupError(f'{what}: gave up after {attempts} attempts: {e}') from e
            log(f'{what}: attempt {i} failed ({e}); retrying in {pause} s')
            time.sleep(pause)
    return None


def in_chroot(root, cmd, what, capture=False):
    return run(['chroot', root] + cmd, what, env=CHROOT_ENV, capture=capture)


# The chroot's apt settings.  Valid-Until: sid's Release file is re-signed
# every few days; a mirror or archive snapshot that lags (as the one these
# tests were first run against did, by weeks) would otherwise refuse the
# lists.  The signatures are still checked.
APT_CONF = '''Acquire::Retries "3";
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
'''


def apt(root, *args, capture=False):
    return in_chroot(root, ['apt-get', '-q', *args], 'apt-get ' + args[0],
                     capture=capture)


def remove_tree(root):
    """rmtree, but never through a mount point (a /dev or /proc left
    mounted in the chroot would take the host's files with it)."""
    real = os.path.realpath(root)
    with open('/proc/self/mounts', encoding='utf-8') as f:
        for line in f:
            point = line.split()[1].replace('\\040', ' ')
            if point == real or point.startswith(real + '/'):
                raise SetupError(f'{point} is mounted inside {root}; unmount it, '
                                 'then remove the directory')
    shutil.rmtree(root, ignore_errors=True)


def make_chroot(root, mirror):
    if os.path.isfile(os.path.join(root, CHROOT_OK)):
        return
    if not shutil.which('debootstrap'):
        raise SetupError('debootstrap is not installed (apt-get install debootstrap)')

    def attempt():
        # a half-made chroot from a failed or interrupted run is useless
        remove_tree(root)
        # debootstrap mounts /proc and /sys in the target: in a private
        # mount namespace they vanish with it, even when it is killed
        run(['unshare', '--mount', '--propagation', 'private', '--',
             'debootstrap', '--variant=minbase', f'--include={PACKAGES}',
             'sid', root, mirror], 'debootstrap sid')

    start = time.monotonic()
    retried(attempt, 'debootstrap sid')
    for dev in ('null', 'zero', 'urandom'):
        if not os.path.exists(os.path.join(root, 'dev', dev)):
            raise SetupError(f'{root}/dev/{dev} missing after debootstrap')
    with open(os.path.join(root, 'etc/apt/apt.conf.d/99rfkill-tests'), 'w',
              encoding='utf-8') as f:
        f.write(APT_CONF)
    open(os.path.join(root, CHROOT_OK), 'w').close()
    log(f'chroot ready in {time.monotonic() - start:.0f} s')


def refresh_lists(root, max_age):
    stamp = os.path.join(root, LISTS_OK)
    try:
        age = time.time() - os.path.getmtime(stamp)
    except OSError:
        age = None
    if age is not None and age < max_age * 3600:
        return True
    try:
        retried(lambda: apt(root, 'update'), "reading sid's package lists")
    except SetupError as e:
        log(str(e))
        return False
    open(stamp, 'w').close()
    return True


def kver_key(kver):
    return [int(p) if p.isdigit() else p for p in re.split(r'(\d+)', kver)]


def newest_kver(root):
    """The newest generic amd64 kernel in sid that has the binary, the
    modules and the headers packages."""
    names = set(in_chroot(root, ['apt-cache', 'pkgnames', 'linux-'],
                          'apt-cache pkgnames', capture=True).split())
    found = []
    for name in names:
        m = re.fullmatch(r'linux-binary-(\d.*-amd64)', name)
        if not m or name.endswith(OTHER_FLAVOURS):
            continue
        kver = m.group(1)
        if {f'linux-modules-{kver}', f'linux-headers-{kver}'} <= names:
            found.append(kver)
    if not found:
        raise SetupError("sid's package lists name no linux-binary-*-amd64 with "
                         'matching linux-modules and linux-headers packages')
    return max(found, key=kver_key)


def ready_kernels(root):
    moddir = os.path.join(root, 'usr/lib/modules')
    try:
        kvers = [k for k in os.listdir(moddir)
                 if os.path.isfile(os.path.join(moddir, k, KERNEL_OK))]
    except OSError:
        kvers = []
    return sorted(kvers, key=kver_key)


def drop_older(root, kver):
    """Keeps one sid kernel in the root: the suites test the newest line."""
    for old in ready_kernels(root):
        if old == kver:
            continue
        log(f'removing the older {old}')
        shutil.rmtree(os.path.join(root, 'usr/lib/modules', old), ignore_errors=True)
        try:
            apt(root, 'purge', '-y', f'linux-headers-{old}')
        except SetupError as e:
            log(f'WARNING: {e}')


def install_kernel(root, kver):
    moddir = os.path.join(root, 'usr/lib/modules', kver)
    if os.path.isfile(os.path.join(moddir, KERNEL_OK)):
        return
    start = time.monotonic()
    retried(lambda: apt(root, 'install', '-y', '--no-install-recommends',
                        f'linux-headers-{kver}'), f'installing linux-headers-{kver}')
    debs = os.path.join(root, DEBS.lstrip('/'))
    shutil.rmtree(debs, ignore_errors=True)
    os.makedirs(debs)
    retried(lambda: in_chroot(root, ['sh', '-ec', f'cd {DEBS} && apt-get -q download '
                                     f'linux-binary-{kver} linux-modules-{kver}'],
                              'apt-get download'),
            f'downloading linux-binary-{kver} and linux-modules-{kver}')
    for deb in sorted(os.listdir(debs)):
        in_chroot(root, ['dpkg-deb', '-x', os.path.join(DEBS, deb), '/'],
                  f'unpacking {deb}')
    shutil.rmtree(debs, ignore_errors=True)
    in_chroot(root, ['depmod', kver], f'depmod {kver}')
    for path in (os.path.join(moddir, 'vmlinuz'), os.path.join(moddir, 'modules.dep'),
                 os.path.join(root, f'usr/src/linux-headers-{kver}/Module.symvers')):
        if not os.path.isfile(path):
            raise SetupError(f'{path} missing after installing {kver}')
    open(os.path.join(moddir, KERNEL_OK), 'w').close()
    drop_older(root, kver)
    log(f'{kver} ready in {time.monotonic() - start:.0f} s')


def prepare(cache, max_age, mirror):
    os.makedirs(cache, exist_ok=True)
    root = os.path.join(cache, 'sid')
    with open(os.path.join(cache, '.lock'), 'w') as lock:
        # two build directories sharing RFKILL_KERNEL_CACHE: one at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        make_chroot(root, mirror)
        fresh = refresh_lists(root, max_age)
        if not fresh:
            ready = ready_kernels(root)
            if not ready:
                raise SetupError("cannot read sid's package lists and no sid "
                                 f'kernel is ready in {root}')
            log(f'WARNING: using {ready[-1]}, sid may have a newer one')
            return ready[-1], root
        kver = newest_kver(root)
        install_kernel(root, kver)
        return kver, root


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cache', required=True,
                    help='cache directory (RFKILL_KERNEL_CACHE overrides it)')
    ap.add_argument('--max-age', type=float, default=6,
                    help="hours before sid's lists are read again")
    ap.add_argument('--mirror', default='http://deb.debian.org/debian')
    args = ap.parse_args()
    cache = os.path.abspath(os.environ.get('RFKILL_KERNEL_CACHE') or args.cache)
    if os.geteuid() != 0:
        log('needs root (debootstrap and chroot)')
        return 1
    start = time.monotonic()
    try:
        kver, root = prepare(cache, args.max_age, args.mirror)
    except (SetupError, OSError) as e:
        log(str(e))
        return 1
    log(f'{kver} in {root} ({time.monotonic() - start:.0f} s)')
    print(kver, root)
    return 0


if __name__ == '__main__':
    sys.exit(main())
