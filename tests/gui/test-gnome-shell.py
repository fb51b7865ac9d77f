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
import subprocess

import gi
gi.require_version('GdkPixbuf', '2.0')
from gi.repository import GdkPixbuf  # noqa: E402

import guitest as gt  # noqa: E402
from guitest import check, log, wait_for  # noqa: E402
import fakekernel  # noqa: E402
import gnomeshell  # noqa: E402

# run-in-session.py's Xvfb screen.
SCREEN_W, SCREEN_H = 640, 480
BAR_H = 32
# The status area: the right half of the top bar (the clock in the
# middle changes every minute).
RIGHT_X = SCREEN_W // 2
ITEM_PATH = '/org/ayatana/NotificationItem/' + gt.APP_ID.replace('.', '_')


def diff_box(a, b, threshold=40, step=1):
    """Bounding box (x0, y0, x1, y1) of the pixels that differ, or None."""
    da, db = a.get_pixels(), b.get_pixels()
    n, stride = a.get_n_channels(), a.get_rowstride()
    box = None
    for y in range(0, a.get_height(), step):
        row = y * stride
        for x in range(0, a.get_width(), step):
            i = row + x * n
            if (abs(da[i] - db[i]) + abs(da[i + 1] - db[i + 1])
                    + abs(da[i + 2] - db[i + 2])) > threshold:
                if box is None:
                    box = [x, y, x, y]
                else:
                    box = [min(box[0], x), min(box[1], y),
                           max(box[2], x), max(box[3], y)]
    return box


def stable(grab, what, timeout=10, differs_from=(), step=1):
    """Grabs until two grabs in a row agree and differ from the given ones."""
    last = grab()

    def settled():
        nonlocal last
        now = grab()
        done = (diff_box(now, last, step=step) is None
                and all(diff_box(now, o, step=step) for o in differs_from))
        last = now
        return now if done else None
    return wait_for(settled, timeout, what)


def xdotool(*args):
    subprocess.run(['xdotool'] + [str(a) for a in args], check=True)


def save_scaled(pixbuf, path, factor=4):
    pixbuf.scale_simple(pixbuf.get_width() * factor, pixbuf.get_height() * factor,
                        GdkPixbuf.InterpType.NEAREST).savev(path, 'png', [], [])
    log('saved', path)


def test(logdir):
    outdir = os.path.join(os.environ['RFK_SCREENSHOT_DIR'], 'gnome')
    os.makedirs(outdir, exist_ok=True)
    for old in os.listdir(outdir):
        if old.endswith('.png'):
            os.unlink(os.path.join(outdir, old))

    bus = gt.session_bus()
    shell = gnomeshell.Shell(logdir)
    fake = applet = None
    try:
        shell.wait_ready()

        def status_area():
            return shell.grab(RIGHT_X, 0, SCREEN_W - RIGHT_X, BAR_H)

        def below_bar():
            return shell.grab(0, BAR_H, SCREEN_W, SCREEN_H - BAR_H)

        # The shell starts in the overview: once it has settled, leave it,
        # as a user would, for the plain desktop.
        overview = stable(below_bar, 'the overview at startup', 20, step=4)
        xdotool('key', 'Escape')
        stable(below_bar, 'the desktop after leaving the overview', 20,
               differs_from=[overview], step=4)
        empty = stable(status_area, 'the top bar settled')

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
        wait_for(lambda: item.props().get('IconName') == 'network-wireless-symbolic',
                 10, 'the applet settled with every radio on')

        # 2. An icon appears in the top bar.
        def icon_drawn():
            box = diff_box(empty, status_area())
            return box if box and box[2] - box[0] >= 8 and box[3] - box[1] >= 8 else None
        wait_for(icon_drawn, 10, 'our icon in the top bar')
        box = diff_box(empty, stable(status_area, 'the top bar with our icon'))
        log('icon drawn at', box, '(status area coordinates)')
        x0, y0, x1, y1 = box
        check(x1 - x0 <= 48 and y1 - y0 <= BAR_H, f'more than one new icon? {box}')
        cx, cy = RIGHT_X + (x0 + x1) // 2, (y0 + y1) // 2
        cell = (max(0, cx - BAR_H // 2), 0, BAR_H, BAR_H)

        def icon():
            return shell.grab(*cell)
        on = stable(icon, 'the radios-on icon')
        save_scaled(on, os.path.join(outdir, 'icon-radios-on.png'))
        shell.grab(save_as=os.path.join(outdir, 'topbar-radios-on.png'))

        # 3. A left click opens the shell's menu for our item.
        def open_menu(save_as):
            before = below_bar()
            xdotool('mousemove', cx, cy, 'click', '1')

            def menu_drawn():
                b = diff_box(before, below_bar(), step=2)
                return b if b and b[3] - b[1] > 150 and b[2] - b[0] > 120 else None
            menu_box = wait_for(menu_drawn, 10, 'a menu below our icon after a click')
            menu = stable(below_bar, 'the menu drawn completely', step=2)
            shell.grab(save_as=save_as)
            log('menu at', menu_box, '(below the bar) saved', save_as)
            # Ours: under the icon, as tall as our ten rows.
            check(menu_box[0] <= cx <= menu_box[2] + 4,
                  f'the menu {menu_box} is not below our icon at x={cx}')
            return before, menu, menu_box

        def close_menu(before):
            xdotool('key', 'Escape')
            xdotool('mousemove', 20, SCREEN_H - 20)
            wait_for(lambda: diff_box(before, below_bar(), step=2) is None, 5,
                     'the menu closed')

        before, menu_on, menu_box = open_menu(
            os.path.join(outdir, 'menu-radios-on.png'))

        # 4. Our first item, picked in the shell's menu: airplane mode.
        check(not any(r['soft'] for r in fake.state()), f'radios: {fake.state()}')
        xdotool('key', 'Down', 'Return')
        wait_for(lambda: all(r['soft'] for r in fake.state()), 5,
                 'airplane mode on after "Airplane mode" in the shell\'s menu')
        wait_for(lambda: diff_box(before, below_bar(), step=2) is None, 5,
                 'the menu closed after the click')
        # No hover highlight in the icon's screenshot.
        xdotool('mousemove', 20, SCREEN_H - 20)
        wait_for(lambda: 'airplane' in item.props().get('IconName'), 5,
                 'the airplane-mode icon name')
        airplane = stable(icon, 'the airplane-mode icon in the top bar',
                          differs_from=[on])
        save_scaled(airplane, os.path.join(outdir, 'icon-airplane-mode.png'))

        # 5. The reopened menu shows the new state: drawn differently.
        before, menu_airplane, box2 = open_menu(
            os.path.join(outdir, 'menu-airplane-mode.png'))
        changed = diff_box(menu_on, menu_airplane, step=2)
        check(changed is not None, 'the menu looks the same in airplane mode')
        log('menu changed within', changed)
        close_menu(before)
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
