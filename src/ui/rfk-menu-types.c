/*
 * rfk-menu-types.c: the "Airplane mode turns off" submenu, a check item
 * per radio type present, over the airplane-radio-types setting.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-airplane-policy.h"
#include "rfk-menu-private.h"
#include "rfk-preferences.h"

/* Every type the airplane-radio-types flags can name (1 << type). */
#define KNOWN_TYPE_FLAGS (((1u << RFK_TYPE_COUNT) - 1) & ~(1u << RFK_TYPE_ALL))
/* The flag that stands for every type, newer ones included ("all"). */
#define ALL_TYPES_FLAG (1u << RFK_TYPE_ALL)

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
  rfk_sync_throttle_queue (self->throttle);
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

void
_rfk_menu_sync_types (RfkMenu *self)
{
  guint present = present_type_flags (self), counted = counted_type_flags (self);
  guint counted_present = counted & present;

  for (guint type = RFK_TYPE_ALL + 1; type < RFK_TYPE_COUNT; type++)
    {
      GtkWidget *item = self->type_items[type];
      gboolean is_counted = (counted & (1u << type)) != 0;

      rfk_menu_item_set_visible (item, (present & (1u << type)) != 0);
      _rfk_menu_set_active_quietly (item, is_counted, on_type_toggled);
      rfk_menu_item_set_sensitive (item, !is_counted ||
                                         counted_present != (1u << type));
    }
  rfk_menu_item_set_visible (self->types_item, present != 0);
}

GtkWidget *
_rfk_menu_build_types_submenu (RfkMenu *self)
{
  /* TRANSLATORS: a submenu: the radio types airplane mode switches off. */
  GtkWidget *item = gtk_menu_item_new_with_mnemonic (_("Airplane mode _turns off"));
  GtkWidget *submenu = gtk_menu_new ();

  for (guint type = RFK_TYPE_ALL + 1; type < RFK_TYPE_COUNT; type++)
    {
      g_autofree char *label =
        rfk_menu_item_label_for_text (rfk_type_to_label (type));
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
