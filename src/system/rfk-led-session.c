/*
 * rfk-led-session.c: the light follows the active session.
 *
 * With fast user switching each session's applet wants the indicator;
 * the kernel gives it to one open file.  The applet of a session that
 * goes to the background closes its fd, which hands the light back; the
 * one that comes to the front takes it again.
 */
#include "config.h"

#include "rfk-led-controller-private.h"

/* Whether taking the indicator back is still to do. */
static gboolean
wants_it_back (RfkLedController *self)
{
  return !self->background && self->rule != RFK_LED_RULE_KERNEL
    && self->fd < 0 && self->phase == ACQUIRE_IDLE
    && self->status != RFK_AIRPLANE_LIGHT_UNSUPPORTED;
}

/* Runs until the indicator is ours again, or the time is up.  The other
 * session's applet hears of the switch when we do and lets go a moment
 * later; logind may also grant us /dev/rfkill a moment after saying we
 * are active.  Until then ACQUIRE answers EACCES. */
static gboolean
take_back_cb (gpointer user_data)
{
  RfkLedController *self = user_data;
  g_autoptr (GError) error = NULL;

  if (self->background || self->rule == RFK_LED_RULE_KERNEL
      || self->status == RFK_AIRPLANE_LIGHT_OWNED
      || self->status == RFK_AIRPLANE_LIGHT_UNSUPPORTED)
    {
      self->take_back_source = 0;
      g_clear_error (&self->take_back_error);
      return G_SOURCE_REMOVE;
    }
  if (g_get_monotonic_time () >= self->take_back_deadline)
    {
      /* Given up.  An answer (EACCES) has set its own status; a device
       * that never opened has not: without this, the user's rule would
       * look in force while the kernel's drives the LED. */
      self->take_back_source = 0;
      if (wants_it_back (self) && self->error == NULL
          && self->take_back_error != NULL)
        rfk_led_controller_set_status (
          self, RFK_AIRPLANE_LIGHT_UNKNOWN,
          g_steal_pointer (&self->take_back_error));
      g_clear_error (&self->take_back_error);
      return G_SOURCE_REMOVE;
    }
  if (wants_it_back (self)
      && !rfk_led_controller_acquire (self, self->rule, &error))
    {
      g_debug ("airplane-mode LED not taken back yet: %s", error->message);
      g_clear_error (&self->take_back_error);
      self->take_back_error = g_steal_pointer (&error);
    }
  return G_SOURCE_CONTINUE;
}

static void
go_to_background (RfkLedController *self)
{
  self->background = TRUE;
  g_clear_handle_id (&self->take_back_source, g_source_remove);
  g_clear_error (&self->take_back_error);
  if (self->rule == RFK_LED_RULE_KERNEL)
    return;
  /* Keep what the user chose, also a choice still waiting for its
   * answer; closing the fd is what hands the indicator back. */
  if (self->phase != ACQUIRE_IDLE)
    self->rule = self->pending_rule;
  rfk_led_controller_close_fd (self);
  rfk_led_controller_set_status (self, RFK_AIRPLANE_LIGHT_UNKNOWN, NULL);
}

static void
come_to_front (RfkLedController *self)
{
  self->background = FALSE;
  if (!wants_it_back (self))
    return;
  self->take_back_deadline = g_get_monotonic_time ()
    + RFK_LED_TAKE_BACK_MS * G_TIME_SPAN_MILLISECOND;
  if (take_back_cb (self))
    self->take_back_source = g_timeout_add (200, take_back_cb, self);
}

static void
session_active_cb (RfkLoginSession *session, GParamSpec *pspec,
                   RfkLedController *self)
{
  gboolean active = rfk_login_session_get_active (session);

  if (active == !self->background)
    return;
  if (active)
    come_to_front (self);
  else
    go_to_background (self);
}

void
rfk_led_controller_set_login_session (RfkLedController *self,
                                      RfkLoginSession *session)
{
  g_return_if_fail (RFK_IS_LED_CONTROLLER (self));
  g_return_if_fail (session == NULL || RFK_IS_LOGIN_SESSION (session));

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);
  if (session != NULL)
    {
      g_signal_connect (session, "notify::active",
                        G_CALLBACK (session_active_cb), self);
      session_active_cb (session, NULL, self);
    }
  else if (self->background)
    come_to_front (self);
}

gboolean
rfk_led_controller_is_in_background (RfkLedController *self)
{
  g_return_val_if_fail (RFK_IS_LED_CONTROLLER (self), FALSE);
  return self->background;
}
