/*
 * rfk-udev-names.h: the facts udev has about each radio (rfk-radio-names.h),
 * looked up with libgudev and cached until udev reports a change.
 *
 * The radio's sysfs device is $RFKILL_SYSFS_ROOT/rfkillN (default
 * /sys/class/rfkill/rfkillN); a stand-in tree outside /sys (fake-rfkill)
 * has no udev behind it, and the facts then hold the type and name only.
 */
#pragma once

#include <glib-object.h>

#include "rfk-device.h"
#include "rfk-radio-names.h"

G_BEGIN_DECLS

#define RFK_TYPE_UDEV_NAMES (rfk_udev_names_get_type ())
G_DECLARE_FINAL_TYPE (RfkUdevNames, rfk_udev_names, RFK, UDEV_NAMES, GObject)

RfkUdevNames *rfk_udev_names_new (void);

/* Never NULL; valid until the next lookup or "changed".  A reused idx
 * with another name or type is looked up again. */
const RfkRadioFacts *rfk_udev_names_lookup (RfkUdevNames *self,
                                            const RfkDevice *device);

/* The radio is gone: drop its facts. */
void rfk_udev_names_forget (RfkUdevNames *self, guint32 idx);

/* An RfkPlatformSwitchFunc (rfk-hardware-airplane.h); user_data is the
 * RfkUdevNames. */
gboolean rfk_udev_names_is_platform_switch (const RfkDevice *device,
                                            gpointer user_data);

G_END_DECLS

/* Signals: "changed" ()  udev reported a radio, interface or device
 * change (a hot-plug, an interface renamed): look the facts up again. */
