// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Storm phase: one process blocks the radios one CHANGE at a time, then
 * unblocks them one at a time, over and over for a fixed time, as fast as
 * the kernel takes the writes; every radio's last block (and first
 * unblock) flips the airplane-mode indicator.  A reader in another
 * process that asked for op-5 events (RFKILL_IOCTL_AIRPLANE_MODE_EVENTS)
 * counts what it gets, and once the writer stops, reads until the queue
 * stays empty for QUIET_MS.
 *
 * The writer knows how often "every radio blocked" flipped; the reader's
 * op-5 count can be lower where its queue overflowed (the kernel keeps at
 * most 1001 events per file, like the in-tree core) or where the
 * indicator was recomputed once for several flips.  What must hold is
 * that the reader's last op-5 state is the state the radios end in.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-guest.h"

#define QUIET_MS	1000
#define READY_WAIT_MS	10000

struct reader_result {
	long events, op5, op5_repeats, changes;
	int first_op5, last_op5;	/* -1: none */
	long long drain_ns;		/* stop request to the last event */
	int error;			/* errno of a failed open/ioctl/read */
};

/* Reads one event: 1 with its op and soft, 0 when none is queued, -errno. */
static int read_event(int fd, int *op, int *soft)
{
	unsigned char buf[64];	/* any future, longer event too */
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n < (ssize_t)RFKILL_EVENT_SIZE_V1)
		return -EPROTO;
	*op = buf[5];
	*soft = buf[6];
	return 1;
}

static void count(struct reader_result *r, int op, int soft)
{
	r->events++;
	if (op == RFKILL_OP_CHANGE)
		r->changes++;
	if (op != RFKILL_OP_AIRPLANE_MODE_INDICATOR_CHANGE)
		return;
	r->op5++;
	r->op5_repeats += soft == r->last_op5;
	r->last_op5 = soft;
}

static void reader(int ready_w, int stop_r, int result_w)
{
	struct reader_result r = { .first_op5 = -1, .last_op5 = -1 };
	struct pollfd p[2];
	long long stop_at = 0, last_at = 0;
	int fd = open("/dev/rfkill", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int op, soft, e;

	if (fd < 0 || ioctl(fd, RFKILL_IOCTL_AIRPLANE_MODE_EVENTS) < 0) {
		r.error = errno;
		goto out;
	}
	/* the ADDs of every radio, then the op-5 the ioctl queued */
	while ((e = read_event(fd, &op, &soft)) == 1)
		if (op == RFKILL_OP_AIRPLANE_MODE_INDICATOR_CHANGE)
			r.first_op5 = soft;
	if (e < 0 || r.first_op5 < 0) {
		r.error = e < 0 ? -e : EPROTO;
		goto out;
	}
	r.last_op5 = r.first_op5;
	if (write(ready_w, "r", 1) != 1)
		goto out;
	p[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = stop_r, .events = POLLIN };
	for (;;) {
		int n = poll(p, 2, stop_at ? QUIET_MS : -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* quiet for QUIET_MS after the stop */
		if (p[1].revents) {
			char c;

			if (read(stop_r, &c, 1) <= 0 || !stop_at)
				stop_at = now_ns();
			p[1].fd = -1;
		}
		while ((e = read_event(fd, &op, &soft)) == 1) {
			count(&r, op, soft);
			last_at = now_ns();
		}
		if (e < 0) {
			r.error = -e;
			break;
		}
	}
	r.drain_ns = last_at > stop_at ? last_at - stop_at : 0;
out:
	if (write(result_w, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

static bool wait_byte(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&p, 1, ms) == 1 && read(fd, &c, 1) == 1;
}

void storm_phase(int seconds)
{
	struct reader_result r = { 0 };
	int ready[2], stop[2], result[2], status = 0;
	int fd = open("/dev/rfkill", O_RDWR | O_CLOEXEC);
	long writes = 0, flips = 0, errors = 0;
	long long t0, t1, end;
	int blocked = 0, all = 0, final, soft = 1;
	pid_t pid;

	if (!tap_ok(fd >= 0 && pipe(ready) == 0 && pipe(stop) == 0 && pipe(result) == 0,
		    "open /dev/rfkill and pipes for the storm"))
		return;
	/* a known start: every radio unblocked, indicator off */
	rfk_op(fd, RFKILL_OP_CHANGE_ALL, 0, 0);
	sleep_ms(500);
	pid = fork();
	if (pid == 0)
		reader(ready[1], stop[0], result[1]);
	if (!tap_ok(pid > 0 && wait_byte(ready[0], READY_WAIT_MS),
		    "the reader asked for op-5 events and read its initial ones"))
		goto out;

	mark("storm");
	t0 = now_ns();
	end = t0 + seconds * 1000000000LL;
	while (now_ns() < end) {
		for (int i = 0; i < n_radios; i++) {
			if (rfk_op(fd, RFKILL_OP_CHANGE, radio_idx[i], soft)) {
				errors++;
				continue;
			}
			writes++;
			blocked += soft ? 1 : -1;
			if ((blocked == n_radios) != all) {
				all = !all;
				flips++;
			}
		}
		soft = !soft;
	}
	t1 = now_ns();
	mark("storm-end");
	if (write(stop[1], "s", 1) != 1 || read(result[0], &r, sizeof(r)) != sizeof(r))
		r.error = EPIPE;
	waitpid(pid, &status, 0);

	final = blocked_count();
	tap_ok(errors == 0 && writes > 0, "storm: %ld CHANGE writes in %.1f s (%ld failed)",
	       writes, (t1 - t0) / 1e9, errors);
	tap_ok(r.error == 0, "storm: the reader read every event without error (%s)",
	       strerror(r.error));
	tap_ok(final == blocked, "storm: the radios end as the writer left them "
	       "(%d of %d blocked, sysfs says %d)", blocked, n_radios, final);
	tap_ok(r.last_op5 == all,
	       "storm: the reader's last op-5 state (%d) is the final state (all blocked: %d)",
	       r.last_op5, all);
	printf("# bench-kernel-storm {\"radios\": %d, \"seconds\": %.3f, \"writes\": %ld, "
	       "\"flips\": %ld, \"events\": %ld, \"changes\": %ld, \"op5\": %ld, "
	       "\"op5_repeats\": %ld, \"first_op5\": %d, \"last_op5\": %d, "
	       "\"final_blocked\": %d, \"final_all_blocked\": %d, \"drain_ms\": %.1f}\n",
	       n_radios, (t1 - t0) / 1e9, writes, flips, r.events, r.changes, r.op5,
	       r.op5_repeats, r.first_op5, r.last_op5, final, all, r.drain_ns / 1e6);
	/* the LED work catches up before the host reads the final LED byte */
	sleep_ms(1000);
out:
	close(fd);
}
