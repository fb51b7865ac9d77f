// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /dev/rfkill: open, read events with a timeout, write ops, wait for events.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "guest.h"

int rfk_open(void)
{
	return open("/dev/rfkill", O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

/* An fd that asked for indicator (op-5) events; -1 if the ioctl failed. */
int rfk_open_ind(void)
{
	int fd = rfk_open();

	if (fd >= 0 && ioctl(fd, RFKILL_IOCTL_AIRPLANE_MODE_EVENTS) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One event into buf; bytes read, 0 on timeout, -errno on error. */
ssize_t ev_read(int fd, void *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		int r = poll(&p, 1, ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
		n = read(fd, buf, len);
		if (n < 0 && errno == EAGAIN)
			continue;
		return n < 0 ? -errno : n;
	}
}

int drain(int fd)
{
	struct rfkill_event_ext ev;
	int n = 0;

	while (read(fd, &ev, sizeof(ev)) > 0)
		n++;
	return n;
}

/* Writes one V1 event: 0 if the kernel took it all, else -errno. */
int rfk_op(int fd, int op, int type, unsigned int idx, int soft)
{
	struct rfkill_event ev = {
		.idx = idx, .type = type, .op = op, .soft = soft,
	};
	ssize_t n = write(fd, &ev, sizeof(ev));

	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(ev) ? 0 : -EPROTO;
}

int block_all(int fd, int soft)
{
	return rfk_op(fd, RFKILL_OP_CHANGE_ALL, RFKILL_TYPE_ALL, 0, soft);
}

int block_one(int fd, const struct radio *r, int soft)
{
	return rfk_op(fd, RFKILL_OP_CHANGE, r->type, r->idx, soft);
}

/* Waits for a CHANGE event of one radio with the given soft state. */
bool wait_change(int fd, const struct radio *r, int soft, int ms)
{
	long end = now_ms() + ms;
	struct rfkill_event_ext ev;

	for (long left = ms; left > 0; left = end - now_ms()) {
		if (ev_read(fd, &ev, sizeof(ev), left) <= 0)
			return false;
		if (ev.op == RFKILL_OP_CHANGE && ev.idx == r->idx && ev.soft == soft)
			return true;
	}
	return false;
}

/* Waits for an indicator event (op 5) with soft == want; skips others. */
bool wait_ind(int fd, int want, int ms)
{
	long end = now_ms() + ms;
	struct rfkill_event_ext ev;

	for (long left = ms; left > 0; left = end - now_ms()) {
		if (ev_read(fd, &ev, sizeof(ev), left) <= 0)
			return false;
		if (ev.op == OP_INDICATOR && ev.soft == want)
			return true;
	}
	return false;
}

/* Counts indicator events for ms milliseconds; *last gets the last state. */
int count_ind(int fd, int ms, int *last)
{
	long end = now_ms() + ms;
	struct rfkill_event_ext ev;
	int n = 0;

	for (long left = ms; left > 0; left = end - now_ms()) {
		if (ev_read(fd, &ev, sizeof(ev), left) <= 0)
			break;
		if (ev.op == OP_INDICATOR) {
			n++;
			if (last)
				*last = ev.soft;
		}
	}
	return n;
}

/*
 * Reads events until an op-5 with soft == want.  Returns how many CHANGE
 * events of radio idx came before it, or -1 if it never came.  Used for
 * the rule "the device's CHANGE before the op-5 it causes".
 */
int changes_before_ind(int fd, unsigned int idx, int want, int ms)
{
	long end = now_ms() + ms;
	struct rfkill_event_ext ev;
	int changes = 0;

	for (long left = ms; left > 0; left = end - now_ms()) {
		if (ev_read(fd, &ev, sizeof(ev), left) <= 0)
			return -1;
		if (ev.op == OP_INDICATOR && ev.soft == want)
			return changes;
		if (ev.op == RFKILL_OP_CHANGE && ev.idx == idx)
			changes++;
	}
	return -1;
}
