"""What the anchor programs expect to find on the system bus.

The bench gives every program it measures the same private "system" bus
(a dbus-daemon of our own, as DBUS_SYSTEM_BUS_ADDRESS), so that nothing
reaches the host's daemons.  nm-applet is content with a bus without
NetworkManager on it (it shows "disconnected").  blueman-applet only
launches its tray item once org.bluez has an owner, so we own that name
with the smallest part of BlueZ's D-Bus API blueman calls at startup
(doc/org.bluez.AgentManager.rst and the standard ObjectManager): no
adapters, an agent manager that accepts registrations.
"""
import os
import subprocess

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

BLUEZ_XML = '''
<node>
  <interface name="org.freedesktop.DBus.ObjectManager">
    <method name="GetManagedObjects">
      <arg name="objects" type="a{oa{sa{sv}}}" direction="out"/>
    </method>
    <signal name="InterfacesAdded">
      <arg type="o"/><arg type="a{sa{sv}}"/>
    </signal>
    <signal name="InterfacesRemoved">
      <arg type="o"/><arg type="as"/>
    </signal>
  </interface>
</node>
'''

AGENT_MANAGER_XML = '''
<node>
  <interface name="org.bluez.AgentManager1">
    <method name="RegisterAgent">
      <arg name="agent" type="o" direction="in"/>
      <arg name="capability" type="s" direction="in"/>
    </method>
    <method name="UnregisterAgent">
      <arg name="agent" type="o" direction="in"/>
    </method>
    <method name="RequestDefaultAgent">
      <arg name="agent" type="o" direction="in"/>
    </method>
  </interface>
</node>
'''


class SystemBus:
    """A private dbus-daemon used as the system bus of the measured programs."""

    def __init__(self, rundir):
        self.proc = subprocess.Popen(
            ['dbus-daemon', '--session', '--nofork', '--print-address',
             '--address', 'unix:dir=' + rundir],
            stdout=subprocess.PIPE, text=True)
        self.address = self.proc.stdout.readline().strip()
        if not self.address:
            raise RuntimeError('the private system bus did not start')
        self.conn = Gio.DBusConnection.new_for_address_sync(
            self.address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)

    def stop(self):
        self.conn.close_sync(None)
        self.proc.terminate()
        self.proc.wait(5)
        self.proc.stdout.close()


class BluezStandin:
    """Owns org.bluez on the given bus: no adapters, agents accepted."""

    def __init__(self, conn):
        self.conn = conn
        self.agents = []
        om = Gio.DBusNodeInfo.new_for_xml(BLUEZ_XML).interfaces[0]
        am = Gio.DBusNodeInfo.new_for_xml(AGENT_MANAGER_XML).interfaces[0]
        self.ids = [conn.register_object('/', om, self._on_call, None, None),
                    conn.register_object('/org/bluez', am, self._on_call, None, None)]
        reply = conn.call_sync(
            'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'RequestName', GLib.Variant('(su)', ('org.bluez', 4)),
            GLib.VariantType('(u)'), Gio.DBusCallFlags.NONE, -1, None)
        if reply.unpack()[0] != 1:
            raise RuntimeError('cannot own org.bluez on the private bus')

    def _on_call(self, conn, sender, path, iface, method, params, invocation):
        if method == 'GetManagedObjects':
            invocation.return_value(GLib.Variant('(a{oa{sa{sv}}})', ({},)))
        elif method in ('RegisterAgent', 'UnregisterAgent', 'RequestDefaultAgent'):
            self.agents.append((method, params.unpack()[0]))
            invocation.return_value(None)
        else:
            invocation.return_dbus_error('org.freedesktop.DBus.Error.UnknownMethod',
                                         method)


def system_bus_env(bus):
    return {'DBUS_SYSTEM_BUS_ADDRESS': bus.address}


def have(program):
    return any(os.access(os.path.join(d, program), os.X_OK)
               for d in os.environ.get('PATH', '/usr/bin').split(':') if d)
