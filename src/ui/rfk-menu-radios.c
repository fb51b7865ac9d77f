/*
 * rfk-menu-radios.c: one check item per radio, radios under "Airplane
 * mode" and laptop switches under their heading, placed and updated in
 * place at each sync; the status item and the airplane item's mark.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-heap.h"
#include "rfk-menu-private.h"
#include "rfk-radio-label.h"

static GtkWidget *
new_radio_item (RfkMenu *self, guint32 idx)
{
  /* Labels are set escaped (rfk_menu_item_label_for_text()). */
  GtkWidget *item = gtk_check_menu_item_new_with_mnemonic ("");

  g_object_set_data (G_OBJECT (item), "rfk-idx", GUINT_TO_POINTER (idx));
  /* Before the request: it reads the model as the request does. */
  g_signal_connect (item, "toggled", G_CALLBACK (_rfk_menu_note_request),
                    self);
  g_signal_connect (item, "toggled", G_CALLBACK (_rfk_menu_on_radio_toggled),
                    self);
  gtk_widget_show (item);
  return item;
}


/*
 * Puts a radio's item at position, creating it the first time.  children
 * is the menu's list of children, read once per sync (not once per radio:
 * that was a list of every item for each radio) and read again here only
 * when the item had to be inserted or moved.
 */
static GtkWidget *
place_radio_item (RfkMenu *self, const RfkDevice *device, int position,
                  GList **children)
{
  GtkWidget *item = g_hash_table_lookup (self->radio_items,
                                         GUINT_TO_POINTER (device->idx));

  if (item == NULL)
    {
      item = new_radio_item (self, device->idx);
      gtk_menu_shell_insert (GTK_MENU_SHELL (self->menu), item, position);
      g_hash_table_insert (self->radio_items,
                           GUINT_TO_POINTER (device->idx), item);
    }
  else if (g_list_nth_data (*children, position) != item)
    {
      /* Sorting may move a radio whose idx was reused for another, and
       * udev may tell a radio from a laptop switch only later. */
      rfk_menu_item_move (self->menu, item, position);
    }
  else
    return item;
  g_list_free (*children);
  *children = gtk_container_get_children (GTK_CONTAINER (self->menu));
  return item;
}

static void
sync_radio_item (RfkMenu *self, GtkWidget *item, const RfkDevice *device,
                 const RfkRadioFacts *facts, gboolean ready)
{
  g_autofree char *text = rfk_radio_menu_label (device, facts);
  g_autofree char *label = NULL;

  /* Its driver did not carry out our last change: airplane mode leaves
   * it out until it changes, and the item says why. */
  if (device->refused)
    {
      g_autofree char *plain = g_steal_pointer (&text);

      if (device->refused_soft)
        /* TRANSLATORS: "Wi-Fi (acme-slider) — did not turn off" */
        text = g_strdup_printf (_("%s — did not turn off"), plain);
      else
        /* TRANSLATORS: "Wi-Fi (acme-slider) — did not turn on" */
        text = g_strdup_printf (_("%s — did not turn on"), plain);
    }
  label = rfk_menu_item_label_for_text (text);

  rfk_menu_item_set_label (item, label);
  _rfk_menu_set_active_quietly (item, !rfk_device_is_blocked (device),
                                _rfk_menu_on_radio_toggled);
  /* A hard block cannot be undone from here: the item is insensitive
   * and its label says why (a click that reaches it anyway writes
   * nothing and is told why, _rfk_menu_note_request()). */
  rfk_menu_item_set_sensitive (item, ready && !device->hard);
}

void
_rfk_menu_sync_radios (RfkMenu *self)
{
  GPtrArray *devices = rfk_manager_get_devices (self->manager);
  /* Writes fail until the manager is ready (a socket's ADDs settle). */
  gboolean ready = rfk_manager_get_state (self->manager) == RFK_MANAGER_STATE_READY;
  const GError *airplane_error;
  GHashTableIter iter;
  gpointer key, value;
  int position;
  guint n_switches = 0;
  gboolean removed = FALSE;
  g_autoptr(GList) children = NULL;

  /* Drop items whose radio is gone (DEL, or the device went away). */
  g_hash_table_iter_init (&iter, self->radio_items);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      if (rfk_manager_lookup (self->manager, GPOINTER_TO_UINT (key)) == NULL)
        {
          rfk_udev_names_forget (self->names, GPOINTER_TO_UINT (key));
          gtk_widget_destroy (value);
          g_hash_table_iter_remove (&iter);
          removed = TRUE;
        }
    }
  if (removed)
    rfk_heap_trim_soon ();

  /* Radios first, under "Airplane mode"; laptop switches get their own
   * section, so that ideapad_wlan is not read as a second Wi-Fi card. */
  children = gtk_container_get_children (GTK_CONTAINER (self->menu));
  position = g_list_index (children, self->first_separator) + 1;
  for (guint i = 0; devices != NULL && i < devices->len; i++)
    {
      const RfkDevice *device = g_ptr_array_index (devices, i);
      const RfkRadioFacts *facts = rfk_udev_names_lookup (self->names, device);

      if (rfk_radio_facts_role (facts) == RFK_RADIO_ROLE_PLATFORM_SWITCH)
        continue;
      sync_radio_item (self,
                       place_radio_item (self, device, position++, &children),
                       device, facts, ready);
    }

  position = g_list_index (children, self->switch_header) + 1;
  for (guint i = 0; devices != NULL && i < devices->len; i++)
    {
      const RfkDevice *device = g_ptr_array_index (devices, i);
      const RfkRadioFacts *facts = rfk_udev_names_lookup (self->names, device);

      if (rfk_radio_facts_role (facts) != RFK_RADIO_ROLE_PLATFORM_SWITCH)
        continue;
      sync_radio_item (self,
                       place_radio_item (self, device, position++, &children),
                       device, facts, ready);
      n_switches++;
    }
  rfk_menu_item_set_visible (self->switch_separator, n_switches > 0);
  rfk_menu_item_set_visible (self->switch_header, n_switches > 0);

  /* A restore list we cannot use is said here, not only in the log. */
  airplane_error = rfk_manager_get_airplane_error (self->manager);
  rfk_menu_item_set_text (self->status_item,
                          airplane_error != NULL && devices != NULL
                          && devices->len > 0
                            ? airplane_error->message
                            : rfk_manager_state_describe (
                                rfk_manager_get_state (self->manager)));
  rfk_menu_item_set_visible (self->status_item,
                             devices == NULL || devices->len == 0
                             || airplane_error != NULL);
  rfk_menu_item_set_sensitive (self->airplane_item,
                               ready && devices != NULL && devices->len > 0);
  _rfk_menu_set_active_quietly (self->airplane_item,
                                rfk_manager_get_airplane_mode (self->manager),
                                _rfk_menu_on_airplane_toggled);
}
