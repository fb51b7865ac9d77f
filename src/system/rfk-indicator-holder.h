/* rfk-indicator-holder.h: who holds the kernel's airplane-mode indicator. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean rfk_indicator_holder_read (guint  *out_pid,
                                    char  **out_comm);
char    *rfk_indicator_holder_describe (void);

G_END_DECLS
