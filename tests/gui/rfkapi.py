"""A client of the applet's session D-Bus API
(data/io.github.rfkill_applet.RfkillApplet.xml), for the gui tests.

Plain GDBus calls: what any client (gdbus, busctl, a settings app) sends.
"""
import threading

from gi.repository import Gio, GLib

import guitest as gt

APP_ID = gt.APP_ID
PATH = '/io/github/rfkill_applet/RfkillApplet'
IFACE = APP_ID
PROPS = 'org.freedesktop.DBus.Properties'
GSD_NAME = 'org.gnome.SettingsDaemon.Rfkill'
GSD_PATH = '/org/gnome/SettingsDaemon/Rfkill'


def error_name(error):
    """The D-Bus error name of a GLib.Error from a call."""
    return Gio.DBusError.get_remote_error(error)


class Api:
    """The API on one connection; records every PropertiesChanged."""

    def __init__(self, bus, name=APP_ID, path=PATH, iface=IFACE):
        self.bus, self.name, self.path, self.iface = bus, name, path, iface
        self.lock = threading.Lock()
        self.changes = []      # [{name: value}] in arrival order
        self.sub = bus.signal_subscribe(name, PROPS, 'PropertiesChanged', path,
                                        iface, Gio.DBusSignalFlags.NONE,
                                        self._on_changed)

    def _on_changed(self, conn, sender, path, iface, signal, params):
        _iface, changed, _invalidated = params.unpack()
        with self.lock:
            self.changes.append(changed)

    def changed(self):
        with self.lock:
            return list(self.changes)

    def clear(self):
        with self.lock:
            self.changes.clear()

    def call(self, method, params=None, reply=None, iface=None, timeout=15000):
        result = self.bus.call_sync(
            self.name, self.path, iface or self.iface, method, params,
            GLib.VariantType(reply) if reply else None,
            Gio.DBusCallFlags.NO_AUTO_START, timeout, None)
        return result.unpack() if result is not None else None

    def get(self, prop):
        return self.call('Get', GLib.Variant('(ss)', (self.iface, prop)),
                         '(v)', PROPS)[0]

    def get_all(self):
        return self.call('GetAll', GLib.Variant('(s)', (self.iface,)),
                         '(a{sv})', PROPS)[0]

    def set(self, prop, value):
        """value: a GLib.Variant."""
        self.call('Set', GLib.Variant('(ssv)', (self.iface, prop, value)),
                  None, PROPS)

    def introspect(self):
        xml = self.call('Introspect', None, '(s)',
                        'org.freedesktop.DBus.Introspectable')[0]
        node = Gio.DBusNodeInfo.new_for_xml(xml)
        return node.lookup_interface(self.iface)

    def expect_error(self, name, func, *args):
        """Runs func(*args); it must fail with D-Bus error name."""
        try:
            func(*args)
        except GLib.Error as error:
            gt.check(error_name(error) == name,
                     f'{func.__name__}{args}: {error_name(error)} '
                     f'({error.message}), not {name}')
            return error.message
        raise gt.TestFailure(f'{func.__name__}{args} succeeded; '
                             f'expected {name}')

    def close(self):
        self.bus.signal_unsubscribe(self.sub)


def new_connection():
    """Another client: its own connection to the session bus."""
    address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
    return Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
        Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


def interface_from_file(path, name):
    with open(path) as f:
        return Gio.DBusNodeInfo.new_for_xml(f.read()).lookup_interface(name)


def signature(interface):
    """{property: (type, access)} and {method: (in sig, out sig)}."""
    access = {Gio.DBusPropertyInfoFlags.READABLE: 'read',
              Gio.DBusPropertyInfoFlags.WRITABLE: 'write',
              Gio.DBusPropertyInfoFlags.READABLE |
              Gio.DBusPropertyInfoFlags.WRITABLE: 'readwrite'}
    props = {p.name: (p.signature, access[p.flags]) for p in interface.properties}
    methods = {m.name: (''.join(a.signature for a in m.in_args),
                        ''.join(a.signature for a in m.out_args))
               for m in interface.methods}
    return props, methods


def served_properties(api, names):
    """{property: (type, access)} as the running applet answers for each
    of names: the type of the value from Get (and the same from GetAll),
    and 'readwrite' if Set accepts the property's own value, else 'read'
    (or the error's name when Get fails)."""
    everything = api.bus.call_sync(
        api.name, api.path, PROPS, 'GetAll', GLib.Variant('(s)', (api.iface,)),
        GLib.VariantType('(a{sv})'), Gio.DBusCallFlags.NO_AUTO_START, 15000,
        None).get_child_value(0)
    all_types = {}
    for i in range(everything.n_children()):
        entry = everything.get_child_value(i)
        all_types[entry.get_child_value(0).get_string()] = \
            entry.get_child_value(1).get_variant().get_type_string()
    served = {}
    for name in names:
        try:
            value = api.bus.call_sync(
                api.name, api.path, PROPS, 'Get',
                GLib.Variant('(ss)', (api.iface, name)), GLib.VariantType('(v)'),
                Gio.DBusCallFlags.NO_AUTO_START, 15000, None
            ).get_child_value(0).get_variant()
        except GLib.Error as error:
            served[name] = ('Get: ' + str(error_name(error)), '')
            continue
        kind = value.get_type_string()
        if all_types.get(name) != kind:
            kind += f' (GetAll: {all_types.get(name)})'
        try:
            api.call('Set', GLib.Variant('(ssv)', (api.iface, name, value)), None, PROPS)
            access = 'readwrite'
        except GLib.Error:
            access = 'read'
        served[name] = (kind, access)
    return served


def start_applet(s, radio_label):
    """The applet in session s, its tray item and this API on it, once
    the device is ready and radio_label shows in the menu."""
    applet = s.start_applet()
    item = s.watcher.wait_item(applet.unique_name(s.bus))
    api = Api(s.bus)
    s.on_exit(api.close)
    gt.wait_for(lambda: api.get('DeviceState') == 'ready', 10, 'ready')
    gt.wait_for(lambda: item.find(radio_label).visible, 10, 'the radios in the menu')
    return applet, item, api
