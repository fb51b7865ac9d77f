/*
 * rfk-manager-writes.c: what RfkManager wrote to each radio and has not
 * yet seen the kernel report.
 *
 * Two tables, both keyed by idx: inflight, the state our last write
 * leaves the radio in (a superseded request's write still lands, and
 * the next request is judged by where the writes before it leave a
 * radio), and written, our state-changing writes not yet seen as events
 * (so that an event is known as ours, for airplane mode and the
 * history).  rfk-manager-requests.c notes each write here.
 */
#include "config.h"

#include "rfk-manager-private.h"

/* Our writes to idx that change its state, not yet seen as events.  The
 * kernel carries writes out in order and reports only real changes, and
 * we write only what differs from where the earlier writes leave a radio,
 * so the states to come alternate: the first one and a count say it all,
 * stored as (count << 1 | first). */
void
rfk_manager_writes_note (RfkManager *self, guint32 idx, gboolean soft)
{
  gpointer key = GUINT_TO_POINTER (idx);
  guint coded = GPOINTER_TO_UINT (g_hash_table_lookup (self->written, key));
  guint count = coded >> 1;

  g_hash_table_insert (self->inflight, key, GINT_TO_POINTER (soft + 1));
  coded = count == 0 ? (1u << 1 | (soft != 0)) : ((count + 1) << 1
                                                   | (coded & 1));
  g_hash_table_insert (self->written, key, GUINT_TO_POINTER (coded));
}

/* The kernel reports idx in state soft: TRUE if it is the next of our
 * writes to land (then it is taken off the list).  On, then off before
 * the first answer, gives two events, both ours. */
gboolean
rfk_manager_writes_take_ours (RfkManager *self, guint32 idx, gboolean soft)
{
  gpointer key = GUINT_TO_POINTER (idx);
  guint coded = GPOINTER_TO_UINT (g_hash_table_lookup (self->written, key));
  guint count = coded >> 1;

  if (count == 0 || (coded & 1) != (soft != 0))
    return FALSE;
  if (count == 1)
    g_hash_table_remove (self->written, key);
  else
    g_hash_table_insert (self->written, key,
                         GUINT_TO_POINTER ((count - 1) << 1 | !(coded & 1)));
  return TRUE;
}

/* The kernel reported idx's state, or its removal when device is NULL. */
void
rfk_manager_writes_reported (RfkManager *self, guint32 idx,
                             RfkDevice *device)
{
  gpointer key = GUINT_TO_POINTER (idx);

  if (device == NULL)
    g_hash_table_remove (self->written, key);
  /* What we wrote last has landed once no write of ours is left to
   * come (the same state reached by an earlier write is not it). */
  if (device == NULL
      || (GPOINTER_TO_INT (g_hash_table_lookup (self->inflight, key)) - 1
            == device->soft
          && !g_hash_table_contains (self->written, key)))
    g_hash_table_remove (self->inflight, key);
}

/* The kernel will not report idx's state from our writes (the request
 * timed out, or its write failed). */
void
rfk_manager_writes_forget (RfkManager *self, guint32 idx)
{
  g_hash_table_remove (self->inflight, GUINT_TO_POINTER (idx));
  g_hash_table_remove (self->written, GUINT_TO_POINTER (idx));
}

/* The device is gone: nothing we wrote will be reported. */
void
rfk_manager_writes_forget_all (RfkManager *self)
{
  g_hash_table_remove_all (self->inflight);
  g_hash_table_remove_all (self->written);
}
