"""The menu's status line, as a screen reader and the keyboard meet it.

Scenario: the user's home is /…/john_doe, and the airplane-mode restore
list there is corrupt (every radio off, airplane mode on).  The menu's
status line says where the corrupt list was kept.  Through AT-SPI (the
applet's GtkMenu, popped up as a tray that draws GTK menus would, by
menu-popup-module.c) that line is a menu item whose name is the message
with "john_doe" as it is (no "_" taken for a mnemonic), and it is
enabled; the Down key reaches it.  Over dbusmenu the same item is enabled
and its label, read as hosts read mnemonics, is the message.  Clicking
"Airplane mode" then fails with the corrupt list named in a notification.
"""
import os
import subprocess
import time

import atspi_menu  # fails with what to install when AT-SPI is missing
import guitest as gt
from guitest import check, log, wait_for

CORRUPT_START = 'The list of radios to restore was corrupt'


def status_item(pid):
    found = [entry for entry in atspi_menu.read(pid) or []
             if entry[0].startswith(CORRUPT_START)]
    return found[0] if found else None


def selected_name(pid):
    """The selected menu item's name, '' if none."""
    for name, _role, states in atspi_menu.read(pid) or []:
        if 'selected' in states:
            return name
    return ''


def test(logdir):
    home = os.path.join(os.environ['HOME'], 'john_doe')
    state = os.path.join(home, 'state')
    os.makedirs(os.path.join(state, 'rfkill-applet'))
    with open(os.path.join(state, 'rfkill-applet', 'airplane-mode.ini'), 'w') as f:
        f.write('[radios\ngarbage')

    with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True,
                    notifications=True) as s:
        fake = s.fake
        for radio in fake.state():
            fake.command(f'soft {radio["idx"]} on')
        # The AT-SPI bridge, off for the other tests (run-in-session.py).
        applet = s.start_applet(extra_env={
            'NO_AT_BRIDGE': '0', 'XDG_STATE_HOME': state,
            'GTK_MODULES': gt.program_file('RFK_MENU_POPUP_MODULE')})
        item = s.watcher.wait_item(applet.unique_name(s.bus))

        # Over dbusmenu: enabled, and the label is the message itself.
        entry = wait_for(lambda: [e for e in item.entries()
                                  if e.label.startswith(CORRUPT_START)],
                         10, 'the corrupt list in the menu')[0]
        log('dbusmenu:', repr(entry.props.get('label')), entry.enabled)
        check(f'{home}/state/rfkill-applet/airplane-mode.ini.corrupt-'
              in entry.label, f'the path as it is: {entry.label!r}')
        check(entry.enabled, f'an insensitive status is skipped: {entry}')

        # Through AT-SPI: the GtkMenu's item.
        found = wait_for(lambda: status_item(applet.proc.pid), 20,
                         'the status line through AT-SPI')
        name, _role, states = found
        log('AT-SPI:', repr(name), states)
        check(f'{home}/state/' in name, f'the name as it is: {name!r}')
        check(name == entry.label, f'AT-SPI {name!r} != dbusmenu {entry.label!r}')
        check('enabled' in states and 'sensitive' in states,
              f'a screen reader skips it: {states}')

        # The keyboard reaches it: Down walks the open menu.
        visited, current = [], ''
        for _ in range(12):
            subprocess.run(['xdotool', 'key', 'Down'], check=True)
            current = wait_for(
                lambda: (lambda n: n not in (None, current) and n)(
                    selected_name(applet.proc.pid)), 40, 'Down moves on')
            visited.append(current)
            if current == name:
                break
        log('Down visits:', visited)
        check(name in visited, f'Down never selects the status: {visited}')
        # Activating it does nothing (the menu closes, the applet stays).
        subprocess.run(['xdotool', 'key', 'Return'], check=True)
        time.sleep(0.5)
        check(applet.proc.poll() is None, 'activating the status ended the applet')

        # Ending airplane mode is refused: told, with the kept copy named.
        item.click('Airplane mode')
        told = wait_for(lambda: s.notifications.calls_with(
            'Cannot turn airplane mode off'), 10, 'the refusal told')
        log('told:', told[0]['body'])
        check('airplane-mode.ini.corrupt-' in told[0]['body'], f'{told}')
        check(all(r['soft'] for r in fake.state()),
              f'a corrupt list never turns every radio on: {fake.state()}')


if __name__ == '__main__':
    gt.run(test)
