/* rfk-dbus-radios.c: the Radios property, entry by entry. */
#include "config.h"

#include "rfk-dbus-radios.h"
#include "rfk-radio-label.h"

/*
 * Radios is read after every change, to announce it when it differs.
 * Building all of it each time, a dictionary of eight values per radio,
 * was most of what the applet did per event with 64 radios (perf: 27% of
 * its time, and comparing and sending it another 35%).  One radio changes
 * at a time, so each radio's entry is kept, already serialised, with the
 * facts it was built from; the array is then 64 references, and
 * serialising it copies bytes.
 */
typedef struct
{
  guint8 type;
  gboolean soft;
  gboolean hard;
  guint8 hard_reasons;
  gboolean exception;
  char *name;
  GVariant *entry;  /* a{sv}, serialised */
  guint seen;       /* the last read that listed the radio */
} Entry;

struct _RfkDBusRadios
{
  GHashTable *entries;  /* idx -> Entry */
  guint reads;
};

static void
entry_free (gpointer data)
{
  Entry *e = data;

  g_free (e->name);
  g_variant_unref (e->entry);
  g_free (e);
}

static gboolean
entry_matches (const Entry *e, const RfkDevice *d)
{
  return e->type == d->type && e->soft == d->soft && e->hard == d->hard
         && e->hard_reasons == d->hard_reasons && e->exception == d->exception
         && g_str_equal (e->name, d->name);
}

static GVariant *
build_entry (const RfkDevice *d)
{
  g_autofree char *label = rfk_radio_label (d);
  g_auto (GStrv) reasons = rfk_hard_reasons_to_names (d->hard
                                                      ? d->hard_reasons : 0);
  GVariantBuilder entry;

  g_variant_builder_init (&entry, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&entry, "{sv}", "index", g_variant_new_uint32 (d->idx));
  g_variant_builder_add (&entry, "{sv}", "type",
                         g_variant_new_string (rfk_type_to_name (d->type)));
  g_variant_builder_add (&entry, "{sv}", "type-number",
                         g_variant_new_uint32 (d->type));
  g_variant_builder_add (&entry, "{sv}", "name", g_variant_new_string (d->name));
  g_variant_builder_add (&entry, "{sv}", "label", g_variant_new_string (label));
  g_variant_builder_add (&entry, "{sv}", "soft", g_variant_new_boolean (d->soft));
  g_variant_builder_add (&entry, "{sv}", "hard", g_variant_new_boolean (d->hard));
  g_variant_builder_add (&entry, "{sv}", "reasons",
                         g_variant_new_strv ((const char *const *) reasons,
                                             -1));
  /* Airplane mode leaves it as the user leaves it (RULES.md). */
  g_variant_builder_add (&entry, "{sv}", "airplane-exception",
                         g_variant_new_boolean (d->exception));
  return g_variant_builder_end (&entry);
}

static Entry *
entry_for (RfkDBusRadios *self, const RfkDevice *d)
{
  Entry *e = g_hash_table_lookup (self->entries, GUINT_TO_POINTER (d->idx));

  if (e != NULL && entry_matches (e, d))
    return e;

  e = g_new0 (Entry, 1);
  e->type = d->type;
  e->soft = d->soft;
  e->hard = d->hard;
  e->hard_reasons = d->hard_reasons;
  e->exception = d->exception;
  e->name = g_strdup (d->name);
  e->entry = g_variant_ref_sink (build_entry (d));
  /* Serialised now, once: every array that holds it copies these bytes. */
  g_variant_get_data (e->entry);
  g_hash_table_replace (self->entries, GUINT_TO_POINTER (d->idx), e);
  return e;
}

static gboolean
is_stale (gpointer key, gpointer value, gpointer user_data)
{
  const Entry *e = value;

  return e->seen != GPOINTER_TO_UINT (user_data);
}

GVariant *
rfk_dbus_radios_get (RfkDBusRadios *self, GPtrArray *devices)
{
  guint n = devices != NULL ? devices->len : 0;
  g_autofree GVariant **children = g_new (GVariant *, MAX (n, 1));

  g_return_val_if_fail (self != NULL, NULL);

  self->reads++;
  for (guint i = 0; i < n; i++)
    {
      Entry *e = entry_for (self, g_ptr_array_index (devices, i));

      e->seen = self->reads;
      children[i] = e->entry;
    }
  if (g_hash_table_size (self->entries) > n)
    g_hash_table_foreach_remove (self->entries, is_stale,
                                 GUINT_TO_POINTER (self->reads));
  return g_variant_new_array (G_VARIANT_TYPE ("a{sv}"), children, n);
}

RfkDBusRadios *
rfk_dbus_radios_new (void)
{
  RfkDBusRadios *self = g_new0 (RfkDBusRadios, 1);

  self->entries = g_hash_table_new_full (NULL, NULL, NULL, entry_free);
  return self;
}

void
rfk_dbus_radios_free (RfkDBusRadios *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->entries);
  g_free (self);
}
