// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LED class helpers; the airplane-mode LED is found by check-leds.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "guest.h"

char led_dir[300];

int led_brightness(const char *dir)
{
	char path[340], buf[32];

	snprintf(path, sizeof(path), "%s/brightness", dir);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	return atoi(buf);
}

/* Polls an LED: triggers may be updated from a work item. */
bool wait_led_at(const char *dir, bool on, int ms)
{
	long end = now_ms() + ms;

	if (!dir[0])
		return false;
	do {
		int b = led_brightness(dir);

		if (b >= 0 && (b > 0) == on)
			return true;
		sleep_ms(20);
	} while (now_ms() < end);
	return false;
}

/* The LED that follows the airplane-mode trigger. */
bool wait_led(bool on, int ms)
{
	return wait_led_at(led_dir, on, ms);
}

int led_set_trigger(const char *dir, const char *trigger)
{
	char path[340];

	snprintf(path, sizeof(path), "%s/trigger", dir);
	return write_text(path, trigger);
}

/* Both views of the indicator: op-5 event on fd l, and the LED if any. */
bool ind_is(int l, int want, const char *why)
{
	bool ev = wait_ind(l, want, WAIT_MS);
	bool led = led_dir[0] && wait_led(want, WAIT_MS);

	tap_ok(ev, "%s: op-5 event soft=%d", why, want);
	tap_ok(led, "%s: LED %s", why, want ? "on" : "off");
	return ev && led;
}
