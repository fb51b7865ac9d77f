/* rfk-in-order.c: see rfk-in-order.h for why a zero-length timeout. */
#include "config.h"

#include "rfk-in-order.h"

void
rfk_in_order (GSourceFunc func, gpointer data, GDestroyNotify notify)
{
  /* The same kind of source, priority and interval as libdbusmenu's, so
   * that a click and the request after it keep their order. */
  guint id = g_timeout_add_full (G_PRIORITY_DEFAULT, 0, func, data, notify);

  g_source_set_name_by_id (id, "[rfkill-applet] request in order");
}
