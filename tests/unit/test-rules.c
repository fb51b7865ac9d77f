/*
 * test-rules.c: the engine against the rules' model (rules-model.c) on
 * random interleavings.
 *
 * A small kernel here takes the packets the engine writes (a socketpair),
 * carries them out when the interleaving says so (CHANGE, CHANGE_ALL and
 * the global state per type, a CHANGE only for a real change, refusing
 * drivers keep their state and say nothing) and hands the events back in
 * batches of any size.  Between steps: requests close together or far
 * apart (menu/D-Bus single radios, gsd's per-type properties, airplane
 * on/off/toggle), answers delayed or never given, and, once everything
 * is answered, another program, a driver, a hard block, a radio added,
 * removed or renumbered, or a restart of the applet.  After the last
 * step everything settles and the kernel's states, refusals, airplane
 * mode, the D-Bus properties and the restore list must equal the
 * model's.
 *
 * RFK_RULES_COUNT (default 10000) interleavings from RFK_RULES_SEED
 * (default: random, printed); RFK_RULES_ONLY=N replays interleaving N of
 * that seed and prints its steps.
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rfk-airplane-store.h"
#include "rfk-dbus-properties.h"
#include "rfk-event.h"
#include "rfk-exceptions.h"
#include "rfk-manager-private.h"
#include "rfk-refusals.h"
#include "rfk-state-file.h"
#include "rules-model.h"
#include "test-util.h"

typedef struct {
  guint32 idx;
  guint8 type;
  char *name;
  gboolean soft, hard, refuses;
} KRadio;

typedef struct {
  GPtrArray *radios;      /* KRadio * */
  gboolean global[32];
  guint32 next_idx;
  guint next_name;
  GQueue writes;          /* RfkEvent *, taken, not carried out yet */
  GQueue events;          /* RfkEvent *, not delivered yet */
  int fd;                 /* our end of the engine's socketpair */
  char *sysfs;
} Kernel;

typedef struct {
  Kernel k;
  Model *m;
  RfkManager *manager;
  GRand *rand;
  gboolean keep;          /* the keep-radio-states setting, per run */
  GString *steps;         /* what happened, for a failure's report */
} Run;

static const guint8 types[] = {
  RFK_TYPE_WLAN, RFK_TYPE_BLUETOOTH, RFK_TYPE_WWAN
};

static void
kradio_free (KRadio *r)
{
  g_free (r->name);
  g_free (r);
}

static KRadio *
kernel_lookup (Kernel *k, guint32 idx)
{
  for (guint i = 0; i < k->radios->len; i++)
    if (((KRadio *) k->radios->pdata[i])->idx == idx)
      return k->radios->pdata[i];
  return NULL;
}

static void
kernel_emit (Kernel *k, const KRadio *r, guint8 op)
{
  RfkEvent *event = g_new0 (RfkEvent, 1);

  event->idx = r->idx;
  event->type = r->type;
  event->op = op;
  event->soft = r->soft;
  event->hard = r->hard;
  g_queue_push_tail (&k->events, event);
}

static void
kernel_set_soft (Kernel *k, KRadio *r, gboolean soft)
{
  if (r->soft == soft)
    return;  /* the kernel says nothing when nothing changed */
  r->soft = soft;
  kernel_emit (k, r, RFK_OP_CHANGE);
}

/* The packets the engine wrote, taken in order. */
static void
kernel_take_writes (Kernel *k)
{
  guint8 buf[64];
  ssize_t n;

  while ((n = recv (k->fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
    {
      RfkEvent *event = g_new0 (RfkEvent, 1);

      g_assert_true (rfk_event_decode (buf, n, event));
      g_queue_push_tail (&k->writes, event);
    }
}

static gboolean verbose;
static guint with_exceptions;  /* interleavings that made or removed one */
static GString *verbose_log;

/* What net/rfkill/core.c does with one write. */
static void
kernel_carry_out (Kernel *k, const RfkEvent *w)
{
  if (verbose)
    g_string_append_printf (verbose_log, "    kernel: %s %u type %u %s\n",
                w->op == RFK_OP_CHANGE_ALL ? "CHANGE_ALL" : "CHANGE", w->idx,
                w->type, w->soft ? "block" : "unblock");
  if (w->op == RFK_OP_CHANGE_ALL)
    {
      for (guint t = 0; t < G_N_ELEMENTS (k->global); t++)
        if (w->type == RFK_TYPE_ALL || w->type == t)
          k->global[t] = w->soft;
    }
  else
    g_assert_cmpuint (w->op, ==, RFK_OP_CHANGE);
  for (guint i = 0; i < k->radios->len; i++)
    {
      KRadio *r = k->radios->pdata[i];
      gboolean hit = w->op == RFK_OP_CHANGE_ALL
                       ? (w->type == RFK_TYPE_ALL || w->type == r->type)
                       : (r->idx == w->idx
                          && (w->type == RFK_TYPE_ALL || w->type == r->type));

      /* A refusing driver: the kernel restores the state, no event. */
      if (hit && !r->refuses)
        kernel_set_soft (k, r, w->soft);
    }
}

static guint
kernel_apply (Kernel *k, guint n)
{
  guint done = 0;

  kernel_take_writes (k);
  while (done < n && !g_queue_is_empty (&k->writes))
    {
      g_autofree RfkEvent *w = g_queue_pop_head (&k->writes);

      kernel_carry_out (k, w);
      done++;
    }
  return done;
}

/* n events as one read batch. */
static guint
deliver (Run *run, guint n)
{
  guint done = 0;

  if (g_queue_is_empty (&run->k.events))
    return 0;
  g_object_ref (run->manager);
  while (done < n && !g_queue_is_empty (&run->k.events))
    {
      g_autofree RfkEvent *e = g_queue_pop_head (&run->k.events);
      guint8 buf[RFK_EVENT_SIZE_EXT];
      gsize len = rfk_event_encode_ext (e, buf);

      rfk_manager_process (run->manager, buf, len);
      done++;
    }
  rfk_manager_batch_end (run->manager);
  g_object_unref (run->manager);
  return done;
}

static void
write_name (Kernel *k, const KRadio *r)
{
  g_autofree char *dir = g_strdup_printf ("%s/rfkill%u", k->sysfs, r->idx);
  g_autofree char *path = g_build_filename (dir, "name", NULL);

  g_mkdir_with_parents (dir, 0755);
  g_assert_true (g_file_set_contents (path, r->name, -1, NULL));
}

static KRadio *
kernel_add (Kernel *k, guint8 type, const char *name, gboolean soft,
            gboolean hard, gboolean refuses)
{
  KRadio *r = g_new0 (KRadio, 1);

  r->idx = k->next_idx++;
  r->type = type;
  r->name = name != NULL ? g_strdup (name)
                         : g_strdup_printf ("%s%u",
                                            type == RFK_TYPE_WLAN ? "phy"
                                            : type == RFK_TYPE_BLUETOOTH
                                              ? "hci" : "wwan",
                                            k->next_name++);
  r->soft = soft;
  r->hard = hard;
  r->refuses = refuses;
  write_name (k, r);
  g_ptr_array_add (k->radios, r);
  return r;
}

/* ---- the engine ------------------------------------------------------ */

static void
start_manager (Run *run)
{
  static const RfkManagerTiming timing = {
    .sweep_ms = 0, .ended_settle_ms = 0, .flap_quiet_ms = 0,
    .confirm_ms = 1,
  };
  int fds[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
                               fds), ==, 0);
  run->k.fd = fds[1];
  run->manager = rfk_manager_new ("rules-kernel");
  rfk_manager_set_timing (run->manager, &timing);
  rfk_manager_set_keep_radio_states (run->manager, run->keep);
  rfk_manager_adopt_fd (run->manager, fds[0], FALSE);
  /* The initial ADDs, then READY, as open() gives them. */
  for (guint i = 0; i < run->k.radios->len; i++)
    {
      KRadio *r = run->k.radios->pdata[i];
      RfkEvent add = { .idx = r->idx, .type = r->type, .op = RFK_OP_ADD,
                       .soft = r->soft, .hard = r->hard };
      guint8 buf[RFK_EVENT_SIZE_EXT];
      gsize len = rfk_event_encode_ext (&add, buf);

      rfk_manager_process (run->manager, buf, len);
    }
  rfk_manager_batch_end (run->manager);
  rfk_manager_feed_ready (run->manager);
}

static void
stop_manager (Run *run)
{
  g_clear_object (&run->manager);  /* closes its end */
  close (run->k.fd);
  run->k.fd = -1;
}

static gboolean
engine_busy (RfkManager *manager)
{
  return manager->requests != NULL || manager->ended_settle_source != 0
         || manager->flap_source != 0;
}

/* Every write carried out, every event delivered, every timer run. */
static void
settle (Run *run)
{
  for (guint rounds = 0;; rounds++)
    {
      g_assert_cmpuint (rounds, <, 10000);
      if (kernel_apply (&run->k, G_MAXUINT) > 0)
        continue;
      if (deliver (run, G_MAXUINT) > 0)
        continue;
      while (g_main_context_iteration (NULL, FALSE))
        ;
      kernel_take_writes (&run->k);
      if (!g_queue_is_empty (&run->k.writes)
          || !g_queue_is_empty (&run->k.events))
        continue;
      if (!engine_busy (run->manager))
        break;
      g_usleep (1100);  /* the confirmation timeout is 1 ms */
    }
  model_settle (run->m);
}

/* ---- steps ------------------------------------------------------------ */

static guint32
random_idx (Run *run)
{
  Kernel *k = &run->k;

  if (k->radios->len == 0 || g_rand_int_range (run->rand, 0, 20) == 0)
    return 999;  /* no such radio */
  return ((KRadio *) k->radios->pdata[g_rand_int_range (
            run->rand, 0, k->radios->len)])->idx;
}

static void
step_request (Run *run)
{
  RfkManager *mgr = run->manager;
  gboolean b = g_rand_boolean (run->rand);

  switch (g_rand_int_range (run->rand, 0, 5))
    {
    case 0:
      {
        guint32 idx = random_idx (run);

        ModelRadio *r = model_lookup (run->m, idx);

        /* A menu click flips where the earlier requests leave it. */
        if (r != NULL && g_rand_int_range (run->rand, 0, 3) == 0)
          {
            g_string_append_printf (run->steps, "click %u\n", idx);
            b = !r->leaves;
            rfk_manager_toggle_blocked_async (mgr, idx, NULL, NULL, NULL);
          }
        else
          {
            g_string_append_printf (run->steps, "set %u %s\n", idx,
                                    b ? "off" : "on");
            rfk_manager_set_blocked_async (mgr, idx, b, NULL, NULL, NULL);
          }
        model_set_blocked (run->m, idx, b);
      }
      break;
    case 1:
      {
        guint8 type = types[g_rand_int_range (run->rand, 0, 2)];
        RfkDBusModel model = { .manager = mgr };
        /* Owned, as GDBus hands it to the property setter. */
        g_autoptr (GVariant) value = g_variant_ref_sink (
          g_variant_new_boolean (b));
        g_autoptr (GError) error = NULL;

        g_string_append_printf (run->steps, "%sAirplaneMode %d\n",
                                type == RFK_TYPE_WLAN ? "(wlan)"
                                                      : "Bluetooth", b);
        if (type == RFK_TYPE_BLUETOOTH)
          g_assert_true (rfk_dbus_property_set (&model,
                                                "BluetoothAirplaneMode",
                                                value, &error));
        else
          rfk_manager_set_type_blocked_async (mgr, type, b, NULL, NULL,
                                              NULL);
        model_set_type (run->m, type, b);
      }
      break;
    case 2:
    case 3:
      g_string_append_printf (run->steps, "airplane %s\n", b ? "on" : "off");
      rfk_manager_set_airplane_mode_async (mgr, b, NULL, NULL, NULL);
      if (b)
        model_airplane_on (run->m);
      else
        model_airplane_off (run->m);
      break;
    default:
      g_string_append (run->steps, "toggle\n");
      rfk_manager_toggle_airplane_mode_async (mgr, NULL, NULL, NULL);
      model_toggle (run->m);
      break;
    }
  kernel_take_writes (&run->k);
}

/* Another program or a driver, while nothing of ours is in flight. */
static void
step_outside (Run *run)
{
  Kernel *k = &run->k;
  Model *m = run->m;
  guint32 idx = k->radios->len > 0 ? random_idx (run) : 999;
  KRadio *r = kernel_lookup (k, idx);

  settle (run);
  /* While the resume guard watches, what it guards against comes often:
   * a driver or a program turns on a radio that is off. */
  if (m->watching && g_rand_boolean (run->rand))
    {
      KRadio *off = NULL;

      for (guint i = 0; i < k->radios->len && off == NULL; i++)
        if (((KRadio *) k->radios->pdata[(i + idx) % k->radios->len])->soft)
          off = k->radios->pdata[(i + idx) % k->radios->len];
      if (off != NULL)
        {
          gboolean on = FALSE;

          g_string_append_printf (run->steps, "others: %u on (a driver)\n",
                                  off->idx);
          kernel_set_soft (k, off, FALSE);
          model_others_set (m, &off->idx, &on, 1);
          deliver (run, G_MAXUINT);
          settle (run);
          return;
        }
    }
  /* The user removes an exception from the menu. */
  if (g_hash_table_size (m->exceptions) > 0 && g_rand_int_range (run->rand, 0, 3) == 0)
    {
      for (guint i = 0; i < m->radios->len; i++)
        {
          ModelRadio *mr = m->radios->pdata[(i + idx) % m->radios->len];

          if (!model_excepted (m, mr))
            continue;
          g_string_append_printf (run->steps, "remove exception %u\n",
                                  mr->idx);
          g_assert_true (rfk_manager_remove_exception (run->manager, mr->idx,
                                                       NULL));
          model_remove_exception (m, mr->idx);
          deliver (run, G_MAXUINT);
          settle (run);
          return;
        }
    }
  switch (g_rand_int_range (run->rand, 0, 10))
    {
    case 0:
    case 1:
      {
        /* `rfkill block all` / `unblock all`: a CHANGE_ALL of another
         * program, which refusing drivers refuse too. */
        gboolean soft = g_rand_boolean (run->rand);
        g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, 4);
        g_autoptr (GArray) softs = g_array_new (FALSE, FALSE,
                                                sizeof (gboolean));

        g_string_append_printf (run->steps, "others: rfkill %s all\n",
                                soft ? "block" : "unblock");
        for (guint t = 0; t < G_N_ELEMENTS (k->global); t++)
          k->global[t] = m->global[t] = soft;
        for (guint i = 0; i < k->radios->len; i++)
          {
            KRadio *o = k->radios->pdata[i];

            if (o->refuses)
              continue;
            kernel_set_soft (k, o, soft);
            g_array_append_val (ids, o->idx);
            g_array_append_val (softs, soft);
          }
        model_others_set (m, (guint32 *) ids->data,
                          (gboolean *) softs->data, ids->len);
      }
      break;
    case 2:
      if (r == NULL)
        break;
      {
        /* A driver or another program switches one radio (a refusing
         * one's own switch moves it too). */
        gboolean soft = !r->soft;

        g_string_append_printf (run->steps, "others: %u %s\n", idx,
                                soft ? "off" : "on");
        kernel_set_soft (k, r, soft);
        model_others_set (m, &idx, &soft, 1);
      }
      break;
    case 3:
      if (r == NULL)
        break;
      g_string_append_printf (run->steps, "hard %u %s\n", idx,
                              r->hard ? "clear" : "set");
      r->hard = !r->hard;
      kernel_emit (k, r, RFK_OP_CHANGE);
      model_hard (m, idx, r->hard);
      break;
    case 4:
      {
        guint8 type = types[g_rand_int_range (run->rand, 0,
                                              G_N_ELEMENTS (types))];
        KRadio *n = kernel_add (k, type, NULL, k->global[type], FALSE,
                                FALSE);

        g_string_append_printf (run->steps, "add %u %s\n", n->idx, n->name);
        kernel_emit (k, n, RFK_OP_ADD);
        model_radio_added (m, n->idx, n->type, n->name, FALSE);
      }
      break;
    case 5:
      if (r == NULL)
        break;
      g_string_append_printf (run->steps, "remove %u\n", idx);
      kernel_emit (k, r, RFK_OP_DEL);
      model_radio_removed (m, idx);
      g_ptr_array_remove (k->radios, r);
      break;
    case 6:
      if (r == NULL)
        break;
      {
        /* Unplugged and plugged back: a new index, the same name, the
         * type's global state. */
        KRadio *n = kernel_add (k, r->type, r->name, k->global[r->type],
                                r->hard, r->refuses);

        g_string_append_printf (run->steps, "renumber %u -> %u\n", idx,
                                n->idx);
        kernel_emit (k, r, RFK_OP_DEL);
        kernel_emit (k, n, RFK_OP_ADD);
        model_radio_removed (m, idx);
        model_radio_added (m, n->idx, n->type, n->name, n->refuses);
        model_lookup (m, n->idx)->hard = n->hard;
        g_ptr_array_remove (k->radios, r);
      }
      break;
    case 7:
      {
        /* Suspend and resume; drivers, BlueZ or a sleep script may turn
         * some radios on as the system wakes, in one batch. */
        g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, 4);
        g_autoptr (GArray) softs = g_array_new (FALSE, FALSE,
                                                sizeof (gboolean));
        gboolean off = FALSE;

        g_string_append (run->steps, "sleep, resume\n");
        rfk_manager_prepare_for_sleep (run->manager, TRUE);
        rfk_manager_prepare_for_sleep (run->manager, FALSE);
        model_sleep (m, run->keep);
        if (g_rand_boolean (run->rand))
          break;
        for (guint i = 0; i < k->radios->len; i++)
          {
            KRadio *o = k->radios->pdata[i];

            if (!o->soft || g_rand_boolean (run->rand))
              continue;
            g_string_append_printf (run->steps, "  resume turns %u on\n",
                                    o->idx);
            kernel_set_soft (k, o, FALSE);
            g_array_append_val (ids, o->idx);
            g_array_append_val (softs, off);
          }
        model_others_set (m, (guint32 *) ids->data,
                          (gboolean *) softs->data, ids->len);
      }
      break;
    case 8:
      g_string_append (run->steps, "resume window ends\n");
      rfk_manager_resume_end_window (run->manager);
      model_resume_window_end (m);
      break;
    default:
      g_string_append (run->steps, "restart\n");
      stop_manager (run);
      start_manager (run);
      model_restart (m);
      break;
    }
  deliver (run, G_MAXUINT);
  settle (run);
}

/* ---- comparing -------------------------------------------------------- */

static gboolean
model_type_blocked (Model *m, guint8 type)
{
  guint present = 0;

  for (guint i = 0; i < m->radios->len; i++)
    {
      ModelRadio *r = m->radios->pdata[i];

      if (r->type != type)
        continue;
      present++;
      if (!r->soft && !r->hard)
        return FALSE;
    }
  return present > 0;
}

static gboolean
dbus_bool (RfkManager *manager, const char *name)
{
  RfkDBusModel model = { .manager = manager };
  g_autoptr (GVariant) value = rfk_dbus_property_get (&model, name);

  return g_variant_get_boolean (value);
}

/* The exceptions on disk, those of radios gone included. */
static void
compare_exceptions (Model *m, GString *diff)
{
  g_autofree char *path = rfk_exceptions_dup_path ();
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_auto (GStrv) keys = NULL;
  g_autoptr (GHashTable) on_disk = g_hash_table_new (g_str_hash,
                                                     g_str_equal);
  GHashTableIter iter;
  gpointer key;

  if (g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, NULL))
    keys = g_key_file_get_keys (file, "exceptions", NULL, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      g_hash_table_add (on_disk, keys[i]);
      if (!g_hash_table_contains (m->exceptions, keys[i]))
        g_string_append_printf (diff, "exception %s: engine only\n",
                                keys[i]);
    }
  g_hash_table_iter_init (&iter, m->exceptions);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (on_disk, key))
      g_string_append_printf (diff, "exception %s: model only\n",
                              (char *) key);
}

/* "" if the engine agrees with the model, else what differs. */
static char *
compare (Run *run)
{
  GString *diff = g_string_new (NULL);
  Model *m = run->m;
  g_autoptr (RfkAirplaneStore) store = rfk_airplane_store_load (NULL);

  if (run->k.radios->len != m->radios->len)
    g_string_append_printf (diff, "radios: kernel %u, model %u\n",
                            run->k.radios->len, m->radios->len);
  for (guint i = 0; i < run->k.radios->len; i++)
    {
      KRadio *r = run->k.radios->pdata[i];
      ModelRadio *mr = model_lookup (m, r->idx);
      RfkDevice *d = rfk_manager_lookup (run->manager, r->idx);
      g_autofree char *key = NULL;
      gboolean in_store, in_model, soft_store = FALSE;
      gpointer value = NULL;

      if (mr == NULL || d == NULL)
        {
          g_string_append_printf (diff, "radio %u: model %p engine %p\n",
                                  r->idx, (void *) mr, (void *) d);
          continue;
        }
      if (r->soft != mr->soft || r->hard != mr->hard)
        g_string_append_printf (diff, "%s: kernel soft %d hard %d, model "
                                "soft %d hard %d\n", r->name, r->soft,
                                r->hard, mr->soft, mr->hard);
      if (d->refused != mr->refused)
        g_string_append_printf (diff, "%s: engine refused %d, model %d\n",
                                r->name, d->refused, mr->refused);
      if (d->exception != model_excepted (m, mr))
        g_string_append_printf (diff, "%s: engine exception %d, model %d\n",
                                r->name, d->exception,
                                model_excepted (m, mr));
      key = model_key (mr);
      in_store = store != NULL && store->active
                 && rfk_airplane_store_lookup (store, key, &soft_store);
      in_model = m->list_active
                 && g_hash_table_lookup_extended (m->list, key, NULL,
                                                  &value);
      if (in_store != in_model
          || (in_model && soft_store != GPOINTER_TO_INT (value) - 1))
        g_string_append_printf (diff, "list %s: engine %s, model %s\n", key,
                                in_store ? (soft_store ? "off" : "on") : "-",
                                in_model ? (GPOINTER_TO_INT (value) - 1
                                              ? "off" : "on")
                                         : "-");
    }
  compare_exceptions (m, diff);
  if (rfk_manager_resume_watching (run->manager) != m->watching)
    g_string_append_printf (diff, "resume guard watching: engine %d, "
                            "model %d\n",
                            rfk_manager_resume_watching (run->manager),
                            m->watching);
  if (store == NULL || store->active != m->list_active)
    g_string_append_printf (diff, "list active: engine %d, model %d\n",
                            store != NULL && store->active, m->list_active);
  if (rfk_manager_get_airplane_mode (run->manager)
      != model_airplane (m, FALSE))
    g_string_append_printf (diff, "airplane mode: engine %d, model %d\n",
                            rfk_manager_get_airplane_mode (run->manager),
                            model_airplane (m, FALSE));
  if (dbus_bool (run->manager, "AirplaneMode") != model_airplane (m, FALSE))
    g_string_append (diff, "D-Bus AirplaneMode differs\n");
  if (dbus_bool (run->manager, "BluetoothAirplaneMode")
      != model_type_blocked (m, RFK_TYPE_BLUETOOTH))
    g_string_append (diff, "D-Bus BluetoothAirplaneMode differs\n");
  if (dbus_bool (run->manager, "WwanAirplaneMode")
      != model_type_blocked (m, RFK_TYPE_WWAN))
    g_string_append (diff, "D-Bus WwanAirplaneMode differs\n");
  return g_string_free (diff, FALSE);
}

/* ---- one interleaving ------------------------------------------------ */

static void
clear_state (const char *state_dir, const char *sysfs)
{
  g_autofree char *list = rfk_airplane_store_dup_path ();
  g_autofree char *refusals = rfk_refusals_dup_path ();
  g_autofree char *exceptions = rfk_exceptions_dup_path ();

  rfk_state_file_wait_durable ();
  g_unlink (list);
  g_unlink (refusals);
  g_unlink (exceptions);
  test_rm_rf (sysfs);
  g_mkdir_with_parents (sysfs, 0755);
}

static char *
run_one (guint32 seed, const char *sysfs, GString *steps)
{
  Run run = { 0 };
  guint n_radios, n_steps;
  gboolean some_refuse = FALSE;
  char *diff;

  run.rand = g_rand_new_with_seed (seed);
  run.keep = g_rand_int_range (run.rand, 0, 4) != 0 && !g_getenv ("NOKEEP");
  if (!run.keep)
    g_string_append (steps, "keep-radio-states off\n");
  run.steps = steps;
  verbose_log = steps;
  run.m = model_new ();
  run.k.radios = g_ptr_array_new_with_free_func ((GDestroyNotify) kradio_free);
  run.k.sysfs = (char *) sysfs;
  g_queue_init (&run.k.writes);
  g_queue_init (&run.k.events);

  n_radios = g_rand_int_range (run.rand, 1, 5);
  for (guint i = 0; i < n_radios; i++)
    {
      guint8 type = types[g_rand_int_range (run.rand, 0,
                                            G_N_ELEMENTS (types))];
      gboolean refuses = !some_refuse
                         && g_rand_int_range (run.rand, 0, 6) == 0;
      KRadio *r = kernel_add (&run.k, type, NULL,
                              g_rand_int_range (run.rand, 0, 3) == 0,
                              g_rand_int_range (run.rand, 0, 8) == 0,
                              refuses);

      some_refuse |= refuses;
      g_string_append_printf (steps, "radio %u %s%s%s%s\n", r->idx, r->name,
                              r->soft ? " off" : "", r->hard ? " hard" : "",
                              r->refuses ? " refuses" : "");
      model_radio_added (run.m, r->idx, r->type, r->name, r->refuses);
      model_lookup (run.m, r->idx)->hard = r->hard;
      model_lookup (run.m, r->idx)->soft = r->soft;
      model_lookup (run.m, r->idx)->leaves = r->soft;
    }
  start_manager (&run);

  n_steps = g_rand_int_range (run.rand, 2, 12);
  for (guint i = 0; i < n_steps; i++)
    {
      int pick = g_rand_int_range (run.rand, 0, 10);

      if (pick < 4)
        step_request (&run);
      else if (pick < 6)
        g_string_append_printf (steps, "  kernel carries out %u writes\n",
                                kernel_apply (&run.k, g_rand_int_range (
                                                run.rand, 1, 4)));
      else if (pick < 8)
        g_string_append_printf (steps, "  %u events reach the engine\n",
                                deliver (&run, g_rand_int_range (run.rand,
                                                                 1, 4)));
      else
        step_outside (&run);
      if (verbose)
        {
          g_autoptr (RfkAirplaneStore) store = rfk_airplane_store_load (NULL);

          g_string_append_printf (steps, "    [engine: airplane %d wanted %d,"
                                  " list %d; model: airplane %d, list %d]\n",
                                  rfk_manager_get_airplane_mode (run.manager),
                                  rfk_manager_get_airplane_mode_wanted (
                                    run.manager),
                                  store != NULL && store->active,
                                  model_airplane (run.m, TRUE),
                                  run.m->list_active);
        }
    }
  settle (&run);
  diff = compare (&run);

  stop_manager (&run);
  g_queue_clear_full (&run.k.writes, g_free);
  g_queue_clear_full (&run.k.events, g_free);
  g_ptr_array_unref (run.k.radios);
  if (g_hash_table_size (run.m->exceptions) > 0
      || strstr (steps->str, "remove exception") != NULL)
    with_exceptions++;
  model_free (run.m);
  g_rand_free (run.rand);
  return diff;
}

static guint
env_uint (const char *name, guint fallback)
{
  const char *value = g_getenv (name);

  return value != NULL && *value != '\0' ? (guint) strtoul (value, NULL, 0)
                                         : fallback;
}

static void
test_engine_follows_the_rules (void)
{
  guint count = env_uint ("RFK_RULES_COUNT", 10000);
  guint32 seed = env_uint ("RFK_RULES_SEED", g_random_int ());
  const char *only = g_getenv ("RFK_RULES_ONLY");
  g_autofree char *dir = NULL;
  g_autofree char *state = NULL, *sysfs = NULL;
  guint mismatches = 0, first = 0, last = count;
  const char *base = g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR)
                       ? "/dev/shm" : g_get_tmp_dir ();
  g_autofree char *template = g_build_filename (base, "rfk-rules-XXXXXX",
                                                NULL);

  dir = g_mkdtemp (g_steal_pointer (&template));
  g_assert_nonnull (dir);
  state = g_build_filename (dir, "state", NULL);
  sysfs = g_build_filename (dir, "sys", NULL);
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  g_setenv ("RFKILL_SYSFS_ROOT", sysfs, TRUE);
  if (only != NULL)
    {
      verbose = TRUE;
      first = (guint) strtoul (only, NULL, 0);
      last = first + 1;
    }
  g_test_message ("RFK_RULES_SEED=%u, %u interleavings", seed, last - first);
  g_printerr ("# RFK_RULES_SEED=%u (replay one: RFK_RULES_ONLY=N)\n", seed);

  for (guint i = first; i < last; i++)
    {
      g_autoptr (GString) steps = g_string_new (NULL);
      g_autofree char *diff = NULL;

      clear_state (state, sysfs);
      diff = run_one (seed ^ (i * 2654435761u), sysfs, steps);
      if (only != NULL)
        g_printerr ("%s", steps->str);
      if (*diff != '\0')
        {
          if (mismatches++ < 3)
            g_printerr ("# mismatch: RFK_RULES_SEED=%u RFK_RULES_ONLY=%u\n"
                        "%s# differs:\n%s", seed, i, steps->str, diff);
        }
    }
  clear_state (state, sysfs);
  test_rm_rf (dir);
  g_printerr ("# %u interleavings (%u with an exception at the end or "
              "one removed), %u mismatches, RFK_RULES_SEED=%u\n",
              last - first, with_exceptions, mismatches, seed);
  g_assert_cmpuint (mismatches, ==, 0);
}

/* The engine logs every write, and warns of a radio that refused a
 * block nobody waited for: thousands of runs need none of it, criticals
 * still abort. */
static void
quiet_handler (const char *domain, GLogLevelFlags level, const char *message,
               gpointer user_data)
{
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
    g_log_default_handler (domain, level, message, user_data);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_log_set_always_fatal (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL);
  g_log_set_default_handler (quiet_handler, NULL);
  g_test_add_func ("/rules/engine-follows-the-rules",
                   test_engine_follows_the_rules);
  return g_test_run ();
}
