/*
 * fuzz-events.c: libFuzzer target over the event decoder and the model.
 *
 * Input: byte 0 picks the airplane-mode types (0xff: all, else a mask of
 * its bits), then packets as  u8 length | length bytes, each fed to the
 * manager exactly as one read() from /dev/rfkill.  After every packet the
 * model is checked against an independent recomputation.
 */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "rfk-event.h"
#include "rfk-led-rule.h"
#include "rfk-manager-private.h"

typedef struct {
  gint64 added;
  gint64 removed;
} Counts;

static void
on_added (RfkManager *m, RfkDevice *d, Counts *c)
{
  c->added++;
}

static void
on_removed (RfkManager *m, RfkDevice *d, Counts *c)
{
  /* Still valid in the handler, and no longer looked up by idx. */
  if (d->name == NULL || rfk_manager_lookup (m, d->idx) == d)
    abort ();
  c->removed++;
}

static void
check_decoder (const guint8 *buf, gsize len)
{
  RfkEvent event;
  guint8 again[RFK_EVENT_SIZE_EXT];
  gboolean ok = rfk_event_decode (buf, len, &event);

  if (ok != (len >= RFK_EVENT_SIZE_V1))
    abort ();
  if (!ok)
    return;
  if (event.has_reasons != (len >= RFK_EVENT_SIZE_EXT))
    abort ();
  /* Re-encoding gives the same fields (booleans normalised). */
  rfk_event_encode_ext (&event, again);
  if (memcmp (again, buf, 6) != 0 || again[6] != (buf[6] != 0)
      || again[7] != (buf[7] != 0)
      || (event.has_reasons && again[8] != buf[8]))
    abort ();
}

static void
check_model (RfkManager *manager, guint32 mask, const Counts *counts)
{
  GPtrArray *devices = rfk_manager_get_devices (manager);
  guint counted = 0, blocked = 0;
  gboolean hardware = FALSE;

  if (counts->added - counts->removed != (gint64) devices->len)
    abort ();
  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *d = g_ptr_array_index (devices, i);

      if (rfk_manager_lookup (manager, d->idx) != d || d->name == NULL)
        abort ();
      if (i > 0)
        {
          RfkDevice *prev = g_ptr_array_index (devices, i - 1);

          if (prev->type > d->type
              || (prev->type == d->type && strcmp (prev->name, d->name) > 0))
            abort ();
        }
      if (!d->hard && d->hard_reasons != 0)
        abort ();
      if (mask == RFK_AIRPLANE_TYPES_ALL
          || (d->type < 32 && (mask & (1u << d->type))))
        {
          counted++;
          blocked += d->soft || d->hard;
        }
      if (d->hard && (d->hard_reasons == 0 || (d->hard_reasons & 1)))
        hardware = TRUE;
      g_free (rfk_device_dup_key (d));
    }
  if (rfk_manager_get_airplane_mode (manager)
      != (counted > 0 && blocked == counted))
    abort ();
  if (rfk_manager_get_hardware_blocked (manager) != hardware)
    abort ();
  for (guint rule = 0; rule < RFK_LED_RULE_COUNT; rule++)
    (void) rfk_led_rule_evaluate (rule, manager);
}

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static gboolean initialised;
  RfkManager *manager;
  Counts counts = { 0 };
  guint32 mask;
  gsize pos = 1;

  if (!initialised)
    {
      /* No real sysfs names, and an empty restore list so the model
       * never wants to write to the (absent) device. */
      g_setenv ("RFKILL_SYSFS_ROOT", "/nonexistent/rfkill-fuzz", TRUE);
      g_setenv ("XDG_STATE_HOME", "/nonexistent/rfkill-fuzz", TRUE);
      g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL);
      initialised = TRUE;
    }
  if (size < 1)
    return 0;

  mask = data[0] == 0xff ? RFK_AIRPLANE_TYPES_ALL : data[0];
  manager = rfk_manager_new ("/nonexistent/rfkill-fuzz/dev");
  g_signal_connect (manager, "device-added", G_CALLBACK (on_added), &counts);
  g_signal_connect (manager, "device-removed", G_CALLBACK (on_removed),
                    &counts);
  rfk_manager_set_airplane_types (manager, mask);
  rfk_manager_feed_ready (manager);

  while (pos < size)
    {
      gsize len = MIN ((gsize) data[pos], size - pos - 1);
      const guint8 *packet = data + pos + 1;

      pos += 1 + len;
      check_decoder (packet, len);
      rfk_manager_feed (manager, packet, len);
      check_model (manager, mask, &counts);
    }

  g_object_unref (manager);
  return 0;
}
