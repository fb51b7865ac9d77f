/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interfaces between the files of the rfkill core.
 *
 * struct rfkill is defined in core.c and nowhere else, on purpose:
 * genksyms does not expand a type that is defined in the exporting .c
 * file itself, so "struct rfkill" stays opaque in the modversion CRCs of
 * the 15 exports, exactly as in the in-tree net/rfkill/core.c.  Defining
 * it in a header would change every CRC that takes a struct rfkill *.
 * The other files therefore use the accessors declared here.
 *
 * For the same reason this header defines only types that no exported
 * prototype can reach, and adds no header to core.c's in-tree include
 * list other than <linux/version.h>, which has only macros.  Any new
 * struct definition reachable from struct device would change the CRC of
 * rfkill_alloc(); tests/kernel/crc/test_crc.py catches that.
 */
#ifndef _RFKILL_INTERNAL_H
#define _RFKILL_INTERNAL_H

#include <linux/rfkill.h>
#include <linux/leds.h>
#include <linux/ratelimit.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "rfkill-airplane.h"

#ifndef CONFIG_RFKILL_LEDS
#error "rfkill-airplane needs CONFIG_RFKILL_LEDS: the indicator is an LED trigger"
#endif

/*
 * rfkill_global_mutex guards: the device list and the per-type global
 * states (core.c), the EPO lock (core.c), the list of open /dev/rfkill
 * files and their event queues' membership (fops.c), the indicator
 * owner and state (airplane.c).  It is never taken from the
 * rfkill_set_*_state() paths, which drivers may call in any context.
 */
extern struct mutex rfkill_global_mutex;

/* Count of in-kernel users that asked for "no input handling" (ioctl). */
extern atomic_t rfkill_input_disabled;

/* ---- core.c: devices and global state ---- */

/* A consistent snapshot of one device's block state. */
struct rfkill_state {
	bool soft;		/* soft blocked: what sysfs and uevents show */
	/*
	 * soft blocked before the set_block() under way (or as the driver
	 * reported meanwhile): /dev/rfkill events count it as soft blocked
	 * until set_block() returns, sysfs and uevents do not
	 */
	bool soft_prev;
	bool hard;		/* hard blocked for any reason */
	unsigned long reasons;	/* RFKILL_HARD_BLOCK_* bits */
};

/* What the global LED triggers and the indicator derive from. */
struct rfkill_tally {
	unsigned int total;	/* registered devices */
	unsigned int blocked;	/* of which blocked now, soft or hard */
	/*
	 * of which blocked as far as userspace knows: by their last event,
	 * or by the global state of their type until they have synced
	 */
	unsigned int shown_blocked;
};

struct rfkill *rfkill_from_dev(struct device *dev);
const char *rfkill_name(const struct rfkill *rfkill);
enum rfkill_type rfkill_get_type(const struct rfkill *rfkill);
const char *rfkill_type_name(enum rfkill_type type);
u32 rfkill_index(const struct rfkill *rfkill);
bool rfkill_is_registered(const struct rfkill *rfkill);
bool rfkill_is_persistent(const struct rfkill *rfkill);
void rfkill_get_state(struct rfkill *rfkill, struct rfkill_state *st);
void rfkill_fill_event(struct rfkill_event_ext *ev, struct rfkill *rfkill,
		       enum rfkill_operation op);

/* Callers hold rfkill_global_mutex. */
void rfkill_sync_locked(struct rfkill *rfkill);
void rfkill_set_block_locked(struct rfkill *rfkill, bool blocked);
void rfkill_change_all_locked(enum rfkill_type type, bool blocked);
void rfkill_change_one_locked(u32 idx, enum rfkill_type type, bool blocked);
int rfkill_for_each_locked(int (*fn)(struct rfkill *rfkill, void *arg),
			   void *arg);
void rfkill_tally_locked(struct rfkill_tally *tally);
bool rfkill_global_blocked_locked(enum rfkill_type type);

/* Device model callbacks, used by class.c. */
void rfkill_dev_release(struct device *dev);
int rfkill_dev_suspend(struct device *dev);
int rfkill_dev_resume(struct device *dev);

/* Module init/exit of the parts that live in core.c. */
void rfkill_core_init_states(void);

/* RFKILL_IOCTL_AIRPLANE_MODE_KEY_RESET; takes rfkill_global_mutex. */
void rfkill_key_state_reset(void);

#ifdef CONFIG_RFKILL_INPUT
/* Called by input.c, take rfkill_global_mutex themselves. */
void rfkill_switch_all(enum rfkill_type type, bool blocked);
void rfkill_epo(void);
void rfkill_restore_states(void);
void rfkill_remove_epo_lock(void);
bool rfkill_is_epo_lock_active(void);
bool rfkill_get_global_sw_state(const enum rfkill_type type);

int rfkill_input_init(void);
void rfkill_input_exit(void);
#else
static inline int rfkill_input_init(void) { return 0; }
static inline void rfkill_input_exit(void) { }
#endif

/* ---- class.c: the "rfkill" class, sysfs attributes, uevents ---- */
extern struct class rfkill_class;

/* ---- fops.c: /dev/rfkill ---- */
int rfkill_fops_init(void);
void rfkill_fops_exit(void);
/* Callers hold rfkill_global_mutex; each open file gets a copy. */
void rfkill_send_event_locked(const struct rfkill_event_ext *ev);
/* The same for op 5, but only to the files that asked for it. */
void rfkill_send_indicator_event_locked(bool state);

/* ---- leds.c: per-device trigger, rfkill-any/-none, the global work ---- */
struct rfkill_led {
	struct led_trigger trigger;
	const char *name;	/* set by the driver, or NULL for "rfkillN" */
	struct rfkill *rfkill;
};

int rfkill_led_register(struct rfkill_led *led, struct rfkill *rfkill,
			const char *fallback_name);
void rfkill_led_unregister(struct rfkill_led *led);
void rfkill_led_event(struct rfkill_led *led, bool blocked);

/*
 * Any device's state changed: recompute rfkill-any, rfkill-none and the
 * indicator from a work item.  Safe in any context.
 */
void rfkill_global_changed(void);
/*
 * The same, but the indicator now (caller holds rfkill_global_mutex);
 * rfkill-any and rfkill-none still from the work item, as in-tree.
 */
void rfkill_global_update_locked(void);
int rfkill_global_leds_init(void);
void rfkill_global_leds_exit(void);

/* ---- airplane.c: the airplane-mode indicator ---- */
int rfkill_apm_init(void);
void rfkill_apm_exit(void);
/* Callers hold rfkill_global_mutex; 'owner' identifies an open file. */
void rfkill_apm_default_locked(const struct rfkill_tally *tally);
int rfkill_apm_acquire_locked(const void *owner);
int rfkill_apm_change_locked(const void *owner, bool state,
			     struct ratelimit_state *limit);
bool rfkill_apm_state_locked(void);
void rfkill_apm_release_locked(const void *owner);
/* The caller checked CAP_NET_ADMIN; returns the former owner or NULL. */
const void *rfkill_apm_break_locked(void);
ssize_t rfkill_apm_holder_show_locked(char *buf);

#endif /* _RFKILL_INTERNAL_H */
