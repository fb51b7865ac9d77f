# SPDX-License-Identifier: GPL-2.0-or-later
"""The differences between our rfkill.ko and the in-tree one that are
allowed, and only those: one list for the parity test (parity/) and the
differential fuzzer (difffuzz/).  Each rule rewrites or drops lines of
BOTH transcripts before they are compared, so a rule can never hide a
difference in anything else the line says.

Anything not covered here is a divergence to fix in kernel/, not a line
to add here; an entry needs a reason that is a feature of ours.
"""

import re

RULES = [
    # Ops 4 ACQUIRE and 5 CHANGE of the airplane-mode indicator and the
    # ioctl that asks for op-5 events, each on an fd of its own that is
    # closed at once: in-tree answers EINVAL to the writes and
    # ENOTTY/ENOSYS to the ioctl.  No op-5 event may reach any other fd.
    ('drop', re.compile(r'\bop-airplane-(acquire|change)\b')),
    ('drop', re.compile(r'\bioctl airplane-mode-events\b')),
    # Our extra LED trigger, in every LED's trigger list.
    ('sub', re.compile(r' \[?rfkill-airplane-mode\]?(?= |$)'), ''),
    # The asus-wireless LED has the in-tree name asus-wireless::airplane
    # in ours too (users' udev rules write to it), so no rule here: parity
    # compares the name.  Its default trigger is rfkill-airplane-mode in ours,
    # rfkill-none in-tree: at boot (parity's "led NAME trigger = ..."
    # lines) only which trigger is selected may differ.  The fuzzer sets
    # the trigger itself and is compared with the selection.
    # A second ASHS device's LED gets the same name with _1, _2... (the
    # LED core's rename), in both: the same rule.
    ('asus-trigger',
     re.compile(r'^(led \S+ asus-wireless::airplane(?:_\d+)? trigger = )(.*)$')),
    # Not a rule but a note: the event-queue cap (1000 events per fd,
    # upstream ea245d78dec5) is in ours on every kernel line.  The lines
    # we support carry it in-tree too (6.1.169+, 6.12.81+, 7.x); on an
    # older point release the difference is allowed, as a security fix.
]


def normalize(lines):
    """lines with every rule applied, in order; dropped lines left out."""
    out = []
    for line in lines:
        keep = True
        for rule in RULES:
            kind, rx = rule[0], rule[1]
            if kind == 'drop' and rx.search(line):
                keep = False
                break
            if kind == 'sub':
                line = rx.sub(rule[2], line)
            elif kind == 'asus-trigger':
                m = rx.match(line)
                if m:  # the trigger list stays, the [selected] one is cleared
                    line = m.group(1) + m.group(2).replace('[', '').replace(']', '')
        if keep:
            out.append(line)
    return out
