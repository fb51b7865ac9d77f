/* policy-oracle.c: see policy-oracle.h. */
#include <stdlib.h>

#include "policy-oracle.h"
#include "rfk-protocol.h"

/* Does a write in plan cover radio r (CHANGE of it, CHANGE_ALL of its
 * type or of all), setting soft? */
static gboolean
plan_writes (const RfkAirplanePlan *plan, const RfkPolicyRadio *r,
             gboolean soft)
{
  for (guint i = 0; i < plan->writes->len; i++)
    {
      const RfkPolicyWrite *w = &g_array_index (plan->writes, RfkPolicyWrite,
                                                i);

      if (w->soft != soft)
        continue;
      if (w->op == RFK_OP_CHANGE ? w->idx == r->idx
                                 : w->type == 0 || w->type == r->type)
        return TRUE;
    }
  return FALSE;
}

/* The list remembers a radio by its key, or by "type:name" when an
 * older version saved it. */
static gboolean
remembered (const RfkAirplaneStore *store, const RfkPolicyRadio *r,
            gboolean *before)
{
  return rfk_airplane_store_lookup (store, r->key, before)
         || (r->name_key != NULL
             && rfk_airplane_store_lookup (store, r->name_key, before));
}

static gboolean
effective (const RfkPolicyRadio *r)
{
  return r->writing >= 0 ? r->writing : r->soft;
}

void
policy_oracle_check (RfkPolicyEvent event, const RfkPolicyRadio *radios,
                     guint n_radios, const RfkAirplaneStore *store,
                     guint32 mask, const RfkAirplanePlan *plan)
{
  if (plan->error != NULL && plan->writes->len > 0)
    abort ();
  for (guint i = 0; i < n_radios; i++)
    {
      const RfkPolicyRadio *r = &radios[i];
      gboolean before = FALSE;
      gboolean known = remembered (store, r, &before);
      gboolean counted = rfk_airplane_policy_counts (mask, r->type);

      switch (event)
        {
        case RFK_POLICY_ON:
          /* Every counted radio on is blocked, never one unblocked. */
          if (counted && !effective (r) && !plan_writes (plan, r, TRUE))
            abort ();
          if (plan_writes (plan, r, FALSE))
            abort ();
          break;
        case RFK_POLICY_OFF:
          /* A radio that was off before never flashes on. */
          if (store->active && known && before
              && plan_writes (plan, r, FALSE))
            abort ();
          if (plan->save != NULL || plan_writes (plan, r, TRUE)
              != (store->active && known && before && !effective (r)))
            abort ();
          break;
        case RFK_POLICY_ENDED_ELSEWHERE:
          if (plan_writes (plan, r, FALSE)
              || (plan_writes (plan, r, TRUE)
                  && !(store->active && known && before)))
            abort ();
          break;
        default:
          if (plan_writes (plan, r, FALSE))
            abort ();
          if (!store->active && plan->writes->len > 0)
            abort ();
          break;
        }
    }
}

void
policy_oracle_check_all (const RfkPolicyRadio *radios, guint n_radios,
                         const RfkAirplaneStore *store, guint32 mask)
{
  for (RfkPolicyEvent event = RFK_POLICY_ON;
       event <= RFK_POLICY_ENDED_ELSEWHERE; event++)
    {
      g_autoptr (RfkAirplanePlan) plan =
        rfk_airplane_policy_plan (event, radios, n_radios, store, mask);

      policy_oracle_check (event, radios, n_radios, store, mask, plan);
    }
}
