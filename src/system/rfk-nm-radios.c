/* rfk-nm-radios.c: NetworkManager's radio switches follow airplane mode. */
#include "config.h"

#include "rfk-nm-radios.h"

#include <glib/gstdio.h>

#define NM_NAME "org.freedesktop.NetworkManager"
#define NM_PATH "/org/freedesktop/NetworkManager"

/* Leaving airplane mode restores radios one CHANGE at a time, and may
 * re-block some.  NetworkManager, told "Wi-Fi on", writes a CHANGE_ALL
 * that unblocks every Wi-Fi radio if it sees them all on at that moment;
 * so it is told only once the radios have been still for this long. */
#define SETTLE_MS 1000
/* So it is told "on" only when every radio of the type is on: then its
 * CHANGE_ALL changes nothing, even if its view of the radios (from udev)
 * lags behind ours.  With one radio of the type left off, NetworkManager
 * counts that type as disabled by the killswitch anyway.
 *
 * And only when it needs telling: when we told it "off", or when it says
 * the type is off (its WirelessEnabled is its own switch AND the
 * killswitch).  Its answer can come seconds later (polkit), and by then
 * airplane mode may have begun: an "on" it did not need would then
 * unblock every Wi-Fi radio in airplane mode. */
/* NetworkManager hears of rfkill changes through udev, after us: an "off"
 * from it just after the radios came on may only lag behind.  It is told
 * "on" only if it still says "off" after this long. */
#define CATCH_UP_MS 3000

typedef struct {
  RfkType type;
  const char *property;
  const char *state_key;  /* its key in NetworkManager's state file */
} NmSwitch;

static const NmSwitch nm_switches[] = {
  { RFK_TYPE_WLAN, "WirelessEnabled", "WirelessEnabled" },
  { RFK_TYPE_WWAN, "WwanEnabled", "WWANEnabled" },
};

struct _RfkNmRadios
{
  GObject parent_instance;

  RfkManager *manager;
  GDBusConnection *bus;  /* NULL until the system bus is there */
  GDBusProxy *nm;        /* its switches as it says them; NULL until then */
  gboolean connecting;   /* bus or proxy on the way */
  GCancellable *cancellable;
  guint settle_source;
  guint catch_up_source;
  guint pending;         /* Set calls not answered yet */
  gboolean all_on[G_N_ELEMENTS (nm_switches)];  /* at the last decision */
  gboolean told_off[G_N_ELEMENTS (nm_switches)];  /* "on" owed to it */
  gboolean catching_up[G_N_ELEMENTS (nm_switches)];  /* it said "off" */
  /* Our last Set of each switch, monotonic µs (0: none) and its value:
   * NetworkManager's change that follows is ours, not its own. */
  gint64 asked_us[G_N_ELEMENTS (nm_switches)];
  gboolean asked[G_N_ELEMENTS (nm_switches)];
  gboolean warned;
};

G_DEFINE_FINAL_TYPE (RfkNmRadios, rfk_nm_radios, G_TYPE_OBJECT)

static void
set_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (RfkNmRadios) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;

  self->pending--;
  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result,
                                         &error);
  if (reply != NULL
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
      || g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN)
      || g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER))
    return;  /* done, or no NetworkManager here */
  if (!self->warned)
    g_warning ("NetworkManager did not follow airplane mode: %s",
               error->message);
  self->warned = TRUE;
}

static void
set_switch (RfkNmRadios *self, const char *property, gboolean enabled)
{
  if (self->bus == NULL)
    return;
  for (gsize i = 0; i < G_N_ELEMENTS (nm_switches); i++)
    if (g_str_equal (nm_switches[i].property, property))
      {
        self->asked_us[i] = g_get_monotonic_time ();
        self->asked[i] = enabled;
      }
  self->pending++;
  g_dbus_connection_call (self->bus, NM_NAME, NM_PATH,
                          "org.freedesktop.DBus.Properties", "Set",
                          g_variant_new ("(ssv)", NM_NAME, property,
                                         g_variant_new_boolean (enabled)),
                          NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, -1,
                          self->cancellable, set_done, g_object_ref (self));
}

/* Whether NetworkManager says the switch is off.  Unknown (not on the
 * bus, or not read yet) is not "off": an "on" it did not need, answered
 * late, can unblock every radio of the type after airplane mode began. */
static gboolean
nm_says_off (RfkNmRadios *self, const NmSwitch *sw)
{
  g_autoptr (GVariant) value = NULL;

  if (self->nm == NULL)
    return FALSE;
  value = g_dbus_proxy_get_cached_property (self->nm, sw->property);
  return value != NULL && g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN)
         && !g_variant_get_boolean (value);
}

/* Whether type has a radio, and whether all of them are on. */
static void
survey (RfkNmRadios *self, RfkType type, gboolean *out_present,
        gboolean *out_all_on)
{
  GPtrArray *devices = rfk_manager_get_devices (self->manager);

  *out_present = FALSE;
  *out_all_on = TRUE;
  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (devices, i);

      if (device->type != type)
        continue;
      *out_present = TRUE;
      if (rfk_device_is_blocked (device))
        *out_all_on = FALSE;
    }
}

static void
tell_on (RfkNmRadios *self, gsize i)
{
  set_switch (self, nm_switches[i].property, TRUE);
  self->told_off[i] = FALSE;
}

/* Told "on" only if it still says "off" with every radio of the type on. */
static gboolean
caught_up (gpointer user_data)
{
  RfkNmRadios *self = user_data;

  self->catch_up_source = 0;
  for (gsize i = 0; i < G_N_ELEMENTS (nm_switches); i++)
    {
      if (self->catching_up[i] && self->all_on[i]
          && nm_says_off (self, &nm_switches[i]))
        tell_on (self, i);
      self->catching_up[i] = FALSE;
    }
  return G_SOURCE_REMOVE;
}

static void
follow (RfkNmRadios *self, gboolean airplane)
{
  guint32 counted_types = rfk_manager_get_airplane_types (self->manager);

  for (gsize i = 0; i < G_N_ELEMENTS (nm_switches); i++)
    {
      const NmSwitch *sw = &nm_switches[i];
      gboolean present, all_on, was_all_on = self->all_on[i];

      survey (self, sw->type, &present, &all_on);
      self->all_on[i] = present && all_on && !airplane;
      if (!self->all_on[i])
        self->catching_up[i] = FALSE;
      if (!present || !rfk_airplane_policy_counts (counted_types, sw->type))
        continue;
      if (airplane)
        {
          set_switch (self, sw->property, FALSE);
          self->told_off[i] = TRUE;
        }
      else if (self->all_on[i] && !was_all_on && self->told_off[i])
        tell_on (self, i);
      else if (self->all_on[i] && !was_all_on && nm_says_off (self, sw))
        {
          self->catching_up[i] = TRUE;
          g_clear_handle_id (&self->catch_up_source, g_source_remove);
          self->catch_up_source = g_timeout_add (CATCH_UP_MS, caught_up,
                                                 self);
        }
    }
}

static gboolean
settled (gpointer user_data)
{
  RfkNmRadios *self = user_data;

  self->settle_source = 0;
  if (!rfk_manager_get_airplane_mode (self->manager))
    follow (self, FALSE);
  return G_SOURCE_REMOVE;
}

static void
restart_settle (RfkNmRadios *self)
{
  g_clear_handle_id (&self->settle_source, g_source_remove);
  self->settle_source = g_timeout_add (SETTLE_MS, settled, self);
}

static void
on_airplane_mode_changed (RfkManager *manager, gboolean enabled,
                          gpointer user_data)
{
  RfkNmRadios *self = user_data;

  if (enabled)
    {
      /* Every counted radio is blocked now: NM, seeing that, writes
       * nothing and only remembers "off". */
      g_clear_handle_id (&self->settle_source, g_source_remove);
      g_clear_handle_id (&self->catch_up_source, g_source_remove);
      follow (self, TRUE);
    }
  else
    restart_settle (self);
}

/* A radio switched on by hand may complete the set: decided once the
 * radios are still. */
static void
on_device_changed (RfkManager *manager, RfkDevice *device,
                   gpointer user_data)
{
  RfkNmRadios *self = user_data;

  if (!rfk_manager_get_airplane_mode (self->manager))
    restart_settle (self);
}

/* How long after our Set NetworkManager's change of that switch is
 * taken for its answer to us. */
#define ASKED_MS 5000

/*
 * Whether NetworkManager itself switched sw to value, not followed a block
 * another program made.  Its WirelessEnabled property is its user switch
 * AND the kernel's state, so `rfkill block wlan` flips it too; only its
 * state file tells the user switch, which it rewrites when that switch
 * is toggled (nmcli radio wifi off, nm-applet) and at its start.  So: the
 * file says value and was written just now.  A file we cannot read (a
 * distribution that keeps it private) names NetworkManager never.
 */
#define NM_STATE_FILE "/var/lib/NetworkManager/NetworkManager.state"
#define OWN_SWITCH_MS 5000

static gboolean
nm_switched_itself (const NmSwitch *sw, gboolean value)
{
  const char *path = g_getenv ("RFK_NM_STATE_FILE");
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (GError) error = NULL;
  GStatBuf st;
  gint64 age_ms;
  gboolean user_switch;

  if (path == NULL)
    path = NM_STATE_FILE;
  if (g_stat (path, &st) != 0)
    return FALSE;
  age_ms = g_get_real_time () / 1000 - (gint64) st.st_mtime * 1000;
  if (age_ms > OWN_SWITCH_MS || age_ms < -1000
      || !g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, NULL))
    return FALSE;
  user_switch = g_key_file_get_boolean (file, "main", sw->state_key, &error);
  return error == NULL && user_switch == value;
}

/* NetworkManager switched Wi-Fi or WWAN itself (nmcli radio wifi off):
 * the radio changes that follow are its, for the history. */
static void
on_nm_properties_changed (GDBusProxy *nm, GVariant *changed,
                          GStrv invalidated, RfkNmRadios *self)
{
  guint32 types[2] = { 0, 0 };  /* switched off, switched on */

  for (gsize i = 0; i < G_N_ELEMENTS (nm_switches); i++)
    {
      g_autoptr (GVariant) value = g_variant_lookup_value (
        changed, nm_switches[i].property, G_VARIANT_TYPE_BOOLEAN);

      if (value == NULL)
        continue;
      if (self->asked_us[i] != 0
          && g_get_monotonic_time () - self->asked_us[i]
               <= ASKED_MS * G_TIME_SPAN_MILLISECOND
          && g_variant_get_boolean (value) == self->asked[i])
        continue;
      if (!nm_switched_itself (&nm_switches[i],
                               g_variant_get_boolean (value)))
        continue;
      types[g_variant_get_boolean (value)] |= 1u << nm_switches[i].type;
    }
  for (guint on = 0; on < 2; on++)
    if (types[on] != 0)
      rfk_manager_note_networkmanager (self->manager, types[on], on);
}

static void
got_proxy (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (RfkNmRadios) self = user_data;
  g_autoptr (GError) error = NULL;
  GDBusProxy *nm = g_dbus_proxy_new_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->connecting = FALSE;
  if (nm == NULL)
    g_debug ("NetworkManager's switches not read: %s", error->message);
  else
    g_signal_connect_object (nm, "g-properties-changed",
                             G_CALLBACK (on_nm_properties_changed), self, 0);
  self->nm = nm;
}

/* Its properties are cached and kept current by PropertiesChanged; a
 * NetworkManager started later is read when it takes its name. */
static void
watch_nm (RfkNmRadios *self)
{
  g_dbus_proxy_new (self->bus,
                    G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START
                    | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS,
                    NULL, NM_NAME, NM_PATH, NM_NAME, self->cancellable,
                    got_proxy, g_object_ref (self));
}

static void
got_bus (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (RfkNmRadios) self = user_data;
  g_autoptr (GError) error = NULL;
  GDBusConnection *bus = g_bus_get_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (bus == NULL)
    {
      self->connecting = FALSE;
      g_debug ("No system bus, NetworkManager not followed: %s",
               error->message);
      return;
    }
  self->bus = bus;
  watch_nm (self);
}

static void
rfk_nm_radios_dispose (GObject *object)
{
  RfkNmRadios *self = RFK_NM_RADIOS (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->settle_source, g_source_remove);
  g_clear_handle_id (&self->catch_up_source, g_source_remove);
  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  g_clear_object (&self->manager);
  g_clear_object (&self->nm);
  g_clear_object (&self->bus);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (rfk_nm_radios_parent_class)->dispose (object);
}

static void
rfk_nm_radios_class_init (RfkNmRadiosClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_nm_radios_dispose;
}

static void
rfk_nm_radios_init (RfkNmRadios *self)
{
  self->cancellable = g_cancellable_new ();
}

static gboolean
flush_timed_out (gpointer user_data)
{
  gboolean *timed_out = user_data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

void
rfk_nm_radios_flush (RfkNmRadios *self, guint timeout_ms)
{
  gboolean timed_out = FALSE;
  guint timeout;

  g_return_if_fail (RFK_IS_NM_RADIOS (self));
  timeout = g_timeout_add (timeout_ms, flush_timed_out, &timed_out);
  /* Deciding "on" needs what NetworkManager says. */
  while (self->connecting && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (self->settle_source != 0)
    {
      g_clear_handle_id (&self->settle_source, g_source_remove);
      settled (self);
    }
  /* A program about to exit has no later to wait for. */
  if (self->catch_up_source != 0)
    {
      g_clear_handle_id (&self->catch_up_source, g_source_remove);
      caught_up (self);
    }
  while (self->pending > 0 && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (timeout);
}

RfkNmRadios *
rfk_nm_radios_new (RfkManager *manager, GDBusConnection *bus)
{
  RfkNmRadios *self = g_object_new (RFK_TYPE_NM_RADIOS, NULL);

  g_return_val_if_fail (RFK_IS_MANAGER (manager), NULL);
  self->manager = g_object_ref (manager);
  g_signal_connect (manager, "airplane-mode-changed",
                    G_CALLBACK (on_airplane_mode_changed), self);
  g_signal_connect (manager, "device-changed",
                    G_CALLBACK (on_device_changed), self);
  g_signal_connect (manager, "device-added",
                    G_CALLBACK (on_device_changed), self);
  self->connecting = TRUE;
  if (bus != NULL)
    {
      self->bus = g_object_ref (bus);
      watch_nm (self);
    }
  else
    g_bus_get (G_BUS_TYPE_SYSTEM, self->cancellable, got_bus,
               g_object_ref (self));
  return self;
}
