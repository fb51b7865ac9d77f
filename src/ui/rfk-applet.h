/* rfk-applet.h: entry point of the tray applet (GTK side). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Runs the tray applet on the given rfkill device (NULL: /dev/rfkill) until
 * the user quits.  Single instance per session: a second call in the same
 * session only activates the first one.  Returns the process exit status.
 */
int rfk_applet_run (const char *device_path, int argc, char **argv);

G_END_DECLS
