"""The desktops as the suite starts them, headless, on one session bus
(five on bookworm; GNOME Shell too on trixie).

Each Desktop starts its panel (the StatusNotifierItem host), its
notification daemon, and says how to grab the screen and click.  Facts
behind the settings are in TESTING.md ("Other desktops, headless"): the
environment each needs, the MATE button-images setting, the Cinnamon
watcher, the virtual pointer sway needs before anything can click.

What differs between the Debian releases the suite runs on (program
paths, names, environment) is in RELEASES, keyed by release; the classes
read it and hold no release of their own.
"""
import os
import subprocess
import sysconfig

import guitest as gt
import pixels

WIDTH, HEIGHT = 1024, 768

# The Debian multiarch triplet (x86_64-linux-gnu), for programs installed
# under /usr/lib/<triplet>/.
TRIPLET = sysconfig.get_config_var('MULTIARCH') or 'x86_64-linux-gnu'

# Per release, per desktop: what its session needs that differs between
# releases.  Checked in each release's tree (dpkg -L, and by running it).
RELEASES = {
    'bookworm': {
        # Plasma 5.27: kded5 provides the watcher.
        'plasma': {'kded': 'kded5', 'env': {'KDE_SESSION_VERSION': '5'}},
        'cinnamon': {'sn_watcher': '/usr/libexec/xapps/sn-watcher/xapp-sn-watcher',
                     'env': {}},
        'mate': {'notification_exec':
                 '/usr/lib/mate-notification-daemon/mate-notification-daemon'},
        'lxqt': {},
        'sway': {},
    },
    'trixie': {
        # Plasma 6.3: kded6 (its own package), and Plasma 6's session version.
        'plasma': {'kded': 'kded6', 'env': {'KDE_SESSION_VERSION': '6'}},
        # Cinnamon 6.4: muffin will not start unless the session says X11;
        # the watcher moved under the triplet's lib directory.
        'cinnamon': {'sn_watcher': f'/usr/lib/{TRIPLET}/xapps/xapp-sn-watcher',
                     'env': {'XDG_SESSION_TYPE': 'x11'}},
        # mate-notification-daemon moved to libexec.
        'mate': {'notification_exec':
                 '/usr/libexec/mate-notification-daemon/mate-notification-daemon'},
        'lxqt': {},
        'sway': {},
        # GNOME Shell 48 with gnome-shell-extension-appindicator 59: Debian
        # ships it under Ubuntu's UUID (metadata.json), as in bookworm, not
        # upstream's appindicatorsupport@rgcjonas.gmail.com.
        'gnome': {'extension': 'ubuntu-appindicators@ubuntu.com'},
    },
}


def release():
    """The tree's Debian release: RFK_DESKTOPS_RELEASE (run-desktops.sh
    sets it), which must be what /etc/os-release says."""
    wanted = os.environ.get('RFK_DESKTOPS_RELEASE', 'bookworm')
    with open('/etc/os-release') as f:
        fields = dict(line.rstrip('\n').split('=', 1) for line in f if '=' in line)
    actual = fields.get('VERSION_CODENAME', '').strip('"')
    gt.check(actual == wanted, f'the tree is {actual!r}, not {wanted!r}')
    gt.check(wanted in RELEASES, f'no desktop settings for release {wanted!r}')
    return wanted


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def bus_names(bus):
    return bus.call_sync(
        'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
        'ListNames', None, gt.GLib.VariantType('(as)'),
        gt.Gio.DBusCallFlags.NONE, -1, None).unpack()[0]


def owner_command(bus, name):
    """The command name (/proc/PID/comm) of the process owning a bus name."""
    pid = bus.call_sync(
        'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
        'GetConnectionUnixProcessID', gt.GLib.Variant('(s)', (name,)),
        gt.GLib.VariantType('(u)'), gt.Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
    with open(f'/proc/{pid}/comm') as f:
        return f.read().strip()


class Desktop:
    """A desktop session; subclasses fill in what differs."""
    name = ''
    # The process that draws this desktop's notifications (its comm).
    notification_daemon = ''
    # The service file that makes D-Bus start that daemon when the
    # session has several installed (None: the desktop owns the name).
    notification_exec = None
    # The clicks that open the item's menu, each a step of its own: the
    # right click everywhere, and the left click too: the item says
    # ItemIsMenu, and answers Activate (which the X11 panels here call on
    # a left click whatever ItemIsMenu says) by popping up its GTK menu.
    menu_buttons = ('left', 'right')
    # Seconds from a Notify to its popup on screen.
    notification_timeout = 20
    # The bus name and the call the desktop's notifications come by: the
    # freedesktop Notify everywhere but GNOME Shell, which also owns
    # org.gtk.Notifications, where GLib sends a GNotification then.
    notification_service = 'org.freedesktop.Notifications'
    notification_method = 'Notify'
    # Where the desktop draws status items (x0, y0, x1, y1), None: anywhere
    # (a panel with no clock).  New icons are looked for there only.
    tray_area = None
    gdk_backend = 'x11'

    def __init__(self, logdir, bus, release_name):
        self.logdir, self.bus = logdir, bus
        self.release = release_name
        # This desktop's release-dependent settings (RELEASES).
        gt.check(self.name in RELEASES[release_name],
                 f'no {self.name} in the {release_name} tree')
        self.per_release = RELEASES[release_name][self.name]
        self.procs = []
        self.env = dict(os.environ)

    def spawn(self, name, args, env=None):
        log = open(os.path.join(self.logdir, f'{name}.log'), 'w')
        proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env or self.env)
        self.procs.append((name, proc))
        return proc

    def alive(self):
        for name, proc in self.procs:
            gt.check(proc.poll() is None,
                     f'{name} exited with {proc.returncode}; see {name}.log')

    def wait_name(self, name, timeout=30):
        def owned():
            self.alive()
            return name in bus_names(self.bus)
        gt.wait_for(owned, timeout, f'{name} on the session bus')

    def use_notification_daemon(self):
        """A per-user service file wins over the system ones (which are
        several here: plasma, mate, lxqt, mako all ship one)."""
        if self.notification_exec is None:
            return
        data = os.environ['XDG_DATA_HOME']
        write(os.path.join(data, 'dbus-1/services/org.freedesktop.Notifications.service'),
              '[D-BUS Service]\nName=org.freedesktop.Notifications\n'
              f'Exec={self.notification_exec}\n')
        self.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                           'org.freedesktop.DBus', 'ReloadConfig', None, None,
                           gt.Gio.DBusCallFlags.NONE, -1, None)

    def start(self):
        raise NotImplementedError

    def grab(self):
        raise NotImplementedError

    def click(self, x, y, button):
        raise NotImplementedError

    def dismiss_menu(self, menu_box):
        """Closes an open menu as a user does: a click on the desktop far
        from the menu (Escape needs the keyboard focus the menu may lack)."""
        x = 40 if menu_box[0] > WIDTH // 2 else WIDTH - 40
        self.click(x, HEIGHT // 2, 'left')

    def stop(self):
        for _name, proc in reversed(self.procs):
            gt.end_process(proc, 3)


class X11Desktop(Desktop):
    def start_x(self):
        self.env['DISPLAY'] = os.environ['DISPLAY'] = ':5'
        self.spawn('Xvfb', ['Xvfb', ':5', '-screen', '0', f'{WIDTH}x{HEIGHT}x24',
                            '-nolisten', 'tcp'])
        gt.wait_for(lambda: subprocess.run(['xdotool', 'getdisplaygeometry'],
                                           capture_output=True, env=self.env).returncode == 0,
                    20, 'Xvfb')
        # D-Bus-started helpers (notification daemons) need the display.
        subprocess.run(['dbus-update-activation-environment', 'DISPLAY'], check=True)

    def grab(self):
        out = subprocess.run(['import', '-silent', '-window', 'root', 'png:-'],
                             capture_output=True, check=True, env=self.env).stdout
        return pixels.load_png(out)

    def click(self, x, y, button):
        code = {'left': 1, 'middle': 2, 'right': 3}[button]
        subprocess.run(['xdotool', 'mousemove', str(x), str(y), 'click', str(code)],
                       check=True, env=self.env)


class Plasma(X11Desktop):
    name = 'plasma'
    notification_daemon = 'plasmashell'
    # Its popup slides in, drawn by software Qt Quick.
    notification_timeout = 40

    def start(self):
        self.start_x()
        self.env.update(QT_QUICK_BACKEND='software', QT_XCB_GL_INTEGRATION='none',
                        LIBGL_ALWAYS_SOFTWARE='1', XDG_CURRENT_DESKTOP='KDE',
                        KDE_FULL_SESSION='true')
        self.env.update(self.per_release['env'])
        kded = self.per_release['kded']
        self.spawn(kded, [kded])
        self.wait_name('org.kde.StatusNotifierWatcher')
        self.spawn('plasmashell', ['plasmashell', '--no-respawn'])
        self.wait_name('org.freedesktop.Notifications', 60)


class Cinnamon(X11Desktop):
    name = 'cinnamon'
    notification_daemon = 'cinnamon'

    def start(self):
        self.start_x()
        self.env.update(XDG_CURRENT_DESKTOP='X-Cinnamon', LIBGL_ALWAYS_SOFTWARE='1')
        self.env.update(self.per_release['env'])
        self.spawn('cinnamon', ['cinnamon', '--replace'])
        self.spawn('xapp-sn-watcher', [self.per_release['sn_watcher']])
        self.wait_name('org.kde.StatusNotifierWatcher', 60)
        self.wait_name('org.freedesktop.Notifications', 60)


class Mate(X11Desktop):
    name = 'mate'
    notification_daemon = 'mate-notificati'   # comm keeps 15 characters

    @property
    def notification_exec(self):
        return self.per_release['notification_exec']

    def start(self):
        # Normally mate-settings-daemon's: without it the notification
        # area draws no icon at all.
        write(os.path.join(os.environ['XDG_CONFIG_HOME'], 'gtk-3.0/settings.ini'),
              '[Settings]\ngtk-button-images=true\n')
        self.start_x()
        self.env.update(XDG_CURRENT_DESKTOP='MATE')
        self.use_notification_daemon()
        self.spawn('mate-panel', ['mate-panel'])
        self.wait_name('org.kde.StatusNotifierWatcher', 60)


class Lxqt(X11Desktop):
    name = 'lxqt'
    notification_daemon = 'lxqt-notificati'
    notification_exec = '/usr/bin/lxqt-notificationd'

    def start(self):
        # The panel with the status notifier plugin (the watcher) and a
        # clock, which keeps the panel from shrinking to nothing.
        config = os.environ['XDG_CONFIG_HOME']
        write(os.path.join(config, 'lxqt/panel.conf'),
              '[General]\n__userfile__=true\n\n[panel1]\n'
              'plugins=statusnotifier, worldclock\nposition=Bottom\n\n'
              '[statusnotifier]\ntype=statusnotifier\n\n'
              '[worldclock]\ntype=worldclock\n')
        # What lxqt-session's settings would give (without them the panel
        # is transparent, its text black, and Qt looks in hicolor only):
        # the Breeze icon theme, and LXQt's "light" panel theme, as the
        # translucent dark ones are black without a compositor.
        write(os.path.join(config, 'lxqt/lxqt.conf'),
              '[General]\nicon_theme=breeze\ntheme=light\n')
        self.start_x()
        self.env.update(XDG_CURRENT_DESKTOP='LXQt')
        self.use_notification_daemon()
        self.spawn('lxqt-panel', ['lxqt-panel'])
        self.wait_name('org.kde.StatusNotifierWatcher', 60)


class Gnome(X11Desktop):
    """GNOME Shell 48 as an X11 compositor on Xvfb, its AppIndicator
    extension the watcher and host, the shell itself the notification
    server.  Facts in TESTING.md ("GNOME Shell 43 headless" and the
    trixie notes)."""
    name = 'gnome'
    notification_daemon = 'gnome-shell'
    notification_service = 'org.gtk.Notifications'
    notification_method = 'AddNotification'
    # Its banner slides down from the top bar, drawn by llvmpipe.
    notification_timeout = 40
    # The status area: the top bar right of the clock (centred, its digits
    # change every minute), where the extension puts its items.
    tray_area = (WIDTH * 5 // 8, 0, WIDTH - 1, 40)

    def start(self):
        # A stand-in system bus: gnome-shell dies at start without one.
        path = os.path.join(os.environ['XDG_RUNTIME_DIR'], 'system_bus_socket')
        self.system_bus = subprocess.Popen(
            ['dbus-daemon', '--session', '--nofork', '--print-address',
             '--address=unix:path=' + path],
            stdout=subprocess.PIPE, stderr=open(
                os.path.join(self.logdir, 'system-bus.log'), 'w'), text=True)
        address = self.system_bus.stdout.readline().strip()
        gt.check(address, 'the stand-in system bus did not start')
        self.env['DBUS_SYSTEM_BUS_ADDRESS'] = address
        # Settings before the shell starts (dconf, on the session bus): the
        # extension on, no welcome tour.
        uuid = self.per_release['extension']
        gt.check(os.path.isdir(f'/usr/share/gnome-shell/extensions/{uuid}'),
                 f'no extension {uuid} installed')
        for schema, key, value in (
                ('org.gnome.shell', 'enabled-extensions', f"['{uuid}']"),
                ('org.gnome.shell', 'disable-user-extensions', 'false'),
                ('org.gnome.shell', 'welcome-dialog-last-shown-version', "'999'")):
            subprocess.run(['gsettings', 'set', schema, key, value],
                           check=True, env=self.env)
        # The shell warns once per home, in a banner over where ours come,
        # that it cannot lock the screen without GDM; this home has seen it.
        write(os.path.join(os.environ['XDG_DATA_HOME'], 'gnome-shell/lock-warning-shown'), '')
        self.start_x()
        self.env.update(XDG_CURRENT_DESKTOP='GNOME', XDG_SESSION_TYPE='x11',
                        LIBGL_ALWAYS_SOFTWARE='1')
        self.spawn('gnome-shell', ['gnome-shell', '--x11', '--replace'])
        self.wait_name('org.kde.StatusNotifierWatcher', 90)
        self.wait_name(self.notification_service, 30)
        self.leave_overview()

    def overview_active(self):
        self.alive()
        return self.bus.call_sync(
            'org.gnome.Shell', '/org/gnome/Shell', 'org.freedesktop.DBus.Properties',
            'Get', gt.GLib.Variant('(ss)', ('org.gnome.Shell', 'OverviewActive')),
            gt.GLib.VariantType('(v)'), gt.Gio.DBusCallFlags.NONE, 5000,
            None).unpack()[0]

    def leave_overview(self):
        """GNOME starts in the overview; a user leaves it with a click on
        the Activities button (the shell's OverviewActive says when it is
        gone).  Escape, as xdotool sends it on Xvfb, did not reach the
        shell here (the overview stayed, in both tries), and the shell
        missed a click that was the first input it got (the overview
        stayed); the next click worked.  So the pointer comes first,
        and the click is repeated (as a user would) up to three times."""
        gt.wait_for(self.overview_active, 60, 'the shell in its overview')
        # The slide in over before any input.
        last = None

        def calm():
            nonlocal last
            now = self.grab()
            same = last is not None and not pixels.diff_points(now, last)
            last = now
            return same
        gt.wait_for(calm, 60, 'the overview calm')
        # The Activities button, left in the top bar.
        subprocess.run(['xdotool', 'mousemove', '30', '15'], check=True, env=self.env)
        for attempt in range(1, 4):
            self.click(30, 15, 'left')
            try:
                gt.wait_for(lambda: not self.overview_active(), 5,
                            'the overview left (Activities clicked)')
                gt.log(f'overview left on click {attempt} on Activities')
                return
            except gt.TestFailure:
                gt.log(f'click {attempt} on Activities: still in the overview')
        gt.check(False, 'three clicks on Activities did not leave the overview')

    def stop(self):
        super().stop()
        if getattr(self, 'system_bus', None):
            gt.end_process(self.system_bus, 3)


class Sway(Desktop):
    name = 'sway'
    notification_daemon = 'mako'
    notification_exec = '/usr/bin/mako'
    gdk_backend = 'wayland'

    def start(self):
        config = os.path.join(os.environ['XDG_CONFIG_HOME'], 'sway/config')
        # No bar of sway's own: waybar is the panel.  No wallpaper either
        # (swaybg is only a Recommends): an empty workspace makes Debian's
        # waybar style transparent, so the bar is as dark as it gets.
        write(config, f'output HEADLESS-1 mode {WIDTH}x{HEIGHT}\n')
        # A bar with the tray only, so no clock ticks in the screenshots.
        waybar = os.path.join(os.environ['XDG_CONFIG_HOME'], 'waybar')
        write(os.path.join(waybar, 'config'),
              '{ "layer": "top", "position": "top", "height": 30,\n'
              '  "modules-right": ["tray"], "tray": { "spacing": 10 } }\n')
        # Debian's style (a dark bar), but the tray on the bar itself:
        # Debian paints a blue patch behind the tray, which many users'
        # styles do not.  On the dark bar an icon waybar does not recolour
        # must carry its own light colour.
        write(os.path.join(waybar, 'style.css'),
              '@import url("/etc/xdg/waybar/style.css");\n'
              '#tray { background-color: transparent; }\n')
        self.env.update(WLR_BACKENDS='headless', WLR_LIBINPUT_NO_DEVICES='1',
                        WLR_RENDERER='pixman', WLR_HEADLESS_OUTPUTS='1',
                        XDG_CURRENT_DESKTOP='sway')
        self.env.pop('DISPLAY', None)
        sway = self.spawn('sway', ['sway', '-c', config])
        run = os.environ['XDG_RUNTIME_DIR']

        def socket():
            self.alive()
            names = [n for n in os.listdir(run) if n.startswith('wayland-')
                     and not n.endswith('.lock')]
            return names[0] if names else None
        display = gt.wait_for(socket, 20, "sway's Wayland socket")
        self.env['WAYLAND_DISPLAY'] = os.environ['WAYLAND_DISPLAY'] = display
        self.env['SWAYSOCK'] = os.environ['SWAYSOCK'] = os.path.join(
            run, f'sway-ipc.{os.getuid()}.{sway.pid}.sock')
        subprocess.run(['dbus-update-activation-environment', 'WAYLAND_DISPLAY'],
                       check=True)
        self.use_notification_daemon()
        self.spawn('waybar', ['waybar'])
        self.wait_name('org.kde.StatusNotifierWatcher', 30)
        self.pointer = subprocess.Popen(
            [gt.program('RFK_WL_POINTER')], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, env=self.env)
        gt.check(self.pointer.stdout.readline().strip() == 'ready',
                 'wl-pointer did not start')

    def grab(self):
        out = subprocess.run(['grim', '-t', 'png', '-l', '0', '-'],
                             capture_output=True, check=True, env=self.env).stdout
        return pixels.load_png(out)

    def click(self, x, y, button):
        self.pointer.stdin.write(f'click {x} {y} {WIDTH} {HEIGHT} {button}\n')
        self.pointer.stdin.flush()
        answer = self.pointer.stdout.readline().strip()
        gt.check(answer == 'ok', f'wl-pointer: {answer!r}')

    def stop(self):
        if getattr(self, 'pointer', None):
            self.pointer.stdin.close()
            gt.end_process(self.pointer, 3)
        super().stop()


DESKTOPS = {d.name: d for d in (Plasma, Cinnamon, Mate, Lxqt, Sway, Gnome)}
