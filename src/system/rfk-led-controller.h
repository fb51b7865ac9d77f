/*
 * rfk-led-controller.h: applies an airplane-light rule (rfk-led-rule.h)
 * to the kernel's airplane-mode indicator.
 *
 * With any rule but KERNEL the controller opens its own fd on the manager's
 * device, acquires the kernel's indicator (op 4) on it and sets it (op 5)
 * whenever the rule's value changes.  Going back to KERNEL closes that fd,
 * which is how the kernel learns to apply its default rule again.
 */
#pragma once

#include "rfk-led-rule.h"
#include "rfk-login-session.h"
#include "rfk-manager.h"

G_BEGIN_DECLS

/* Who drives the airplane light (the kernel's airplane-mode LED), as far
 * as the indicator ops (4 ACQUIRE, 5 CHANGE) told us. */
typedef enum {
  RFK_AIRPLANE_LIGHT_UNKNOWN,     /* not probed yet, or rule is KERNEL */
  RFK_AIRPLANE_LIGHT_UNSUPPORTED, /* stock kernel: ops answered EINVAL */
  RFK_AIRPLANE_LIGHT_BUSY,        /* another process owns it (EACCES) */
  RFK_AIRPLANE_LIGHT_OWNED,       /* we own it */
} RfkAirplaneLightStatus;

#define RFK_TYPE_LED_CONTROLLER (rfk_led_controller_get_type ())
G_DECLARE_FINAL_TYPE (RfkLedController, rfk_led_controller, RFK,
                      LED_CONTROLLER, GObject)

/* A socket peer (relay, fake kernel) answers each step of taking the
 * light with a status packet; silence this long from it is a failure. */
#define RFK_LED_STATUS_TIMEOUT_MS 2000

RfkLedController *rfk_led_controller_new (RfkManager *manager);
/* Errors (unsupported kernel, owned elsewhere) are reported, never fatal;
 * the previous rule stays in force when acquiring fails.  Never blocks:
 * on a socket the kernel's answer comes later, so this returns TRUE while
 * rfk_led_controller_is_pending(), and "status-changed" tells OWNED (the
 * rule is in force) or why not. */
gboolean rfk_led_controller_set_rule (RfkLedController *self, RfkLedRule rule,
                                      GError **error);
gboolean rfk_led_controller_is_pending (RfkLedController *self);
/* Tells laptop switches from radios for RFK_LED_RULE_HARDWARE_SWITCH;
 * the value is re-evaluated at once.  user_data must outlive self. */
void rfk_led_controller_set_platform_switch_func (RfkLedController *self,
                                                  RfkPlatformSwitchFunc is_switch,
                                                  gpointer user_data);
/* Fast user switching: the indicator belongs to the seat's active session.
 * While session is in the background the controller lets go of it (closes
 * its fd: the kernel's rule applies, and the other user's applet may take
 * it) and keeps the user's rule; when session is active again it takes the
 * indicator again, retrying for RFK_LED_TAKE_BACK_MS while the other
 * applet, told of the switch at the same time, still holds it (or the
 * device does not open yet); after that, get_error() says why it is not
 * ours.  NULL: always active (the default). */
#define RFK_LED_TAKE_BACK_MS 5000
void rfk_led_controller_set_login_session (RfkLedController *self,
                                           RfkLoginSession *session);
/* TRUE while the indicator is let go because the session is inactive. */
gboolean rfk_led_controller_is_in_background (RfkLedController *self);
RfkLedRule rfk_led_controller_get_rule (RfkLedController *self);
RfkAirplaneLightStatus rfk_led_controller_get_status (RfkLedController *self);
/* Why the last set_rule() or re-acquire failed; NULL when fine. */
const GError *rfk_led_controller_get_error (RfkLedController *self);
const char *rfk_led_controller_get_holder (RfkLedController *self);

/*
 * Signals:
 *  "status-changed" ()  rule, status or error changed (e.g. the device
 *                       went away and came back, ownership was lost)
 */

G_END_DECLS
