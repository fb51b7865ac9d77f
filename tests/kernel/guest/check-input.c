// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rfkill-input (keys, NOINPUT, SW_RFKILL_ALL) and suspend/resume.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/uinput.h>

#include "guest.h"

/*
 * RFKILL_IOCTL_AIRPLANE_MODE_KEY_RESET (ours): "all" blocked by
 * CHANGE_ALL, then one radio switched on singly (airplane mode ended by
 * a program's radio request).  Without the reset the key's next press
 * would unblock every radio; after it, the press blocks them all.
 */
static void test_key_reset(int kbd)
{
	int fd = rfk_open(), ro = open("/dev/rfkill", O_RDONLY | O_CLOEXEC);
	int r;

	set_all(1);
	wait_soft("111", WAIT_MS);
	block_one(fd, &radios[2], 0);
	wait_soft("110", WAIT_MS);
	r = ioctl(ro, RFKILL_IOCTL_AIRPLANE_MODE_KEY_RESET) < 0 ? -errno : 0;
	tap_ok(r == -EBADF, "KEY_RESET on a read-only fd -> EBADF (got %s)", err_name(r));
	r = ioctl(fd, RFKILL_IOCTL_AIRPLANE_MODE_KEY_RESET) < 0 ? -errno : 0;
	tap_ok(r == 0, "KEY_RESET on a writable fd -> 0 (got %s)", err_name(r));
	sleep_ms(QUIET_MS);
	tap_ok(wait_soft("110", 10), "KEY_RESET moves no radio");
	press(kbd, KEY_RFKILL);
	tap_ok(wait_soft("111", WAIT_MS),
	       "after KEY_RESET, KEY_RFKILL blocks every radio (without it: unblocks)");
	/* every radio blocked: "all" is not stale, a late reset keeps it */
	ioctl(fd, RFKILL_IOCTL_AIRPLANE_MODE_KEY_RESET);
	press(kbd, KEY_RFKILL);
	tap_ok(wait_soft("000", WAIT_MS),
	       "KEY_RESET with every radio blocked keeps the key's state: the next press unblocks");
	close(ro);
	close(fd);
}

void test_input(void)
{
	static const int keys[] = { KEY_WLAN, KEY_BLUETOOTH, KEY_RFKILL };
	static const int sws[] = { SW_RFKILL_ALL };
	char mode[16];
	int kbd, sw, noinput;

	/* the key toggles start from the global states; make them "unblocked" */
	set_all(0);
	if (read_text("/sys/module/rfkill/parameters/master_switch_mode", mode, sizeof(mode)) == 0)
		tap_diag("rfkill master_switch_mode=%s", mode);
	kbd = uinput_create("rfkill-test keys", EV_KEY, UI_SET_KEYBIT, keys, 3);
	if (!tap_ok(kbd >= 0, "uinput keyboard with KEY_WLAN, KEY_BLUETOOTH, KEY_RFKILL (%s)",
		    kbd < 0 ? strerror(-kbd) : "ok"))
		return;
	press(kbd, KEY_WLAN);
	tap_ok(wait_soft("110", WAIT_MS), "KEY_WLAN blocks phy0 and phy1 only");
	press(kbd, KEY_WLAN);
	tap_ok(wait_soft("000", WAIT_MS), "KEY_WLAN again unblocks them");
	press(kbd, KEY_BLUETOOTH);
	tap_ok(wait_soft("001", WAIT_MS), "KEY_BLUETOOTH blocks hci0 only");
	press(kbd, KEY_BLUETOOTH);
	tap_ok(wait_soft("000", WAIT_MS), "KEY_BLUETOOTH again unblocks it");

	noinput = rfk_open();
	tap_ok(ioctl(noinput, RFKILL_IOCTL_NOINPUT) == 0, "RFKILL_IOCTL_NOINPUT on an open fd");
	press(kbd, KEY_WLAN);
	sleep_ms(QUIET_MS);
	tap_ok(wait_soft("000", 10), "with RFKILL_IOCTL_NOINPUT held, KEY_WLAN does nothing");
	close(noinput);
	press(kbd, KEY_WLAN);
	tap_ok(wait_soft("110", WAIT_MS), "after that fd closed, KEY_WLAN works again");
	press(kbd, KEY_WLAN);
	wait_soft("000", WAIT_MS);

	press(kbd, KEY_RFKILL);
	tap_ok(wait_soft("111", WAIT_MS), "KEY_RFKILL blocks every radio");
	press(kbd, KEY_RFKILL);
	tap_ok(wait_soft("000", WAIT_MS), "KEY_RFKILL again unblocks every radio");

	/* a switch that is "off" when it connects is an emergency power off */
	sw = uinput_create("rfkill-test switch", EV_SW, UI_SET_SWBIT, sws, 1);
	if (tap_ok(sw >= 0, "uinput SW_RFKILL_ALL switch, initially off (%s)",
		   sw < 0 ? strerror(-sw) : "ok")) {
		tap_ok(wait_soft("111", WAIT_MS), "SW_RFKILL_ALL off at connect: EPO blocks every radio");
		press(kbd, KEY_WLAN);
		sleep_ms(QUIET_MS);
		tap_ok(wait_soft("111", 10), "during EPO, KEY_WLAN is ignored");
		uinput_emit(sw, EV_SW, SW_RFKILL_ALL, 1);
		tap_ok(wait_soft("000", WAIT_MS), "SW_RFKILL_ALL on: radios come back unblocked");
		ioctl(sw, UI_DEV_DESTROY);
		close(sw);
	}
	test_key_reset(kbd);
	ioctl(kbd, UI_DEV_DESTROY);
	close(kbd);
	set_all(0);
}

/*
 * Suspend to idle with pm_test=devices: the rfkill class suspend/resume
 * callbacks run, the machine wakes by itself after 5 s.  Soft states and
 * the indicator must come back as they were.
 */
void test_suspend(void)
{
	int l = rfk_open_ind(), w = rfk_open(), r, n, last = -1;

	drain(l);
	block_all(w, 1);
	wait_ind(l, 1, WAIT_MS);
	block_one(w, &radios[1], 0);	/* phy0 and hci0 blocked, phy1 not */
	wait_ind(l, 0, WAIT_MS);
	block_one(w, &radios[1], 1);
	wait_ind(l, 1, WAIT_MS);
	drain(l);
	r = write_text("/sys/power/pm_test", "devices");
	if (!r)
		r = write_text("/sys/power/state", "freeze");
	write_text("/sys/power/pm_test", "none");
	tap_ok(r == 0, "suspend to idle and resume with pm_test=devices (%s)",
	       r ? strerror(-r) : "ok");
	tap_ok(wait_soft("111", WAIT_MS), "after resume every radio is still blocked");
	n = count_ind(l, QUIET_MS, &last);
	tap_ok((n == 0 || last == 1) && (!led_dir[0] || wait_led(true, 10)),
	       "after resume the indicator is still on (%d events)", n);
	block_one(w, &radios[0], 0);
	tap_ok(wait_change(l, &radios[0], 0, WAIT_MS) && wait_soft("011", WAIT_MS),
	       "after resume CHANGE still works");
	block_all(w, 0);
	wait_soft("000", WAIT_MS);
	close(w);
	close(l);
}
