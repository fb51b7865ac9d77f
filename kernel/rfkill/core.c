// SPDX-License-Identifier: GPL-2.0-only
/*
 * rfkill core: devices, their block state, the per-type global states and
 * the 15 symbols radio drivers link against.
 *
 * The include list below is the one of the in-tree net/rfkill/core.c, in
 * the same order.  The modversion CRC of rfkill_alloc() covers the full
 * expansion of struct device as far as the included headers define the
 * types it points to, so adding a header here can change that CRC; the
 * crc test (tests/kernel/crc/test_crc.py) catches it.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/init.h>
#include <linux/workqueue.h>
#include <linux/capability.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rfkill.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/device.h>
#include <linux/miscdevice.h>
#include <linux/wait.h>
#include <linux/poll.h>
#include <linux/fs.h>
#include <linux/slab.h>

#include "internal.h"

#define RFKILL_POLL_INTERVAL	(5 * HZ)

/* Bits of rfkill->state. */
#define RFKILL_BLOCK_HW		BIT(0)
#define RFKILL_BLOCK_SW		BIT(1)
/* Soft state before a set_block() call that is in flight. */
#define RFKILL_BLOCK_SW_PREV	BIT(2)
#define RFKILL_BLOCK_ANY	(RFKILL_BLOCK_HW | RFKILL_BLOCK_SW | \
				 RFKILL_BLOCK_SW_PREV)
/* set_block() is running: a driver's rfkill_set_sw_state() goes to _PREV. */
#define RFKILL_BLOCK_SW_SETCALL	BIT(31)

/* The reasons the uapi header of the oldest supported kernel names. */
#define RFKILL_HW_REASONS	(RFKILL_HARD_BLOCK_SIGNAL | \
				 RFKILL_HARD_BLOCK_NOT_OWNER)

/*
 * Keep this definition in this file (see internal.h): it must stay
 * invisible to genksyms' type expansion.
 */
struct rfkill {
	/* guards state and hard_block_reasons; any context */
	spinlock_t		lock;
	unsigned long		state;
	unsigned long		hard_block_reasons;

	enum rfkill_type	type;
	u32			idx;

	/* written under rfkill_global_mutex */
	bool			registered;
	bool			persistent;
	bool			polling_paused;
	bool			suspended;	/* READ_ONCE/WRITE_ONCE: PM */
	bool			need_sync;
	/* what the last ADD/CHANGE event told userspace; global mutex */
	struct rfkill_state	announced;

	const struct rfkill_ops	*ops;
	void			*data;

	struct rfkill_led	led;

	struct device		dev;
	struct list_head	node;	/* in rfkill_list */

	struct delayed_work	poll_work;
	struct work_struct	uevent_work;
	struct work_struct	sync_work;
	char			name[];
};

/* What it guards is listed where it is declared, in internal.h. */
DEFINE_MUTEX(rfkill_global_mutex);
atomic_t rfkill_input_disabled = ATOMIC_INIT(0);

/* All below: guarded by rfkill_global_mutex. */
static LIST_HEAD(rfkill_list);
static unsigned long rfkill_next_idx;
static bool rfkill_epo_lock_active;
static struct {
	bool cur;	/* what new devices and CHANGE_ALL apply */
	bool sav;	/* cur before an EPO, for rfkill_restore_states() */
} rfkill_global_states[NUM_RFKILL_TYPES];

static unsigned int rfkill_default_state = 1;
module_param_named(default_state, rfkill_default_state, uint, 0444);
MODULE_PARM_DESC(default_state,
		 "Default initial state for all radio types, 0 = radio off");

/* sysfs "type" names; also what rfkill_find_type() accepts. */
static const char * const rfkill_type_names[NUM_RFKILL_TYPES] = {
	[RFKILL_TYPE_ALL]	= "all",
	[RFKILL_TYPE_WLAN]	= "wlan",
	[RFKILL_TYPE_BLUETOOTH]	= "bluetooth",
	[RFKILL_TYPE_UWB]	= "ultrawideband",
	[RFKILL_TYPE_WIMAX]	= "wimax",
	[RFKILL_TYPE_WWAN]	= "wwan",
	[RFKILL_TYPE_GPS]	= "gps",
	[RFKILL_TYPE_FM]	= "fm",
	[RFKILL_TYPE_NFC]	= "nfc",
};

/* ---- accessors for the other files ---- */

struct rfkill *rfkill_from_dev(struct device *dev)
{
	return container_of(dev, struct rfkill, dev);
}

const char *rfkill_name(const struct rfkill *rfkill)
{
	return rfkill->name;
}

enum rfkill_type rfkill_get_type(const struct rfkill *rfkill)
{
	return rfkill->type;
}

const char *rfkill_type_name(enum rfkill_type type)
{
	if (WARN_ON_ONCE(type >= NUM_RFKILL_TYPES))
		return "unknown";
	return rfkill_type_names[type];
}

u32 rfkill_index(const struct rfkill *rfkill)
{
	return rfkill->idx;
}

bool rfkill_is_registered(const struct rfkill *rfkill)
{
	return READ_ONCE(rfkill->registered);
}

bool rfkill_is_persistent(const struct rfkill *rfkill)
{
	return rfkill->persistent;
}

void rfkill_get_state(struct rfkill *rfkill, struct rfkill_state *st)
{
	unsigned long flags;

	spin_lock_irqsave(&rfkill->lock, flags);
	st->hard = !!(rfkill->state & RFKILL_BLOCK_HW);
	st->soft = !!(rfkill->state & RFKILL_BLOCK_SW);
	st->soft_prev = !!(rfkill->state & RFKILL_BLOCK_SW_PREV);
	st->reasons = rfkill->hard_block_reasons;
	spin_unlock_irqrestore(&rfkill->lock, flags);
}

void rfkill_fill_event(struct rfkill_event_ext *ev, struct rfkill *rfkill,
		       enum rfkill_operation op)
{
	struct rfkill_state st;

	rfkill_get_state(rfkill, &st);
	memset(ev, 0, sizeof(*ev));
	ev->idx = rfkill->idx;
	ev->type = rfkill->type;
	ev->op = op;
	ev->soft = st.soft || st.soft_prev;
	ev->hard = st.hard;
	ev->hard_block_reasons = st.reasons;
}

static bool rfkill_any_blocked(struct rfkill *rfkill)
{
	unsigned long flags;
	bool blocked;

	spin_lock_irqsave(&rfkill->lock, flags);
	blocked = !!(rfkill->state & RFKILL_BLOCK_ANY);
	spin_unlock_irqrestore(&rfkill->lock, flags);
	return blocked;
}

/* ---- events ---- */

/* Per-device LED and the global work; any context. */
static void rfkill_state_changed(struct rfkill *rfkill)
{
	if (!rfkill->registered)
		return;
	rfkill_led_event(&rfkill->led, rfkill_any_blocked(rfkill));
	rfkill_global_changed();
}

/*
 * ADD and CHANGE go out through here: all open files get the same
 * snapshot, and the indicator's default rule counts the device by that
 * snapshot, so an op-5 event can never come before the device event that
 * caused it.
 */
static void rfkill_announce_locked(struct rfkill *rfkill,
				   enum rfkill_operation op)
{
	struct rfkill_event_ext ev;

	lockdep_assert_held(&rfkill_global_mutex);

	rfkill_fill_event(&ev, rfkill, op);
	rfkill->announced.soft = ev.soft;
	rfkill->announced.hard = ev.hard;
	rfkill->announced.reasons = ev.hard_block_reasons;
	rfkill_send_event_locked(&ev);
}

static void rfkill_event_locked(struct rfkill *rfkill)
{
	lockdep_assert_held(&rfkill_global_mutex);

	if (!rfkill->registered)
		return;
	kobject_uevent(&rfkill->dev.kobj, KOBJ_CHANGE);
	rfkill_announce_locked(rfkill, RFKILL_OP_CHANGE);
}

/*
 * Drivers report state from any context; the uevent and the CHANGE event
 * go out from here, and only then the indicator follows (cause before
 * effect, as on the soft paths).
 */
static void rfkill_uevent_work(struct work_struct *work)
{
	struct rfkill *rfkill = container_of(work, struct rfkill, uevent_work);

	mutex_lock(&rfkill_global_mutex);
	rfkill_event_locked(rfkill);
	rfkill_global_update_locked();
	mutex_unlock(&rfkill_global_mutex);
}

/* ---- soft block through the driver ---- */

/*
 * Asks the driver for a new soft state; true if the soft state changed.
 * Takes no mutex: resume calls it too (see rfkill_dev_resume()).
 */
static bool rfkill_apply_block(struct rfkill *rfkill, bool blocked)
{
	unsigned long flags;
	bool prev, curr;
	int err;

	/*
	 * Some platforms only update the hard state when asked, so ask
	 * before changing the soft state.
	 */
	if (rfkill->ops->query)
		rfkill->ops->query(rfkill, rfkill->data);

	spin_lock_irqsave(&rfkill->lock, flags);
	prev = !!(rfkill->state & RFKILL_BLOCK_SW);
	if (prev)
		rfkill->state |= RFKILL_BLOCK_SW_PREV;
	else
		rfkill->state &= ~RFKILL_BLOCK_SW_PREV;
	if (blocked)
		rfkill->state |= RFKILL_BLOCK_SW;
	else
		rfkill->state &= ~RFKILL_BLOCK_SW;
	rfkill->state |= RFKILL_BLOCK_SW_SETCALL;
	spin_unlock_irqrestore(&rfkill->lock, flags);

	err = rfkill->ops->set_block(rfkill->data, blocked);

	spin_lock_irqsave(&rfkill->lock, flags);
	if (err) {
		/*
		 * The driver refused: fall back to _PREV, which the driver
		 * may have updated through rfkill_set_sw_state() meanwhile.
		 */
		if (rfkill->state & RFKILL_BLOCK_SW_PREV)
			rfkill->state |= RFKILL_BLOCK_SW;
		else
			rfkill->state &= ~RFKILL_BLOCK_SW;
	}
	rfkill->state &= ~(RFKILL_BLOCK_SW_SETCALL | RFKILL_BLOCK_SW_PREV);
	curr = !!(rfkill->state & RFKILL_BLOCK_SW);
	spin_unlock_irqrestore(&rfkill->lock, flags);

	if (rfkill->registered)
		rfkill_led_event(&rfkill->led, rfkill_any_blocked(rfkill));
	return prev != curr;
}

/*
 * One device's new soft state and its event; the global state (LEDs,
 * indicator) is the caller's, once per operation however many devices
 * it changes.
 */
static void rfkill_set_block_nosync_locked(struct rfkill *rfkill, bool blocked)
{
	lockdep_assert_held(&rfkill_global_mutex);

	/*
	 * The in-tree core's check, kept as it is: the PM core does not
	 * set power_state on suspend, so this never fires, and a change
	 * made while devices are suspended (a key press, a sync) reaches
	 * the driver like any other.  Skipping it would lose it.
	 */
	if (unlikely(rfkill->dev.power.power_state.event & PM_EVENT_SLEEP))
		return;

	if (rfkill_apply_block(rfkill, blocked))
		rfkill_event_locked(rfkill);
}

void rfkill_set_block_locked(struct rfkill *rfkill, bool blocked)
{
	rfkill_set_block_nosync_locked(rfkill, blocked);
	/* after the device's event, so listeners see cause before effect */
	rfkill_global_update_locked();
}

static void rfkill_update_global_state_locked(enum rfkill_type type,
					      bool blocked)
{
	int i;

	if (type != RFKILL_TYPE_ALL) {
		rfkill_global_states[type].cur = blocked;
		return;
	}
	/* "all" is the default for every type, incl. persistent devices. */
	for (i = 0; i < NUM_RFKILL_TYPES; i++)
		rfkill_global_states[i].cur = blocked;
}

/*
 * CHANGE_ALL, key presses, EPO restore: the new global state of a type,
 * applied to its devices.
 */
void rfkill_change_all_locked(enum rfkill_type type, bool blocked)
{
	struct rfkill *rfkill;

	lockdep_assert_held(&rfkill_global_mutex);

	rfkill_update_global_state_locked(type, blocked);
	list_for_each_entry(rfkill, &rfkill_list, node) {
		if (rfkill->type != type && type != RFKILL_TYPE_ALL)
			continue;
		rfkill_set_block_nosync_locked(rfkill, blocked);
	}
	/* Once for all (O(n)); with no devices it follows the global state. */
	rfkill_global_update_locked();
}

void rfkill_change_one_locked(u32 idx, enum rfkill_type type, bool blocked)
{
	struct rfkill *rfkill;

	lockdep_assert_held(&rfkill_global_mutex);

	list_for_each_entry(rfkill, &rfkill_list, node) {
		if (rfkill->idx != idx)
			continue;
		if (rfkill->type != type && type != RFKILL_TYPE_ALL)
			continue;
		rfkill_set_block_locked(rfkill, blocked);
	}
}

int rfkill_for_each_locked(int (*fn)(struct rfkill *rfkill, void *arg),
			   void *arg)
{
	struct rfkill *rfkill;
	int err;

	lockdep_assert_held(&rfkill_global_mutex);

	list_for_each_entry(rfkill, &rfkill_list, node) {
		err = fn(rfkill, arg);
		if (err)
			return err;
	}
	return 0;
}

/*
 * For the indicator a device counts as blocked by what userspace was told
 * (its last ADD/CHANGE event), and a device that has not taken the global
 * state of its type yet (need_sync) counts as having it already: a radio
 * plugged in while everything is blocked must not turn the indicator off
 * for the moment until its sync work runs.
 */
static bool rfkill_shown_blocked_locked(const struct rfkill *rfkill)
{
	bool soft = rfkill->announced.soft;

	if (rfkill->need_sync)
		soft = rfkill_global_states[rfkill->type].cur;
	return soft || rfkill->announced.hard;
}

void rfkill_tally_locked(struct rfkill_tally *tally)
{
	struct rfkill *rfkill;

	lockdep_assert_held(&rfkill_global_mutex);

	memset(tally, 0, sizeof(*tally));
	list_for_each_entry(rfkill, &rfkill_list, node) {
		tally->total++;
		if (rfkill_any_blocked(rfkill))
			tally->blocked++;
		if (rfkill_shown_blocked_locked(rfkill))
			tally->shown_blocked++;
	}
}

bool rfkill_global_blocked_locked(enum rfkill_type type)
{
	lockdep_assert_held(&rfkill_global_mutex);
	return rfkill_global_states[type].cur;
}

/*
 * A device registered while not persistent (or during an EPO) takes the
 * global state of its type.  Done at the latest before anyone can look.
 */
void rfkill_sync_locked(struct rfkill *rfkill)
{
	lockdep_assert_held(&rfkill_global_mutex);

	if (!rfkill->need_sync)
		return;
	rfkill_set_block_nosync_locked(rfkill,
				       rfkill_global_states[rfkill->type].cur);
	/* after the call, as in-tree; then the indicator counts the result */
	rfkill->need_sync = false;
	rfkill_global_update_locked();
}

static void rfkill_sync_work(struct work_struct *work)
{
	struct rfkill *rfkill = container_of(work, struct rfkill, sync_work);

	mutex_lock(&rfkill_global_mutex);
	rfkill_sync_locked(rfkill);
	mutex_unlock(&rfkill_global_mutex);
}

void rfkill_core_init_states(void)
{
	int i;

	for (i = 0; i < NUM_RFKILL_TYPES; i++)
		rfkill_global_states[i].cur = !rfkill_default_state;
}

/* ---- rfkill-input's view of the core (input.c) ---- */
#ifdef CONFIG_RFKILL_INPUT
/* A key press: set every device of @type, unless an EPO is active. */
void rfkill_switch_all(enum rfkill_type type, bool blocked)
{
	if (atomic_read(&rfkill_input_disabled))
		return;

	mutex_lock(&rfkill_global_mutex);
	if (!rfkill_epo_lock_active)
		rfkill_change_all_locked(type, blocked);
	mutex_unlock(&rfkill_global_mutex);
}

/* Emergency power off: block everything, remember the global states. */
void rfkill_epo(void)
{
	struct rfkill *rfkill;
	int i;

	if (atomic_read(&rfkill_input_disabled))
		return;

	mutex_lock(&rfkill_global_mutex);
	rfkill_epo_lock_active = true;
	list_for_each_entry(rfkill, &rfkill_list, node)
		rfkill_set_block_nosync_locked(rfkill, true);
	for (i = 0; i < NUM_RFKILL_TYPES; i++) {
		rfkill_global_states[i].sav = rfkill_global_states[i].cur;
		rfkill_global_states[i].cur = true;
	}
	rfkill_global_update_locked();
	mutex_unlock(&rfkill_global_mutex);
}

/* Undo rfkill_epo(): back to the saved global states. */
void rfkill_restore_states(void)
{
	int i;

	if (atomic_read(&rfkill_input_disabled))
		return;

	mutex_lock(&rfkill_global_mutex);
	rfkill_epo_lock_active = false;
	for (i = 0; i < NUM_RFKILL_TYPES; i++)
		rfkill_change_all_locked(i, rfkill_global_states[i].sav);
	mutex_unlock(&rfkill_global_mutex);
}

void rfkill_remove_epo_lock(void)
{
	if (atomic_read(&rfkill_input_disabled))
		return;

	mutex_lock(&rfkill_global_mutex);
	rfkill_epo_lock_active = false;
	mutex_unlock(&rfkill_global_mutex);
}

/* A racy read is fine: input.c only uses it to drop key presses. */
bool rfkill_is_epo_lock_active(void)
{
	return READ_ONCE(rfkill_epo_lock_active);
}

bool rfkill_get_global_sw_state(const enum rfkill_type type)
{
	return READ_ONCE(rfkill_global_states[type].cur);
}
#endif /* CONFIG_RFKILL_INPUT */

/*
 * Only the airplane key reads the state of RFKILL_TYPE_ALL (newly
 * registered devices start from their own type's), so clearing it moves
 * no radio.  Built without rfkill-input, nothing reads it at all.
 *
 * Cleared only while some radio is soft-unblocked, i.e. while "all
 * blocked" is stale: a program reacts to the events of airplane mode
 * ending, and a key press may come between those events and its call.
 * That press blocked every radio, and its state must stay.
 */
void rfkill_key_state_reset(void)
{
	struct rfkill *rfkill;
	struct rfkill_state st;

	mutex_lock(&rfkill_global_mutex);
	list_for_each_entry(rfkill, &rfkill_list, node) {
		rfkill_get_state(rfkill, &st);
		if (!st.soft) {
			rfkill_global_states[RFKILL_TYPE_ALL].cur = false;
			break;
		}
	}
	mutex_unlock(&rfkill_global_mutex);
}

/* ---- device model ---- */

void rfkill_dev_release(struct device *dev)
{
	kfree(rfkill_from_dev(dev));
}

/*
 * Suspend and resume take no rfkill_global_mutex, like the in-tree core:
 * a task holding it may itself wait for a device that is resuming (a
 * driver's set_block() waiting for its bus), and the PM core would then
 * wait for us forever.
 */
int rfkill_dev_suspend(struct device *dev)
{
	struct rfkill *rfkill = rfkill_from_dev(dev);

	WRITE_ONCE(rfkill->suspended, true);
	/* not rfkill_pause_polling(): that is the driver's own switch */
	cancel_delayed_work_sync(&rfkill->poll_work);
	return 0;
}

int rfkill_dev_resume(struct device *dev)
{
	struct rfkill *rfkill = rfkill_from_dev(dev);
	bool blocked;

	WRITE_ONCE(rfkill->suspended, false);
	if (!rfkill->registered)
		return 0;

	if (!rfkill->persistent) {
		/* the hardware may have lost it: apply our soft state again */
		blocked = !!(READ_ONCE(rfkill->state) & RFKILL_BLOCK_SW);
		/* events need the mutex: the uevent work sends them */
		if (rfkill_apply_block(rfkill, blocked))
			schedule_work(&rfkill->uevent_work);
		rfkill_global_changed();
	}

	if (rfkill->ops->poll && !rfkill->polling_paused)
		queue_delayed_work(system_power_efficient_wq,
				   &rfkill->poll_work, 0);
	return 0;
}

static void rfkill_poll_work(struct work_struct *work)
{
	struct rfkill *rfkill = container_of(work, struct rfkill,
					     poll_work.work);

	/* The driver calls rfkill_set_*_state() from its poll method. */
	rfkill->ops->poll(rfkill, rfkill->data);
	queue_delayed_work(system_power_efficient_wq, &rfkill->poll_work,
			   round_jiffies_relative(RFKILL_POLL_INTERVAL));
}

/* ---- the exported API ---- */

const char *rfkill_get_led_trigger_name(struct rfkill *rfkill)
{
	return rfkill->led.trigger.name;
}
EXPORT_SYMBOL(rfkill_get_led_trigger_name);

void rfkill_set_led_trigger_name(struct rfkill *rfkill, const char *name)
{
	BUG_ON(!rfkill);
	rfkill->led.name = name;
}
EXPORT_SYMBOL(rfkill_set_led_trigger_name);

bool rfkill_set_hw_state_reason(struct rfkill *rfkill,
				bool blocked, RFKILL_HW_REASON_T reason)
{
	unsigned long flags;
	bool prev, ret;

	BUG_ON(!rfkill);

#ifdef RFKILL_HW_REASON_CHECKED
	/*
	 * Where the reason is an unsigned long (6.1), the in-tree core
	 * warns about a reason it does not know and ignores the call;
	 * later lines take it as it is, like the code below.
	 */
	if (WARN(reason & ~RFKILL_HW_REASONS,
		 "hw_state reason not supported: 0x%lx", (unsigned long)reason))
		return blocked;
#endif

	spin_lock_irqsave(&rfkill->lock, flags);
	prev = !!(rfkill->hard_block_reasons & reason);
	if (blocked) {
		rfkill->state |= RFKILL_BLOCK_HW;
		rfkill->hard_block_reasons |= reason;
	} else {
		rfkill->hard_block_reasons &= ~reason;
		if (!rfkill->hard_block_reasons)
			rfkill->state &= ~RFKILL_BLOCK_HW;
	}
	ret = !!(rfkill->state & RFKILL_BLOCK_ANY);
	spin_unlock_irqrestore(&rfkill->lock, flags);

	rfkill_state_changed(rfkill);
	if (rfkill->registered && prev != blocked)
		schedule_work(&rfkill->uevent_work);

	return ret;
}
EXPORT_SYMBOL(rfkill_set_hw_state_reason);

/* Soft state reported by the driver; goes to _PREV during set_block(). */
static void rfkill_store_sw_state(struct rfkill *rfkill, bool blocked)
{
	unsigned long bit = RFKILL_BLOCK_SW;

	if (rfkill->state & RFKILL_BLOCK_SW_SETCALL)
		bit = RFKILL_BLOCK_SW_PREV;
	if (blocked)
		rfkill->state |= bit;
	else
		rfkill->state &= ~bit;
}

bool rfkill_set_sw_state(struct rfkill *rfkill, bool blocked)
{
	unsigned long flags;
	bool prev, hwblock;

	BUG_ON(!rfkill);

	spin_lock_irqsave(&rfkill->lock, flags);
	prev = !!(rfkill->state & RFKILL_BLOCK_SW);
	rfkill_store_sw_state(rfkill, blocked);
	hwblock = !!(rfkill->state & RFKILL_BLOCK_HW);
	blocked = blocked || hwblock;
	spin_unlock_irqrestore(&rfkill->lock, flags);

	if (!rfkill->registered)
		return blocked;

	if (prev != blocked && !hwblock)
		schedule_work(&rfkill->uevent_work);
	rfkill_state_changed(rfkill);

	return blocked;
}
EXPORT_SYMBOL(rfkill_set_sw_state);

void rfkill_init_sw_state(struct rfkill *rfkill, bool blocked)
{
	unsigned long flags;

	BUG_ON(!rfkill);
	BUG_ON(rfkill->registered);

	spin_lock_irqsave(&rfkill->lock, flags);
	rfkill_store_sw_state(rfkill, blocked);
	rfkill->persistent = true;
	spin_unlock_irqrestore(&rfkill->lock, flags);
}
EXPORT_SYMBOL(rfkill_init_sw_state);

void rfkill_set_states(struct rfkill *rfkill, bool sw, bool hw)
{
	unsigned long flags;
	bool swprev, hwprev;

	BUG_ON(!rfkill);

	spin_lock_irqsave(&rfkill->lock, flags);
	swprev = !!(rfkill->state & RFKILL_BLOCK_SW);
	hwprev = !!(rfkill->state & RFKILL_BLOCK_HW);
	rfkill_store_sw_state(rfkill, sw);
	if (hw)
		rfkill->state |= RFKILL_BLOCK_HW;
	else
		rfkill->state &= ~RFKILL_BLOCK_HW;
	spin_unlock_irqrestore(&rfkill->lock, flags);

	if (!rfkill->registered) {
		rfkill->persistent = true;
		return;
	}
	if (swprev != sw || hwprev != hw)
		schedule_work(&rfkill->uevent_work);
	rfkill_state_changed(rfkill);
}
EXPORT_SYMBOL(rfkill_set_states);

enum rfkill_type rfkill_find_type(const char *name)
{
	int i;

	if (!name)
		return RFKILL_TYPE_ALL;
	for (i = 1; i < NUM_RFKILL_TYPES; i++)
		if (!strcmp(name, rfkill_type_names[i]))
			return i;
	return RFKILL_TYPE_ALL;
}
EXPORT_SYMBOL(rfkill_find_type);

void rfkill_pause_polling(struct rfkill *rfkill)
{
	BUG_ON(!rfkill);

	if (!rfkill->ops->poll)
		return;
	rfkill->polling_paused = true;
	cancel_delayed_work_sync(&rfkill->poll_work);
}
EXPORT_SYMBOL(rfkill_pause_polling);

void rfkill_resume_polling(struct rfkill *rfkill)
{
	BUG_ON(!rfkill);

	if (!rfkill->ops->poll)
		return;
	rfkill->polling_paused = false;
	if (rfkill->suspended)
		return;
	queue_delayed_work(system_power_efficient_wq, &rfkill->poll_work, 0);
}
EXPORT_SYMBOL(rfkill_resume_polling);

bool rfkill_blocked(struct rfkill *rfkill)
{
	return rfkill_any_blocked(rfkill);
}
EXPORT_SYMBOL(rfkill_blocked);

bool rfkill_soft_blocked(struct rfkill *rfkill)
{
	unsigned long flags;
	unsigned long state;

	spin_lock_irqsave(&rfkill->lock, flags);
	state = rfkill->state;
	spin_unlock_irqrestore(&rfkill->lock, flags);

	return !!(state & RFKILL_BLOCK_SW);
}
EXPORT_SYMBOL(rfkill_soft_blocked);

struct rfkill * __must_check rfkill_alloc(const char *name,
					  struct device *parent,
					  const enum rfkill_type type,
					  const struct rfkill_ops *ops,
					  void *ops_data)
{
	struct rfkill *rfkill;

	if (WARN_ON(!ops))
		return NULL;
	if (WARN_ON(!ops->set_block))
		return NULL;
	if (WARN_ON(!name))
		return NULL;
	if (WARN_ON(type == RFKILL_TYPE_ALL || type >= NUM_RFKILL_TYPES))
		return NULL;

	rfkill = kzalloc(sizeof(*rfkill) + strlen(name) + 1, GFP_KERNEL);
	if (!rfkill)
		return NULL;

	spin_lock_init(&rfkill->lock);
	INIT_LIST_HEAD(&rfkill->node);
	rfkill->type = type;
	strcpy(rfkill->name, name);
	rfkill->ops = ops;
	rfkill->data = ops_data;

	/* Set up here so unregister/destroy never see uninitialised work. */
	INIT_DELAYED_WORK(&rfkill->poll_work, rfkill_poll_work);
	INIT_WORK(&rfkill->uevent_work, rfkill_uevent_work);
	INIT_WORK(&rfkill->sync_work, rfkill_sync_work);

	rfkill->dev.class = &rfkill_class;
	rfkill->dev.parent = parent;
	device_initialize(&rfkill->dev);

	return rfkill;
}
EXPORT_SYMBOL(rfkill_alloc);

int __must_check rfkill_register(struct rfkill *rfkill)
{
	struct device *dev;
	int err;

	if (!rfkill)
		return -EINVAL;
	dev = &rfkill->dev;

	mutex_lock(&rfkill_global_mutex);

	if (rfkill->registered) {
		err = -EALREADY;
		goto err_unlock;
	}

	rfkill->idx = rfkill_next_idx;
	dev_set_name(dev, "rfkill%lu", rfkill_next_idx);
	rfkill_next_idx++;

	list_add_tail(&rfkill->node, &rfkill_list);

	err = device_add(dev);
	if (err)
		goto err_remove;

	err = rfkill_led_register(&rfkill->led, rfkill, dev_name(dev));
	if (err)
		goto err_del;

	rfkill->registered = true;
	/*
	 * Counted by its state until its ADD goes out below: a persistent
	 * device's CHANGE_ALL may update the indicator before that.
	 */
	rfkill_get_state(rfkill, &rfkill->announced);

	if (rfkill->ops->poll)
		queue_delayed_work(system_power_efficient_wq,
				   &rfkill->poll_work,
				   round_jiffies_relative(RFKILL_POLL_INTERVAL));

	if (!rfkill->persistent || rfkill_epo_lock_active) {
		rfkill->need_sync = true;
		schedule_work(&rfkill->sync_work);
	} else {
#ifdef CONFIG_RFKILL_INPUT
		/* A persistent device sets the global state of its type. */
		bool blocked = !!(rfkill->state & RFKILL_BLOCK_SW);

		if (!atomic_read(&rfkill_input_disabled))
			rfkill_change_all_locked(rfkill->type, blocked);
#endif
	}

	/*
	 * No per-device LED event here: like in-tree, an LED on the
	 * trigger follows the device from its first change on.
	 */
	rfkill_announce_locked(rfkill, RFKILL_OP_ADD);
	rfkill_global_update_locked();

	mutex_unlock(&rfkill_global_mutex);
	return 0;

err_del:
	device_del(dev);
err_remove:
	list_del_init(&rfkill->node);
err_unlock:
	mutex_unlock(&rfkill_global_mutex);
	return err;
}
EXPORT_SYMBOL(rfkill_register);

void rfkill_unregister(struct rfkill *rfkill)
{
	struct rfkill_event_ext ev;

	BUG_ON(!rfkill);

	if (rfkill->ops->poll)
		cancel_delayed_work_sync(&rfkill->poll_work);
	cancel_work_sync(&rfkill->uevent_work);
	cancel_work_sync(&rfkill->sync_work);

	rfkill->registered = false;

	device_del(&rfkill->dev);

	mutex_lock(&rfkill_global_mutex);
	rfkill_fill_event(&ev, rfkill, RFKILL_OP_DEL);
	rfkill_send_event_locked(&ev);
	list_del_init(&rfkill->node);
	rfkill_global_update_locked();
	mutex_unlock(&rfkill_global_mutex);

	rfkill_led_unregister(&rfkill->led);
}
EXPORT_SYMBOL(rfkill_unregister);

void rfkill_destroy(struct rfkill *rfkill)
{
	if (rfkill)
		put_device(&rfkill->dev);
}
EXPORT_SYMBOL(rfkill_destroy);
