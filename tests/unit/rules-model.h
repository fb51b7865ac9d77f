/*
 * rules-model.h: src/RULES.md as a small program, for the property
 * test (test-rules.c).  Every radio is counted (the default), names are
 * unique, so a radio's stable key is "type:name".
 *
 * Requests are applied at once, in the order they come, to "leaves": the
 * state the requests before them leave.  A refusing radio's kernel state
 * never follows our writes; at the next settle it is marked refused.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint32 idx;
  guint8 type;
  char *name;
  gboolean soft;      /* the kernel's soft state */
  gboolean hard;
  gboolean leaves;    /* where our requests leave it */
  gboolean refuses;   /* its driver refuses our writes */
  gboolean written;   /* we wrote to it since the last settle */
  gboolean refused;   /* left out of airplane mode */
  gboolean newcomer;  /* plugged in while our airplane mode held */
} ModelRadio;

typedef struct {
  GPtrArray *radios;       /* ModelRadio *, present ones */
  gboolean list_active;
  GHashTable *list;        /* "type:name" -> GINT (soft + 1) */
  gboolean global[32];     /* the kernel's global soft state per type */
  GHashTable *refusals;    /* "type:name" -> GINT (soft it stayed + 1) */
  /* The resume guard: from sleep to the end of the window after resume,
   * "type:name" -> GUINT (its writes + 1) of the radios off at sleep. */
  gboolean watching;
  GHashTable *asleep_off;
  /* Radios airplane mode leaves alone: "type:name" set (on disk). */
  GHashTable *exceptions;
} Model;

Model *model_new (void);
void model_free (Model *m);

char *model_key (const ModelRadio *r);
ModelRadio *model_lookup (Model *m, guint32 idx);
/* The user turned r on in airplane mode: it is an exception. */
gboolean model_excepted (Model *m, const ModelRadio *r);
/* Airplane mode: a radio takes part, and each that does is blocked.
 * by_leaves: judged by where our requests leave them. */
gboolean model_airplane (Model *m, gboolean by_leaves);

/* Requests. */
void model_set_blocked (Model *m, guint32 idx, gboolean blocked);
void model_set_type (Model *m, guint8 type, gboolean blocked);
void model_airplane_on (Model *m);
void model_airplane_off (Model *m);
void model_toggle (Model *m);

/* The kernel and other programs, applied while nothing of ours is in
 * flight, as one batch.  before: airplane mode before the batch. */
void model_radio_added (Model *m, guint32 idx, guint8 type,
                        const char *name, gboolean refuses);
void model_radio_removed (Model *m, guint32 idx);
/* Another program or a driver set these radios' soft states at once
 * (refusing radios included: the kernel or the driver did it). */
void model_others_set (Model *m, const guint32 *idx, const gboolean *soft,
                       guint n);
void model_hard (Model *m, guint32 idx, gboolean hard);
/* The system sleeps and wakes (keep: the keep-radio-states setting);
 * the guard's window after resume ends. */
void model_sleep (Model *m, gboolean keep);
void model_resume_window_end (Model *m);
/* The user removes an exception (the menu), while nothing is in flight. */
void model_remove_exception (Model *m, guint32 idx);
/* The applet or the CLI starts anew on the same kernel. */
void model_restart (Model *m);

/* Everything we wrote was carried out or timed out. */
void model_settle (Model *m);

G_END_DECLS
