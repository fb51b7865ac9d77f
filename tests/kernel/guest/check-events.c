// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event order and queueing: a device's CHANGE comes before the op-5 event
 * it causes, a radio plugged in while everything is blocked does not make
 * the indicator blink, and a file that is never read keeps at most as
 * many events as the in-tree core keeps.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest.h"

/*
 * Upstream "net: rfkill: prevent unlimited numbers of rfkill events from
 * being created" (6.1.169+, 6.12.81+, 7.x) refuses an event once 1000 are
 * waiting, counted before the new one: a queue holds 1001 at most.
 */
#define INTREE_QUEUE_MAX	1001
#define QUEUE_WRITES		3000

void test_queue_limit(void)
{
	int idle = rfk_open(), w = rfk_open(), n, r = 0;
	struct rfkill_event_ext ev;

	for (int i = 0; i < QUEUE_WRITES && r == 0; i++)
		r = block_one(w, &radios[0], (i & 1) ? 0 : 1);
	tap_ok(r == 0, "%d CHANGE writes for phy0 accepted (%s)", QUEUE_WRITES, err_name(r));
	block_one(w, &radios[0], 0);
	n = 0;
	while (read(idle, &ev, sizeof(ev)) > 0)
		n++;
	tap_ok(n == INTREE_QUEUE_MAX,
	       "a file nobody reads keeps %d events after %d changes, like in-tree (got %d)",
	       INTREE_QUEUE_MAX, QUEUE_WRITES, n);
	/* once read, it queues again */
	block_one(w, &radios[0], 1);
	tap_ok(wait_change(idle, &radios[0], 1, WAIT_MS), "after reading it gets new events again");
	block_one(w, &radios[0], 0);
	close(idle);
	close(w);
	tap_ok(wait_soft("000", WAIT_MS), "radios unblocked after the queue check");
}

/* Soft paths: CHANGE_ALL, a single CHANGE, and sysfs. */
void test_order_soft(void)
{
	int w = rfk_open(), l = rfk_open_ind(), c;
	const struct radio *last = &radios[NRADIOS - 1];
	char path[320];

	drain(l);
	block_all(w, 1);
	c = changes_before_ind(l, last->idx, 1, WAIT_MS);
	tap_ok(c == 1, "CHANGE_ALL block: %s's CHANGE comes before op-5 soft=1 (%d)",
	       last->name, c);
	block_one(w, last, 0);
	c = changes_before_ind(l, last->idx, 0, WAIT_MS);
	tap_ok(c == 1, "CHANGE unblock %s: its CHANGE comes before op-5 soft=0 (%d)",
	       last->name, c);
	snprintf(path, sizeof(path), "%s/soft", last->dir);
	write_text(path, "1");
	c = changes_before_ind(l, last->idx, 1, WAIT_MS);
	tap_ok(c == 1, "sysfs soft=1 on %s: its CHANGE comes before op-5 soft=1 (%d)",
	       last->name, c);
	block_all(w, 0);
	tap_ok(wait_ind(l, 0, WAIT_MS), "unblock all: op-5 soft=0");
	close(w);
	close(l);
}

/*
 * A non-persistent radio (hci_vhci's) registered while every radio is
 * blocked comes up unblocked and is only then synced to the global
 * state; meanwhile it counts as blocked, so no op-5 goes out at all.
 */
void test_hotplug_blocked(void)
{
	static const unsigned char create[] = { 0xff, 0x00 };
	int w = rfk_open(), l = rfk_open_ind(), n, last = -1, vhci;
	struct rfkill_event_ext ev;
	bool added = false, synced = false;
	unsigned int idx = 0;
	long end;

	block_all(w, 1);
	wait_ind(l, 1, WAIT_MS);
	drain(l);
	vhci = open("/dev/vhci", O_RDWR | O_CLOEXEC);
	if (!tap_ok(vhci >= 0 && write(vhci, create, 2) == 2,
		    "a second vhci controller (%s)", vhci < 0 ? strerror(errno) : "ok")) {
		close(w);
		close(l);
		return;
	}
	n = 0;
	end = now_ms() + 10000;
	while (now_ms() < end && !(added && synced)) {
		if (ev_read(l, &ev, sizeof(ev), end - now_ms()) <= 0)
			break;
		if (ev.op == OP_INDICATOR) {
			n++;
			last = ev.soft;
		} else if (ev.op == RFKILL_OP_ADD && ev.type == RFKILL_TYPE_BLUETOOTH &&
			   !radio_by_idx(ev.idx)) {
			added = true;
			idx = ev.idx;
			synced = ev.soft;	/* in case it was synced already */
		} else if (ev.op == RFKILL_OP_CHANGE && added && ev.idx == idx && ev.soft) {
			synced = true;
		}
	}
	tap_ok(added && synced, "the new Bluetooth radio is added and synced to soft=1");
	n += count_ind(l, QUIET_MS, &last);
	tap_ok(n == 0, "no op-5 event while it comes up: the indicator does not blink (%d, last %d)",
	       n, last);
	tap_ok(!led_dir[0] || wait_led(true, 10), "the LED stayed on");
	close(vhci);	/* hci_vhci removes the controller */
	end = now_ms() + WAIT_MS;
	added = false;
	while (!added && ev_read(l, &ev, sizeof(ev), end - now_ms()) > 0)
		added = ev.op == RFKILL_OP_DEL && ev.idx == idx;
	n = count_ind(l, QUIET_MS, &last);
	tap_ok(added && n == 0, "its removal leaves the indicator on (DEL %d, %d op-5)", added, n);
	block_all(w, 0);
	tap_ok(wait_ind(l, 0, WAIT_MS), "unblock all: op-5 soft=0");
	close(w);
	close(l);
}
