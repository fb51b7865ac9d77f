/*
 * fuzz-roundtrip.c: libFuzzer target over the packets the engine writes,
 * checked against airplane mode's promise.
 *
 * A kernel here decodes every packet the manager writes (a socketpair)
 * and carries it out as net/rfkill/core.c does (CHANGE, CHANGE_ALL, the
 * global state per type, an event only for a real change); the events go
 * back to the manager in batches the input picks.  Input:
 *   byte 0      counted types (0xff: every type, else a mask of bits)
 *   byte 1      radios, 1 + n % 6; then per radio: type (1 + b % 8) and
 *               flags (bit 0 soft-blocked, bit 1 hard-blocked)
 *   then ops    op % 4 == 0: u8 idx | u8 blocked  a radio request
 *               op % 4 == 1: u8 n   the kernel carries out n writes
 *               op % 4 == 2: u8 n   n events reach the manager
 *               op % 4 == 3: u8 f   airplane on, then off (with f & 1 at
 *                                   once, before the kernel answered on);
 *                                   then the ops up to the next 3
 * The promise, checked on the packets and on the kernel's states:
 *  - requests take effect in order: after settling, each radio has the
 *    state the last request for it asked for;
 *  - ON blocks exactly the counted types: no packet of ON touches a type
 *    that is not counted, and after it every counted radio is blocked;
 *  - OFF never unblocks a radio that was off before ON (no packet of OFF
 *    does), and the ON -> OFF round trip gives every counted radio its
 *    earlier soft state back.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rfk-airplane-policy.h"
#include "rfk-event.h"
#include "rfk-manager-private.h"
#include "rfk-protocol.h"

#define MAX_RADIOS 6

typedef struct {
  guint8 type;
  gboolean soft, hard;
} Radio;

typedef enum { PHASE_REQUESTS, PHASE_ON, PHASE_OFF } Phase;

typedef struct {
  Radio radios[MAX_RADIOS];
  guint n;
  gboolean global[RFK_TYPE_COUNT];
  guint32 counted;
  GQueue writes;           /* RfkEvent * */
  GQueue events;           /* RfkEvent * */
  int fd;
  RfkManager *manager;
  Phase phase;
  gboolean before[MAX_RADIOS];  /* soft states before ON */
} Kernel;

static void
emit (Kernel *k, guint idx)
{
  RfkEvent *e = g_new0 (RfkEvent, 1);

  e->idx = idx;
  e->type = k->radios[idx].type;
  e->op = RFK_OP_CHANGE;
  e->soft = k->radios[idx].soft;
  e->hard = k->radios[idx].hard;
  g_queue_push_tail (&k->events, e);
}

static gboolean
counted (Kernel *k, guint type)
{
  return rfk_airplane_policy_counts (k->counted, type);
}

/* A broken promise: libFuzzer keeps the input. */
static void
broken (const char *what, guint idx)
{
  fprintf (stderr, "promise broken: %s (radio %u)\n", what, idx);
  abort ();
}

/* Checks one packet of ours against the promise, then carries it out. */
static void
carry_out (Kernel *k, const RfkEvent *w)
{
  if (w->op != RFK_OP_CHANGE && w->op != RFK_OP_CHANGE_ALL)
    broken ("a packet that is neither CHANGE nor CHANGE_ALL", w->idx);
  if (w->op == RFK_OP_CHANGE_ALL)
    for (guint t = 0; t < RFK_TYPE_COUNT; t++)
      if (w->type == RFK_TYPE_ALL || w->type == t)
        k->global[t] = w->soft;
  for (guint i = 0; i < k->n; i++)
    {
      Radio *r = &k->radios[i];
      gboolean hit = w->op == RFK_OP_CHANGE_ALL
                       ? (w->type == RFK_TYPE_ALL || w->type == r->type)
                       : (w->idx == i && (w->type == RFK_TYPE_ALL
                                          || w->type == r->type));

      if (!hit)
        continue;
      if (k->phase == PHASE_ON && !counted (k, r->type))
        broken ("airplane on wrote to a type it does not count", i);
      if (k->phase == PHASE_OFF && !w->soft && k->before[i]
          && counted (k, r->type))
        broken ("airplane off unblocked a radio that was off before", i);
      if (r->soft != w->soft)
        {
          r->soft = w->soft;
          emit (k, i);
        }
    }
}

static void
take_writes (Kernel *k)
{
  guint8 buf[64];
  ssize_t n;

  while ((n = recv (k->fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
    {
      RfkEvent *e = g_new0 (RfkEvent, 1);

      if (!rfk_event_decode (buf, n, e))
        broken ("a packet shorter than an event", 0);
      g_queue_push_tail (&k->writes, e);
    }
}

static void
apply (Kernel *k, guint n)
{
  take_writes (k);
  for (guint i = 0; i < n && !g_queue_is_empty (&k->writes); i++)
    {
      g_autofree RfkEvent *w = g_queue_pop_head (&k->writes);

      carry_out (k, w);
    }
}

static void
deliver (Kernel *k, guint n)
{
  if (g_queue_is_empty (&k->events))
    return;
  for (guint i = 0; i < n && !g_queue_is_empty (&k->events); i++)
    {
      g_autofree RfkEvent *e = g_queue_pop_head (&k->events);
      guint8 buf[RFK_EVENT_SIZE_EXT];

      rfk_manager_process (k->manager, buf, rfk_event_encode_ext (e, buf));
    }
  rfk_manager_batch_end (k->manager);
}

static void
settle (Kernel *k)
{
  for (guint round = 0; round < 1000; round++)
    {
      apply (k, G_MAXUINT);
      if (g_queue_is_empty (&k->events))
        {
          while (g_main_context_iteration (NULL, FALSE))
            ;
          take_writes (k);
          if (g_queue_is_empty (&k->writes) && g_queue_is_empty (&k->events))
            return;
        }
      deliver (k, G_MAXUINT);
    }
  broken ("the engine never settles", 0);
}

/* Ops up to the next 3 (or the end): requests and partial answers. */
static gsize
run_ops (Kernel *k, const guint8 *data, gsize size, gsize pos,
         int *wanted)
{
  while (pos < size && data[pos] % 4 != 3)
    {
      guint8 op = data[pos++] % 4;
      guint8 arg = pos < size ? data[pos++] : 0;

      if (op == 0)
        {
          guint idx = arg % (k->n + 1);  /* k->n: no such radio */
          gboolean blocked = pos < size ? data[pos++] & 1 : FALSE;

          rfk_manager_set_blocked_async (k->manager, idx, blocked, NULL,
                                         NULL, NULL);
          if (idx < k->n && wanted != NULL)
            wanted[idx] = blocked;
        }
      else if (op == 1)
        apply (k, arg % 4);
      else
        deliver (k, 1 + arg % 4);
    }
  return pos;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static gboolean once;
  static const RfkManagerTiming timing = { 0, 0, 0, 60000 };
  Kernel k = { 0 };
  int fds[2];
  int wanted[MAX_RADIOS];
  gsize pos;

  if (!once)
    {
      const char *dir = g_getenv ("RFK_FUZZ_STATE_DIR");

      g_setenv ("RFKILL_SYSFS_ROOT", "/nonexistent/rfkill-fuzz", TRUE);
      g_setenv ("XDG_STATE_HOME", dir != NULL ? dir : g_get_tmp_dir (),
                TRUE);
      g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL);
      once = TRUE;
    }
  if (size < 2)
    return 0;
  {
    g_autofree char *list = rfk_airplane_store_dup_path ();

    g_unlink (list);  /* each input starts without airplane mode */
  }
  k.counted = data[0] == 0xff ? RFK_AIRPLANE_TYPES_ALL : data[0];
  k.n = 1 + data[1] % MAX_RADIOS;
  pos = 2;
  for (guint i = 0; i < k.n; i++, pos += 2)
    {
      k.radios[i].type = 1 + (pos < size ? data[pos] : 0) % 8;
      k.radios[i].soft = pos + 1 < size && (data[pos + 1] & 1);
      k.radios[i].hard = pos + 1 < size && (data[pos + 1] & 2);
      wanted[i] = -1;
    }

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0)
    abort ();
  k.fd = fds[1];
  k.manager = rfk_manager_new ("fuzz-kernel");
  rfk_manager_set_timing (k.manager, &timing);
  rfk_manager_set_airplane_types (k.manager, k.counted);
  rfk_manager_adopt_fd (k.manager, fds[0], FALSE);
  for (guint i = 0; i < k.n; i++)
    {
      RfkEvent add = { .idx = i, .type = k.radios[i].type, .op = RFK_OP_ADD,
                       .soft = k.radios[i].soft, .hard = k.radios[i].hard };
      guint8 buf[RFK_EVENT_SIZE_EXT];

      rfk_manager_process (k.manager, buf, rfk_event_encode_ext (&add, buf));
    }
  rfk_manager_batch_end (k.manager);
  rfk_manager_feed_ready (k.manager);

  /* Requests in the order they come: the last one per radio wins. */
  pos = run_ops (&k, data, size, pos, wanted);
  settle (&k);
  for (guint i = 0; i < k.n; i++)
    if (wanted[i] >= 0 && k.radios[i].soft != wanted[i])
      broken ("a request was lost (not the last one's state)", i);

  while (pos < size)
    {
      gboolean at_once;

      pos++;  /* the 3 */
      at_once = pos < size && (data[pos++] & 1);
      for (guint i = 0; i < k.n; i++)
        k.before[i] = k.radios[i].soft;
      k.phase = PHASE_ON;
      rfk_manager_set_airplane_mode_async (k.manager, TRUE, NULL, NULL,
                                           NULL);
      take_writes (&k);
      if (!at_once)
        settle (&k);
      for (guint i = 0; i < k.n && !at_once; i++)
        {
          if (counted (&k, k.radios[i].type) && !k.radios[i].soft)
            broken ("airplane on left a counted radio on", i);
          if (!counted (&k, k.radios[i].type)
              && k.radios[i].soft != k.before[i])
            broken ("airplane on changed a radio it does not count", i);
        }
      k.phase = PHASE_OFF;
      rfk_manager_set_airplane_mode_async (k.manager, FALSE, NULL, NULL,
                                           NULL);
      take_writes (&k);
      settle (&k);
      for (guint i = 0; i < k.n; i++)
        if (counted (&k, k.radios[i].type)
            && k.radios[i].soft != k.before[i])
          broken ("the round trip did not give a radio its state back", i);
      k.phase = PHASE_REQUESTS;
      /* Requests after it, close together again. */
      for (guint i = 0; i < k.n; i++)
        wanted[i] = -1;
      pos = run_ops (&k, data, size, pos, wanted);
      settle (&k);
      for (guint i = 0; i < k.n; i++)
        if (wanted[i] >= 0 && k.radios[i].soft != wanted[i])
          broken ("a request was lost (not the last one's state)", i);
    }

  g_clear_object (&k.manager);
  close (k.fd);
  g_queue_clear_full (&k.writes, g_free);
  g_queue_clear_full (&k.events, g_free);
  return 0;
}
