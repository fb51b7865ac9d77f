/*
 * rfk-radio-names.h: what a radio is and what to call it, from facts the
 * system gives about it (udev, sysfs), as plain strings.
 *
 * Nothing here reads the system: the UI's udev adaptor (rfk-udev-names.h)
 * gathers the facts, and tests give them directly.  Every field but the
 * type and the name may be NULL: the label then falls back to what the
 * kernel alone says, "Wi-Fi (phy0)".
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  /* A transmitter: a Wi-Fi card (its ieee80211 phy), a Bluetooth
   * adapter (its hci), an NFC chip, a modem. */
  RFK_RADIO_ROLE_RADIO,
  /* A laptop's own switch for radios that have their own rfkill device
   * too (ideapad_wlan, tpacpi_bluetooth_sw, asus-wlan, hp-wifi,
   * dell-rbtn): the firmware's side of the wireless key or slider. */
  RFK_RADIO_ROLE_PLATFORM_SWITCH,
} RfkRadioRole;

typedef struct {
  guint type;                   /* RfkType */
  const char *name;             /* rfkill name: "phy0", "ideapad_wlan" */
  /* The rfkill device's parent: its subsystem ("ieee80211", "bluetooth",
   * "platform", "acpi", "wmi", "pci", …) and driver ("ideapad_acpi"). */
  const char *parent_subsystem;
  const char *parent_driver;
  const char *interface;        /* network interface ("wlp2s0"), or hci */
  /* The hardware database's names for the bus device (PCI, USB, SDIO)
   * behind the radio: ID_VENDOR_FROM_DATABASE, ID_MODEL_FROM_DATABASE. */
  const char *vendor;
  const char *model;
} RfkRadioFacts;

/* A laptop switch when the rfkill device hangs off the firmware (a
 * platform, ACPI or WMI device) rather than off a radio's own device. */
RfkRadioRole rfk_radio_facts_role (const RfkRadioFacts *facts);

/* "Intel Wi-Fi 6 AX200" from "Intel Corporation" and "Wi-Fi 6 AX200":
 * the vendor without its legal form, the model without codenames in
 * brackets and without generic trailing words; NULL if neither says
 * anything. */
char *rfk_radio_hardware_name (const char *vendor, const char *model);

/*
 * The radio's name for people, translated:
 *   "Wi-Fi — Intel Wi-Fi 6 AX200 (wlp2s0)"   hardware and interface known
 *   "Bluetooth — Intel AX200 Bluetooth (hci0)"
 *   "Wi-Fi (wlp2s0)"                         interface only
 *   "Wi-Fi switch (laptop, ideapad_wlan)"    a platform switch
 *   "Wi-Fi (phy0)"                           the kernel's facts only
 */
char *rfk_radio_facts_label (const RfkRadioFacts *facts);

G_END_DECLS
