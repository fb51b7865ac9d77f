/* rfk-heap-trim.h: hand freed heap pages back after radios went away. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void rfk_heap_trim_soon (void);

G_END_DECLS
