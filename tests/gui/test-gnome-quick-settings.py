"""GNOME's Quick Settings "Airplane Mode" toggle and our menu agree.

A real gnome-shell 43 with the AppIndicator extension, the real
gsd-rfkill (on the fake kernel through rfkill-preload.so, a stock kernel)
and the applet, all on one session bus.  The shell's toggle is shown when
gsd has radios, is checked while gsd's AirplaneMode is true and sets it
when clicked (gnome-shell 43, js/ui/status/rfkill.js).  As a user:
  1. Quick Settings shows the toggle, off;
  2. "Airplane mode" in our menu (in the shell): the toggle is on when
     Quick Settings is opened again; the only part that changed is the
     toggle, which is how the test finds it;
  3. a click on that toggle ends airplane mode: every radio is on, our
     icon and menu say so, for 2 s nobody writes to the kernel, and the
     history names every radio switched at once (the key's cause);
  4. airplane mode from our menu again, then Bluetooth on from our menu:
     an exception (src/RULES.md), so our menu keeps airplane mode, while
     gsd-rfkill, which counts every radio, says AirplaneMode false and
     Quick Settings draws the toggle off, as in step 1 (with
     serve-gnome-rfkill the applet serves gsd's object and GNOME shows
     airplane mode on instead).
Screenshots go to $RFK_SCREENSHOT_DIR/gnome-gsd/.
"""
import os
import time

import guitest as gt
from guitest import check, log, wait_for
import fakekernel
import gnomeshell
import rfkapi
from gnomeshell import SCREEN_W
from desktop import diff_box, screenshot_dir, stable, xdotool
from gsdrfkill import Gsd, SessionManager

ITEM_PATH = '/StatusNotifierItem'
# The system menu (Quick Settings) sits at the right end of the top bar.
SYSTEM_X, SYSTEM_Y = SCREEN_W - 24, 15


def test(logdir):
    outdir = screenshot_dir('gnome-gsd')

    bus = gt.session_bus()
    shell = gnomeshell.Shell(logdir)
    session = fake = applet = gsd = None
    try:
        session = SessionManager(bus, logdir)
        fake = fakekernel.Fake(logdir, ['wlan', 'wlan', 'bluetooth'], stock=True)
        gsd = Gsd(bus, fake, logdir)
        shell.wait_ready()
        wait_for(lambda: gsd.get('HasAirplaneMode'), 10, 'gsd-rfkill with radios')
        shell.leave_overview()
        empty = stable(shell.status_area, 'the top bar settled')

        applet = gt.Applet(fake.socket, logdir)
        sender = applet.unique_name(bus)
        wait_for(lambda: f'{sender}@{ITEM_PATH}' in shell.registered_items(), 10,
                 'our item in the shell\'s watcher')
        item = gt.Item(bus, sender, ITEM_PATH)
        wait_for(lambda: item.props().get('IconName') == gt.APP_ID + '-radios-on',
                 10, 'the applet settled with every radio on')
        cx, cy = shell.wait_new_icon(empty, 'our icon in the top bar')

        # 1. Quick Settings with the toggle off.
        before, qs_off, qs_box = shell.open_menu(
            SYSTEM_X, SYSTEM_Y, 'Quick Settings',
            os.path.join(outdir, 'quick-settings-off.png'))
        xdotool('key', 'Escape')
        shell.wait_closed(before, 'Quick Settings closed')

        # 2. Airplane mode from our menu, in the shell.
        before, _menu, _box = shell.open_menu(
            cx, cy, 'our menu', os.path.join(outdir, 'menu-radios-on.png'))
        xdotool('key', 'Down', 'Return')
        wait_for(lambda: all(r['soft'] for r in fake.state()), 5,
                 'every radio off after our "Airplane mode"')
        shell.wait_closed(before, 'our menu closed')
        wait_for(lambda: gsd.get('AirplaneMode') is True, 5,
                 'gsd AirplaneMode true after ours went on')
        before, qs_on, _box = shell.open_menu(
            SYSTEM_X, SYSTEM_Y, 'Quick Settings',
            os.path.join(outdir, 'quick-settings-airplane.png'))
        toggle = diff_box(qs_off, qs_on, step=2)
        check(toggle is not None, 'Quick Settings look the same in airplane mode')
        log('the toggle changed within', toggle, '(below the bar)')
        x0, y0, x1, y1 = toggle
        check(20 <= x1 - x0 <= 320 and 10 <= y1 - y0 <= 80,
              f'more than one toggle changed? {toggle}')

        # 3. Its click ends airplane mode for everybody.
        writes = len(gsd.writes())
        xdotool('mousemove', (x0 + x1) // 2, gnomeshell.BAR_H + (y0 + y1) // 2,
                'click', '1')
        wait_for(lambda: not any(r['soft'] for r in fake.state()), 5,
                 'every radio on after the Quick Settings toggle')
        check(gsd.writes()[writes:] == [(0, 3, 0)],
              f'the toggle made gsd write {gsd.writes()[writes:]}')
        wait_for(lambda: not item.find('Airplane mode').checked, 5,
                 'our menu showing airplane mode off')
        wait_for(lambda: 'airplane' not in item.props().get('IconName'), 5,
                 'our icon without airplane mode')
        # The whole screen settled: the top bar too (our icon is redrawn
        # after the extension fetched it again).
        stable(shell.grab, 'the screen redrawn', step=2)
        shell.grab(save_as=os.path.join(outdir, 'quick-settings-toggled-off.png'))
        xdotool('key', 'Escape')
        shell.wait_closed(before, 'Quick Settings closed')
        kernel_writes = fake.writes()
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            check(not any(r['soft'] for r in fake.state()),
                  f'a radio went off again: {fake.state()}')
            check(gsd.get('AirplaneMode') is False, 'gsd flipped back to airplane mode')
            check(not item.find('Airplane mode').checked,
                  'our menu flipped back to airplane mode')
            time.sleep(0.1)
        check(fake.writes() == kernel_writes,
              f'{fake.writes() - kernel_writes} writes while nothing happened')
        # The history: gsd's CHANGE_ALL switched every radio at once, as
        # the key does, and nothing tells the two apart (README, "History").
        api = rfkapi.Api(bus)
        recent = sorted((e['name'], e['to'], e['cause'])
                        for e in api.get('History')[-3:])
        api.close()
        check(recent == [('hci0', 'on', 'key'), ('phy0', 'on', 'key'),
                         ('phy1', 'on', 'key')], f'the history: {recent}')
        before, _menu, _box = shell.open_menu(
            cx, cy, 'our menu', os.path.join(outdir, 'menu-after-toggle.png'))
        xdotool('key', 'Escape')
        shell.wait_closed(before)

        # 4. An exception: our airplane mode with Bluetooth on.
        item.click('Airplane mode')
        wait_for(lambda: all(r['soft'] for r in fake.state()), 5,
                 'every radio off after our "Airplane mode"')
        item.click('Bluetooth (hci0)')
        wait_for(lambda: [r['soft'] for r in fake.state()] == [True, True, False], 5,
                 f'Bluetooth on, Wi-Fi off: {fake.state()}')
        wait_for(lambda: item.find('Airplane mode').checked and item.find(
            'Bluetooth (hci0) stays on in airplane mode').checked, 5,
            'our menu: airplane mode, and the exception')
        wait_for(lambda: gsd.get('AirplaneMode') is False, 5,
                 'gsd AirplaneMode false: a radio is on')
        before, qs_now, _box = shell.open_menu(
            SYSTEM_X, SYSTEM_Y, 'Quick Settings',
            os.path.join(outdir, 'quick-settings-exception.png'))
        changed = diff_box(qs_off, qs_now, step=2)
        check(changed is None or changed[2] < x0 or changed[0] > x1
              or changed[3] < y0 or changed[1] > y1,
              f'the airplane toggle is drawn on with Bluetooth on ({changed} vs {toggle})')
        xdotool('key', 'Escape')
        shell.wait_closed(before, 'Quick Settings closed')
        check(applet.proc.poll() is None, 'the applet died')
        shell.alive()
    finally:
        for part in (applet, gsd, fake, session):
            if part:
                part.stop()
        shell.stop()


if __name__ == '__main__':
    gt.run(test)
