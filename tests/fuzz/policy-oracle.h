/*
 * policy-oracle.h: the promises of rfk-airplane-policy.h, checked on one
 * plan.  Shared by both fuzz targets; abort() on a broken promise.
 */
#pragma once

#include "rfk-airplane-policy.h"

void policy_oracle_check (RfkPolicyEvent event, const RfkPolicyRadio *radios,
                          guint n_radios, const RfkAirplaneStore *store,
                          guint32 mask, const RfkAirplanePlan *plan);

/* Plans every event on these radios and checks each plan. */
void policy_oracle_check_all (const RfkPolicyRadio *radios, guint n_radios,
                              const RfkAirplaneStore *store, guint32 mask);
