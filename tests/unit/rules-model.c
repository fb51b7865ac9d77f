/* rules-model.c: src/RULES.md as a small program. */
#include "rules-model.h"

#include "rfk-device.h"

static void
radio_free (ModelRadio *r)
{
  g_free (r->name);
  g_free (r);
}

Model *
model_new (void)
{
  Model *m = g_new0 (Model, 1);

  m->radios = g_ptr_array_new_with_free_func ((GDestroyNotify) radio_free);
  m->list = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  m->refusals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       NULL);
  m->asleep_off = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         NULL);
  m->exceptions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         NULL);
  return m;
}

void
model_free (Model *m)
{
  g_ptr_array_unref (m->radios);
  g_hash_table_unref (m->list);
  g_hash_table_unref (m->refusals);
  g_hash_table_unref (m->asleep_off);
  g_hash_table_unref (m->exceptions);
  g_free (m);
}

char *
model_key (const ModelRadio *r)
{
  return g_strdup_printf ("%s:%s", rfk_type_to_string (r->type), r->name);
}

ModelRadio *
model_lookup (Model *m, guint32 idx)
{
  for (guint i = 0; i < m->radios->len; i++)
    {
      ModelRadio *r = m->radios->pdata[i];

      if (r->idx == idx)
        return r;
    }
  return NULL;
}

#define EACH(r) \
  for (guint i_ = 0; i_ < m->radios->len; i_++) \
    for (ModelRadio *r = m->radios->pdata[i_]; r != NULL; r = NULL)

gboolean
model_excepted (Model *m, const ModelRadio *r)
{
  g_autofree char *key = model_key (r);

  return g_hash_table_contains (m->exceptions, key);
}

/* Neither refusing nor an exception. */
static gboolean
takes_part (Model *m, const ModelRadio *r)
{
  return !r->refused && !model_excepted (m, r);
}

gboolean
model_airplane (Model *m, gboolean by_leaves)
{
  guint taking_part = 0;

  EACH (r)
    {
      if (!takes_part (m, r))
        continue;
      taking_part++;
      if (!(by_leaves ? r->leaves : r->soft) && !r->hard)
        return FALSE;
    }
  return taking_part > 0;
}

/* Some radio that takes part is on (soft and hard clear). */
static gboolean
some_on (Model *m)
{
  EACH (r)
    if (takes_part (m, r) && !r->soft && !r->hard)
      return TRUE;
  return FALSE;
}

static void
forget_list (Model *m)
{
  m->list_active = FALSE;
  g_hash_table_remove_all (m->list);
  EACH (r)
    r->newcomer = FALSE;
}

/* Every radio that takes part but r is blocked. */
static gboolean
others_blocked (Model *m, const ModelRadio *r)
{
  EACH (o)
    if (o != r && takes_part (m, o) && !o->soft && !o->hard)
      return FALSE;
  return TRUE;
}

/* Our write of one radio: a refusing one stays where it is. */
static void
write_radio (ModelRadio *r, gboolean soft)
{
  if (r->leaves == soft)
    return;
  r->leaves = soft;
  if (r->refuses)
    r->written = TRUE;
  else
    r->soft = soft;
}

/* Blocking for airplane mode sets the kernel's global state of every
 * type, but for a type with an exception that is on: a global block
 * would switch that one off too. */
static void
block_globals (Model *m)
{
  for (guint t = 0; t < G_N_ELEMENTS (m->global); t++)
    {
      gboolean spared_on = FALSE;

      EACH (r)
        if (r->type == t && model_excepted (m, r) && !r->leaves)
          spared_on = TRUE;
      if (!spared_on)
        m->global[t] = TRUE;
    }
}

/* Keeping a newcomer off goes through the global states (as airplane
 * mode itself): every radio that takes part is soft-blocked too (only
 * hard-blocked ones can still be on), and waited for. */
static void
keep_off (Model *m, ModelRadio *r)
{
  block_globals (m);
  EACH (o)
    if (takes_part (m, o))
      write_radio (o, TRUE);
}

/* A caller asks for r: the resume guard leaves it to the caller. */
static void
guard_forget (Model *m, ModelRadio *r)
{
  g_autofree char *key = model_key (r);

  g_hash_table_remove (m->asleep_off, key);
}

static void
guard_end (Model *m)
{
  m->watching = FALSE;
  g_hash_table_remove_all (m->asleep_off);
}

static void
set_one (Model *m, ModelRadio *r, gboolean blocked)
{
  /* A newcomer the user turns on stays on. */
  if (!blocked && r->leaves && !r->refuses)
    r->newcomer = FALSE;
  write_radio (r, blocked);
}

/* Radios a request turns on while airplane mode holds with the list
 * active become exceptions, unless they are the last that take part. */
static void
spare (Model *m, GPtrArray *radios)
{
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  guint taking_part = 0;

  if (!m->list_active || !model_airplane (m, TRUE))
    return;
  EACH (r)
    taking_part += takes_part (m, r);
  for (guint i = 0; i < radios->len; i++)
    {
      ModelRadio *r = radios->pdata[i];

      if (takes_part (m, r) && r->leaves)
        g_ptr_array_add (keys, model_key (r));
    }
  if (keys->len == 0 || keys->len >= taking_part)
    {
      g_ptr_array_set_free_func (keys, g_free);
      return;
    }
  for (guint i = 0; i < keys->len; i++)
    g_hash_table_add (m->exceptions, keys->pdata[i]);
}

void
model_set_blocked (Model *m, guint32 idx, gboolean blocked)
{
  ModelRadio *r = model_lookup (m, idx);
  gboolean held;

  if (r == NULL)
    return;
  guard_forget (m, r);
  if (!blocked)
    {
      g_autoptr (GPtrArray) one = g_ptr_array_new ();

      g_ptr_array_add (one, r);
      spare (m, one);
    }
  held = model_airplane (m, TRUE);
  set_one (m, r, blocked);
  /* Switched on by hand while airplane mode held: it ended. */
  if (held && !model_airplane (m, TRUE))
    forget_list (m);
}

void
model_set_type (Model *m, guint8 type, gboolean blocked)
{
  g_autoptr (GPtrArray) of_type = g_ptr_array_new ();
  gboolean held;

  EACH (r)
    if (r->type == type)
      {
        guard_forget (m, r);
        g_ptr_array_add (of_type, r);
      }
  if (!blocked)
    spare (m, of_type);
  held = model_airplane (m, TRUE);
  for (guint i = 0; i < of_type->len; i++)
    set_one (m, of_type->pdata[i], blocked);
  if (held && !model_airplane (m, TRUE))
    forget_list (m);
}

void
model_airplane_on (Model *m)
{
  gboolean any = FALSE;

  guard_end (m);  /* airplane mode names every radio */
  EACH (r)
    any |= takes_part (m, r);
  if (!any)
    return;  /* no radio to switch: an error, nothing changes */
  /* A list still holding is kept and grows; else a new one. */
  if (!(m->list_active && model_airplane (m, TRUE)))
    forget_list (m);
  m->list_active = TRUE;
  EACH (r)
    {
      g_autofree char *key = NULL;

      if (!takes_part (m, r))
        continue;
      /* Something to block: the global states are set with it. */
      if (!r->leaves)
        block_globals (m);
      key = model_key (r);
      if (!g_hash_table_contains (m->list, key))
        g_hash_table_insert (m->list, g_steal_pointer (&key),
                             GINT_TO_POINTER (r->leaves + 1));
      write_radio (r, TRUE);
    }
}

void
model_airplane_off (Model *m)
{
  gboolean any = FALSE, switchable = FALSE;
  gboolean stays_off[G_N_ELEMENTS (m->global)] = { FALSE };

  guard_end (m);
  EACH (r)
    {
      any |= takes_part (m, r);
      switchable |= takes_part (m, r) && !r->hard;
    }
  if (!any)
    return;
  if (!m->list_active && !model_airplane (m, TRUE))
    return;  /* not ours, not on */
  if (!m->list_active && !switchable)
    return;  /* a switch holds every radio: an error */
  EACH (r)
    {
      g_autofree char *key = model_key (r);
      gpointer value;
      int want = -1;

      /* An exception is left as it is; one that is off keeps its type's
       * global state blocked, as any radio that stays off. */
      if (model_excepted (m, r))
        {
          if (r->leaves && r->type < G_N_ELEMENTS (stays_off))
            stays_off[r->type] = TRUE;
          continue;
        }
      if (r->refused)
        continue;
      if (m->list_active
          && g_hash_table_lookup_extended (m->list, key, NULL, &value))
        want = GPOINTER_TO_INT (value) - 1;
      else if (m->list_active || !r->hard)
        want = FALSE;
      if (want >= 0)
        write_radio (r, want);
      if (r->leaves && r->type < G_N_ELEMENTS (stays_off))
        stays_off[r->type] = TRUE;
    }
  /* A type's global state is reset where all its radios end up on. */
  for (guint t = 1; t < G_N_ELEMENTS (m->global); t++)
    if (!stays_off[t])
      m->global[t] = FALSE;
  forget_list (m);
}

void
model_toggle (Model *m)
{
  if (model_airplane (m, TRUE))
    model_airplane_off (m);
  else
    model_airplane_on (m);
}

/* ---- the kernel and other programs ---------------------------------- */

static void
set_refused (Model *m, ModelRadio *r, gboolean refused)
{
  g_autofree char *key = model_key (r);

  r->refused = refused;
  if (refused)
    g_hash_table_insert (m->refusals, g_steal_pointer (&key),
                         GINT_TO_POINTER (r->soft + 1));
  else
    g_hash_table_remove (m->refusals, key);
}

/* Another program's batch ended with airplane mode going from held to
 * not held, or the other way. */
static void
decide_about_others (Model *m, gboolean held_before,
                     const gboolean *soft_before)
{
  /* A radio we are keeping off counts as off already. */
  gboolean held = model_airplane (m, TRUE);

  if (held_before && !held && some_on (m))
    {
      gboolean every_on = TRUE;

      EACH (r)
        if (takes_part (m, r) && r->soft && !r->hard)
          every_on = FALSE;
      if (every_on && m->list_active)
        {
          /* Ended elsewhere: the radios that were off go off again. */
          EACH (r)
            {
              g_autofree char *key = model_key (r);
              gpointer value;

              if (takes_part (m, r)
                  && g_hash_table_lookup_extended (m->list, key, NULL, &value)
                  && GPOINTER_TO_INT (value) - 1 && !r->leaves)
                write_radio (r, TRUE);
            }
        }
      forget_list (m);  /* or switched by hand: dropped */
    }
  else if (!held_before && held && soft_before != NULL && !m->list_active)
    {
      /* Began elsewhere: the list is the states from before. */
      m->list_active = TRUE;
      for (guint i = 0; i < m->radios->len; i++)
        {
          ModelRadio *r = m->radios->pdata[i];

          if (takes_part (m, r))
            g_hash_table_insert (m->list, model_key (r),
                                 GINT_TO_POINTER (soft_before[i] + 1));
        }
    }
}

/* The resume guard watches one of the radios in on. */
static gboolean
guarded_on (Model *m, GPtrArray *on)
{
  for (guint i = 0; m->watching && i < on->len; i++)
    {
      g_autofree char *key = model_key (on->pdata[i]);

      if (g_hash_table_contains (m->asleep_off, key))
        return TRUE;
    }
  return FALSE;
}

/* The resume guard: each radio of on that was off at sleep, is still on
 * and not kept off already goes off again, at most twice per resume;
 * the third time it is left on and forgotten. */
static void
guard (Model *m, GPtrArray *on)
{
  if (!m->watching)
    return;
  for (guint i = 0; i < on->len; i++)
    {
      ModelRadio *r = on->pdata[i];
      g_autofree char *key = model_key (r);
      gpointer value;
      guint tries;

      if (r->soft || r->leaves
          || !g_hash_table_lookup_extended (m->asleep_off, key, NULL, &value))
        continue;
      tries = GPOINTER_TO_UINT (value) - 1;
      if (tries >= 2)
        {
          g_hash_table_remove (m->asleep_off, key);
          continue;
        }
      g_hash_table_insert (m->asleep_off, g_steal_pointer (&key),
                           GUINT_TO_POINTER (tries + 2));
      write_radio (r, TRUE);
    }
}

void
model_radio_added (Model *m, guint32 idx, guint8 type, const char *name,
                   gboolean refuses)
{
  ModelRadio *r = g_new0 (ModelRadio, 1);
  g_autofree char *key = NULL;
  gpointer value;

  r->idx = idx;
  r->type = type;
  r->name = g_strdup (name);
  r->refuses = refuses;
  r->soft = r->leaves = type < G_N_ELEMENTS (m->global) && m->global[type];
  key = model_key (r);
  /* Refused before and not changed since: still left out. */
  if (g_hash_table_lookup_extended (m->refusals, key, NULL, &value))
    {
      if (GPOINTER_TO_INT (value) - 1 == r->soft)
        r->refused = TRUE;
      else
        g_hash_table_remove (m->refusals, key);
    }
  g_ptr_array_add (m->radios, r);
  /* Plugged in during airplane mode: kept off, not remembered; the
   * first time its saved state turns it on is undone too. */
  if (takes_part (m, r) && m->list_active && others_blocked (m, r))
    {
      r->newcomer = TRUE;
      if (!r->soft)
        keep_off (m, r);
    }
  if (!r->soft)
    {
      g_autoptr (GPtrArray) on = g_ptr_array_new ();

      g_ptr_array_add (on, r);
      guard (m, on);
    }
}

void
model_radio_removed (Model *m, guint32 idx)
{
  ModelRadio *r = model_lookup (m, idx);

  if (r != NULL)
    g_ptr_array_remove (m->radios, r);
}

void
model_others_set (Model *m, const guint32 *idx, const gboolean *soft,
                  guint n)
{
  g_autofree gboolean *before = g_new0 (gboolean, m->radios->len + 1);
  g_autoptr (GPtrArray) turned_on = g_ptr_array_new ();
  g_autoptr (GPtrArray) came_on = g_ptr_array_new ();
  gboolean held = model_airplane (m, FALSE), swept = FALSE, every_on = TRUE;

  for (guint i = 0; i < m->radios->len; i++)
    before[i] = ((ModelRadio *) m->radios->pdata[i])->soft;
  for (guint k = 0; k < n; k++)
    {
      ModelRadio *r = model_lookup (m, idx[k]);

      if (r == NULL || r->soft == soft[k])
        continue;
      r->soft = r->leaves = soft[k];
      swept = TRUE;
      if (!soft[k])
        g_ptr_array_add (came_on, r);
      if (r->refused)
        set_refused (m, r, FALSE);
      if (r->newcomer && !soft[k])
        {
          r->newcomer = FALSE;
          g_ptr_array_add (turned_on, r);
        }
    }
  EACH (r)
    if (takes_part (m, r) && r->soft && !r->hard)
      every_on = FALSE;
  /* A newcomer's saved state turning it on is undone if the others are
   * still off after the whole change: `rfkill unblock all` ends airplane
   * mode instead. */
  for (guint i = 0; i < turned_on->len; i++)
    {
      ModelRadio *r = turned_on->pdata[i];

      if (m->list_active && !r->soft && others_blocked (m, r))
        {
          keep_off (m, r);
          break;
        }
    }
  /* Our airplane mode ended by the key or `rfkill unblock all` (every
   * radio on, as the kernel has them): the user's, which ends the
   * resume guard's watch.  Else it keeps its radios off. */
  if (guarded_on (m, came_on))
    {
      if (every_on && m->list_active)
        guard_end (m);
      else
        guard (m, came_on);
    }
  if (swept)
    decide_about_others (m, held, before);
}

void
model_hard (Model *m, guint32 idx, gboolean hard)
{
  ModelRadio *r = model_lookup (m, idx);
  gboolean held = model_airplane (m, FALSE);

  if (r == NULL || r->hard == hard)
    return;
  r->hard = hard;
  if (r->refused)
    set_refused (m, r, FALSE);
  decide_about_others (m, held, NULL);
}

void
model_sleep (Model *m, gboolean keep)
{
  guard_end (m);
  if (!keep)
    return;
  EACH (r)
    if (r->leaves)
      g_hash_table_insert (m->asleep_off, model_key (r), GUINT_TO_POINTER (1));
  m->watching = g_hash_table_size (m->asleep_off) > 0;
}

void
model_resume_window_end (Model *m)
{
  guard_end (m);
}

void
model_remove_exception (Model *m, guint32 idx)
{
  ModelRadio *r = model_lookup (m, idx);
  g_autofree char *key = NULL;
  gboolean held = model_airplane (m, FALSE);

  if (r == NULL || !model_excepted (m, r))
    return;
  key = model_key (r);
  g_hash_table_remove (m->exceptions, key);
  if (!held || !m->list_active)
    return;
  /* It takes part again: as when a type starts to count, every radio
   * that takes part is remembered if the list lacks it, and blocked
   * (soft: a hard-blocked one too). */
  EACH (o)
    {
      g_autofree char *okey = NULL;

      if (!takes_part (m, o))
        continue;
      okey = model_key (o);
      if (!g_hash_table_contains (m->list, okey))
        g_hash_table_insert (m->list, g_steal_pointer (&okey),
                             GINT_TO_POINTER (o->leaves + 1));
    }
  EACH (o)
    if (takes_part (m, o) && !o->leaves)
      {
        block_globals (m);
        write_radio (o, TRUE);
      }
}

void
model_restart (Model *m)
{
  guard_end (m);  /* kept in memory only */
  EACH (r)
    r->newcomer = FALSE;
  /* What happened while none of our programs ran is the user's. */
  if (m->list_active && !model_airplane (m, FALSE))
    forget_list (m);
}

void
model_settle (Model *m)
{
  gboolean marked = FALSE;

  EACH (r)
    if (r->written)
      {
        /* Never confirmed: left out until it changes. */
        r->written = FALSE;
        r->leaves = r->soft;
        set_refused (m, r, TRUE);
        marked = TRUE;
      }
  if (marked && m->list_active && !model_airplane (m, FALSE) && some_on (m))
    forget_list (m);
}
