/*
 * rfk-cli-list.c: --list and --list --json.
 *
 * The table copies util-linux rfkill's columns and untranslated values so
 * scripts written for one read the other; REASON and the AIRPLANE line
 * are ours.  One column table drives the header, the widths and the row
 * cells.
 */
#include "config.h"

#include "rfk-cli.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "rfk-cli-common.h"
#include "rfk-hardware-airplane.h"
#include "rfk-identity.h"
#include "rfk-protocol.h"
#include "rfk-radio-names.h"

typedef char *(*CellFunc) (const RfkDevice *device);

static char *
cell_id (const RfkDevice *d)
{
  return g_strdup_printf ("%u", d->idx);
}

static char *
cell_type (const RfkDevice *d)
{
  return g_strdup (rfk_type_to_name (d->type));
}

static char *
cell_device (const RfkDevice *d)
{
  return g_strdup (d->name);
}

static char *
cell_soft (const RfkDevice *d)
{
  return g_strdup (d->soft ? "blocked" : "unblocked");
}

static char *
cell_hard (const RfkDevice *d)
{
  return g_strdup (d->hard ? "blocked" : "unblocked");
}

static char *
cell_reason (const RfkDevice *d)
{
  if (!d->hard)
    return g_strdup ("");
  if (d->hard_reasons == 0)
    return g_strdup ("-");  /* V1 kernel: not told */
  return rfk_hard_reasons_to_label (d->hard_reasons);
}

static const struct {
  const char *header;
  gboolean right_align;
  CellFunc cell;
} columns[] = {
  { "ID", TRUE, cell_id },
  { "TYPE", FALSE, cell_type },
  { "DEVICE", FALSE, cell_device },
  { "SOFT", FALSE, cell_soft },
  { "HARD", FALSE, cell_hard },
  { "REASON", FALSE, cell_reason },
};

/* The radios airplane mode leaves alone, by ID, on a line of their own
 * that only exists when there are some: the table stays util-linux's. */
static void
print_exceptions (GPtrArray *devices)
{
  g_autoptr (GString) line = g_string_new ("EXCEPTIONS");
  gboolean any = FALSE;

  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *d = g_ptr_array_index (devices, i);

      if (!d->exception)
        continue;
      g_string_append_printf (line, " %u", d->idx);
      any = TRUE;
    }
  if (any)
    printf ("%s\n", line->str);
}

static void
print_table (RfkManager *manager)
{
  GPtrArray *devices = rfk_manager_get_devices (manager);
  guint n_rows = devices->len + 1;
  g_autofree char **cells = g_new0 (char *, n_rows * G_N_ELEMENTS (columns));
  glong widths[G_N_ELEMENTS (columns)] = { 0 };

  for (guint r = 0; r < n_rows; r++)
    for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
      {
        char **cell = &cells[r * G_N_ELEMENTS (columns) + c];

        *cell = r == 0 ? g_strdup (columns[c].header)
                       : columns[c].cell (g_ptr_array_index (devices, r - 1));
        widths[c] = MAX (widths[c], g_utf8_strlen (*cell, -1));
      }

  for (guint r = 0; r < n_rows; r++)
    {
      g_autoptr (GString) line = g_string_new (NULL);

      for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
        {
          char *cell = cells[r * G_N_ELEMENTS (columns) + c];
          glong pad = widths[c] - g_utf8_strlen (cell, -1);

          if (c > 0)
            g_string_append_c (line, ' ');
          if (columns[c].right_align)
            for (glong i = 0; i < pad; i++)
              g_string_append_c (line, ' ');
          g_string_append (line, cell);
          if (!columns[c].right_align && c + 1 < G_N_ELEMENTS (columns))
            for (glong i = 0; i < pad; i++)
              g_string_append_c (line, ' ');
          g_free (cell);
        }
      g_strchomp (line->str);
      printf ("%s\n", line->str);
    }
  printf ("AIRPLANE %s\n",
          rfk_manager_get_airplane_mode (manager) ? "on" : "off");
  print_exceptions (devices);
}

/* The basename of the link dir/name points to, or NULL. */
static char *
link_basename (const char *dir, const char *name)
{
  g_autofree char *link = g_build_filename (dir, name, NULL);
  g_autofree char *target = g_file_read_link (link, NULL);

  return target != NULL ? g_path_get_basename (target) : NULL;
}

/*
 * Whether the device is a laptop's own switch rather than a radio, told
 * by the device its rfkill device hangs off (rfk_radio_facts_role()).
 * The applet asks udev (rfk-udev-names.c); the CLI reads the same parent
 * from sysfs, so that its answer is the tray icon's without udev.  A
 * rfkill device under a bus device sits in a "rfkill" directory there,
 * which is no device of its own.
 */
static gboolean
sysfs_is_platform_switch (const RfkDevice *device, gpointer user_data)
{
  g_autofree char *link = rfk_identity_dup_sysfs_dir (device->idx);
  g_autofree char *parent = NULL;
  g_autofree char *parent_name = NULL;
  g_autofree char *subsystem = NULL;
  g_autofree char *driver = NULL;
  char *resolved = realpath (link, NULL);
  RfkRadioFacts facts = { .type = device->type, .name = device->name };

  if (resolved == NULL)
    return FALSE;
  parent = g_path_get_dirname (resolved);
  free (resolved);
  parent_name = g_path_get_basename (parent);
  if (g_str_equal (parent_name, "rfkill"))
    {
      char *up = g_path_get_dirname (parent);

      g_free (parent);
      parent = up;
    }
  subsystem = link_basename (parent, "subsystem");
  driver = link_basename (parent, "driver");
  facts.parent_subsystem = subsystem;
  facts.parent_driver = driver;
  return rfk_radio_facts_role (&facts) == RFK_RADIO_ROLE_PLATFORM_SWITCH;
}

static void
add_reasons (JsonBuilder *builder, guint8 reasons)
{
  g_auto (GStrv) names = rfk_hard_reasons_to_names (reasons);

  json_builder_set_member_name (builder, "reasons");
  json_builder_begin_array (builder);
  for (char **name = names; *name != NULL; name++)
    json_builder_add_string_value (builder, *name);
  json_builder_end_array (builder);
}

static void
print_json (RfkManager *manager)
{
  GPtrArray *devices = rfk_manager_get_devices (manager);
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  /* "rfkilldevices" with util-linux's member names and values. */
  json_builder_set_member_name (builder, "rfkilldevices");
  json_builder_begin_array (builder);
  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *d = g_ptr_array_index (devices, i);
      g_autofree char *type = cell_type (d);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "id");
      json_builder_add_int_value (builder, d->idx);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, type);
      json_builder_set_member_name (builder, "type-number");
      json_builder_add_int_value (builder, d->type);
      json_builder_set_member_name (builder, "device");
      json_builder_add_string_value (builder, d->name);
      json_builder_set_member_name (builder, "soft");
      json_builder_add_string_value (builder, d->soft ? "blocked"
                                                      : "unblocked");
      json_builder_set_member_name (builder, "hard");
      json_builder_add_string_value (builder, d->hard ? "blocked"
                                                      : "unblocked");
      add_reasons (builder, d->hard_reasons);
      /* Ours, not util-linux's: airplane mode leaves it alone. */
      json_builder_set_member_name (builder, "airplane-exception");
      json_builder_add_boolean_value (builder, d->exception);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "airplane-mode");
  json_builder_add_boolean_value (builder,
                                  rfk_manager_get_airplane_mode (manager));
  json_builder_set_member_name (builder, "airplane-error");
  if (rfk_manager_get_airplane_error (manager) != NULL)
    json_builder_add_string_value (builder,
                                   rfk_manager_get_airplane_error (manager)
                                     ->message);
  else
    json_builder_add_null_value (builder);
  /* Some radio is hard-blocked by a switch (a BIOS-disabled WWAN card
   * too): what this member always said, kept for scripts. */
  json_builder_set_member_name (builder, "hardware-switch");
  json_builder_add_boolean_value (builder,
                                  rfk_manager_get_hardware_blocked (manager));
  /* What the tray icon and the light's hardware-switch rule say: a
   * switch holds every radio type airplane mode counts. */
  json_builder_set_member_name (builder, "switch-holds-airplane-mode");
  json_builder_add_boolean_value (builder,
                                  rfk_switch_holds_airplane_mode (
                                    manager, sysfs_is_platform_switch, NULL));
  json_builder_end_object (builder);

  rfk_cli_print_json (builder);
}

int
rfk_cli_list (const char *device_path, gboolean json)
{
  g_autoptr (RfkManager) manager = rfk_cli_open_manager (device_path, TRUE);
  const GError *airplane_error;

  if (manager == NULL)
    return 1;
  /* A corrupt restore list is shown, not only logged. */
  airplane_error = rfk_manager_get_airplane_error (manager);
  if (airplane_error != NULL)
    rfk_cli_fail ("%s", airplane_error->message);
  if (json)
    print_json (manager);
  else
    print_table (manager);
  return fflush (stdout) == 0 ? 0 : 1;
}
