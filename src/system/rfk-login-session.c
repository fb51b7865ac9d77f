/*
 * rfk-login-session.c: follow logind's "Active" property of our session.
 *
 * logind (org.freedesktop.login1) resolves the special session name "auto"
 * to the caller's session, or to the user's display session when the
 * caller is outside one (an applet started as a user service).  Property
 * changes are signalled on the session's real object path only, so the
 * path is looked up first (Manager.GetSession) and the proxy made for it.
 *
 * The callbacks hold no reference: dispose cancels every call in flight,
 * and a cancelled call's callback returns before touching self.
 */
#include "config.h"

#include "rfk-login-session.h"

#define LOGIND_NAME "org.freedesktop.login1"
#define LOGIND_PATH "/org/freedesktop/login1"
#define LOGIND_MANAGER LOGIND_NAME ".Manager"
#define LOGIND_SESSION LOGIND_NAME ".Session"

struct _RfkLoginSession
{
  GObject parent_instance;

  GDBusConnection *bus;     /* NULL until g_bus_get() answers */
  GDBusProxy *session;      /* NULL without logind */
  GCancellable *cancellable;
  gboolean active;
  gboolean ready;
};

enum { PROP_0, PROP_ACTIVE, PROP_READY, N_PROPS };
static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (RfkLoginSession, rfk_login_session, G_TYPE_OBJECT)

static void
set_active (RfkLoginSession *self, gboolean active)
{
  if (self->active == active)
    return;
  self->active = active;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE]);
}

/* The lookup is over; without an answer from logind we stay active. */
static void
set_ready (RfkLoginSession *self, const GError *error)
{
  if (error != NULL)
    g_debug ("logind session: %s; the LED stays with this session",
             error->message);
  self->ready = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_READY]);
}

static void
read_active (RfkLoginSession *self)
{
  g_autoptr (GVariant) value = NULL;

  value = g_dbus_proxy_get_cached_property (self->session, "Active");
  /* No value (logind restarting, or it invalidated the property without
   * an answer yet): keep the last one rather than guess. */
  if (value != NULL && g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
    set_active (self, g_variant_get_boolean (value));
}

static void
properties_changed_cb (GDBusProxy *proxy, GVariant *changed,
                       const char *const *invalidated, gpointer user_data)
{
  read_active (user_data);
}

static void
proxy_ready_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RfkLoginSession *self = user_data;
  g_autoptr (GError) error = NULL;
  GDBusProxy *proxy = g_dbus_proxy_new_finish (result, &error);

  if (proxy == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        set_ready (self, error);
      return;
    }
  self->session = proxy;
  g_signal_connect_object (proxy, "g-properties-changed",
                           G_CALLBACK (properties_changed_cb), self, 0);
  read_active (self);
  set_ready (self, NULL);
}

static void
get_session_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RfkLoginSession *self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;
  const char *path;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result,
                                         &error);
  if (reply == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        set_ready (self, error);
      return;
    }
  g_variant_get (reply, "(&o)", &path);
  /* Invalidated properties are fetched again, so "Active" is never lost
   * whichever way logind signals it. */
  g_dbus_proxy_new (self->bus,
                    G_DBUS_PROXY_FLAGS_GET_INVALIDATED_PROPERTIES,
                    NULL, LOGIND_NAME, path, LOGIND_SESSION,
                    self->cancellable, proxy_ready_cb, self);
}

static void
look_up_session (RfkLoginSession *self)
{
  g_dbus_connection_call (self->bus, LOGIND_NAME, LOGIND_PATH, LOGIND_MANAGER,
                          "GetSession", g_variant_new ("(s)", "auto"),
                          G_VARIANT_TYPE ("(o)"), G_DBUS_CALL_FLAGS_NONE, -1,
                          self->cancellable, get_session_cb, self);
}

static void
bus_ready_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RfkLoginSession *self = user_data;
  g_autoptr (GError) error = NULL;
  GDBusConnection *bus = g_bus_get_finish (result, &error);

  if (bus == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        set_ready (self, error);
      return;
    }
  self->bus = bus;
  look_up_session (self);
}

gboolean
rfk_login_session_get_active (RfkLoginSession *self)
{
  g_return_val_if_fail (RFK_IS_LOGIN_SESSION (self), TRUE);
  return self->active;
}

gboolean
rfk_login_session_is_ready (RfkLoginSession *self)
{
  g_return_val_if_fail (RFK_IS_LOGIN_SESSION (self), FALSE);
  return self->ready;
}

const char *
rfk_login_session_get_object_path (RfkLoginSession *self)
{
  g_return_val_if_fail (RFK_IS_LOGIN_SESSION (self), NULL);
  return self->session != NULL
    ? g_dbus_proxy_get_object_path (self->session) : NULL;
}

static void
rfk_login_session_get_property (GObject *object, guint prop_id,
                                GValue *value, GParamSpec *pspec)
{
  RfkLoginSession *self = RFK_LOGIN_SESSION (object);

  switch (prop_id)
    {
    case PROP_ACTIVE:
      g_value_set_boolean (value, self->active);
      break;
    case PROP_READY:
      g_value_set_boolean (value, self->ready);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rfk_login_session_dispose (GObject *object)
{
  RfkLoginSession *self = RFK_LOGIN_SESSION (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->session);
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (rfk_login_session_parent_class)->dispose (object);
}

static void
rfk_login_session_class_init (RfkLoginSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = rfk_login_session_get_property;
  object_class->dispose = rfk_login_session_dispose;

  properties[PROP_ACTIVE] =
    g_param_spec_boolean ("active", NULL, NULL, TRUE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_READY] =
    g_param_spec_boolean ("ready", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
rfk_login_session_init (RfkLoginSession *self)
{
  self->active = TRUE;
  self->cancellable = g_cancellable_new ();
}

RfkLoginSession *
rfk_login_session_new (GDBusConnection *bus)
{
  RfkLoginSession *self;

  g_return_val_if_fail (bus == NULL || G_IS_DBUS_CONNECTION (bus), NULL);

  self = g_object_new (RFK_TYPE_LOGIN_SESSION, NULL);
  if (bus != NULL)
    {
      self->bus = g_object_ref (bus);
      look_up_session (self);
    }
  else
    g_bus_get (G_BUS_TYPE_SYSTEM, self->cancellable, bus_ready_cb, self);
  return self;
}
