/* rfk-event.c: pure codec for /dev/rfkill events. */
#include "rfk-event.h"

#include <string.h>

gboolean
rfk_event_decode (const guint8 *buf, gsize len, RfkEvent *out)
{
  guint32 idx;

  g_return_val_if_fail (out != NULL, FALSE);

  if (buf == NULL || len < RFK_EVENT_SIZE_V1)
    return FALSE;

  memcpy (&idx, buf, sizeof idx);
  *out = (RfkEvent) {
    .idx = idx,
    .type = buf[4],
    .op = buf[5],
    .soft = buf[6] != 0,
    .hard = buf[7] != 0,
  };
  if (len >= RFK_EVENT_SIZE_EXT)
    {
      out->has_reasons = TRUE;
      out->hard_reasons = buf[8];
    }
  return TRUE;
}

static void
encode_v1 (const RfkEvent *event, guint8 *buf)
{
  memcpy (buf, &event->idx, sizeof event->idx);
  buf[4] = event->type;
  buf[5] = event->op;
  buf[6] = event->soft ? 1 : 0;
  buf[7] = event->hard ? 1 : 0;
}

gsize
rfk_event_encode (const RfkEvent *event, guint8 buf[RFK_EVENT_SIZE_V1])
{
  encode_v1 (event, buf);
  return RFK_EVENT_SIZE_V1;
}

gsize
rfk_event_encode_ext (const RfkEvent *event, guint8 buf[RFK_EVENT_SIZE_EXT])
{
  encode_v1 (event, buf);
  buf[8] = event->hard_reasons;
  return RFK_EVENT_SIZE_EXT;
}

RfkEvent
rfk_event_change (guint32 idx, guint8 type, gboolean blocked)
{
  return (RfkEvent) { .idx = idx, .type = type, .op = RFK_OP_CHANGE,
                      .soft = blocked };
}

RfkEvent
rfk_event_change_all (guint8 type, gboolean blocked)
{
  return (RfkEvent) { .type = type, .op = RFK_OP_CHANGE_ALL,
                      .soft = blocked };
}

RfkEvent
rfk_event_indicator_acquire (void)
{
  return (RfkEvent) { .op = RFK_OP_INDICATOR_ACQUIRE };
}

RfkEvent
rfk_event_indicator_change (gboolean lit)
{
  return (RfkEvent) { .op = RFK_OP_INDICATOR_CHANGE, .soft = lit };
}

gboolean
rfk_status_decode (const guint8 *buf, gsize len, int *out_errno)
{
  if (buf == NULL || len != RFK_STATUS_SIZE
      || buf[0] != RFK_STATUS_MAGIC0 || buf[1] != RFK_STATUS_MAGIC1)
    return FALSE;
  if (out_errno)
    *out_errno = buf[2] | (buf[3] << 8);
  return TRUE;
}

gsize
rfk_status_encode (int error_number, guint8 buf[RFK_STATUS_SIZE])
{
  guint16 e = (guint16) CLAMP (error_number, 0, G_MAXUINT16);

  buf[0] = RFK_STATUS_MAGIC0;
  buf[1] = RFK_STATUS_MAGIC1;
  buf[2] = e & 0xff;
  buf[3] = e >> 8;
  return RFK_STATUS_SIZE;
}

gboolean
rfk_ioctl_packet_decode (const guint8 *buf, gsize len, guint8 *out_nr)
{
  if (buf == NULL || len != RFK_IOCTL_PACKET_SIZE
      || buf[0] != RFK_STATUS_MAGIC0 || buf[1] != RFK_IOCTL_PACKET_MAGIC1
      || buf[3] != 0)
    return FALSE;
  if (out_nr)
    *out_nr = buf[2];
  return TRUE;
}

gsize
rfk_ioctl_packet_encode (guint8 nr, guint8 buf[RFK_IOCTL_PACKET_SIZE])
{
  buf[0] = RFK_STATUS_MAGIC0;
  buf[1] = RFK_IOCTL_PACKET_MAGIC1;
  buf[2] = nr;
  buf[3] = 0;
  return RFK_IOCTL_PACKET_SIZE;
}

static const char *const op_names[] = {
  [RFK_OP_ADD] = "ADD",
  [RFK_OP_DEL] = "DEL",
  [RFK_OP_CHANGE] = "CHANGE",
  [RFK_OP_CHANGE_ALL] = "CHANGE_ALL",
  [RFK_OP_INDICATOR_ACQUIRE] = "INDICATOR_ACQUIRE",
  [RFK_OP_INDICATOR_CHANGE] = "INDICATOR_CHANGE",
};

const char *
rfk_op_to_string (guint op)
{
  return op < G_N_ELEMENTS (op_names) ? op_names[op] : NULL;
}
