/* rfk-airplane-store.c: the restore list of airplane mode, on disk. */
#include "config.h"

#include "rfk-airplane-store.h"

#include <glib/gi18n.h>

#include "rfk-state-file.h"

#define GROUP_STATE  "airplane-mode"
#define GROUP_RADIOS "radios"
#define KEY_ACTIVE   "active"
#define KEY_CORRUPT  "corrupt-copy"

char *
rfk_airplane_store_dup_path (void)
{
  return rfk_state_file_dup_path ("airplane-mode.ini");
}

RfkAirplaneStore *
rfk_airplane_store_new (void)
{
  RfkAirplaneStore *store = g_new0 (RfkAirplaneStore, 1);

  store->radios = g_hash_table_new_full (g_str_hash, g_str_equal,
                                         g_free, NULL);
  return store;
}

void
rfk_airplane_store_free (RfkAirplaneStore *store)
{
  if (store == NULL)
    return;
  g_hash_table_unref (store->radios);
  g_free (store->corrupt_copy);
  g_free (store);
}

/* Keys are "type:name"; names come from drivers and may hold anything. */
static char *
escape_key (const char *key)
{
  return g_uri_escape_string (key, ":", FALSE);
}

RfkAirplaneStore *
rfk_airplane_store_load (GError **error)
{
  g_autofree char *path = rfk_airplane_store_dup_path ();
  g_autoptr (RfkAirplaneStore) store = rfk_airplane_store_new ();
  g_autoptr (GKeyFile) file = NULL;
  g_autoptr (GError) local_error = NULL;
  g_auto (GStrv) keys = NULL;

  file = rfk_state_file_load (path, &local_error);
  if (file == NULL)
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return g_steal_pointer (&store);
      g_set_error (error, local_error->domain, local_error->code,
                   _("Cannot read airplane-mode state %s: %s"), path,
                   local_error->message);
      return NULL;
    }

  store->active = g_key_file_get_boolean (file, GROUP_STATE, KEY_ACTIVE,
                                          &local_error);
  if (local_error != NULL
      && !g_error_matches (local_error, G_KEY_FILE_ERROR,
                           G_KEY_FILE_ERROR_GROUP_NOT_FOUND)
      && !g_error_matches (local_error, G_KEY_FILE_ERROR,
                           G_KEY_FILE_ERROR_KEY_NOT_FOUND))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Cannot read airplane-mode state %s: %s"), path,
                   local_error->message);
      return NULL;
    }
  store->corrupt_copy = g_key_file_get_string (file, GROUP_STATE,
                                               KEY_CORRUPT, NULL);
  keys = g_key_file_get_keys (file, GROUP_RADIOS, NULL, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      g_autofree char *value = g_key_file_get_string (file, GROUP_RADIOS,
                                                      keys[i], NULL);
      g_autofree char *key = g_uri_unescape_string (keys[i], NULL);
      gboolean blocked;

      if (key == NULL || value == NULL)
        {
          g_set_error (error, G_KEY_FILE_ERROR,
                       G_KEY_FILE_ERROR_INVALID_VALUE,
                       _("Cannot read airplane-mode state %s: the radio "
                         "“%s” is not readable"), path, keys[i]);
          return NULL;
        }
      if (g_str_equal (value, "blocked"))
        blocked = TRUE;
      else if (g_str_equal (value, "unblocked"))
        blocked = FALSE;
      else
        {
          g_set_error (error, G_KEY_FILE_ERROR,
                       G_KEY_FILE_ERROR_INVALID_VALUE,
                       _("Cannot read airplane-mode state %s: radio “%s” "
                         "has the invalid value “%s”"), path, key, value);
          return NULL;
        }
      rfk_airplane_store_remember (store, key, blocked);
    }
  return g_steal_pointer (&store);
}

gboolean
rfk_airplane_store_save (const RfkAirplaneStore *store, GError **error)
{
  g_autofree char *path = rfk_airplane_store_dup_path ();
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (GError) local_error = NULL;
  g_autofree char *data = NULL;
  GHashTableIter iter;
  gpointer key, value;
  gsize length;

  g_key_file_set_boolean (file, GROUP_STATE, KEY_ACTIVE, store->active);
  if (store->corrupt_copy != NULL)
    g_key_file_set_string (file, GROUP_STATE, KEY_CORRUPT,
                           store->corrupt_copy);
  g_hash_table_iter_init (&iter, store->radios);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autofree char *escaped = escape_key (key);

      g_key_file_set_string (file, GROUP_RADIOS, escaped,
                             GPOINTER_TO_INT (value) - 1 ? "blocked"
                                                         : "unblocked");
    }
  data = g_key_file_to_data (file, &length, NULL);
  if (!rfk_state_file_write (path, data, length, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Cannot save airplane-mode state %s: %s"), path,
                   local_error->message);
      return FALSE;
    }
  return TRUE;
}

void
rfk_airplane_store_remember (RfkAirplaneStore *store, const char *key,
                             gboolean soft_blocked)
{
  g_hash_table_replace (store->radios, g_strdup (key),
                        GINT_TO_POINTER (soft_blocked ? 2 : 1));
}

gboolean
rfk_airplane_store_lookup (const RfkAirplaneStore *store, const char *key,
                           gboolean *out_soft_blocked)
{
  gpointer value = g_hash_table_lookup (store->radios, key);

  if (value == NULL)
    return FALSE;
  if (out_soft_blocked)
    *out_soft_blocked = GPOINTER_TO_INT (value) == 2;
  return TRUE;
}

void
rfk_airplane_store_clear (RfkAirplaneStore *store)
{
  store->active = FALSE;
  g_clear_pointer (&store->corrupt_copy, g_free);
  g_hash_table_remove_all (store->radios);
}
