/* rfk-heap-trim.c: hand freed heap pages back after radios went away. */
#include "config.h"

#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif

#include "rfk-heap-trim.h"

/*
 * A radio that goes away takes its menu items with it, and the menu's
 * D-Bus export builds and frees layouts of every item around that.  glibc
 * keeps the freed memory in its arenas, scattered between live blocks,
 * so an applet that sees radios come and go for days (USB dongles, btusb
 * re-creating hci0 on every resume) grows without leaking a byte: the
 * bench counted 17 KiB per 64 radios added and removed.  Once the churn
 * has been quiet for a moment, malloc_trim() returns the free pages of
 * every arena to the kernel.  It is one pass over a few MiB of heap, and
 * runs only after a removal: an idle applet never wakes for it.
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
