/*
 * rfk-manager-testing.h: seams into RfkManager for the tests, the fuzzer
 * and the benchmark, which drive it without a kernel and without waiting
 * for its clocks.  Not for the applet or the CLI.
 */
#pragma once

#include "rfk-manager.h"

G_BEGIN_DECLS

/* Processes one read()/packet exactly as if it came from the device, as
 * a batch of its own (see rfk_manager_batch_end()). */
void rfk_manager_feed (RfkManager *self, const guint8 *buf, gsize len);

/* Marks the manager READY without a device (initial ADDs are over). */
void rfk_manager_feed_ready (RfkManager *self);

/* Writes go to fd (the manager closes it); nothing is read from it, the
 * caller feeds events with rfk_manager_feed(). */
void rfk_manager_adopt_fd (RfkManager *self, int fd, gboolean is_socket);

/* How long the kernel may take to confirm a write (default 5 s), for
 * tests that make radios refuse. */
void rfk_manager_set_confirm_timeout (RfkManager *self, guint ms);

/* The windows of rfk-manager-others.c, for tests that check the rules
 * on many interleavings without waiting for the clock: with 0, every
 * batch is a sweep of its own and decisions about other programs are
 * taken at the batch's end (or the next main-loop turn). */
typedef struct {
  guint sweep_ms;         /* changes this close are one sweep */
  guint ended_settle_ms;  /* the rest of an "everything on" may follow */
  guint flap_quiet_ms;    /* decisions this close wait for quiet */
  guint confirm_ms;       /* the kernel confirms a write within */
  /* How long after resume the guard watches (rfk-manager-resume.c); 0:
   * until rfk_manager_resume_end_window(). */
  guint resume_ms;
  /* A change this soon after a radio's arrival is a restore as it was
   * plugged in, for the history (rfk-manager-history.c); 0: none is. */
  guint hotplug_ms;
} RfkManagerTiming;
void rfk_manager_set_timing (RfkManager *self, const RfkManagerTiming *timing);

/* The resume guard's window ends now, as its timeout would. */
void rfk_manager_resume_end_window (RfkManager *self);
/* The guard is watching: between sleep and the window's end. */
gboolean rfk_manager_resume_watching (RfkManager *self);

G_END_DECLS
