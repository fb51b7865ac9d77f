/*
 * fuzz-policy.c: libFuzzer target over the airplane policy alone, with
 * no manager, no fd and no file: the radios, the restore list and the
 * counted types all come from the input, so every combination the
 * manager could hand the policy is reachable quickly.
 *
 * Input: byte 0 the counted types (0xff: all, else a mask of its bits),
 * byte 1 bit 0 the restore list's "active", then 4 bytes per radio
 * (at most 16):
 *   type | name | state | remembered
 *   state bit 0 soft, bit 1 hard, bits 2-3 writing (0, 1: none;
 *         2: unblock; 3: block), bit 4 no stable identity (the key is
 *         "type:name", as for a radio without a device path)
 *   remembered bit 0 in the list, bit 1 was blocked, bit 2 under its
 *         "type:name" (a list saved by an older version)
 * Every policy event is planned on them and each plan checked against
 * the promises of rfk-airplane-policy.h (policy-oracle.c).
 */
#include <glib.h>
#include <stdio.h>

#include "policy-oracle.h"

#define MAX_RADIOS 16

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  RfkPolicyRadio radios[MAX_RADIOS];
  /* Keys live on the stack: no allocation beyond the policy's own. */
  char keys[MAX_RADIOS][32];
  char name_keys[MAX_RADIOS][16];
  g_autoptr (RfkAirplaneStore) store = NULL;
  guint32 mask;
  guint n = 0;

  if (size < 2)
    return 0;
  mask = data[0] == 0xff ? RFK_AIRPLANE_TYPES_ALL : data[0];
  store = rfk_airplane_store_new ();
  store->active = data[1] & 1;

  for (gsize pos = 2; pos + 4 <= size && n < MAX_RADIOS; pos += 4, n++)
    {
      guint8 type = data[pos], name = data[pos + 1];
      guint8 state = data[pos + 2], remembered = data[pos + 3];
      guint writing = (state >> 2) & 3;
      RfkPolicyRadio *r = &radios[n];

      /* The kernel's idx and the names are unique; the name is made so
       * from the radio's position. */
      snprintf (name_keys[n], sizeof name_keys[n], "%u:r%u-%u", type, n,
                name);
      if (state & 0x10)
        snprintf (keys[n], sizeof keys[n], "%s", name_keys[n]);
      else
        snprintf (keys[n], sizeof keys[n], "platform-r%u-%u:%u", n, name,
                  type);
      *r = (RfkPolicyRadio) {
        .idx = n + name * MAX_RADIOS,
        .type = type,
        .soft = state & 1,
        .hard = (state >> 1) & 1,
        .writing = writing < 2 ? -1 : (int) writing - 2,
        .key = keys[n],
        .name_key = name_keys[n],
      };
      if (remembered & 1)
        rfk_airplane_store_remember (store,
                                     remembered & 4 ? r->name_key : r->key,
                                     (remembered >> 1) & 1);
    }

  (void) rfk_airplane_policy_in_force (radios, n, mask);
  policy_oracle_check_all (radios, n, store, mask);
  return 0;
}
