#!/usr/bin/python3
"""One desktop's scenario, run as the desktop user inside one of the
suite's trees (bookworm, trixie) under dbus-run-session (run-desktops.sh
starts it):

  desktops.py DESKTOP OUTDIR [TAP-FD]

The installed applet (/usr/bin/rfkill-applet) on the fake kernel, in the
desktop's own panel:
  1. the icon is drawn, legible, and unlike what the panel draws for an
     icon it cannot find, with radios on, in airplane mode, under a
     hardware switch and with no radios (then the item is passive: drawn
     legibly, or hidden as panels hide passive items);
  2. the panel's left and right clicks open the menu (a large new area
     on screen);
  3. "Airplane mode" in the menu blocks every radio, a second click
     restores them, and the icon changes and comes back;
  4. a hardware-switch flip makes the desktop's own daemon draw a
     notification (it got the Notify, or on GNOME the GNotification as
     org.gtk.Notifications AddNotification, and a new area appeared).
Screenshots go to OUTDIR; TAP goes to TAP-FD (default stdout), apart from
what the desktops' own programs print.
"""
import os
import re
import subprocess
import sys
import time

import fakekernel
import guitest as gt
import pixels
import probe
import sessions

APPLET = '/usr/bin/rfkill-applet'
# Where the applet publishes its StatusNotifierItem.
ITEM_PATH = '/StatusNotifierItem'
RADIOS = ['wlan', 'bluetooth']
# A tray icon is a square of 12 to 64 pixels (16, 22, 24, 32 in practice).
ICON_MIN, ICON_MAX = 12, 64
# A menu or a notification is larger than any icon in both directions.
POPUP_MIN_W, POPUP_MIN_H = 80, 40
# Same picture: at least this share of the pixels equal.
SAME_LIKENESS = 0.97
# How far the item may move along the tray when other items come or go
# (Cinnamon's notification counter appears beside it with the first
# notification, at any step): a few slots.
REACH = 120


def overlap(a, b):
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


class Tap:
    def __init__(self, out):
        self.out = out
        self.count = 0
        self.failed = 0

    def result(self, ok, what, detail=''):
        self.count += 1
        if not ok:
            self.failed += 1
        print(f'{"ok" if ok else "not ok"} {self.count} - {what}', file=self.out, flush=True)
        if detail:
            for line in str(detail).splitlines():
                print(f'# {line}', file=self.out, flush=True)

    def step(self, what, fn):
        """Runs one check; a failure is reported and the scenario goes on
        only if later checks do not depend on it (fn raises Skip then)."""
        try:
            detail = fn()
        except gt.TestFailure as failure:
            self.result(False, what, failure)
            return False
        self.result(True, what, detail or '')
        return True


class Scenario:
    def __init__(self, desktop_name, outdir, tap_out):
        self.outdir = outdir
        os.makedirs(outdir, exist_ok=True)
        self.bus = gt.session_bus()
        self.loop = gt.MainLoopThread()
        self.desktop = sessions.DESKTOPS[desktop_name](outdir, self.bus,
                                                       sessions.release())
        self.tap = Tap(tap_out)
        self.fake = None
        self.applet = None

    # -- screen ------------------------------------------------------------

    def shot(self, name, pixbuf=None):
        pixbuf = pixbuf or self.desktop.grab()
        pixels.save(pixbuf, os.path.join(self.outdir, f'{name}.png'))
        return pixbuf

    def settled(self, what, differs_from=None, region=None, timeout=20, calm_for=0.0):
        """A grab equal to the one before it (in region) and unchanged for
        calm_for seconds, and, if differs_from is given, different from
        that one there."""
        last = self.desktop.grab()
        since = time.monotonic()

        def ready():
            nonlocal last, since
            self.desktop.alive()
            now = self.desktop.grab()
            calm = not pixels.diff_points(now, last, region)
            last = now
            if not calm:
                since = time.monotonic()
                return None
            if time.monotonic() - since < calm_for:
                return None
            if differs_from is not None and not pixels.diff_points(now, differs_from, region):
                return None
            return now
        return gt.wait_for(ready, timeout, what)

    def popups(self, before, after):
        return [b for b in self.new_areas(before, after)
                if pixels.size(b)[0] >= POPUP_MIN_W and pixels.size(b)[1] >= POPUP_MIN_H]

    def wait_popup(self, before, what, timeout=15, twice=True):
        """A new area larger than an icon (a menu, a notification) in the
        same place on two grabs in a row (its inside may change: Plasma's
        popup animates a countdown), or on one grab if not twice (a popup
        that lasts seconds, on a slow machine); returns (grab, areas)."""
        last = None

        def ready():
            nonlocal last
            self.desktop.alive()
            now = self.desktop.grab()
            areas = self.popups(before, now)
            same_place = any(overlap(a, b) for a in areas for b in (last or []))
            last = areas
            return (now, areas) if same_place or (areas and not twice) else None
        return gt.wait_for(ready, timeout, what)

    def new_areas(self, before, after):
        return pixels.components(pixels.diff_points(before, after))

    def in_tray(self, boxes):
        """The boxes inside the desktop's status area, where it has one
        (GNOME: not the clock's digits turning over)."""
        area = self.desktop.tray_area
        return boxes if area is None else [b for b in boxes if overlap(b, area)]

    def icon_box(self, before, after, what):
        """The one icon-sized square that appeared between two grabs."""
        boxes = self.in_tray(self.new_areas(before, after))
        icons = self.icon_sized(boxes)
        gt.check(icons, f'no icon-sized area appeared for {what}; changed: {boxes}')
        # Items that moved over to make room were on screen before, a slot
        # or two aside; the new item's picture was nowhere in the row.
        new = [b for b in icons if not self.moved(before, after, b)]
        gt.check(new, f'only items that moved over changed for {what}: {icons}')
        return new[0]

    @staticmethod
    def icon_sized(boxes):
        return [b for b in boxes
                if ICON_MIN <= pixels.size(b)[0] <= ICON_MAX
                and ICON_MIN // 2 <= pixels.size(b)[1] <= ICON_MAX]

    @staticmethod
    def moved(before, after, box, reach=80):
        """Whether the picture in box of after was in before, at most reach
        pixels to the left or right."""
        w, _h = pixels.size(box)
        picture = pixels.crop(after, box)
        for dx in range(-reach, reach + 1):
            x = box[0] + dx
            if dx == 0 or x < 0 or x + w > before.get_width():
                continue
            old = pixels.crop(before, (x, box[1], x + w - 1, box[3]))
            if pixels.likeness(old, picture, shift=0) >= SAME_LIKENESS:
                return True
        return False

    # -- following the item along the tray -------------------------------------
    #
    # The item's box is learnt once, when it appears; after that the tray
    # may reflow at any time, so every step looks for the item again
    # instead of trusting the first box.

    def row(self, box, grab):
        """The stretch of the tray the item may have moved to."""
        return (max(0, box[0] - REACH), max(0, box[1] - 4),
                min(grab.get_width() - 1, box[2] + REACH),
                min(grab.get_height() - 1, box[3] + 4))

    def find(self, grab, picture, box):
        """The box in grab's tray row holding picture (the item as it was
        drawn at box on an earlier grab), nearest to box; None if it is not
        there."""
        w, _h = pixels.size(box)
        for dx in sorted(range(-REACH, REACH + 1), key=abs):
            x = box[0] + dx
            if x < 0 or x + w > grab.get_width():
                continue
            moved = (x, box[1], x + w - 1, box[3])
            if pixels.likeness(pixels.crop(grab, moved), picture, shift=0) >= SAME_LIKENESS:
                return moved
        return None

    def follow(self, grab, picture, box, what):
        """The item's box on grab, where its picture has not changed but the
        tray may have reflowed; fails if the picture is gone."""
        found = self.find(grab, picture, box)
        gt.check(found, f'{what}: the item is no longer in the tray near {box}')
        return found

    def look(self, before, grab, box):
        """What became of the item drawn at box of before, on grab:
        ('same', box) if its picture is still there (perhaps moved),
        ('new', box) if an icon-sized picture that was nowhere near in
        before has come (the one over the old box, else the nearest), and
        ('gone', None) if neither."""
        found = self.find(grab, pixels.crop(before, box), box)
        if found:
            return 'same', found
        changed = pixels.components(pixels.diff_points(before, grab, self.row(box, grab)))
        icons = [b for b in self.icon_sized(changed)
                 if not self.moved(before, grab, b, REACH)]
        if not icons:
            return 'gone', None
        over = [b for b in icons if overlap(b, box)]
        return 'new', (box if over else min(icons, key=lambda b: abs(b[0] - box[0])))

    def calm_row(self, box, what, timeout=20):
        """A grab whose tray row is unchanged on the next grab."""
        last = None

        def ready():
            nonlocal last
            self.desktop.alive()
            grab = self.desktop.grab()
            calm = last is not None and not pixels.diff_points(grab, last, self.row(box, grab))
            last = grab
            return grab if calm else None
        return gt.wait_for(ready, timeout, what)

    def new_icon(self, before, box, what, timeout=20):
        """(grab, box) once the item drawn at box of before shows another
        picture, wherever along the tray it is now."""
        def ready():
            grab = self.calm_row(box, what, timeout)
            kind, found = self.look(before, grab, box)
            return (grab, found) if kind == 'new' else None
        return gt.wait_for(ready, timeout, what)

    # -- the applet's icon ---------------------------------------------------

    def icon_checks(self, grab, box, state, minimum=pixels.MIN_RATIO):
        """Legible and not the panel's missing-icon picture."""
        slot = pixels.grow(box, 3, grab)
        bg = pixels.background(grab, slot)
        strong, top = pixels.contrast(grab, box, bg, minimum)
        pixels.save(pixels.crop(grab, slot),
                    os.path.join(self.outdir, f'icon-{state}.png'), 4)
        detail = (f'{state}: box {box}, panel colour {bg}, {strong} pixels reach a '
                  f'contrast of {minimum}:1, highest {top:.1f}:1')
        gt.check(strong >= pixels.MIN_STRONG,
                 f'icon not legible: {detail} (need {pixels.MIN_STRONG} pixels)')
        if self.placeholder is not None:
            same = pixels.likeness(pixels.crop(grab, slot), self.placeholder)
            detail += f'; likeness to the missing-icon picture {same:.2f}'
            gt.check(same < SAME_LIKENESS,
                     f"the panel's missing-icon picture, not an icon: {detail}")
        return detail

    def learn_placeholder(self, baseline):
        """What this panel draws for an icon name it cannot resolve.

        The probe's picture is where the panel changed both when the probe
        came and when it went: a clock's digit that turned over meanwhile
        changed only once.  A panel may also change as a whole meanwhile
        (Cinnamon on a loaded machine once redrew its whole panel between
        the baseline and the probe): then all that changed when it came is
        one panel-sized area, and the probe is found where the picture
        changed when it went."""
        item = probe.MissingIconItem()
        try:
            grab = self.settled('the probe item drawn', differs_from=baseline, calm_for=1.0)
            came = self.in_tray(self.new_areas(baseline, grab))
            self.shot('probe-missing-icon', grab)
        finally:
            item.close()
        if not came:
            self.settled('the probe item removed', timeout=20)
            self.placeholder = None
            return 'draws nothing for a missing icon'
        try:
            gone = self.settled('the probe item removed', differs_from=grab,
                                timeout=20, calm_for=1.0)
        except gt.TestFailure:
            gone = grab  # nothing changed when it went
        went = self.in_tray(self.new_areas(grab, gone))
        icons = self.placeholder_sized(came)
        both = [b for b in icons if any(overlap(b, w) for w in went)]
        if both:
            icons, how = both, ''
        elif icons:
            how = f' (seen when it came only: nothing of it changed when it went: {went})'
        else:
            icons = self.placeholder_sized(went)
            gt.check(icons, f'no icon-sized area among the changes when the probe came '
                            f'({came}) or went ({went})')
            how = f' (seen when it went: the changes when it came were {came})'
        slot = pixels.grow(icons[-1], 3, grab)
        self.placeholder = pixels.crop(grab, slot)
        pixels.save(self.placeholder,
                    os.path.join(self.outdir, 'icon-missing-placeholder.png'), 4)
        return f'draws a placeholder in {icons[-1]} for a missing icon{how}'

    @staticmethod
    def placeholder_sized(boxes):
        """Judged by width alone: a panel's missing-icon picture need not
        be as tall as an icon."""
        return [b for b in boxes if ICON_MIN // 2 <= pixels.size(b)[0] <= ICON_MAX]

    def wait_radios(self, blocked, what):
        def all_of():
            state = self.fake.state()
            return state and all(r['soft'] == blocked for r in state)
        gt.wait_for(all_of, 10, what)

    # -- the scenario ----------------------------------------------------------

    def run(self):
        desktop, tap = self.desktop, self.tap
        self.placeholder = None
        desktop.start()
        # The panel drawn and calm before anything is compared.
        # Drawn (not one colour: panels map late) and calm for a while.
        def drawn():
            grab = self.settled(f'{desktop.name} calm', timeout=60, calm_for=1.5)
            return None if pixels.uniform(grab) else grab
        baseline = gt.wait_for(drawn, 90, f'{desktop.name} drawn')
        self.shot('0-desktop', baseline)
        tap.result(True, f'{desktop.name} started', 'panel up, watcher on the bus')

        tap.step('the panel\'s missing-icon picture learnt',
                 lambda: self.learn_placeholder(baseline))
        baseline = self.settled('the desktop calm again', timeout=20, calm_for=1.0)

        env = dict(desktop.env, GDK_BACKEND=desktop.gdk_backend)
        os.environ.update({k: v for k, v in env.items()
                           if k in ('WAYLAND_DISPLAY', 'DISPLAY')})
        self.fake = fakekernel.Fake(self.outdir, RADIOS)
        env['RFKILL_SYSFS_ROOT'] = os.environ['RFKILL_SYSFS_ROOT']
        os.environ['RFK_APPLET'] = APPLET
        self.applet = gt.Applet(self.fake.socket, self.outdir, extra_env=env)
        name = self.applet.unique_name(self.bus, 20)
        path = gt.wait_for(lambda: self.item_path(name), 20, 'the item on the bus')
        item = gt.Item(self.bus, name, path)

        on = self.settled('the icon drawn', differs_from=baseline, timeout=30, calm_for=1.0)
        self.shot('1-radios-on', on)
        box = self.icon_box(baseline, on, 'radios on')
        radios_on = pixels.crop(on, box)
        tap.step('radios on: icon legible', lambda: self.icon_checks(on, box, 'radios-on'))

        # The menu, on each click this panel opens it with.
        def menu(button):
            x, y = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
            desktop.click(x, y, button)
            opened, areas = self.wait_popup(on, f'a menu after a {button} '
                                            f'click at {x},{y}')
            self.shot(f'2-menu-{button}', opened)
            desktop.dismiss_menu(areas[0])
            self.settled('the menu closed', timeout=15)
            return f'{button} click: menu in {areas[0]}'
        for button in desktop.menu_buttons:
            tap.step(f'the menu opens on a {button} click',
                     lambda button=button: menu(button))

        def airplane_on():
            nonlocal box
            before = self.settled('calm before airplane mode', timeout=15)
            box = self.follow(before, radios_on, box, 'before airplane mode')
            item.click('Airplane mode')
            self.wait_radios(True, 'every radio soft-blocked')
            try:
                grab, box = self.new_icon(before, box, 'the airplane icon')
            except gt.TestFailure:
                self.shot('3-airplane-mode')
                raise
            self.shot('3-airplane-mode', grab)
            return 'every radio blocked; ' + self.icon_checks(grab, box, 'airplane-mode')
        tap.step('"Airplane mode" blocks every radio; icon legible', airplane_on)

        def airplane_off():
            nonlocal box
            item.click('Airplane mode')
            self.wait_radios(False, 'every radio unblocked')

            def back():
                return self.find(self.desktop.grab(), radios_on, box)
            try:
                box = gt.wait_for(back, 10, f'the radios-on icon back near {box}')
            finally:
                self.shot('4-airplane-off')
            return f'every radio unblocked; the radios-on icon back in {box}'
        tap.step('a second click restores the radios and the icon', airplane_off)

        def hardware_switch():
            nonlocal box
            notified = self.notify_monitor()
            calm = self.settled('calm before the switch', timeout=15)
            box = self.follow(calm, radios_on, box, 'before the switch')
            self.fake.set_hard_all(True)
            try:
                grab, popups = self.wait_popup(calm, 'a notification drawn',
                                               desktop.notification_timeout,
                                               twice=False)
            except gt.TestFailure:
                self.shot('5-hardware-switch')
                raise
            # The grab it was seen on: Plasma's popup may be gone by now.
            self.shot('5-hardware-switch', grab)
            calls = self.notify_calls(notified)
            owner = sessions.owner_command(self.bus, desktop.notification_service)
            gt.check(owner == desktop.notification_daemon,
                     f'notifications served by {owner!r}, not {desktop.notification_daemon!r}')
            # Title and body of one notification: the body names each radio.
            method = desktop.notification_method
            gt.check(any('Hardware switch: radios off' in c and 'Turned off: ' in c
                         and all(label in c for label in ('Wi-Fi', 'Bluetooth'))
                         for c in calls),
                     f'{owner} got no {method} with the title and a body naming the '
                     f'radios; calls: {calls}')
            self.switch_calm = calm
            return f'{owner} got {method} {calls[-1]!r} and drew it in {popups}'
        tap.step('a hardware-switch flip: notification drawn by the desktop\'s daemon',
                 hardware_switch)

        def hardware_switch_icon():
            nonlocal box
            calm = getattr(self, 'switch_calm', None)
            gt.check(calm is not None, 'no switch flip to look at')
            self.tray_clear(calm, self.row(box, calm))
            grab, box = self.new_icon(calm, box, 'the hardware-switch icon')
            self.shot('5-hardware-switch-icon', grab)
            self.switch_grab = grab
            return self.icon_checks(grab, box, 'hardware-switch')
        tap.step('hardware switch: icon legible', hardware_switch_icon)

        def no_radios():
            nonlocal box
            switched = getattr(self, 'switch_grab', None)
            gt.check(switched is not None, 'no hardware-switch icon to compare with')
            self.fake.set_hard_all(False)
            for radio in self.fake.state():
                self.fake.remove(radio['name'])
            gt.wait_for(lambda: item.props()['Status'] == 'Passive', 10,
                        'the item passive')
            self.settled('the tray with no radios', timeout=20)
            # Compared with the first grab, which had no popup at all.
            self.tray_clear(on, self.row(box, on))
            grab = self.calm_row(box, 'the tray row calm')
            self.shot('6-no-radios', grab)
            kind, found = self.look(switched, grab, box)
            gt.check(kind != 'same', f'the hardware-switch icon still drawn in {found}')
            if kind == 'gone':
                return ('item passive and not drawn: the panel hides (or dims away) '
                        'passive items')
            box = found
            # Drawn, perhaps dimmed as some panels dim passive items.
            return ('item passive and still drawn: '
                    + self.icon_checks(grab, box, 'no-radios', pixels.MIN_RATIO_DIMMED))
        tap.step('no radios: item passive, hidden or drawn legibly', no_radios)

    def tray_clear(self, calm, slot):
        """A grab once no notification covers the tray (MATE's does)
        compared with the calm grab from before it came."""
        def clear():
            grab = self.desktop.grab()
            covered = [b for b in self.popups(calm, grab) if overlap(b, slot)]
            return None if covered else grab
        gt.wait_for(clear, 30, 'the notification gone from the tray')
        return self.settled('the tray calm', region=slot, calm_for=0.5)

    def item_path(self, name):
        """The item's object path once the applet has published it."""
        xml = self.bus.call_sync(
            name, ITEM_PATH, 'org.freedesktop.DBus.Introspectable',
            'Introspect', None, gt.GLib.VariantType('(s)'),
            gt.Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        info = gt.Gio.DBusNodeInfo.new_for_xml(xml)
        found = any(i.name == gt.SNI_IFACE for i in info.interfaces)
        return ITEM_PATH if found else None

    def notify_monitor(self):
        path = os.path.join(self.outdir, 'notify-monitor.log')
        self.monitor = subprocess.Popen(
            ['dbus-monitor', '--session',
             f"type='method_call',interface='{self.desktop.notification_service}',"
             f"member='{self.desktop.notification_method}'"],
            stdout=open(path, 'w'), stderr=subprocess.STDOUT)
        gt.wait_for(lambda: os.path.getsize(path) > 0, 10, 'dbus-monitor')
        return path

    def notify_calls(self, path):
        def calls():
            with open(path) as f:
                text = f.read()
            found = []
            for block in text.split('method call')[1:]:
                # Notify: app, icon, summary, body first; AddNotification:
                # app id, id, then a{sv} whose strings are keys and values
                # (title, body and the rest).
                strings = re.findall(r'string "(.*)"$', block, re.MULTILINE)
                keep = 4 if self.desktop.notification_method == 'Notify' else 8
                found.append(' | '.join(strings[:keep]))
            return found
        return gt.wait_for(calls, 10, 'a Notify call')

    def stop(self):
        if getattr(self, 'monitor', None):
            gt.end_process(self.monitor, 2)
        if self.applet:
            self.applet.stop()
        if self.fake:
            self.fake.stop()
        self.desktop.stop()
        self.loop.stop()


def main():
    desktop, outdir = sys.argv[1], sys.argv[2]
    tap_out = os.fdopen(int(sys.argv[3]), 'w') if len(sys.argv) > 3 else sys.stdout
    scenario = Scenario(desktop, outdir, tap_out)
    try:
        scenario.run()
    except gt.TestFailure as failure:
        scenario.tap.result(False, f'{desktop}: scenario stopped', failure)
    finally:
        try:
            scenario.shot('9-last')
        except Exception as error:  # noqa: BLE001 - the grab is a courtesy
            print(f'# last screenshot failed: {error}', file=scenario.tap.out)
        scenario.stop()
    print(f'1..{scenario.tap.count}', file=scenario.tap.out, flush=True)
    sys.exit(1 if scenario.tap.failed or scenario.tap.count == 0 else 0)


if __name__ == '__main__':
    main()
