/* rfk-exceptions.c: radios airplane mode leaves alone, on disk. */
#include "config.h"

#include "rfk-exceptions.h"

#include <glib/gi18n.h>

#include "rfk-radio-marks.h"

static RfkRadioMarks exceptions = {
  .file_name = "airplane-exceptions.ini",
  .group = "exceptions",
  .what = N_("The list of radios airplane mode leaves alone"),
};

char *
rfk_exceptions_dup_path (void)
{
  return rfk_radio_marks_dup_path (&exceptions);
}

gboolean
rfk_exceptions_lookup (const char *key)
{
  g_autofree char *value = rfk_radio_marks_lookup (&exceptions, key);

  return g_strcmp0 (value, "stays") == 0;
}

gboolean
rfk_exceptions_set (const char *key, gboolean exception)
{
  return rfk_radio_marks_set (&exceptions, key, exception ? "stays" : NULL);
}
