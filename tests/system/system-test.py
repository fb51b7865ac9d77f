#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System test: the installed product on a real Debian (bookworm or trixie) in qemu.

  system-test.py --source-dir SRC --work-dir DIR --panel-xml FILE
                 --asl ATK4002.ASL --asl DELLABCE.ASL [--release R]
                 [--pkg-dir DIR] [--boots N] [--timeout S]

1. builds the Debian packages (build-debs.sh into --pkg-dir, default
   DIR/pkg; reuses them when the sources did not change), lintian-clean or
   the run fails.  They are built on the host (bookworm) for both releases:
   the packages we publish, installed on trixie as a user there does;
2. builds the image of release R (default bookworm; build-image.sh): a
   cached mmdebstrap base keyed by image-packages.txt and R, our .debs
   installed with apt inside it (DKMS builds the modules for R's kernel,
   which must be in kernel/verified-kernels), ext4 by mke2fs -d;
3. boots it in qemu (TCG, never KVM) with the image's own kernel and
   initramfs, systemd as init, the fake ATK4002 and DELLABCE SSDTs,
   isa-debugcon on 0x440 for the LED and pc-testdev on 0xe0 for the Dell
   slider's position; the guest runs guest/guest-test.py over N boots
   (--boots, 3 or 1; rfk_system.boots=N on the kernel command line, which
   qemu keeps across the guest's reboots);
4. passes the guest's TAP (ttyS1) through, checks the LED bytes on the
   debugcon log at the guest's markers, copies the menu screenshot out of
   the image (debugfs, no mount) to DIR/menu.png and checks it is not
   blank; prints the plan last.

Three boots (the default) are: 1. the installed product, the LED rule,
fast user switching, airplane on, reboot; 2. airplane mode survived the
reboot, the other airplane scenarios, suspend and resume, `apt-get remove
rfkill-airplane-dkms`, reboot; 3. the in-tree rfkill.ko back, Wi-Fi scans,
power off.  --boots 1 stops after boot 1.  The meson test of bookworm
(system-vm) runs boot 1 only, to save CI time: boots 2 and 3 are the same
scenarios as trixie's image runs, on its newer systemd and dkms.  What
bookworm loses with them is its own check that bookworm's systemd-rfkill
saves airplane mode across a reboot, the scenarios after it on bookworm's
systemd and NetworkManager, and its own `apt-get remove` of the dkms package
(bookworm's dkms removing our modules, the in-tree ones loading again).

Root is needed (mmdebstrap, chroot, reading the image).  Exit 77 (skip)
without root or tools; CI runs as root with them installed.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# What a full run of the guest reports, by the number of boots planned
# (--boots): its TAP results over those boots, and its "# led-expect"
# markers.  A guest that skipped a group of checks (a section that raised
# early, a scenario left out) still ends with a plan that matches what it
# printed, so the host holds the counts.  Boot 1 has 54 results (53 checks
# and the CRITICAL check every boot ends with) and every LED marker (the
# LED rule and fast user switching); boot 2 has 24, boot 3 16.
GUEST_CHECKS = {3: 94, 1: 54}
LED_EXPECTS = {3: 11, 1: 11}
BOOT_WORDS = {1: 'its one boot', 3: 'all three boots'}
TOOLS = ['mmdebstrap', 'mke2fs', 'debugfs', 'qemu-system-x86_64', 'iasl',
         'dpkg-buildpackage', 'lintian', 'dh_dkms', 'unshare', 'convert']


def log(*a):
    print('#', *a, flush=True)


def run(cmd, **kw):
    log('$', ' '.join(cmd))
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, **kw)
    for line in r.stdout.rstrip().splitlines()[-60:]:
        log('  ' + line)
    if r.returncode != 0:
        raise RuntimeError(f'{cmd[0]} exited {r.returncode}')
    return r.stdout


def led_checks(led_log):
    """(name, wanted, seen) for each '# led-expect' marker in the debugcon log."""
    data = open(led_log, 'rb').read().decode('latin-1') if os.path.exists(led_log) else ''
    seen = {}
    value = None
    for tok in re.finditer(r'\[([^\]]+)\]|([01])', data):
        if tok.group(2):
            value = tok.group(2)
        else:
            seen[tok.group(1)] = value
    return data, seen


def boots_run(lines, planned=3):
    """The boots the guest's TAP log shows, and whether all the planned
    ones ran to the end.  guest-test.py says "# boot N: kernel ..." as each
    boot starts, and prints its plan and END after whichever boot stops the
    run (a boot that raises ends it there), so plan and END alone do not
    show that every boot ran: the boots must be 1 to PLANNED, and END after
    boot PLANNED."""
    boots = [int(m.group(1)) for m in
             (re.match(r'# boot (\d+): kernel ', l) for l in lines) if m]
    end_at = next((i for i, l in enumerate(lines) if '@@SYSTEM-TEST-END' in l), None)
    last_at = next((i for i, l in enumerate(lines)
                    if l.startswith(f'# boot {planned}: kernel ')), None)
    return boots, (boots == list(range(1, planned + 1)) and last_at is not None and
                   end_at is not None and end_at > last_at)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--source-dir', required=True)
    ap.add_argument('--work-dir', required=True)
    ap.add_argument('--panel-xml', required=True)
    ap.add_argument('--asl', required=True, action='append',
                    help='an SSDT source; each one is compiled and loaded')
    ap.add_argument('--release', default='bookworm', choices=['bookworm', 'trixie'],
                    help='the Debian release of the image')
    ap.add_argument('--pkg-dir', help='where build-debs.sh keeps the .debs '
                    '(default WORK-DIR/pkg; the releases share one)')
    ap.add_argument('--boots', type=int, default=3, choices=[1, 3],
                    help='boots of the guest: 3 (all), or 1 (the installed '
                    'product, the LED and fast user switching; see above)')
    # Three boots take 460 s to 810 s alone; beside other tests, up to twice
    # that.  The default is for them: boot 1 alone (--boots 1, bookworm)
    # took 225 s of qemu where its three boots had taken 673 s.
    ap.add_argument('--timeout', type=int, default=2400)
    ap.add_argument('--memory', default='2048')
    a = ap.parse_args()

    if os.geteuid() != 0:
        print('1..0 # SKIP needs root (mmdebstrap, chroot, /boot of the image)')
        sys.exit(77)
    missing = [t for t in TOOLS if not shutil.which(t)]
    if missing:
        print(f'1..0 # SKIP missing tools: {" ".join(missing)}')
        sys.exit(77)

    work = os.path.abspath(a.work_dir)
    os.makedirs(work, exist_ok=True)
    t0 = time.monotonic()
    failed = 0
    n = 0

    def ok(cond, what):
        nonlocal n, failed
        n += 1
        print(f"{'ok' if cond else 'not ok'} {n} - {what}", flush=True)
        failed += not cond
        return cond

    # 1. packages
    pkg = os.path.abspath(a.pkg_dir) if a.pkg_dir else os.path.join(work, 'pkg')
    try:
        run(['bash', os.path.join(HERE, 'build-debs.sh'), a.source_dir, pkg])
        built = True
    except RuntimeError as e:
        log(e)
        built = False
    ok(built, 'the Debian packages build and lintian reports no error or warning')
    if not built:
        print(f'1..{n}')
        sys.exit(1)
    debs = [os.path.join(pkg, 'debs', f) for f in sorted(os.listdir(os.path.join(pkg, 'debs')))
            if f.endswith('.deb') and '-dbgsym_' not in f]
    t_pkg = time.monotonic()

    # 2. image
    img_dir = os.path.join(work, 'image')
    try:
        base = run(['bash', os.path.join(HERE, 'build-image.sh'), 'base',
                    os.path.join(HERE, 'image-packages.txt'),
                    os.path.join(work, 'cache'), a.release]).strip().splitlines()[-1]
        t_base = time.monotonic()
        run(['bash', os.path.join(HERE, 'build-image.sh'), 'image', base,
             os.path.join(HERE, 'guest'), a.panel_xml, img_dir] + debs)
        imaged = True
    except RuntimeError as e:
        log(e)
        imaged = False
        t_base = time.monotonic()
    ok(imaged, f'{a.release} image built; our packages installed with apt inside it '
       '(DKMS built the modules)')
    if not imaged:
        print(f'1..{n}')
        sys.exit(1)
    # the modules DKMS built inside the image, before anything boots
    kver = open(os.path.join(img_dir, 'kver')).read().strip()
    upd = os.path.join(img_dir, 'root', 'lib', 'modules', kver, 'updates', 'dkms')
    have = sorted(os.listdir(upd)) if os.path.isdir(upd) else []
    ok(any(f.startswith('rfkill.ko') for f in have),
       f'DKMS installed our modules for {kver} in the image ({" ".join(have)})')
    # image/root is in rootfs.ext4 now.  It stays for the next image build
    # to replace, but when the build directory is disposable (run-all.sh
    # wipes it; build-image.sh then moved the base here instead of linking
    # it) its 1.5 GB go, in the background, while the VM boots: CI machines
    # can be short of disk.
    if os.environ.get('RFK_DROP_CACHES') == '1':
        subprocess.Popen(['rm', '-rf', os.path.join(img_dir, 'root')])
    t_img = time.monotonic()

    # 3. boot
    tables = []
    for asl in map(os.path.abspath, a.asl):
        aml = os.path.join(work, os.path.splitext(os.path.basename(asl))[0].lower())
        run(['iasl', '-vs', '-p', aml, asl], cwd=os.path.dirname(asl))
        tables += ['-acpitable', f'file={aml}.aml']
    console = os.path.join(work, 'console.log')
    tap = os.path.join(work, 'tap.log')
    led = os.path.join(work, 'led.log')
    for f in (console, tap, led):
        if os.path.exists(f):
            os.unlink(f)
    # One vCPU: trixie's 6.12 kernel under this qemu's TCG with two takes an
    # int3 oops while it patches its text at boot (sched_clock_cpu, rcu_preempt:
    # another vCPU runs the code being patched), and one core a VM leaves the
    # other to the tests beside it.
    qemu = ['qemu-system-x86_64', '-accel', 'tcg', '-cpu', 'max', '-smp', '1',
            '-m', a.memory, '-nodefaults', '-vga', 'none', '-display', 'none',
            '-monitor', 'none',
            '-kernel', os.path.join(img_dir, 'vmlinuz'),
            '-initrd', os.path.join(img_dir, 'initrd.img'),
            # rfk_system.boots: the guest's plan (a dotted name: the kernel
            # leaves it to a module that does not exist, init never sees it)
            '-append', 'root=/dev/vda rw console=ttyS0 panic=-1 cryptomgr.notests '
                       f'quiet systemd.show_status=auto rfk_system.boots={a.boots}',
            '-drive', f'file={os.path.join(img_dir, "rootfs.ext4")},if=virtio,format=raw',
            '-serial', f'file:{console}', '-serial', f'file:{tap}',
            '-chardev', f'file,id=dbg,path={led}',
            '-device', 'isa-debugcon,iobase=0x440,chardev=dbg',
            '-device', 'pc-testdev',
            '-nic', 'none'] + tables
    log('$', ' '.join(qemu))
    tb = time.monotonic()
    timed_out = panicked = False
    vm = subprocess.Popen(qemu, stdin=subprocess.DEVNULL)
    # panic=-1 reboots a panicked guest at once, and the guest's own reboots
    # between boots need qemu to reboot: a kernel that panics at every boot
    # would loop until the timeout.  The console shows it: stop there.
    while vm.poll() is None:
        time.sleep(5)
        if time.monotonic() - tb > a.timeout:
            timed_out = True
        elif os.path.exists(console):
            with open(console, 'rb') as f:
                panicked = b'Kernel panic - not syncing' in f.read()
        if timed_out or panicked:
            vm.kill()
            vm.wait()
    t_vm = time.monotonic()
    log(f'qemu ran {t_vm - tb:.0f} s ({BOOT_WORDS[a.boots]})'
        + (' and was stopped: the guest kernel panicked' if panicked else ''))

    # 4. results
    lines = open(tap, errors='replace').read().replace('\r', '').splitlines() \
        if os.path.exists(tap) else []
    plan = None
    guest_n = 0
    for line in lines:
        m = re.match(r'(not ok|ok) (\d+)(.*)', line)
        if m:
            guest_n += 1
            n += 1
            print(f'{m.group(1)} {n}{m.group(3)}', flush=True)
            if m.group(1) == 'not ok':
                failed += 1
        elif re.match(r'1\.\.(\d+)$', line):
            plan = int(line[3:])
        else:
            print(line if line.startswith('#') else '# ' + line, flush=True)
    ended = any('@@SYSTEM-TEST-END' in l for l in lines)
    # The release each boot reported from its /etc/os-release.
    releases = sorted({m.group(1) for m in
                       (re.match(r'# boot \d+: kernel .*, release (\S+)$', l) for l in lines) if m})
    ok(releases == [a.release], f'the guest booted Debian {a.release} (os-release: {releases})')
    boots, all_boots = boots_run(lines, a.boots)
    want_n = GUEST_CHECKS[a.boots]
    ok(not timed_out and not panicked and ended and all_boots and plan == guest_n == want_n,
       f'the guest ran {BOOT_WORDS[a.boots]} to its end '
       f'(boots {boots}, plan {plan}, '
       f'{guest_n} results, want {want_n}{", timed out" if timed_out else ""}'
       f'{", kernel panic" if panicked else ""})')
    if (not ended or panicked) and os.path.exists(console):
        for l in open(console, errors='replace').read().splitlines()[-40:]:
            log('console: ' + l)

    data, seen = led_checks(led)
    log(f'debugcon log: {data!r}')
    expects = [l for l in lines if re.match(r'# led-expect (\S+) ([01])', l)]
    ok(len(expects) == LED_EXPECTS[a.boots],
       f'the guest asked for {len(expects)} LED readings at markers '
       f'(want {LED_EXPECTS[a.boots]})')
    for line in expects:
        m = re.match(r'# led-expect (\S+) ([01])', line)
        if m:
            ok(seen.get(m.group(1)) == m.group(2),
               f'host debugcon: LED was {m.group(2)} at [{m.group(1)}] (seen {seen.get(m.group(1))})')

    png = os.path.join(work, 'menu.png')
    xwd_out = os.path.join(work, 'menu.xwd')
    for f in (png, xwd_out):
        if os.path.exists(f):
            os.unlink(f)
    subprocess.run(['debugfs', '-R', f'dump /var/lib/rfk-system/menu.xwd {xwd_out}',
                    os.path.join(img_dir, 'rootfs.ext4')], capture_output=True)
    shot_ok = False
    if os.path.exists(xwd_out) and os.path.getsize(xwd_out) > 0:
        subprocess.run(['convert', f'xwd:{xwd_out}', png], capture_output=True)
        if os.path.exists(png):
            sd = subprocess.run(['convert', png, '-crop', '400x300+0+40', '+repage',
                                 '-format', '%[fx:standard_deviation]', 'info:'],
                                capture_output=True, text=True).stdout.strip()
            log(f'menu area standard deviation: {sd}')
            shot_ok = float(sd or 0) > 0.05
    ok(shot_ok, f'screenshot taken in the VM copied out to {png}, the menu is drawn')

    log(f'times: packages {t_pkg - t0:.0f} s, base image {t_base - t_pkg:.0f} s, '
        f'image {t_img - t_base:.0f} s, qemu {t_vm - tb:.0f} s, total {time.monotonic() - t0:.0f} s')
    print(f'1..{n}')
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
