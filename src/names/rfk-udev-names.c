/* rfk-udev-names.c: what udev knows about each radio, through libgudev. */
#include "config.h"

#include <gudev/gudev.h>

#include "rfk-udev-names.h"

#include "rfk-identity.h"

/* Interfaces get renamed (wlan0 -> wlp2s0) after the radio appeared, and
 * rfkill devices come and go with their cards. */
static const char *const watched_subsystems[] = { "rfkill", "net", NULL };

typedef struct
{
  RfkRadioFacts facts;   /* points into the strings below */
  char *name;
  char *parent_subsystem;
  char *parent_driver;
  char *interface;
  char *vendor;
  char *model;
} Entry;

struct _RfkUdevNames
{
  GObject parent_instance;

  GUdevClient *client;   /* owned */
  GHashTable *entries;   /* GUINT(idx) -> Entry (owned) */
};

G_DEFINE_FINAL_TYPE (RfkUdevNames, rfk_udev_names, G_TYPE_OBJECT)

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  g_free (entry->name);
  g_free (entry->parent_subsystem);
  g_free (entry->parent_driver);
  g_free (entry->interface);
  g_free (entry->vendor);
  g_free (entry->model);
  g_free (entry);
}

/* The bus device the hardware database describes: the parent of the
 * phy or hci, or for a USB interface, its USB device. */
static GUdevDevice *
hardware_device (GUdevDevice *radio_device)
{
  g_autoptr(GUdevDevice) bus = g_udev_device_get_parent (radio_device);

  if (bus != NULL &&
      g_strcmp0 (g_udev_device_get_devtype (bus), "usb_interface") == 0)
    return g_udev_device_get_parent (bus);
  return g_steal_pointer (&bus);
}

/* The network interface of a Wi-Fi phy: the wlan netdev on the same bus
 * device whose phy80211 is this phy.  The first by name if several. */
static char *
wifi_interface (RfkUdevNames *self, GUdevDevice *phy)
{
  g_autoptr(GUdevDevice) bus = g_udev_device_get_parent (phy);
  GList *netdevs;
  char *found = NULL;

  if (bus == NULL)
    return NULL;
  netdevs = g_udev_client_query_by_subsystem (self->client, "net");
  for (GList *l = netdevs; l != NULL; l = l->next)
    {
      GUdevDevice *net = l->data;
      g_autoptr(GUdevDevice) parent = g_udev_device_get_parent (net);
      const char *phy_name = g_udev_device_get_sysfs_attr (net, "phy80211/name");

      if (parent == NULL ||
          g_strcmp0 (g_udev_device_get_sysfs_path (parent),
                     g_udev_device_get_sysfs_path (bus)) != 0)
        continue;
      if (phy_name != NULL
            ? g_strcmp0 (phy_name, g_udev_device_get_name (phy)) != 0
            : g_strcmp0 (g_udev_device_get_devtype (net), "wlan") != 0)
        continue;
      if (found == NULL || g_strcmp0 (g_udev_device_get_name (net), found) < 0)
        {
          g_free (found);
          found = g_strdup (g_udev_device_get_name (net));
        }
    }
  g_list_free_full (netdevs, g_object_unref);
  return found;
}

static void
fill_from_udev (RfkUdevNames *self, Entry *entry, guint32 idx)
{
  g_autofree char *path = rfk_identity_dup_sysfs_dir (idx);
  g_autoptr(GUdevDevice) rfkill = NULL;
  g_autoptr(GUdevDevice) parent = NULL;
  g_autoptr(GUdevDevice) hardware = NULL;
  const char *name;

  rfkill = g_udev_client_query_by_sysfs_path (self->client, path);
  if (rfkill == NULL)
    return;
  /* Another radio under this idx by now: its facts would be wrong.
   * (libudev strips the attribute's trailing newline.) */
  name = g_udev_device_get_sysfs_attr (rfkill, "name");
  if (g_strcmp0 (name, entry->name) != 0)
    return;

  parent = g_udev_device_get_parent (rfkill);
  if (parent == NULL)
    return;
  entry->parent_subsystem = g_strdup (g_udev_device_get_subsystem (parent));
  entry->parent_driver = g_strdup (g_udev_device_get_driver (parent));

  if (g_strcmp0 (entry->parent_subsystem, "ieee80211") == 0)
    entry->interface = wifi_interface (self, parent);
  else if (g_strcmp0 (entry->parent_subsystem, "bluetooth") == 0)
    entry->interface = g_strdup (g_udev_device_get_name (parent));
  else
    return;  /* laptop switches and the rest: no hardware to name */

  hardware = hardware_device (parent);
  if (hardware == NULL)
    return;
  entry->vendor = g_strdup (g_udev_device_get_property (hardware,
                                                        "ID_VENDOR_FROM_DATABASE"));
  entry->model = g_strdup (g_udev_device_get_property (hardware,
                                                       "ID_MODEL_FROM_DATABASE"));
}

const RfkRadioFacts *
rfk_udev_names_lookup (RfkUdevNames *self, const RfkDevice *device)
{
  Entry *entry;

  g_return_val_if_fail (RFK_IS_UDEV_NAMES (self), NULL);

  entry = g_hash_table_lookup (self->entries, GUINT_TO_POINTER (device->idx));
  if (entry != NULL && entry->facts.type == device->type &&
      g_strcmp0 (entry->name, device->name) == 0)
    return &entry->facts;

  entry = g_new0 (Entry, 1);
  entry->name = g_strdup (device->name);
  fill_from_udev (self, entry, device->idx);
  entry->facts = (RfkRadioFacts) {
    .type = device->type,
    .name = entry->name,
    .parent_subsystem = entry->parent_subsystem,
    .parent_driver = entry->parent_driver,
    .interface = entry->interface,
    .vendor = entry->vendor,
    .model = entry->model,
  };
  g_hash_table_replace (self->entries, GUINT_TO_POINTER (device->idx), entry);
  return &entry->facts;
}

void
rfk_udev_names_forget (RfkUdevNames *self, guint32 idx)
{
  g_return_if_fail (RFK_IS_UDEV_NAMES (self));
  g_hash_table_remove (self->entries, GUINT_TO_POINTER (idx));
}

gboolean
rfk_udev_names_is_platform_switch (const RfkDevice *device, gpointer user_data)
{
  RfkUdevNames *self = user_data;

  return rfk_radio_facts_role (rfk_udev_names_lookup (self, device))
         == RFK_RADIO_ROLE_PLATFORM_SWITCH;
}

static void
on_uevent (GUdevClient *client, const char *action, GUdevDevice *device,
           RfkUdevNames *self)
{
  /* Wired, bridge and container interfaces come and go: only Wi-Fi
   * interfaces name radios. */
  if (g_strcmp0 (g_udev_device_get_subsystem (device), "net") == 0 &&
      g_strcmp0 (g_udev_device_get_devtype (device), "wlan") != 0)
    return;
  /* Cheap to rebuild: a few sysfs reads per radio on the next sync. */
  g_hash_table_remove_all (self->entries);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
rfk_udev_names_dispose (GObject *object)
{
  RfkUdevNames *self = RFK_UDEV_NAMES (object);

  if (self->client != NULL)
    g_signal_handlers_disconnect_by_data (self->client, self);
  g_clear_object (&self->client);
  g_clear_pointer (&self->entries, g_hash_table_unref);
  G_OBJECT_CLASS (rfk_udev_names_parent_class)->dispose (object);
}

static void
rfk_udev_names_class_init (RfkUdevNamesClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_udev_names_dispose;
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
rfk_udev_names_init (RfkUdevNames *self)
{
  self->entries = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                         NULL, entry_free);
}

RfkUdevNames *
rfk_udev_names_new (void)
{
  RfkUdevNames *self = g_object_new (RFK_TYPE_UDEV_NAMES, NULL);

  self->client = g_udev_client_new (watched_subsystems);
  g_signal_connect (self->client, "uevent", G_CALLBACK (on_uevent), self);
  return self;
}
