"""The applet in a real panel: xfce4-panel's systray plugin is the
StatusNotifierWatcher and host.  Screenshots of the icon in each state
and of the open menu go to $RFK_SCREENSHOT_DIR.

The applet sees a ThinkPad T480's udev tree (umockdev, udev/*.umockdev),
so the menu shows the names people recognise and the laptop's switches
apart, with its WWAN disabled in the BIOS (hard-blocked for good, which
must not bring up the hardware-switch icon).

Fails if the panel shows no icon, if two states draw the same icon, if
a click does not open a menu, or if the icon stays without radios (the
item is passive then).  Waits for pixels, never fixed sleeps.
"""
import os
import shutil
import subprocess
import sys

import gi
gi.require_version('GdkPixbuf', '2.0')
from gi.repository import GdkPixbuf  # noqa: E402

import guitest as gt  # noqa: E402
from guitest import check, log, wait_for  # noqa: E402
import fakekernel  # noqa: E402
import fakeudev  # noqa: E402
from desktop import (diff_box, same, save_scaled, screenshot_dir,  # noqa: E402
                     stable, uniform, xdotool)

PANEL_H = 32
SCREEN_W = 640


class Screen:
    def __init__(self, workdir, outdir):
        self.workdir, self.outdir = workdir, outdir
        self.count = 0

    def grab(self, geometry=None, save_as=None):
        """A PNG of the root window (or a WxH+X+Y part) as a pixbuf."""
        self.count += 1
        path = save_as or os.path.join(self.workdir, f'grab-{self.count}.png')
        args = ['import', '-window', 'root']
        if geometry:
            args += ['-crop', geometry, '+repage']
        subprocess.run(args + [path], check=True, capture_output=True)
        return GdkPixbuf.Pixbuf.new_from_file(path)

    def panel(self):
        return self.grab(f'{SCREEN_W}x{PANEL_H}+0+0')


def click(x, y, button):
    """Clicks, then moves the pointer off the panel so that no hover
    highlight ends up in the icon screenshots."""
    xdotool('mousemove', x, y, 'click', button)
    xdotool('mousemove', SCREEN_W - 20, 460)


def item_props(bus, applet):
    name = applet.unique_name(bus)
    return gt.Item(bus, name, '/StatusNotifierItem').props()


def item_icon(bus, applet):
    """The icon name the applet exports (to know the model settled)."""
    return item_props(bus, applet).get('IconName')


def open_submenu(screen, menu, menu_box, keys, save_as, what):
    """Walks the open menu with the keyboard; saves once a submenu is drawn:
    something new right of the menu, not only a highlighted item in it."""
    below = f'{SCREEN_W}x{480 - PANEL_H}+0+{PANEL_H}'
    xdotool('key', *keys)

    def submenu_drawn():
        part = diff_box(menu, screen.grab(below))
        return part if (part and part[2] - part[0] > 60 and part[3] - part[1] > 20
                        and part[2] > menu_box[2] + 20) else None
    wait_for(submenu_drawn, 10, f'the "{what}" submenu')
    stable(lambda: screen.grab(below), f'the "{what}" submenu drawn completely')
    screen.grab(save_as=save_as)
    log('saved', save_as)


# Keyboard walks to the submenus.  Up from no selection is Quit; counted
# from the end, the settings do not move with the radios above them:
# Quit, Start at login, Keep radios off after suspend, Notifications, the
# light, the types, then Recent changes.
LIGHT_SUBMENU = (['Up'] * 5 + ['Right'], 'Airplane-mode light')
TYPES_SUBMENU = (['Up'] * 6 + ['Right'], 'Airplane mode turns off')
HISTORY_SUBMENU = (['Up'] * 7 + ['Right'], 'Recent changes')


def open_menu(screen, cx, cy, save_as, submenu=None, submenu_as=None):
    """Left click on the icon; waits for a menu below the panel, saves the
    whole screen, closes the menu again.  With submenu (one of the walks
    above), also opens that submenu and saves it as submenu_as."""
    below = f'{SCREEN_W}x{480 - PANEL_H}+0+{PANEL_H}'
    before = screen.grab(below)
    xdotool('mousemove', cx, cy, 'click', '1')

    def menu_drawn():
        box = diff_box(before, screen.grab(below))
        return box if box and box[3] - box[1] > 100 and box[2] - box[0] > 80 else None
    box = wait_for(menu_drawn, 10, 'a menu below the panel after a left click')
    menu = stable(lambda: screen.grab(below), 'the menu drawn completely')
    box = diff_box(before, menu)
    screen.grab(save_as=save_as)
    log('menu at', box, 'saved', save_as)
    if submenu:
        keys, what = submenu
        open_submenu(screen, menu, box, keys, submenu_as, what)
        xdotool('key', 'Escape')
    xdotool('key', 'Escape')
    xdotool('mousemove', SCREEN_W - 20, 460)
    wait_for(lambda: same(before, screen.grab(below)), 5, 'the menu closed')


# Variants: "de" runs the applet in German; "fallback" makes hicolor the
# icon theme of applet and panel, as on a desktop without Adwaita; "dark"
# gives the panel a dark theme (Adwaita-dark).
VARIANT = sys.argv[1] if len(sys.argv) > 1 else None
LANG = VARIANT if VARIANT in ('de', 'fr') else None
# Our own icon in every theme (rfk-icon-theme.c).
RADIOS_ON_ICON = gt.APP_ID + '-radios-on'


# Legible: this many pixels of the icon's cell differ from the panel's
# background by at least LEGIBLE_CONTRAST in luminance (0-255).  Our
# icons have 68-173 such pixels on light and dark panels; a dark
# symbolic icon on a dark panel has none.
LEGIBLE_PIXELS = 30
LEGIBLE_CONTRAST = 96


def luminances(pixbuf):
    data, stride = pixbuf.get_pixels(), pixbuf.get_rowstride()
    n = pixbuf.get_n_channels()
    return [(299 * data[y * stride + x * n] + 587 * data[y * stride + x * n + 1]
             + 114 * data[y * stride + x * n + 2]) // 1000
            for y in range(pixbuf.get_height()) for x in range(pixbuf.get_width())]


def check_legible(pixbuf, background, what):
    """The icon stands out from the empty panel cell it is drawn on."""
    back = sorted(luminances(background))[len(luminances(background)) // 2]
    standing_out = sum(1 for lum in luminances(pixbuf)
                       if abs(lum - back) >= LEGIBLE_CONTRAST)
    log(f'{what}: {standing_out} pixels stand out from the background ({back})')
    check(standing_out >= LEGIBLE_PIXELS,
          f'{what} is not legible: {standing_out} pixels stand out from the '
          f'panel (luminance {back}), want {LEGIBLE_PIXELS}')


def hide_adwaita():
    """A desktop without Adwaita: GTK always falls back to it when it is
    installed, so mirror /usr/share without icons/Adwaita and put that on
    XDG_DATA_DIRS, after our own data directory, for applet and panel."""
    ours = os.environ['XDG_DATA_DIRS'].split(':')[0]
    share = os.path.join(os.environ['XDG_RUNTIME_DIR'], 'share-without-adwaita')
    os.makedirs(os.path.join(share, 'icons'))
    for entry in os.listdir('/usr/share'):
        if entry != 'icons':
            os.symlink(os.path.join('/usr/share', entry), os.path.join(share, entry))
    for theme in os.listdir('/usr/share/icons'):
        if theme != 'Adwaita':
            os.symlink(os.path.join('/usr/share/icons', theme),
                       os.path.join(share, 'icons', theme))
    os.environ['XDG_DATA_DIRS'] = f'{ours}:{share}'


def test(logdir):
    formats = [f.get_name() for f in GdkPixbuf.Pixbuf.get_formats()]
    check('svg' in formats, 'gdk-pixbuf has no SVG loader (install librsvg2-common): '
          'neither the panel nor this test could draw SVG icons')
    outdir = screenshot_dir(VARIANT)
    if VARIANT == 'fallback':
        hide_adwaita()
    workdir = os.path.join(os.environ['XDG_RUNTIME_DIR'], 'grabs')
    os.makedirs(workdir)
    screen = Screen(workdir, outdir)

    config_dir = os.path.join(os.environ['XDG_CONFIG_HOME'], 'xfce4', 'xfconf',
                              'xfce-perchannel-xml')
    os.makedirs(config_dir)
    shutil.copy(os.environ['RFK_PANEL_CONFIG'],
                os.path.join(config_dir, 'xfce4-panel.xml'))

    bus = gt.session_bus()
    panel_log = open(os.path.join(logdir, 'xfce4-panel.log'), 'w')
    panel_env = dict(os.environ)
    if VARIANT == 'dark':
        panel_env['GTK_THEME'] = 'Adwaita:dark'
    panel = subprocess.Popen(['xfce4-panel', '--disable-wm-check',
                              '--sm-client-disable'],
                             stdout=panel_log, stderr=subprocess.STDOUT,
                             env=panel_env)
    fake = applet = None
    try:
        subprocess.run(['gdbus', 'wait', '--session', '--timeout', '10',
                        gt.WATCHER_NAME], check=True)
        # The empty panel, drawn and settled: the baseline for the icon.
        wait_for(lambda: not uniform(screen.grab(f'{SCREEN_W}x{PANEL_H + 8}+0+0')),
                 10, 'the panel drawn over the root window')
        empty = stable(screen.panel, 'the empty panel settled')

        testbed = fakeudev.Testbed('thinkpad-t480')
        # rfkill0..3 as in the tree; the WWAN is disabled in the BIOS.
        fake = fakekernel.Fake(logdir, ['bluetooth=tpacpi_bluetooth_sw',
                                        'wwan=tpacpi_wwan_sw', 'wlan=phy0',
                                        'bluetooth=hci0'])
        fake.set_hard('tpacpi_wwan_sw', True)
        applet_env = testbed.env()
        if LANG:
            applet_env.update({'LANGUAGE': LANG,
                               'RFKILL_APPLET_LOCALEDIR': os.environ['RFK_LOCALEDIR']})
        applet = gt.Applet(fake.socket, logdir, extra_env=applet_env)
        seen = []

        def icon_drawn():
            # The panel may redraw an edge first (a 1-pixel column): only
            # an icon-sized change counts.
            box = diff_box(empty, screen.panel())
            seen.append(box)
            return box if box and box[2] - box[0] >= 8 and box[3] - box[1] >= 8 else None
        try:
            wait_for(icon_drawn, 10, 'the icon in the panel')
        except gt.TestFailure:
            raise gt.TestFailure(f'the panel shows no icon (changes seen: {seen[-3:]})')
        # The icon settled: its box from a stable panel.
        box = diff_box(empty, stable(screen.panel, 'the panel with the icon'))
        log('icon drawn at', box)
        x0, y0, x1, y1 = box
        check(x1 - x0 >= 8 and y1 - y0 >= 8, f'icon too small: {box}')
        check(x1 - x0 <= 40 and y1 - y0 <= PANEL_H, f'more than one icon? {box}')
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        # The whole panel cell around the icon.
        cell = f'{PANEL_H}x{PANEL_H}+{max(0, cx - PANEL_H // 2)}+0'

        def icon():
            return screen.grab(cell)

        cell_x = max(0, cx - PANEL_H // 2)
        empty_cell = empty.new_subpixbuf(cell_x, 0, min(PANEL_H, SCREEN_W - cell_x),
                                         PANEL_H)

        def save_icon(name, pixbuf):
            screen.panel().savev(os.path.join(outdir, f'panel-{name}.png'),
                                 'png', [], [])
            save_scaled(pixbuf, os.path.join(outdir, f'icon-{name}.png'))

        shown = []
        # 1. Radios on, once the manager settled on the socket.
        wait_for(lambda: item_icon(bus, applet) == RADIOS_ON_ICON, 10,
                 f'the icon name {RADIOS_ON_ICON}')
        on = stable(icon, 'the radios-on icon')
        save_icon('radios-on', on)
        check_legible(on, empty_cell, 'the radios-on icon')
        # Hosts that look in IconThemePath first find our icons there.
        theme_path = item_props(bus, applet).get('IconThemePath')
        check(theme_path and os.path.isfile(os.path.join(
                  theme_path, 'hicolor', 'scalable', 'status', RADIOS_ON_ICON + '.svg')),
              f'IconThemePath {theme_path!r} lacks {RADIOS_ON_ICON}')
        shown.append(on)

        # 2. The menu opens on a left click in the panel.
        open_menu(screen, cx, cy, os.path.join(outdir, 'menu-radios-on.png'),
                  TYPES_SUBMENU, os.path.join(outdir, 'menu-airplane-types.png'))
        open_menu(screen, cx, cy, os.path.join(outdir, 'menu-radios-on.png'),
                  LIGHT_SUBMENU, os.path.join(outdir, 'menu-light-submenu.png'))

        # 3. Middle click in the panel: airplane mode on.
        click(cx, cy, 2)
        wait_for(lambda: all(r['soft'] for r in fake.state()), 5,
                 'airplane mode on from a middle click in the panel')
        airplane = stable(icon, 'the airplane-mode icon', differs_from=shown)
        save_icon('airplane-mode', airplane)
        check_legible(airplane, empty_cell, 'the airplane-mode icon')
        shown.append(airplane)
        click(cx, cy, 2)
        wait_for(lambda: not any(r['soft'] for r in fake.state()), 5,
                 'airplane mode off from a second middle click')
        stable(icon, 'the radios-on icon back', differs_from=[airplane])

        # 4. The wireless slider: every radio hard-blocked.
        fake.set_hard_all(True)
        hardware = stable(icon, 'the hardware-switch icon', differs_from=shown)
        save_icon('hardware-switch', hardware)
        check_legible(hardware, empty_cell, 'the hardware-switch icon')
        shown.append(hardware)
        # The last changes: the two middle clicks, then the switch.
        open_menu(screen, cx, cy, os.path.join(outdir, 'menu-hardware-switch.png'),
                  HISTORY_SUBMENU, os.path.join(outdir, 'menu-recent-changes.png'))

        # 5. The device goes away (no rfkill support, nothing to switch):
        # the item is passive and the panel hides it.
        fake.stop()
        wait_for(lambda: same(screen.panel(), empty), 10, 'the icon hidden')
        screen.panel().savev(os.path.join(outdir, 'panel-passive.png'), 'png', [], [])
        check(applet.proc.poll() is None, 'the applet died with its device')
        # A radio appears: the icon is back.
        fake = fakekernel.Fake(logdir, ['wlan'])
        wait_for(lambda: same(icon(), on), 10, 'the radios-on icon back')
    finally:
        if applet:
            applet.stop()
        if fake:
            fake.stop()
        gt.end_process(panel)
        panel_log.close()


if __name__ == '__main__':
    gt.run(test)
