/*
 * rfk-airplane-policy.c: airplane-mode decisions, free of I/O.
 *
 * Facts about the kernel this relies on (net/rfkill/core.c):
 *  - CHANGE_ALL sets the global state of a type (RFKILL_TYPE_ALL: of
 *    every type) and applies it to each radio of that type; a radio
 *    registered later starts in its type's global state.  So airplane
 *    mode written with CHANGE_ALL holds for radios that appear while no
 *    program of ours runs.
 *  - rfkill-input's KEY_RFKILL toggles from the global state of
 *    RFKILL_TYPE_ALL, which only CHANGE_ALL(all) sets (see
 *    block_targets() for when we do).
 *  - A radio can only be switched with CHANGE (one idx) without touching
 *    the others: leaving airplane mode uses CHANGE per radio so a radio
 *    that was off before never flashes on, and CHANGE_ALL only for types
 *    whose radios all end up on (to reset the global state).
 */
#include "config.h"

#include "rfk-airplane-policy.h"

#include <gio/gio.h>
#include <glib/gi18n.h>

#include "rfk-device.h"
#include "rfk-protocol.h"

void
rfk_airplane_plan_free (RfkAirplanePlan *plan)
{
  if (plan == NULL)
    return;
  rfk_airplane_store_free (plan->save);
  g_array_unref (plan->writes);
  g_array_unref (plan->expect);
  g_clear_error (&plan->error);
  g_free (plan);
}

static RfkAirplanePlan *
plan_new (void)
{
  RfkAirplanePlan *plan = g_new0 (RfkAirplanePlan, 1);

  plan->writes = g_array_new (FALSE, FALSE, sizeof (RfkPolicyWrite));
  plan->expect = g_array_new (FALSE, FALSE, sizeof (RfkPolicyExpect));
  return plan;
}

gboolean
rfk_airplane_policy_counts (guint32 counted_types, guint type)
{
  if (counted_types == RFK_AIRPLANE_TYPES_ALL)
    return TRUE;
  return type < 32 && (counted_types & (1u << type)) != 0;
}

gboolean
rfk_airplane_policy_takes_part (guint32 counted_types,
                                const RfkDevice *device)
{
  return rfk_airplane_policy_counts (counted_types, device->type)
         && rfk_device_takes_part (device);
}

/* Where the radio's soft state is going: our write in flight wins. */
static gboolean
effective_soft (const RfkPolicyRadio *radio)
{
  return radio->writing >= 0 ? radio->writing != 0 : radio->soft;
}

gboolean
rfk_airplane_policy_in_force (const RfkPolicyRadio *radios, guint n_radios,
                              guint32 counted_types)
{
  guint counted = 0;

  for (guint i = 0; i < n_radios; i++)
    {
      const RfkPolicyRadio *r = &radios[i];

      if (!rfk_airplane_policy_counts (counted_types, r->type) || r->spared)
        continue;
      counted++;
      /* Where our writes in flight leave it: requests take effect in
       * the order they came. */
      if (!effective_soft (r) && !r->hard)
        return FALSE;
    }
  return counted > 0;
}

static gboolean
lookup (const RfkAirplaneStore *store, const RfkPolicyRadio *radio,
        gboolean *out_soft)
{
  return rfk_airplane_store_lookup (store, radio->key, out_soft)
         || (radio->name_key != NULL
             && rfk_airplane_store_lookup (store, radio->name_key, out_soft));
}

static RfkAirplaneStore *
store_copy (const RfkAirplaneStore *store)
{
  RfkAirplaneStore *copy = rfk_airplane_store_new ();
  GHashTableIter iter;
  gpointer key, value;

  copy->active = store->active;
  g_hash_table_iter_init (&iter, store->radios);
  while (g_hash_table_iter_next (&iter, &key, &value))
    rfk_airplane_store_remember (copy, key, GPOINTER_TO_INT (value) == 2);
  return copy;
}

static void
add_write (RfkAirplanePlan *plan, guint8 op, guint32 idx, guint8 type,
           gboolean soft)
{
  RfkPolicyWrite write = { .op = op, .idx = idx, .type = type,
                           .soft = soft };

  g_array_append_val (plan->writes, write);
}

static void
add_expect (RfkAirplanePlan *plan, guint32 idx, gboolean soft)
{
  RfkPolicyExpect expect = { .idx = idx, .soft = soft };

  g_array_append_val (plan->expect, expect);
}

/* A CHANGE_ALL that blocks type would switch a spared radio off. */
static gboolean
spared_on (const RfkPolicyRadio *radios, guint n_radios, guint type)
{
  for (guint i = 0; i < n_radios; i++)
    if (radios[i].spared && !effective_soft (&radios[i])
        && (type == RFK_TYPE_ALL || radios[i].type == type))
      return TRUE;
  return FALSE;
}

static gboolean
list_has_radio_off (const RfkAirplaneStore *store)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, store->radios);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (GPOINTER_TO_INT (value) == 2)
      return TRUE;
  return FALSE;
}

/*
 * Blocks the targets through the global state of each counted type.
 * The global state of RFKILL_TYPE_ALL (the one the airplane key toggles
 * from) is set only when every radio will come back on: leaving can then
 * reset it with one CHANGE_ALL.  Were a radio to stay off, resetting it
 * would flash that radio on, and leaving it "blocked" would make the next
 * key press turn every radio on; so then only the per-type states are
 * set, and the key's first press in airplane mode does nothing (rfkill-
 * input blocks what is blocked already), its second one ends it.
 *
 * A type with a spared radio that is on keeps its global state: its
 * targets are blocked one by one.
 */
static void
block_targets (RfkAirplanePlan *plan, const RfkPolicyRadio *radios,
               guint n_radios, const gboolean *target, guint32 counted_types,
               const RfkAirplaneStore *list)
{
  gboolean by_all = counted_types == RFK_AIRPLANE_TYPES_ALL
                    && !list_has_radio_off (list)
                    && !spared_on (radios, n_radios, RFK_TYPE_ALL);
  gboolean by_type[RFK_TYPE_COUNT] = { FALSE };

  if (by_all)
    add_write (plan, RFK_OP_CHANGE_ALL, 0, RFK_TYPE_ALL, TRUE);
  else
    for (guint t = RFK_TYPE_ALL + 1; t < RFK_TYPE_COUNT; t++)
      if (rfk_airplane_policy_counts (counted_types, t)
          && !spared_on (radios, n_radios, t))
        {
          add_write (plan, RFK_OP_CHANGE_ALL, 0, t, TRUE);
          by_type[t] = TRUE;
        }

  for (guint i = 0; i < n_radios; i++)
    {
      guint8 type = radios[i].type;

      if (!target[i])
        continue;
      /* Not covered by a CHANGE_ALL: a type we do not know, a radio
       * claiming the "all" type, or a type with a spared radio on. */
      if (!by_all && !(type < RFK_TYPE_COUNT && by_type[type]))
        add_write (plan, RFK_OP_CHANGE, radios[i].idx, type, TRUE);
      add_expect (plan, radios[i].idx, TRUE);
    }
}

static RfkAirplanePlan *
plan_block (RfkPolicyEvent event, const RfkPolicyRadio *radios,
            guint n_radios, const RfkAirplaneStore *remembered,
            guint32 counted_types)
{
  RfkAirplanePlan *plan = plan_new ();
  g_autofree gboolean *target = g_new0 (gboolean, n_radios + 1);
  gboolean any_target = FALSE, extend, list_changed = FALSE;
  RfkAirplaneStore *store;

  /* A list is only still valid while its airplane mode holds: after an
   * `rfkill unblock` we never saw, its "off before" are stale. */
  if (event == RFK_POLICY_ON)
    extend = remembered->active
             && rfk_airplane_policy_in_force (radios, n_radios,
                                              counted_types);
  else
    extend = remembered->active;
  if (event != RFK_POLICY_ON && !extend)
    return plan;

  store = extend ? store_copy (remembered) : rfk_airplane_store_new ();
  store->active = TRUE;
  for (guint i = 0; i < n_radios; i++)
    {
      const RfkPolicyRadio *r = &radios[i];

      if (!rfk_airplane_policy_counts (counted_types, r->type) || r->spared)
        continue;
      target[i] = !effective_soft (r);
      any_target |= target[i];
      /* A radio plugged in now came up in the kernel's airplane state:
       * that is not how it was before, so it stays a stranger. */
      if (event != RFK_POLICY_RADIOS_ADDED && !lookup (store, r, NULL))
        {
          rfk_airplane_store_remember (store, r->key, effective_soft (r));
          list_changed = TRUE;
        }
    }

  /* A list already on disk is saved again only when it grew.  A new one
   * is saved even when every radio is off already: off must then leave
   * them off, not turn on radios that were off before. */
  if (any_target)
    block_targets (plan, radios, n_radios, target, counted_types, store);
  if (extend ? list_changed : (any_target || event == RFK_POLICY_ON))
    plan->save = store;
  else
    rfk_airplane_store_free (store);
  return plan;
}

static RfkAirplanePlan *
plan_off (const RfkPolicyRadio *radios, guint n_radios,
          const RfkAirplaneStore *remembered, guint32 counted_types)
{
  RfkAirplanePlan *plan = plan_new ();
  g_autofree int *want = g_new (int, n_radios + 1);
  gboolean switchable = FALSE;
  /* Per type: does some radio stay blocked (then its global state must
   * stay "blocked" too, or resetting it would flash that radio on)? */
  gboolean stays_off[RFK_TYPE_COUNT] = { FALSE };
  gboolean any_stays_off = FALSE;

  if (!remembered->active
      && !rfk_airplane_policy_in_force (radios, n_radios, counted_types))
    return plan;  /* not ours, not on: leave every radio as it is */

  for (guint i = 0; i < n_radios; i++)
    {
      const RfkPolicyRadio *r = &radios[i];
      gboolean counted = rfk_airplane_policy_counts (counted_types, r->type);
      gboolean soft = FALSE;  /* radios we never saw: airplane off = on */

      want[i] = -1;
      if (r->spared)
        ;  /* left as it is; a spared radio off keeps its type's global
            * state blocked below, as any radio that stays off */
      else if (remembered->active && lookup (remembered, r, &soft))
        want[i] = soft;
      else if (counted && (remembered->active || !r->hard))
        want[i] = FALSE;
      if (counted && !r->hard && !r->spared)
        switchable = TRUE;
      if ((want[i] == -1 ? effective_soft (r) : want[i]) && counted)
        {
          if (r->type < RFK_TYPE_COUNT)
            stays_off[r->type] = TRUE;
          any_stays_off = TRUE;
        }
    }

  /* Without our list there is nothing to restore: a switch holds them. */
  if (!remembered->active && !switchable)
    {
      plan->error = g_error_new (G_IO_ERROR, G_IO_ERROR_BUSY,
                                 _("Radios stay off: a hardware switch "
                                   "blocks them"));
      return plan;
    }

  /* Where every radio of a type ends up on, one CHANGE_ALL both switches
   * them and resets the type's global state; elsewhere CHANGE per radio,
   * and the global state stays "blocked" (resetting it would flash the
   * radios that stay off). */
  for (guint i = 0; i < n_radios; i++)
    {
      const RfkPolicyRadio *r = &radios[i];
      gboolean by_type;

      if (want[i] < 0 || want[i] == effective_soft (r))
        continue;
      by_type = !any_stays_off && counted_types == RFK_AIRPLANE_TYPES_ALL;
      by_type |= r->type > RFK_TYPE_ALL && r->type < RFK_TYPE_COUNT
                 && rfk_airplane_policy_counts (counted_types, r->type)
                 && !stays_off[r->type];
      if (!by_type)
        add_write (plan, RFK_OP_CHANGE, r->idx, r->type, want[i]);
      add_expect (plan, r->idx, want[i]);
    }
  if (counted_types == RFK_AIRPLANE_TYPES_ALL && !any_stays_off)
    add_write (plan, RFK_OP_CHANGE_ALL, 0, RFK_TYPE_ALL, FALSE);
  else
    for (guint t = RFK_TYPE_ALL + 1; t < RFK_TYPE_COUNT; t++)
      if (rfk_airplane_policy_counts (counted_types, t) && !stays_off[t])
        add_write (plan, RFK_OP_CHANGE_ALL, 0, t, FALSE);
  return plan;
}

/* Another program (gsd's CHANGE_ALL, `rfkill unblock all`, the airplane
 * key) turned everything on: airplane mode is over, and the radios that
 * were off before go off again. */
static RfkAirplanePlan *
plan_ended_elsewhere (const RfkPolicyRadio *radios, guint n_radios,
                      const RfkAirplaneStore *remembered)
{
  RfkAirplanePlan *plan = plan_new ();

  if (!remembered->active)
    return plan;
  plan->save = rfk_airplane_store_new ();
  for (guint i = 0; i < n_radios; i++)
    {
      gboolean soft;

      if (!radios[i].spared && lookup (remembered, &radios[i], &soft)
          && soft && !effective_soft (&radios[i]))
        {
          add_write (plan, RFK_OP_CHANGE, radios[i].idx, radios[i].type,
                     TRUE);
          add_expect (plan, radios[i].idx, TRUE);
        }
    }
  return plan;
}

RfkAirplanePlan *
rfk_airplane_policy_plan (RfkPolicyEvent event, const RfkPolicyRadio *radios,
                          guint n_radios, const RfkAirplaneStore *remembered,
                          guint32 counted_types)
{
  g_return_val_if_fail (remembered != NULL, NULL);
  g_return_val_if_fail (radios != NULL || n_radios == 0, NULL);

  switch (event)
    {
    case RFK_POLICY_ON:
    case RFK_POLICY_TYPES_CHANGED:
    case RFK_POLICY_RADIOS_ADDED:
      return plan_block (event, radios, n_radios, remembered, counted_types);
    case RFK_POLICY_OFF:
      return plan_off (radios, n_radios, remembered, counted_types);
    case RFK_POLICY_ENDED_ELSEWHERE:
      return plan_ended_elsewhere (radios, n_radios, remembered);
    }
  g_return_val_if_reached (NULL);
}
