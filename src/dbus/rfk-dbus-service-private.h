/*
 * rfk-dbus-service-private.h: RfkDBusService's fields, shared by
 * rfk-dbus-service.c (the object, its exports and PropertiesChanged) and
 * rfk-dbus-methods.c (method calls, property reads and writes).
 */
#pragma once

#include "rfk-dbus-properties.h"
#include "rfk-dbus-service.h"
#include "rfk-sync-throttle.h"

G_BEGIN_DECLS

struct _RfkDBusService
{
  GObject parent_instance;

  GApplication *app;            /* not owned: it owns us */
  GDBusConnection *connection;  /* owned, while exported */
  GPtrArray *exported;          /* Exported*; [0] is our API */
  RfkDBusModel model;           /* manager and settings owned */
  GCancellable *cancellable;
  RfkSyncThrottle *throttle;    /* owned; runs sync_cb() */
};

/* Whether the model is attached: until then calls answer NotReady. */
static inline gboolean
is_attached (RfkDBusService *self)
{
  return self->model.manager != NULL;
}

/* rfk-dbus-methods.c: the handlers of every object we register. */
const GDBusInterfaceVTable *_rfk_dbus_service_vtable (void);

G_END_DECLS
