/*
 * rfk-menu.c: the tray item's menu, updated in place from the manager:
 * the object, how it is built, and when it syncs.  Its parts are listed
 * in rfk-menu-private.h.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-autostart.h"
#include "rfk-menu-private.h"

/*
 * When the menu (and the icon, which follows the menu's syncs) catches up
 * with the model (rfk-sync-throttle.h): a change after a quiet spell is
 * shown at once, so a click or a hardware switch shows without delay; a
 * burst (a driver or a script flipping radios) is shown when the model has
 * been quiet SYNC_QUIET_MS, so that D-Bus sees the burst's outcome and not
 * every step of it, but never later than SYNC_MAX_DELAY_MS, so that a
 * burst that does not end is still shown as it goes, and syncs within a
 * burst are SYNC_MIN_INTERVAL_MS apart at least.  A radio flapping just
 * slower than the quiet spell is shown flip by flip: a dozen updates a
 * second at most.
 */
#define SYNC_QUIET_MS 80
#define SYNC_MAX_DELAY_MS 2000
#define SYNC_MIN_INTERVAL_MS 100

G_DEFINE_FINAL_TYPE (RfkMenu, rfk_menu, G_TYPE_OBJECT)

enum { SIGNAL_SYNCED, SIGNAL_ACTION_FAILED, N_SIGNALS };
static guint signals[N_SIGNALS];



static void
on_autostart_toggled (GtkCheckMenuItem *item, RfkMenu *self)
{
  g_autoptr(GError) error = NULL;
  gboolean enabled = gtk_check_menu_item_get_active (item);

  if (!rfk_autostart_set_enabled (enabled, &error))
    _rfk_menu_report_failure (self,
                              enabled ? _("Cannot turn “Start at login” on")
                                      : _("Cannot turn “Start at login” off"),
                              error);
  rfk_sync_throttle_queue (self->throttle);
}

static void
on_quit_activate (GtkMenuItem *item, RfkMenu *self)
{
  g_application_quit (self->app);
}

static GtkWidget *
append_item (RfkMenu *self, GtkWidget *item)
{
  gtk_menu_shell_append (GTK_MENU_SHELL (self->menu), item);
  gtk_widget_show (item);
  return item;
}

static void
sync_now (gpointer user_data)
{
  RfkMenu *self = user_data;

  _rfk_menu_sync_radios (self);
  _rfk_menu_sync_exceptions (self);
  _rfk_menu_sync_history (self);
  _rfk_menu_sync_types (self);
  _rfk_menu_sync_leds (self);
  _rfk_menu_set_active_quietly (self->autostart_item,
                                rfk_autostart_get_enabled (),
                                on_autostart_toggled);
  g_signal_emit (self, signals[SIGNAL_SYNCED], 0);
}


static void
on_model_changed (RfkMenu *self)
{
  rfk_sync_throttle_queue (self->throttle);
}

static void
build (RfkMenu *self)
{
  GSettings *gsettings = rfk_settings_get_gsettings (self->settings);
  GtkWidget *item;

  self->menu = GTK_MENU (g_object_ref_sink (gtk_menu_new ()));

  self->airplane_item =
    append_item (self, gtk_check_menu_item_new_with_mnemonic (_("_Airplane mode")));
  g_signal_connect (self->airplane_item, "toggled",
                    G_CALLBACK (_rfk_menu_note_request), self);
  g_signal_connect (self->airplane_item, "toggled",
                    G_CALLBACK (_rfk_menu_on_airplane_toggled), self);

  self->first_separator = append_item (self, gtk_separator_menu_item_new ());
  /* Radio items are inserted here, before the status item. */
  self->status_item = append_item (self, rfk_menu_item_new_status ());
  self->exceptions_separator =
    append_item (self, gtk_separator_menu_item_new ());
  gtk_widget_hide (self->exceptions_separator);
  /* Exception items are inserted here. */

  self->switch_separator = append_item (self, gtk_separator_menu_item_new ());
  /* TRANSLATORS: the heading of the laptop's own radio switches
   * (ideapad_wlan, tpacpi_bluetooth_sw), apart from the radios. */
  self->switch_header =
    append_item (self, gtk_menu_item_new_with_mnemonic (""));
  rfk_menu_item_set_text (self->switch_header, _("Laptop switches"));
  /* A heading, not a status: the items under it say each switch's state. */
  gtk_widget_set_sensitive (self->switch_header, FALSE);
  gtk_widget_hide (self->switch_separator);
  gtk_widget_hide (self->switch_header);
  /* Laptop switch items are inserted here. */
  append_item (self, gtk_separator_menu_item_new ());

  self->history_item =
    append_item (self, _rfk_menu_build_history_submenu (self));
  self->types_item = append_item (self, _rfk_menu_build_types_submenu (self));
  append_item (self, _rfk_menu_build_led_submenu (self));

  self->notifications_item =
    append_item (self, gtk_check_menu_item_new_with_mnemonic (_("_Notifications")));
  g_settings_bind (gsettings, "notifications", self->notifications_item,
                   "active", G_SETTINGS_BIND_DEFAULT);

  /* TRANSLATORS: a check item: radios that are off before the computer
   * sleeps stay off when it wakes up, whatever turns them on then. */
  self->keep_states_item =
    append_item (self, gtk_check_menu_item_new_with_mnemonic (_("_Keep radios off after suspend")));
  g_settings_bind (gsettings, "keep-radio-states", self->keep_states_item,
                   "active", G_SETTINGS_BIND_DEFAULT);

  self->autostart_item =
    append_item (self, gtk_check_menu_item_new_with_mnemonic (_("_Start at login")));
  gtk_check_menu_item_set_active (GTK_CHECK_MENU_ITEM (self->autostart_item),
                                  rfk_autostart_get_enabled ());
  g_signal_connect (self->autostart_item, "toggled",
                    G_CALLBACK (on_autostart_toggled), self);

  append_item (self, gtk_separator_menu_item_new ());
  item = append_item (self, gtk_menu_item_new_with_mnemonic (_("_Quit")));
  g_signal_connect (item, "activate", G_CALLBACK (on_quit_activate), self);
}

GtkMenu *
rfk_menu_get_menu (RfkMenu *self)
{
  return self->menu;
}

GtkWidget *
rfk_menu_get_airplane_item (RfkMenu *self)
{
  return self->airplane_item;
}

RfkUdevNames *
rfk_menu_get_names (RfkMenu *self)
{
  return self->names;
}

static void
rfk_menu_dispose (GObject *object)
{
  RfkMenu *self = RFK_MENU (object);

  /* The throttle itself goes at finalize: an answer that arrives after
   * this (its callback holds a reference) still queues a sync. */
  if (self->throttle != NULL)
    rfk_sync_throttle_cancel (self->throttle);
  if (self->manager != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->manager, self);
      /* The manager hands the history its last changes as it goes. */
      if (rfk_manager_get_history (self->manager) != NULL)
        g_signal_handlers_disconnect_by_data (
          rfk_manager_get_history (self->manager), self);
    }
  if (self->settings != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->settings, self);
      g_signal_handlers_disconnect_by_data (rfk_settings_get_gsettings (self->settings),
                                            self);
    }
  if (self->names != NULL)
    g_signal_handlers_disconnect_by_data (self->names, self);
  g_clear_pointer (&self->radio_items, g_hash_table_unref);
  g_clear_pointer (&self->exception_items, g_hash_table_unref);
  _rfk_menu_forget_requests (self);
  if (self->menu != NULL)
    gtk_widget_destroy (GTK_WIDGET (self->menu));
  g_clear_object (&self->menu);
  g_clear_object (&self->settings);
  g_clear_object (&self->names);
  g_clear_object (&self->manager);
  g_clear_object (&self->app);
  G_OBJECT_CLASS (rfk_menu_parent_class)->dispose (object);
}

static void
rfk_menu_finalize (GObject *object)
{
  RfkMenu *self = RFK_MENU (object);

  g_clear_object (&self->throttle);
  G_OBJECT_CLASS (rfk_menu_parent_class)->finalize (object);
}

static void
rfk_menu_class_init (RfkMenuClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_menu_dispose;
  G_OBJECT_CLASS (klass)->finalize = rfk_menu_finalize;

  /* After each sync: the menu shows the model as it is now.  The icon
   * follows this, so that it is coalesced exactly like the menu. */
  signals[SIGNAL_SYNCED] =
    g_signal_new ("synced", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /* A user's action failed (not one that a newer click superseded):
   * what was asked ("Cannot turn airplane mode on") and why, both
   * translated; already logged. */
  signals[SIGNAL_ACTION_FAILED] =
    g_signal_new ("action-failed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                  G_TYPE_STRING, G_TYPE_STRING);
}

static void
rfk_menu_init (RfkMenu *self)
{
  self->radio_items = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->exception_items = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_queue_init (&self->radio_actions);
  g_queue_init (&self->airplane_actions);
  self->throttle = rfk_sync_throttle_new (G_PRIORITY_DEFAULT_IDLE,
                                          SYNC_QUIET_MS, SYNC_MAX_DELAY_MS,
                                          SYNC_MIN_INTERVAL_MS, sync_now,
                                          self);
}

RfkMenu *
rfk_menu_new (GApplication *app, RfkManager *manager, RfkSettings *settings)
{
  RfkMenu *self = g_object_new (RFK_TYPE_MENU, NULL);
  static const char *const model_signals[] = {
    "device-added", "device-removed", "device-changed",
    "airplane-mode-changed", "hardware-switch-changed", "airplane-error-changed",
    "state-changed",
  };

  self->app = g_object_ref (app);
  self->manager = g_object_ref (manager);
  self->settings = g_object_ref (settings);
  self->names = rfk_udev_names_new ();
  build (self);

  for (gsize i = 0; i < G_N_ELEMENTS (model_signals); i++)
    g_signal_connect_swapped (manager, model_signals[i],
                              G_CALLBACK (on_model_changed), self);
  g_signal_connect_swapped (settings, "led-changed",
                            G_CALLBACK (on_model_changed), self);
  g_signal_connect_swapped (settings, "led-changed",
                            G_CALLBACK (_rfk_menu_on_led_changed), self);
  g_signal_connect_swapped (rfk_settings_get_gsettings (settings),
                            "changed::airplane-radio-types",
                            G_CALLBACK (on_model_changed), self);
  g_signal_connect_swapped (self->names, "changed",
                            G_CALLBACK (on_model_changed), self);
  if (rfk_manager_get_history (manager) != NULL)
    g_signal_connect_object (rfk_manager_get_history (manager), "changed",
                             G_CALLBACK (on_model_changed), self,
                             G_CONNECT_SWAPPED);

  rfk_sync_throttle_sync_now (self->throttle);
  return self;
}
