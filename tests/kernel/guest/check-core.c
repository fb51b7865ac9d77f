// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Drop-in checks of the classic rfkill core: device node, sysfs,
 * events and their sizes, CHANGE/CHANGE_ALL, rejected writes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "guest.h"

void test_devnode(void)
{
	struct stat st;
	int r = stat("/dev/rfkill", &st);

	tap_ok(r == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 10 &&
	       minor(st.st_rdev) == 242,
	       "/dev/rfkill is char device 10:242");
}

static int access_claim(const struct radio *r)
{
	char path[340];

	snprintf(path, sizeof(path), "%s/claim", r->dir);
	return access(path, F_OK) == 0 ? 0 : -errno;
}

/*
 * The uevent environment as the in-tree core builds it (net/rfkill/core.c,
 * rfkill_dev_uevent()): RFKILL_TYPE is the type *name*, the one the "type"
 * attribute shows; NetworkManager and udev rules match on it.
 */
static void check_uevent(const struct radio *r)
{
	char want[4][64];
	const char *env = attr(r, "uevent");
	bool ok = true;

	snprintf(want[0], sizeof(want[0]), "RFKILL_NAME=%s\n", r->name);
	snprintf(want[1], sizeof(want[1]), "RFKILL_TYPE=%s\n", r->type_name);
	snprintf(want[2], sizeof(want[2]), "RFKILL_STATE=1\n");
	snprintf(want[3], sizeof(want[3]), "RFKILL_HW_BLOCK_REASON=0x0");
	for (int i = 0; i < 4; i++) {
		if (!strstr(env, want[i])) {
			tap_diag("%s/uevent lacks '%.*s'", r->dir,
				 (int)strcspn(want[i], "\n"), want[i]);
			ok = false;
		}
	}
	tap_ok(ok, "%s/uevent: RFKILL_NAME=%s RFKILL_TYPE=%s RFKILL_STATE=1 RFKILL_HW_BLOCK_REASON=0x0",
	       r->dir, r->name, r->type_name);
}

void test_sysfs(void)
{
	for (int i = 0; i < NRADIOS; i++) {
		const struct radio *r = &radios[i];
		char want_idx[16];
		bool ok;

		if (!r->found) {
			tap_ok(false, "sysfs attributes of %s (device missing)", r->name);
			continue;
		}
		snprintf(want_idx, sizeof(want_idx), "%u", r->idx);
		/*
		 * Debian's 6.1 and 6.12 cores have no "claim" attribute any
		 * more, so a drop-in must not need one either.
		 */
		const char *want[][2] = {
			{ "name", r->name }, { "type", r->type_name },
			{ "index", want_idx }, { "persistent", "0" },
			{ "hard", "0" }, { "soft", "0" }, { "state", "1" },
			{ "hard_block_reasons", "0x0" },
		};
		ok = true;
		for (size_t j = 0; j < sizeof(want) / sizeof(want[0]); j++) {
			const char *got = attr(r, want[j][0]);

			if (strcmp(got, want[j][1])) {
				tap_diag("%s/%s: got '%s', want '%s'", r->dir,
					 want[j][0], got, want[j][1]);
				ok = false;
			}
		}
		tap_ok(ok, "sysfs %s: name=%s type=%s index persistent hard soft state hard_block_reasons",
		       r->dir, r->name, r->type_name);
		tap_ok(access_claim(r) == -ENOENT,
		       "%s has no claim attribute, like every in-tree 6.x core", r->dir);
		check_uevent(r);
	}
}

/*
 * RFKILL_IOCTL_AIRPLANE_MODE_EVENTS (rfkill-airplane.h): one op-5 with
 * the current state, behind the ADDs; asking again or ACQUIRE after
 * asking queues nothing more.
 */
static void test_indicator_optin(void)
{
	struct rfkill_event ev;
	int fd = rfk_open(), adds = 0, ind = 0, ind_soft = -1, adds_after = 0, r;

	r = ioctl(fd, RFKILL_IOCTL_AIRPLANE_MODE_EVENTS);
	tap_ok(r == 0, "RFKILL_IOCTL_AIRPLANE_MODE_EVENTS -> 0 (%s)", r ? strerror(errno) : "ok");
	tap_ok(ioctl(fd, RFKILL_IOCTL_AIRPLANE_MODE_EVENTS) == 0,
	       "asking twice -> 0");
	while (read(fd, &ev, sizeof(ev)) > 0) {
		if (ev.op == OP_INDICATOR) {
			ind++;
			ind_soft = ev.soft;
		} else {
			adds += ev.op == RFKILL_OP_ADD;
			adds_after += ind > 0;
		}
	}
	/* radios unblocked: the indicator is off */
	tap_ok(adds == n_sysfs_devices && ind == 1 && ind_soft == 0 && adds_after == 0,
	       "after asking: the ADDs, then one op-5 with the state (%d ADDs, %d op-5, soft %d, %d events after it)",
	       adds, ind, ind_soft, adds_after);
	r = rfk_op(fd, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == 0 && ev_read(fd, &ev, sizeof(ev), QUIET_MS) == 0,
	       "ACQUIRE after asking -> 0 and queues no second op-5 (%s)", err_name(r));
	close(fd);

	fd = rfk_open();
	drain(fd);
	r = rfk_op(fd, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0);
	tap_ok(r == 0 && ev_read(fd, &ev, sizeof(ev), WAIT_MS) == (ssize_t)sizeof(ev) &&
	       ev.op == OP_INDICATOR && ev.soft == 0 && ev.idx == 0 &&
	       ev.type == RFKILL_TYPE_ALL,
	       "ACQUIRE alone: the owner gets one op-5 with the current state (%s)",
	       err_name(r));
	close(fd);
}

void test_initial_events(void)
{
	int fd = rfk_open();
	unsigned char buf[64];
	int adds = 0, other = 0, bad_size = 0, matched = 0, ind = 0;
	unsigned int seen = 0;	/* bit i: an ADD for radios[i] */
	ssize_t n;

	if (!tap_ok(fd >= 0, "open /dev/rfkill read-write (%s)",
		    fd < 0 ? strerror(errno) : "ok"))
		return;
	/* the ADD events are queued by open(); no waiting needed */
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		struct rfkill_event *ev = (struct rfkill_event *)buf;
		struct radio *r = radio_by_idx(ev->idx);

		if (n != RFKILL_EVENT_SIZE_V1)
			bad_size++;
		if (ev->op == OP_INDICATOR) {
			ind++;
			continue;
		}
		if (ev->op != RFKILL_OP_ADD) {
			other++;
			continue;
		}
		adds++;
		if (r && ev->type == r->type && ev->soft == 0 && ev->hard == 0 &&
		    !(seen & 1u << (r - radios))) {
			seen |= 1u << (r - radios);
			matched++;
		}
	}
	tap_ok(n < 0 && errno == EAGAIN, "initial events end with EAGAIN on O_NONBLOCK");
	tap_ok(adds == n_sysfs_devices && matched == NRADIOS && other == 0,
	       "one ADD event per device at open, phy0 phy1 hci0 with their type and state (adds=%d devices=%d matched=%d other=%d)",
	       adds, n_sysfs_devices, matched, other);
	tap_ok(bad_size == 0, "default read size is V1 (8 bytes) even with a 64-byte buffer");
	/* like in-tree: nothing but the ADDs for a file that did not ask */
	tap_ok(ind == 0, "no op-5 event for a file that did not ask (got %d)", ind);
	close(fd);
	test_indicator_optin();
}

void test_sizes(void)
{
	struct rfkill_event_ext ext;
	unsigned char big[64];
	__u32 size;
	int fd = rfk_open();
	ssize_t n;

	if (fd < 0) {
		tap_ok(false, "open /dev/rfkill for size checks");
		return;
	}
	size = 7;
	tap_ok(ioctl(fd, RFKILL_IOCTL_MAX_SIZE, &size) < 0 && errno == EINVAL,
	       "RFKILL_IOCTL_MAX_SIZE 7 -> EINVAL");
	size = 256;
	tap_ok(ioctl(fd, RFKILL_IOCTL_MAX_SIZE, &size) < 0 && errno == EINVAL,
	       "RFKILL_IOCTL_MAX_SIZE 256 -> EINVAL");
	size = sizeof(ext);
	tap_ok(ioctl(fd, RFKILL_IOCTL_MAX_SIZE, &size) == 0,
	       "RFKILL_IOCTL_MAX_SIZE %u accepted", size);
	/* a bigger buffer than the kernel knows: it sends what it has */
	memset(big, 0xaa, sizeof(big));
	n = read(fd, big, sizeof(big));
	memcpy(&ext, big, sizeof(ext));
	tap_ok(n == (ssize_t)sizeof(ext) && ext.op == RFKILL_OP_ADD &&
	       ext.hard_block_reasons == 0 && big[sizeof(ext)] == 0xaa,
	       "extended read into 64 bytes returns %zu with hard_block_reasons 0 (got %zd)",
	       sizeof(ext), n);
	n = read(fd, &ext, RFKILL_EVENT_SIZE_V1);
	tap_ok(n == RFKILL_EVENT_SIZE_V1 && ext.op == RFKILL_OP_ADD,
	       "8-byte read on an extended fd returns a V1 event (got %zd)", n);
	tap_ok(ioctl(fd, RFKILL_IOCTL_NOINPUT) == 0, "RFKILL_IOCTL_NOINPUT accepted");
	close(fd);

	/* a read into a bad buffer: EFAULT, and the event is used up as in-tree */
	{
		int a = rfk_open(), b = rfk_open(), na, nb;
		ssize_t r = read(a, NULL, RFKILL_EVENT_SIZE_V1);
		int err = errno;

		na = drain(a);
		nb = drain(b);
		tap_ok(r < 0 && err == EFAULT && na == nb - 1,
		       "read into a NULL buffer -> EFAULT and uses up one event (%zd %s, %d left of %d)",
		       r, r < 0 ? strerror(err) : "", na, nb);
		close(a);
		close(b);
	}
}

void test_change(void)
{
	int w = rfk_open(), l = rfk_open();
	struct radio *p0 = &radios[0], *p1 = &radios[1], *bt = &radios[2];
	char path[320];

	drain(l);
	tap_ok(block_one(w, p0, 1) == 0, "CHANGE phy0 soft=1 write accepted");
	tap_ok(wait_change(l, p0, 1, WAIT_MS), "listener sees CHANGE phy0 soft=1");
	tap_ok(!strcmp(attr(p0, "soft"), "1") && !strcmp(attr(p0, "state"), "0") &&
	       !strcmp(attr(p1, "soft"), "0") && !strcmp(attr(bt, "soft"), "0"),
	       "sysfs: phy0 soft=1 state=0, phy1 and hci0 untouched");
	tap_ok(block_one(w, p0, 0) == 0 && wait_change(l, p0, 0, WAIT_MS) &&
	       !strcmp(attr(p0, "soft"), "0") && !strcmp(attr(p0, "state"), "1"),
	       "CHANGE phy0 soft=0 unblocks it (event and sysfs)");

	/* CHANGE matches idx and type; the wrong type must not touch phy0 */
	drain(l);
	tap_ok(rfk_op(w, RFKILL_OP_CHANGE, RFKILL_TYPE_BLUETOOTH, p0->idx, 1) == 0 &&
	       !wait_change(l, p0, 1, QUIET_MS) && !strcmp(attr(p0, "soft"), "0"),
	       "CHANGE with phy0's idx but type bluetooth leaves phy0 alone");

	snprintf(path, sizeof(path), "%s/soft", p1->dir);
	tap_ok(write_text(path, "1") == 0 && wait_change(l, p1, 1, WAIT_MS),
	       "writing 1 to %s blocks it and sends CHANGE", path);
	tap_ok(write_text(path, "0") == 0 && wait_change(l, p1, 0, WAIT_MS),
	       "writing 0 to %s unblocks it", path);

	drain(l);
	tap_ok(rfk_op(w, RFKILL_OP_CHANGE_ALL, RFKILL_TYPE_WLAN, 0, 1) == 0 &&
	       wait_change(l, p0, 1, WAIT_MS) && !strcmp(attr(p1, "soft"), "1") &&
	       !strcmp(attr(bt, "soft"), "0"),
	       "CHANGE_ALL wlan soft=1 blocks phy0 and phy1, not hci0");
	tap_ok(rfk_op(w, RFKILL_OP_CHANGE_ALL, RFKILL_TYPE_WLAN, 0, 0) == 0 &&
	       wait_change(l, p1, 0, WAIT_MS) && all_soft(0),
	       "CHANGE_ALL wlan soft=0 unblocks them");
	drain(l);
	tap_ok(block_all(w, 1) == 0 && wait_change(l, bt, 1, WAIT_MS) && all_soft(1),
	       "CHANGE_ALL all soft=1 blocks every radio");
	tap_ok(block_all(w, 0) == 0 && wait_change(l, bt, 0, WAIT_MS) && all_soft(0),
	       "CHANGE_ALL all soft=0 unblocks every radio");
	close(w);
	close(l);
}

void test_invalid(void)
{
	static const struct { int op, type; const char *what; } bad[] = {
		{ RFKILL_OP_ADD, RFKILL_TYPE_ALL, "op ADD from userspace" },
		{ RFKILL_OP_DEL, RFKILL_TYPE_ALL, "op DEL from userspace" },
		{ 6, RFKILL_TYPE_ALL, "unknown op 6" },
		{ 255, RFKILL_TYPE_ALL, "unknown op 255" },
		{ RFKILL_OP_CHANGE_ALL, NUM_RFKILL_TYPES, "CHANGE_ALL type NUM_RFKILL_TYPES" },
		{ RFKILL_OP_CHANGE_ALL, 255, "CHANGE_ALL type 255" },
		{ RFKILL_OP_CHANGE, NUM_RFKILL_TYPES, "CHANGE type NUM_RFKILL_TYPES" },
		{ OP_ACQUIRE, 200, "ACQUIRE type 200" },
		{ OP_INDICATOR, 200, "indicator CHANGE type 200" },
	};
	int fd = rfk_open();
	unsigned char buf[16];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = rfk_op(fd, bad[i].op, bad[i].type, radios[0].idx, 1);

		tap_ok(r == -EINVAL, "%s -> EINVAL (got %s)", bad[i].what, err_name(r));
	}
	tap_ok(all_soft(0), "rejected writes changed no radio");

	/*
	 * Unknown ioctls: ENOTTY since upstream f52c8fba984c (6.8, not
	 * backported), ENOSYS on 6.1, the same as the in-tree core of the
	 * running kernel.
	 */
	{
		int want = kernel_at_least(6, 8) ? -ENOTTY : -ENOSYS;
		int r1 = ioctl(fd, _IO('X', 1)) < 0 ? -errno : 0;
		int r2 = ioctl(fd, _IO(RFKILL_IOC_MAGIC, 99)) < 0 ? -errno : 0;

		tap_ok(r1 == want, "ioctl of another type -> %s (got %s)",
		       err_name(want), err_name(r1));
		tap_ok(r2 == want, "unknown rfkill ioctl number -> %s (got %s)",
		       err_name(want), err_name(r2));
	}

	/* 7 bytes are accepted for compatibility ('hard' is not needed) */
	memset(buf, 0, sizeof(buf));
	for (int len = 0; len < 7; len++) {
		ssize_t n = write(fd, buf, len);

		tap_ok(n < 0 && errno == EINVAL, "%d-byte write -> EINVAL (got %zd)", len, n);
	}
	buf[4] = RFKILL_TYPE_ALL;
	buf[5] = RFKILL_OP_CHANGE_ALL;
	buf[6] = 0;
	tap_ok(write(fd, buf, 7) == 7, "7-byte CHANGE_ALL (no 'hard') accepted like in-tree");
	close(fd);
}
