/*
 * rfk-in-order.h: requests from every door, carried out in the order
 * they arrived.
 *
 * A click in the tray's menu reaches us as dbusmenu's Event method, and
 * libdbusmenu does not act on it in its D-Bus handler: it answers, then
 * activates the item from a zero-length timeout.  Our own D-Bus methods,
 * property writes and the middle click (the item's SecondaryActivate) were
 * acted on in their handlers, so a request sent right after a click was
 * carried out before it (RULES.md: requests are applied in the order they
 * arrive).  Every door therefore goes through the same kind of source:
 * GLib dispatches zero-length timeouts of one priority in the order they
 * were added, and GDBus hands us messages in the order they came.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Calls func (data) once, after every request that arrived before this
 * one; notify (data) afterwards. */
void rfk_in_order (GSourceFunc func, gpointer data, GDestroyNotify notify);

G_END_DECLS
