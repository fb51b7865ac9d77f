/* rfk-tray-item.c: the tray icon and its state. */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-hardware-airplane.h"
#include "rfk-icon-theme.h"
#include "rfk-tray-item.h"
#include "rfk-status-item.h"
#include "rfk-xembed-icon.h"

/* Per state: the accessible description; the icons are rfk-icon-theme's.
 * RFK_ICON_NO_SUPPORT stands for several states of the model, each
 * described by its own line below. */
static const char *const descriptions[RFK_ICON_COUNT] = {
  [RFK_ICON_RADIOS_ON] = N_("Radios are on"),
  [RFK_ICON_AIRPLANE_MODE] = N_("Airplane mode is on"),
  [RFK_ICON_HARDWARE_SWITCH] = N_("A hardware switch turned radios off"),
  [RFK_ICON_NO_SUPPORT] = NULL,
};

struct _RfkTrayItem
{
  GObject parent_instance;

  RfkManager *manager;      /* owned */
  RfkMenu *menu;            /* owned */
  RfkStatusItem *item;      /* owned */
  RfkXembedIcon *xembed;    /* owned, while no watcher has the item */
  char *icon_name;          /* what the item shows now */
  char *icon_description;
  gboolean shown_active;
};

G_DEFINE_FINAL_TYPE (RfkTrayItem, rfk_tray_item, G_TYPE_OBJECT)

RfkIconState
rfk_tray_item_state_for (RfkManager *manager, RfkUdevNames *names)
{
  GPtrArray *devices = rfk_manager_get_devices (manager);

  if (rfk_manager_get_state (manager) != RFK_MANAGER_STATE_READY ||
      devices == NULL || devices->len == 0)
    return RFK_ICON_NO_SUPPORT;
  /* A switch outranks airplane mode: software cannot undo it. */
  if (rfk_switch_holds_airplane_mode (manager,
                                      names != NULL
                                        ? rfk_udev_names_is_platform_switch
                                        : NULL,
                                      names))
    return RFK_ICON_HARDWARE_SWITCH;
  if (rfk_manager_get_airplane_mode (manager))
    return RFK_ICON_AIRPLANE_MODE;
  return RFK_ICON_RADIOS_ON;
}

const char *
rfk_tray_item_icon_description (RfkManager *manager, RfkIconState state)
{
  g_return_val_if_fail (state < RFK_ICON_COUNT, NULL);
  if (descriptions[state] != NULL)
    return _(descriptions[state]);
  /* The no-radios icon: the menu's status line, so a screen reader hears
   * from the icon what a sighted user reads there. */
  return rfk_manager_state_describe (rfk_manager_get_state (manager));
}

gboolean
rfk_tray_item_active_for (RfkManager *manager)
{
  GPtrArray *devices = rfk_manager_get_devices (manager);

  switch (rfk_manager_get_state (manager))
    {
    case RFK_MANAGER_STATE_READY:
      return devices != NULL && devices->len > 0;
    case RFK_MANAGER_STATE_STARTING:
    case RFK_MANAGER_STATE_NO_DEVICE:
      /* No /dev/rfkill: a kernel without radios (a VM, a desktop). */
      return FALSE;
    case RFK_MANAGER_STATE_NO_PERMISSION:
    case RFK_MANAGER_STATE_FAILED:
    default:
      /* Radios may be there; the menu says what went wrong. */
      return TRUE;
    }
}

/* Passive like gsd's ShouldShowAirplaneMode: with nothing to switch, the
 * panel hides the icon; it comes back with the first radio. */
static void
update_status (RfkTrayItem *self)
{
  gboolean active = rfk_tray_item_active_for (self->manager);

  if (active == self->shown_active)
    return;
  self->shown_active = active;
  rfk_status_item_set_active (self->item, active);
}

/*
 * Every set_icon() is a NewIcon on the bus, and whatever the panel
 * does with it (reload, redraw), even when name and description are the
 * ones it has.  So the icon is set only when one of them really changed:
 * a new state or another language.
 */
static void
update_icon (RfkTrayItem *self)
{
  RfkIconState state = rfk_tray_item_state_for (self->manager,
                                                rfk_menu_get_names (self->menu));
  const char *name = rfk_icon_name (state);
  const char *description = rfk_tray_item_icon_description (self->manager,
                                                           state);

  update_status (self);
  if (g_strcmp0 (name, self->icon_name) == 0
      && g_strcmp0 (description, self->icon_description) == 0)
    return;
  g_free (self->icon_name);
  self->icon_name = g_strdup (name);
  g_free (self->icon_description);
  self->icon_description = g_strdup (description);
  rfk_status_item_set_icon (self->item, name, description);
  if (self->xembed != NULL)
    rfk_xembed_icon_set_icon (self->xembed, name, description);
}

/* No watcher has the item (none on the bus, or it vanished): an XEmbed
 * tray may still show an icon; a watcher that comes back takes over. */
static void
on_registered (RfkTrayItem *self)
{
  if (rfk_status_item_get_registered (self->item))
    {
      g_clear_object (&self->xembed);
      return;
    }
  if (self->xembed != NULL)
    return;
  self->xembed = rfk_xembed_icon_new (_("Airplane Mode"),
                                      rfk_menu_get_menu (self->menu),
                                      rfk_menu_get_airplane_item (self->menu));
  rfk_xembed_icon_set_icon (self->xembed, self->icon_name,
                            self->icon_description);
}

/* The menu has caught up with the model; so does the icon, in the same
 * main-loop turn.  Following the menu's syncs instead of the model's
 * signals keeps an event storm from becoming a storm of NewIcon. */
static void
on_menu_synced (RfkTrayItem *self)
{
  update_icon (self);
}

static void
rfk_tray_item_dispose (GObject *object)
{
  RfkTrayItem *self = RFK_TRAY_ITEM (object);

  if (self->item != NULL)
    g_signal_handlers_disconnect_by_data (self->item, self);
  if (self->menu != NULL)
    g_signal_handlers_disconnect_by_data (self->menu, self);
  g_clear_object (&self->xembed);
  g_clear_object (&self->item);
  g_clear_pointer (&self->icon_name, g_free);
  g_clear_pointer (&self->icon_description, g_free);
  g_clear_object (&self->menu);
  g_clear_object (&self->manager);
  G_OBJECT_CLASS (rfk_tray_item_parent_class)->dispose (object);
}

static void
rfk_tray_item_class_init (RfkTrayItemClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_tray_item_dispose;
}

static void
rfk_tray_item_init (RfkTrayItem *self)
{
}

RfkTrayItem *
rfk_tray_item_new (RfkManager *manager, RfkMenu *menu)
{
  RfkTrayItem *self = g_object_new (RFK_TYPE_TRAY_ITEM, NULL);
  g_autofree char *icon_dir = NULL;

  self->manager = g_object_ref (manager);
  self->menu = g_object_ref (menu);
  self->item = rfk_status_item_new (APP_ID, _("Airplane Mode"),
                                    rfk_menu_get_menu (menu),
                                    rfk_menu_get_airplane_item (menu));
  /* Hosts that look in the item's IconThemePath first find our icons
   * there, even when the host's own data directories lack them (the
   * build tree under `meson devenv`, a prefix outside XDG_DATA_DIRS). */
  icon_dir = rfk_icon_dir ();
  rfk_status_item_set_icon_theme_path (self->item, icon_dir);
  /* Set once here (the item starts passive), then kept in step. */
  self->shown_active = rfk_tray_item_active_for (manager);
  rfk_status_item_set_active (self->item, self->shown_active);
  update_icon (self);

  g_signal_connect_swapped (menu, "synced", G_CALLBACK (on_menu_synced), self);
  g_signal_connect_swapped (self->item, "notify::registered",
                            G_CALLBACK (on_registered), self);
  return self;
}
