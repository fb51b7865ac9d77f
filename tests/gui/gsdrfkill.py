"""gnome-settings-daemon's rfkill plugin for the GUI tests.

Gsd runs the real /usr/libexec/gsd-rfkill on the fake kernel through
rfkill-preload.so (RFK_RFKILL_PRELOAD) and reads back what it wrote there
from the shim's log.  SessionManager stands in for gnome-session: gsd
registers with it, and takes the rfkill-input inhibitor (NOINPUT) only
while it says the session is active.
"""
import os
import subprocess

from gi.repository import Gio, GLib

from guitest import check, end_process, wait_for

GSD = '/usr/libexec/gsd-rfkill'
GSD_NAME = 'org.gnome.SettingsDaemon.Rfkill'
GSD_PATH = '/org/gnome/SettingsDaemon/Rfkill'
# linux/rfkill.h
OP_CHANGE_ALL = 3
TYPE_ALL = 0


class Gsd:
    """gsd-rfkill on the fake kernel, and what it wrote there."""

    def __init__(self, bus, fake, logdir):
        preload = os.environ.get('RFK_RFKILL_PRELOAD', '')
        check(os.path.exists(GSD), 'missing test tools: apt-get install '
              'gnome-settings-daemon')
        check(os.path.exists(preload), f'RFK_RFKILL_PRELOAD={preload!r} is not built')
        self.bus = bus
        self.trace = os.path.join(logdir, 'gsd-rfkill.trace')
        env = dict(os.environ, LD_PRELOAD=preload, RFK_RFKILL_SOCKET=fake.socket,
                   RFK_RFKILL_LOG=self.trace, G_MESSAGES_DEBUG='all')
        self.log = open(os.path.join(logdir, 'gsd-rfkill.log'), 'w')
        self.proc = subprocess.Popen([GSD], env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)

    def alive(self):
        if self.proc.poll() is not None:
            self.log.flush()
            with open(self.log.name) as f:
                last = [line for line in f.read().splitlines() if line.strip()][-1:]
            check(False, f'gsd-rfkill exited with {self.proc.returncode}: {last}')

    def get(self, prop):
        self.alive()
        reply = self.bus.call_sync(
            GSD_NAME, GSD_PATH, 'org.freedesktop.DBus.Properties', 'Get',
            GLib.Variant('(ss)', (GSD_NAME, prop)), GLib.VariantType('(v)'),
            Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]

    def set_airplane(self, on):
        """What the Quick Settings toggle does."""
        self.bus.call_sync(
            GSD_NAME, GSD_PATH, 'org.freedesktop.DBus.Properties', 'Set',
            GLib.Variant('(ssv)', (GSD_NAME, 'AirplaneMode', GLib.Variant('b', on))),
            None, Gio.DBusCallFlags.NONE, 5000, None)

    def trace_lines(self):
        if not os.path.exists(self.trace):
            return []
        with open(self.trace) as f:
            return f.read().splitlines()

    def writes(self):
        """[(type, op, soft)] gsd wrote to the device so far."""
        out = []
        for line in self.trace_lines():
            if line.startswith('write '):
                fields = dict(f.split('=') for f in line.split()[1:])
                out.append((int(fields['type']), int(fields['op']), int(fields['soft'])))
        return out

    def stop(self):
        end_process(self.proc)
        self.log.close()


class SessionManager:
    """gnome-session as gsd sees it: RegisterClient, SessionIsActive."""

    def __init__(self, bus, logdir):
        self.log = open(os.path.join(logdir, 'session-manager.log'), 'w')
        self.proc = subprocess.Popen(
            ['/usr/bin/python3', '-m', 'dbusmock', '--session',
             'org.gnome.SessionManager', '/org/gnome/SessionManager',
             'org.gnome.SessionManager'], stdout=self.log, stderr=subprocess.STDOUT)
        wait_for(lambda: bus.call_sync(
            'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'NameHasOwner', GLib.Variant('(s)', ('org.gnome.SessionManager',)),
            GLib.VariantType('(b)'), Gio.DBusCallFlags.NONE, -1, None).unpack()[0],
            10, 'the session manager stand-in')
        mock = ('org.gnome.SessionManager', '/org/gnome/SessionManager',
                'org.freedesktop.DBus.Mock')
        bus.call_sync(*mock, 'AddProperty', GLib.Variant(
            '(ssv)', ('org.gnome.SessionManager', 'SessionIsActive',
                      GLib.Variant('b', True))),
            None, Gio.DBusCallFlags.NONE, 5000, None)
        bus.call_sync(*mock, 'AddMethod', GLib.Variant(
            '(sssss)', ('org.gnome.SessionManager', 'RegisterClient', 'ss', 'o',
                        'ret = "/org/gnome/SessionManager/Client1"')),
            None, Gio.DBusCallFlags.NONE, 5000, None)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(5)
        self.log.close()
