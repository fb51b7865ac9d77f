/* rfk-device.h: one radio as the kernel reports it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Radio types as numbered by the kernel (enum rfkill_type). */
typedef enum {
  RFK_TYPE_ALL = 0,
  RFK_TYPE_WLAN = 1,
  RFK_TYPE_BLUETOOTH = 2,
  RFK_TYPE_UWB = 3,
  RFK_TYPE_WIMAX = 4,
  RFK_TYPE_WWAN = 5,
  RFK_TYPE_GPS = 6,
  RFK_TYPE_FM = 7,
  RFK_TYPE_NFC = 8,
  RFK_TYPE_COUNT
} RfkType;

/* Why a radio is hard-blocked (kernel RFKILL_HARD_BLOCK_*). */
typedef enum {
  RFK_HARD_REASON_SIGNAL = 1 << 0,    /* a physical switch or a signal */
  RFK_HARD_REASON_NOT_OWNER = 1 << 1, /* the radio is owned elsewhere */
} RfkHardReason;

/*
 * A device is owned by its RfkManager; the pointer stays valid until the
 * manager emits "device-removed" for it.  Read-only for everybody else.
 */
typedef struct {
  guint32 idx;         /* kernel index, not stable across hot-plug */
  guint8 type;         /* RfkType, or a newer number we do not know */
  gboolean soft;       /* soft-blocked */
  gboolean hard;       /* hard-blocked */
  guint8 hard_reasons; /* RfkHardReason bits; 0 with V1-only kernels */
  char *name;          /* sysfs name ("phy0", "hci0"), never NULL */
  /* The bus device, as a path under /sys/devices, or NULL
   * (rfk_identity_read_bus_device()).  Not "device_path": that is the
   * /dev/rfkill file everywhere (RfkManager, the CLI, our DevicePath). */
  char *bus_device;
  gboolean switch_only;/* rfk_device_name_is_switch_only () */
  /* Its driver did not carry out our last block or unblock: the kernel
   * never confirmed it within the timeout.  Left out of airplane mode
   * until its state next changes (RULES.md, "refusing radios"). */
  gboolean refused;
  gboolean refused_soft; /* the state it did not reach */
  /* The user turned it on in airplane mode: airplane mode leaves it as
   * the user leaves it (RULES.md, rfk-exceptions.h). */
  gboolean exception;
  /* When it was plugged in, monotonic µs (0: there at start): a change
   * soon after is a restore as it was plugged in
   * (rfk-manager-history.c). */
  gint64 added_us;
} RfkDevice;

/* Airplane mode counts it: not a known switch, not refusing, not an
 * exception. */
gboolean rfk_device_takes_part (const RfkDevice *device);
/* "acme-slider (Wi-Fi) did not turn off", for a refused device. */
char *rfk_device_dup_refusal (const RfkDevice *device);

gboolean rfk_device_is_blocked (const RfkDevice *device);
/* Hard-blocked by a switch or signal, not only for being owned elsewhere.
 * A V1 kernel gives no reason: its hard blocks count as a switch's. */
gboolean rfk_device_hard_by_switch (const RfkDevice *device);

/*
 * Whether the driver of this rfkill name only reports a hardware switch
 * and refuses every soft block (its set_block() fails, and the kernel
 * keeps the radio as it was).  Such a "radio" can never be blocked by
 * airplane mode, so it is left out of it: counted, it would keep
 * airplane mode from ever holding.
 */
gboolean rfk_device_name_is_switch_only (const char *name);

/*
 * Stable identity across re-plugs and reboots, like systemd-rfkill's:
 * "type:bus device" ("wlan:pci0000:00/0000:00:14.3"); a radio without a
 * bus device falls back to "type:name" ("wlan:phy0").
 */
char *rfk_device_dup_key (const RfkDevice *device);
/* Always "type:name": how lists saved before bus devices are keyed. */
char *rfk_device_dup_name_key (const RfkDevice *device);

/* Type table: short name ("wlan"), NULL for unknown numbers. */
const char *rfk_type_to_string (guint type);
/* The same where a name must be printed: "unknown" for numbers we do not
 * know (--list's TYPE, the D-Bus radios' "type", the log).  Never
 * translated: scripts read it. */
const char *rfk_type_to_name (guint type);
/* Accepts short names and aliases ("wifi", "bt"); FALSE if unknown. */
gboolean rfk_type_from_string (const char *string, RfkType *out_type);
/* Type names ("wifi", "all", ...) to flags, one bit (1 << RfkType)
 * each, as the airplane-radio-types key holds them.  A name it does not
 * know adds nothing; the first such name goes to out_unknown (NULL when
 * every name was known) for callers that refuse it.  names may be NULL. */
guint rfk_type_flags_from_names (const char *const *names,
                                 const char **out_unknown);
/* Translated, human readable ("Wi-Fi", "Bluetooth", "Unknown radio"). */
const char *rfk_type_to_label (guint type);

/* Translated reason text ("hardware switch", "not owner"); "" for 0. */
char *rfk_hard_reasons_to_label (guint8 reasons);
/* The known reasons by name ("signal", "not-owner"), in bit order, for
 * the D-Bus API and --json; never translated.  Free with g_strfreev(). */
GStrv rfk_hard_reasons_to_names (guint8 reasons);

G_END_DECLS
