/*
 * rfk-led-controller-private.h: the state the controller's two files
 * share: rfk-led-controller.c (the fd, the rule, the kernel's answers)
 * and rfk-led-session.c (letting the light go while our session is in
 * the background, and taking it back).
 */
#pragma once

#include "rfk-led-controller.h"

G_BEGIN_DECLS

/* Taking the light over a socket, without blocking: the peer first ends
 * its list of ADDs with a status packet (rfk-protocol.h), then answers
 * ACQUIRE with another. */
typedef enum {
  ACQUIRE_IDLE,
  ACQUIRE_WAIT_LIST_END,
  ACQUIRE_WAIT_ANSWER,
} AcquirePhase;

struct _RfkLedController
{
  GObject parent_instance;

  RfkManager *manager;
  RfkLedRule rule;
  RfkAirplaneLightStatus status;
  GError *error;
  char *holder;           /* who holds the light, with status BUSY */

  int fd;                 /* our own connection; -1 with rule KERNEL */
  gboolean is_socket;
  guint read_source;
  gboolean written;       /* last_value is valid */
  gboolean last_value;    /* what we last asked the kernel for */
  AcquirePhase phase;
  RfkLedRule pending_rule;/* in force once ACQUIRE is answered */
  guint acquire_timeout;
  RfkPlatformSwitchFunc is_switch;  /* NULL: every device is a radio */
  gpointer is_switch_data;
  RfkLoginSession *session;  /* NULL: always in front */
  gboolean background;       /* session inactive: indicator let go */
  guint take_back_source;    /* retrying ACQUIRE after activation */
  gint64 take_back_deadline; /* monotonic µs */
  GError *take_back_error;   /* why the last try did not even ask */
  guint busy_retry;          /* a CHANGE again, after the kernel's limit */
};

/* Sets status and its error (taken), and says so. */
void rfk_led_controller_set_status (RfkLedController *self,
                                    RfkAirplaneLightStatus status,
                                    GError *error);
/* Closes our fd, which hands the indicator back to the kernel. */
void rfk_led_controller_close_fd (RfkLedController *self);
/* Opens our fd and asks for the indicator; see rfk-led-controller.c. */
gboolean rfk_led_controller_acquire (RfkLedController *self, RfkLedRule rule,
                                     GError **error);

G_END_DECLS
