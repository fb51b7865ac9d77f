#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""vmrun: boot a Debian kernel in qemu (TCG) with a throw-away busybox
initramfs, load modules, run one guest program and report TAP.

Usage (all options repeatable where it makes sense), with PYTHONPATH
naming tests/ (see tests/vm/__init__.py):

  python3 -m vm.vmrun --kernel 6.1.0-57-amd64 \\
      --module build/rfkill.ko \\                 # ours; replaces in-tree "rfkill"
      --in-tree-module 'mac80211_hwsim radios=2' \\ # name [params], deps resolved
      --in-tree-module hci_vhci \\
      --guest-program build/rfkill-guest-test --guest-args '--foo' \\
      --host-binary /usr/sbin/rfkill \\           # copied with its shared libs
      --file data.bin:/data/data.bin \\
      --acpitable ssdt.aml --debugcon led.log \\
      --qemu-arg=-serial --qemu-arg=unix:/tmp/s,server=on,wait=off \\
      --timeout 120

Module options: a --module is a path to a .ko built by us.  Its name (from
the file name) replaces an in-tree module of the same name everywhere,
including as a dependency of in-tree modules.  In-tree means Debian's file
under /lib/modules/KVER/kernel (modules.order; for a kernel in a kernel
root, ROOT/usr/lib/modules/KVER, see kernels.py), even when a DKMS copy in
updates/ would win for modprobe.  Names built into the
kernel (modules.builtin) are accepted and skipped.  Modules are insmod'ed in
command-line order, each after its dependencies (modules.dep for in-tree
ones, `modinfo -F depends` for ours).  .ko.xz files are decompressed.

Guest side: /init mounts proc, sys, devtmpfs, debugfs, tmpfs /tmp, loads the
modules, then runs the guest program (in /guest/, cwd /tmp).  Its stdout and
stderr go to the second serial port (ttyS1), which only carries results, so
kernel console messages cannot tear its lines.  Host binaries land at their
host path (e.g. /usr/sbin/rfkill), --file at the given path.

Output on stdout is TAP: the guest program's "ok"/"not ok" lines are passed
through (its own plan is checked and dropped; with --guest-checks N the
guest must also report exactly N checks, since a plan printed last only
counts what ran), other guest lines become "#"
comments, and vmrun adds its own checks: every module loaded, the guest
exited 0, dmesg has no BUG/WARNING/Oops/"disagrees about version"/"Unknown
symbol".  The combined plan is printed last.  Exit status is 0 only when
every check passed; a timeout or a guest that never reached its end marker
is a failure.  The console log goes to --console-log (default: the temp dir,
which is removed unless --keep).  Boot time is reported as a TAP comment.
Needs no stdin; never uses KVM (it aborts on these hosts).

One exception: a first boot whose only fault is a WARNING for a single-step
#DB in kernel mode, which TCG can leak and no guest here arms
(STRAY_STEP_TRAP), is booted once more, with vmrun.boot=2 on the kernel
command line, and only the second boot is reported, with nothing excused.
--one-boot turns that off, for hosts that talk to the guest as it runs.
"""

import argparse
import contextlib
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from vm import kernels
from vm.testlib import Tap

MARK = '@@VMRUN'

# dmesg lines that make a run fail whatever the guest program says.
DMESG_BAD = [
    re.compile(r'\bBUG\b'),
    re.compile(r'\bWARNING:'),
    re.compile(r'\bOops\b'),
    re.compile(r'disagrees about version of symbol'),
    re.compile(r'Unknown symbol'),
    re.compile(r'general protection fault'),
    re.compile(r'Kernel panic'),
    re.compile(r'\bRIP:'),
    re.compile(r'list_(add|del) corruption'),
    re.compile(r'refcount_t: '),
]

# One kernel WARNING that the emulator, not the code under test, causes: a
# single-step #DB in kernel mode.  The kernel sets TF only for kprobes and
# kgdb, which these guests never use; exc_debug_kernel() warns on any other
# DR_STEP, and its own comment gives QEMU leaking #DB into a guest (through
# its GDB stub, which vmrun does not start) as a known way there.  It was
# seen once under TCG, in a run whose every other check passed.  The report
# lasts from that WARNING to its "end trace" line, or to the next report,
# whichever comes first.
STRAY_STEP_TRAP = re.compile(r'WARNING: .* at arch/x86/kernel/traps\.c:\d+ exc_debug_kernel\b')
REPORT_START = re.compile(r'\bWARNING:|\bBUG\b|\bOops\b|Kernel panic|cut here')
REPORT_END = re.compile(r'---\[ end trace')


class VmError(Exception):
    pass


def module_name(path):
    base = os.path.basename(path)
    for suffix in ('.ko.xz', '.ko.zst', '.ko.gz', '.ko'):
        if base.endswith(suffix):
            base = base[:-len(suffix)]
            break
    # the kernel treats '-' and '_' in module names alike
    return base.replace('-', '_')


class ModuleIndex:
    """In-tree modules of one kernel, by name, with their dependencies."""

    def __init__(self, moddir):
        self.moddir = moddir
        dep = os.path.join(self.moddir, 'modules.dep')
        self.path = {}
        self.deps = {}
        self.builtin = set()
        try:
            with open(os.path.join(self.moddir, 'modules.builtin'),
                      encoding='utf-8') as f:
                self.builtin = {module_name(l.strip()) for l in f if l.strip()}
        except OSError:
            pass
        try:
            with open(dep, encoding='utf-8') as f:
                for line in f:
                    target, _, rest = line.partition(':')
                    name = module_name(target)
                    self.path[name] = os.path.join(self.moddir, target)
                    self.deps[name] = [module_name(d) for d in rest.split()]
        except OSError as e:
            raise VmError(f'cannot read {dep}: {e.strerror}') from e
        # modules.dep prefers updates/ (e.g. our DKMS install); "in-tree"
        # means Debian's own file, which modules.order names.
        try:
            with open(os.path.join(self.moddir, 'modules.order'),
                      encoding='utf-8') as f:
                for line in f:
                    rel = line.strip()
                    for suffix in ('', '.xz', '.zst', '.gz'):
                        full = os.path.join(self.moddir, rel + suffix)
                        if rel and os.path.isfile(full):
                            self.path[module_name(rel)] = full
                            break
        except OSError:
            pass


def ours_depends(path):
    try:
        out = subprocess.run(['modinfo', '-F', 'depends', path],
                             check=True, capture_output=True, text=True,
                             stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise VmError(f'modinfo {path} failed: {e}') from e
    return [module_name(d) for d in out.strip().split(',') if d]


def resolve_modules(index, requests):
    """requests: list of (kind, name-or-path, params).  Returns the load
    list [(name, source_path, params)] with dependencies first."""
    ours = {}
    for kind, what, _ in requests:
        if kind == 'module':
            if not os.path.isfile(what):
                raise VmError(f'module {what}: no such file')
            ours[module_name(what)] = os.path.abspath(what)

    order = []
    seen = set()
    params = {}
    for kind, what, p in requests:
        name = module_name(what) if kind == 'module' else what.replace('-', '_')
        if p:
            params[name] = p

    def visit(name, chain):
        if name in seen:
            return
        if name in chain:
            raise VmError('module dependency loop: ' + ' -> '.join(chain + [name]))
        if name in ours:
            deps, src = ours_depends(ours[name]), ours[name]
        elif name in index.builtin:
            seen.add(name)     # built into this kernel: nothing to load
            return
        elif name in index.path:
            deps, src = index.deps[name], index.path[name]
        else:
            raise VmError(f'module {name} not found in {index.moddir}/modules.dep '
                          'and not given with --module')
        for d in deps:
            visit(d, chain + [name])
        seen.add(name)
        order.append((name, src, params.get(name, '')))

    for kind, what, _ in requests:
        visit(module_name(what) if kind == 'module' else what.replace('-', '_'), [])
    return order


def copy_module(src, dst):
    if src.endswith('.ko.xz'):
        with lzma.open(src) as fin, open(dst, 'wb') as fout:
            shutil.copyfileobj(fin, fout)
    elif src.endswith('.ko.zst'):
        with open(dst, 'wb') as fout:
            subprocess.run(['zstd', '-dc', src], stdout=fout, check=True,
                           stdin=subprocess.DEVNULL)
    elif src.endswith('.ko.gz'):
        import gzip
        with gzip.open(src) as fin, open(dst, 'wb') as fout:
            shutil.copyfileobj(fin, fout)
    else:
        shutil.copyfile(src, dst)


def shared_libs(binary):
    """Paths of the shared libraries (and loader) a host binary needs."""
    try:
        out = subprocess.run(['ldd', binary], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL).stdout
    except OSError as e:
        raise VmError(f'ldd {binary}: {e}') from e
    libs = []
    for line in out.splitlines():
        m = re.search(r'(/\S+) \(0x', line)
        if m:
            libs.append(m.group(1))
    return libs


def install(root, src, dest):
    dest_path = os.path.join(root, dest.lstrip('/'))
    try:
        os.makedirs(os.path.dirname(dest_path), exist_ok=True)
        shutil.copy2(src, dest_path)
    except OSError as e:
        raise VmError(f'cannot copy {src} into the initramfs: {e.strerror}') from e
    return dest_path


def shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def build_initramfs(args, tmp, load):
    root = os.path.join(tmp, 'root')
    for d in ('bin', 'sbin', 'proc', 'sys', 'dev', 'tmp', 'modules', 'guest',
              'usr/bin', 'usr/sbin'):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    busybox = shutil.which('busybox') or '/bin/busybox'
    if subprocess.run(['ldd', busybox], capture_output=True,
                      stdin=subprocess.DEVNULL).returncode == 0:
        raise VmError(f'{busybox} is dynamically linked; install busybox-static')
    install(root, busybox, '/bin/busybox')

    for name, src, _ in load:
        copy_module(src, os.path.join(root, 'modules', name + '.ko'))

    for binary in args.host_binary:
        install(root, binary, os.path.abspath(binary))
        for lib in shared_libs(binary):
            install(root, lib, lib)
    for spec in args.file:
        src, _, dest = spec.partition(':')
        install(root, src, dest or '/guest/' + os.path.basename(src))

    guest_cmd = ''
    if args.guest_program:
        guest = install(root, args.guest_program,
                        '/guest/' + os.path.basename(args.guest_program))
        os.chmod(guest, 0o755)
        guest_cmd = '/guest/' + os.path.basename(args.guest_program)
        if args.guest_args:
            guest_cmd += ' ' + args.guest_args

    lines = [
        '#!/bin/busybox sh',
        '/bin/busybox --install -s /bin',
        'export PATH=/bin:/sbin:/usr/bin:/usr/sbin',
        'mount -t proc proc /proc',
        'mount -t sysfs sysfs /sys',
        'mount -t devtmpfs devtmpfs /dev',
        'mount -t tmpfs tmpfs /tmp',
        'mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null',
        'R=/dev/ttyS1',
        'stty -F $R raw -echo 2>/dev/null',
        f'echo "{MARK} BOOTED $(cut -d" " -f1 /proc/uptime)"',
        f'echo "{MARK} BOOTED $(cut -d" " -f1 /proc/uptime)" >$R',
    ]
    for name, _, params in load:
        lines += [
            f'if insmod /modules/{name}.ko {params}; then',
            f'  echo "{MARK} MODULE-OK {name}" >$R',
            'else',
            f'  echo "{MARK} MODULE-FAIL {name} rc=$?" >$R',
            'fi',
        ]
    if args.setup:
        lines.append(args.setup)
    lines += [
        'cd /tmp',
        f'echo "{MARK} GUEST-BEGIN $(cut -d" " -f1 /proc/uptime)" >$R',
    ]
    if guest_cmd:
        lines.append(f'{guest_cmd} >$R 2>&1 </dev/null')
        lines.append('rc=$?')
    else:
        lines.append('rc=0')
    lines += [
        f'echo "{MARK} GUEST-END rc=$rc $(cut -d" " -f1 /proc/uptime)" >$R',
        f'echo "{MARK} DMESG-BEGIN" >$R',
        'dmesg >$R',
        f'echo "{MARK} DMESG-END" >$R',
        'sync',
        'poweroff -f',
    ]
    init = os.path.join(root, 'init')
    with open(init, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')
    os.chmod(init, 0o755)

    cpio = os.path.join(tmp, 'initramfs.cpio')
    find = subprocess.Popen(['find', '.', '-print0'], cwd=root,
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    with open(cpio, 'wb') as out:
        r = subprocess.run(['cpio', '--null', '-o', '-H', 'newc', '--quiet'],
                           cwd=root, stdin=find.stdout, stdout=out)
    find.wait()
    if r.returncode or find.returncode:
        raise VmError('building the initramfs with cpio failed')
    return cpio


def run_qemu(args, tmp, cpio, boot=1):
    results = os.path.join(tmp, 'results.txt')
    console = args.console_log or os.path.join(tmp, 'console.log')
    vmlinuz = args.kernel_files.vmlinuz
    append = 'console=ttyS0 panic=-1 cryptomgr.notests quiet'
    if args.append:
        append += ' ' + args.append
    if boot > 1:
        # the guest can tell a second boot from /proc/cmdline (the self-test does)
        append += f' vmrun.boot={boot}'
    cmd = [args.qemu, '-accel', 'tcg', '-cpu', 'max', '-m', str(args.memory),
           '-smp', '1', '-nographic', '-no-reboot', '-nic', 'none',
           '-kernel', vmlinuz, '-initrd', cpio, '-append', append,
           '-serial', 'mon:stdio', '-serial', f'file:{results}']
    for table in args.acpitable:
        cmd += ['-acpitable', f'file={table}']
    if args.debugcon:
        cmd += ['-chardev', f'file,id=dbg,path={args.debugcon}',
                '-device', 'isa-debugcon,iobase=0x440,chardev=dbg']
    cmd += args.qemu_arg

    boot_time = [None]
    start = time.monotonic()
    with open(console, 'wb') as log:
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT)
        except OSError as e:
            raise VmError(f'cannot run {args.qemu}: {e.strerror}') from e

        def pump():
            for line in proc.stdout:
                log.write(line)
                log.flush()
                if args.verbose:
                    sys.stderr.buffer.write(line)
                    sys.stderr.flush()
                if boot_time[0] is None and MARK.encode() + b' BOOTED' in line:
                    boot_time[0] = time.monotonic() - start

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        timed_out = False
        try:
            proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.kill()
            proc.wait()
        reader.join(5)
    elapsed = time.monotonic() - start
    try:
        with open(results, 'rb') as f:
            text = f.read().decode('utf-8', 'replace')
    except OSError:
        text = ''
    return {
        'results': text.replace('\r', ''),
        'console': console,
        'timed_out': timed_out,
        'qemu_rc': proc.returncode,
        'boot_time': boot_time[0],
        'elapsed': elapsed,
        'cmd': cmd,
    }


TAP_LINE = re.compile(r'^(not ok|ok)\b(?:\s+\d+)?(.*)$')
TAP_PLAN = re.compile(r'^1\.\.(\d+)')


def dmesg_fault(line):
    return any(p.search(line) for p in DMESG_BAD)


def stray_step_trap_lines(dmesg):
    """The dmesg lines that belong to a stray single-step #DB's report."""
    inside = False
    found = set()
    for i, line in enumerate(dmesg):
        if STRAY_STEP_TRAP.search(line):
            inside = True
        elif inside and REPORT_START.search(line):
            inside = False
        if inside:
            found.add(i)
            if REPORT_END.search(line):
                inside = False
    return found


def report(args, load, run, stray_trap_ok=False):
    """Prints the run's TAP; returns the exit status.  With stray_trap_ok,
    a stray single-step #DB's report does not count against dmesg."""
    tap = Tap()
    text = run['results']
    lines = text.split('\n')

    up = re.search(rf'^{MARK} BOOTED ([0-9.]+)', text, re.M)
    if run['boot_time'] is not None:
        tap.diag(f'boot to /init: {run["boot_time"]:.1f} s host wall clock, '
                 f'{up.group(1) if up else "?"} s guest uptime; '
                 f'whole run {run["elapsed"]:.1f} s')
    else:
        tap.diag(f'never reached /init; whole run {run["elapsed"]:.1f} s')

    loaded = set(re.findall(rf'^{MARK} MODULE-OK (\S+)', text, re.M))
    failed = re.findall(rf'^{MARK} MODULE-FAIL (\S+) (.*)$', text, re.M)
    for name, _, params in load:
        why = [f for f in failed if f[0] == name]
        tap.check(name in loaded,
                  f'insmod {name}{" " + params if params else ""}'
                  + (f' ({why[0][1]})' if why else ''))

    # the guest's own output, between GUEST-BEGIN and GUEST-END
    guest_plan = None
    guest_count = 0
    guest_rc = None
    in_guest = in_dmesg = False
    dmesg = []
    for line in lines:
        if line.startswith(MARK + ' GUEST-BEGIN'):
            in_guest = True
            continue
        m = re.match(rf'^{MARK} GUEST-END rc=(\d+)', line)
        if m:
            in_guest = False
            guest_rc = int(m.group(1))
            continue
        if line.startswith(MARK + ' DMESG-BEGIN'):
            in_dmesg = True
            continue
        if line.startswith(MARK + ' DMESG-END'):
            in_dmesg = False
            continue
        if in_dmesg:
            dmesg.append(line)
        elif in_guest:
            m = TAP_LINE.match(line)
            p = TAP_PLAN.match(line)
            if m:
                guest_count += 1
                tap.raw(m.group(1) == 'ok', m.group(2))
            elif p:
                guest_plan = int(p.group(1))
            elif line.startswith('#'):
                print(line, flush=True)
            elif line.strip():
                tap.diag(line)

    if guest_plan is not None:
        tap.check(guest_plan == guest_count,
                  f'guest ran its whole plan ({guest_count} of {guest_plan})')
    if args.guest_checks is not None:
        tap.check(guest_count == args.guest_checks and guest_plan == guest_count,
                  f'guest reported the {args.guest_checks} checks the host expects '
                  f'({guest_count} results, plan {guest_plan})')
    if args.guest_program:
        tap.check(guest_rc == 0, f'guest program exited 0 (rc={guest_rc})')
    else:
        tap.check(guest_rc is not None, 'guest init ran to the end')

    excused = stray_step_trap_lines(dmesg) if stray_trap_ok else set()
    bad = [l for i, l in enumerate(dmesg)
           if i not in excused and dmesg_fault(l)]
    dmesg_ok = bool(dmesg) and not bad
    tap.check(dmesg_ok,
              'dmesg collected and clean' if dmesg else 'dmesg collected')
    for l in bad[:40]:
        tap.diag('dmesg: ' + l)
    tap.check(not run['timed_out'], f'finished within {args.timeout} s')

    if tap.failed:
        try:
            with open(run['console'], 'rb') as f:
                tail = f.read().decode('utf-8', 'replace').replace('\r', '').split('\n')[-30:]
            for l in tail:
                tap.diag('console| ' + l)
        except OSError:
            pass
        tap.diag('qemu: ' + ' '.join(shell_quote(c) for c in run['cmd']))
        if not dmesg_ok or guest_rc is None:
            for l in dmesg[-60:]:
                tap.diag('dmesg| ' + l)
    return tap.done()


class Ordered(argparse.Action):
    """Keep --module and --in-tree-module in one list, in command-line order."""

    def __call__(self, parser, ns, value, option_string=None):
        what, _, params = value.strip().partition(' ')
        kind = 'module' if option_string == '--module' else 'intree'
        ns.modules = (ns.modules or []) + [(kind, what, params.strip())]


def boot_again(args, load, run):
    """True when the run passed every check but for a stray single-step
    #DB's WARNING (see STRAY_STEP_TRAP): then says so, and the caller boots
    once more, and that second run alone is reported, with nothing excused.
    A run that failed anything else is reported as it is."""
    text = run['results']
    begin = text.find(MARK + ' DMESG-BEGIN')
    end = text.find(MARK + ' DMESG-END', begin)
    dmesg = text[begin:end].split('\n')[1:] if 0 <= begin < end else []
    stray = sorted(stray_step_trap_lines(dmesg))
    if not stray:
        return False
    with open(os.devnull, 'w', encoding='utf-8') as quiet, \
            contextlib.redirect_stdout(quiet):
        rc = report(args, load, run, stray_trap_ok=True)
    if rc != 0:
        return False
    print('# the first boot passed every check, but its dmesg holds a '
          'single-step #DB the kernel never armed (an emulator artefact); '
          'booting once more, and only that boot counts:', flush=True)
    for i in stray:
        if dmesg_fault(dmesg[i]):
            print('#   first boot: ' + dmesg[i], flush=True)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--kernel', required=True,
                    help='KVER: /boot/vmlinuz-KVER, or in a kernel root (kernels.py)')
    ap.add_argument('--module', action=Ordered, metavar="'PATH.ko [params]'",
                    help='our module; replaces the in-tree one of the same name')
    ap.add_argument('--in-tree-module', action=Ordered, metavar="'NAME [params]'")
    ap.add_argument('--guest-program', help='executable run as root in the guest')
    ap.add_argument('--guest-args', default='',
                    help='appended to the guest command line as shell words')
    ap.add_argument('--guest-checks', type=int, metavar='N',
                    help='the number of checks the guest must report: its own '
                    'plan, printed last, only says how many it ran')
    ap.add_argument('--host-binary', action='append', default=[],
                    help='host executable copied with its shared libraries')
    ap.add_argument('--file', action='append', default=[], metavar='SRC[:DEST]')
    ap.add_argument('--setup', help='shell commands run by /init after insmod, before '
                    'the guest, in the same shell (fds stay open); output to the console')
    ap.add_argument('--acpitable', action='append', default=[])
    ap.add_argument('--debugcon', help='host file receiving writes to port 0x440')
    ap.add_argument('--qemu-arg', action='append', default=[],
                    help='extra qemu argument (use --qemu-arg=-foo for dashes)')
    ap.add_argument('--append', help='extra kernel command line')
    ap.add_argument('--memory', type=int, default=768)
    ap.add_argument('--timeout', type=float, default=300)
    ap.add_argument('--qemu', default='qemu-system-x86_64')
    ap.add_argument('--console-log', help='keep the ttyS0 console log here')
    ap.add_argument('--keep', action='store_true', help='keep the temp dir')
    ap.add_argument('--one-boot', action='store_true',
                    help='never boot a second time (see boot_again): for a host '
                    'that talks to the guest while it runs')
    ap.add_argument('--verbose', '-v', action='store_true',
                    help='echo the console to stderr as it happens')
    ap.set_defaults(modules=[])
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix=f'vmrun-{args.kernel}-')
    try:
        try:
            args.kernel_files = kernels.find(args.kernel)
        except LookupError as e:
            raise VmError(str(e)) from e
        index = ModuleIndex(args.kernel_files.moddir)
        load = resolve_modules(index, args.modules)
        cpio = build_initramfs(args, tmp, load)
        run = run_qemu(args, tmp, cpio)
        if not args.one_boot and boot_again(args, load, run):
            run = run_qemu(args, tmp, cpio, boot=2)
        return report(args, load, run)
    except VmError as e:
        print(f'not ok 1 - vmrun setup: {e}\n1..1', flush=True)
        return 1
    finally:
        if args.keep:
            print(f'# kept {tmp}', file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
