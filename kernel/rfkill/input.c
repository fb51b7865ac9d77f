// SPDX-License-Identifier: GPL-2.0-only
/*
 * rfkill-input: radio keys and the master switch of input devices.
 *
 * KEY_WLAN, KEY_BLUETOOTH, KEY_UWB, KEY_WIMAX toggle the global state of
 * their type, KEY_RFKILL toggles all types.  SW_RFKILL_ALL off is an
 * emergency power off (EPO) that blocks everything and locks the state;
 * switching it back on does what master_switch_mode says.
 *
 * Input events arrive in atomic context: they only record what is to be
 * done, under rfkill_input_lock, and a rate-limited work item does it.
 * Userspace that handles the keys itself disables all of this with the
 * RFKILL_IOCTL_NOINPUT ioctl (see rfkill_input_disabled).
 */
#include <linux/input.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "internal.h"

enum rfkill_master_mode {
	RFKILL_MASTER_UNLOCK = 0,	/* only lift the EPO lock */
	RFKILL_MASTER_RESTORE = 1,	/* restore the states before the EPO */
	RFKILL_MASTER_UNBLOCKALL = 2,	/* unblock every radio */
	NUM_RFKILL_MASTER_MODES
};

static unsigned int rfkill_master_switch_mode = RFKILL_MASTER_UNBLOCKALL;
module_param_named(master_switch_mode, rfkill_master_switch_mode, uint, 0);
MODULE_PARM_DESC(master_switch_mode,
		 "SW_RFKILL_ALL ON should: 0=do nothing (only unlock); 1=restore; 2=unblock all");

enum rfkill_global_op {
	RFKILL_GLOBAL_OP_EPO,
	RFKILL_GLOBAL_OP_RESTORE,
	RFKILL_GLOBAL_OP_UNLOCK,
	RFKILL_GLOBAL_OP_UNBLOCK,
};

static const enum rfkill_global_op rfkill_master_ops[] = {
	[RFKILL_MASTER_UNLOCK]		= RFKILL_GLOBAL_OP_UNLOCK,
	[RFKILL_MASTER_RESTORE]		= RFKILL_GLOBAL_OP_RESTORE,
	[RFKILL_MASTER_UNBLOCKALL]	= RFKILL_GLOBAL_OP_UNBLOCK,
};

/* Keys repeat and bounce: at most one run of the work per delay. */
#define RFKILL_INPUT_DELAY_MS	200

static DEFINE_SPINLOCK(rfkill_input_lock);
/* All below: guarded by rfkill_input_lock (taken in atomic context). */
static bool rfkill_op_pending;
static enum rfkill_global_op rfkill_op;
static DECLARE_BITMAP(rfkill_toggle_pending, NUM_RFKILL_TYPES);
/*
 * odd number of presses not yet applied: a set bit means "toggle".  A
 * master switch op drops the pending presses but keeps this count, as
 * in-tree: the next press of that type evens it out.
 */
static DECLARE_BITMAP(rfkill_toggle_odd, NUM_RFKILL_TYPES);
static unsigned long rfkill_last_run;

static void rfkill_input_do_global(enum rfkill_global_op op)
{
	int i;

	switch (op) {
	case RFKILL_GLOBAL_OP_EPO:
		rfkill_epo();
		break;
	case RFKILL_GLOBAL_OP_RESTORE:
		rfkill_restore_states();
		break;
	case RFKILL_GLOBAL_OP_UNLOCK:
		rfkill_remove_epo_lock();
		break;
	case RFKILL_GLOBAL_OP_UNBLOCK:
		rfkill_remove_epo_lock();
		for (i = 0; i < NUM_RFKILL_TYPES; i++)
			rfkill_switch_all(i, false);
		break;
	}
}

/*
 * The presses of one type since the last run: the global state of the
 * type is applied again, flipped if the count was odd.  An even count
 * thus re-applies the global state to every radio of the type (one that
 * was unblocked on its own is blocked again), as in-tree rfkill-input does.
 */
static void rfkill_input_apply_toggle(enum rfkill_type type, bool odd)
{
	bool blocked = rfkill_get_global_sw_state(type);

	rfkill_switch_all(type, odd ? !blocked : blocked);
}

static void rfkill_input_work_fn(struct work_struct *work)
{
	enum rfkill_global_op op;
	bool odd;
	int i;

	spin_lock_irq(&rfkill_input_lock);
	do {
		if (rfkill_op_pending) {
			/* a master switch op supersedes the presses before it */
			op = rfkill_op;
			rfkill_op_pending = false;
			bitmap_zero(rfkill_toggle_pending, NUM_RFKILL_TYPES);
			spin_unlock_irq(&rfkill_input_lock);

			rfkill_input_do_global(op);

			spin_lock_irq(&rfkill_input_lock);
			/* another op came in meanwhile: it goes first */
			if (rfkill_op_pending)
				continue;
		}

		/*
		 * While the EPO lock is held, presses stay pending instead
		 * of being used up against the lock.
		 */
		if (rfkill_is_epo_lock_active())
			continue;

		for (i = 0; i < NUM_RFKILL_TYPES; i++) {
			if (!__test_and_clear_bit(i, rfkill_toggle_pending))
				continue;
			odd = __test_and_clear_bit(i, rfkill_toggle_odd);
			spin_unlock_irq(&rfkill_input_lock);

			rfkill_input_apply_toggle(i, odd);

			spin_lock_irq(&rfkill_input_lock);
		}
	} while (rfkill_op_pending);
	spin_unlock_irq(&rfkill_input_lock);
}

static DECLARE_DELAYED_WORK(rfkill_input_work, rfkill_input_work_fn);

/*
 * Caller holds rfkill_input_lock.  Outside the rate limit window the work
 * runs at once; inside it, a full window from now (not the rest of the
 * window), as in-tree: a press that comes while the work is queued joins
 * that run and does not move the window.  Both calls name one queue,
 * RFKILL_PERCPU_WQ (compat.h), the one in-tree uses: a work item must not
 * be queued on two workqueues, and 7.2 logs the old name's use.
 */
static void rfkill_input_schedule(bool now)
{
	unsigned long window = msecs_to_jiffies(RFKILL_INPUT_DELAY_MS);
	unsigned long delay;

	if (now) {
		mod_delayed_work(RFKILL_PERCPU_WQ, &rfkill_input_work, 0);
	} else {
		delay = time_after(jiffies, rfkill_last_run + window) ? 0 : window;
		if (!queue_delayed_work(RFKILL_PERCPU_WQ, &rfkill_input_work,
					delay))
			return;
	}
	rfkill_last_run = jiffies;
}

static void rfkill_input_global(enum rfkill_global_op op)
{
	unsigned long flags;

	spin_lock_irqsave(&rfkill_input_lock, flags);
	rfkill_op_pending = true;
	rfkill_op = op;
	/* an emergency power off does not wait for the rate limit */
	rfkill_input_schedule(op == RFKILL_GLOBAL_OP_EPO &&
			      !rfkill_is_epo_lock_active());
	spin_unlock_irqrestore(&rfkill_input_lock, flags);
}

static void rfkill_input_toggle(enum rfkill_type type)
{
	unsigned long flags;

	if (rfkill_is_epo_lock_active())
		return;

	spin_lock_irqsave(&rfkill_input_lock, flags);
	if (!rfkill_op_pending) {
		__set_bit(type, rfkill_toggle_pending);
		__change_bit(type, rfkill_toggle_odd);
		rfkill_input_schedule(false);
	}
	spin_unlock_irqrestore(&rfkill_input_lock, flags);
}

static void rfkill_input_master_switch(bool on)
{
	if (!on)
		rfkill_input_global(RFKILL_GLOBAL_OP_EPO);
	else
		rfkill_input_global(rfkill_master_ops[rfkill_master_switch_mode]);
}

/* Which key toggles which type; KEY_RFKILL is all of them. */
static const struct {
	unsigned int code;
	enum rfkill_type type;
} rfkill_input_keys[] = {
	{ KEY_WLAN,		RFKILL_TYPE_WLAN },
	{ KEY_BLUETOOTH,	RFKILL_TYPE_BLUETOOTH },
	{ KEY_UWB,		RFKILL_TYPE_UWB },
	{ KEY_WIMAX,		RFKILL_TYPE_WIMAX },
	{ KEY_RFKILL,		RFKILL_TYPE_ALL },
};

static void rfkill_input_event(struct input_handle *handle, unsigned int type,
			       unsigned int code, int value)
{
	int i;

	if (type == EV_SW && code == SW_RFKILL_ALL) {
		rfkill_input_master_switch(value);
		return;
	}
	/* presses only; releases and autorepeat do nothing */
	if (type != EV_KEY || value != 1)
		return;
	for (i = 0; i < ARRAY_SIZE(rfkill_input_keys); i++) {
		if (rfkill_input_keys[i].code == code) {
			rfkill_input_toggle(rfkill_input_keys[i].type);
			return;
		}
	}
}

static int rfkill_input_connect(struct input_handler *handler,
				struct input_dev *dev,
				const struct input_device_id *id)
{
	struct input_handle *handle;
	int err;

	handle = kzalloc(sizeof(*handle), GFP_KERNEL);
	if (!handle)
		return -ENOMEM;

	handle->dev = dev;
	handle->handler = handler;
	handle->name = "rfkill";

	err = input_register_handle(handle);
	if (err)
		goto err_free;
	err = input_open_device(handle);
	if (err)
		goto err_unregister;
	return 0;

err_unregister:
	input_unregister_handle(handle);
err_free:
	kfree(handle);
	return err;
}

/* A master switch that is already off at connect time is an EPO. */
static void rfkill_input_start(struct input_handle *handle)
{
	struct input_dev *dev = handle->dev;

	spin_lock_irq(&dev->event_lock);
	if (test_bit(EV_SW, dev->evbit) && test_bit(SW_RFKILL_ALL, dev->swbit))
		rfkill_input_master_switch(test_bit(SW_RFKILL_ALL, dev->sw));
	spin_unlock_irq(&dev->event_lock);
}

static void rfkill_input_disconnect(struct input_handle *handle)
{
	input_close_device(handle);
	input_unregister_handle(handle);
	kfree(handle);
}

#define RFKILL_KEY_ID(key) {						\
	.flags = INPUT_DEVICE_ID_MATCH_EVBIT | INPUT_DEVICE_ID_MATCH_KEYBIT, \
	.evbit = { BIT_MASK(EV_KEY) },					\
	.keybit = { [BIT_WORD(key)] = BIT_MASK(key) },			\
}

static const struct input_device_id rfkill_input_ids[] = {
	RFKILL_KEY_ID(KEY_WLAN),
	RFKILL_KEY_ID(KEY_BLUETOOTH),
	RFKILL_KEY_ID(KEY_UWB),
	RFKILL_KEY_ID(KEY_WIMAX),
	RFKILL_KEY_ID(KEY_RFKILL),
	{
		.flags = INPUT_DEVICE_ID_MATCH_EVBIT |
			 INPUT_DEVICE_ID_MATCH_SWBIT,
		.evbit = { BIT_MASK(EV_SW) },
		.swbit = { [BIT_WORD(SW_RFKILL_ALL)] =
				   BIT_MASK(SW_RFKILL_ALL) },
	},
	{ }
};

static struct input_handler rfkill_input_handler = {
	.name		= "rfkill",
	.event		= rfkill_input_event,
	.connect	= rfkill_input_connect,
	.disconnect	= rfkill_input_disconnect,
	.start		= rfkill_input_start,
	.id_table	= rfkill_input_ids,
};

int rfkill_input_init(void)
{
	if (rfkill_master_switch_mode >= NUM_RFKILL_MASTER_MODES) {
		pr_err("rfkill: master_switch_mode=%u is not 0, 1 or 2\n",
		       rfkill_master_switch_mode);
		return -EINVAL;
	}

	/* the first key press must not wait */
	rfkill_last_run = jiffies - msecs_to_jiffies(RFKILL_INPUT_DELAY_MS) - 1;

	return input_register_handler(&rfkill_input_handler);
}

void rfkill_input_exit(void)
{
	input_unregister_handler(&rfkill_input_handler);
	cancel_delayed_work_sync(&rfkill_input_work);
}
