"""The applet in a real GNOME Shell 43 with the AppIndicator extension.

The extension is the StatusNotifierWatcher and host: it draws our icon in
the top bar and builds its own menu from our dbusmenu.  The test checks,
as a user would see it, and saves screenshots taken through the shell's
own Screenshot API to $RFK_SCREENSHOT_DIR/gnome/:
  - our item registers with the watcher the shell owns;
  - an icon appears in the top bar (pixels) once the applet runs;
  - a left click on it opens a menu of our size below it;
  - the first item of that menu, chosen with the keyboard, is our
    "Airplane mode": every fake radio gets blocked, the top-bar icon
    changes and the reopened menu is drawn differently (the checkmarks).
Waits for pixels, never fixed sleeps.
"""
import os

import guitest as gt  # noqa: E402
from guitest import check, log, wait_for  # noqa: E402
import fakekernel  # noqa: E402
import gnomeshell  # noqa: E402
from gnomeshell import BAR_H  # noqa: E402
from desktop import diff_box, save_scaled, screenshot_dir, stable, xdotool  # noqa: E402

ITEM_PATH = '/StatusNotifierItem'


def test(logdir):
    outdir = screenshot_dir('gnome')

    bus = gt.session_bus()
    shell = gnomeshell.Shell(logdir)
    fake = applet = None
    try:
        shell.wait_ready()
        shell.leave_overview()
        empty = stable(shell.status_area, 'the top bar settled')

        fake = fakekernel.Fake(logdir, ['wlan', 'wlan', 'bluetooth'])
        applet = gt.Applet(fake.socket, logdir)
        sender = applet.unique_name(bus)

        # 1. The shell's watcher has our item, under our unique name.
        mine = wait_for(lambda: [i for i in shell.registered_items()
                                 if i == f'{sender}@{ITEM_PATH}'],
                        10, f'our item in the shell\'s watcher '
                        f'(have {shell.registered_items()})')
        log('registered with the shell as', mine[0])
        item = gt.Item(bus, sender, ITEM_PATH)
        wait_for(lambda: item.props().get('IconName') == gt.APP_ID + '-radios-on',
                 10, 'the applet settled with every radio on')

        # 2. An icon appears in the top bar.
        cx, cy = shell.wait_new_icon(empty, 'our icon in the top bar')
        cell = (max(0, cx - BAR_H // 2), 0, BAR_H, BAR_H)

        def icon():
            return shell.grab(*cell)
        on = stable(icon, 'the radios-on icon')
        save_scaled(on, os.path.join(outdir, 'icon-radios-on.png'))
        shell.grab(save_as=os.path.join(outdir, 'topbar-radios-on.png'))

        # 3. A left click opens the shell's menu for our item, under it.
        before, menu_on, _box = shell.open_menu(
            cx, cy, 'our menu', os.path.join(outdir, 'menu-radios-on.png'))

        # 4. Our first item, picked in the shell's menu: airplane mode.
        check(not any(r['soft'] for r in fake.state()), f'radios: {fake.state()}')
        xdotool('key', 'Down', 'Return')
        wait_for(lambda: all(r['soft'] for r in fake.state()), 5,
                 'airplane mode on after "Airplane mode" in the shell\'s menu')
        # The pointer leaves: no hover highlight in the icon's screenshot.
        shell.wait_closed(before, 'the menu closed after the click')
        wait_for(lambda: 'airplane' in item.props().get('IconName'), 5,
                 'the airplane-mode icon name')
        airplane = stable(icon, 'the airplane-mode icon in the top bar',
                          differs_from=[on])
        save_scaled(airplane, os.path.join(outdir, 'icon-airplane-mode.png'))

        # 5. The reopened menu shows the new state: drawn differently.
        before, menu_airplane, _box = shell.open_menu(
            cx, cy, 'our menu', os.path.join(outdir, 'menu-airplane-mode.png'))
        changed = diff_box(menu_on, menu_airplane, step=2)
        check(changed is not None, 'the menu looks the same in airplane mode')
        log('menu changed within', changed)
        xdotool('key', 'Escape')
        shell.wait_closed(before)
        check(applet.proc.poll() is None, 'the applet died')
        shell.alive()
    finally:
        if applet:
            applet.stop()
        if fake:
            fake.stop()
        shell.stop()


if __name__ == '__main__':
    gt.run(test)
