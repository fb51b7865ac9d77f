/*
 * rfk-menu-exceptions.c: "Bluetooth (hci0) stays on in airplane mode",
 * one check item per exception (RULES.md, "Exceptions"), under the radios.
 * The user makes an exception by turning a radio on in airplane mode; a
 * click here removes it.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-menu-private.h"
#include "rfk-radio-label.h"

static void
on_exception_toggled (GtkCheckMenuItem *item, RfkMenu *self)
{
  guint32 idx = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (item),
                                                     "rfk-idx"));
  g_autoptr (GError) error = NULL;

  if (gtk_check_menu_item_get_active (item))
    return;  /* only removing is offered: turning a radio on makes one */
  if (!rfk_manager_remove_exception (self->manager, idx, &error))
    _rfk_menu_report_failure (self, _("Cannot remove the exception"), error);
  rfk_sync_throttle_queue (self->throttle);
}

static GtkWidget *
new_exception_item (RfkMenu *self, guint32 idx)
{
  GtkWidget *item = gtk_check_menu_item_new_with_mnemonic ("");

  g_object_set_data (G_OBJECT (item), "rfk-idx", GUINT_TO_POINTER (idx));
  gtk_check_menu_item_set_active (GTK_CHECK_MENU_ITEM (item), TRUE);
  g_signal_connect (item, "toggled", G_CALLBACK (on_exception_toggled),
                    self);
  gtk_widget_show (item);
  return item;
}

void
_rfk_menu_sync_exceptions (RfkMenu *self)
{
  GPtrArray *devices = rfk_manager_get_devices (self->manager);
  g_autoptr (GList) children = NULL;
  GHashTableIter iter;
  gpointer key, value;
  int position;
  guint shown = 0;

  /* Gone, or no longer an exception. */
  g_hash_table_iter_init (&iter, self->exception_items);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      RfkDevice *device = rfk_manager_lookup (self->manager,
                                              GPOINTER_TO_UINT (key));

      if (device == NULL || !device->exception)
        {
          gtk_widget_destroy (value);
          g_hash_table_iter_remove (&iter);
        }
    }

  children = gtk_container_get_children (GTK_CONTAINER (self->menu));
  position = g_list_index (children, self->exceptions_separator) + 1;
  for (guint i = 0; devices != NULL && i < devices->len; i++)
    {
      const RfkDevice *device = g_ptr_array_index (devices, i);
      GtkWidget *item;
      g_autofree char *radio = NULL;
      g_autofree char *text = NULL;
      g_autofree char *label = NULL;

      if (!device->exception)
        continue;
      item = g_hash_table_lookup (self->exception_items,
                                  GUINT_TO_POINTER (device->idx));
      if (item == NULL)
        {
          item = new_exception_item (self, device->idx);
          g_hash_table_insert (self->exception_items,
                               GUINT_TO_POINTER (device->idx), item);
        }
      if (g_list_nth_data (children, position) != item)
        {
          if (gtk_widget_get_parent (item) != NULL)
            rfk_menu_item_move (self->menu, item, position);
          else
            gtk_menu_shell_insert (GTK_MENU_SHELL (self->menu), item,
                                   position);
          g_list_free (children);
          children = gtk_container_get_children (GTK_CONTAINER (self->menu));
        }
      position++;
      shown++;
      radio = rfk_radio_label (device);
      /* It stays as it is: the label says which way. */
      text = g_strdup_printf (rfk_device_is_blocked (device)
                                /* TRANSLATORS: "Bluetooth (hci0) stays off
                                 * in airplane mode": the user made an
                                 * exception of it; a click removes it. */
                                ? _("%s stays off in airplane mode")
                                /* TRANSLATORS: "Bluetooth (hci0) stays on
                                 * in airplane mode" */
                                : _("%s stays on in airplane mode"),
                              radio);
      label = rfk_menu_item_label_for_text (text);
      rfk_menu_item_set_label (item, label);
      /* Checked while it is one, also after a click that failed. */
      _rfk_menu_set_active_quietly (item, TRUE, on_exception_toggled);
    }
  rfk_menu_item_set_visible (self->exceptions_separator, shown > 0);
}
