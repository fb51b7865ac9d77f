// SPDX-License-Identifier: GPL-2.0-only
/*
 * The design of the airplane-mode indicator (the "rfkill-airplane-mode" LED
 * trigger, /dev/rfkill operations to take it over and set it, ASUS
 * driving its LED from it) is that of the 2016 series "RFKill
 * airplane-mode indicator" by João Paulo Rechi Vita <jprvita@gmail.com>.
 */
/*
 * The airplane-mode indicator: LED trigger "rfkill-airplane-mode".
 *
 * Default rule: on while every registered radio is blocked (soft or
 * hard), off while any one is unblocked, each radio counted by what its
 * last event said (see rfkill_tally_locked()); with no radios at all it shows
 * the global state of RFKILL_TYPE_ALL (initially !default_state, then
 * whatever "CHANGE_ALL type all" set).
 *
 * One open /dev/rfkill file at a time may take the indicator over with
 * RFKILL_OP_AIRPLANE_MODE_INDICATOR_ACQUIRE and drive it with ..._CHANGE;
 * closing that file hands it back to the default rule at once.  Every
 * change of the indicator state is queued as an event to the open files
 * that asked for such events (fops.c); the others never see op 5.
 */
#include <linux/kernel.h>
#include <linux/leds.h>
#include <linux/mutex.h>

#include "internal.h"

/* All guarded by rfkill_global_mutex. */
static const void *rfkill_apm_owner;	/* the owning file, or NULL */
static bool rfkill_apm_state;		/* what the LED shows */

static int rfkill_apm_activate(struct led_classdev *led_cdev)
{
	/* led_trigger_event() keeps the trigger's brightness current */
	led_set_brightness(led_cdev,
			   led_trigger_get_brightness(led_cdev->trigger));
	return 0;
}

static struct led_trigger rfkill_apm_trigger = {
	.name		= RFKILL_AIRPLANE_MODE_TRIGGER,
	.activate	= rfkill_apm_activate,
};

static void rfkill_apm_set_locked(bool state)
{
	lockdep_assert_held(&rfkill_global_mutex);

	if (state == rfkill_apm_state)
		return;
	rfkill_apm_state = state;
	led_trigger_event(&rfkill_apm_trigger, state ? LED_FULL : LED_OFF);
	rfkill_send_indicator_event_locked(state);
}

static bool rfkill_apm_rule_locked(const struct rfkill_tally *tally)
{
	if (!tally->total)
		return rfkill_global_blocked_locked(RFKILL_TYPE_ALL);
	return tally->shown_blocked == tally->total;
}

/* From the global work, after any device or global state change. */
void rfkill_apm_default_locked(const struct rfkill_tally *tally)
{
	if (rfkill_apm_owner)
		return;
	rfkill_apm_set_locked(rfkill_apm_rule_locked(tally));
}

int rfkill_apm_acquire_locked(const void *owner)
{
	lockdep_assert_held(&rfkill_global_mutex);

	if (rfkill_apm_owner && rfkill_apm_owner != owner)
		return -EACCES;
	rfkill_apm_owner = owner;
	return 0;
}

int rfkill_apm_change_locked(const void *owner, bool state)
{
	lockdep_assert_held(&rfkill_global_mutex);

	if (!rfkill_apm_owner || rfkill_apm_owner != owner)
		return -EACCES;
	rfkill_apm_set_locked(state);
	return 0;
}

/* What the LED shows now; a file that asks for events is told this. */
bool rfkill_apm_state_locked(void)
{
	lockdep_assert_held(&rfkill_global_mutex);
	return rfkill_apm_state;
}

void rfkill_apm_release_locked(const void *owner)
{
	struct rfkill_tally tally;

	lockdep_assert_held(&rfkill_global_mutex);

	if (rfkill_apm_owner != owner)
		return;
	rfkill_apm_owner = NULL;
	/* fresh, not the last work result: a work run may still be queued */
	rfkill_tally_locked(&tally);
	rfkill_apm_set_locked(rfkill_apm_rule_locked(&tally));
}

int rfkill_apm_init(void)
{
	return led_trigger_register(&rfkill_apm_trigger);
}

void rfkill_apm_exit(void)
{
	led_trigger_unregister(&rfkill_apm_trigger);
}
