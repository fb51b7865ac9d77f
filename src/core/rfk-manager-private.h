/*
 * rfk-manager-private.h: entry points for the fuzzer and the benchmark,
 * which drive the model without a device.  Not for the UI.
 */
#pragma once

#include "rfk-manager.h"

G_BEGIN_DECLS

/* Processes one read()/packet exactly as if it came from the device. */
void rfk_manager_feed (RfkManager *self, const guint8 *buf, gsize len);

/* Marks the manager READY without a device (initial ADDs are over). */
void rfk_manager_feed_ready (RfkManager *self);

/* Writes go to fd (the manager closes it); nothing is read from it, the
 * caller feeds events with rfk_manager_feed(). */
void rfk_manager_adopt_fd (RfkManager *self, int fd, gboolean is_socket);

G_END_DECLS
