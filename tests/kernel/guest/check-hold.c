// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The indicator cannot be held hostage (rfkill-airplane.h): who holds it
 * is in sysfs for anyone, CAP_NET_ADMIN takes it back, the owner's
 * CHANGEs are limited per second, and a reader's queue never holds more
 * than RFKILL_AIRPLANE_MODE_MAX_QUEUED op-5 events.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

#define HOLDER_PATH	"/sys/class/misc/rfkill/airplane_mode_holder"

/* The holder line, "" when free; false if the file cannot be read. */
static bool read_holder(char *buf, size_t len)
{
	int r = read_text(HOLDER_PATH, buf, len);

	if (r)
		tap_diag("%s: %s", HOLDER_PATH, strerror(-r));
	return r == 0;
}

static int rfk_break(int fd)
{
	return ioctl(fd, RFKILL_IOCTL_AIRPLANE_MODE_BREAK) < 0 ? -errno : 0;
}

/*
 * Runs fn in a child and returns what it exits with: an errno, a count,
 * or 255 when the child could not even start.
 */
static int in_child(int (*fn)(int), int fd)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fn(fd));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 255;
	return WEXITSTATUS(status);
}

/* As nobody (no capability left): the errno of BREAK on an open fd. */
static int break_as_nobody(int fd)
{
	if (setgid(65534) || setuid(65534))
		return 255;
	return -rfk_break(fd);
}

/* In a new pid namespace: 1 if the holder's pid reads as 0 there. */
static int holder_pid_hidden(int unused)
{
	char buf[64];
	int status;
	pid_t pid;

	(void)unused;
	if (unshare(CLONE_NEWPID))
		return 255;
	pid = fork();	/* the namespace's first process */
	if (pid == 0)
		_exit(read_holder(buf, sizeof(buf)) && !strncmp(buf, "0 ", 2));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 255;
	return WEXITSTATUS(status);
}

static void test_holder_and_break(void)
{
	int a = rfk_open(), b = rfk_open(), l = rfk_open_ind(), r;
	char got[96], want[96], comm[32] = "";

	drain(l);
	read_text("/proc/self/comm", comm, sizeof(comm));
	tap_ok(read_holder(got, sizeof(got)) && got[0] == '\0',
	       "nobody holds the indicator: %s is empty (got '%s')", HOLDER_PATH, got);
	r = rfk_op(a, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	snprintf(want, sizeof(want), "%d %s", (int)getpid(), comm);
	tap_ok(r == 0 && read_holder(got, sizeof(got)) && !strcmp(got, want),
	       "after ACQUIRE the file names the holder: '%s' (got '%s')", want, got);
	tap_ok(in_child(holder_pid_hidden, -1) == 1,
	       "a reader in another pid namespace sees pid 0 for the holder");

	/* the owner lights it with radios on: the default rule would not */
	block_all(b, 0);
	drain(l);
	r = rfk_op(a, OP_INDICATOR, RFKILL_TYPE_ALL, 0, 1);
	tap_ok(r == 0 && wait_ind(l, 1, WAIT_MS),
	       "the holder lights the indicator with every radio on");

	r = in_child(break_as_nobody, b);
	tap_ok(r == EPERM, "BREAK without CAP_NET_ADMIN -> EPERM (got %s)", err_name(-r));
	tap_ok(read_holder(got, sizeof(got)) && !strcmp(got, want),
	       "a refused BREAK leaves the holder (got '%s')", got);

	r = rfk_break(b);
	tap_ok(r == 0, "BREAK with CAP_NET_ADMIN -> 0 (got %s)", err_name(r));
	tap_ok(wait_ind(l, 0, WAIT_MS) && (!led_dir[0] || wait_led(false, WAIT_MS)),
	       "after BREAK the default rule applies at once (radios on -> off)");
	tap_ok(read_holder(got, sizeof(got)) && got[0] == '\0',
	       "after BREAK nobody holds it (got '%s')", got);
	r = rfk_op(a, OP_INDICATOR, RFKILL_TYPE_ALL, 0, 1);
	tap_ok(r == -EACCES, "the former holder's CHANGE -> EACCES (got %s)", err_name(r));
	r = rfk_op(a, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == -EPERM, "the former holder's ACQUIRE on that fd -> EPERM (got %s)",
	       err_name(r));
	r = rfk_break(b);
	tap_ok(r == -ENOENT, "BREAK with nobody holding -> ENOENT (got %s)", err_name(r));

	close(a);
	a = rfk_open();
	r = rfk_op(a, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == 0, "a new open may ACQUIRE again (got %s)", err_name(r));
	close(a);
	tap_ok(read_holder(got, sizeof(got)) && got[0] == '\0',
	       "closing the holder empties %s (got '%s')", HOLDER_PATH, got);
	close(b);
	close(l);
}

/* Reads fd's queue: op-5 events counted, the last event kept. */
static int read_queue(int fd, struct rfkill_event_ext *last, int *ops5)
{
	struct rfkill_event_ext ev;
	int n = 0;

	*ops5 = 0;
	while (read(fd, &ev, sizeof(ev)) > 0) {
		n++;
		*ops5 += ev.op == OP_INDICATOR;
		*last = ev;
	}
	return n;
}

static void test_flood(void)
{
	int o = rfk_open(), q = rfk_open_ind(), w = rfk_open();
	int ok = 0, busy = 0, other = 0, ops5, state = 0, r;
	__u32 size = sizeof(struct rfkill_event_ext);
	struct rfkill_event_ext last = { 0 };
	const int writes = 200;

	ioctl(q, RFKILL_IOCTL_MAX_SIZE, &size);
	block_all(w, 0);
	sleep_ms(200);
	drain(q);
	rfk_op(o, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	drain(q);
	for (int i = 0; i < writes; i++) {
		r = rfk_op(o, OP_INDICATOR, RFKILL_TYPE_ALL, 0, !state);
		if (r == 0) {
			ok++;
			state = !state;
		} else if (r == -EBUSY) {
			busy++;
		} else {
			other++;
		}
	}
	tap_diag("%d alternating CHANGEs: %d taken, %d EBUSY, %d other",
		 writes, ok, busy, other);
	tap_ok(other == 0 && busy > 0 &&
	       ok <= 2 * RFKILL_AIRPLANE_MODE_CHANGES_PER_SEC,
	       "an owner's flood is limited: %d of %d taken (limit %d per second), the rest EBUSY",
	       ok, writes, RFKILL_AIRPLANE_MODE_CHANGES_PER_SEC);
	r = rfk_op(o, OP_INDICATOR, RFKILL_TYPE_ALL, 0, state);
	tap_ok(r == 0, "over the limit, a CHANGE to the state shown still -> 0 (got %s)",
	       err_name(r));

	/* a radio's CHANGE, then (once the limit lets it) one more flip */
	block_one(w, &radios[0], 1);
	sleep_ms(1100);
	r = rfk_op(o, OP_INDICATOR, RFKILL_TYPE_ALL, 0, !state);
	state = !state;
	read_queue(q, &last, &ops5);
	tap_ok(ops5 <= RFKILL_AIRPLANE_MODE_MAX_QUEUED && ops5 > 0,
	       "the reader holds at most %d op-5 events after %d flips (%d)",
	       RFKILL_AIRPLANE_MODE_MAX_QUEUED, ok + 1, ops5);
	tap_ok(r == 0 && last.op == OP_INDICATOR && last.soft == state,
	       "its last event is the state the owner set last (op %d soft %d, want soft %d)",
	       last.op, last.soft, state);
	block_one(w, &radios[0], 0);
	tap_ok(wait_change(q, &radios[0], 0, WAIT_MS),
	       "after the flood the reader still gets its radio events");
	close(o);
	close(q);
	close(w);
}

void test_hold(void)
{
	test_holder_and_break();
	test_flood();
}
