/* rfk-heap.c: keep an all-day process's heap from growing with churn. */
#include "config.h"

#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif

#include "rfk-heap.h"

/*
 * Radios that come and go (USB dongles, btusb re-creating hci0 on every
 * resume) take their menu items with them, and the menu's D-Bus export
 * builds and frees a layout of every item around each change.  With
 * glibc's defaults the applet's RSS grew without a leak (memcheck: the
 * same reachable bytes after 3 and 15 cycles of 64 radios; massif: a live
 * heap of 4-5 MiB throughout), in two ways the bench measured:
 *
 *  - Freed memory stays in the arenas, scattered between live blocks:
 *    +680 KiB over 40 cycles.  Once removals have been quiet for a
 *    second, malloc_trim() returns the free pages of every arena (the
 *    same 40 cycles: -352 KiB).  It is one pass over a few MiB, and runs
 *    only after a removal: an idle applet never wakes for it.
 *  - Big transient buffers (a layout of 128 items, its D-Bus message) land
 *    in the heap once glibc has raised its mmap threshold, which it does
 *    after the first big free, and live blocks allocated meanwhile pin
 *    the heap's top.  Over 300 cycles RSS rose in steps, by 2.8 MiB, and
 *    was flat from cycle 130 on; with a fixed threshold (no raising: such
 *    buffers get their own mappings, handed back at free()) it rose by
 *    1.9 MiB, flat from cycle 130 on (one run each).
 */
#define MMAP_THRESHOLD_BYTES (32 * 1024)
#define TRIM_QUIET_MS 1000

static guint trim_source;

void
rfk_heap_init (void)
{
#ifdef HAVE_MALLOC_TRIM
  mallopt (M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
#endif
}

#ifdef HAVE_MALLOC_TRIM
static gboolean
trim_now (gpointer user_data)
{
  trim_source = 0;
  malloc_trim (0);
  return G_SOURCE_REMOVE;
}
#endif

void
rfk_heap_trim_soon (void)
{
#ifdef HAVE_MALLOC_TRIM
  /* Re-armed by each removal: a burst of them is trimmed once, after. */
  g_clear_handle_id (&trim_source, g_source_remove);
  trim_source = g_timeout_add_full (G_PRIORITY_LOW, TRIM_QUIET_MS,
                                    trim_now, NULL, NULL);
#endif
}
