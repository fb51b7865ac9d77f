#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Prepare a Debian suite's kernels for the kernel suite, without
installing anything on the host or adding that suite to its apt sources.

  python3 -m vm.kernel_root --cache DIR --suite SUITE [--kernel KVER]...
                            [--max-age HOURS] [--mirror URL]

A suite newer than the host (sid, trixie) builds its kernels with its own
gcc and libc, so everything lives in one chroot per suite, CACHE/SUITE,
made with debootstrap (the suites are in SUITES below):

  * the chroot's own apt (its sources name that suite, with its updates
    and security archive where it has them) reads the package lists;
  * linux-headers-KVER is installed inside it (our modules are built
    there, see kernels.py);
  * the kernel image and modules (linux-binary-KVER and linux-modules-KVER
    where Debian splits them, linux-image-KVER otherwise) are unpacked
    with dpkg-deb -x, the image is put at usr/lib/modules/KVER/vmlinuz,
    and depmod writes modules.dep, so the VM harness finds
    ROOT/usr/lib/modules/KVER/{vmlinuz,modules.dep}.

Without --kernel the suite's newest generic amd64 kernel is prepared and
older ones are dropped (sid: the suites test the newest line).  With
--kernel, exactly those are prepared and kept (trixie: Debian builds of a
release the full suite ran on elsewhere, each checked on its own).

The environment variable RFKILL_KERNEL_CACHE overrides --cache (one cache
for several build directories).  A rerun reuses the chroot and the
kernels; the lists are re-read when older than --max-age (default 6 h),
and when that fails but the kernels are ready, the ready ones are used
with a warning.  Network steps are retried.

On success prints "KVER ROOT" on stdout, one line per kernel; progress and
errors go to stderr.  Exit status 1 with one clear "kernel-root: ..." line
on failure.  Needs root (debootstrap, chroot).
"""

import argparse
import fcntl
import os
import re
import shutil
import subprocess
import sys
import time

PACKAGES = 'make,libc6-dev,kmod,xz-utils,bc,libelf-dev,pahole'
# Per suite (and chroot, CACHE/SUITE): the release debootstrap makes
# ('dist', default the suite itself), the compiler its linux-headers
# depend on, and the archives beyond that release its kernels come from:
# '-updates' and '-backports' from the mirror, '-security' from the
# mirror's -security twin (deb.debian.org/debian-security).
# trixie-backports has a chroot of its own: every kernel of a root is
# one kernels.py lists, and trixie's are not tested like backports' lines.
SUITES = {
    'sid': {'gcc': 'gcc-16', 'extra': []},
    'trixie': {'gcc': 'gcc-14', 'extra': ['trixie-updates', 'trixie-security']},
    'trixie-backports': {'dist': 'trixie', 'gcc': 'gcc-14',
                         'extra': ['trixie-updates', 'trixie-security',
                                   'trixie-backports']},
}
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
    print(f'kernel-root: {msg}', file=sys.stderr, flush=True)


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


def sources_list(suite, mirror):
    lines = [f'deb {mirror} {SUITES[suite].get("dist", suite)} main']
    for extra in SUITES[suite]['extra']:
        url = mirror.rstrip('/') + '-security' if extra.endswith('-security') else mirror
        lines.append(f'deb {url} {extra} main')
    return '\n'.join(lines) + '\n'


def make_chroot(root, suite, mirror):
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
             'debootstrap', '--variant=minbase',
             f'--include={PACKAGES},{SUITES[suite]["gcc"]}',
             SUITES[suite].get('dist', suite), root, mirror], f'debootstrap {suite}')

    start = time.monotonic()
    retried(attempt, f'debootstrap {suite}')
    for dev in ('null', 'zero', 'urandom'):
        if not os.path.exists(os.path.join(root, 'dev', dev)):
            raise SetupError(f'{root}/dev/{dev} missing after debootstrap')
    with open(os.path.join(root, 'etc/apt/apt.conf.d/99rfkill-tests'), 'w',
              encoding='utf-8') as f:
        f.write(APT_CONF)
    with open(os.path.join(root, 'etc/apt/sources.list'), 'w', encoding='utf-8') as f:
        f.write(sources_list(suite, mirror))
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
        retried(lambda: apt(root, 'update'), 'reading the package lists')
    except SetupError as e:
        log(str(e))
        return False
    open(stamp, 'w').close()
    return True


def kver_key(kver):
    return [int(p) if p.isdigit() else p for p in re.split(r'(\d+)', kver)]


def package_names(root):
    return set(in_chroot(root, ['apt-cache', 'pkgnames', 'linux-'],
                         'apt-cache pkgnames', capture=True).split())


def kernel_packages(names, kver):
    """The packages holding kver's image and modules (Debian split them
    into linux-binary and linux-modules in 7.x; before, linux-image holds
    both), or None when the lists lack them or its headers."""
    if f'linux-headers-{kver}' not in names:
        return None
    split = [f'linux-binary-{kver}', f'linux-modules-{kver}']
    if set(split) <= names:
        return split
    if f'linux-image-{kver}' in names:
        return [f'linux-image-{kver}']
    return None


def newest_kver(root):
    """The newest generic amd64 kernel that has its image, modules and
    headers packages."""
    names = package_names(root)
    found = []
    for name in names:
        m = re.fullmatch(r'linux-(?:binary|image)-(\d.*-amd64)', name)
        if not m or name.endswith(OTHER_FLAVOURS) or name.endswith('-unsigned'):
            continue
        if kernel_packages(names, m.group(1)):
            found.append(m.group(1))
    if not found:
        raise SetupError('the package lists name no linux-binary-*-amd64 or '
                         'linux-image-*-amd64 with matching modules and headers')
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
    """Keeps one kernel in the root (sid: the suites test the newest line)."""
    for old in ready_kernels(root):
        if old == kver:
            continue
        log(f'removing the older {old}')
        shutil.rmtree(os.path.join(root, 'usr/lib/modules', old), ignore_errors=True)
        try:
            apt(root, 'purge', '-y', f'linux-headers-{old}')
        except SetupError as e:
            log(f'WARNING: {e}')


def install_kernel(root, kver, packages):
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
                                     + ' '.join(packages)], 'apt-get download'),
            f'downloading {" and ".join(packages)}')
    # Unpacked apart, then moved: a package may name lib/modules or
    # usr/lib/modules, and put the image in /boot or next to the modules.
    tree = os.path.join(debs, 'tree')
    for deb in sorted(f for f in os.listdir(debs) if f.endswith('.deb')):
        in_chroot(root, ['dpkg-deb', '-x', os.path.join(DEBS, deb),
                         os.path.join(DEBS, 'tree')], f'unpacking {deb}')
    shutil.rmtree(moddir, ignore_errors=True)
    for where in ('usr/lib/modules', 'lib/modules'):
        if os.path.isdir(os.path.join(tree, where, kver)):
            shutil.move(os.path.join(tree, where, kver), moddir)
            break
    image = os.path.join(tree, 'boot', f'vmlinuz-{kver}')
    if os.path.isfile(image):
        shutil.move(image, os.path.join(moddir, 'vmlinuz'))
    shutil.rmtree(debs, ignore_errors=True)
    in_chroot(root, ['depmod', kver], f'depmod {kver}')
    for path in (os.path.join(moddir, 'vmlinuz'), os.path.join(moddir, 'modules.dep'),
                 os.path.join(root, f'usr/src/linux-headers-{kver}/Module.symvers')):
        if not os.path.isfile(path):
            raise SetupError(f'{path} missing after installing {kver}')
    open(os.path.join(moddir, KERNEL_OK), 'w').close()
    log(f'{kver} ready in {time.monotonic() - start:.0f} s')


def drop_debs(root):
    """Removes the .debs debootstrap and apt-get leave in the root's apt
    cache: a few hundred MB per root that nothing reads again (a refresh
    downloads what it installs), on CI machines whose disk can be short."""
    archives = os.path.join(root, 'var/cache/apt/archives')
    try:
        names = os.listdir(archives)
    except OSError:
        return
    for name in names:
        if name.endswith('.deb'):
            os.unlink(os.path.join(archives, name))


def prepare(cache, suite, kvers, max_age, mirror):
    """[(kver, root)] of the kernels prepared: kvers, or the newest."""
    os.makedirs(cache, exist_ok=True)
    root = os.path.join(cache, suite)
    with open(os.path.join(cache, '.lock'), 'w') as lock:
        # two build directories sharing RFKILL_KERNEL_CACHE: one at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return prepare_locked(root, suite, kvers, max_age, mirror)
        finally:
            drop_debs(root)


def prepare_locked(root, suite, kvers, max_age, mirror):
    """prepare() under the cache's lock."""
    make_chroot(root, suite, mirror)
    fresh = refresh_lists(root, max_age)
    ready = ready_kernels(root)
    if not fresh:
        if kvers and set(kvers) <= set(ready):
            log(f'WARNING: using the ready {", ".join(kvers)} without new lists')
            return [(k, root) for k in kvers]
        if not kvers and ready:
            log(f'WARNING: using {ready[-1]}, {suite} may have a newer one')
            return [(ready[-1], root)]
        raise SetupError(f"cannot read {suite}'s package lists and the kernels "
                         f'are not ready in {root}')
    names = package_names(root)
    if not kvers:
        newest = newest_kver(root)
        install_kernel(root, newest, kernel_packages(names, newest))
        drop_older(root, newest)
        return [(newest, root)]
    for kver in kvers:
        packages = kernel_packages(names, kver)
        if packages:
            install_kernel(root, kver, packages)
        elif kver not in ready:
            raise SetupError(f"{suite}'s package lists have no image, modules "
                             f'and headers packages of {kver}')
    return [(k, root) for k in kvers]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cache', required=True,
                    help='cache directory (RFKILL_KERNEL_CACHE overrides it)')
    ap.add_argument('--suite', required=True, choices=sorted(SUITES))
    ap.add_argument('--kernel', action='append', default=[],
                    help='a kernel release to prepare (default: the newest)')
    ap.add_argument('--max-age', type=float, default=6,
                    help='hours before the package lists are read again')
    ap.add_argument('--mirror', default='http://deb.debian.org/debian')
    args = ap.parse_args()
    cache = os.path.abspath(os.environ.get('RFKILL_KERNEL_CACHE') or args.cache)
    if os.geteuid() != 0:
        log('needs root (debootstrap and chroot)')
        return 1
    start = time.monotonic()
    try:
        prepared = prepare(cache, args.suite, args.kernel, args.max_age, args.mirror)
    except (SetupError, OSError) as e:
        log(str(e))
        return 1
    for kver, root in prepared:
        log(f'{kver} in {root} ({time.monotonic() - start:.0f} s)')
        print(kver, root)
    return 0


if __name__ == '__main__':
    sys.exit(main())
