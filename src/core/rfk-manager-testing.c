/*
 * rfk-manager-testing.c: the seams of rfk-manager-testing.h, for the
 * tests, the fuzzer and the benchmark.
 */
#include "config.h"

#include "rfk-manager-testing.h"
#include "rfk-manager-private.h"

void
rfk_manager_feed (RfkManager *self, const guint8 *buf, gsize len)
{
  g_return_if_fail (RFK_IS_MANAGER (self));

  g_object_ref (self);
  rfk_manager_process (self, buf, len);
  rfk_manager_batch_end (self);
  g_object_unref (self);
}

void
rfk_manager_feed_ready (RfkManager *self)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  rfk_manager_set_state (self, RFK_MANAGER_STATE_READY, NULL);
}

void
rfk_manager_set_confirm_timeout (RfkManager *self, guint ms)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  self->timing.confirm_ms = ms;
}

void
rfk_manager_set_timing (RfkManager *self, const RfkManagerTiming *timing)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  self->timing = *timing;
}

void
rfk_manager_resume_end_window (RfkManager *self)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  rfk_manager_resume_end_watch (self);
}

gboolean
rfk_manager_resume_watching (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), FALSE);
  return self->resume_watch;
}

void
rfk_manager_adopt_fd (RfkManager *self, int fd, gboolean is_socket)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  g_return_if_fail (self->fd < 0);
  self->fd = fd;
  self->is_socket = is_socket;
}
