/*
 * rfk-event.h: pure codec for /dev/rfkill events (no I/O, no state).
 */
#pragma once

#include <glib.h>

#include "rfk-protocol.h"

G_BEGIN_DECLS

typedef struct {
  guint32 idx;
  guint8 type;         /* RfkType, or a number we do not know */
  guint8 op;           /* RfkOp, or a number we do not know */
  gboolean soft;
  gboolean hard;
  guint8 hard_reasons; /* RFK_HARD_BLOCK_* bits; 0 if !has_reasons */
  gboolean has_reasons;/* the event was long enough to carry them */
} RfkEvent;

/*
 * Decodes one read()/packet.  FALSE for anything shorter than V1: the
 * caller counts and drops it.  Bytes past the fields we know are ignored.
 */
gboolean rfk_event_decode (const guint8 *buf, gsize len, RfkEvent *out);

/* Writes the V1 layout (accepted by every kernel); returns the size. */
gsize rfk_event_encode (const RfkEvent *event,
                        guint8 buf[RFK_EVENT_SIZE_V1]);
/* Extended layout with hard_block_reasons, for fake kernels. */
gsize rfk_event_encode_ext (const RfkEvent *event,
                            guint8 buf[RFK_EVENT_SIZE_EXT]);

/* Requests userspace sends. */
RfkEvent rfk_event_change (guint32 idx, guint8 type, gboolean blocked);
RfkEvent rfk_event_change_all (guint8 type, gboolean blocked);
RfkEvent rfk_event_indicator_acquire (void);
RfkEvent rfk_event_indicator_change (gboolean lit);

/* Socket-transport status packets (see rfk-protocol.h). */
gboolean rfk_status_decode (const guint8 *buf, gsize len, int *out_errno);
gsize rfk_status_encode (int error_number, guint8 buf[RFK_STATUS_SIZE]);

/* Socket-transport ioctl packets (see rfk-protocol.h). */
gboolean rfk_ioctl_packet_decode (const guint8 *buf, gsize len,
                                  guint8 *out_nr);
gsize rfk_ioctl_packet_encode (guint8 nr, guint8 buf[RFK_IOCTL_PACKET_SIZE]);

/* "ADD", "CHANGE_ALL", … or NULL for an unknown op. */
const char *rfk_op_to_string (guint op);

G_END_DECLS
