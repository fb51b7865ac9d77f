/* rfk-heap.c: keep an all-day process's heap from growing with churn. */
#include "config.h"

#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif

#include "rfk-heap.h"

/*
 * Radios that come and go (USB dongles, btusb re-creating hci0 on every
 * resume) take their menu items with them, and the menu's D-Bus export
 * builds and frees a layout of every item around each change.  The
 * applet does not leak there (memcheck: the same reachable bytes after 3
 * and 15 cycles of 64 radios; massif: a live heap of 4-5 MiB throughout),
 * but glibc keeps freed memory in its arenas, scattered between live
 * blocks: RSS grew 680 KiB over 40 cycles.  Once removals have been quiet
 * for a second, malloc_trim() returns the free pages of every arena (the
 * same 40 cycles: -352 KiB).  It is one pass over a few MiB, and runs only
 * after a radio's menu item was removed (rfk-menu.c): an idle applet never
 * wakes for it.  The icons need no trim: the applet looks up no icon
 * theme, it publishes its own icons' names, installed in hicolor, and
 * their directory as IconThemePath (rfk-icon-theme.c).
 *
 * A fixed 32 KiB mmap threshold was tried twice: from the start it cost
 * some 3 ms of startup (which makes many big short-lived allocations);
 * set once started, churn grew more, not less (684-2,928 KiB over 100
 * cycles in three runs).  It is not used.
 */
#define TRIM_QUIET_MS 1000

static guint trim_source;

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
