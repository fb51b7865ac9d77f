/* rfk-device.c: radio types, names and labels, driven by one table. */
#include "config.h"

#include "rfk-device.h"

#include <glib/gi18n.h>

#include "rfk-protocol.h"

typedef struct {
  const char *name;      /* as util-linux rfkill prints it */
  const char *aliases[3];
  const char *label;     /* translatable */
} RfkTypeInfo;

/* Index = kernel type number.  Adding a type is one line. */
static const RfkTypeInfo type_table[RFK_TYPE_COUNT] = {
  [RFK_TYPE_ALL] = { "all", { NULL }, N_("All radios") },
  [RFK_TYPE_WLAN] = { "wlan", { "wifi", "wi-fi", NULL }, N_("Wi-Fi") },
  [RFK_TYPE_BLUETOOTH] = { "bluetooth", { "bt", NULL }, N_("Bluetooth") },
  [RFK_TYPE_UWB] = { "uwb", { "ultrawideband", NULL }, N_("Ultra-wideband") },
  [RFK_TYPE_WIMAX] = { "wimax", { NULL }, N_("WiMAX") },
  [RFK_TYPE_WWAN] = { "wwan", { "mobile", NULL }, N_("Mobile broadband") },
  [RFK_TYPE_GPS] = { "gps", { NULL }, N_("GPS") },
  [RFK_TYPE_FM] = { "fm", { NULL }, N_("FM radio") },
  [RFK_TYPE_NFC] = { "nfc", { NULL }, N_("NFC") },
};

gboolean
rfk_device_name_is_switch_only (const char *name)
{
  /* dell-rbtn: Dell's airplane-mode slider (DELLABCE/DELRBTN); its
   * set_block() returns -EINVAL ("setting soft rfkill state is not
   * supported") and its soft state follows the slider.
   *
   * The general rule for radios that refuse (a block the kernel does not
   * confirm within the timeout leaves the radio out until it next
   * changes) would cope with it too, but not well enough: the slider
   * "changes" each time the user moves it, so it would count again
   * after every move, and every airplane-mode switch would then wait the
   * whole timeout for it and report a refusal on every Dell laptop.  A
   * driver known to refuse always is left out from the start. */
  static const char *const switch_only[] = { "dell-rbtn" };

  for (gsize i = 0; i < G_N_ELEMENTS (switch_only); i++)
    if (g_strcmp0 (name, switch_only[i]) == 0)
      return TRUE;
  return FALSE;
}

gboolean
rfk_device_takes_part (const RfkDevice *device)
{
  return !device->switch_only && !device->refused && !device->exception;
}

char *
rfk_device_dup_refusal (const RfkDevice *device)
{
  /* TRANSLATORS: "acme-slider (Wi-Fi) did not turn off" */
  return g_strdup_printf (device->refused_soft ? _("%s (%s) did not turn off")
                                               : _("%s (%s) did not turn on"),
                          device->name, rfk_type_to_label (device->type));
}

gboolean
rfk_device_is_blocked (const RfkDevice *device)
{
  g_return_val_if_fail (device != NULL, FALSE);
  return device->soft || device->hard;
}

gboolean
rfk_device_hard_by_switch (const RfkDevice *device)
{
  return device->hard && (device->hard_reasons == 0 ||
                          (device->hard_reasons & RFK_HARD_REASON_SIGNAL));
}

static char *
make_key (guint8 type_number, const char *identity)
{
  const char *type = rfk_type_to_string (type_number);

  if (type != NULL)
    return g_strdup_printf ("%s:%s", type, identity);
  return g_strdup_printf ("type%u:%s", type_number, identity);
}

char *
rfk_device_dup_key (const RfkDevice *device)
{
  g_return_val_if_fail (device != NULL, NULL);
  return make_key (device->type, device->bus_device ? device->bus_device
                                                    : device->name);
}

char *
rfk_device_dup_name_key (const RfkDevice *device)
{
  g_return_val_if_fail (device != NULL, NULL);
  return make_key (device->type, device->name);
}

const char *
rfk_type_to_string (guint type)
{
  return type < RFK_TYPE_COUNT ? type_table[type].name : NULL;
}

const char *
rfk_type_to_name (guint type)
{
  const char *name = rfk_type_to_string (type);

  return name != NULL ? name : "unknown";
}

gboolean
rfk_type_from_string (const char *string, RfkType *out_type)
{
  g_return_val_if_fail (string != NULL, FALSE);

  for (guint t = 0; t < RFK_TYPE_COUNT; t++)
    {
      const RfkTypeInfo *info = &type_table[t];

      if (g_ascii_strcasecmp (string, info->name) == 0)
        goto found;
      for (guint a = 0; info->aliases[a] != NULL; a++)
        if (g_ascii_strcasecmp (string, info->aliases[a]) == 0)
          goto found;
      continue;
found:
      if (out_type)
        *out_type = (RfkType) t;
      return TRUE;
    }
  return FALSE;
}

guint
rfk_type_flags_from_names (const char *const *names, const char **out_unknown)
{
  guint flags = 0;

  if (out_unknown != NULL)
    *out_unknown = NULL;
  for (gsize i = 0; names != NULL && names[i] != NULL; i++)
    {
      RfkType type;

      if (rfk_type_from_string (names[i], &type))
        flags |= 1u << type;
      else if (out_unknown != NULL && *out_unknown == NULL)
        *out_unknown = names[i];
    }
  return flags;
}

const char *
rfk_type_to_label (guint type)
{
  if (type < RFK_TYPE_COUNT)
    return _(type_table[type].label);
  return _("Unknown radio");
}

char *
rfk_hard_reasons_to_label (guint8 reasons)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new ();

  if (reasons & RFK_HARD_REASON_SIGNAL)
    g_ptr_array_add (parts, (gpointer) _("hardware switch"));
  if (reasons & RFK_HARD_REASON_NOT_OWNER)
    g_ptr_array_add (parts, (gpointer) _("not owner"));
  if (reasons & ~(RFK_HARD_REASON_SIGNAL | RFK_HARD_REASON_NOT_OWNER))
    g_ptr_array_add (parts, (gpointer) _("unknown reason"));
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (", ", (char **) parts->pdata);
}

GStrv
rfk_hard_reasons_to_names (guint8 reasons)
{
  g_autoptr (GStrvBuilder) names = g_strv_builder_new ();

  if (reasons & RFK_HARD_REASON_SIGNAL)
    g_strv_builder_add (names, "signal");
  if (reasons & RFK_HARD_REASON_NOT_OWNER)
    g_strv_builder_add (names, "not-owner");
  return g_strv_builder_end (names);
}
