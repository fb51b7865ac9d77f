#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print, one per line, every kernel version that can be tested here: it
has /boot/vmlinuz-KVER to boot, /lib/modules/KVER/modules.dep for the
in-tree modules and /usr/src/linux-headers-KVER to build ours against.
meson calls this at configure time and creates one VM test per line."""

import glob
import os
import re


def key(kver):
    return [int(p) if p.isdigit() else p for p in re.split(r'(\d+)', kver)]


def main():
    found = []
    for vmlinuz in glob.glob('/boot/vmlinuz-*'):
        kver = os.path.basename(vmlinuz)[len('vmlinuz-'):]
        if (os.path.isfile(f'/usr/src/linux-headers-{kver}/Module.symvers') and
                os.path.isfile(f'/lib/modules/{kver}/modules.dep')):
            found.append(kver)
    for kver in sorted(found, key=key):
        print(kver)


if __name__ == '__main__':
    main()
