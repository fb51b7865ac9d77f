"""A StatusNotifierItem whose icon no theme has: what a panel draws for an
icon name it cannot resolve (Plasma: nothing; LXQt: a "!" placeholder).
The applet's icon must never look like this."""
from guitest import GLib, Gio

ITEM_XML = '''
<node>
  <interface name="org.kde.StatusNotifierItem">
    <property name="Category" type="s" access="read"/>
    <property name="Id" type="s" access="read"/>
    <property name="Title" type="s" access="read"/>
    <property name="Status" type="s" access="read"/>
    <property name="IconName" type="s" access="read"/>
    <property name="IconThemePath" type="s" access="read"/>
    <property name="ItemIsMenu" type="b" access="read"/>
    <property name="Menu" type="o" access="read"/>
    <method name="Activate"><arg type="i"/><arg type="i"/></method>
    <method name="SecondaryActivate"><arg type="i"/><arg type="i"/></method>
    <method name="ContextMenu"><arg type="i"/><arg type="i"/></method>
    <method name="Scroll"><arg type="i"/><arg type="s"/></method>
    <signal name="NewIcon"/>
    <signal name="NewStatus"><arg type="s"/></signal>
  </interface>
</node>
'''
PATH = '/StatusNotifierItem'
MISSING_ICON = 'rfk-desktops-no-such-icon'


class MissingIconItem:
    """On its own connection, so closing it takes the item off the panel."""

    def __init__(self):
        address = Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None)
        self.bus = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
            | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        info = Gio.DBusNodeInfo.new_for_xml(ITEM_XML).interfaces[0]
        self.bus.register_object(PATH, info, self._on_call, self._on_get, None)
        self.bus.call_sync('org.kde.StatusNotifierWatcher', '/StatusNotifierWatcher',
                           'org.kde.StatusNotifierWatcher',
                           'RegisterStatusNotifierItem',
                           GLib.Variant('(s)', (self.bus.get_unique_name(),)),
                           None, Gio.DBusCallFlags.NONE, 5000, None)

    @staticmethod
    def _on_call(conn, sender, path, iface, method, params, invocation):
        invocation.return_value(None)

    @staticmethod
    def _on_get(conn, sender, path, iface, prop):
        values = {'Category': GLib.Variant('s', 'Hardware'),
                  'Id': GLib.Variant('s', 'rfk-desktops-probe'),
                  'Title': GLib.Variant('s', 'probe'),
                  'Status': GLib.Variant('s', 'Active'),
                  'IconName': GLib.Variant('s', MISSING_ICON),
                  'IconThemePath': GLib.Variant('s', ''),
                  'ItemIsMenu': GLib.Variant('b', False),
                  'Menu': GLib.Variant('o', '/NO_DBUSMENU')}
        return values.get(prop)

    def close(self):
        self.bus.close_sync(None)


