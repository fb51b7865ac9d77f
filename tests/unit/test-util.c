/* test-util.c: a fake kernel, a manager on it, and waiting helpers. */
#include "test-util.h"

#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/prctl.h>

#include "rfk-airplane-store.h"
#include "rfk-device.h"

void
test_rm_rf (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR)
          && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        test_rm_rf (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *state_home = NULL;

  /* Short path: sun_path holds 108 bytes. */
  f->dir = g_dir_make_tmp ("rfk-XXXXXX", &error);
  g_assert_no_error (error);
  f->socket_path = g_build_filename (f->dir, "rfkill.sock", NULL);
  f->sysfs_dir = g_build_filename (f->dir, "sys", NULL);
  state_home = g_build_filename (f->dir, "state", NULL);
  f->state_file = g_build_filename (state_home, "rfkill-applet",
                                    "airplane-mode.ini", NULL);
  g_setenv ("XDG_STATE_HOME", state_home, TRUE);
  g_setenv ("RFKILL_SYSFS_ROOT", f->sysfs_dir, TRUE);
  f->fake = fake_rfkill_new (f->sysfs_dir);
  f->log = g_ptr_array_new_with_free_func (g_free);
}

void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_clear_object (&f->manager);
  g_clear_pointer (&f->fake, fake_rfkill_free);
  test_settle (10);
  test_rm_rf (f->dir);
  g_free (f->dir);
  g_free (f->socket_path);
  g_free (f->sysfs_dir);
  g_free (f->state_file);
  g_free (f->soft_states);
  g_ptr_array_unref (f->log);
}

void
fixture_listen (Fixture *f)
{
  g_autoptr (GError) error = NULL;

  fake_rfkill_listen (f->fake, f->socket_path, &error);
  g_assert_no_error (error);
}

static gboolean
is_not_starting (gpointer data)
{
  return rfk_manager_get_state (data) != RFK_MANAGER_STATE_STARTING;
}

RfkManager *
fixture_start_manager (Fixture *f)
{
  RfkManager *manager = rfk_manager_new (f->socket_path);

  test_log_signals (f, manager);
  rfk_manager_start (manager);
  g_assert_true (test_wait_for (is_not_starting, manager, 3000));
  g_assert_cmpint (rfk_manager_get_state (manager), ==,
                   RFK_MANAGER_STATE_READY);
  return manager;
}

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

gboolean
test_wait_for (TestCond cond, gpointer data, guint timeout_ms)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (timeout_ms, timeout_cb, &timed_out);

  while (!cond (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  return !timed_out || cond (data);
}

void
test_settle (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, timeout_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

typedef struct {
  gboolean done;
  gboolean ok;
  GError *error;
} Result;

static void
airplane_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  Result *r = data;

  r->ok = rfk_manager_set_airplane_mode_finish (RFK_MANAGER (source), res,
                                                &r->error);
  r->done = TRUE;
}

static void
blocked_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  Result *r = data;

  r->ok = rfk_manager_set_blocked_finish (RFK_MANAGER (source), res,
                                          &r->error);
  r->done = TRUE;
}

static void
type_blocked_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  Result *r = data;

  r->ok = rfk_manager_set_type_blocked_finish (RFK_MANAGER (source), res,
                                               &r->error);
  r->done = TRUE;
}

static gboolean
result_done (gpointer data)
{
  return ((Result *) data)->done;
}

gboolean
test_set_airplane (RfkManager *manager, gboolean enabled, GError **error)
{
  Result r = { 0 };

  rfk_manager_set_airplane_mode_async (manager, enabled, NULL, airplane_cb,
                                       &r);
  g_assert_true (test_wait_for (result_done, &r, 8000));
  if (r.error)
    g_propagate_error (error, r.error);
  return r.ok;
}

gboolean
test_set_blocked (RfkManager *manager, guint32 idx, gboolean blocked,
                  GError **error)
{
  Result r = { 0 };

  rfk_manager_set_blocked_async (manager, idx, blocked, NULL, blocked_cb, &r);
  g_assert_true (test_wait_for (result_done, &r, 8000));
  if (r.error)
    g_propagate_error (error, r.error);
  return r.ok;
}

gboolean
test_set_type_blocked (RfkManager *manager, guint type, gboolean blocked,
                       GError **error)
{
  Result r = { 0 };

  rfk_manager_set_type_blocked_async (manager, type, blocked, NULL,
                                      type_blocked_cb, &r);
  g_assert_true (test_wait_for (result_done, &r, 8000));
  if (r.error)
    g_propagate_error (error, r.error);
  return r.ok;
}

char *
test_take_log (Fixture *f)
{
  char *joined;

  g_ptr_array_add (f->log, NULL);
  joined = g_strjoinv ("\n", (char **) f->log->pdata);
  g_ptr_array_set_size (f->log, 0);
  return joined;
}

static void
log_line (Fixture *f, char *line)
{
  g_ptr_array_add (f->log, line);
}

static void
on_added (RfkManager *m, RfkDevice *d, Fixture *f)
{
  log_line (f, g_strdup_printf ("added %u %s soft=%d hard=%d", d->idx,
                                d->name, d->soft, d->hard));
}

static void
on_removed (RfkManager *m, RfkDevice *d, Fixture *f)
{
  log_line (f, g_strdup_printf ("removed %u %s", d->idx, d->name));
}

static void
on_changed (RfkManager *m, RfkDevice *d, Fixture *f)
{
  log_line (f, g_strdup_printf ("changed %u %s soft=%d hard=%d", d->idx,
                                d->name, d->soft, d->hard));
}

static void
on_hw (RfkManager *m, RfkDevice *d, gboolean hard, Fixture *f)
{
  log_line (f, g_strdup_printf ("hardware-switch %s %s", d->name,
                                hard ? "on" : "off"));
}

static void
on_airplane (RfkManager *m, gboolean enabled, Fixture *f)
{
  log_line (f, g_strdup_printf ("airplane %s", enabled ? "on" : "off"));
}

static void
on_ended_elsewhere (RfkManager *m, Fixture *f)
{
  log_line (f, g_strdup ("airplane ended elsewhere"));
}

static void
on_entered_elsewhere (RfkManager *m, Fixture *f)
{
  log_line (f, g_strdup ("airplane entered elsewhere"));
}

static void
on_kept_off (RfkManager *m, RfkDevice *d, gboolean gave_up, Fixture *f)
{
  log_line (f, g_strdup_printf ("%s %s", gave_up ? "left on" : "kept off",
                                d->name));
}

static void
on_airplane_light (RfkManager *m, gboolean lit, Fixture *f)
{
  log_line (f, g_strdup_printf ("light %s", lit ? "lit" : "dark"));
}

static void
on_state (RfkManager *m, Fixture *f)
{
  static const char *const names[] = { "starting", "ready", "no-device",
                                       "no-permission", "failed" };

  log_line (f, g_strdup_printf ("state %s",
                                names[rfk_manager_get_state (m)]));
}

void
test_log_signals (Fixture *f, RfkManager *m)
{
  g_signal_connect (m, "device-added", G_CALLBACK (on_added), f);
  g_signal_connect (m, "device-removed", G_CALLBACK (on_removed), f);
  g_signal_connect (m, "device-changed", G_CALLBACK (on_changed), f);
  g_signal_connect (m, "hardware-switch-changed", G_CALLBACK (on_hw), f);
  g_signal_connect (m, "airplane-mode-changed", G_CALLBACK (on_airplane), f);
  /* Not every version of the manager has it. */
  if (g_signal_lookup ("airplane-mode-ended-elsewhere", RFK_TYPE_MANAGER))
    g_signal_connect (m, "airplane-mode-ended-elsewhere",
                      G_CALLBACK (on_ended_elsewhere), f);
  if (g_signal_lookup ("airplane-mode-entered-elsewhere", RFK_TYPE_MANAGER))
    g_signal_connect (m, "airplane-mode-entered-elsewhere",
                      G_CALLBACK (on_entered_elsewhere), f);
  if (g_signal_lookup ("radio-kept-off", RFK_TYPE_MANAGER))
    g_signal_connect (m, "radio-kept-off", G_CALLBACK (on_kept_off), f);
  g_signal_connect (m, "airplane-light-changed", G_CALLBACK (on_airplane_light), f);
  g_signal_connect (m, "state-changed", G_CALLBACK (on_state), f);
}

const char *
fixture_soft_states (Fixture *f)
{
  GPtrArray *radios = fake_rfkill_get_radios (f->fake);
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint i = 0; i < radios->len; i++)
    {
      FakeRadio *r = g_ptr_array_index (radios, i);

      g_string_append_printf (s, "%s%s=%s", i ? " " : "", r->name,
                              r->soft ? "off" : "on");
    }
  g_free (f->soft_states);
  f->soft_states = g_string_free (g_steal_pointer (&s), FALSE);
  return f->soft_states;
}

gboolean
test_store_is_active (void)
{
  g_autoptr (RfkAirplaneStore) store = rfk_airplane_store_load (NULL);

  g_assert_nonnull (store);
  return store->active;
}

/* A failing test aborts without its teardown: the fake must not outlive
 * it, holding the test runner's stderr open (meson would wait for the
 * timeout instead of reporting the failure). */
static void
die_with_parent (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

FakeProcess *
fake_process_start (Fixture *f, const char *radios,
                    const char *const *extra_args)
{
  const char *program = g_getenv ("FAKE_RFKILL");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr (GError) error = NULL;
  g_autoptr (GDataInputStream) out = NULL;
  g_autofree char *line = NULL;
  FakeProcess *fp = g_new0 (FakeProcess, 1);

  g_assert_nonnull (program);  /* set by meson */
  fp->socket_path = g_strdup (f->socket_path);
  fp->control_path = g_build_filename (f->dir, "control.sock", NULL);
  g_ptr_array_add (argv, (char *) program);
  g_ptr_array_add (argv, "--listen");
  g_ptr_array_add (argv, fp->socket_path);
  g_ptr_array_add (argv, "--control");
  g_ptr_array_add (argv, fp->control_path);
  g_ptr_array_add (argv, "--sysfs");
  g_ptr_array_add (argv, f->sysfs_dir);
  g_ptr_array_add (argv, "--no-stdin");
  g_ptr_array_add (argv, "--radios");
  g_ptr_array_add (argv, (char *) radios);
  for (guint i = 0; extra_args != NULL && extra_args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) extra_args[i]);
  g_ptr_array_add (argv, NULL);

  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL,
                                         NULL);
  fp->process = g_subprocess_launcher_spawnv (
    launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (fp->process));
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line, ==, "ready");
  return fp;
}

char *
fake_process_command (FakeProcess *fp, const char *command)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_autoptr (GSocketAddress) address =
    g_unix_socket_address_new (fp->control_path);
  g_autoptr (GSocketConnection) connection = NULL;
  g_autoptr (GDataInputStream) in = NULL;
  g_autoptr (GString) reply = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  char *line;

  connection = g_socket_client_connect (client,
                                        G_SOCKET_CONNECTABLE (address),
                                        NULL, &error);
  g_assert_no_error (error);
  g_output_stream_printf (
    g_io_stream_get_output_stream (G_IO_STREAM (connection)), NULL, NULL,
    &error, "%s\n", command);
  g_assert_no_error (error);
  in = g_data_input_stream_new (
    g_io_stream_get_input_stream (G_IO_STREAM (connection)));
  while ((line = g_data_input_stream_read_line (in, NULL, NULL, &error)))
    {
      if (g_str_equal (line, "ok"))
        {
          g_free (line);
          return g_strchomp (g_string_free (g_steal_pointer (&reply),
                                            FALSE));
        }
      if (g_str_has_prefix (line, "error: "))
        g_error ("fake-rfkill %s: %s", command, line);
      g_string_append_printf (reply, "%s\n", line);
      g_free (line);
    }
  g_error ("fake-rfkill closed the control connection: %s",
           error ? error->message : "EOF");
}

void
fake_process_stop (FakeProcess *fp)
{
  if (fp == NULL)
    return;
  g_subprocess_send_signal (fp->process, SIGTERM);
  g_subprocess_wait (fp->process, NULL, NULL);
  g_object_unref (fp->process);
  g_free (fp->socket_path);
  g_free (fp->control_path);
  g_free (fp);
}
