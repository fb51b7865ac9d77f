/* rfk-radio-label.h: how the applet names a radio to the user. */
#pragma once

#include "rfk-device.h"
#include "rfk-radio-names.h"

G_BEGIN_DECLS

/* "Wi-Fi (phy0)": the translated type label and the kernel name. */
char *rfk_radio_label (const RfkDevice *device);

/* The menu text: the radio's name for people (from facts, see
 * rfk-radio-names.h; NULL: the kernel's name as above), plus why it is
 * hard-blocked if it is. */
char *rfk_radio_menu_label (const RfkDevice *device,
                            const RfkRadioFacts *facts);

G_END_DECLS
