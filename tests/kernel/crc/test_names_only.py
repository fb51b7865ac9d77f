#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The DKMS pre-install check on a kernel without CONFIG_MODVERSIONS
(sid's 7.2): kernel/check-symvers compares export names and kinds only.

Such a kernel has no CRCs to compare (every one in its Module.symvers is
0), so the check must still refuse an rfkill.ko whose exports differ by
name or kind from the in-tree net/rfkill/rfkill, and must not refuse one
for a CRC.  The test builds kernel/ for KVER (in the kernel root's chroot
for a sid kernel, through the VM harness's kbuild) and runs check-symvers
where DKMS would run it, with that system's sh and awk:

  * against the real headers: accepted, "names and kinds";
  * our Module.symvers without rfkill_alloc: refused, naming it;
  * the kernel's Module.symvers without rfkill_alloc: refused, naming it;
  * the kernel's export kind of rfkill_alloc flipped: refused, naming it;
  * the kernel's CRC of rfkill_alloc made non-zero: still accepted (the
    kernel's configuration says no modversions, so nobody compares CRCs);
  * a bare Module.symvers without the configuration (all CRCs 0): the
    check decides "no modversions" by itself and accepts.

Prints TAP.

  test_names_only.py --kernel KVER --source-dir kernel/ --work-dir DIR
                     [--version V]
"""

import argparse
import os
import shutil
import sys

from vm import kernels
from vm.testlib import Tap, kbuild

REF_MODULE = 'net/rfkill/rfkill'
SYMBOL = 'rfkill_alloc'


def read_lines(path):
    with open(path, encoding='utf-8') as f:
        return f.readlines()


def rewrite(lines, module_match, fn):
    """lines with fn(fields) applied to SYMBOL's line of a module that
    module_match accepts; fn returns the new fields, or None to drop the
    line.  Raises LookupError if there is no such line."""
    out, hit = [], False
    for line in lines:
        fields = line.rstrip('\n').split('\t')
        if len(fields) >= 4 and fields[1] == SYMBOL and module_match(fields[2]):
            hit = True
            fields = fn(list(fields))
            if fields is None:
                continue
            line = '\t'.join(fields) + '\n'
        out.append(line)
    if not hit:
        raise LookupError(f'no {SYMBOL} line')
    return out


def fake_headers(work, name, symvers_lines, auto_conf):
    """A directory with the two files check-symvers reads from KDIR."""
    kdir = os.path.join(work, name)
    shutil.rmtree(kdir, ignore_errors=True)
    os.makedirs(os.path.join(kdir, 'include', 'config'))
    with open(os.path.join(kdir, 'Module.symvers'), 'w', encoding='utf-8') as f:
        f.writelines(symvers_lines)
    if auto_conf:
        shutil.copyfile(auto_conf, os.path.join(kdir, 'include', 'config',
                                                'auto.conf'))
    return kdir


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--source-dir', required=True, help='kernel/ of the checkout')
    ap.add_argument('--work-dir', required=True)
    ap.add_argument('--version', default='')
    a = ap.parse_args()
    work = os.path.abspath(a.work_dir)
    tap = Tap()

    try:
        kernel = kernels.find(a.kernel)
    except LookupError as e:
        tap.check(False, str(e))
        return tap.done()
    modversions = kernel.config('MODVERSIONS')
    if not tap.check(modversions != 'y',
                     f'{a.kernel} has CONFIG_MODVERSIONS off '
                     f'({modversions or "not set"})'):
        return tap.done()

    b = kbuild(a.kernel, a.source_dir, work, 'src', ['rfkill/rfkill.ko'],
               [f'RFKILL_AIRPLANE_VERSION={a.version}'] if a.version else [])
    if not tap.check(b.ok, f'rfkill.ko builds against {b.headers}',
                     b.tail(40) + '\ncommand: ' + ' '.join(b.cmd)):
        return tap.done()
    script = os.path.join(b.src, 'check-symvers')
    ours = os.path.join(b.src, 'Module.symvers')
    ref = os.path.join(kernel.headers, 'Module.symvers')
    auto_conf = os.path.join(kernel.headers, 'include', 'config', 'auto.conf')
    ref_lines = read_lines(ref)
    our_lines = read_lines(ours)
    log_path = os.path.join(work, 'check-symvers.log')

    def check_symvers(kdir, our_symvers):
        """check-symvers as DKMS runs it, where the modules are built;
        kdir is a host path (the real headers are used at their path
        inside the kernel root).  Returns (rc, output)."""
        if kdir == kernel.headers:
            kdir = kernel.headers_in_root
        with open(log_path, 'w', encoding='utf-8') as log:
            rc, _ = kernel.run(['sh', script, kdir, our_symvers], [work], log)
        with open(log_path, encoding='utf-8', errors='replace') as log:
            text = log.read()
        for line in text.splitlines():
            tap.diag('  | ' + line)
        return rc, text

    def refused(what, kdir, our_symvers, why):
        rc, text = check_symvers(kdir, our_symvers)
        named = f'check-symvers: {SYMBOL}: {why}'
        tap.check(rc == 1 and named in text,
                  f'{what}: refused (rc={rc}), naming "{named}"')

    def accepted(what, kdir, our_symvers):
        rc, text = check_symvers(kdir, our_symvers)
        tap.check(rc == 0 and 'match' in text and
                  'names and kinds (CONFIG_MODVERSIONS is off)' in text,
                  f'{what}: accepted on names and kinds (rc={rc})')

    accepted(f'the real {ref}', kernel.headers, ours)

    ours_short = os.path.join(work, 'ours-without-symbol.symvers')
    with open(ours_short, 'w', encoding='utf-8') as f:
        f.writelines(rewrite(our_lines, lambda m: m.endswith('rfkill/rfkill'),
                             lambda fields: None))
    refused(f'our Module.symvers without {SYMBOL}', kernel.headers, ours_short,
            'exported by the in-tree rfkill, missing from ours')

    kdir = fake_headers(work, 'ref-without-symbol', rewrite(
        ref_lines, lambda m: m == REF_MODULE, lambda fields: None), auto_conf)
    refused(f"the kernel's Module.symvers without {SYMBOL}", kdir, ours,
            'exported by ours, not by the in-tree rfkill')

    kinds = {}

    def flip_kind(fields):
        kinds['ours'] = fields[3]
        fields[3] = ('EXPORT_SYMBOL' if fields[3] == 'EXPORT_SYMBOL_GPL'
                     else 'EXPORT_SYMBOL_GPL')
        kinds['ref'] = fields[3]
        return fields
    kdir = fake_headers(work, 'ref-other-kind', rewrite(
        ref_lines, lambda m: m == REF_MODULE, flip_kind), auto_conf)
    refused(f"the kernel's export kind of {SYMBOL} flipped", kdir, ours,
            f"{kinds['ours']} here, {kinds['ref']} in-tree")

    def set_crc(fields):
        fields[0] = '0x1badc0de'
        return fields
    kdir = fake_headers(work, 'ref-nonzero-crc', rewrite(
        ref_lines, lambda m: m == REF_MODULE, set_crc), auto_conf)
    accepted(f"a non-zero CRC of {SYMBOL} in the kernel's Module.symvers", kdir,
             ours)

    kdir = fake_headers(work, 'bare-symvers', ref_lines, None)
    accepted('a bare Module.symvers (no configuration, every CRC 0)', kdir, ours)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
