/*
 * rfk-sleep-watch.c: relay logind's PrepareForSleep signal.
 *
 * Subscribed by sender name: GDBus matches it against the name's owner,
 * so another program on the system bus cannot fake a sleep.
 */
#include "config.h"

#include "rfk-sleep-watch.h"

#define LOGIND_NAME "org.freedesktop.login1"
#define LOGIND_PATH "/org/freedesktop/login1"
#define LOGIND_MANAGER LOGIND_NAME ".Manager"

struct _RfkSleepWatch
{
  GObject parent_instance;

  GDBusConnection *bus;     /* NULL until g_bus_get() answers */
  GCancellable *cancellable;
  guint subscription;
};

G_DEFINE_FINAL_TYPE (RfkSleepWatch, rfk_sleep_watch, G_TYPE_OBJECT)

enum { SIGNAL_PREPARE_FOR_SLEEP, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
on_prepare_for_sleep (GDBusConnection *bus, const char *sender,
                      const char *path, const char *interface,
                      const char *signal, GVariant *parameters,
                      gpointer user_data)
{
  RfkSleepWatch *self = user_data;
  gboolean sleeping;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(b)")))
    {
      g_debug ("logind: PrepareForSleep with arguments %s, ignored",
               g_variant_get_type_string (parameters));
      return;
    }
  g_variant_get (parameters, "(b)", &sleeping);
  g_signal_emit (self, signals[SIGNAL_PREPARE_FOR_SLEEP], 0, sleeping);
}

static void
subscribe (RfkSleepWatch *self, GDBusConnection *bus)
{
  self->bus = g_object_ref (bus);
  self->subscription = g_dbus_connection_signal_subscribe (
    bus, LOGIND_NAME, LOGIND_MANAGER, "PrepareForSleep", LOGIND_PATH, NULL,
    G_DBUS_SIGNAL_FLAGS_NONE, on_prepare_for_sleep, self, NULL);
}

static void
bus_ready_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusConnection) bus = g_bus_get_finish (result, &error);

  /* Cancelled: self is gone. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (bus == NULL)
    {
      g_debug ("no system bus (%s): radios are not kept off across "
               "suspend", error->message);
      return;
    }
  subscribe (RFK_SLEEP_WATCH (user_data), bus);
}

static void
rfk_sleep_watch_dispose (GObject *object)
{
  RfkSleepWatch *self = RFK_SLEEP_WATCH (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->subscription != 0)
    g_dbus_connection_signal_unsubscribe (self->bus, self->subscription);
  self->subscription = 0;
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (rfk_sleep_watch_parent_class)->dispose (object);
}

static void
rfk_sleep_watch_class_init (RfkSleepWatchClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_sleep_watch_dispose;
  signals[SIGNAL_PREPARE_FOR_SLEEP] =
    g_signal_new ("prepare-for-sleep", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                  G_TYPE_BOOLEAN);
}

static void
rfk_sleep_watch_init (RfkSleepWatch *self)
{
  self->cancellable = g_cancellable_new ();
}

RfkSleepWatch *
rfk_sleep_watch_new (GDBusConnection *bus)
{
  RfkSleepWatch *self = g_object_new (RFK_TYPE_SLEEP_WATCH, NULL);

  if (bus != NULL)
    subscribe (self, bus);
  else
    g_bus_get (G_BUS_TYPE_SYSTEM, self->cancellable, bus_ready_cb, self);
  return self;
}
