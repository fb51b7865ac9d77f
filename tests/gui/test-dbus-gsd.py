"""gsd's rfkill name and interface (GSettings key serve-gnome-rfkill, off by
default): served only while nobody else owns org.gnome.SettingsDaemon.Rfkill,
given up to a program that asks to replace it, taken again when it is
free; the real gsd-rfkill (gnome-settings-daemon 43) publishes the same
interface, is left alone while it runs, and the applet takes over when
it ends.
ShouldShowAirplaneMode follows systemd-hostnamed's Chassis as gsd's does,
on a private system bus with a hostnamed stand-in."""
import os
import subprocess
import sys

from gi.repository import Gio, GLib

import guitest as gt
from guitest import check, wait_for, log
import fakekernel
import rfkapi
from rfkapi import Api

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'data')
GSD_RFKILL = '/usr/libexec/gsd-rfkill'
V = GLib.Variant

# Owns a name on the session bus (flags as given: 0 like gsd, 2 to
# replace) until stdin closes.
OWNER = r'''
import sys
from gi.repository import Gio, GLib
loop = GLib.MainLoop()
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
def acquired(conn, name):
    print("acquired", flush=True)
Gio.bus_own_name_on_connection(bus, sys.argv[1],
                               Gio.BusNameOwnerFlags(int(sys.argv[2])),
                               acquired, None)
GLib.io_add_watch(0, GLib.IO_HUP | GLib.IO_IN, lambda *a: loop.quit())
loop.run()
'''

# systemd-hostnamed's Chassis property (org.freedesktop.hostname1), the
# only part gsd reads, on the bus it is started on.
HOSTNAMED = r'''
import sys
from gi.repository import Gio, GLib
XML = """<node><interface name='org.freedesktop.hostname1'>
<property name='Chassis' type='s' access='read'/></interface></node>"""
bus = Gio.DBusConnection.new_for_address_sync(sys.argv[2],
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
    Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
bus.register_object("/org/freedesktop/hostname1",
                    Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], None,
                    lambda *a: GLib.Variant("s", sys.argv[1]), None)
Gio.bus_own_name_on_connection(bus, "org.freedesktop.hostname1", 0,
    lambda *a: print("ready", flush=True), None)
GLib.MainLoop().run()
'''


def gsettings(*args):
    subprocess.run(['gsettings'] + list(args), check=True)


def owner(bus, name):
    try:
        return bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                             'org.freedesktop.DBus', 'GetNameOwner',
                             GLib.Variant('(s)', (name,)), GLib.VariantType('(s)'),
                             Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
    except GLib.Error:
        return None


def serves_gsd_object(bus, unique):
    """Whether the process with unique name exports gsd's interface."""
    xml = bus.call_sync(unique, rfkapi.GSD_PATH, 'org.freedesktop.DBus.Introspectable',
                        'Introspect', None, GLib.VariantType('(s)'),
                        Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
    return Gio.DBusNodeInfo.new_for_xml(xml).lookup_interface(rfkapi.GSD_NAME) is not None


class Process:
    def __init__(self, args, logdir, name, env=None, want=None):
        self.log = open(os.path.join(logdir, f'{name}.log'), 'w')
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE if want else self.log,
                                     stderr=self.log, text=True, env=env)
        if want:
            line = self.proc.stdout.readline().strip()
            check(line == want, f'{name}: {line!r}')

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.terminate()
            self.proc.wait(5)
        self.log.close()


def owner_process(logdir, name, flags):
    return Process([sys.executable, '-c', OWNER, rfkapi.GSD_NAME, str(flags)],
                   logdir, name, want='acquired' if flags else None)


def test(logdir):
    check(os.access(GSD_RFKILL, os.X_OK),
          f'{GSD_RFKILL} missing: apt-get install gnome-settings-daemon')
    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    watcher = gt.Watcher(bus)
    fake = fakekernel.Fake(logdir, ['wlan', 'bluetooth', 'wwan'])

    # A private system bus whose hostnamed says "desktop", for the applet
    # and for gsd-rfkill alike.
    system_bus = subprocess.Popen(['dbus-daemon', '--session', '--nofork',
                                   '--print-address'], stdout=subprocess.PIPE,
                                  text=True)
    system_address = system_bus.stdout.readline().strip()
    hostnamed = Process([sys.executable, '-c', HOSTNAMED, 'desktop', system_address],
                        logdir, 'hostnamed', want='ready')
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=system_address)
    applet = gt.Applet(fake.socket, logdir, extra_env=env)
    api = Api(bus)
    others = []
    try:
        unique = applet.unique_name(bus)
        watcher.wait_item(unique)
        wait_for(lambda: api.get('DeviceState') == 'ready', 10, 'ready')
        wait_for(lambda: api.get('ShouldShowAirplaneMode') is False, 10,
                 'ShouldShowAirplaneMode false on a desktop chassis')

        # Off by default: the name stays free.
        check(owner(bus, rfkapi.GSD_NAME) is None, 'served with the key off')

        gsettings('set', gt.APP_ID, 'serve-gnome-rfkill', 'true')
        wait_for(lambda: owner(bus, rfkapi.GSD_NAME) == unique, 5, 'the applet owns it')
        gsd = Api(bus, rfkapi.GSD_NAME, rfkapi.GSD_PATH, rfkapi.GSD_NAME)
        served = rfkapi.signature(gsd.introspect())
        published = rfkapi.signature(rfkapi.interface_from_file(
            os.path.join(DATA, rfkapi.GSD_NAME + '.xml'), rfkapi.GSD_NAME))
        check(served == published, f'served {served} != {published}')
        # Same values as our interface's properties of the same names.
        ours = api.get_all()
        theirs = gsd.get_all()
        check(theirs == {k: ours[k] for k in theirs}, f'{theirs} vs {ours}')
        check(theirs['ShouldShowAirplaneMode'] is False, 'chassis ignored')

        # A gsd-style client switches airplane mode: the applet's airplane
        # mode (radios remembered), announced on gsd's path too.
        gsd.set('AirplaneMode', V('b', True))
        wait_for(lambda: all(r['soft'] for r in fake.state()), 5, 'all off')
        wait_for(lambda: any(c.get('AirplaneMode') is True for c in gsd.changed()),
                 5, 'PropertiesChanged on gsd\'s path')
        check(api.get('AirplaneMode') is True, 'our AirplaneMode')
        gsd.set('AirplaneMode', V('b', False))
        wait_for(lambda: not any(r['soft'] for r in fake.state()), 5, 'all on')
        gsd.set('BluetoothAirplaneMode', V('b', True))
        wait_for(lambda: fake.radio('hci0')['soft'], 5, 'Bluetooth off')
        wait_for(lambda: gsd.get('BluetoothAirplaneMode') is True, 5, 'bt prop')
        gsd.set('BluetoothAirplaneMode', V('b', False))
        wait_for(lambda: not fake.radio('hci0')['soft'], 5, 'Bluetooth on')

        # A program that asks to replace us gets the name; the applet
        # stops serving the object, and takes the name back once it is free.
        replacer = owner_process(logdir, 'replacer', 2)
        others.append(replacer)
        wait_for(lambda: owner(bus, rfkapi.GSD_NAME) not in (None, unique), 5,
                 'replaced')
        wait_for(lambda: not serves_gsd_object(bus, unique), 5, 'object withdrawn')
        replacer.stop()
        wait_for(lambda: owner(bus, rfkapi.GSD_NAME) == unique, 5, 'taken back')
        check(serves_gsd_object(bus, unique), 'object back')

        # The key off: the name is free again.
        gsettings('set', gt.APP_ID, 'serve-gnome-rfkill', 'false')
        wait_for(lambda: owner(bus, rfkapi.GSD_NAME) is None, 5, 'released')
        check(not serves_gsd_object(bus, unique), 'still serving with the key off')

        # The real gsd-rfkill (as in a GNOME session, started first) owns
        # it and publishes the same interface; with the key on the applet
        # leaves it alone, and takes the name when gsd-rfkill ends.
        gsd_rfkill = Process([GSD_RFKILL], logdir, 'gsd-rfkill', env=env)
        others.append(gsd_rfkill)
        wait_for(lambda: owner(bus, rfkapi.GSD_NAME) is not None, 15,
                 'gsd-rfkill owning its name')
        gsd_owner = owner(bus, rfkapi.GSD_NAME)
        real = Api(bus, rfkapi.GSD_NAME, rfkapi.GSD_PATH, rfkapi.GSD_NAME)
        wait_for(lambda: rfkapi.signature(real.introspect()) == published, 5,
                 f'gsd-rfkill publishing {published}')
        # Same chassis, same answer.
        wait_for(lambda: real.get('ShouldShowAirplaneMode') is False, 5,
                 'gsd-rfkill: ShouldShowAirplaneMode')
        log('gsd-rfkill:', real.get_all())
        gsettings('set', gt.APP_ID, 'serve-gnome-rfkill', 'true')
        GLib.usleep(int(500000 * gt.TIMEOUT_SCALE))
        check(owner(bus, rfkapi.GSD_NAME) == gsd_owner, 'taken from gsd-rfkill')
        check(not serves_gsd_object(bus, unique), 'serving beside gsd-rfkill')
        gsd_rfkill.stop()
        wait_for(lambda: owner(bus, rfkapi.GSD_NAME) == unique, 5,
                 'taken once gsd-rfkill ended')
        check(serves_gsd_object(bus, unique), 'the object with the name')
    finally:
        for p in others:
            p.stop()
        api.close()
        applet.stop()
        hostnamed.stop()
        system_bus.terminate()
        system_bus.wait(5)
        fake.stop()
        loop.stop()


if __name__ == '__main__':
    gt.run(test)
