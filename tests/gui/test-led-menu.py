"""The "Airplane-mode light" submenu.

On a patched kernel (the fake answers ops 4/5): choosing "Follow airplane
mode" takes the indicator over and lights it with airplane mode; the
choice lands in GSettings; a change made with gsettings reaches the
menu; "Kernel default" hands the light back.  On a stock kernel (EINVAL)
the rules that need the ops go insensitive, the reason is shown, and the
kernel's rule stays checked.  A stored rule is applied at startup.  While
another program holds the light, the submenu names it as the kernel's
airplane_mode_holder file does (kernel/include/uapi/rfkill-airplane.h;
tests/kernel/guest/check-hold.c checks that rfkill.ko writes it so).
"""
import os
import socket
import struct
import subprocess
import time

import guitest as gt
from guitest import check, log, wait_for
import fakekernel

RULES = ['Kernel default', 'Follow airplane mode', 'When Wi-Fi is off',
         'When a hardware switch is off', 'Always off']


def gsettings(*args):
    out = subprocess.run(['gsettings'] + list(args) + [], capture_output=True,
                         text=True, check=True)
    return out.stdout.strip()


def submenu(item):
    return item.find('Airplane-mode light')


def checked_rule(item):
    on = [c.label for c in submenu(item).children
          if c.toggle_type == 'radio' and c.checked]
    check(len(on) == 1, f'one radio item checked, have {on}')
    return on[0]


def start(logdir, watcher, bus, name, **fake_args):
    fake = fakekernel.Fake(logdir, ['wlan', 'bluetooth'], **fake_args)
    applet = gt.Applet(fake.socket, logdir, name=name)
    item = watcher.wait_item(applet.unique_name(bus))
    wait_for(lambda: item.find('Wi-Fi (phy0)').enabled, 10, 'radios ready')
    return fake, applet, item


def patched_kernel(logdir, watcher, bus):
    fake, applet, item = start(logdir, watcher, bus, 'applet-patched')
    try:
        labels = [c.label for c in submenu(item).children
                  if c.toggle_type == 'radio']
        check(labels == RULES, f'rules offered: {labels}')
        check(checked_rule(item) == 'Kernel default', 'kernel rule at first')
        check(fake.indicator() == 'dark kernel', f'indicator: {fake.indicator()}')

        item.click('Follow airplane mode')
        wait_for(lambda: fake.indicator() == 'dark owned', 5,
                 'the applet owning a dark indicator')
        wait_for(lambda: checked_rule(item) == 'Follow airplane mode', 5,
                 'the rule checked')
        check(gsettings('get', gt.APP_ID, 'led-rule') == "'airplane-mode'",
              'the rule stored in GSettings')

        item.click('Airplane mode')
        wait_for(lambda: fake.indicator() == 'lit owned', 5,
                 'the light on with airplane mode')
        item.click('Airplane mode')
        wait_for(lambda: fake.indicator() == 'dark owned', 5,
                 'the light off with airplane mode')

        gsettings('set', gt.APP_ID, 'led-rule', 'hardware-switch')
        wait_for(lambda: checked_rule(item) == 'When a hardware switch is off', 5,
                 'the menu following gsettings')
        # The tray's rule: a switch that holds Bluetooth while Wi-Fi is on
        # holds no airplane mode, and leaves the light dark.
        fake.set_hard('hci0', True)
        time.sleep(0.5 * gt.TIMEOUT_SCALE)
        check(fake.indicator() == 'dark owned',
              f'one radio held by a switch, Wi-Fi on: {fake.indicator()}')
        fake.set_hard_all(True)
        wait_for(lambda: fake.indicator() == 'lit owned', 5,
                 'the light on for the laptop\'s wireless switch')
        fake.set_hard_all(False)
        fake.set_hard('hci0', False)
        wait_for(lambda: fake.indicator() == 'dark owned', 5,
                 'the light off once the switch is back')

        item.click('Kernel default')
        wait_for(lambda: fake.indicator().endswith(' kernel'), 5,
                 'the light handed back to the kernel')
        wait_for(lambda: checked_rule(item) == 'Kernel default', 5, 'kernel checked')
        check(not [c for c in submenu(item).children if c.visible and not c.enabled
                   and c.toggle_type == ''], 'no reason shown on a patched kernel')
    finally:
        item.click('Quit')
        applet.proc.wait(10 * gt.TIMEOUT_SCALE)
        applet.stop()
        fake.stop()


def stock_kernel(logdir, watcher, bus):
    gsettings('set', gt.APP_ID, 'led-rule', 'kernel')
    fake, applet, item = start(logdir, watcher, bus, 'applet-stock', stock=True)
    try:
        item.click('Follow airplane mode')
        reason = wait_for(lambda: [c for c in submenu(item).children
                                   if c.visible and not c.toggle_type and
                                   c.label and not c.is_separator],
                          5, 'a reason in the submenu')[0]
        log('stock kernel reason:', reason.label)
        check(reason.label == 'Not supported by this kernel', f'reason: {reason}')
        # Reachable by keyboard and screen readers; activating does nothing.
        check(reason.enabled, 'the reason is an insensitive item')
        wait_for(lambda: checked_rule(item) == 'Kernel default', 5,
                 'the kernel rule still checked')
        for c in submenu(item).children:
            if c.toggle_type == 'radio':
                check(c.enabled == (c.label == 'Kernel default'),
                      f'only the kernel rule is sensitive: {c}')
        check(fake.indicator() == 'dark kernel', f'indicator: {fake.indicator()}')
    finally:
        applet.stop()
        fake.stop()


def restart_keeps_rule(logdir, watcher, bus):
    """The stored rule is applied at startup; SIGTERM (logout) hands the
    light back to the kernel on the way out."""
    gsettings('set', gt.APP_ID, 'led-rule', 'airplane-mode')
    fake, applet, item = start(logdir, watcher, bus, 'applet-restart')
    try:
        wait_for(lambda: fake.indicator() == 'dark owned', 5,
                 'the stored rule applied at startup')
        wait_for(lambda: checked_rule(item) == 'Follow airplane mode', 5,
                 'the menu shows it')
        code = applet.stop()
        check(code == 0, f'exit status {code} after SIGTERM')
        wait_for(lambda: fake.indicator().endswith(' kernel'), 5,
                 'the light back with the kernel after the applet left')
    finally:
        applet.stop()
        fake.stop()


def reason_shown(item):
    found = [c for c in submenu(item).children
             if c.visible and not c.toggle_type and c.label and not c.is_separator]
    return found[0].label if found else None


def held_elsewhere(logdir, watcher, bus):
    """Another program took the light first: the applet's rule stays
    unchecked, and the reason names that program when the kernel does."""
    gsettings('set', gt.APP_ID, 'led-rule', 'kernel')
    fake, applet, item = start(logdir, watcher, bus, 'applet-held')
    holder_file = os.path.join(os.environ['RFKILL_SYSFS_ROOT'], '..', 'misc',
                               'rfkill', 'airplane_mode_holder')
    os.makedirs(os.path.dirname(holder_file), exist_ok=True)
    other = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        other.connect(fake.socket)
        other.send(struct.pack('<IBBBB', 0, 0, 4, 0, 0))   # ACQUIRE
        wait_for(lambda: fake.indicator().endswith(' owned'), 5,
                 'the other program owning the light')
        # consecutive reasons differ, so each one is read anew
        for content, want in [('4242 gnome-shell\n',
                               'Controlled by gnome-shell (process 4242)'),
                              ('', 'Controlled by another program'),
                              ('0 my daemon\n', 'Controlled by my daemon'),
                              ('not a holder line\n',
                               'Controlled by another program')]:
            with open(holder_file, 'w') as f:
                f.write(content)
            item.click('Follow airplane mode')   # asks the kernel again
            got = wait_for(lambda: (lambda r: r == want and r)(reason_shown(item)),
                           5, f'the reason {want!r}')
            log('holder', repr(content), '->', got)
            check(checked_rule(item) == 'Kernel default',
                  f'the refused rule is not checked: {checked_rule(item)}')
        other.close()
        wait_for(lambda: fake.indicator().endswith(' kernel'), 5,
                 'the light back with the kernel once the other program left')
        item.click('Follow airplane mode')
        wait_for(lambda: fake.indicator() == 'dark owned', 5, 'the applet owns it now')
        wait_for(lambda: reason_shown(item) is None, 5, 'no reason shown')
    finally:
        other.close()
        applet.stop()
        fake.stop()


def test(logdir):
    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    watcher = gt.Watcher(bus)
    try:
        patched_kernel(logdir, watcher, bus)
        restart_keeps_rule(logdir, watcher, bus)
        stock_kernel(logdir, watcher, bus)
        held_elsewhere(logdir, watcher, bus)
    finally:
        loop.stop()


if __name__ == '__main__':
    gt.run(test)
