"""A left click opens the menu, whatever the panel does with it.

Scenario: a panel asks the item how a left click is meant.  The item says
ItemIsMenu, so a host that honours it draws the menu itself (from the
item's Menu, the dbusmenu the tests read).  A panel that calls Activate
anyway (bookworm's LXQt, MATE, Plasma and Cinnamon do on a left click) or
ContextMenu gets the applet's own GTK menu popped up: through AT-SPI its
"Airplane mode" item is not shown before the call and is shown after it,
and Escape closes it.
"""
import subprocess

import atspi_menu  # fails with what to install when AT-SPI is missing
import guitest as gt
from guitest import check, log, wait_for

ITEM = 'Airplane mode'


def menu_shown(pid):
    """True when the menu's first item is on screen, None while AT-SPI
    does not list the applet (atspi_menu.py reads it, and says why in a
    process of its own)."""
    items = atspi_menu.read(pid)
    if items is None:
        return None
    return any(name == ITEM and 'showing' in states
               for name, _role, states in items)


def test(logdir):
    with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True) as s:
        # The AT-SPI bridge, off for the other tests (run-in-session.py).
        applet = s.start_applet(extra_env={'NO_AT_BRIDGE': '0'})
        item = s.watcher.wait_item(applet.unique_name(s.bus))
        wait_for(lambda: item.find(ITEM).enabled, 10, 'the menu')

        props = item.props()
        log('ItemIsMenu:', props.get('ItemIsMenu'), 'Menu:', props.get('Menu'))
        check(props.get('ItemIsMenu') is True,
              f'ItemIsMenu is {props.get("ItemIsMenu")!r}: a host that honours '
              'it would not open the menu on a left click')
        check(props.get('Menu') == item.menu_path() and
              item.find(ITEM).label == ITEM, 'the item\'s Menu is not our menu')

        wait_for(lambda: atspi_menu.read(applet.proc.pid) is not None, 20,
                 'the applet in AT-SPI')
        check(menu_shown(applet.proc.pid) is False, 'the menu is up before a click')
        for method in ('Activate', 'ContextMenu'):
            item.click_icon(method)
            wait_for(lambda: menu_shown(applet.proc.pid), 20,
                     f'the menu up after {method}')
            log(f'{method}: the menu is up')
            subprocess.run(['xdotool', 'key', 'Escape'], check=True)
            wait_for(lambda: menu_shown(applet.proc.pid) is False, 20,
                     f'the menu closed after {method} and Escape')
        check(applet.proc.poll() is None, 'the applet ended')


if __name__ == '__main__':
    gt.run(test)
