// SPDX-License-Identifier: GPL-2.0-only
/*
 * LED triggers: one per device ("rfkillN" or the driver's name, LED on
 * while the radio is unblocked), and the global "rfkill-any" (on while any
 * radio is unblocked) and "rfkill-none" (on while none is).
 *
 * rfkill-any and rfkill-none are recomputed in a work item, as in-tree:
 * LED drivers' callbacks never run under rfkill_global_mutex, and a
 * CHANGE_ALL costs one pass over the devices, not one per device.
 * Drivers change device state from any context, so for them the
 * airplane-mode indicator is recomputed from that work item too.
 * Changes made with the mutex held (userspace writes, key presses,
 * registration) recompute the indicator at once, so "rfkill block all"
 * has lit it when write() returns.
 */
#include <linux/kernel.h>
#include <linux/leds.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "internal.h"

static enum led_brightness rfkill_led_brightness(bool blocked)
{
	return blocked ? LED_OFF : LED_FULL;
}

/* Like every per-device LED event: nothing before registration is done. */
static int rfkill_led_activate(struct led_classdev *led_cdev)
{
	struct rfkill_led *led = container_of(led_cdev->trigger,
					      struct rfkill_led, trigger);

	if (rfkill_is_registered(led->rfkill))
		led_set_brightness(led_cdev,
				   rfkill_led_brightness(rfkill_blocked(led->rfkill)));
	return 0;
}

int rfkill_led_register(struct rfkill_led *led, struct rfkill *rfkill,
			const char *fallback_name)
{
	led->rfkill = rfkill;
	led->trigger.name = led->name ?: fallback_name;
	led->trigger.activate = rfkill_led_activate;
	return led_trigger_register(&led->trigger);
}

void rfkill_led_unregister(struct rfkill_led *led)
{
	led_trigger_unregister(&led->trigger);
}

/* Any context: led_trigger_event() only walks an RCU list. */
void rfkill_led_event(struct rfkill_led *led, bool blocked)
{
	led_trigger_event(&led->trigger, rfkill_led_brightness(blocked));
}

/* ---- rfkill-any, rfkill-none and the global work ---- */

/* A new LED gets the last brightness the work computed. */
static int rfkill_global_led_activate(struct led_classdev *led_cdev)
{
	led_set_brightness(led_cdev,
			   led_trigger_get_brightness(led_cdev->trigger));
	return 0;
}

static struct led_trigger rfkill_any_trigger = {
	.name		= "rfkill-any",
	.activate	= rfkill_global_led_activate,
};

static struct led_trigger rfkill_none_trigger = {
	.name		= "rfkill-none",
	.activate	= rfkill_global_led_activate,
};

/* The LEDs outside the mutex: their drivers may sleep or take locks. */
static void rfkill_global_work_fn(struct work_struct *work)
{
	struct rfkill_tally tally;
	bool any_unblocked;

	mutex_lock(&rfkill_global_mutex);
	rfkill_tally_locked(&tally);
	rfkill_apm_default_locked(&tally);
	mutex_unlock(&rfkill_global_mutex);

	any_unblocked = tally.blocked < tally.total;
	led_trigger_event(&rfkill_any_trigger,
			  any_unblocked ? LED_FULL : LED_OFF);
	led_trigger_event(&rfkill_none_trigger,
			  any_unblocked ? LED_OFF : LED_FULL);
}

static DECLARE_WORK(rfkill_global_work, rfkill_global_work_fn);

void rfkill_global_update_locked(void)
{
	struct rfkill_tally tally;

	lockdep_assert_held(&rfkill_global_mutex);

	rfkill_tally_locked(&tally);
	rfkill_apm_default_locked(&tally);
	schedule_work(&rfkill_global_work);
}

void rfkill_global_changed(void)
{
	schedule_work(&rfkill_global_work);
}

int rfkill_global_leds_init(void)
{
	int err;

	err = led_trigger_register(&rfkill_any_trigger);
	if (err)
		return err;
	err = led_trigger_register(&rfkill_none_trigger);
	if (err)
		goto err_any;

	rfkill_global_changed();
	return 0;

err_any:
	led_trigger_unregister(&rfkill_any_trigger);
	return err;
}

/* Called after every device is gone, so nothing queues the work again. */
void rfkill_global_leds_exit(void)
{
	cancel_work_sync(&rfkill_global_work);
	led_trigger_unregister(&rfkill_none_trigger);
	led_trigger_unregister(&rfkill_any_trigger);
}
