// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Indicator ownership (ops 4 and 5): EACCES rules, release on close and
 * on SIGKILL, the ACQUIRE race, readers that only know V1 events, and
 * readers that never asked for op-5 events and so must never get one.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

void test_ownership(void)
{
	/* a gets op-5 events by ACQUIRE; b's ACQUIRE fails, so b asks */
	int a = rfk_open(), b = rfk_open_ind(), c = rfk_open_ind();
	int r, n, last = -1;

	drain(a);
	drain(b);
	drain(c);
	r = rfk_op(c, OP_INDICATOR, RFKILL_TYPE_ALL, 0, 1);
	tap_ok(r == -EACCES, "indicator CHANGE without owner -> EACCES (got %s)", err_name(r));
	r = rfk_op(a, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == 0, "first fd ACQUIRE -> 0 (got %s)", err_name(r));
	r = rfk_op(b, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == -EACCES, "second fd ACQUIRE -> EACCES (got %s)", err_name(r));
	r = rfk_op(b, OP_INDICATOR, RFKILL_TYPE_ALL, 0, 1);
	tap_ok(r == -EACCES, "non-owner indicator CHANGE -> EACCES (got %s)", err_name(r));
	r = rfk_op(a, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == 0, "owner ACQUIRE again -> 0 (got %s)", err_name(r));

	r = rfk_op(a, OP_INDICATOR, RFKILL_TYPE_ALL, 0, 1);
	tap_ok(r == 0, "owner indicator CHANGE soft=1 -> 0 (got %s)", err_name(r));
	tap_ok(wait_ind(a, 1, WAIT_MS) && wait_ind(b, 1, WAIT_MS) &&
	       wait_ind(c, 1, WAIT_MS),
	       "owner CHANGE reaches every open fd, the owner's too");
	tap_ok(wait_led(true, WAIT_MS), "owner CHANGE soft=1 lights the LED");

	/* while owned, radio changes must not move the indicator */
	block_all(c, 1);
	n = count_ind(b, QUIET_MS, &last);
	tap_ok(n == 0, "while owned, block all sends no indicator event (%d)", n);
	r = rfk_op(a, OP_INDICATOR, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == 0 && wait_ind(b, 0, WAIT_MS) && wait_led(false, WAIT_MS),
	       "owner CHANGE soft=0 turns it off although every radio is blocked");
	block_one(c, &radios[0], 0);
	block_one(c, &radios[0], 1);
	n = count_ind(b, QUIET_MS, &last);
	tap_ok(n == 0 && wait_led(false, 10),
	       "while owned, unblock+block phy0 leaves the indicator alone (%d events)", n);

	close(a);
	tap_ok(wait_ind(b, 1, WAIT_MS) && wait_led(true, WAIT_MS),
	       "closing the owner re-applies the default rule at once (all blocked -> on)");
	r = rfk_op(b, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == 0, "after release another fd can ACQUIRE (got %s)", err_name(r));
	close(b);
	r = rfk_op(c, OP_INDICATOR, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == -EACCES, "after that owner closed, CHANGE from a non-owner -> EACCES (got %s)",
	       err_name(r));
	block_all(c, 0);
	tap_ok(wait_ind(c, 0, WAIT_MS), "unblock all: default rule turns it off");
	close(c);
}

void test_sigkill_release(void)
{
	int sync[2], l = rfk_open_ind(), b = rfk_open(), r;
	char code = 0;
	pid_t pid;

	drain(l);
	if (pipe(sync) < 0) {
		tap_ok(false, "pipe for the SIGKILL test");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd = rfk_open();
		char c = 'X';

		if (rfk_op(fd, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0) == 0 &&
		    rfk_op(fd, OP_INDICATOR, RFKILL_TYPE_ALL, 0, 1) == 0)
			c = 'O';
		if (write(sync[1], &c, 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(sync[1]);
	r = read(sync[0], &code, 1);
	close(sync[0]);
	tap_ok(r == 1 && code == 'O', "child process ACQUIREs and sets the indicator on");
	tap_ok(wait_ind(l, 1, WAIT_MS), "parent sees the child's op-5 soft=1");
	r = rfk_op(b, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == -EACCES, "parent ACQUIRE while the child owns it -> EACCES (got %s)",
	       err_name(r));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	tap_ok(wait_ind(l, 0, WAIT_MS) && (!led_dir[0] || wait_led(false, WAIT_MS)),
	       "SIGKILL of the owner releases it: default rule (radios on -> off) at once");
	r = rfk_op(b, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == 0, "after the owner died the parent can ACQUIRE (got %s)", err_name(r));
	close(b);
	close(l);
}

void test_race(int n)
{
	int go[2], res[2], hold[2];
	int owners = 0, denied = 0, other = 0, got = 0, fd;
	char *start = n > 1 ? calloc(n, 1) : NULL;
	pid_t *pids = n > 1 ? calloc(n, sizeof(*pids)) : NULL;

	if (!start || !pids || pipe(go) || pipe(res) || pipe(hold)) {
		tap_ok(false, "set up the ACQUIRE race");
		return;
	}
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			char c;
			int r;

			close(go[1]);
			close(res[0]);
			close(hold[1]);
			fd = rfk_open();
			/* everybody waits at the start line, then races */
			if (read(go[0], &c, 1) != 1)
				_exit(2);
			r = rfk_op(fd, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
			c = r == 0 ? 'O' : r == -EACCES ? 'A' : 'X';
			if (write(res[1], &c, 1) != 1)
				_exit(2);
			/* hold the fd until all have tried */
			while (read(hold[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(go[0]);
	close(res[1]);
	close(hold[0]);
	sleep_ms(300);
	if (write(go[1], start, (size_t)n) != n)
		tap_diag("could not release all racers");
	while (got < n) {
		char c;

		if (ev_read(res[0], &c, 1, 20000) != 1)
			break;
		got++;
		if (c == 'O')
			owners++;
		else if (c == 'A')
			denied++;
		else
			other++;
	}
	tap_ok(owners == 1 && denied == n - 1,
	       "%d processes race to ACQUIRE: exactly one owner (owners=%d EACCES=%d other=%d)",
	       n, owners, denied, other);
	close(hold[1]);
	close(go[1]);
	close(res[0]);
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
	fd = rfk_open();
	tap_ok(rfk_op(fd, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0) == 0,
	       "after all racers exited the indicator is free again");
	close(fd);
	free(start);
	free(pids);
}

/* A reader that only knows V1 (8-byte) events must keep its framing. */
void test_v1_reader(void)
{
	int v = rfk_open_ind(), e = rfk_open_ind(), w = rfk_open();
	struct rfkill_event_ext ev;
	__u32 size = sizeof(struct rfkill_event_ext);
	int bad_size = 0, ind = 0, ind_ok = 0, changes = 0, unknown = 0;
	ssize_t n;

	ioctl(e, RFKILL_IOCTL_MAX_SIZE, &size);
	drain(v);
	drain(e);
	block_all(w, 1);
	block_one(w, &radios[0], 0);
	block_all(w, 0);
	while ((n = ev_read(v, &ev, RFKILL_EVENT_SIZE_V1, QUIET_MS)) > 0) {
		if (n != RFKILL_EVENT_SIZE_V1)
			bad_size++;
		if (ev.op == OP_INDICATOR) {
			ind++;
			if (ev.idx == 0 && ev.type == RFKILL_TYPE_ALL && ev.hard == 0)
				ind_ok++;
		} else if (ev.op == RFKILL_OP_CHANGE && radio_by_idx(ev.idx)) {
			changes++;
		} else {
			unknown++;
		}
	}
	/* 3 blocked + phy0 unblocked + 2 unblocked */
	tap_ok(bad_size == 0 && unknown == 0 && changes == 2 * NRADIOS,
	       "V1 reader: every read is 8 bytes and all %d CHANGE events arrive intact (%d, bad sizes %d, unknown %d)",
	       2 * NRADIOS, changes, bad_size, unknown);
	tap_ok(ind >= 2 && ind == ind_ok,
	       "V1 reader: op-5 events carry idx 0, type ALL (%d of %d)", ind_ok, ind);
	n = 0;
	ind = 0;
	while ((n = ev_read(e, &ev, sizeof(ev), QUIET_MS)) > 0)
		if (ev.op == OP_INDICATOR && n == (ssize_t)sizeof(ev) &&
		    ev.hard_block_reasons == 0)
			ind++;
	tap_ok(ind >= 2, "extended reader gets 9-byte op-5 events (%d)", ind);
	close(v);
	close(e);
	close(w);
}

/* Appends output of fd to buf until stop appears in it or ms pass. */
static void slurp(int fd, char *buf, size_t *len, size_t cap, int ms,
		  const char *stop)
{
	long end = now_ms() + ms;

	while (*len < cap - 1 && now_ms() < end) {
		ssize_t n = ev_read(fd, buf + *len, cap - 1 - *len, 100);

		if (n < 0)
			break;
		*len += n;
		buf[*len] = '\0';
		if (stop && strstr(buf, stop))
			break;
	}
}

/*
 * util-linux `rfkill event` is what users run: it never asks for op-5
 * events, so it must print none, and keep reporting device events.
 */
void test_util_linux(void)
{
	static char buf[16384];
	char add_last[64], want_after[64];
	const char *ind;
	size_t len = 0;
	int out[2], w;
	bool alive;
	pid_t pid;

	if (!rfkill_bin || access(rfkill_bin, X_OK) < 0) {
		tap_ok(false, "util-linux rfkill binary available in the guest (%s)",
		       rfkill_bin ? rfkill_bin : "no --rfkill-bin given");
		return;
	}
	if (pipe(out) < 0)
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(out[1], 2);
		execl(rfkill_bin, "rfkill", "event", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	/* its last ADD line tells us it is reading */
	snprintf(add_last, sizeof(add_last), "idx %u type %d op 0",
		 radios[NRADIOS - 1].idx, radios[NRADIOS - 1].type);
	slurp(out[0], buf, &len, sizeof(buf), 10000, add_last);
	tap_ok(strstr(buf, add_last), "rfkill event printed the initial ADD events");

	w = rfk_open();
	block_all(w, 1);
	block_all(w, 0);
	block_one(w, &radios[0], 1);
	block_one(w, &radios[0], 0);
	close(w);
	snprintf(want_after, sizeof(want_after), "idx %u type %d op 2 soft 0",
		 radios[0].idx, radios[0].type);
	slurp(out[0], buf, &len, sizeof(buf), WAIT_MS, NULL);
	alive = waitpid(pid, NULL, WNOHANG) == 0;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(out[0]);

	ind = strstr(buf, "op 5");
	tap_ok(!ind && !strstr(buf, "op 4"), "rfkill event gets no op-4/op-5 event: it never asked");
	tap_ok(alive && strstr(buf, want_after) && !strstr(buf, "Wrong size") &&
	       !strstr(buf, "failed"),
	       "rfkill event keeps reporting device events across indicator changes");
	if (ind || !alive) {
		for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
			tap_diag("rfkill event: %s", line);
	}
}

/* Reads every queued event of fd (V1 size) into evs; returns the count. */
static int collect(int fd, struct rfkill_event *evs, int max)
{
	int n = 0;

	while (n < max && ev_read(fd, &evs[n], sizeof(evs[n]), QUIET_MS) ==
			  (ssize_t)sizeof(evs[n]))
		n++;
	return n;
}

/*
 * A reader that never asked for op-5 events: readers written for the
 * in-tree module (gnome-settings-daemon's rfkill plugin aborts on an op
 * above CHANGE_ALL) must see exactly the in-tree stream, whatever the
 * indicator does: default-rule changes, ACQUIRE (its own, refused), the
 * owner's CHANGEs and the release on close.  Its stream must equal an
 * asking reader's with the op-5 events taken out, event for event.
 */
void test_plain_reader(void)
{
	static struct rfkill_event plain[256], asked[256];
	int p = rfk_open(), ind = rfk_open_ind(), w = rfk_open(), o = rfk_open();
	int np, na, k = 0, adds = 0, bad_op = 0, ind_events = 0, same = 1, r;

	if (!tap_ok(p >= 0 && ind >= 0 && w >= 0 && o >= 0,
		    "open four fds, one asking for op-5 events"))
		return;
	/* the indicator moves by the default rule ... */
	block_all(w, 1);
	block_all(w, 0);
	/* ... and by an owner; p's own ACQUIRE is refused meanwhile */
	r = rfk_op(o, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == 0, "owner ACQUIRE -> 0 (got %s)", err_name(r));
	r = rfk_op(p, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == -EACCES, "plain reader's ACQUIRE while owned -> EACCES (got %s)",
	       err_name(r));
	rfk_op(o, OP_INDICATOR, RFKILL_TYPE_ALL, 0, 1);
	block_one(w, &radios[0], 1);
	rfk_op(o, OP_INDICATOR, RFKILL_TYPE_ALL, 0, 0);
	block_one(w, &radios[0], 0);
	rfk_op(o, OP_INDICATOR, RFKILL_TYPE_ALL, 0, 1);
	close(o);	/* back to the default rule: off */

	np = collect(p, plain, 256);
	na = collect(ind, asked, 256);
	for (int i = 0; i < np; i++) {
		adds += plain[i].op == RFKILL_OP_ADD;
		bad_op += plain[i].op > RFKILL_OP_CHANGE;
	}
	for (int i = 0; i < na; i++) {
		if (asked[i].op == OP_INDICATOR) {
			ind_events++;
			continue;
		}
		if (k >= np || memcmp(&asked[i], &plain[k], sizeof(plain[k])))
			same = 0;
		k++;
	}
	tap_ok(ind_events >= 6,
	       "the asking reader saw the indicator move (%d op-5 events)", ind_events);
	tap_ok(bad_op == 0,
	       "the plain reader got only ADD/CHANGE, no op-5 (%d of %d events had another op)",
	       bad_op, np);
	tap_ok(adds == n_sysfs_devices && np > adds,
	       "the plain reader got one ADD per device, then the CHANGEs (%d ADDs, %d events)",
	       adds, np);
	tap_ok(same && k == np,
	       "the plain reader's stream is the asking reader's without op 5, event for event (%d vs %d)",
	       np, k);
	close(p);
	close(ind);
	close(w);
}
