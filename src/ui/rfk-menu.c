/* rfk-menu.c: the indicator's menu, updated in place from the manager. */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-airplane-policy.h"
#include "rfk-autostart.h"
#include "rfk-heap.h"
#include "rfk-in-order.h"
#include "rfk-menu.h"
#include "rfk-preferences.h"
#include "rfk-radio-label.h"
#include "rfk-sync-throttle.h"

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

/* The LED rules as the menu offers them, in menu order. */
static const struct
{
  RfkLedRule rule;
  const char *label;
} led_rules[] = {
  { RFK_LED_RULE_KERNEL, N_("Kernel default") },
  { RFK_LED_RULE_AIRPLANE_MODE, N_("Follow airplane mode") },
  { RFK_LED_RULE_WLAN_BLOCKED, N_("When Wi-Fi is off") },
  { RFK_LED_RULE_HARDWARE_SWITCH, N_("When a hardware switch is off") },
  { RFK_LED_RULE_NEVER, N_("Always off") },
};

/* Every type the airplane-radio-types flags can name (1 << type). */
#define KNOWN_TYPE_FLAGS (((1u << RFK_TYPE_COUNT) - 1) & ~(1u << RFK_TYPE_ALL))
/* The flag that stands for every type, newer ones included ("all"). */
#define ALL_TYPES_FLAG (1u << RFK_TYPE_ALL)

struct _RfkMenu
{
  GObject parent_instance;

  GApplication *app;         /* owned */
  RfkManager *manager;       /* owned */
  RfkSettings *settings;     /* owned */
  RfkUdevNames *names;       /* owned */

  GtkMenu *menu;             /* owned (ref_sink); owns every item below */
  GtkWidget *airplane_item;
  GtkWidget *first_separator;
  GtkWidget *status_item;    /* "No radios" and the like; after the radios */
  GtkWidget *switch_separator; /* laptop switches: shown when there are any */
  GtkWidget *switch_header;  /* "Laptop switches"; their items follow it */
  GtkWidget *types_item;     /* "Airplane mode turns off" */
  GtkWidget *type_items[RFK_TYPE_COUNT]; /* check item per type, [ALL] NULL */
  GtkWidget *led_items[G_N_ELEMENTS (led_rules)];
  GtkWidget *led_separator;  /* shown with led_status_item only */
  GtkWidget *led_status_item;
  GtkWidget *notifications_item;
  GtkWidget *autostart_item;

  GHashTable *radio_items;   /* GUINT(idx) -> GtkCheckMenuItem (borrowed) */
  guint led_asked;           /* 1 + the rule a click is waiting for, or 0 */
  GQueue radio_actions;      /* RadioAction: clicks whose answer is due */
  GQueue airplane_actions;   /* GINT(enabled): the same for airplane mode */
  RfkSyncThrottle *throttle; /* owned; runs sync_now() */
};

G_DEFINE_FINAL_TYPE (RfkMenu, rfk_menu, G_TYPE_OBJECT)

enum { SIGNAL_SYNCED, SIGNAL_ACTION_FAILED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void rfk_menu_queue_sync (RfkMenu *self);
static void note_request (GtkCheckMenuItem *item, RfkMenu *self);

/* Sets a check item without running its "toggled" handler: the model is
 * the source of truth, and a sync must never write back to the kernel
 * (nor note a request that was never made). */
static void
set_active_quietly (GtkWidget *item, gboolean active, gpointer handler)
{
  GtkCheckMenuItem *check = GTK_CHECK_MENU_ITEM (item);

  if (gtk_check_menu_item_get_active (check) == !!active)
    return;
  g_signal_handlers_block_matched (item, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                   handler, NULL);
  g_signal_handlers_block_matched (item, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                   note_request, NULL);
  gtk_check_menu_item_set_active (check, active);
  g_signal_handlers_unblock_matched (item, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                     note_request, NULL);
  g_signal_handlers_unblock_matched (item, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                     handler, NULL);
}

/*
 * A label that is text, not a mnemonic: kernel names have underscores
 * (tpacpi_bluetooth_sw).  Turning use-underline off is not enough: the
 * dbusmenu exporter sends the label as it is and panels read a single
 * "_" as a mnemonic.  So the item keeps use-underline and every "_" is
 * doubled, which GTK and dbusmenu clients alike show as one "_".
 */
static char *
text_as_label (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '_')
        g_string_append_c (out, '_');
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

/* GTK notifies (and dbusmenu sends) a label even when it is unchanged. */
static void
set_label_if_changed (GtkWidget *item, const char *label)
{
  if (g_strcmp0 (gtk_menu_item_get_label (GTK_MENU_ITEM (item)), label) != 0)
    gtk_menu_item_set_label (GTK_MENU_ITEM (item), label);
}

/* A message as an item's label: every "_" shown as it is. */
static void
set_text_if_changed (GtkWidget *item, const char *text)
{
  g_autofree char *label = text_as_label (text);

  set_label_if_changed (item, label);
}

/*
 * An item that says what is wrong ("No permission to switch radios", a
 * corrupt restore list, the light's trouble).  It is sensitive although
 * activating it does nothing: GTK's keyboard navigation skips an
 * insensitive item, and so do screen readers (no focus ever lands on
 * it) and most tray hosts reading the dbusmenu ("enabled": false is
 * drawn greyed out and passed over by the arrow keys).  A status there
 * would be read by nobody who cannot see it.  Its labels go through
 * set_text_if_changed(): a path has underscores.
 */
static GtkWidget *
new_status_item (void)
{
  return gtk_menu_item_new_with_mnemonic ("");
}

static void
set_sensitive_if_changed (GtkWidget *item, gboolean sensitive)
{
  if (gtk_widget_get_sensitive (item) != !!sensitive)
    gtk_widget_set_sensitive (item, sensitive);
}

static void
set_visible_if_changed (GtkWidget *item, gboolean visible)
{
  if (gtk_widget_get_visible (item) != !!visible)
    gtk_widget_set_visible (item, visible);
}

/*
 * What a click asked for, kept until its answer comes, so that a failure
 * is told as "Cannot turn Wi-Fi — Intel AX200 off: <why>".  A request's
 * callback gets only the menu, so note_request(), connected before each
 * item's "toggled" handler, notes the request the click is about to make;
 * the answer is then matched to its note (take_radio_action()).
 */
typedef struct
{
  guint32 idx;
  gboolean blocked;   /* what the click asked for */
  char *label;        /* the radio's name as the menu shows it */
} RadioAction;

static void
radio_action_free (RadioAction *action)
{
  g_free (action->label);
  g_free (action);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RadioAction, radio_action_free)

/* What the menu's requests still in flight leave the radio in: the last
 * note for it, else the kernel's state.  A toggle asks for the opposite
 * (rfk_manager_toggle_blocked_async()).  A request from another door in
 * flight is not seen here, and then the summary names the wrong way. */
static gboolean
radio_left_blocked (RfkMenu *self, const RfkDevice *device)
{
  for (GList *l = self->radio_actions.tail; l != NULL; l = l->prev)
    {
      RadioAction *action = l->data;

      if (action->idx == device->idx)
        return action->blocked;
    }
  return device->soft;
}

static void report_failure (RfkMenu *self, const char *action,
                            const GError *error);

/* The radio's name as the menu shows it, without its state. */
static char *
radio_name (RfkMenu *self, const RfkDevice *device)
{
  const RfkRadioFacts *facts = rfk_udev_names_lookup (self->names, device);

  return facts != NULL ? rfk_radio_facts_label (facts)
                       : rfk_radio_label (device);
}

/* A click on a radio that a switch (or its other owner) holds off. */
static void
report_hard_block (RfkMenu *self, const RfkDevice *device)
{
  g_autofree char *name = radio_name (self, device);
  g_autofree char *reasons = rfk_hard_reasons_to_label (device->hard_reasons);
  /* TRANSLATORS: %s is a radio, "Wi-Fi — Intel AX200 (wlp2s0)" */
  g_autofree char *what = g_strdup_printf (_("Cannot turn %s on"), name);
  g_autoptr(GError) error = NULL;

  if (reasons != NULL && *reasons != '\0')
    /* TRANSLATORS: why a radio stays off, e.g. "Blocked: hardware switch" */
    error = g_error_new (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                         _("Blocked: %s"), reasons);
  else
    error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                                 _("A hardware switch blocks it"));
  report_failure (self, what, error);
}

static gboolean in_its_turn (void);

/* Airplane mode as a toggle made now asks for it. */
static gboolean
note_airplane_cb (gpointer user_data)
{
  RfkMenu *self = user_data;
  gboolean enabled = !rfk_manager_get_airplane_mode_wanted (self->manager);

  g_queue_push_tail (&self->airplane_actions, GINT_TO_POINTER (enabled));
  return G_SOURCE_REMOVE;
}

static void
note_request (GtkCheckMenuItem *item, RfkMenu *self)
{
  RfkDevice *device;
  RadioAction *action;

  /* The same reading of the model as the "toggled" handlers below, at
   * the same time: on_airplane_toggled() waits for its turn, and this
   * note, queued first, runs right before it. */
  if (GTK_WIDGET (item) == self->airplane_item)
    {
      if (in_its_turn ())
        note_airplane_cb (self);
      else
        rfk_in_order (note_airplane_cb, g_object_ref (self),
                      g_object_unref);
      return;
    }
  device = rfk_manager_lookup (self->manager,
                               GPOINTER_TO_UINT (g_object_get_data (
                                 G_OBJECT (item), "rfk-idx")));
  if (device == NULL)
    return;  /* no request is made */
  if (device->hard)
    {
      /* Software cannot undo a hard block: the item is insensitive, but
       * a click that reaches it anyway makes no request and is told
       * why. */
      g_signal_stop_emission_by_name (item, "toggled");
      report_hard_block (self, device);
      rfk_menu_queue_sync (self);  /* the check mark back */
      return;
    }
  action = g_new0 (RadioAction, 1);
  action->idx = device->idx;
  action->blocked = !radio_left_blocked (self, device);
  action->label = radio_name (self, device);
  g_queue_push_tail (&self->radio_actions, action);
}

/* Whether the answer (error NULL: success) can be the one to this note. */
static gboolean
radio_action_fits (RfkMenu *self, GList *link, const GError *error)
{
  RadioAction *action = link->data;
  RfkDevice *device = rfk_manager_lookup (self->manager, action->idx);

  if (error == NULL)
    return device != NULL && device->soft == action->blocked;
  /* Superseded: the same radio was clicked again since. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      for (GList *l = link->next; l != NULL; l = l->next)
        if (((RadioAction *) l->data)->idx == action->idx)
          return TRUE;
      return FALSE;
    }
  return device == NULL || device->soft != action->blocked
         || device->refused;
}

/*
 * Answers come in the order requests end, not in the order of the
 * clicks: a radio that refuses answers after 5 s, one clicked after it
 * at once.  So an answer goes to the oldest note it fits, and to the
 * oldest note when none does.
 */
static RadioAction *
take_radio_action (RfkMenu *self, const GError *error)
{
  for (GList *l = self->radio_actions.head; l != NULL; l = l->next)
    if (radio_action_fits (self, l, error))
      {
        RadioAction *action = l->data;

        g_queue_delete_link (&self->radio_actions, l);
        return action;
      }
  return g_queue_pop_head (&self->radio_actions);
}

/*
 * A user's action failed: said once, in the log and to the user (the
 * applet hands "action-failed" to the notifier).  A message, not a
 * warning: the program is fine, the radio or the system said no.
 */
static void
report_failure (RfkMenu *self, const char *action, const GError *error)
{
  g_message ("%s: %s", action, error->message);
  g_signal_emit (self, signals[SIGNAL_ACTION_FAILED], 0, action,
                 error->message);
}

static void
on_radio_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(RfkMenu) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(RadioAction) action = NULL;
  gboolean done;

  done = rfk_manager_set_blocked_finish (RFK_MANAGER (source), result,
                                         &error);
  action = take_radio_action (self, error);
  if (!done)
    {
      /* Superseded by a newer click: nothing went wrong. */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *what = NULL;

          if (action == NULL)
            what = g_strdup (_("Cannot switch the radio"));
          else if (action->blocked)
            /* TRANSLATORS: %s is a radio, "Wi-Fi — Intel AX200 (wlp2s0)" */
            what = g_strdup_printf (_("Cannot turn %s off"), action->label);
          else
            /* TRANSLATORS: %s is a radio, "Wi-Fi — Intel AX200 (wlp2s0)" */
            what = g_strdup_printf (_("Cannot turn %s on"), action->label);
          report_failure (self, what, error);
        }
      /* Show the kernel's state again, not what was clicked. */
      rfk_menu_queue_sync (self);
    }
}

/*
 * A click flips where the earlier requests leave the radio, not what the
 * check mark shows nor what the kernel confirmed: the mark may lag the
 * model by one throttled sync, a middle-click has no mark to look at, and
 * a quick second click must undo the first.  The sync then shows the
 * outcome.
 */
static void
on_radio_toggled (GtkCheckMenuItem *item, RfkMenu *self)
{
  guint32 idx = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (item), "rfk-idx"));

  if (rfk_manager_lookup (self->manager, idx) != NULL)
    rfk_manager_toggle_blocked_async (self->manager, idx, NULL,
                                      on_radio_written, g_object_ref (self));
  rfk_menu_queue_sync (self);
}

static void
on_airplane_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(RfkMenu) self = user_data;
  g_autoptr(GError) error = NULL;
  /* Toggles end in the order they were made: each one asks for the
   * opposite of the one before, which supersedes (ends) it.  The finish
   * call tells what was asked only on success, so the note says it. */
  gboolean enabled =
    GPOINTER_TO_INT (g_queue_pop_head (&self->airplane_actions));

  if (!rfk_manager_toggle_airplane_mode_finish (RFK_MANAGER (source),
                                                result, NULL, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        report_failure (self,
                        enabled ? _("Cannot turn airplane mode on")
                                : _("Cannot turn airplane mode off"),
                        error);
      rfk_menu_queue_sync (self);
    }
}

static void on_airplane_toggled (GtkCheckMenuItem *item, RfkMenu *self);

static gboolean
airplane_in_turn_cb (gpointer user_data)
{
  RfkMenu *self = user_data;

  on_airplane_toggled (GTK_CHECK_MENU_ITEM (self->airplane_item), self);
  return G_SOURCE_REMOVE;
}

/*
 * A click in the menu arrives from libdbusmenu's zero-length timeout, as
 * do our other doors (rfk-in-order.h).  The middle click does not: the
 * item's SecondaryActivate (rfk-status-item.c) activates it from its
 * D-Bus handler (an idle source), ahead of requests that came before it.
 * So an activation from anything but such a timeout waits for its turn.
 */
static gboolean
in_its_turn (void)
{
  GSource *source = g_main_current_source ();

  return source != NULL && source->source_funcs == &g_timeout_funcs;
}

static void
on_airplane_toggled (GtkCheckMenuItem *item, RfkMenu *self)
{
  if (!in_its_turn ())
    {
      rfk_in_order (airplane_in_turn_cb, g_object_ref (self),
                    g_object_unref);
      return;
    }
  /* The menu item and the middle click (its secondary-activate target)
   * toggle from where the earlier requests leave airplane mode. */
  rfk_manager_toggle_airplane_mode_async (self->manager, NULL,
                                          on_airplane_written,
                                          g_object_ref (self));
  rfk_menu_queue_sync (self);
}

/* The LED rule's name as the menu shows it. */
static const char *
led_rule_label (RfkLedRule rule)
{
  for (gsize i = 0; i < G_N_ELEMENTS (led_rules); i++)
    if (led_rules[i].rule == rule)
      return _(led_rules[i].label);
  return NULL;
}

static void
report_led_failure (RfkMenu *self, RfkLedRule rule, const GError *error)
{
  /* TRANSLATORS: %s is a light rule, e.g. "Follow airplane mode" */
  g_autofree char *what = g_strdup_printf (_("Cannot set the airplane-mode "
                                             "light to “%s”"),
                                           led_rule_label (rule));

  report_failure (self, what, error);
}

static void
on_led_toggled (GtkCheckMenuItem *item, RfkMenu *self)
{
  RfkLedRule rule = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (item),
                                                         "rfk-rule"));
  RfkLedController *leds = rfk_settings_get_led_controller (self->settings);
  g_autoptr(GError) error = NULL;

  /* Radio items toggle twice per click: the old one off, the new one on. */
  if (!gtk_check_menu_item_get_active (item))
    return;
  self->led_asked = 0;
  if (!rfk_settings_choose_led_rule (self->settings, rule, &error))
    report_led_failure (self, rule, error);
  else if (rfk_led_controller_is_pending (leds))
    /* The kernel answers later (on_led_changed()). */
    self->led_asked = rule + 1;
  /* "led-changed" queued a sync that shows the rule really in force. */
}

/*
 * Writes the setting; rfk-settings.c hands it to the manager, which keeps
 * the restore list of an airplane mode in force (a type no longer counted
 * stays as it is until airplane mode ends, then comes back like the rest).
 * Every type checked again is "all", the default, which also counts
 * types a newer kernel adds.
 */
static guint counted_type_flags (RfkMenu *self);
static guint present_type_flags (RfkMenu *self);

static void
on_type_toggled (GtkCheckMenuItem *item, RfkMenu *self)
{
  GSettings *gsettings = rfk_settings_get_gsettings (self->settings);
  guint type = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (item), "rfk-type"));
  /* Flip what the setting says, not the mark (as for radios). */
  guint flags = counted_type_flags (self) ^ (1u << type);

  /* The item is insensitive then, but a dbusmenu Event still arrives. */
  if ((flags & present_type_flags (self)) == 0)
    g_debug ("Airplane mode must switch off some radio here: %s stays",
             rfk_type_to_string (type));
  else if ((flags & KNOWN_TYPE_FLAGS) == KNOWN_TYPE_FLAGS)
    g_settings_set_flags (gsettings, "airplane-radio-types", ALL_TYPES_FLAG);
  else
    g_settings_set_flags (gsettings, "airplane-radio-types", flags);
  rfk_menu_queue_sync (self);
}

static void
on_autostart_toggled (GtkCheckMenuItem *item, RfkMenu *self)
{
  g_autoptr(GError) error = NULL;
  gboolean enabled = gtk_check_menu_item_get_active (item);

  if (!rfk_autostart_set_enabled (enabled, &error))
    report_failure (self,
                    enabled ? _("Cannot turn “Start at login” on")
                            : _("Cannot turn “Start at login” off"),
                    error);
  rfk_menu_queue_sync (self);
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

static GtkWidget *
new_radio_item (RfkMenu *self, guint32 idx)
{
  /* Labels are set escaped (text_as_label()). */
  GtkWidget *item = gtk_check_menu_item_new_with_mnemonic ("");

  g_object_set_data (G_OBJECT (item), "rfk-idx", GUINT_TO_POINTER (idx));
  /* Before the request: it reads the model as on_radio_toggled() does. */
  g_signal_connect (item, "toggled", G_CALLBACK (note_request), self);
  g_signal_connect (item, "toggled", G_CALLBACK (on_radio_toggled), self);
  gtk_widget_show (item);
  return item;
}

static const char *
status_text (RfkManager *manager)
{
  switch (rfk_manager_get_state (manager))
    {
    case RFK_MANAGER_STATE_STARTING:
      return _("Looking for radios…");
    case RFK_MANAGER_STATE_READY:
      return _("No radios");
    case RFK_MANAGER_STATE_NO_DEVICE:
      return _("No rfkill support on this system");
    case RFK_MANAGER_STATE_NO_PERMISSION:
      return _("No permission to switch radios");
    case RFK_MANAGER_STATE_FAILED:
    default:
      return _("Cannot read the radio switches");
    }
}

/* gtk_menu_reorder_child() moves the GTK child only: dbusmenu's GTK
 * parser follows a menu's inserts and removals, not reorders. */
static void
move_item (RfkMenu *self, GtkWidget *item, int position)
{
  g_object_ref (item);
  gtk_container_remove (GTK_CONTAINER (self->menu), item);
  gtk_menu_shell_insert (GTK_MENU_SHELL (self->menu), item, position);
  g_object_unref (item);
}

/*
 * Puts a radio's item at position, creating it the first time.  children
 * is the menu's list of children, read once per sync (not once per radio:
 * that was a list of every item for each radio) and read again here only
 * when the item had to be inserted or moved.
 */
static GtkWidget *
place_radio_item (RfkMenu *self, const RfkDevice *device, int position,
                  GList **children)
{
  GtkWidget *item = g_hash_table_lookup (self->radio_items,
                                         GUINT_TO_POINTER (device->idx));

  if (item == NULL)
    {
      item = new_radio_item (self, device->idx);
      gtk_menu_shell_insert (GTK_MENU_SHELL (self->menu), item, position);
      g_hash_table_insert (self->radio_items,
                           GUINT_TO_POINTER (device->idx), item);
    }
  else if (g_list_nth_data (*children, position) != item)
    {
      /* Sorting may move a radio whose idx was reused for another, and
       * udev may tell a radio from a laptop switch only later. */
      move_item (self, item, position);
    }
  else
    return item;
  g_list_free (*children);
  *children = gtk_container_get_children (GTK_CONTAINER (self->menu));
  return item;
}

static void
sync_radio_item (RfkMenu *self, GtkWidget *item, const RfkDevice *device,
                 const RfkRadioFacts *facts, gboolean ready)
{
  g_autofree char *text = rfk_radio_menu_label (device, facts);
  g_autofree char *label = NULL;

  /* Its driver did not carry out our last change: airplane mode leaves
   * it out until it changes, and the item says why. */
  if (device->refused)
    {
      g_autofree char *plain = g_steal_pointer (&text);

      if (device->refused_soft)
        /* TRANSLATORS: "Wi-Fi (acme-slider) — did not turn off" */
        text = g_strdup_printf (_("%s — did not turn off"), plain);
      else
        /* TRANSLATORS: "Wi-Fi (acme-slider) — did not turn on" */
        text = g_strdup_printf (_("%s — did not turn on"), plain);
    }
  label = text_as_label (text);

  set_label_if_changed (item, label);
  set_active_quietly (item, !rfk_device_is_blocked (device),
                      on_radio_toggled);
  /* A hard block cannot be undone from here: the item is insensitive
   * and its label says why (a click that reaches it anyway writes
   * nothing and is told why, note_request()). */
  set_sensitive_if_changed (item, ready && !device->hard);
}

static void sync_airplane_types (RfkMenu *self);

static void
sync_radios (RfkMenu *self)
{
  GPtrArray *devices = rfk_manager_get_devices (self->manager);
  /* Writes fail until the manager is ready (a socket's ADDs settle). */
  gboolean ready = rfk_manager_get_state (self->manager) == RFK_MANAGER_STATE_READY;
  const GError *airplane_error;
  GHashTableIter iter;
  gpointer key, value;
  int position;
  guint n_switches = 0;
  gboolean removed = FALSE;
  g_autoptr(GList) children = NULL;

  /* Drop items whose radio is gone (DEL, or the device went away). */
  g_hash_table_iter_init (&iter, self->radio_items);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      if (rfk_manager_lookup (self->manager, GPOINTER_TO_UINT (key)) == NULL)
        {
          rfk_udev_names_forget (self->names, GPOINTER_TO_UINT (key));
          gtk_widget_destroy (value);
          g_hash_table_iter_remove (&iter);
          removed = TRUE;
        }
    }
  if (removed)
    rfk_heap_trim_soon ();

  /* Radios first, under "Airplane mode"; laptop switches get their own
   * section, so that ideapad_wlan is not read as a second Wi-Fi card. */
  children = gtk_container_get_children (GTK_CONTAINER (self->menu));
  position = g_list_index (children, self->first_separator) + 1;
  for (guint i = 0; devices != NULL && i < devices->len; i++)
    {
      const RfkDevice *device = g_ptr_array_index (devices, i);
      const RfkRadioFacts *facts = rfk_udev_names_lookup (self->names, device);

      if (rfk_radio_facts_role (facts) == RFK_RADIO_ROLE_PLATFORM_SWITCH)
        continue;
      sync_radio_item (self,
                       place_radio_item (self, device, position++, &children),
                       device, facts, ready);
    }

  position = g_list_index (children, self->switch_header) + 1;
  for (guint i = 0; devices != NULL && i < devices->len; i++)
    {
      const RfkDevice *device = g_ptr_array_index (devices, i);
      const RfkRadioFacts *facts = rfk_udev_names_lookup (self->names, device);

      if (rfk_radio_facts_role (facts) != RFK_RADIO_ROLE_PLATFORM_SWITCH)
        continue;
      sync_radio_item (self,
                       place_radio_item (self, device, position++, &children),
                       device, facts, ready);
      n_switches++;
    }
  set_visible_if_changed (self->switch_separator, n_switches > 0);
  set_visible_if_changed (self->switch_header, n_switches > 0);

  /* A restore list we cannot use is said here, not only in the log. */
  airplane_error = rfk_manager_get_airplane_error (self->manager);
  set_text_if_changed (self->status_item,
                       airplane_error != NULL && devices != NULL
                       && devices->len > 0
                         ? airplane_error->message
                         : status_text (self->manager));
  set_visible_if_changed (self->status_item,
                          devices == NULL || devices->len == 0
                          || airplane_error != NULL);
  set_sensitive_if_changed (self->airplane_item,
                            ready && devices != NULL && devices->len > 0);
  set_active_quietly (self->airplane_item,
                      rfk_manager_get_airplane_mode (self->manager),
                      on_airplane_toggled);
  sync_airplane_types (self);
}

/* The airplane-radio-types flags as one bit per type ("all" expanded). */
static guint
counted_type_flags (RfkMenu *self)
{
  GSettings *gsettings = rfk_settings_get_gsettings (self->settings);
  guint32 mask = rfk_preferences_get_airplane_types (gsettings);

  return mask == RFK_AIRPLANE_TYPES_ALL ? KNOWN_TYPE_FLAGS
                                        : mask & KNOWN_TYPE_FLAGS;
}

/*
 * One check item per type present.  The last counted type present cannot
 * be unchecked: airplane mode would then switch off none of the radios
 * here (and empty flags read as "all").
 */
static guint
present_type_flags (RfkMenu *self)
{
  GPtrArray *devices = rfk_manager_get_devices (self->manager);
  guint present = 0;

  for (guint i = 0; devices != NULL && i < devices->len; i++)
    {
      const RfkDevice *device = g_ptr_array_index (devices, i);

      if (device->type < RFK_TYPE_COUNT)
        present |= 1u << device->type;
    }
  return present & KNOWN_TYPE_FLAGS;
}

static void
sync_airplane_types (RfkMenu *self)
{
  guint present = present_type_flags (self), counted = counted_type_flags (self);
  guint counted_present = counted & present;

  for (guint type = RFK_TYPE_ALL + 1; type < RFK_TYPE_COUNT; type++)
    {
      GtkWidget *item = self->type_items[type];
      gboolean is_counted = (counted & (1u << type)) != 0;

      set_visible_if_changed (item, (present & (1u << type)) != 0);
      set_active_quietly (item, is_counted, on_type_toggled);
      set_sensitive_if_changed (item, !is_counted ||
                                      counted_present != (1u << type));
    }
  set_visible_if_changed (self->types_item, present != 0);
}

/* What keeps the light from following its rule, or NULL. */
static const char *
led_trouble (RfkMenu *self)
{
  RfkLedController *leds = rfk_settings_get_led_controller (self->settings);
  RfkAirplaneLightStatus status = rfk_led_controller_get_status (leds);
  const char *error = rfk_settings_get_led_error (self->settings);

  if (status == RFK_AIRPLANE_LIGHT_UNSUPPORTED)
    return _("Not supported by this kernel");
  if (status == RFK_AIRPLANE_LIGHT_BUSY)
    return _("Controlled by another program");
  if (error != NULL)
    return error;
  if (rfk_led_controller_get_error (leds) != NULL)
    return rfk_led_controller_get_error (leds)->message;
  return NULL;
}

/* The kernel has answered a rule the user chose: told if it failed. */
static void
on_led_changed (RfkMenu *self)
{
  RfkLedController *leds = rfk_settings_get_led_controller (self->settings);
  RfkLedRule asked = self->led_asked - 1;
  const char *trouble;
  g_autoptr(GError) error = NULL;

  if (self->led_asked == 0 || rfk_led_controller_is_pending (leds))
    return;
  self->led_asked = 0;
  if (rfk_led_controller_get_rule (leds) == asked)
    return;
  trouble = led_trouble (self);
  error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED,
                               trouble != NULL
                                 ? trouble
                                 : _("The light stays as it was"));
  report_led_failure (self, asked, error);
}

static void
sync_leds (RfkMenu *self)
{
  RfkLedController *leds = rfk_settings_get_led_controller (self->settings);
  RfkLedRule in_force = rfk_led_controller_get_rule (leds);
  RfkAirplaneLightStatus status = rfk_led_controller_get_status (leds);
  const char *reason = led_trouble (self);

  for (gsize i = 0; i < G_N_ELEMENTS (led_rules); i++)
    {
      set_active_quietly (self->led_items[i], led_rules[i].rule == in_force,
                          on_led_toggled);
      /* Only the kernel's own rule works without the indicator ops. */
      set_sensitive_if_changed (self->led_items[i],
                                status != RFK_AIRPLANE_LIGHT_UNSUPPORTED ||
                                led_rules[i].rule == RFK_LED_RULE_KERNEL);
    }

  if (reason != NULL)
    set_text_if_changed (self->led_status_item, reason);
  set_visible_if_changed (self->led_separator, reason != NULL);
  set_visible_if_changed (self->led_status_item, reason != NULL);
}

static void
sync_now (gpointer user_data)
{
  RfkMenu *self = user_data;

  sync_radios (self);
  sync_leds (self);
  set_active_quietly (self->autostart_item, rfk_autostart_get_enabled (),
                      on_autostart_toggled);
  g_signal_emit (self, signals[SIGNAL_SYNCED], 0);
}

static void
rfk_menu_queue_sync (RfkMenu *self)
{
  rfk_sync_throttle_queue (self->throttle);
}

static void
on_model_changed (RfkMenu *self)
{
  rfk_menu_queue_sync (self);
}

static GtkWidget *
build_led_submenu (RfkMenu *self)
{
  GtkWidget *item = gtk_menu_item_new_with_mnemonic (_("Airplane-mode _light"));
  GtkWidget *submenu = gtk_menu_new ();
  GSList *group = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (led_rules); i++)
    {
      /* A translation may hold a "_" too: no label is a mnemonic. */
      g_autofree char *label = text_as_label (_(led_rules[i].label));
      GtkWidget *radio = gtk_radio_menu_item_new_with_mnemonic (group, label);

      group = gtk_radio_menu_item_get_group (GTK_RADIO_MENU_ITEM (radio));
      g_object_set_data (G_OBJECT (radio), "rfk-rule",
                         GUINT_TO_POINTER (led_rules[i].rule));
      gtk_menu_shell_append (GTK_MENU_SHELL (submenu), radio);
      self->led_items[i] = radio;
    }
  /* Connect after building: the first item starts active. */
  for (gsize i = 0; i < G_N_ELEMENTS (led_rules); i++)
    g_signal_connect (self->led_items[i], "toggled",
                      G_CALLBACK (on_led_toggled), self);

  self->led_separator = gtk_separator_menu_item_new ();
  self->led_status_item = new_status_item ();
  gtk_menu_shell_append (GTK_MENU_SHELL (submenu), self->led_separator);
  gtk_menu_shell_append (GTK_MENU_SHELL (submenu), self->led_status_item);
  gtk_widget_show_all (submenu);
  gtk_widget_hide (self->led_separator);
  gtk_widget_hide (self->led_status_item);

  gtk_menu_item_set_submenu (GTK_MENU_ITEM (item), submenu);
  return item;
}

static GtkWidget *
build_types_submenu (RfkMenu *self)
{
  /* TRANSLATORS: a submenu: the radio types airplane mode switches off. */
  GtkWidget *item = gtk_menu_item_new_with_mnemonic (_("Airplane mode _turns off"));
  GtkWidget *submenu = gtk_menu_new ();

  for (guint type = RFK_TYPE_ALL + 1; type < RFK_TYPE_COUNT; type++)
    {
      g_autofree char *label = text_as_label (rfk_type_to_label (type));
      GtkWidget *check = gtk_check_menu_item_new_with_mnemonic (label);

      g_object_set_data (G_OBJECT (check), "rfk-type", GUINT_TO_POINTER (type));
      g_signal_connect (check, "toggled", G_CALLBACK (on_type_toggled), self);
      gtk_menu_shell_append (GTK_MENU_SHELL (submenu), check);
      /* Shown when a radio of the type is present. */
      self->type_items[type] = check;
    }
  gtk_menu_item_set_submenu (GTK_MENU_ITEM (item), submenu);
  return item;
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
                    G_CALLBACK (note_request), self);
  g_signal_connect (self->airplane_item, "toggled",
                    G_CALLBACK (on_airplane_toggled), self);

  self->first_separator = append_item (self, gtk_separator_menu_item_new ());
  /* Radio items are inserted here, before the status item. */
  self->status_item = append_item (self, new_status_item ());

  self->switch_separator = append_item (self, gtk_separator_menu_item_new ());
  /* TRANSLATORS: the heading of the laptop's own radio switches
   * (ideapad_wlan, tpacpi_bluetooth_sw), apart from the radios. */
  self->switch_header =
    append_item (self, gtk_menu_item_new_with_mnemonic (""));
  set_text_if_changed (self->switch_header, _("Laptop switches"));
  /* A heading, not a status: the items under it say each switch's state. */
  gtk_widget_set_sensitive (self->switch_header, FALSE);
  gtk_widget_hide (self->switch_separator);
  gtk_widget_hide (self->switch_header);
  /* Laptop switch items are inserted here. */
  append_item (self, gtk_separator_menu_item_new ());

  self->types_item = append_item (self, build_types_submenu (self));
  append_item (self, build_led_submenu (self));

  self->notifications_item =
    append_item (self, gtk_check_menu_item_new_with_mnemonic (_("_Notifications")));
  g_settings_bind (gsettings, "notifications", self->notifications_item,
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
    g_signal_handlers_disconnect_by_data (self->manager, self);
  if (self->settings != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->settings, self);
      g_signal_handlers_disconnect_by_data (rfk_settings_get_gsettings (self->settings),
                                            self);
    }
  if (self->names != NULL)
    g_signal_handlers_disconnect_by_data (self->names, self);
  g_clear_pointer (&self->radio_items, g_hash_table_unref);
  g_queue_clear_full (&self->radio_actions,
                      (GDestroyNotify) radio_action_free);
  g_queue_clear (&self->airplane_actions);
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
                            G_CALLBACK (on_led_changed), self);
  g_signal_connect_swapped (rfk_settings_get_gsettings (settings),
                            "changed::airplane-radio-types",
                            G_CALLBACK (on_model_changed), self);
  g_signal_connect_swapped (self->names, "changed",
                            G_CALLBACK (on_model_changed), self);

  rfk_sync_throttle_sync_now (self->throttle);
  return self;
}
