// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hard blocks, from the TOS6205 switch in fixtures/tos6205.asl: sysfs and
 * events carry hard=1 with reason SIGNAL, a soft unblock cannot beat it,
 * polling picks up the switch, the indicator counts a hard-blocked
 * radio as blocked, and follows only after the radio's CHANGE event.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "guest.h"

/* pc-testdev keeps the last byte written here; BTST reads it */
#define SWITCH_PORT	0xe0
/* rfkill polls drivers every 5 s (rounded to a whole second) */
#define POLL_WAIT_MS	15000

static struct radio tbt = {
	.name = "Toshiba Bluetooth", .type = RFKILL_TYPE_BLUETOOTH, .type_name = "bluetooth",
};

static bool find_tbt(void)
{
	DIR *d = opendir("/sys/class/rfkill");
	struct dirent *de;

	while (d && !tbt.found && (de = readdir(d))) {
		char dir[300], path[320], name[64];
		unsigned int idx;

		if (sscanf(de->d_name, "rfkill%u", &idx) != 1)
			continue;
		snprintf(dir, sizeof(dir), "/sys/class/rfkill/%s", de->d_name);
		snprintf(path, sizeof(path), "%s/name", dir);
		if (read_text(path, name, sizeof(name)) == 0 && !strcmp(name, tbt.name)) {
			tbt.found = true;
			tbt.idx = idx;
			snprintf(tbt.dir, sizeof(tbt.dir), "%s", dir);
		}
	}
	if (d)
		closedir(d);
	return tbt.found;
}

static bool attr_is(const char *name, const char *want)
{
	return !strcmp(attr(&tbt, name), want);
}

/* Waits for a CHANGE of the Toshiba radio with this hard state. */
static bool wait_hard(int fd, int hard, int *reasons, int ms)
{
	long end = now_ms() + ms;
	struct rfkill_event_ext ev;

	for (long left = ms; left > 0; left = end - now_ms()) {
		if (ev_read(fd, &ev, sizeof(ev), left) <= 0)
			return false;
		tap_diag("event idx %u type %u op %u soft %u hard %u reasons %u",
			 ev.idx, ev.type, ev.op, ev.soft, ev.hard, ev.hard_block_reasons);
		if (ev.op == RFKILL_OP_CHANGE && ev.idx == tbt.idx && ev.hard == hard) {
			*reasons = ev.hard_block_reasons;
			return true;
		}
	}
	return false;
}

void test_hard_block(void)
{
	__u32 size = sizeof(struct rfkill_event_ext);
	int l = rfk_open_ind(), li, w = rfk_open(), reasons = -1, c;
	struct rfkill_event_ext ev;
	bool add_ok = false, got;
	long end = now_ms() + 10000;

	while (!find_tbt() && now_ms() < end)
		sleep_ms(50);
	if (!tap_ok(tbt.found, "toshiba_bluetooth registered \"%s\" for the SSDT switch", tbt.name))
		return;
	tap_ok(ioperm(SWITCH_PORT, 4, 1) == 0, "ioperm for the switch port 0x%x", SWITCH_PORT);

	ioctl(l, RFKILL_IOCTL_MAX_SIZE, &size);
	while (ev_read(l, &ev, sizeof(ev), 0) > 0)
		if (ev.op == RFKILL_OP_ADD && ev.idx == tbt.idx)
			add_ok = ev.hard == 1 && ev.hard_block_reasons == RFKILL_HARD_BLOCK_SIGNAL;
	tap_ok(add_ok, "ADD event: hard=1, hard_block_reasons=SIGNAL (switch off at boot)");
	tap_ok(attr_is("hard", "1") && attr_is("state", "2") &&
	       attr_is("hard_block_reasons", "0x1"),
	       "sysfs: hard=1 state=2 hard_block_reasons=0x1");
	block_one(w, &tbt, 0);
	sleep_ms(QUIET_MS);
	tap_ok(attr_is("soft", "0") && attr_is("hard", "1") && attr_is("state", "2"),
	       "a soft unblock leaves it hard-blocked (state 2)");

	test_led_trigger(false);
	li = rfk_open_ind();
	drain(li);
	rfk_op(w, RFKILL_OP_CHANGE_ALL, RFKILL_TYPE_WLAN, 0, 1);
	ind_is(li, 1, "wlan soft-blocked, Toshiba hard-blocked");

	outb(1, SWITCH_PORT);
	got = wait_hard(l, 0, &reasons, POLL_WAIT_MS);
	tap_ok(got && reasons == 0,
	       "switch on: polling sends CHANGE hard=0, no reasons (got %d)", reasons);
	tap_ok(attr_is("hard", "0") && attr_is("state", "1") &&
	       attr_is("hard_block_reasons", "0x0"),
	       "sysfs: hard=0 state=1 hard_block_reasons=0x0");
	/* a driver-reported change: the device's CHANGE first, then op-5 */
	c = changes_before_ind(li, tbt.idx, 0, WAIT_MS);
	tap_ok(c >= 1, "switch on: the Toshiba CHANGE comes before op-5 soft=0 (%d)", c);
	tap_ok(led_dir[0] && wait_led(false, WAIT_MS), "switch on: LED off");

	outb(0, SWITCH_PORT);
	reasons = -1;
	got = wait_hard(l, 1, &reasons, POLL_WAIT_MS);
	tap_ok(got && reasons == RFKILL_HARD_BLOCK_SIGNAL,
	       "switch off: CHANGE hard=1, reason SIGNAL (got %d)", reasons);
	c = changes_before_ind(li, tbt.idx, 1, WAIT_MS);
	tap_ok(c >= 1, "switch off again: the Toshiba CHANGE comes before op-5 soft=1 (%d)", c);
	tap_ok(led_dir[0] && wait_led(true, WAIT_MS), "switch off again: LED on");

	block_all(w, 0);
	ind_is(li, 0, "unblock all: wlan on, Toshiba still hard-blocked");
	tap_ok(attr_is("hard", "1") && attr_is("state", "2"),
	       "unblock all does not clear the hard block");
	close(li);
	close(w);
	close(l);
}
