/* rfk-cli-common.h: opening the model and reporting, for CLI actions. */
#pragma once

#include <json-glib/json-glib.h>

#include "rfk-manager.h"

G_BEGIN_DECLS

/* A started manager whose initial ADDs are in, or NULL after printing
 * why not (the error names the device and the cause).  read_only: for
 * listing, which needs no write access to the device. */
RfkManager *rfk_cli_open_manager (const char *device_path,
                                  gboolean read_only);

/* What builder built, pretty-printed on stdout. */
void rfk_cli_print_json (JsonBuilder *builder);

/* "rfkill-applet: <message>" on stderr; returns 1 for `return`. */
int rfk_cli_fail (const char *format, ...) G_GNUC_PRINTF (1, 2);

G_END_DECLS
