/* rfk-dbus-caller.c: who is asking, for the history. */
#include "config.h"

#include "rfk-dbus-caller.h"

/* Unique names seen, and what their process is called.  Callers are few
 * (a shell, a settings panel, the CLI now and then), but a program that
 * connects anew for each call must not make this grow without end. */
#define MAX_REMEMBERED 64
#define LOOKUP_TIMEOUT_MS 1000

/* The name the kernel keeps for a process (15 characters at most). */
static char *
process_name (guint32 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/comm", pid);
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  g_strchomp (contents);
  if (*contents == '\0' || !g_utf8_validate (contents, -1, NULL))
    return NULL;
  return g_steal_pointer (&contents);
}

static char *
ask_bus (GDBusConnection *connection, const char *sender)
{
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GError) error = NULL;
  guint32 pid;

  reply = g_dbus_connection_call_sync (
    connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
    "org.freedesktop.DBus", "GetConnectionUnixProcessID",
    g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(u)"),
    G_DBUS_CALL_FLAGS_NONE, LOOKUP_TIMEOUT_MS, NULL, &error);
  if (reply == NULL)
    {
      g_debug ("Cannot tell which process %s is: %s", sender,
               error->message);
      return NULL;
    }
  g_variant_get (reply, "(u)", &pid);
  return process_name (pid);
}

RfkCause
rfk_dbus_caller_lookup (GDBusConnection *connection, const char *sender,
                        char **out_by)
{
  /* sender -> process name ("" when unknown) */
  static GHashTable *known;
  const char *name;

  *out_by = NULL;
  /* A peer-to-peer connection has no bus to ask. */
  if (connection == NULL || sender == NULL
      || g_dbus_connection_get_unique_name (connection) == NULL)
    return RFK_CAUSE_DBUS;
  if (known == NULL)
    known = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  name = g_hash_table_lookup (known, sender);
  if (name == NULL)
    {
      char *asked = ask_bus (connection, sender);

      if (g_hash_table_size (known) >= MAX_REMEMBERED)
        g_hash_table_remove_all (known);
      name = asked != NULL ? asked : g_strdup ("");
      g_hash_table_insert (known, g_strdup (sender), (char *) name);
    }
  if (g_str_equal (name, "rfkill-applet"))
    return RFK_CAUSE_CLI;
  *out_by = *name != '\0' ? g_strdup (name) : NULL;
  return RFK_CAUSE_DBUS;
}
