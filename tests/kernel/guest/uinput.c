// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Virtual input devices for the rfkill-input handler checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/uinput.h>

#include "guest.h"

int uinput_create(const char *name, int evtype, unsigned long setbit,
		  const int *codes, int n)
{
	struct uinput_setup us = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 0x1d6b, .product = 0x4242 },
	};
	int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, UI_SET_EVBIT, evtype) < 0)
		goto err_close;
	for (int i = 0; i < n; i++)
		if (ioctl(fd, setbit, codes[i]) < 0)
			goto err_close;
	snprintf(us.name, sizeof(us.name), "%s", name);
	if (ioctl(fd, UI_DEV_SETUP, &us) < 0 || ioctl(fd, UI_DEV_CREATE) < 0)
		goto err_close;
	return fd;

err_close:
	err = -errno;
	close(fd);
	return err;
}

void uinput_emit(int fd, int type, int code, int value)
{
	struct input_event ev[2] = {
		{ .type = type, .code = code, .value = value },
		{ .type = EV_SYN, .code = SYN_REPORT, .value = 0 },
	};

	if (write(fd, ev, sizeof(ev)) != sizeof(ev))
		tap_diag("uinput write: %s", strerror(errno));
}

void press(int fd, int key)
{
	uinput_emit(fd, EV_KEY, key, 1);
	uinput_emit(fd, EV_KEY, key, 0);
}
