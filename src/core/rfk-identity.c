/* rfk-identity.c: a radio's name and stable identity from sysfs. */
#include "config.h"

#include "rfk-identity.h"

#include <stdlib.h>
#include <string.h>

const char *
rfk_identity_sysfs_class_dir (void)
{
  const char *root = g_getenv ("RFKILL_SYSFS_ROOT");

  return root != NULL && *root != '\0' ? root : "/sys/class/rfkill";
}

char *
rfk_identity_dup_sysfs_dir (guint32 idx)
{
  g_autofree char *dir = g_strdup_printf ("rfkill%u", idx);

  return g_build_filename (rfk_identity_sysfs_class_dir (), dir, NULL);
}

char *
rfk_identity_read_name (guint32 idx)
{
  g_autofree char *dir = rfk_identity_dup_sysfs_dir (idx);
  g_autofree char *path = g_build_filename (dir, "name", NULL);
  g_autofree char *contents = NULL;

  /* Vanished already, or nothing a person can read: keep the idx. */
  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return g_strdup_printf ("rfkill%u", idx);
  g_strchomp (contents);
  if (*contents == '\0' || !g_utf8_validate (contents, -1, NULL))
    return g_strdup_printf ("rfkill%u", idx);
  return g_steal_pointer (&contents);
}

/* The name of the subsystem a sysfs device belongs to, and whether it is
 * a class ("…/class/ieee80211") rather than a bus ("…/bus/pci"). */
static char *
read_subsystem (const char *device_dir, gboolean *out_is_class)
{
  g_autofree char *link = g_build_filename (device_dir, "subsystem", NULL);
  g_autofree char *target = g_file_read_link (link, NULL);
  g_autofree char *parent = NULL;
  g_autofree char *kind = NULL;

  if (target == NULL)
    return NULL;
  parent = g_path_get_dirname (target);
  kind = g_path_get_basename (parent);
  *out_is_class = g_str_equal (kind, "class");
  return g_path_get_basename (target);
}

char *
rfk_identity_read_bus_device (guint32 idx)
{
  g_autofree char *link = rfk_identity_dup_sysfs_dir (idx);
  g_autofree char *device = NULL;
  char *resolved = realpath (link, NULL);
  const char *under;

  if (resolved == NULL)
    return NULL;
  device = g_strdup (resolved);
  free (resolved);

  /* Class devices sit in their parent device, directly or in a
   * directory named after their class: climb out of both. */
  for (;;)
    {
      gboolean is_class = FALSE;
      g_autofree char *subsystem = read_subsystem (device, &is_class);
      g_autofree char *parent = NULL;
      g_autofree char *parent_name = NULL;

      if (subsystem == NULL)
        return NULL;
      if (!is_class)
        break;
      parent = g_path_get_dirname (device);
      parent_name = g_path_get_basename (parent);
      if (g_str_equal (parent_name, subsystem))
        {
          char *up = g_path_get_dirname (parent);

          g_free (parent);
          parent = up;
        }
      /* No bus behind it: a virtual device (mac80211_hwsim's hwsimN,
       * vhci's hciN) is named by its driver, which counts from 0 again
       * each time it loads; that name is the best identity there is. */
      if (g_str_has_suffix (parent, "/devices/virtual"))
        {
          if (g_str_equal (subsystem, "rfkill"))
            return NULL;  /* rfkillN alone: numbered as they come */
          break;
        }
      g_free (device);
      device = g_steal_pointer (&parent);
    }

  under = strstr (device, "/devices/");
  if (under == NULL)
    return NULL;
  under += strlen ("/devices/");
  if (*under == '\0')
    return NULL;
  return g_strdup (under);
}
