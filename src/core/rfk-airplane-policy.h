/*
 * rfk-airplane-policy.h: what airplane mode should write, as a pure
 * function.
 *
 * Input: the radios as the kernel reported them (plus what we are still
 * writing to each), the remembered restore list and the counted types.
 * Output: a plan of writes, the restore list to save before writing, and
 * the states to wait for.  No I/O, no clock, no GObject: the manager
 * carries plans out, the unit tests and the fuzzer check them directly.
 * What the engine must do for every input, in words: RULES.md.
 */
#pragma once

#include <glib.h>

#include "rfk-airplane-store.h"
#include "rfk-device.h"

G_BEGIN_DECLS

/* All types, including numbers newer than this program knows. */
#define RFK_AIRPLANE_TYPES_ALL G_MAXUINT32

typedef struct {
  guint32 idx;
  guint8 type;
  gboolean soft;        /* as the kernel last reported it */
  gboolean hard;
  int writing;          /* soft state we wrote and wait for, or -1 */
  const char *key;      /* stable identity, rfk_device_dup_key() */
  const char *name_key; /* "type:name", for lists saved by older versions */
  /* An exception (rfk-exceptions.h): airplane mode leaves it as it is,
   * so no write of a plan may reach it, not even through its type's
   * global state.  Radios that do not take part for another reason are
   * not given to the policy at all. */
  gboolean spared;
} RfkPolicyRadio;

typedef enum {
  RFK_POLICY_ON,              /* the user asks for airplane mode */
  RFK_POLICY_OFF,             /* the user ends it */
  RFK_POLICY_TYPES_CHANGED,   /* while airplane mode holds: remember and
                                 block the radios now counted */
  RFK_POLICY_RADIOS_ADDED,    /* while airplane mode holds: block the
                                 newcomers, never remember them */
  RFK_POLICY_ENDED_ELSEWHERE, /* another program turned every radio on */
} RfkPolicyEvent;

typedef struct {
  guint8 op;            /* RFK_OP_CHANGE or RFK_OP_CHANGE_ALL */
  guint32 idx;          /* CHANGE only */
  guint8 type;          /* CHANGE_ALL: the type whose global state is set */
  gboolean soft;
} RfkPolicyWrite;

typedef struct {
  guint32 idx;
  gboolean soft;
} RfkPolicyExpect;

typedef struct {
  /* Save this before writing anything; NULL: leave the file alone.
   * (RFK_POLICY_OFF: the caller forgets the list once the kernel
   * confirmed every write.) */
  RfkAirplaneStore *save;
  GArray *writes;       /* RfkPolicyWrite, in order */
  GArray *expect;       /* RfkPolicyExpect: what the kernel must confirm */
  /* Nothing is written; report this instead. */
  GError *error;
} RfkAirplanePlan;

void rfk_airplane_plan_free (RfkAirplanePlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RfkAirplanePlan, rfk_airplane_plan_free)

/* Counted (RULES.md): airplane mode counts the type.  Types beyond the
 * mask's width (newer kernels) count only under RFK_AIRPLANE_TYPES_ALL. */
gboolean rfk_airplane_policy_counts (guint32 counted_types, guint type);
/* Takes part (RULES.md): counted, and rfk_device_takes_part(). */
gboolean rfk_airplane_policy_takes_part (guint32 counted_types,
                                         const RfkDevice *device);

/* Counted radios exist and each is blocked, or being blocked by us. */
gboolean rfk_airplane_policy_in_force (const RfkPolicyRadio *radios,
                                       guint n_radios,
                                       guint32 counted_types);

/*
 * remembered: the restore list as loaded (never NULL; an empty store when
 * there is none).  A corrupt list never gets here: the caller reports it.
 */
RfkAirplanePlan *rfk_airplane_policy_plan (RfkPolicyEvent event,
                                           const RfkPolicyRadio *radios,
                                           guint n_radios,
                                           const RfkAirplaneStore *remembered,
                                           guint32 counted_types);

G_END_DECLS
