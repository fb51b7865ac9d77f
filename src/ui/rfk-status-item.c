/* rfk-status-item.c: the StatusNotifierItem on the bus (rfk-status-item.h). */
#include "config.h"

#include <unistd.h>

#include <libdbusmenu-glib/server.h>
#include <libdbusmenu-gtk/parser.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/gdkx.h>
#endif

#include "rfk-status-item.h"

#include "rfk-menu.h"

#define ITEM_IFACE "org.kde.StatusNotifierItem"
#define ITEM_PATH "/StatusNotifierItem"
#define MENU_PATH "/StatusNotifierItem/Menu"
#define WATCHER_NAME "org.kde.StatusNotifierWatcher"
#define WATCHER_PATH "/StatusNotifierWatcher"

/*
 * The KDE/freedesktop interface, plus what hosts that knew ayatana read:
 * IconAccessibleDesc (the icon's text for screen readers) and
 * XAyatanaSecondaryActivate (GNOME's AppIndicator extension middle-clicks
 * through it when it is there).
 */
static const char item_xml[] =
  "<node><interface name='" ITEM_IFACE "'>"
  " <property name='Category' type='s' access='read'/>"
  " <property name='Id' type='s' access='read'/>"
  " <property name='Title' type='s' access='read'/>"
  " <property name='Status' type='s' access='read'/>"
  " <property name='WindowId' type='i' access='read'/>"
  " <property name='IconName' type='s' access='read'/>"
  " <property name='IconThemePath' type='s' access='read'/>"
  " <property name='IconPixmap' type='a(iiay)' access='read'/>"
  " <property name='IconAccessibleDesc' type='s' access='read'/>"
  " <property name='OverlayIconName' type='s' access='read'/>"
  " <property name='OverlayIconPixmap' type='a(iiay)' access='read'/>"
  " <property name='AttentionIconName' type='s' access='read'/>"
  " <property name='AttentionIconPixmap' type='a(iiay)' access='read'/>"
  " <property name='AttentionMovieName' type='s' access='read'/>"
  " <property name='ToolTip' type='(sa(iiay)ss)' access='read'/>"
  " <property name='ItemIsMenu' type='b' access='read'/>"
  " <property name='Menu' type='o' access='read'/>"
  " <method name='ContextMenu'><arg type='i' direction='in'/>"
  "  <arg type='i' direction='in'/></method>"
  " <method name='Activate'><arg type='i' direction='in'/>"
  "  <arg type='i' direction='in'/></method>"
  " <method name='SecondaryActivate'><arg type='i' direction='in'/>"
  "  <arg type='i' direction='in'/></method>"
  " <method name='XAyatanaSecondaryActivate'>"
  "  <arg type='u' direction='in'/></method>"
  " <method name='Scroll'><arg type='i' direction='in'/>"
  "  <arg type='s' direction='in'/></method>"
  " <signal name='NewTitle'/>"
  " <signal name='NewIcon'/>"
  " <signal name='NewAttentionIcon'/>"
  " <signal name='NewOverlayIcon'/>"
  " <signal name='NewToolTip'/>"
  " <signal name='NewStatus'><arg type='s'/></signal>"
  "</interface></node>";

struct _RfkStatusItem
{
  GObject parent_instance;

  GDBusConnection *bus;       /* owned; NULL without a session bus */
  GDBusNodeInfo *info;
  guint object_id;
  guint own_id;
  guint watch_id;
  GCancellable *cancellable;  /* the pending registration */
  gboolean registered;
  gboolean menu_exported;     /* the dbusmenu has its root */

  GtkMenu *menu;              /* owned */
  GtkWidget *secondary;       /* owned, may be NULL */
  DbusmenuServer *menu_server;

  char *id;
  char *title;
  char *icon_name;
  char *description;
  char *theme_path;
  gboolean active;
};

enum { PROP_0, PROP_REGISTERED, N_PROPS };
static GParamSpec *props[N_PROPS];

G_DEFINE_FINAL_TYPE (RfkStatusItem, rfk_status_item, G_TYPE_OBJECT)

static void
emit (RfkStatusItem *self, const char *signal, GVariant *args)
{
  if (self->bus == NULL || self->object_id == 0)
    return;
  g_dbus_connection_emit_signal (self->bus, NULL, ITEM_PATH, ITEM_IFACE,
                                 signal, args, NULL);
}

static GVariant *
no_pixmaps (void)
{
  return g_variant_new_array (G_VARIANT_TYPE ("(iiay)"), NULL, 0);
}

static GVariant *
tooltip (RfkStatusItem *self)
{
  return g_variant_new ("(s@a(iiay)ss)", "", no_pixmaps (), self->title,
                        self->description);
}

static GVariant *
get_property (GDBusConnection *bus, const char *sender, const char *path,
              const char *iface, const char *name, GError **error,
              gpointer user_data)
{
  RfkStatusItem *self = user_data;

  if (g_str_equal (name, "Category"))
    return g_variant_new_string ("Hardware");
  if (g_str_equal (name, "Id"))
    return g_variant_new_string (self->id);
  if (g_str_equal (name, "Title"))
    return g_variant_new_string (self->title);
  if (g_str_equal (name, "Status"))
    return g_variant_new_string (self->active ? "Active" : "Passive");
  if (g_str_equal (name, "WindowId"))
    return g_variant_new_int32 (0);
  if (g_str_equal (name, "IconName"))
    return g_variant_new_string (self->icon_name);
  if (g_str_equal (name, "IconThemePath"))
    return g_variant_new_string (self->theme_path);
  if (g_str_equal (name, "IconAccessibleDesc"))
    return g_variant_new_string (self->description);
  if (g_str_has_suffix (name, "Pixmap"))
    return no_pixmaps ();
  if (g_str_has_suffix (name, "Name"))
    return g_variant_new_string ("");  /* overlay, attention, movie */
  if (g_str_equal (name, "ToolTip"))
    return tooltip (self);
  if (g_str_equal (name, "ItemIsMenu"))
    return g_variant_new_boolean (TRUE);
  if (g_str_equal (name, "Menu"))
    return g_variant_new_object_path (MENU_PATH);
  g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY,
               "No property %s", name);
  return NULL;
}

/*
 * For hosts that call Activate or ContextMenu instead of drawing the
 * dbusmenu: the GTK menu, at the pointer (where the click was).  The old
 * call, because the new ones want a trigger event and a D-Bus call has
 * none.  X11 only: on Wayland a popup needs a parent surface of ours, so
 * the call fails there and the host draws the dbusmenu itself.
 */
static gboolean
pop_up (RfkStatusItem *self)
{
#ifdef GDK_WINDOWING_X11
  if (GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    {
      G_GNUC_BEGIN_IGNORE_DEPRECATIONS
      gtk_menu_popup (self->menu, NULL, NULL, NULL, NULL, 0,
                      gtk_get_current_event_time ());
      G_GNUC_END_IGNORE_DEPRECATIONS
      return TRUE;
    }
#endif
  return FALSE;
}

/* The middle click, as the host's button: the item acts like a click on
 * it. */
static void
activate_secondary (RfkStatusItem *self)
{
  rfk_menu_middle_click (self->secondary);
}

static void
method_call (GDBusConnection *bus, const char *sender, const char *path,
             const char *iface, const char *method, GVariant *params,
             GDBusMethodInvocation *invocation, gpointer user_data)
{
  RfkStatusItem *self = user_data;

  if (g_str_equal (method, "Activate") || g_str_equal (method, "ContextMenu"))
    {
      if (!pop_up (self))
        {
          g_dbus_method_invocation_return_error_literal (
            invocation, G_DBUS_ERROR, G_DBUS_ERROR_NOT_SUPPORTED,
            "The menu is the item's Menu");
          return;
        }
    }
  else if (g_str_has_suffix (method, "SecondaryActivate"))
    activate_secondary (self);
  /* Scroll: nothing to scroll through. */
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static const GDBusInterfaceVTable vtable = { method_call, get_property, NULL,
                                             { 0 } };

/* Also told when it stays FALSE: a watcher that vanished or refused the
 * item says the tray is known absent (not just "not yet"). */
static void
set_registered (RfkStatusItem *self, gboolean registered)
{
  if (self->registered && registered)
    return;
  self->registered = registered;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REGISTERED]);
}

static void
on_registered (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (RfkStatusItem) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result,
                                         &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->cancellable);
  if (reply == NULL)
    {
      g_message ("The tray did not take the icon: %s", error->message);
      set_registered (self, FALSE);
      return;
    }
  set_registered (self, TRUE);
}

/*
 * The dbusmenu's items, mirroring the GtkMenu (the same exporter ayatana
 * uses: kept in step with the GtkMenu from then on, activated from the
 * server's zero-length timeout).  Built once a watcher is there, right
 * after the item asked it to register: no host can read the menu before
 * the watcher has the item, and the host's first GetLayout is dispatched
 * from the main loop, after this.  Until then (and for good when only an
 * XEmbed tray shows the icon) the GtkMenu alone is enough, and the item
 * reaches the watcher without building it first.
 */
static void
export_menu (RfkStatusItem *self)
{
  DbusmenuMenuitem *root;

  if (self->menu_exported || self->menu_server == NULL)
    return;
  self->menu_exported = TRUE;
  root = dbusmenu_gtk_parse_menu_structure (GTK_WIDGET (self->menu));
  dbusmenu_server_set_root (self->menu_server, root);
  g_object_unref (root);
}

/* The object path, not a bus name: every watcher takes the sender's
 * unique name with it (as for ayatana's items, which pass their path). */
static void
on_watcher_appeared (GDBusConnection *bus, const char *name,
                     const char *owner, gpointer user_data)
{
  RfkStatusItem *self = user_data;

  g_cancellable_cancel (self->cancellable);
  g_set_object (&self->cancellable, g_cancellable_new ());
  g_dbus_connection_call (bus, WATCHER_NAME, WATCHER_PATH, WATCHER_NAME,
                          "RegisterStatusNotifierItem",
                          g_variant_new ("(s)", ITEM_PATH), NULL,
                          G_DBUS_CALL_FLAGS_NONE, -1, self->cancellable,
                          on_registered, g_object_ref (self));
  export_menu (self);
}

static void
on_watcher_vanished (GDBusConnection *bus, const char *name,
                     gpointer user_data)
{
  RfkStatusItem *self = user_data;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  set_registered (self, FALSE);
}

static void
export (RfkStatusItem *self)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;

  self->bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  if (self->bus == NULL)
    {
      g_message ("No tray icon without a session bus: %s", error->message);
      return;
    }
  self->info = g_dbus_node_info_new_for_xml (item_xml, NULL);
  self->object_id = g_dbus_connection_register_object (
    self->bus, ITEM_PATH, self->info->interfaces[0], &vtable, self, NULL,
    &error);
  if (self->object_id == 0)
    {
      g_message ("Cannot publish the tray icon: %s", error->message);
      return;
    }
  /* Its items come when a watcher does (export_menu). */
  self->menu_server = dbusmenu_server_new (MENU_PATH);

  /* The name the specification suggests; hosts find us by the unique
   * name and path given at registration, so failing to own it is no
   * loss. */
  name = g_strdup_printf ("org.kde.StatusNotifierItem-%d-1", (int) getpid ());
  self->own_id = g_bus_own_name_on_connection (
    self->bus, name, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE, NULL, NULL, NULL,
    NULL);
  self->watch_id = g_bus_watch_name_on_connection (
    self->bus, WATCHER_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
    on_watcher_appeared, on_watcher_vanished, self, NULL);
}

void
rfk_status_item_set_icon_theme_path (RfkStatusItem *self, const char *path)
{
  g_return_if_fail (RFK_IS_STATUS_ITEM (self));

  g_free (self->theme_path);
  self->theme_path = g_strdup (path != NULL ? path : "");
  /* Read with the icon: hosts reload both on NewIcon. */
  emit (self, "NewIcon", NULL);
}

void
rfk_status_item_set_icon (RfkStatusItem *self, const char *name,
                          const char *description)
{
  g_return_if_fail (RFK_IS_STATUS_ITEM (self));

  g_free (self->icon_name);
  self->icon_name = g_strdup (name != NULL ? name : "");
  g_free (self->description);
  self->description = g_strdup (description != NULL ? description : "");
  emit (self, "NewIcon", NULL);
  emit (self, "NewToolTip", NULL);
}

void
rfk_status_item_set_active (RfkStatusItem *self, gboolean active)
{
  g_return_if_fail (RFK_IS_STATUS_ITEM (self));

  active = !!active;
  if (self->active == active)
    return;
  self->active = active;
  emit (self, "NewStatus",
        g_variant_new ("(s)", active ? "Active" : "Passive"));
}

gboolean
rfk_status_item_get_registered (RfkStatusItem *self)
{
  g_return_val_if_fail (RFK_IS_STATUS_ITEM (self), FALSE);
  return self->registered;
}

static void
rfk_status_item_get_gproperty (GObject *object, guint prop_id, GValue *value,
                               GParamSpec *pspec)
{
  RfkStatusItem *self = RFK_STATUS_ITEM (object);

  switch (prop_id)
    {
    case PROP_REGISTERED:
      g_value_set_boolean (value, self->registered);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rfk_status_item_dispose (GObject *object)
{
  RfkStatusItem *self = RFK_STATUS_ITEM (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->watch_id, g_bus_unwatch_name);
  g_clear_handle_id (&self->own_id, g_bus_unown_name);
  if (self->object_id != 0)
    g_dbus_connection_unregister_object (self->bus, self->object_id);
  self->object_id = 0;
  g_clear_object (&self->menu_server);
  g_clear_pointer (&self->info, g_dbus_node_info_unref);
  g_clear_object (&self->bus);
  g_clear_object (&self->secondary);
  g_clear_object (&self->menu);
  G_OBJECT_CLASS (rfk_status_item_parent_class)->dispose (object);
}

static void
rfk_status_item_finalize (GObject *object)
{
  RfkStatusItem *self = RFK_STATUS_ITEM (object);

  g_free (self->id);
  g_free (self->title);
  g_free (self->icon_name);
  g_free (self->description);
  g_free (self->theme_path);
  G_OBJECT_CLASS (rfk_status_item_parent_class)->finalize (object);
}

static void
rfk_status_item_class_init (RfkStatusItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = rfk_status_item_get_gproperty;
  object_class->dispose = rfk_status_item_dispose;
  object_class->finalize = rfk_status_item_finalize;
  props[PROP_REGISTERED] =
    g_param_spec_boolean ("registered", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
rfk_status_item_init (RfkStatusItem *self)
{
  self->icon_name = g_strdup ("");
  self->description = g_strdup ("");
  self->theme_path = g_strdup ("");
}

RfkStatusItem *
rfk_status_item_new (const char *id, const char *title, GtkMenu *menu,
                     GtkWidget *secondary)
{
  RfkStatusItem *self;

  g_return_val_if_fail (id != NULL && GTK_IS_MENU (menu), NULL);
  self = g_object_new (RFK_TYPE_STATUS_ITEM, NULL);
  self->id = g_strdup (id);
  self->title = g_strdup (title != NULL ? title : "");
  self->menu = g_object_ref (menu);
  self->secondary = secondary != NULL ? g_object_ref (secondary) : NULL;
  export (self);
  return self;
}
