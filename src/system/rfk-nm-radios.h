/*
 * rfk-nm-radios.h: NetworkManager's Wi-Fi and WWAN switches follow
 * airplane mode.
 *
 * NetworkManager keeps its own switches (WirelessEnabled, WWANEnabled) in
 * its state file and, when it starts, writes them to the kernel with a
 * CHANGE_ALL.  A reboot in airplane mode would therefore turn Wi-Fi back
 * on, whatever systemd-rfkill restored.  So when airplane mode begins we
 * switch NetworkManager's Wi-Fi (and WWAN) off too, and we switch it back
 * on once, outside airplane mode, every radio of that type is on again:
 * if we switched it off, or if NetworkManager still says it is off a few
 * seconds later (it hears of the radios through udev, after us).
 *
 * Without NetworkManager on the bus nothing happens; a refusal (polkit:
 * not the active session) is logged once.
 */
#pragma once

#include <gio/gio.h>

#include "rfk-manager.h"

G_BEGIN_DECLS

#define RFK_TYPE_NM_RADIOS (rfk_nm_radios_get_type ())
G_DECLARE_FINAL_TYPE (RfkNmRadios, rfk_nm_radios, RFK, NM_RADIOS, GObject)

/* Follows manager's airplane mode; bus: NULL for the system bus. */
RfkNmRadios *rfk_nm_radios_new (RfkManager *manager, GDBusConnection *bus);
/* Decides now what waits for the radios to settle and waits up to
 * timeout_ms for NetworkManager's answers: for a program about to exit. */
void rfk_nm_radios_flush (RfkNmRadios *self, guint timeout_ms);

G_END_DECLS
