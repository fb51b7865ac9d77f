#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The fake kernel (tests/fake/fake-rfkill) against the in-tree rfkill.ko:
parity-probe, built for the host, runs on fake-rfkill --stock through
rfkill-preload.so (RFK_RFKILL_AS_DEVICE=1), in the VM's radio setup, and
its transcript is diffed with the in-tree module's from the VM, within
what the fake models (SCOPE below: every cut is listed with its reason).

test_parity.py calls run() and compare() on the transcript its VM run
just wrote; by hand, on a stock.txt of such a run:

  fake_parity.py --stock DIR/stock.txt --kernel KVER --probe parity-probe-host
                 --fake-rfkill fake-rfkill --preload rfkill-preload.so
                 [--out DIR]
"""

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The VM at the probe's start: mac80211_hwsim radios=2 (phy0, phy1) and
# toshiba_bluetooth, hard blocked by its switch (pc-testdev boots at 0);
# the probe itself adds hci0 (vhci) and drives the rest.
RADIOS = 'wlan,wlan,bluetooth=Toshiba Bluetooth'
TOSHIBA_HARD = 'hard 2 on'

# What the fake does not model, cut from BOTH transcripts, with why.
# (kind, pattern, reason); 'drop' removes matching lines, 'keep-sysfs'
# keeps only the sysfs lines that match.
SCOPE = [
    ('drop', re.compile(r'^param '),
     'module parameters: the fake is a program, not a module'),
    ('drop', re.compile(r'^dev '),
     'the device node: the fake is a unix socket, not a misc device'),
    ('drop', re.compile(r'^uevent '),
     'uevents: the fake has no kobjects and sends nothing over netlink'),
    ('drop', re.compile(r'^led '),
     'LED triggers: the fake has no LED class'),
    ('drop', re.compile(r'^bind '),
     'device paths and driver bindings: the fake has no devices or buses'),
    ('drop', re.compile(r'^kmsg '),
     'the kernel log: the fake logs nothing'),
    ('drop', re.compile(r'^\S+ vm-only:'),
     'steps on what only the VM has (an input device, a driver slow to '
     'unblock), which the probe skips on the fake'),
    ('drop', re.compile(r'sysfs-write:'),
     'sysfs writes: the fake keeps its sysfs as a copy of its state and '
     'never reads it back, so the probe skips those steps on the fake'),
    ('keep-sysfs', re.compile(r'^sysfs \S+ rfkill\d+ (name|type|soft|hard|state) = '),
     'sysfs: the fake writes only name, type, soft, hard and state, as '
     'plain files: no modes, index, persistent, hard_block_reasons, '
     'power/, uevent or links'),
    ('drop', re.compile(r'^queue events queued for the fd that never read: '),
     'the per-file event cap (1000, upstream ea245d78dec5): the fake '
     'queues what the socket cannot take, up to 2^20 packets, since it '
     'cannot tell what a client has read out of the socket buffer'),
]

# Unknown rfkill ioctls: ENOSYS before 6.8, ENOTTY since; the fake (like
# src/core) models the newer kernels, so on an older one ENOSYS counts as
# ENOTTY in ioctl lines, and nowhere else.
ENOTTY_SINCE = (6, 8)


def kernel_before(kver, version):
    m = re.match(r'(\d+)\.(\d+)', kver)
    return bool(m) and (int(m.group(1)), int(m.group(2))) < version


def scope(lines, kver):
    """lines within what the fake models (SCOPE), in order."""
    out = []
    for line in lines:
        keep = True
        for kind, rx, _ in SCOPE:
            if kind == 'drop' and rx.search(line):
                keep = False
            elif kind == 'keep-sysfs' and line.startswith('sysfs ') and not rx.search(line):
                keep = False
        if not keep:
            continue
        if kernel_before(kver, ENOTTY_SINCE) and line.startswith('ioctl '):
            line = re.sub(r' -> -1 ENOSYS$', ' -> -1 ENOTTY', line)
        out.append(line)
    return out


def cuts():
    """The cut list, for the report: one line per rule."""
    lines = [f'{kind} /{rx.pattern}/: {why}' for kind, rx, why in SCOPE]
    lines.append(f'ioctl ENOSYS read as ENOTTY on kernels before '
                 f'{ENOTTY_SINCE[0]}.{ENOTTY_SINCE[1]}')
    return lines


def run(probe, fake_rfkill, preload, out_dir, timeout=180):
    """Runs the probe on a fresh fake; returns (transcript or None,
    diagnostics).  The transcript is also written to out_dir/fake.txt."""
    os.makedirs(out_dir, exist_ok=True)
    # Unix socket paths are short (the build dir may be deep), and the
    # fake rewrites three sysfs files per change: on a tmpfs, the 3000
    # changes of the queue step take 5 s instead of 15.
    shm = '/dev/shm' if os.access('/dev/shm', os.W_OK) else None
    tmp = tempfile.mkdtemp(prefix='fake-parity-', dir=shm)
    sock, ctl = os.path.join(tmp, 'rfk.sock'), os.path.join(tmp, 'ctl.sock')
    sysfs = os.path.join(tmp, 'sysfs')
    fake = subprocess.Popen([fake_rfkill, '--stock', '--radios', RADIOS,
                             '--listen', sock, '--sysfs', sysfs,
                             '--control', ctl, '--no-stdin'],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    diag = []
    try:
        if fake.stdout.readline().strip() != 'ready':
            fake.wait(5)
            return None, ['fake-rfkill did not start: ' + fake.stderr.read()]
        hard = subprocess.run([fake_rfkill, '--ctl', ctl] + TOSHIBA_HARD.split(),
                              capture_output=True, text=True)
        if hard.returncode != 0:
            return None, ['fake-rfkill refused ' + TOSHIBA_HARD + ': ' + hard.stderr]
        env = dict(os.environ, LD_PRELOAD=preload, RFK_RFKILL_AS_DEVICE='1',
                   RFK_RFKILL_SOCKET=sock, PARITY_FAKE_CONTROL=ctl,
                   RFKILL_SYSFS_ROOT=sysfs)
        try:
            probe_run = subprocess.run([probe], env=env, stdin=subprocess.DEVNULL,
                                       capture_output=True, text=True,
                                       timeout=timeout)
        except subprocess.TimeoutExpired as e:
            return None, [f'the probe did not finish in {timeout} s; its output:\n'
                          + (e.stdout or b'').decode(errors='replace')[-2000:]]
        lines = probe_run.stdout.splitlines()
        if probe_run.stderr.strip():
            diag.append('probe stderr:\n' + probe_run.stderr.strip()[-2000:])
        transcript = []
        if 'parity-begin' in lines:
            transcript = lines[lines.index('parity-begin') + 1:]
        if 'parity-end' in transcript:
            transcript = transcript[:transcript.index('parity-end')]
        with open(os.path.join(out_dir, 'fake.txt'), 'w', encoding='utf-8') as f:
            f.write('\n'.join(transcript) + '\n')
        if probe_run.returncode != 0 or not transcript or transcript[-1] != 'end':
            diag.append(f'the probe stopped early (rc={probe_run.returncode}): '
                        + '\n'.join(lines[-10:]))
            return None, diag
        return transcript, diag
    finally:
        fake.terminate()
        try:
            fake.wait(5)
        except subprocess.TimeoutExpired:
            fake.kill()
        err = fake.stderr.read().strip()
        if err:
            diag.append('fake-rfkill stderr:\n' + err[-2000:])
        shutil.rmtree(tmp, ignore_errors=True)


def compare(stock, fake, kver, out_dir):
    """The unified diff (in-tree, fake) within the fake's scope, also
    written to out_dir/fake-parity.diff; empty when they agree."""
    diff = list(difflib.unified_diff(scope(stock, kver), scope(fake, kver),
                                     'in-tree', 'fake-rfkill', n=1, lineterm=''))
    with open(os.path.join(out_dir, 'fake-parity.diff'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(diff) + '\n')
    return diff


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--stock', required=True, help="the VM run's stock.txt")
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--probe', required=True)
    ap.add_argument('--fake-rfkill', required=True)
    ap.add_argument('--preload', required=True)
    ap.add_argument('--out', default=None, help='default: next to --stock')
    args = ap.parse_args()
    out = os.path.abspath(args.out or os.path.dirname(args.stock))
    with open(args.stock, encoding='utf-8') as f:
        stock = f.read().splitlines()
    fake, diag = run(args.probe, args.fake_rfkill, args.preload, out)
    for d in diag:
        print(d, file=sys.stderr)
    if fake is None:
        return 1
    diff = compare(stock, fake, args.kernel, out)
    print('\n'.join(diff) if diff else
          f'fake-rfkill agrees with the in-tree module of {args.kernel} '
          f'within its scope ({len(scope(stock, args.kernel))} lines compared)')
    return 1 if diff else 0


if __name__ == '__main__':
    sys.exit(main())
