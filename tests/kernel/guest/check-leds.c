// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LED triggers: the in-tree ones and the airplane-mode indicator's
 * default rule (also with rfkill default_state=0).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest.h"

/* Finds an LED offering the airplane-mode trigger and attaches it. */
void test_led_trigger(bool expect_on)
{
	DIR *d = opendir("/sys/class/leds");
	struct dirent *de;
	static char trig[16384];
	int leds = 0;
	bool any = false, none = false, per_dev = false;
	char path[340];

	while (d && (de = readdir(d))) {
		char dir[300];

		if (de->d_name[0] == '.')
			continue;
		leds++;
		snprintf(dir, sizeof(dir), "/sys/class/leds/%s", de->d_name);
		snprintf(path, sizeof(path), "%s/trigger", dir);
		if (read_text(path, trig, sizeof(trig)) < 0)
			continue;
		any = has_word(trig, "rfkill-any");
		none = has_word(trig, "rfkill-none");
		per_dev = true;
		for (int i = 0; i < NRADIOS; i++) {
			char name[32];

			snprintf(name, sizeof(name), "rfkill%u", radios[i].idx);
			per_dev = per_dev && has_word(trig, name);
		}
		if (!led_dir[0] && has_word(trig, RFKILL_AIRPLANE_MODE_TRIGGER))
			snprintf(led_dir, sizeof(led_dir), "%s", dir);
	}
	if (d)
		closedir(d);
	tap_diag("%d LED(s) in /sys/class/leds", leds);
	tap_ok(leds > 0 && any && none && per_dev,
	       "LED triggers rfkill-any, rfkill-none and rfkillN are registered");
	if (!tap_ok(led_dir[0], "an LED lists trigger %s", RFKILL_AIRPLANE_MODE_TRIGGER))
		return;
	snprintf(path, sizeof(path), "%s/trigger", led_dir);
	tap_ok(write_text(path, RFKILL_AIRPLANE_MODE_TRIGGER) == 0 &&
	       read_text(path, trig, sizeof(trig)) == 0 &&
	       strstr(trig, "[" RFKILL_AIRPLANE_MODE_TRIGGER "]"),
	       "%s follows %s now", led_dir, RFKILL_AIRPLANE_MODE_TRIGGER);
	tap_ok(wait_led(expect_on, WAIT_MS), "right after attaching, the LED is %s (radios %s)",
	       expect_on ? "on" : "off", expect_on ? "all blocked" : "unblocked");
}

/*
 * The in-tree triggers on the other LEDs: rfkill-any is on while any radio
 * is unblocked, rfkill-none while none is, rfkillN follows one radio.
 */
void test_global_triggers(void)
{
	char other[2][300] = { "", "" }, trig[16];
	const char *any = other[0], *none = other[1];
	DIR *d = opendir("/sys/class/leds");
	struct dirent *de;
	int n = 0, w = rfk_open();

	while (d && (de = readdir(d)) && n < 2) {
		char dir[300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "/sys/class/leds/%s", de->d_name);
		if (strcmp(dir, led_dir))
			snprintf(other[n++], sizeof(other[0]), "%s", dir);
	}
	if (d)
		closedir(d);
	if (!tap_ok(n == 2 && !led_set_trigger(any, "rfkill-any") &&
		    !led_set_trigger(none, "rfkill-none"),
		    "two more LEDs follow rfkill-any and rfkill-none (%s, %s)", any, none)) {
		close(w);
		return;
	}
	set_all(0);
	tap_ok(wait_led_at(any, true, WAIT_MS) && wait_led_at(none, false, WAIT_MS),
	       "radios unblocked: rfkill-any on, rfkill-none off");
	block_all(w, 1);
	tap_ok(wait_led_at(any, false, WAIT_MS) && wait_led_at(none, true, WAIT_MS),
	       "every radio blocked: rfkill-any off, rfkill-none on");
	block_one(w, &radios[1], 0);
	tap_ok(wait_led_at(any, true, WAIT_MS) && wait_led_at(none, false, WAIT_MS),
	       "phy1 unblocked: rfkill-any on, rfkill-none off");
	block_all(w, 0);

	snprintf(trig, sizeof(trig), "rfkill%u", radios[0].idx);
	tap_ok(!led_set_trigger(none, trig) && wait_led_at(none, true, WAIT_MS),
	       "LED on trigger %s is on while phy0 is unblocked", trig);
	block_one(w, &radios[0], 1);
	tap_ok(wait_led_at(none, false, WAIT_MS) && wait_led_at(any, true, WAIT_MS),
	       "%s off when phy0 is blocked, rfkill-any stays on", trig);
	block_one(w, &radios[0], 0);
	tap_ok(wait_led_at(none, true, WAIT_MS), "%s on again after unblock", trig);
	led_set_trigger(any, "none");
	led_set_trigger(none, "none");
	close(w);
}

void test_default_rule(void)
{
	int w = rfk_open(), l = rfk_open_ind();
	int last = -1, n;

	drain(l);
	block_all(w, 1);
	ind_is(l, 1, "block all");
	/*
	 * A driver whose LED comes up later (asus-wireless loading after the
	 * radios were blocked) must show the current state at once.
	 */
	tap_ok(led_dir[0] && !led_set_trigger(led_dir, "none") && wait_led(false, WAIT_MS) &&
	       !led_set_trigger(led_dir, RFKILL_AIRPLANE_MODE_TRIGGER) && wait_led(true, QUIET_MS),
	       "an LED attached while every radio is blocked lights at once");
	block_one(w, &radios[0], 0);
	ind_is(l, 0, "unblock phy0");
	tap_ok(led_dir[0] && !led_set_trigger(led_dir, "none") &&
	       !led_set_trigger(led_dir, RFKILL_AIRPLANE_MODE_TRIGGER) && wait_led(false, QUIET_MS),
	       "an LED attached while a radio is unblocked stays off");

	block_all(w, 0);
	drain(l);
	sleep_ms(QUIET_MS);
	drain(l);
	for (int i = 0; i < NRADIOS - 1; i++) {
		block_one(w, &radios[i], 1);
		n = count_ind(l, QUIET_MS, &last);
		tap_ok(n == 0 || last == 0,
		       "block %s (not the last radio): indicator stays off",
		       radios[i].name);
		tap_ok(!led_dir[0] || wait_led(false, 10),
		       "block %s: LED still off", radios[i].name);
	}
	block_one(w, &radios[NRADIOS - 1], 1);
	ind_is(l, 1, "block the last radio one by one");
	block_all(w, 0);
	ind_is(l, 0, "unblock all");
	close(w);
	close(l);
}

/*
 * rfkill loaded with default_state=0: radios registered later come up
 * soft-blocked, so the indicator is on from the start.
 */
void test_default_off(void)
{
	int l = rfk_open_ind(), n;
	struct rfkill_event_ext ev;
	unsigned int blocked_adds = 0;
	char path[340];

	while ((n = read(l, &ev, sizeof(ev))) > 0)
		if (ev.op == RFKILL_OP_ADD && radio_by_idx(ev.idx) && ev.soft == 1)
			blocked_adds++;
	tap_ok(wait_soft("111", WAIT_MS), "default_state=0: phy0, phy1 and hci0 come up soft-blocked");
	tap_diag("%u of the ADD events already say soft=1", blocked_adds);
	test_led_trigger(true);
	snprintf(path, sizeof(path), "%s/soft", radios[2].dir);
	tap_ok(write_text(path, "0") == 0 && wait_ind(l, 0, WAIT_MS) && wait_led(false, WAIT_MS),
	       "unblocking hci0 turns the indicator off");
	tap_ok(write_text(path, "1") == 0 && wait_ind(l, 1, WAIT_MS) && wait_led(true, WAIT_MS),
	       "blocking it again turns it back on");
	close(l);
}
