/* rfk-refusals.c: radios whose driver refused our last change, on disk. */
#include "config.h"

#include "rfk-refusals.h"

#include <glib/gi18n.h>

#include "rfk-radio-marks.h"

static RfkRadioMarks refusals = {
  .file_name = "refused-radios.ini",
  .group = "refused",
  .what = N_("The list of radios that refused a change"),
};

char *
rfk_refusals_dup_path (void)
{
  return rfk_radio_marks_dup_path (&refusals);
}

gboolean
rfk_refusals_lookup (const char *key, gboolean soft_stayed)
{
  g_autofree char *value = rfk_radio_marks_lookup (&refusals, key);

  return g_strcmp0 (value, soft_stayed ? "blocked" : "unblocked") == 0;
}

void
rfk_refusals_set (const char *key, gboolean refused, gboolean soft_stayed)
{
  rfk_radio_marks_set (&refusals, key,
                       !refused ? NULL
                       : soft_stayed ? "blocked" : "unblocked");
}

guint
rfk_refusals_get_reads (void)
{
  return rfk_radio_marks_get_reads (&refusals);
}
