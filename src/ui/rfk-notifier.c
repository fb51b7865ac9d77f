/*
 * rfk-notifier.c: one desktop notification per hardware switch flip, one
 * when the airplane key or another program starts or ends airplane mode,
 * one when a radio is kept off after resume, and one per failed action.
 *
 * The first two are feedback, gone once seen: transient, each replacing
 * the last (rfk-transient-notification.h).  The others are a
 * GNotification through the application, so GLib picks the desktop's
 * way: org.gtk.Notifications where GNOME Shell has it, else
 * org.freedesktop.Notifications.  Every call is asynchronous, so a daemon
 * that hangs never freezes the menu; each group goes out under one id, so
 * a new one replaces the last instead of stacking.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-icon-theme.h"
#include "rfk-tray-item.h"
#include "rfk-notifier.h"
#include "rfk-radio-label.h"
#include "rfk-transient-notification.h"

/*
 * A switch flips every radio it controls, and the kernel sends one event
 * per radio.  Collect them until none has come for COLLECT_MS, then tell
 * the user once.  The quiet time counts from the last event, not the
 * first: the events of one flip can come that far apart when drivers
 * notice it at different times, or when this process or the sender is
 * busy, and a second notification would replace the first with the late
 * radios alone.  A switch that keeps flapping is told after
 * COLLECT_MAX_MS at the latest.
 */
#define COLLECT_MS 150
#define COLLECT_MAX_MS 1000
/* Airplane mode begun or ended elsewhere is told with what did it: the
 * history has it by then (the manager hands it the sweep first), and a
 * change of this age at most is the one. */
#define CAUSE_RECENT_US (3 * G_USEC_PER_SEC)
/* Every radio notification of ours has this id: the next one replaces
 * it.  Failures have their own: a switch flip must not hide why the
 * user's click did nothing, nor the other way round. */
#define NOTIFICATION_ID "radios"
#define FAILURE_NOTIFICATION_ID "failure"

struct _RfkNotifier
{
  GObject parent_instance;

  GApplication *app;                /* not owned: it owns us */
  RfkManager *manager;              /* owned */
  GSettings *settings;              /* owned */
  RfkUdevNames *names;              /* owned, or NULL */
  GHashTable *owned_elsewhere;      /* keys of radios hard-blocked only
                                     * because another owner has them */
  GHashTable *pending;              /* radio label -> GINT(hard) */
  GPtrArray *pending_order;         /* radio labels in event order */
  guint collect_id;
  gint64 collect_since;             /* monotonic µs of the first pending */
  RfkTransientNotification *feedback; /* owned */
};

G_DEFINE_FINAL_TYPE (RfkNotifier, rfk_notifier, G_TYPE_OBJECT)

static char *
join_labels (GPtrArray *labels)
{
  g_ptr_array_add (labels, NULL);
  /* TRANSLATORS: separates radio names in a list. */
  return g_strjoinv (_(", "), (char **) labels->pdata);
}

/* The button of a radio kept off after resume ("app." + name, with the
 * radio's stable key). */
#define ACTION_KEEP_ON "keep-radio-on"

/* Shows (or replaces) the notification with this id; never waits for
 * the daemon.  button: NULL, or a label for ACTION_KEEP_ON on the radio
 * with this stable key. */
static void
send (RfkNotifier *self, const char *id, const char *category,
      const char *summary, const char *body, RfkIconState icon_state,
      const char *button, const char *key)
{
  g_autoptr(GNotification) notification = g_notification_new (summary);
  g_autoptr(GIcon) icon = rfk_icon_new (icon_state);

  /* Without the bus (a failed registration) there is no one to tell. */
  if (!g_application_get_is_registered (self->app)
      || g_application_get_is_remote (self->app))
    return;
  g_notification_set_body (notification, body);
  g_notification_set_icon (notification, icon);
  g_notification_set_category (notification, category);
  if (button != NULL)
    g_notification_add_button_with_target (notification, button,
                                           "app." ACTION_KEEP_ON, "s", key);
  g_application_send_notification (self->app, id, notification);
}

/* The name the menu shows: "Bluetooth — Intel AX200 Bluetooth (hci0)". */
static char *
label_for (RfkNotifier *self, const RfkDevice *device)
{
  return self->names != NULL
           ? rfk_radio_facts_label (rfk_udev_names_lookup (self->names, device))
           : rfk_radio_label (device);
}

/* A radio notification: only with the "notifications" setting on.
 * button: NULL, or the label of ACTION_KEEP_ON for the radio keyed key. */
static void
rfk_notifier_show (RfkNotifier *self, const char *summary, const char *body,
                   RfkIconState icon_state, const char *button,
                   const char *key)
{
  if (!g_settings_get_boolean (self->settings, "notifications"))
    return;
  send (self, NOTIFICATION_ID, "device", summary, body, icon_state, button,
        key);
}

/*
 * Not subject to the "notifications" setting, which is about switches
 * flipping on their own: a click that did nothing must say why, or the
 * user sees only a check mark springing back.  The icon is the one the
 * tray shows now, i.e. how the radios stayed.
 */
void
rfk_notifier_tell_failure (RfkNotifier *self, const char *action,
                           const char *reason)
{
  g_return_if_fail (RFK_IS_NOTIFIER (self));

  send (self, FAILURE_NOTIFICATION_ID, "device.error", action, reason,
        rfk_tray_item_state_for (self->manager, self->names), NULL, NULL);
}

/* Feedback: only with the "notifications" setting on, transient. */
static void
show_feedback (RfkNotifier *self, const char *summary, const char *body,
               RfkIconState icon_state)
{
  g_autoptr (GIcon) icon = NULL;

  if (!g_settings_get_boolean (self->settings, "notifications"))
    return;
  if (!g_application_get_is_registered (self->app)
      || g_application_get_is_remote (self->app))
    return;
  icon = rfk_icon_new (icon_state);
  rfk_transient_notification_show (self->feedback, summary, body, icon);
}

/* What the history says changed the radios from outside just now:
 * another program, the key, a switch...; NULL if it does not say. */
static const RfkHistoryEntry *
outside_cause (RfkNotifier *self)
{
  RfkHistory *history = rfk_manager_get_history (self->manager);
  GPtrArray *entries = history != NULL ? rfk_history_get_entries (history)
                                       : NULL;
  gint64 since = g_get_real_time () - CAUSE_RECENT_US;

  for (guint i = entries != NULL ? entries->len : 0; i > 0; i--)
    {
      const RfkHistoryEntry *e = entries->pdata[i - 1];

      if (e->time_us < since)
        break;
      switch (e->cause)
        {
        case RFK_CAUSE_OTHER:
        case RFK_CAUSE_KEY:
        case RFK_CAUSE_SWITCH:
        case RFK_CAUSE_NETWORKMANAGER:
        case RFK_CAUSE_RESUME:
        case RFK_CAUSE_HOTPLUG:
          return e;
        default:
          break;  /* ours: airplane mode putting its list back */
        }
    }
  return NULL;
}

/* The key or another program (`rfkill block all`, gsd) began or ended
 * airplane mode; ended, the manager put the radios that were off before
 * off again. */
static void
airplane_elsewhere (RfkNotifier *self, gboolean on)
{
  const RfkHistoryEntry *cause = outside_cause (self);
  g_autofree char *by = NULL;
  g_autofree char *body = NULL;

  /* "Another program" may be the key that had only one radio left to
   * switch: the history cannot tell them apart then (README). */
  by = cause != NULL && cause->cause != RFK_CAUSE_OTHER
         ? rfk_history_entry_dup_cause_label (cause)
         /* TRANSLATORS: what changed the radios, when it cannot be told
          * which */
         : g_strdup (_("the airplane key or another program"));
  /* TRANSLATORS: %s is what did it: "the airplane key", "another
   * program", "NetworkManager"... */
  body = g_strdup_printf (on ? _("Radios turned off by %s. Ending airplane "
                                 "mode turns on again the radios that were "
                                 "on.")
                             : _("Radios turned on by %s. Those that were "
                                 "off before airplane mode are off again."),
                          by);
  show_feedback (self, on ? _("Airplane mode is on")
                          : _("Airplane mode is off"),
                 body, on ? RFK_ICON_AIRPLANE_MODE : RFK_ICON_RADIOS_ON);
}

static void
on_airplane_ended_elsewhere (RfkManager *manager, RfkNotifier *self)
{
  airplane_elsewhere (self, FALSE);
}

static void
on_airplane_entered_elsewhere (RfkManager *manager, RfkNotifier *self)
{
  airplane_elsewhere (self, TRUE);
}

/* The resume guard (rfk-manager-resume.c) switched a radio off again,
 * or gave up on it.  The kernel's events do not say which program turned
 * it on. */
static void
on_radio_kept_off (RfkManager *manager, RfkDevice *device, gboolean gave_up,
                   RfkNotifier *self)
{
  g_autofree char *label = label_for (self, device);
  g_autofree char *key = rfk_device_dup_key (device);
  g_autofree char *body = NULL;
  RfkIconState icon = rfk_tray_item_state_for (self->manager, self->names);

  if (gave_up)
    {
      body = g_strdup_printf (_("Something keeps turning %s on since the "
                                "computer woke up, so it was left on."),
                              label);
      rfk_notifier_show (self, _("Radio left on after resume"), body, icon,
                         NULL, NULL);
      return;
    }
  body = g_strdup_printf (_("%s was turned on as the computer woke up. It "
                            "was off before, so it is off again."), label);
  rfk_notifier_show (self, _("Radio kept off after resume"), body, icon,
                     _("Keep It On"), key);
}

static void
keep_on_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (RfkNotifier) self = user_data;
  g_autoptr (GError) error = NULL;

  if (!rfk_manager_set_blocked_finish (RFK_MANAGER (source), result, &error)
      && self->manager != NULL)
    rfk_notifier_tell_failure (self, _("Cannot turn the radio on"),
                               error->message);
}

/* "Keep It On": the user's request, which the guard never undoes. */
static void
on_keep_on (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RfkNotifier *self = user_data;
  const char *key = g_variant_get_string (parameter, NULL);
  GPtrArray *devices = rfk_manager_get_devices (self->manager);

  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (devices, i);
      g_autofree char *device_key = rfk_device_dup_key (device);

      if (g_str_equal (device_key, key))
        {
          rfk_manager_name_next_request (self->manager,
                                         RFK_CAUSE_NOTIFICATION, NULL);
          rfk_manager_set_blocked_async (self->manager, device->idx, FALSE,
                                         NULL, keep_on_done,
                                         g_object_ref (self));
          return;
        }
    }
  rfk_notifier_tell_failure (self, _("Cannot turn the radio on"),
                             _("It is no longer there."));
}

static const GActionEntry actions[] = {
  { ACTION_KEEP_ON, on_keep_on, "s", NULL, NULL, { 0 } },
};

static void
show_pending (RfkNotifier *self)
{
  g_autoptr(GPtrArray) off = g_ptr_array_new ();
  g_autoptr(GPtrArray) on = g_ptr_array_new ();
  g_autoptr(GString) body = g_string_new (NULL);
  const char *summary;
  RfkIconState icon;

  for (guint i = 0; i < self->pending_order->len; i++)
    {
      const char *label = g_ptr_array_index (self->pending_order, i);

      if (GPOINTER_TO_INT (g_hash_table_lookup (self->pending, label)))
        g_ptr_array_add (off, (gpointer) label);
      else
        g_ptr_array_add (on, (gpointer) label);
    }

  if (off->len > 0 && on->len == 0)
    {
      summary = _("Hardware switch: radios off");
      icon = RFK_ICON_HARDWARE_SWITCH;
    }
  else if (on->len > 0 && off->len == 0)
    {
      summary = _("Hardware switch: radios on");
      icon = RFK_ICON_RADIOS_ON;
    }
  else
    {
      summary = _("Hardware switch changed");
      icon = RFK_ICON_HARDWARE_SWITCH;
    }

  if (off->len > 0)
    {
      g_autofree char *list = join_labels (off);
      /* TRANSLATORS: %s lists radios, e.g. "Wi-Fi (phy0), Bluetooth (hci0)". */
      g_string_append_printf (body, _("Turned off: %s"), list);
    }
  if (on->len > 0)
    {
      g_autofree char *list = join_labels (on);
      if (body->len > 0)
        g_string_append_c (body, '\n');
      /* TRANSLATORS: %s lists radios, e.g. "Wi-Fi (phy0), Bluetooth (hci0)". */
      g_string_append_printf (body, _("Turned on: %s"), list);
    }

  show_feedback (self, summary, body->str, icon);
}

static gboolean
collect_done (gpointer user_data)
{
  RfkNotifier *self = user_data;

  self->collect_id = 0;
  if (self->pending_order->len > 0)
    show_pending (self);
  g_hash_table_remove_all (self->pending);
  g_ptr_array_set_size (self->pending_order, 0);
  return G_SOURCE_REMOVE;
}

/* A hard block with only NOT_OWNER is not a switch the user flipped. */
static gboolean
blocked_elsewhere (const RfkDevice *device)
{
  return device->hard && device->hard_reasons == RFK_HARD_REASON_NOT_OWNER;
}

static void
on_device_seen (RfkManager *manager, RfkDevice *device, RfkNotifier *self)
{
  g_autofree char *key = rfk_device_dup_key (device);

  if (blocked_elsewhere (device))
    g_hash_table_add (self->owned_elsewhere, g_steal_pointer (&key));
  else if (device->hard)
    g_hash_table_remove (self->owned_elsewhere, key);
}

static void
on_hardware_switch_changed (RfkManager *manager, RfkDevice *device,
                            gboolean hard, RfkNotifier *self)
{
  g_autofree char *label = NULL;
  g_autofree char *key = rfk_device_dup_key (device);
  gboolean was_elsewhere = g_hash_table_remove (self->owned_elsewhere, key);
  gint64 now;

  if (blocked_elsewhere (device))
    {
      g_hash_table_add (self->owned_elsewhere, g_steal_pointer (&key));
      return;
    }
  /* Released by its other owner, not by a switch. */
  if (!hard && was_elsewhere)
    return;
  if (!g_settings_get_boolean (self->settings, "notifications"))
    return;

  label = label_for (self, device);
  if (g_hash_table_contains (self->pending, label))
    {
      /* Flipped twice within the window: the last state wins, and
       * g_hash_table_insert() keeps the stored key. */
      g_hash_table_insert (self->pending, label, GINT_TO_POINTER (hard));
    }
  else
    {
      char *owned = g_steal_pointer (&label);

      g_ptr_array_add (self->pending_order, owned);
      g_hash_table_insert (self->pending, owned, GINT_TO_POINTER (hard));
    }

  now = g_get_monotonic_time ();
  if (self->collect_id == 0)
    self->collect_since = now;
  if (now - self->collect_since < COLLECT_MAX_MS * G_TIME_SPAN_MILLISECOND)
    {
      g_clear_handle_id (&self->collect_id, g_source_remove);
      self->collect_id = g_timeout_add (COLLECT_MS, collect_done, self);
    }
}

static void
rfk_notifier_dispose (GObject *object)
{
  RfkNotifier *self = RFK_NOTIFIER (object);

  if (self->manager != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->manager, self);
      g_action_map_remove_action (G_ACTION_MAP (self->app), ACTION_KEEP_ON);
    }
  g_clear_handle_id (&self->collect_id, g_source_remove);
  g_clear_object (&self->feedback);
  g_clear_object (&self->settings);
  g_clear_object (&self->names);
  g_clear_object (&self->manager);
  G_OBJECT_CLASS (rfk_notifier_parent_class)->dispose (object);
}

static void
rfk_notifier_finalize (GObject *object)
{
  RfkNotifier *self = RFK_NOTIFIER (object);

  g_hash_table_unref (self->pending);
  g_hash_table_unref (self->owned_elsewhere);
  g_ptr_array_unref (self->pending_order);
  G_OBJECT_CLASS (rfk_notifier_parent_class)->finalize (object);
}

static void
rfk_notifier_class_init (RfkNotifierClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_notifier_dispose;
  G_OBJECT_CLASS (klass)->finalize = rfk_notifier_finalize;
}

static void
rfk_notifier_init (RfkNotifier *self)
{
  /* The array owns the labels; the table borrows them as keys. */
  self->pending_order = g_ptr_array_new_with_free_func (g_free);
  self->pending = g_hash_table_new (g_str_hash, g_str_equal);
  self->owned_elsewhere = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                 g_free, NULL);
}

RfkNotifier *
rfk_notifier_new (GApplication *app, RfkManager *manager, GSettings *settings,
                  RfkUdevNames *names)
{
  RfkNotifier *self = g_object_new (RFK_TYPE_NOTIFIER, NULL);

  self->app = app;
  self->manager = g_object_ref (manager);
  self->settings = g_object_ref (settings);
  self->names = names != NULL ? g_object_ref (names) : NULL;
  self->feedback = rfk_transient_notification_new (app);
  g_signal_connect (manager, "airplane-mode-ended-elsewhere",
                    G_CALLBACK (on_airplane_ended_elsewhere), self);
  g_signal_connect (manager, "airplane-mode-entered-elsewhere",
                    G_CALLBACK (on_airplane_entered_elsewhere), self);
  g_signal_connect (manager, "device-added",
                    G_CALLBACK (on_device_seen), self);
  g_signal_connect (manager, "hardware-switch-changed",
                    G_CALLBACK (on_hardware_switch_changed), self);
  g_signal_connect (manager, "radio-kept-off",
                    G_CALLBACK (on_radio_kept_off), self);
  g_action_map_add_action_entries (G_ACTION_MAP (app), actions,
                                   G_N_ELEMENTS (actions), self);
  return self;
}
