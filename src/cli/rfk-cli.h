/*
 * rfk-cli.h: the command-line actions of rfkill-applet.  Each runs a
 * main loop until done and returns the process exit status (0 ok,
 * 1 the action failed; bad arguments are main.c's business).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  RFK_CLI_AIRPLANE_OFF,
  RFK_CLI_AIRPLANE_ON,
  RFK_CLI_AIRPLANE_TOGGLE,
} RfkCliAirplane;

gboolean rfk_cli_airplane_from_string (const char *string,
                                       RfkCliAirplane *out);

int rfk_cli_list (const char *device_path, gboolean json);
/* --history [--json]: the last radio changes, from the history file. */
int rfk_cli_history (gboolean json);
int rfk_cli_airplane (const char *device_path, RfkCliAirplane action);
int rfk_cli_take_back_light (const char *device_path);

G_END_DECLS
