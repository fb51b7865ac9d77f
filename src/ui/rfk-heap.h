/* rfk-heap.h: keep an all-day process's heap from growing with churn. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void rfk_heap_trim_soon (void);

G_END_DECLS
