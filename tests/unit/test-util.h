/* test-util.h: a fake kernel, a manager on it, and waiting helpers. */
#pragma once

#include <glib.h>

#include "fake-rfkill.h"
#include "rfk-manager.h"

typedef struct {
  char *dir;          /* private temp dir: state, sysfs, socket */
  char *socket_path;
  char *sysfs_dir;
  char *state_file;
  FakeRfkill *fake;
  RfkManager *manager;
  GPtrArray *log;     /* one line per manager signal, see log_*() */
  char *soft_states;  /* the last fixture_soft_states() */
} Fixture;

/* Temp dirs and environment; no fake kernel listening yet. */
void fixture_setup (Fixture *f, gconstpointer data);
void fixture_teardown (Fixture *f, gconstpointer data);

/* Listens on f->socket_path. */
void fixture_listen (Fixture *f);
/* A new manager on the socket, with its signals logged, started and
 * waited for until READY. */
RfkManager *fixture_start_manager (Fixture *f);

/* Runs the main context until cond (checked after each iteration)
 * holds; FALSE after timeout_ms. */
typedef gboolean (*TestCond) (gpointer data);
gboolean test_wait_for (TestCond cond, gpointer data, guint timeout_ms);
/* Lets pending I/O happen for ms milliseconds. */
void test_settle (guint ms);

/* Removes a directory tree (a test's temporary files). */
void test_rm_rf (const char *path);

/* Blocking wrappers over the async API. */
gboolean test_set_airplane (RfkManager *manager, gboolean enabled,
                            GError **error);
gboolean test_set_blocked (RfkManager *manager, guint32 idx,
                           gboolean blocked, GError **error);
gboolean test_set_type_blocked (RfkManager *manager, guint type,
                                gboolean blocked, GError **error);

/* The log as one string, lines joined by '\n'; then the log is cleared. */
char *test_take_log (Fixture *f);
/* Logs manager signals of m into f->log. */
void test_log_signals (Fixture *f, RfkManager *m);

/* "phy0=on hci0=off …" for the fake's radios (soft state only); valid
 * until the next call. */
const char *fixture_soft_states (Fixture *f);
/* Whether the airplane store on disk holds an airplane mode. */
gboolean test_store_is_active (void);

/* The fake-rfkill program as a child process, driven through its
 * --control socket.  args: extra options, e.g. "--stock". */
typedef struct {
  GSubprocess *process;
  char *socket_path;
  char *control_path;
} FakeProcess;

FakeProcess *fake_process_start (Fixture *f, const char *radios,
                                 const char *const *extra_args);
/* Sends one control command; returns its data lines (without "ok"),
 * failing the test on "error: …". */
char *fake_process_command (FakeProcess *fp, const char *command);
void fake_process_stop (FakeProcess *fp);
