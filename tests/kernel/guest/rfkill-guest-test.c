// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rfkill-guest-test: runs as root inside the test VM (see ../vm/vmrun.py)
 * and checks the rules of issue 4 against the rfkill core that is loaded:
 * /dev/rfkill events and writes, sysfs, LED triggers and the airplane-mode
 * indicator (ops 4 and 5).  Prints TAP on stdout.
 *
 * Expects mac80211_hwsim radios=2 (phy0, phy1) and hci_vhci loaded; it
 * creates hci0 itself through /dev/vhci.  Static, so it needs no libc in
 * the initramfs.
 *
 *   rfkill-guest-test [--rfkill-bin /usr/sbin/rfkill] [--fuzz N]
 *                     [--expect-rfkill-version V] [--race N] [--seed S]
 *   rfkill-guest-test --default-off [--expect-rfkill-version V]
 *
 * --default-off is the short scenario for rfkill loaded with
 * default_state=0 (radios start blocked).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/rfkill.h>
#include <linux/uinput.h>

#include "rfkill-airplane.h"
#include "tap.h"

#define OP_ACQUIRE	RFKILL_OP_AIRPLANE_MODE_INDICATOR_ACQUIRE
#define OP_INDICATOR	RFKILL_OP_AIRPLANE_MODE_INDICATOR_CHANGE

/* An event that must come gets WAIT_MS; "nothing happens" is QUIET_MS. */
#define WAIT_MS		5000
#define QUIET_MS	700

struct radio {
	const char *name;
	int type;
	const char *type_name;
	unsigned int idx;
	char dir[300];
	bool found;
};

/* What the VM is expected to contain: hwsim radios=2 and one vhci. */
static struct radio radios[] = {
	{ .name = "phy0", .type = RFKILL_TYPE_WLAN, .type_name = "wlan" },
	{ .name = "phy1", .type = RFKILL_TYPE_WLAN, .type_name = "wlan" },
	{ .name = "hci0", .type = RFKILL_TYPE_BLUETOOTH, .type_name = "bluetooth" },
};
#define NRADIOS ((int)(sizeof(radios) / sizeof(radios[0])))

static int n_sysfs_devices;	/* all of /sys/class/rfkill, ours or not */
static char led_dir[300];	/* LED listing the airplane-mode trigger */
static int led_max;

static const char *rfkill_bin;
static const char *expect_version;
static bool default_off;	/* rfkill was loaded with default_state=0 */
static long fuzz_writes = 20000;
static int race_procs = 64;
static uint64_t seed = 0x5eed1e55c0ffeeULL;

/* ---- small helpers ---------------------------------------------------- */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Reads a small file into buf without the trailing newline; -errno. */
static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	while (total > 0 && buf[total - 1] == '\n')
		buf[--total] = '\0';
	return 0;
}

static int write_text(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

static const char *attr(const struct radio *r, const char *name)
{
	static char buf[4][400];
	static int slot;
	char path[340];
	char *out = buf[slot++ % 4];

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	if (read_text(path, out, sizeof(buf[0])) < 0)
		snprintf(out, sizeof(buf[0]), "<%s unreadable>", path);
	return out;
}

static struct radio *radio_by_idx(unsigned int idx)
{
	for (int i = 0; i < NRADIOS; i++)
		if (radios[i].found && radios[i].idx == idx)
			return &radios[i];
	return NULL;
}

/* Finds phy0, phy1 and hci0 under /sys/class/rfkill; true if all are there. */
static bool scan_sysfs(void)
{
	DIR *d = opendir("/sys/class/rfkill");
	struct dirent *de;
	bool all = true;

	n_sysfs_devices = 0;
	if (!d)
		return false;
	while ((de = readdir(d))) {
		char dir[300], path[320], name[64];
		unsigned int idx;

		if (sscanf(de->d_name, "rfkill%u", &idx) != 1)
			continue;
		n_sysfs_devices++;
		snprintf(dir, sizeof(dir), "/sys/class/rfkill/%s", de->d_name);
		snprintf(path, sizeof(path), "%s/name", dir);
		if (read_text(path, name, sizeof(name)) < 0)
			continue;
		for (int i = 0; i < NRADIOS; i++) {
			if (strcmp(radios[i].name, name))
				continue;
			radios[i].found = true;
			radios[i].idx = idx;
			snprintf(radios[i].dir, sizeof(radios[i].dir), "%s", dir);
		}
	}
	closedir(d);
	for (int i = 0; i < NRADIOS; i++)
		all = all && radios[i].found;
	return all;
}

/* ---- /dev/rfkill ------------------------------------------------------ */

static int rfk_open(void)
{
	return open("/dev/rfkill", O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

/* One event into buf; bytes read, 0 on timeout, -errno on error. */
static ssize_t ev_read(int fd, void *buf, size_t len, int ms)
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

static int drain(int fd)
{
	struct rfkill_event_ext ev;
	int n = 0;

	while (read(fd, &ev, sizeof(ev)) > 0)
		n++;
	return n;
}

/* Writes one V1 event: 0 if the kernel took it all, else -errno. */
static int rfk_op(int fd, int op, int type, unsigned int idx, int soft)
{
	struct rfkill_event ev = {
		.idx = idx, .type = type, .op = op, .soft = soft,
	};
	ssize_t n = write(fd, &ev, sizeof(ev));

	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(ev) ? 0 : -EPROTO;
}

static int block_all(int fd, int soft)
{
	return rfk_op(fd, RFKILL_OP_CHANGE_ALL, RFKILL_TYPE_ALL, 0, soft);
}

static int block_one(int fd, const struct radio *r, int soft)
{
	return rfk_op(fd, RFKILL_OP_CHANGE, r->type, r->idx, soft);
}

/* Opens a helper fd, blocks or unblocks everything, and closes it. */
static void set_all(int soft)
{
	int fd = rfk_open();

	if (fd >= 0) {
		block_all(fd, soft);
		close(fd);
	}
}

static bool all_soft(int want)
{
	char want_s[2] = { (char)('0' + want), 0 };

	for (int i = 0; i < NRADIOS; i++)
		if (strcmp(attr(&radios[i], "soft"), want_s))
			return false;
	return true;
}

/* Waits for a CHANGE event of one radio with the given soft state. */
static bool wait_change(int fd, const struct radio *r, int soft, int ms)
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
static bool wait_ind(int fd, int want, int ms)
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
static int count_ind(int fd, int ms, int *last)
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

static const char *err_name(int r)
{
	static char buf[32];

	switch (r) {
	case 0: return "0";
	case -EINVAL: return "EINVAL";
	case -EACCES: return "EACCES";
	case -EPROTO: return "short count";
	default:
		snprintf(buf, sizeof(buf), "errno %d", -r);
		return buf;
	}
}

/* ---- LED -------------------------------------------------------------- */

static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += len) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '[';
		char end = p[len];

		if (start && (end == ' ' || end == ']' || end == '\n' || !end))
			return true;
	}
	return false;
}

static int led_brightness(const char *dir)
{
	char path[340], buf[32];

	snprintf(path, sizeof(path), "%s/brightness", dir);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	return atoi(buf);
}

/* Polls an LED: triggers may be updated from a work item. */
static bool wait_led_at(const char *dir, bool on, int ms)
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
static bool wait_led(bool on, int ms)
{
	return wait_led_at(led_dir, on, ms);
}

static int led_set_trigger(const char *dir, const char *trigger)
{
	char path[340];

	snprintf(path, sizeof(path), "%s/trigger", dir);
	return write_text(path, trigger);
}

/* ---- the checks ------------------------------------------------------- */

static int vhci_fd = -1;

static void setup_radios(void)
{
	static const unsigned char create[] = { 0xff, 0x00 };
	long end;
	bool all;

	/* hci_vhci creates hci0 once it gets a vendor packet; keep it open */
	vhci_fd = open("/dev/vhci", O_RDWR | O_CLOEXEC);
	tap_ok(vhci_fd >= 0 && write(vhci_fd, create, 2) == 2,
	       "open /dev/vhci and write 0xff 0x00 (%s)",
	       vhci_fd < 0 ? strerror(errno) : "ok");
	end = now_ms() + 10000;
	while (!(all = scan_sysfs()) && now_ms() < end)
		sleep_ms(50);
	tap_ok(all, "sysfs shows phy0, phy1 and hci0 (%d rfkill devices)",
	       n_sysfs_devices);
	for (int i = 0; i < NRADIOS; i++)
		if (!radios[i].found)
			tap_diag("missing rfkill device %s", radios[i].name);
}

static void test_devnode(void)
{
	struct stat st;
	int r = stat("/dev/rfkill", &st);

	tap_ok(r == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 10 &&
	       minor(st.st_rdev) == 242,
	       "/dev/rfkill is char device 10:242");
}

static void test_sysfs(void)
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
	}
}

static void test_initial_events(void)
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
			ind++;	/* allowed, but not required, at open */
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
	if (ind)
		tap_diag("%d indicator event(s) queued at open", ind);
	close(fd);
}

static void test_sizes(void)
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
}

static void test_change(void)
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

static void test_invalid(void)
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

/* Finds an LED offering the airplane-mode trigger and attaches it. */
static void test_led_trigger(bool expect_on)
{
	DIR *d = opendir("/sys/class/leds");
	struct dirent *de;
	static char trig[16384];
	int leds = 0;
	bool any = false, none = false, per_dev = false;
	char path[340];

	while (d && (de = readdir(d))) {
		char dir[300];

		if (de->d_name[0] == '.')
			continue;
		leds++;
		snprintf(dir, sizeof(dir), "/sys/class/leds/%s", de->d_name);
		snprintf(path, sizeof(path), "%s/trigger", dir);
		if (read_text(path, trig, sizeof(trig)) < 0)
			continue;
		any = has_word(trig, "rfkill-any");
		none = has_word(trig, "rfkill-none");
		per_dev = true;
		for (int i = 0; i < NRADIOS; i++) {
			char name[32];

			snprintf(name, sizeof(name), "rfkill%u", radios[i].idx);
			per_dev = per_dev && has_word(trig, name);
		}
		if (!led_dir[0] && has_word(trig, RFKILL_AIRPLANE_MODE_TRIGGER))
			snprintf(led_dir, sizeof(led_dir), "%s", dir);
	}
	if (d)
		closedir(d);
	tap_diag("%d LED(s) in /sys/class/leds", leds);
	tap_ok(leds > 0 && any && none && per_dev,
	       "LED triggers rfkill-any, rfkill-none and rfkillN are registered");
	if (!tap_ok(led_dir[0], "an LED lists trigger %s", RFKILL_AIRPLANE_MODE_TRIGGER))
		return;
	snprintf(path, sizeof(path), "%s/max_brightness", led_dir);
	led_max = read_text(path, trig, sizeof(trig)) == 0 ? atoi(trig) : 0;
	snprintf(path, sizeof(path), "%s/trigger", led_dir);
	tap_ok(write_text(path, RFKILL_AIRPLANE_MODE_TRIGGER) == 0 &&
	       read_text(path, trig, sizeof(trig)) == 0 &&
	       strstr(trig, "[" RFKILL_AIRPLANE_MODE_TRIGGER "]"),
	       "%s follows %s now", led_dir, RFKILL_AIRPLANE_MODE_TRIGGER);
	tap_ok(wait_led(expect_on, WAIT_MS), "right after attaching, the LED is %s (radios %s)",
	       expect_on ? "on" : "off", expect_on ? "all blocked" : "unblocked");
}

/*
 * The in-tree triggers on the other LEDs: rfkill-any is on while any radio
 * is unblocked, rfkill-none while none is, rfkillN follows one radio.
 */
static void test_global_triggers(void)
{
	char other[2][300] = { "", "" }, trig[16];
	const char *any = other[0], *none = other[1];
	DIR *d = opendir("/sys/class/leds");
	struct dirent *de;
	int n = 0, w = rfk_open();

	while (d && (de = readdir(d)) && n < 2) {
		char dir[300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "/sys/class/leds/%s", de->d_name);
		if (strcmp(dir, led_dir))
			snprintf(other[n++], sizeof(other[0]), "%s", dir);
	}
	if (d)
		closedir(d);
	if (!tap_ok(n == 2 && !led_set_trigger(any, "rfkill-any") &&
		    !led_set_trigger(none, "rfkill-none"),
		    "two more LEDs follow rfkill-any and rfkill-none (%s, %s)", any, none)) {
		close(w);
		return;
	}
	set_all(0);
	tap_ok(wait_led_at(any, true, WAIT_MS) && wait_led_at(none, false, WAIT_MS),
	       "radios unblocked: rfkill-any on, rfkill-none off");
	block_all(w, 1);
	tap_ok(wait_led_at(any, false, WAIT_MS) && wait_led_at(none, true, WAIT_MS),
	       "every radio blocked: rfkill-any off, rfkill-none on");
	block_one(w, &radios[1], 0);
	tap_ok(wait_led_at(any, true, WAIT_MS) && wait_led_at(none, false, WAIT_MS),
	       "phy1 unblocked: rfkill-any on, rfkill-none off");
	block_all(w, 0);

	snprintf(trig, sizeof(trig), "rfkill%u", radios[0].idx);
	tap_ok(!led_set_trigger(none, trig) && wait_led_at(none, true, WAIT_MS),
	       "LED on trigger %s is on while phy0 is unblocked", trig);
	block_one(w, &radios[0], 1);
	tap_ok(wait_led_at(none, false, WAIT_MS) && wait_led_at(any, true, WAIT_MS),
	       "%s off when phy0 is blocked, rfkill-any stays on", trig);
	block_one(w, &radios[0], 0);
	tap_ok(wait_led_at(none, true, WAIT_MS), "%s on again after unblock", trig);
	led_set_trigger(any, "none");
	led_set_trigger(none, "none");
	close(w);
}

/* Both views of the indicator: op-5 event on fd l, and the LED if any. */
static bool ind_is(int l, int want, const char *why)
{
	bool ev = wait_ind(l, want, WAIT_MS);
	bool led = led_dir[0] && wait_led(want, WAIT_MS);

	tap_ok(ev, "%s: op-5 event soft=%d", why, want);
	tap_ok(led, "%s: LED %s", why, want ? "on" : "off");
	return ev && led;
}

static void test_default_rule(void)
{
	int w = rfk_open(), l = rfk_open();
	int last = -1, n;

	drain(l);
	block_all(w, 1);
	ind_is(l, 1, "block all");
	/*
	 * A driver whose LED comes up later (asus-wireless loading after the
	 * radios were blocked) must show the current state at once.
	 */
	tap_ok(led_dir[0] && !led_set_trigger(led_dir, "none") && wait_led(false, WAIT_MS) &&
	       !led_set_trigger(led_dir, RFKILL_AIRPLANE_MODE_TRIGGER) && wait_led(true, QUIET_MS),
	       "an LED attached while every radio is blocked lights at once");
	block_one(w, &radios[0], 0);
	ind_is(l, 0, "unblock phy0");
	tap_ok(led_dir[0] && !led_set_trigger(led_dir, "none") &&
	       !led_set_trigger(led_dir, RFKILL_AIRPLANE_MODE_TRIGGER) && wait_led(false, QUIET_MS),
	       "an LED attached while a radio is unblocked stays off");

	block_all(w, 0);
	drain(l);
	sleep_ms(QUIET_MS);
	drain(l);
	for (int i = 0; i < NRADIOS - 1; i++) {
		block_one(w, &radios[i], 1);
		n = count_ind(l, QUIET_MS, &last);
		tap_ok(n == 0 || last == 0,
		       "block %s (not the last radio): indicator stays off",
		       radios[i].name);
		tap_ok(!led_dir[0] || wait_led(false, 10),
		       "block %s: LED still off", radios[i].name);
	}
	block_one(w, &radios[NRADIOS - 1], 1);
	ind_is(l, 1, "block the last radio one by one");
	block_all(w, 0);
	ind_is(l, 0, "unblock all");
	close(w);
	close(l);
}

static void test_ownership(void)
{
	int a = rfk_open(), b = rfk_open(), c = rfk_open();
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

static void test_sigkill_release(void)
{
	int sync[2], l = rfk_open(), b = rfk_open(), r;
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

static void test_race(int n)
{
	int go[2], res[2], hold[2];
	int owners = 0, denied = 0, other = 0, got = 0, fd;
	char *start = calloc(n, 1);
	pid_t *pids = calloc(n, sizeof(*pids));

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
	if (write(go[1], start, n) != n)
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
static void test_v1_reader(void)
{
	int v = rfk_open(), e = rfk_open(), w = rfk_open();
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

/* util-linux `rfkill event` is what users run; it must survive op 5. */
static void test_util_linux(void)
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

	ind = strstr(buf, "op 5 soft 1");
	tap_ok(ind, "rfkill event prints the op-5 event");
	tap_ok(alive && ind && strstr(ind, want_after) && !strstr(buf, "Wrong size") &&
	       !strstr(buf, "failed"),
	       "rfkill event keeps reporting device events after op-5 events");
	if (!ind || !alive) {
		for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
			tap_diag("rfkill event: %s", line);
	}
}

/* ---- rfkill-input: keys and the SW_RFKILL_ALL switch via uinput ------- */

static int uinput_create(const char *name, int evtype, unsigned long setbit,
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

static void uinput_emit(int fd, int type, int code, int value)
{
	struct input_event ev[2] = {
		{ .type = type, .code = code, .value = value },
		{ .type = EV_SYN, .code = SYN_REPORT, .value = 0 },
	};

	if (write(fd, ev, sizeof(ev)) != sizeof(ev))
		tap_diag("uinput write: %s", strerror(errno));
}

static void press(int fd, int key)
{
	uinput_emit(fd, EV_KEY, key, 1);
	uinput_emit(fd, EV_KEY, key, 0);
}

/* Waits until the radios' soft states read like want ("110": phy0 phy1 hci0). */
static bool wait_soft(const char *want, int ms)
{
	long end = now_ms() + ms;

	for (;;) {
		bool ok = true;

		for (int i = 0; i < NRADIOS; i++)
			ok = ok && attr(&radios[i], "soft")[0] == want[i];
		if (ok || now_ms() >= end)
			return ok;
		sleep_ms(20);
	}
}

static void test_input(void)
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
	ioctl(kbd, UI_DEV_DESTROY);
	close(kbd);
	set_all(0);
}

/*
 * Suspend to idle with pm_test=devices: the rfkill class suspend/resume
 * callbacks run, the machine wakes by itself after 5 s.  Soft states and
 * the indicator must come back as they were.
 */
static void test_suspend(void)
{
	int l = rfk_open(), w = rfk_open(), r, n, last = -1;

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

/* ---- stress --------------------------------------------------------- */

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static void test_fuzz(long count)
{
	int fds[4];
	long accepted = 0, einval = 0, eacces = 0, other = 0, reads = 0;
	unsigned char buf[16];

	tap_diag("random writes: %ld, seed 0x%llx", count, (unsigned long long)seed);
	for (int i = 0; i < 4; i++)
		fds[i] = rfk_open();
	for (long i = 0; i < count; i++) {
		int k = rnd() % 4;
		size_t len = (rnd() & 1) ? 8 : rnd() % 13;
		ssize_t n;

		for (size_t j = 0; j < sizeof(buf); j++)
			buf[j] = rnd();
		/* half of them look plausible so the real paths get exercised */
		if (rnd() & 1) {
			buf[0] = rnd() % (n_sysfs_devices + 2);
			buf[1] = buf[2] = buf[3] = 0;
			buf[4] = rnd() % (NUM_RFKILL_TYPES + 1);
			buf[5] = rnd() % 7;	/* ops 0..5 and one unknown */
			buf[6] = rnd() & 1;
		}
		n = write(fds[k], buf, len);
		if (n >= 7 && (size_t)n <= len)
			accepted++;
		else if (n < 0 && errno == EINVAL)
			einval++;
		else if (n < 0 && errno == EACCES)
			eacces++;
		else if (other++ < 5)
			tap_diag("write of %zu bytes returned %zd (%s)", len, n,
				 n < 0 ? strerror(errno) : "bad count");
		if ((i & 31) == 0) {
			for (int j = 0; j < 4; j++)
				while (read(fds[j], buf, 1 + rnd() % 12) > 0)
					reads++;
		}
		if ((rnd() & 1023) == 0) {
			close(fds[k]);	/* also releases the indicator if owned */
			fds[k] = rfk_open();
		}
		if ((rnd() & 255) == 0) {
			__u32 size = rnd() % 300;

			ioctl(fds[k], RFKILL_IOCTL_MAX_SIZE, &size);
		}
	}
	for (int i = 0; i < 4; i++)
		close(fds[i]);
	tap_diag("accepted %ld, EINVAL %ld, EACCES %ld, events read %ld",
		 accepted, einval, eacces, reads);
	tap_ok(other == 0 && accepted > 0 && einval > 0,
	       "%ld random writes: each one accepted, EINVAL or EACCES (other=%ld)",
	       count, other);
	set_all(0);
	sleep_ms(500);
	tap_ok(scan_sysfs() && all_soft(0), "after the random writes every radio can be unblocked");
	{
		int fd = rfk_open();
		int adds = drain(fd);

		tap_ok(adds == n_sysfs_devices, "a fresh fd sees the %d devices (%d events)",
		       n_sysfs_devices, adds);
		tap_ok(rfk_op(fd, OP_ACQUIRE, RFKILL_TYPE_ALL, 0, 0) == 0,
		       "a fresh fd can ACQUIRE after the random writes");
		close(fd);
	}
}

/*
 * Last, because it takes the radios away: DEL events, the rule for "no
 * radios at all" (follow the global state set by CHANGE_ALL) and a radio
 * plugged in afterwards picking up that global state.
 */
static void test_no_radios(void)
{
	static const unsigned char create[] = { 0xff, 0x00 };
	struct rfkill_event_ext ev;
	int l = rfk_open(), dels = 0, r, last = -1;
	char bt_soft[320] = "";
	long end;

	drain(l);
	close(vhci_fd);	/* hci_vhci drops hci0 when /dev/vhci closes */
	vhci_fd = -1;
	r = syscall(SYS_delete_module, "mac80211_hwsim", O_NONBLOCK);
	tap_ok(r == 0, "rmmod mac80211_hwsim (%s)", r ? strerror(errno) : "ok");
	end = now_ms() + WAIT_MS;
	while (dels < NRADIOS && now_ms() < end) {
		if (ev_read(l, &ev, sizeof(ev), end - now_ms()) <= 0)
			break;
		if (ev.op == RFKILL_OP_DEL && radio_by_idx(ev.idx))
			dels++;
	}
	tap_ok(dels == NRADIOS, "DEL events for phy0, phy1 and hci0 (%d)", dels);
	for (int i = 0; i < NRADIOS; i++)
		radios[i].found = false;
	scan_sysfs();
	tap_ok(n_sysfs_devices == 0, "no rfkill devices left (%d)", n_sysfs_devices);

	block_all(l, 1);
	ind_is(l, 1, "no radios, CHANGE_ALL all soft=1");

	vhci_fd = open("/dev/vhci", O_RDWR | O_CLOEXEC);
	if (vhci_fd < 0 || write(vhci_fd, create, 2) != 2)
		tap_diag("cannot re-create the vhci controller: %s", strerror(errno));
	end = now_ms() + 10000;
	while (now_ms() < end) {
		DIR *d = opendir("/sys/class/rfkill");
		struct dirent *de;

		while (d && (de = readdir(d))) {
			char path[300], type[32], soft[8];

			if (strncmp(de->d_name, "rfkill", 6))
				continue;
			snprintf(path, sizeof(path), "/sys/class/rfkill/%s/type", de->d_name);
			if (read_text(path, type, sizeof(type)) || strcmp(type, "bluetooth"))
				continue;
			snprintf(path, sizeof(path), "/sys/class/rfkill/%s/soft", de->d_name);
			if (read_text(path, soft, sizeof(soft)) == 0 && !strcmp(soft, "1"))
				snprintf(bt_soft, sizeof(bt_soft), "%s", path);
		}
		if (d)
			closedir(d);
		if (bt_soft[0])
			break;
		sleep_ms(50);
	}
	tap_ok(bt_soft[0], "a radio plugged in after CHANGE_ALL all soft=1 comes up blocked (%s)",
	       bt_soft[0] ? bt_soft : "none");
	r = count_ind(l, QUIET_MS, &last);
	tap_ok(r == 0 || last == 1, "the blocked newcomer keeps the indicator on");
	block_all(l, 0);
	ind_is(l, 0, "CHANGE_ALL all soft=0 with the newcomer");
	close(l);
}

/*
 * rfkill loaded with default_state=0: radios registered later come up
 * soft-blocked, so the indicator is on from the start.
 */
static void test_default_off(void)
{
	int l = rfk_open(), n;
	struct rfkill_event_ext ev;
	unsigned int blocked_adds = 0;
	char path[340];

	while ((n = read(l, &ev, sizeof(ev))) > 0)
		if (ev.op == RFKILL_OP_ADD && radio_by_idx(ev.idx) && ev.soft == 1)
			blocked_adds++;
	tap_ok(wait_soft("111", WAIT_MS), "default_state=0: phy0, phy1 and hci0 come up soft-blocked");
	tap_diag("%u of the ADD events already say soft=1", blocked_adds);
	test_led_trigger(true);
	snprintf(path, sizeof(path), "%s/soft", radios[2].dir);
	tap_ok(write_text(path, "0") == 0 && wait_ind(l, 0, WAIT_MS) && wait_led(false, WAIT_MS),
	       "unblocking hci0 turns the indicator off");
	tap_ok(write_text(path, "1") == 0 && wait_ind(l, 1, WAIT_MS) && wait_led(true, WAIT_MS),
	       "blocking it again turns it back on");
	close(l);
}

static void test_dmesg(void)
{
	static const char *const bad[] = {
		"BUG", "WARNING:", "Oops", "disagrees about version", "Unknown symbol",
		"general protection", "list_add corruption", "list_del corruption",
		"refcount_t:", "RIP:",
	};
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *log = size > 0 ? malloc(size + 1) : NULL;
	int n = log ? klogctl(3, log, size) : -1;	/* SYSLOG_ACTION_READ_ALL */
	int hits = 0;

	if (!tap_ok(n > 0, "read the kernel log (%d bytes)", n)) {
		free(log);
		return;
	}
	log[n] = '\0';
	for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n"))
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (strstr(line, bad[i])) {
				if (hits++ < 20)
					tap_diag("dmesg: %s", line);
				break;
			}
	tap_ok(hits == 0, "dmesg has no BUG/WARNING/Oops/version/symbol errors (%d)", hits);
	free(log);
}

int main(int argc, char **argv)
{
	tap_init();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rfkill-bin") && i + 1 < argc)
			rfkill_bin = argv[++i];
		else if (!strcmp(argv[i], "--expect-rfkill-version") && i + 1 < argc)
			expect_version = argv[++i];
		else if (!strcmp(argv[i], "--default-off"))
			default_off = true;
		else if (!strcmp(argv[i], "--fuzz") && i + 1 < argc)
			fuzz_writes = atol(argv[++i]);
		else if (!strcmp(argv[i], "--race") && i + 1 < argc)
			race_procs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: %s [--rfkill-bin PATH] [--expect-rfkill-version V]\n"
				"       [--default-off] [--fuzz N] [--race N] [--seed S]\n",
				argv[0]);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);

	if (expect_version) {
		char v[64];
		int r = read_text("/sys/module/rfkill/version", v, sizeof(v));

		tap_ok(r == 0 && !strcmp(v, expect_version),
		       "the loaded rfkill is ours: /sys/module/rfkill/version is %s (got %s)",
		       expect_version, r ? strerror(-r) : v);
	}
	test_devnode();
	setup_radios();
	if (!radios[0].found || !radios[1].found || !radios[2].found) {
		tap_diag("radios missing; the remaining checks need phy0, phy1 and hci0");
		return tap_done() | 1;
	}
	if (default_off) {
		test_default_off();
		test_dmesg();
		return tap_done();
	}
	test_sysfs();
	test_initial_events();
	test_sizes();
	test_change();
	test_invalid();
	test_led_trigger(false);
	if (!led_dir[0])
		tap_diag("no LED offers %s: LED checks fail, events are still checked",
			 RFKILL_AIRPLANE_MODE_TRIGGER);
	test_global_triggers();
	test_default_rule();
	test_ownership();
	test_sigkill_release();
	test_race(race_procs);
	test_v1_reader();
	test_util_linux();
	test_input();
	test_suspend();
	test_fuzz(fuzz_writes);
	test_no_radios();
	test_dmesg();
	return tap_done();
}
