/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the files of rfkill-guest-test (see main.c): the radios the
 * VM provides, helpers for /dev/rfkill, sysfs, LEDs and uinput, and the
 * check groups main() runs in order.  Single-threaded; the globals are
 * only touched by the test process (children get copies).
 */
#ifndef GUEST_H
#define GUEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/rfkill.h>

#include "rfkill-airplane.h"
#include "tap.h"

#define OP_ACQUIRE	RFKILL_OP_AIRPLANE_MODE_INDICATOR_ACQUIRE
#define OP_INDICATOR	RFKILL_OP_AIRPLANE_MODE_INDICATOR_CHANGE

/* An event that must come gets WAIT_MS; "nothing happens" is QUIET_MS. */
#define WAIT_MS		5000
#define QUIET_MS	700

struct radio {
	const char *name;
	int type;
	const char *type_name;
	unsigned int idx;
	char dir[300];
	bool found;
};

/* phy0, phy1 (mac80211_hwsim radios=2) and hci0 (hci_vhci), in that order */
#define NRADIOS 3
extern struct radio radios[NRADIOS];
extern int n_sysfs_devices;	/* all of /sys/class/rfkill, ours or not */
extern int vhci_fd;		/* keeps hci0 alive */
extern char led_dir[300];	/* LED following the airplane-mode trigger */

/* options (main.c) */
extern const char *rfkill_bin;
extern long fuzz_writes;
extern int race_procs;
extern uint64_t seed;

/* util.c */
long now_ms(void);
void sleep_ms(int ms);
int read_text(const char *path, char *buf, size_t len);
int write_text(const char *path, const char *s);
bool has_word(const char *list, const char *word);
bool kernel_at_least(int major, int minor);
const char *err_name(int r);

/* radios.c */
const char *attr(const struct radio *r, const char *name);
struct radio *radio_by_idx(unsigned int idx);
bool scan_sysfs(void);
void setup_radios(void);
bool all_soft(int want);
bool wait_soft(const char *want, int ms);
void set_all(int soft);

/* rfkill-dev.c */
int rfk_open(void);
int rfk_open_ind(void);
ssize_t ev_read(int fd, void *buf, size_t len, int ms);
int drain(int fd);
int rfk_op(int fd, int op, int type, unsigned int idx, int soft);
int block_all(int fd, int soft);
int block_one(int fd, const struct radio *r, int soft);
bool wait_change(int fd, const struct radio *r, int soft, int ms);
bool wait_ind(int fd, int want, int ms);
int count_ind(int fd, int ms, int *last);
int changes_before_ind(int fd, unsigned int idx, int want, int ms);

/* leds.c */
int led_brightness(const char *dir);
bool wait_led_at(const char *dir, bool on, int ms);
bool wait_led(bool on, int ms);
int led_set_trigger(const char *dir, const char *trigger);
bool ind_is(int l, int want, const char *why);

/* uinput.c */
int uinput_create(const char *name, int evtype, unsigned long setbit,
		  const int *codes, int n);
void uinput_emit(int fd, int type, int code, int value);
void press(int fd, int key);

/* check-core.c */
void test_devnode(void);
void test_sysfs(void);
void test_initial_events(void);
void test_sizes(void);
void test_change(void);
void test_invalid(void);

/* check-events.c */
void test_queue_limit(void);
void test_order_soft(void);
void test_hotplug_blocked(void);

/* check-leds.c */
void test_led_trigger(bool expect_on);
void test_global_triggers(void);
void test_default_rule(void);
void test_default_off(void);

/* check-indicator.c */
void test_ownership(void);
void test_sigkill_release(void);
void test_race(int n);
/* check-hold.c */
void test_hold(void);
void test_v1_reader(void);
void test_util_linux(void);
void test_plain_reader(void);

/* check-input.c */
void test_input(void);
void test_suspend(void);

/* check-hard.c */
void test_hard_block(void);

/* check-stress.c */
void test_fuzz(long count);
void test_no_radios(void);
void test_dmesg(void);

#endif /* GUEST_H */
