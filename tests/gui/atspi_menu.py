#!/usr/bin/python3
"""The menu items of one process as AT-SPI shows them, read by a process
of their own:

  atspi_menu.py PID     prints JSON: [[name, role, [state, ...]], ...]

Why a process of its own: libatspi talks to the accessibility bus over
libdbus, attached to the default GLib main context.  A test keeps that
context running in a thread (guitest.MainLoopThread, for its own D-Bus
objects), and that thread then takes the replies a blocking AT-SPI call in
the test's thread waits for: the call gives up after libatspi's timeout
(0.8 s, 15 s for an application that has just started) and reads as "no
children".  libatspi also caches each application's children, and with no
listener registered nothing tells it they changed.  A fresh process, with
no other thread and an empty cache, reads what the application shows now.
"""
import json
import os
import subprocess
import sys

import gi
try:
    gi.require_version('Atspi', '2.0')
    from gi.repository import Atspi
except (ImportError, ValueError):
    # The tests that import this module need it: say what to install.
    raise SystemExit('FAIL: no AT-SPI: apt-get install gir1.2-atspi-2.0 '
                     'at-spi2-core')

MENU_ROLES = (Atspi.Role.MENU_ITEM, Atspi.Role.CHECK_MENU_ITEM,
              Atspi.Role.RADIO_MENU_ITEM, Atspi.Role.MENU)


def application(pid):
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is not None and app.get_process_id() == pid:
            return app
    return None


def menu_items(node, out):
    for i in range(node.get_child_count()):
        child = node.get_child_at_index(i)
        if child is None:
            continue
        role = child.get_role()
        if role in MENU_ROLES:
            states = child.get_state_set().get_states()
            out.append([child.get_name(), role.value_nick,
                        [state.value_nick for state in states]])
        menu_items(child, out)
    return out


def read(pid):
    """For a test: [(name, role, states)] of pid's menu items, read by this
    file run as a process of its own; None while AT-SPI does not list pid
    or an object went away while it was read."""
    done = subprocess.run([sys.executable, os.path.abspath(__file__), str(pid)],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        print('atspi_menu.py:', done.stderr.strip().splitlines()[-1:],
              file=sys.stderr)
        return None
    items = json.loads(done.stdout)
    return None if items is None else [tuple(item) for item in items]


def main():
    Atspi.init()
    app = application(int(sys.argv[1]))
    json.dump(menu_items(app, []) if app is not None else None, sys.stdout)


if __name__ == '__main__':
    main()
