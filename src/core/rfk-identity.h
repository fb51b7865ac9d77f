/*
 * rfk-identity.h: what sysfs says about a radio: its name and a stable
 * identity that survives re-plugging and reboots.
 *
 * Both are read under $RFKILL_SYSFS_ROOT (default /sys/class/rfkill), so
 * tests can give a stand-in tree.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* $RFKILL_SYSFS_ROOT, default /sys/class/rfkill: the one place that says
 * where the rfkill class is in sysfs, read from the environment at each
 * call (tests change it). */
const char *rfk_identity_sysfs_class_dir (void);
/* Its rfkillN: a radio's sysfs directory. */
char *rfk_identity_dup_sysfs_dir (guint32 idx);

/* rfkillN/name, or "rfkillN" when it is gone or unreadable. */
char *rfk_identity_read_name (guint32 idx);

/*
 * The bus device the radio belongs to, as a path under the devices
 * directory ("pci0000:00/0000:00:14.3"), like udev's ID_PATH which
 * systemd-rfkill keys its saved states by.  Class devices that the kernel
 * numbers as they come (phy3, hci1, rfkill7) are skipped, so a card
 * re-plugged in the same slot gets the same identity.  A virtual device
 * has no bus: its identity is the device its driver named
 * ("virtual/mac80211_hwsim/hwsim1").  NULL when sysfs has no link:
 * callers fall back to the name.
 */
char *rfk_identity_read_bus_device (guint32 idx);

G_END_DECLS
