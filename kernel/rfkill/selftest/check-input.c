// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest program of the rfkill selftest, part two: rfkill-input (odd and
 * even numbers of presses), EPO, NOINPUT, the uevent and "state"
 * attribute, suspend/resume and unloading,
 * with two mac80211_hwsim radios (rfkill0, rfkill1) and uinput devices.
 * Prints TAP.
 *
 *   check-input               the main plan
 *   check-input default-off   rfkill was loaded with default_state=0
 *   check-input events        ask for indicator events and print every
 *                            event as util-linux `rfkill event` does
 *                            (guest.sh; util-linux never asks)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/input.h>
#include <linux/rfkill.h>
#include <linux/uinput.h>
#include <rfkill-airplane.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int tests, failed;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s %d - ", cond ? "ok" : "not ok", ++tests);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	failed += !cond;
}

static void msleep(int ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static int sysfs_int(int idx, const char *attr)
{
	char path[96], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path), "/sys/class/rfkill/rfkill%d/%s", idx, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return buf[0] ? atoi(buf) : -1;
}

/* write @val to rfkill@idx/@attr; returns 0 or -errno */
static int sysfs_write(int idx, const char *attr, const char *val)
{
	char path[96];
	int fd, r;

	snprintf(path, sizeof(path), "/sys/class/rfkill/rfkill%d/%s", idx, attr);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	r = write(fd, val, strlen(val)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

static int soft(int idx)
{
	return sysfs_int(idx, "soft");
}

/* Both radios reach soft == @want within 3 s (the input work is delayed). */
static int wait_soft(int want)
{
	for (int i = 0; i < 60; i++) {
		if (soft(0) == want && soft(1) == want)
			return 1;
		msleep(50);
	}
	return 0;
}

static int uinput_device(int with_switch)
{
	struct uinput_setup us = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 1, .product = 1 },
	};
	int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (with_switch) {
		ioctl(fd, UI_SET_EVBIT, EV_SW);
		ioctl(fd, UI_SET_SWBIT, SW_RFKILL_ALL);
		strcpy(us.name, "selftest switch");
		us.id.product = 2;
	} else {
		ioctl(fd, UI_SET_EVBIT, EV_KEY);
		ioctl(fd, UI_SET_KEYBIT, KEY_WLAN);
		ioctl(fd, UI_SET_KEYBIT, KEY_BLUETOOTH);
		ioctl(fd, UI_SET_KEYBIT, KEY_RFKILL);
		strcpy(us.name, "selftest keys");
	}
	if (ioctl(fd, UI_DEV_SETUP, &us) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) {
		close(fd);
		return -1;
	}
	msleep(300);	/* let the input core connect rfkill's handler */
	return fd;
}

static void emit(int fd, int type, int code, int value)
{
	struct input_event ev[2] = {
		{ .type = type, .code = code, .value = value },
		{ .type = EV_SYN, .code = SYN_REPORT },
	};

	if (write(fd, ev, sizeof(ev)) != sizeof(ev))
		printf("# uinput write: %s\n", strerror(errno));
}

/* press and release, then wait out rfkill-input's 200 ms rate limit */
static void press(int fd, int key)
{
	emit(fd, EV_KEY, key, 1);
	emit(fd, EV_KEY, key, 0);
	msleep(350);
}

static void test_keys(int keys)
{
	int rf;

	ok(soft(0) == 0 && soft(1) == 0, "radios start unblocked");
	press(keys, KEY_WLAN);
	ok(wait_soft(1), "KEY_WLAN blocks the wlan radios");
	press(keys, KEY_WLAN);
	ok(wait_soft(0), "KEY_WLAN again unblocks them");
	press(keys, KEY_RFKILL);
	ok(wait_soft(1), "KEY_RFKILL blocks every radio");
	press(keys, KEY_RFKILL);
	ok(wait_soft(0), "KEY_RFKILL again unblocks them");
	press(keys, KEY_BLUETOOTH);
	msleep(300);
	ok(soft(0) == 0 && soft(1) == 0, "KEY_BLUETOOTH leaves the wlan radios alone");
	press(keys, KEY_BLUETOOTH);

	rf = open("/dev/rfkill", O_RDWR);
	ok(rf >= 0 && ioctl(rf, RFKILL_IOCTL_NOINPUT) == 0, "RFKILL_IOCTL_NOINPUT");
	press(keys, KEY_WLAN);
	msleep(300);
	ok(soft(0) == 0 && soft(1) == 0, "while a NOINPUT fd is open, KEY_WLAN does nothing");
	close(rf);
	press(keys, KEY_WLAN);
	ok(wait_soft(1), "after that fd is closed, KEY_WLAN works again");
	press(keys, KEY_WLAN);
	ok(wait_soft(0), "and unblocks again");
}

/*
 * Several presses in one write(), from a SCHED_FIFO task: the input work
 * is queued on this CPU's kworker, which cannot run before the writer
 * sleeps, so all presses reach one run of rfkill-input's work.
 */
static void emit_presses(int fd, int key, int presses)
{
	struct sched_param rt = { .sched_priority = 50 }, normal = { 0 };
	struct input_event ev[2 * 8 + 1] = { 0 };
	int n = 0;
	cpu_set_t cpu0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) < 0 ||
	    sched_setscheduler(0, SCHED_FIFO, &rt) < 0)
		printf("# cannot run as SCHED_FIFO on CPU 0: %s\n", strerror(errno));

	for (int i = 0; i < presses && i < 8; i++) {
		ev[n++] = (struct input_event){ .type = EV_KEY, .code = key, .value = 1 };
		ev[n++] = (struct input_event){ .type = EV_KEY, .code = key, .value = 0 };
	}
	ev[n++] = (struct input_event){ .type = EV_SYN, .code = SYN_REPORT };
	if (write(fd, ev, n * sizeof(ev[0])) != (ssize_t)(n * sizeof(ev[0])))
		printf("# uinput write: %s\n", strerror(errno));
	sched_setscheduler(0, SCHED_OTHER, &normal);
	msleep(350);
}

/*
 * In-tree rfkill-input applies the global state of the type again after
 * any number of presses, flipped when the count is odd: two presses that
 * reach one run of its work re-apply the global state (here: unblocked)
 * to a radio that userspace blocked on its own.
 */
static void test_even_presses(int keys)
{
	ok(soft(0) == 0 && soft(1) == 0, "radios unblocked, global wlan state unblocked");
	ok(sysfs_write(0, "soft", "1") == 0 && soft(0) == 1, "rfkill0 blocked through sysfs only");
	emit_presses(keys, KEY_WLAN, 2);
	ok(wait_soft(0),
	   "two KEY_WLAN presses in one batch re-apply the global state: rfkill0 unblocked (%d %d)",
	   soft(0), soft(1));
	emit_presses(keys, KEY_WLAN, 3);
	ok(wait_soft(1), "three presses in one batch toggle: both blocked (%d %d)",
	   soft(0), soft(1));
	emit_presses(keys, KEY_WLAN, 1);
	ok(wait_soft(0), "one more press unblocks them");
}

static void test_master_switch(int keys)
{
	/* created with the switch at 0 = radios off: EPO when connected */
	int sw = uinput_device(1);

	ok(sw >= 0, "uinput SW_RFKILL_ALL device");
	ok(wait_soft(1), "SW_RFKILL_ALL off at connect: EPO blocks every radio");
	press(keys, KEY_WLAN);
	msleep(300);
	ok(soft(0) == 1 && soft(1) == 1, "during the EPO, KEY_WLAN unblocks nothing");
	press(keys, KEY_WLAN);
	msleep(300);
	ok(soft(0) == 1 && soft(1) == 1, "a second KEY_WLAN during the EPO: still nothing");
	ok(sysfs_write(0, "soft", "0") == 0 && soft(0) == 0,
	   "userspace may still unblock during the EPO (only input is locked)");
	sysfs_write(0, "soft", "1");
	emit(sw, EV_SW, SW_RFKILL_ALL, 1);
	ok(wait_soft(0), "SW_RFKILL_ALL on, master_switch_mode 2: every radio unblocked");
	/* the presses made during the EPO do not come back after it */
	msleep(700);
	ok(soft(0) == 0 && soft(1) == 0, "no late toggle from the presses during the EPO");
	emit(sw, EV_SW, SW_RFKILL_ALL, 0);
	ok(wait_soft(1), "SW_RFKILL_ALL off: EPO again, without the rate-limit delay");
	emit(sw, EV_SW, SW_RFKILL_ALL, 1);
	ok(wait_soft(0), "and on again: unblocked");
	close(sw);
}

static void test_sysfs(void)
{
	char buf[512] = "";
	int fd, n;

	fd = open("/sys/class/rfkill/rfkill0/uevent", O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	/* RFKILL_TYPE is the type name, as the in-tree core sends it */
	ok(n > 0 && strstr(buf, "RFKILL_NAME=phy0\n") && strstr(buf, "RFKILL_TYPE=wlan\n") &&
	   strstr(buf, "RFKILL_STATE=1\n") && strstr(buf, "RFKILL_HW_BLOCK_REASON=0x0\n"),
	   "uevent of rfkill0 has RFKILL_NAME=phy0, RFKILL_TYPE=wlan, _STATE, _HW_BLOCK_REASON");
	ok(access("/sys/class/rfkill/rfkill0/claim", F_OK) < 0 && errno == ENOENT,
	   "no claim attribute (no in-tree 6.x core has one)");
	ok(sysfs_write(0, "state", "2") == -EINVAL, "state write 2 (hard) -> EINVAL");
	ok(sysfs_write(0, "soft", "2") == -EINVAL, "soft write 2 -> EINVAL");
	ok(sysfs_write(0, "state", "0") == 0 && soft(0) == 1 && sysfs_int(0, "state") == 0,
	   "state write 0 soft-blocks rfkill0");
}

static void test_suspend(void)
{
	int fd, r;

	/* pm_test=devices: suspend and resume every device, no sleep */
	fd = open("/sys/power/pm_test", O_WRONLY);
	r = fd >= 0 && write(fd, "devices", 7) == 7;
	if (fd >= 0)
		close(fd);
	ok(r, "pm_test=devices");
	fd = open("/sys/power/state", O_WRONLY);
	r = fd >= 0 ? write(fd, "freeze", 6) : -1;
	ok(r == 6, "suspend-to-idle test cycle returns (%s)", r == 6 ? "ok" : strerror(errno));
	if (fd >= 0)
		close(fd);
	ok(soft(0) == 1 && soft(1) == 0, "states survive suspend/resume (%d %d)", soft(0), soft(1));
	ok(sysfs_write(0, "state", "1") == 0 && soft(0) == 0, "rfkill0 unblocks after resume");
}

static void test_unload(void)
{
	static const char * const mods[] = {
		"mac80211_hwsim", "mac80211", "cfg80211", "rfkill",
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(mods); i++) {
		int r = syscall(SYS_delete_module, mods[i], O_NONBLOCK);

		ok(r == 0, "rmmod %s (%s)", mods[i], r ? strerror(errno) : "ok");
	}
	ok(access("/sys/module/rfkill", F_OK) < 0, "rfkill is gone");
}

/* Prints until killed; the first op-5 answers the opt-in. */
static int print_events(void)
{
	struct rfkill_event ev;
	int fd = open("/dev/rfkill", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, RFKILL_IOCTL_AIRPLANE_MODE_EVENTS) < 0) {
		perror("check-input events");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (read(fd, &ev, sizeof(ev)) == (ssize_t)sizeof(ev))
		printf("idx %u type %u op %u soft %u hard %u\n", ev.idx,
		       ev.type, ev.op, ev.soft, ev.hard);
	return 0;
}

int main(int argc, char **argv)
{
	int keys;

	if (argc > 1 && !strcmp(argv[1], "events"))
		return print_events();

	if (argc > 1 && !strcmp(argv[1], "default-off")) {
		/* cfg80211 registers non-persistent radios: they sync to it */
		for (int i = 0; i < 40 && !(soft(0) == 1 && soft(1) == 1); i++)
			msleep(50);
		ok(soft(0) == 1 && soft(1) == 1,
		   "default_state=0: new radios come up soft blocked (%d %d)", soft(0), soft(1));
		printf("1..%d\n", tests);
		return failed != 0;
	}

	keys = uinput_device(0);
	ok(keys >= 0, "uinput key device");
	if (keys >= 0) {
		test_keys(keys);
		test_even_presses(keys);
		test_master_switch(keys);
		close(keys);
	}
	test_sysfs();
	test_suspend();
	test_unload();
	printf("1..%d\n", tests);
	return failed != 0;
}
