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
 *
 * A hold outlives whatever allowed it: the uaccess ACL is checked at open
 * only, and a stopped or forgotten process keeps its file.  So the
 * process that took the indicator is recorded, for anyone to read in
 * sysfs, and a CAP_NET_ADMIN process may take the indicator back
 * (rfkill_apm_break_locked()).
 */
#include <linux/kernel.h>
#include <linux/leds.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "internal.h"

/* All guarded by rfkill_global_mutex. */
static const void *rfkill_apm_owner;	/* the owning file, or NULL */
static bool rfkill_apm_state;		/* what the LED shows */
/* the process that took it (the fd may have moved on since) */
static struct pid *rfkill_apm_owner_pid;
static char rfkill_apm_owner_comm[TASK_COMM_LEN];

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

	if (rfkill_apm_owner)
		return rfkill_apm_owner == owner ? 0 : -EACCES;
	rfkill_apm_owner = owner;
	rfkill_apm_owner_pid = get_pid(task_tgid(current));
	get_task_comm(rfkill_apm_owner_comm, current);
	return 0;
}

/*
 * The owner's CHANGE.  A change of state costs an LED update (an ACPI
 * call on ASUS) and an event to every listening file, so the owner gets
 * @limit of them; a CHANGE to the state shown costs nothing and is free.
 */
int rfkill_apm_change_locked(const void *owner, bool state,
			     struct ratelimit_state *limit)
{
	lockdep_assert_held(&rfkill_global_mutex);

	if (!rfkill_apm_owner || rfkill_apm_owner != owner)
		return -EACCES;
	if (state == rfkill_apm_state)
		return 0;
	if (!__ratelimit(limit))
		return -EBUSY;
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

	if (!rfkill_apm_owner || rfkill_apm_owner != owner)
		return;
	rfkill_apm_owner = NULL;
	put_pid(rfkill_apm_owner_pid);
	rfkill_apm_owner_pid = NULL;
	rfkill_apm_owner_comm[0] = '\0';
	/* fresh, not the last work result: a work run may still be queued */
	rfkill_tally_locked(&tally);
	rfkill_apm_set_locked(rfkill_apm_rule_locked(&tally));
}

/*
 * Takes the indicator from its holder, for a caller that the caller
 * (fops.c) has checked for CAP_NET_ADMIN, and returns the file that held
 * it, or NULL if nobody did.  The default rule applies again at once.
 */
const void *rfkill_apm_break_locked(void)
{
	const void *owner = rfkill_apm_owner;
	char comm[TASK_COMM_LEN];

	lockdep_assert_held(&rfkill_global_mutex);

	if (!owner)
		return NULL;
	get_task_comm(comm, current);
	/* the same line whoever reads the log: pids of the initial namespace */
	pr_info("rfkill: airplane-mode indicator taken from %s[%d] by %s[%d]\n",
		rfkill_apm_owner_comm, pid_nr(rfkill_apm_owner_pid),
		comm, task_tgid_nr(current));
	rfkill_apm_release_locked(owner);
	return owner;
}

/*
 * Who holds the indicator, as "PID COMM\n" with the pid as the reader's
 * pid namespace sees it (0 if it does not), or "" while nobody does.
 */
ssize_t rfkill_apm_holder_show_locked(char *buf)
{
	lockdep_assert_held(&rfkill_global_mutex);

	if (!rfkill_apm_owner)
		return 0;
	return sysfs_emit(buf, "%d %s\n",
			  pid_nr_ns(rfkill_apm_owner_pid,
				    task_active_pid_ns(current)),
			  rfkill_apm_owner_comm);
}

int rfkill_apm_init(void)
{
	return led_trigger_register(&rfkill_apm_trigger);
}

void rfkill_apm_exit(void)
{
	led_trigger_unregister(&rfkill_apm_trigger);
}
