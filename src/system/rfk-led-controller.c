/*
 * rfk-led-controller.c: drive the kernel's airplane-mode indicator by a
 * rule.
 *
 * The controller has its own fd because ownership of the indicator is per
 * open file in the kernel: closing it is the documented way to hand the
 * LED back to the kernel's default rule, and it must not take the
 * manager's event stream down with it.
 */
#include "config.h"

#include "rfk-led-controller-private.h"

#include <errno.h>
#include <glib-unix.h>
#include <glib/gi18n.h>
#include <unistd.h>

#include "rfk-event.h"
#include "rfk-indicator-holder.h"
#include "rfk-transport.h"

/* The kernel takes RFKILL_AIRPLANE_MODE_CHANGES_PER_SEC changes of the
 * light per second from us and answers EBUSY past that. */
#define BUSY_RETRY_MS 1000

enum { SIGNAL_STATUS_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RfkLedController, rfk_led_controller, G_TYPE_OBJECT)

void
rfk_led_controller_set_status (RfkLedController *self,
                               RfkAirplaneLightStatus status, GError *error)
{
  g_clear_error (&self->error);
  self->error = error;
  self->status = status;
  if (status != RFK_AIRPLANE_LIGHT_BUSY)
    g_clear_pointer (&self->holder, g_free);
  g_signal_emit (self, signals[SIGNAL_STATUS_CHANGED], 0);
}

void
rfk_led_controller_close_fd (RfkLedController *self)
{
  g_clear_handle_id (&self->read_source, g_source_remove);
  g_clear_handle_id (&self->acquire_timeout, g_source_remove);
  g_clear_handle_id (&self->busy_retry, g_source_remove);
  self->phase = ACQUIRE_IDLE;
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
  self->written = FALSE;
}

static GError *
indicator_error (RfkLedController *self, int err)
{
  const char *path = rfk_manager_get_device_path (self->manager);

  if (err == EINVAL)
    return g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                        _("The running kernel cannot hand the airplane-mode "
                          "LED to programs (%s rejects the indicator "
                          "operations); install the rfkill-airplane DKMS "
                          "package to get this feature"), path);
  if (err == EACCES && self->holder != NULL)
    return g_error_new (G_IO_ERROR, G_IO_ERROR_BUSY,
                        _("%s controls the airplane-mode LED through %s"),
                        self->holder, path);
  if (err == EACCES)
    return g_error_new (G_IO_ERROR, G_IO_ERROR_BUSY,
                        _("Another program controls the airplane-mode LED "
                          "through %s"), path);
  if (err == ETIMEDOUT)
    return g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                        _("%s did not answer the request for the "
                          "airplane-mode LED within %d s"), path,
                        RFK_LED_STATUS_TIMEOUT_MS / 1000);
  return rfk_transport_error_new (path, RFK_TRANSPORT_WRITE, err);
}

static RfkAirplaneLightStatus
status_for_errno (int err)
{
  if (err == EINVAL)
    return RFK_AIRPLANE_LIGHT_UNSUPPORTED;
  if (err == EACCES)
    return RFK_AIRPLANE_LIGHT_BUSY;
  return RFK_AIRPLANE_LIGHT_UNKNOWN;
}

static void push_value (RfkLedController *self);

static gboolean
busy_retry_cb (gpointer user_data)
{
  RfkLedController *self = user_data;

  self->busy_retry = 0;
  push_value (self);
  return G_SOURCE_REMOVE;
}

/*
 * The kernel refused an operation with err.  EBUSY (too many changes in
 * a second) keeps the light: the value is written again a second later.
 * Anything else closes our fd and says why, naming the program that
 * holds the light where the kernel tells (EACCES).  Returns whether the
 * fd is still open.
 */
static gboolean
refused (RfkLedController *self, int err)
{
  gboolean was_owner = self->status == RFK_AIRPLANE_LIGHT_OWNED;

  if (err == EBUSY && was_owner)
    {
      self->written = FALSE;
      if (self->busy_retry == 0)
        self->busy_retry = g_timeout_add (BUSY_RETRY_MS, busy_retry_cb, self);
      return TRUE;
    }
  rfk_led_controller_close_fd (self);
  if (err == EACCES && was_owner)
    {
      /* An administrator took the light back (RFKILL_IOCTL_AIRPLANE_MODE_
       * BREAK); we learn it at our next change of the light.  The kernel's
       * rule is in force, and taking the light again is the user's call:
       * asking again at once would undo the administrator's. */
      self->rule = RFK_LED_RULE_KERNEL;
      rfk_led_controller_set_status (
        self, RFK_AIRPLANE_LIGHT_UNKNOWN,
        g_error_new (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                     _("The airplane-mode light was taken back from this "
                       "program; choose a rule to take it again")));
      return FALSE;
    }
  g_clear_pointer (&self->holder, g_free);
  if (err == EACCES)
    self->holder = rfk_indicator_holder_describe ();
  rfk_led_controller_set_status (self, status_for_errno (err),
                                 indicator_error (self, err));
  return FALSE;
}

/* Returns the errno of writing event, 0 on success. */
static int
write_op (RfkLedController *self, const RfkEvent *event)
{
  const char *path = rfk_manager_get_device_path (self->manager);
  g_autoptr (GError) local_error = NULL;

  if (!rfk_transport_write (self->fd, path, event, &local_error))
    return errno;
  return 0;
}

/* ACQUIRE was answered (err 0: the light is ours) or not in time. */
static void
acquire_done (RfkLedController *self, int err)
{
  g_clear_handle_id (&self->acquire_timeout, g_source_remove);
  self->phase = ACQUIRE_IDLE;
  if (err != 0)
    {
      /* The previous rule stays in force. */
      refused (self, err);
      return;
    }
  self->rule = self->pending_rule;
  self->written = FALSE;
  rfk_led_controller_set_status (self, RFK_AIRPLANE_LIGHT_OWNED, NULL);
  push_value (self);
}

static gboolean
acquire_timeout_cb (gpointer user_data)
{
  RfkLedController *self = user_data;

  self->acquire_timeout = 0;
  acquire_done (self, ETIMEDOUT);
  return G_SOURCE_REMOVE;
}

/* Waits for the peer's next status packet.  Each wait gets the full time
 * from when it starts: the clock runs for the peer, not for us.  One
 * clock from the first request would run out while our own main loop is
 * busy (the applet builds its menu right after asking; under valgrind or
 * on a loaded machine that takes seconds): the list end, read late, is
 * then followed by ACQUIRE and the timer in the same iteration. */
static void
arm_acquire_timeout (RfkLedController *self)
{
  g_clear_handle_id (&self->acquire_timeout, g_source_remove);
  self->acquire_timeout = g_timeout_add (RFK_LED_STATUS_TIMEOUT_MS,
                                         acquire_timeout_cb, self);
}

/* A status packet from a socket peer, in whatever phase we are. */
static gboolean
handle_status (RfkLedController *self, int err)
{
  RfkEvent acquire = rfk_event_indicator_acquire ();

  switch (self->phase)
    {
    case ACQUIRE_WAIT_LIST_END:
      err = write_op (self, &acquire);
      if (err != 0)
        {
          acquire_done (self, err);
          return FALSE;
        }
      self->phase = ACQUIRE_WAIT_ANSWER;
      arm_acquire_timeout (self);
      return TRUE;
    case ACQUIRE_WAIT_ANSWER:
      acquire_done (self, err);
      return self->fd >= 0;
    case ACQUIRE_IDLE:
    default:
      /* The answer to a CHANGE of the light. */
      if (err == 0)
        return TRUE;
      return refused (self, err);
    }
}

/* Our fd gets every event too.  Read them so the kernel's queue stays
 * empty; status packets answer our operations. */
static gboolean
readable_cb (int fd, GIOCondition condition, gpointer user_data)
{
  RfkLedController *self = user_data;
  guint8 buf[RFK_EVENT_SIZE_MAX];
  gssize n;
  int err;

  while ((n = rfk_transport_read (fd, buf)) > 0)
    if (self->is_socket && rfk_status_decode (buf, n, &err))
      {
        guint source = self->read_source;

        self->read_source = 0;  /* close_fd() must not remove us */
        if (!handle_status (self, err))
          return G_SOURCE_REMOVE;
        self->read_source = source;
      }

  if (n == 0 || (n < 0 && errno != EAGAIN) || (condition & G_IO_HUP))
    {
      /* The device went away; the manager tells us when it is back. */
      self->read_source = 0;
      rfk_led_controller_close_fd (self);
      rfk_led_controller_set_status (
        self, RFK_AIRPLANE_LIGHT_UNKNOWN,
        g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED, _("%s was closed"),
                     rfk_manager_get_device_path (self->manager)));
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
push_value (RfkLedController *self)
{
  gboolean value;
  RfkEvent event;
  int err;

  if (self->status != RFK_AIRPLANE_LIGHT_OWNED)
    return;
  value = rfk_led_rule_evaluate (self->rule, self->manager, self->is_switch,
                                 self->is_switch_data);
  /* Only real changes: no flapping, no redundant writes. */
  if (self->written && value == self->last_value)
    return;
  event = rfk_event_indicator_change (value);
  err = write_op (self, &event);
  if (err != 0)
    {
      refused (self, err);
      return;
    }
  self->written = TRUE;
  self->last_value = value;
}

/*
 * Opens our own fd and takes the light for rule.  On a device the answer
 * is write()'s errno, at once.  On a socket the answers come as status
 * packets: this returns TRUE at once, and "status-changed" says OWNED (rule
 * in force) or why not, without ever blocking the main loop.
 */
gboolean
rfk_led_controller_acquire (RfkLedController *self, RfkLedRule rule,
                            GError **error)
{
  const char *path = rfk_manager_get_device_path (self->manager);
  RfkEvent event = rfk_event_indicator_acquire ();
  int fd, err;

  fd = rfk_transport_open (path, &self->is_socket, error);
  if (fd < 0)
    return FALSE;
  self->fd = fd;
  self->pending_rule = rule;
  self->read_source = g_unix_fd_add (fd, G_IO_IN | G_IO_HUP | G_IO_ERR,
                                     readable_cb, self);
  if (self->is_socket)
    {
      self->phase = ACQUIRE_WAIT_LIST_END;
      arm_acquire_timeout (self);
      return TRUE;
    }
  err = write_op (self, &event);
  acquire_done (self, err);
  if (err != 0)
    {
      g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }
  return TRUE;
}

gboolean
rfk_led_controller_set_rule (RfkLedController *self, RfkLedRule rule,
                             GError **error)
{
  g_return_val_if_fail (RFK_IS_LED_CONTROLLER (self), FALSE);
  g_return_val_if_fail (rule < RFK_LED_RULE_COUNT, FALSE);

  if (rule == RFK_LED_RULE_KERNEL)
    {
      rfk_led_controller_close_fd (self);  /* the kernel takes over again */
      self->rule = rule;
      rfk_led_controller_set_status (self, RFK_AIRPLANE_LIGHT_UNKNOWN, NULL);
      return TRUE;
    }

  if (self->background)
    {
      /* Taken when the session is in front again. */
      self->rule = rule;
      rfk_led_controller_set_status (self, RFK_AIRPLANE_LIGHT_UNKNOWN, NULL);
      return TRUE;
    }
  if (self->phase != ACQUIRE_IDLE)
    {
      self->pending_rule = rule;  /* applied when the answer comes */
      return TRUE;
    }
  if (self->fd < 0)
    /* The previous rule stays on failure. */
    return rfk_led_controller_acquire (self, rule, error);

  self->rule = rule;
  self->written = FALSE;
  push_value (self);
  if (self->status != RFK_AIRPLANE_LIGHT_OWNED)
    {
      if (self->error != NULL)
        g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }
  return TRUE;
}

gboolean
rfk_led_controller_is_pending (RfkLedController *self)
{
  g_return_val_if_fail (RFK_IS_LED_CONTROLLER (self), FALSE);
  return self->phase != ACQUIRE_IDLE;
}

RfkLedRule
rfk_led_controller_get_rule (RfkLedController *self)
{
  g_return_val_if_fail (RFK_IS_LED_CONTROLLER (self), RFK_LED_RULE_KERNEL);
  return self->rule;
}

RfkAirplaneLightStatus
rfk_led_controller_get_status (RfkLedController *self)
{
  g_return_val_if_fail (RFK_IS_LED_CONTROLLER (self), RFK_AIRPLANE_LIGHT_UNKNOWN);
  return self->status;
}

/* Who holds the light while the status is BUSY, if the kernel says:
 * "NAME (process PID)"; NULL otherwise. */
const char *
rfk_led_controller_get_holder (RfkLedController *self)
{
  g_return_val_if_fail (RFK_IS_LED_CONTROLLER (self), NULL);
  return self->holder;
}

const GError *
rfk_led_controller_get_error (RfkLedController *self)
{
  g_return_val_if_fail (RFK_IS_LED_CONTROLLER (self), NULL);
  return self->error;
}

static void
model_changed_cb (RfkLedController *self)
{
  push_value (self);
}

static void
manager_state_cb (RfkManager *manager, RfkLedController *self)
{
  g_autoptr (GError) error = NULL;

  /* The device came back: take the LED again for the user's rule. */
  if (rfk_manager_get_state (manager) == RFK_MANAGER_STATE_READY
      && self->rule != RFK_LED_RULE_KERNEL && self->fd < 0
      && self->status == RFK_AIRPLANE_LIGHT_UNKNOWN && !self->background)
    rfk_led_controller_acquire (self, self->rule, &error);
}

static void
rfk_led_controller_dispose (GObject *object)
{
  RfkLedController *self = RFK_LED_CONTROLLER (object);

  rfk_led_controller_close_fd (self);
  /* The session's fields (rfk-led-session.c), let go here so that the
   * controller never calls up into the file that drives it. */
  g_clear_handle_id (&self->take_back_source, g_source_remove);
  g_clear_error (&self->take_back_error);
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  g_clear_object (&self->manager);
  G_OBJECT_CLASS (rfk_led_controller_parent_class)->dispose (object);
}

static void
rfk_led_controller_finalize (GObject *object)
{
  RfkLedController *self = RFK_LED_CONTROLLER (object);

  g_clear_error (&self->error);
  g_free (self->holder);
  G_OBJECT_CLASS (rfk_led_controller_parent_class)->finalize (object);
}

static void
rfk_led_controller_class_init (RfkLedControllerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rfk_led_controller_dispose;
  object_class->finalize = rfk_led_controller_finalize;

  signals[SIGNAL_STATUS_CHANGED] =
    g_signal_new ("status-changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
rfk_led_controller_init (RfkLedController *self)
{
  self->fd = -1;
  self->rule = RFK_LED_RULE_KERNEL;
}

RfkLedController *
rfk_led_controller_new (RfkManager *manager)
{
  RfkLedController *self;
  static const char *const model_signals[] = {
    "device-added", "device-removed", "device-changed",
    "airplane-mode-changed",
  };

  g_return_val_if_fail (RFK_IS_MANAGER (manager), NULL);

  self = g_object_new (RFK_TYPE_LED_CONTROLLER, NULL);
  self->manager = g_object_ref (manager);
  /* After the manager's own handlers, so derived state is current. */
  for (guint i = 0; i < G_N_ELEMENTS (model_signals); i++)
    g_signal_connect_object (manager, model_signals[i],
                             G_CALLBACK (model_changed_cb), self,
                             G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (manager, "state-changed",
                           G_CALLBACK (manager_state_cb), self, 0);
  return self;
}

void
rfk_led_controller_set_platform_switch_func (RfkLedController *self,
                                             RfkPlatformSwitchFunc is_switch,
                                             gpointer user_data)
{
  g_return_if_fail (RFK_IS_LED_CONTROLLER (self));

  self->is_switch = is_switch;
  self->is_switch_data = user_data;
  push_value (self);
}
