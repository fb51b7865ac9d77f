// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * parity-probe: records what userspace can observe of the rfkill core and
 * prints it as a transcript that is the same on every run of the same
 * module.  The host runs it against Debian's rfkill.ko and against ours in
 * the same VM setup and diffs the two (see test_parity.py); it checks
 * nothing itself.
 *
 * VM setup: rfkill, mac80211_hwsim radios=2 (phy0, phy1), hci_vhci (the
 * probe opens /dev/vhci: hci0), toshiba_bluetooth on the TOS6205 SSDT with
 * pc-testdev (a hard-block switch at port 0xe0, which boots at 0: hard
 * blocked) and asus-wireless on the ATK4002 SSDT (an LED) and the
 * ashs-ids SSDT (ATK4001, E202SA-style, and ids in _CID only), uinput.
 * mac80211_hwsim must be at /modules/mac80211_hwsim.ko (vmrun puts it there) for the
 * hotplug step.
 *
 * Transcript lines start with a tag: param, dev, sysfs, write, read,
 * ioctl, poll, ev (a /dev/rfkill event), uevent, led, queue, kmsg (a
 * kernel log line of the rfkill core, with its level), bind (where the
 * rfkill devices, LEDs and asus-wireless input devices sit, and which
 * driver of which bus their devices are bound to).  Events are
 * printed raw, including ops the in-tree module never sends; the host's
 * allow-list decides what may differ.  Values that change from run to run
 * (SEQNUM, time counters, the keyboard's input number) are replaced by a
 * placeholder.
 *
 * Steps named "vm-only:..." use what only the VM has: a uinput device
 * with the radio keys and SW_RFKILL_ALL (the uinput module), and an
 * unblock that the Toshiba driver is slow to carry out (the TOS6205
 * SSDT's gate, bit 1 of the switch port).
 *
 * On the host, with PARITY_FAKE_CONTROL=SOCKET, the same program runs on
 * fake-rfkill through rfkill-preload.so (RFK_RFKILL_AS_DEVICE=1), with
 * RFKILL_SYSFS_ROOT for /sys/class/rfkill: the hardware steps become the
 * fake's control commands (vhci: add/del bluetooth, the switch: hard,
 * hwsim: del/add wlan), and what the fake has no part of (uevents, LEDs,
 * module parameters, the device node, sysfs writes) is left out.  The
 * host compares the two transcripts (test_parity.py --fake-*).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/netlink.h>
#include <linux/rfkill.h>
#include <linux/uinput.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kmsg-lines.h"

#define SWITCH_PORT	0xe0	/* pc-testdev: the TOS6205 switch, bit 0 */
#define SWITCH_GATE	0x02	/* held: the driver's unblock waits */
#define SWITCH_WAITING	0x04	/* set by the SSDT while it waits */
#define QUEUE_CHANGES	3000
#define OP_AIRPLANE_ACQUIRE	4	/* ours only: rfkill-airplane.h */
#define OP_AIRPLANE_CHANGE	5
#define IOC_AIRPLANE_EVENTS	0x41	/* ours only: the op-5 opt-in ioctl */

static int rfk = -1;		/* the observer fd on /dev/rfkill */
static int uev = -1;		/* kernel uevents (no udev in the VM) */
static int vhci = -1;
static int kmsg = -1;		/* the kernel log, read from the probe's start */
static int indicator_events;	/* ops 4/5 seen by drain_fd() */
static int last_wlan_idx = -1;	/* of the last wlan ADD drain_fd() read */
static const char *fake_ctl;	/* PARITY_FAKE_CONTROL: on fake-rfkill */
static const char *class_dir = "/sys/class/rfkill";
/*
 * How long a step waits for more events after the last one: deferred work
 * under TCG is slow.  On the fake, a step's events are queued before the
 * write or the control command that caused them returns.
 */
static int step_quiet_ms = 400;

static const char *err_name(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void die(const char *what)
{
	fprintf(stdout, "FATAL %s: %s\n", what, err_name(errno));
	exit(2);
}

/* ---- /dev/rfkill events ---------------------------------------------- */

static void print_event(const char *step, const struct rfkill_event_ext *e, ssize_t n)
{
	printf("ev %s idx=%u type=%u op=%u soft=%u hard=%u", step, e->idx,
	       e->type, e->op, e->soft, e->hard);
	if (n >= (ssize_t)sizeof(*e))
		printf(" reasons=0x%x", e->hard_block_reasons);
	printf(" size=%zd\n", n);
}

/*
 * Reads every event fd has now and those that follow within quiet_ms of the
 * last one (deferred work under TCG); returns how many had ops 0-3 (others
 * are counted in indicator_events).  wait_ms > 0 waits
 * that long for the first event (polled hardware).
 */
static int drain_fd(int fd, const char *step, int wait_ms, int quiet_ms, bool print)
{
	struct rfkill_event_ext e;
	int count = 0;
	long deadline = now_ms() + (wait_ms > quiet_ms ? wait_ms : quiet_ms);

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long left = deadline - now_ms();

		if (left < 0 || poll(&p, 1, (int)left) <= 0)
			break;
		memset(&e, 0, sizeof(e));
		ssize_t n = read(fd, &e, sizeof(e));

		if (n < 0) {
			if (errno == EAGAIN)
				continue;
			printf("read %s -> -1 %s\n", step, err_name(errno));
			break;
		}
		if (e.op == RFKILL_OP_ADD && e.type == RFKILL_TYPE_WLAN)
			last_wlan_idx = (int)e.idx;
		if (e.op > RFKILL_OP_CHANGE_ALL)
			indicator_events++;
		else
			count++;
		if (print)
			print_event(step, &e, n);
		deadline = now_ms() + quiet_ms;
	}
	return count;
}

/* ---- uevents ---------------------------------------------------------- */

static int open_uevents(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);
	int size = 4 << 20;

	if (fd < 0)
		die("netlink uevent socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("bind uevent socket");
	return fd;
}

/* Prints the rfkill-class uevents received so far, SEQNUM blanked. */
static void drain_uevents(const char *step)
{
	char buf[8192];

	if (uev < 0)
		return;

	for (;;) {
		ssize_t n = recv(uev, buf, sizeof(buf) - 1, 0);

		if (n < 0) {
			if (errno != EAGAIN)
				printf("uevent %s recv -> %s\n", step, err_name(errno));
			return;
		}
		buf[n] = '\0';
		bool rfkill = false;

		for (char *p = buf; p < buf + n; p += strlen(p) + 1)
			if (!strcmp(p, "SUBSYSTEM=rfkill"))
				rfkill = true;
		if (!rfkill)
			continue;
		printf("uevent %s %s\n", step, buf);
		for (char *p = buf + strlen(buf) + 1; p < buf + n; p += strlen(p) + 1) {
			if (!strncmp(p, "SEQNUM=", 7))
				printf("uevent %s   SEQNUM=<n>\n", step);
			else
				printf("uevent %s   %s\n", step, p);
		}
	}
}

static void drain_uevents_quiet(void)
{
	char buf[8192];

	while (uev >= 0 && recv(uev, buf, sizeof(buf), 0) >= 0)
		;
}

/* ---- the kernel log ---------------------------------------------------- */

static void open_kmsg(void)
{
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg < 0)
		die("open /dev/kmsg");
	/* what was logged before the probe is not its business */
	if (lseek(kmsg, 0, SEEK_END) < 0)
		die("seek /dev/kmsg");
}

/*
 * Prints the records logged since the last call whose text starts with
 * "rfkill" (the core's own lines), with their level: a line the in-tree
 * module logs at KERN_DEBUG is in the log too, whatever the console shows.
 */
static void print_kmsg_line(int level, const char *text, void *data)
{
	printf("kmsg %s level=%d %s\n", (const char *)data, level, text);
}

static void drain_kmsg(const char *step)
{
	int err;

	if (kmsg < 0)
		return;
	err = kmsg_rfkill_lines(kmsg, print_kmsg_line, (void *)step);
	if (err)
		printf("kmsg %s read -> %s\n", step, err_name(err));
}

/* One step: its /dev/rfkill events, then its uevents and log lines. */
static void observe(const char *step, int wait_ms)
{
	drain_fd(rfk, step, wait_ms, step_quiet_ms, true);
	drain_uevents(step);
	drain_kmsg(step);
}

/* ---- sysfs ------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of dir (without . and ..); NULL-terminated. */
static char **list_dir(const char *dir)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;

	if (!d)
		return calloc(1, sizeof(char *));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		names = realloc(names, (n + 2) * sizeof(char *));
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (!names)
		return calloc(1, sizeof(char *));
	names[n] = NULL;
	qsort(names, n, sizeof(char *), cmp_str);
	return names;
}

static void free_list(char **names)
{
	for (char **p = names; *p; p++)
		free(*p);
	free(names);
}

/* Reads a small file; returns -errno or the length. */
static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return (int)n;
}

static bool varies(const char *name)
{
	/* runtime PM counters tick while the probe runs */
	return strstr(name, "_time") != NULL;
}

static void print_value(const char *tag, const char *what, const char *path)
{
	char buf[4096];
	int n = read_file(path, buf, sizeof(buf));

	if (n < 0) {
		printf("%s %s read -> %s\n", tag, what, err_name(-n));
		return;
	}
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		printf("%s %s = %s\n", tag, what, line);
	if (n == 0)
		printf("%s %s = (empty)\n", tag, what);
}

/* Every entry of dir (recursing into plain directories), with its mode
 * and, for readable files, its value. */
static void dump_dir(const char *tag, const char *dir, const char *rel)
{
	char **names = list_dir(dir);

	for (char **p = names; *p; p++) {
		char path[512], what[256], target[512];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, *p);
		snprintf(what, sizeof(what), "%s%s", rel, *p);
		if (lstat(path, &st) < 0) {
			printf("%s %s lstat -> %s\n", tag, what, err_name(errno));
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(path, target, sizeof(target) - 1);

			target[n > 0 ? n : 0] = '\0';
			printf("%s %s -> %s\n", tag, what,
			       strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
		} else if (S_ISDIR(st.st_mode)) {
			char sub[300];

			printf("%s %s/ mode=%04o\n", tag, what, st.st_mode & 07777);
			snprintf(sub, sizeof(sub), "%s/", what);
			dump_dir(tag, path, sub);
		} else {
			printf("%s %s mode=%04o\n", tag, what, st.st_mode & 07777);
			if (!(st.st_mode & 0444))
				continue;
			if (varies(*p))
				printf("%s %s = <varies>\n", tag, what);
			else
				print_value(tag, what, path);
		}
	}
	free_list(names);
}

static bool is_rfkill_dev(const char *name)
{
	/* the fake's root also holds devices/, class/ and bus/ */
	return !strncmp(name, "rfkill", 6);
}

static void dump_rfkill_sysfs(const char *when)
{
	char **devs = list_dir(class_dir);
	char tag[64];

	for (char **p = devs; *p; p++) {
		char dir[256];

		if (!is_rfkill_dev(*p))
			continue;
		snprintf(tag, sizeof(tag), "sysfs %s %s", when, *p);
		snprintf(dir, sizeof(dir), "%s/%s", class_dir, *p);
		dump_dir(tag, dir, "");
	}
	free_list(devs);
}

/* The rfkill directory of the device named name (phy0, hci0, ...). */
static bool rfkill_dir(const char *name, char *dir, size_t size)
{
	char **devs = list_dir(class_dir);
	bool found = false;

	for (char **p = devs; *p && !found; p++) {
		char path[256], buf[64];

		if (!is_rfkill_dev(*p))
			continue;
		snprintf(path, sizeof(path), "%s/%s/name", class_dir, *p);
		if (read_file(path, buf, sizeof(buf)) > 0 &&
		    !strcmp(strtok(buf, "\n"), name)) {
			snprintf(dir, size, "%s/%s", class_dir, *p);
			found = true;
		}
	}
	free_list(devs);
	return found;
}

#define TOSHIBA		"Toshiba Bluetooth"
#define POLL_WAIT_MS	15000	/* the core polls every few seconds; TCG is slow */

/*
 * Waits until attribute attr of the device named dev reads want, so that a
 * polled change lands in the step that caused it whatever the timing;
 * returns the last value read.
 */
static const char *wait_attr(const char *dev, const char *attr, const char *want)
{
	static char buf[64];
	char dir[256], path[320];
	long deadline = now_ms() + POLL_WAIT_MS;

	strcpy(buf, "(no device)");
	if (!rfkill_dir(dev, dir, sizeof(dir)))
		return buf;
	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	do {
		if (read_file(path, buf, sizeof(buf)) > 0)
			strtok(buf, "\n");
		if (!strcmp(buf, want))
			break;
		usleep(100000);
	} while (now_ms() < deadline);
	return buf;
}

static void sysfs_write(const char *dev, const char *attr, const char *value)
{
	char dir[256], path[320], step[128];
	int fd, r = 0;

	/* the fake's sysfs is a copy of its state: writes do not reach it */
	if (fake_ctl)
		return;
	snprintf(step, sizeof(step), "sysfs-write:%s/%s=%s", dev, attr, value);
	if (!rfkill_dir(dev, dir, sizeof(dir))) {
		printf("write %s -> no device\n", step);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("write %s -> open %s\n", step, err_name(errno));
	} else {
		r = (int)write(fd, value, strlen(value));
		if (r < 0)
			printf("write %s -> -1 %s\n", step, err_name(errno));
		else
			printf("write %s -> %d\n", step, r);
		close(fd);
	}
	observe(step, 0);
}

/* ---- /dev/rfkill writes, ioctls, poll -------------------------------- */

static void dev_write(const char *desc, uint32_t idx, uint8_t type, uint8_t op,
		      uint8_t soft, uint8_t hard, size_t len)
{
	unsigned char buf[64] = { 0 };
	struct rfkill_event_ext e = {
		.idx = idx, .type = type, .op = op, .soft = soft, .hard = hard,
	};
	char step[160];
	ssize_t r;

	memcpy(buf, &e, sizeof(e));
	snprintf(step, sizeof(step), "dev-write:%s(idx=%u,type=%u,op=%u,soft=%u,hard=%u,len=%zu)",
		 desc, idx, type, op, soft, hard, len);
	r = write(rfk, buf, len);
	if (r < 0)
		printf("write %s -> -1 %s\n", step, err_name(errno));
	else
		printf("write %s -> %zd\n", step, r);
	observe(step, 0);
}

static void do_ioctl(const char *desc, unsigned long req, void *arg)
{
	int r = ioctl(rfk, req, arg);

	if (r < 0)
		printf("ioctl %s -> -1 %s\n", desc, err_name(errno));
	else
		printf("ioctl %s -> %d\n", desc, r);
}

/*
 * The indicator's opt-in ioctl and ops 4/5 on an fd of their own, closed
 * at once: an fd that asks or ACQUIREs gets op-5 events, and the observer
 * must stay a reader that never asked, so that its events are compared
 * with the in-tree module's unfiltered (it must never see op 5).
 */
static void airplane_ops(void)
{
	int fd = open("/dev/rfkill", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	struct rfkill_event e = { .op = OP_AIRPLANE_ACQUIRE };
	int r;

	if (fd < 0)
		die("open /dev/rfkill for the indicator ops");
	r = ioctl(fd, _IO(RFKILL_IOC_MAGIC, IOC_AIRPLANE_EVENTS), NULL);
	printf("ioctl airplane-mode-events -> %d %s\n", r, r < 0 ? err_name(errno) : "");
	r = (int)write(fd, &e, RFKILL_EVENT_SIZE_V1);
	printf("write dev-write:op-airplane-acquire -> %d %s\n", r, r < 0 ? err_name(errno) : "");
	e.op = OP_AIRPLANE_CHANGE;
	e.soft = 1;
	r = (int)write(fd, &e, RFKILL_EVENT_SIZE_V1);
	printf("write dev-write:op-airplane-change -> %d %s\n", r, r < 0 ? err_name(errno) : "");
	observe("op-airplane", 0);
	close(fd);	/* hands the indicator back to the default rule */
	observe("op-airplane-close", 0);
}

static void do_poll(const char *desc)
{
	struct pollfd p = { .fd = rfk, .events = POLLIN | POLLOUT | POLLPRI };
	int r = poll(&p, 1, 0);

	printf("poll %s -> %d revents=0x%x\n", desc, r, r > 0 ? p.revents : 0);
}

/* Toggles phy0 and reads its events with a buffer of size bytes. */
static void read_with(size_t size, const char *desc)
{
	unsigned char buf[64];
	struct rfkill_event_ext e = { .idx = 0, .op = RFKILL_OP_CHANGE, .soft = 1 };

	for (int soft = 1; soft >= 0; soft--) {
		e.soft = (uint8_t)soft;
		if (write(rfk, &e, RFKILL_EVENT_SIZE_V1) < 0)
			printf("read %s: write -> %s\n", desc, err_name(errno));
		usleep(200000);
		drain_uevents("read-sizes");
		for (;;) {
			memset(buf, 0xee, sizeof(buf));
			ssize_t n = read(rfk, buf, size);

			if (n < 0) {
				printf("read %s soft=%d -> -1 %s\n", desc, soft, err_name(errno));
				break;
			}
			printf("read %s soft=%d -> %zd:", desc, soft, n);
			for (ssize_t i = 0; i < n; i++)
				printf(" %02x", buf[i]);
			printf("\n");
		}
	}
}

/* ---- radios ----------------------------------------------------------- */

/*
 * One control command to the fake (tests/fake/README.md); returns 0 on
 * "ok", with its first data line in reply (if any), -1 otherwise.
 */
static int fake_command(const char *command, char *reply, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	size_t len = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc = -1;

	if (reply)
		reply[0] = '\0';
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", fake_ctl);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect to the fake's control socket");
	dprintf(fd, "%s\n", command);
	for (;;) {
		ssize_t n = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);
		char *last;

		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if (buf[len - 1] != '\n')
			continue;
		/* the reply's last line: "ok" or "error: ..." */
		last = len > 1 ? memrchr(buf, '\n', len - 1) : NULL;
		last = last ? last + 1 : buf;
		if (!strcmp(last, "ok\n")) {
			rc = 0;
			break;
		}
		if (!strncmp(last, "error", 5))
			break;
	}
	close(fd);
	if (rc == 0 && reply && strncmp(buf, "ok\n", 3))
		snprintf(reply, size, "%.*s", (int)strcspn(buf, "\n"), buf);
	if (rc < 0)
		printf("FATAL fake command %s: %.*s\n", command, (int)len, buf);
	return rc;
}

/* The idx of the rfkill device named name (from its sysfs directory). */
static int rfkill_idx(const char *name)
{
	char dir[256];

	if (!rfkill_dir(name, dir, sizeof(dir)))
		return -1;
	return atoi(strrchr(dir, '/') + strlen("/rfkill"));
}

static void vhci_open(void)
{
	static const unsigned char create[] = { 0xff, 0x00 };
	char idx[32];

	if (fake_ctl) {		/* vhci: a Bluetooth controller, hci0 */
		if (fake_command("add bluetooth hci0", idx, sizeof(idx)) < 0)
			exit(2);
		vhci = atoi(idx);
		return;
	}
	vhci = open("/dev/vhci", O_RDWR | O_CLOEXEC);
	if (vhci < 0 || write(vhci, create, sizeof(create)) != sizeof(create))
		die("/dev/vhci");
}

static void vhci_close(void)
{
	char command[64];

	if (!fake_ctl) {
		close(vhci);
		return;
	}
	snprintf(command, sizeof(command), "del %d", vhci);
	if (fake_command(command, NULL, 0) < 0)
		exit(2);
}

/* The TOS6205 switch: on lifts Toshiba Bluetooth's hard block. */
static void set_switch(bool on)
{
	char command[64];

	if (!fake_ctl) {
		outb(on ? 1 : 0, SWITCH_PORT);
		return;
	}
	snprintf(command, sizeof(command), "hard %d %s", rfkill_idx(TOSHIBA),
		 on ? "off" : "on");
	if (fake_command(command, NULL, 0) < 0)
		exit(2);
}

/*
 * On the fake, mac80211_hwsim's module steps are its two phys leaving
 * (phy0, phy1) and two new ones coming (named by the fake, as cfg80211
 * numbers them: never reused).
 */
static int fake_hwsim(const char *shell)
{
	if (strstr(shell, "rmmod")) {
		static const char *const phys[] = { "phy0", "phy1" };

		for (size_t i = 0; i < 2; i++) {
			char command[64];

			snprintf(command, sizeof(command), "del %d", rfkill_idx(phys[i]));
			if (fake_command(command, NULL, 0) < 0)
				return 1;
		}
		return 0;
	}
	for (int i = 0; i < 2; i++)
		if (fake_command("add wlan", NULL, 0) < 0)
			return 1;
	return 0;
}

static void run_step(const char *step, const char *shell, int wait_ms)
{
	int rc = fake_ctl ? fake_hwsim(shell) : system(shell);

	printf("step %s -> %d\n", step, rc);
	observe(step, wait_ms);
}

static void dump_leds(const char *when)
{
	char **leds;

	if (fake_ctl)	/* the fake has no LEDs */
		return;
	leds = list_dir("/sys/class/leds");

	for (char **p = leds; *p; p++) {
		char path[512], what[256];

		snprintf(path, sizeof(path), "/sys/class/leds/%s/trigger", *p);
		/*
		 * The keyboard's LEDs are named after its input device, whose
		 * number depends on probe order (it changes from boot to boot
		 * on 7.2): not something rfkill decides.
		 */
		if (!strncmp(*p, "input", 5) && strstr(*p, "::"))
			snprintf(what, sizeof(what), "input<n>%s trigger", strstr(*p, "::"));
		else
			snprintf(what, sizeof(what), "%s trigger", *p);
		char tag[32];

		snprintf(tag, sizeof(tag), "led %s", when);
		print_value(tag, what, path);
	}
	free_list(leds);
}

/* s with every "input<digits>" as "input<n>": input numbers follow probe order. */
static void no_input_numbers(const char *s, char *out, size_t size)
{
	size_t o = 0;

	while (*s && o + 1 < size) {
		if (!strncmp(s, "input", 5) && s[5] >= '0' && s[5] <= '9') {
			o += snprintf(out + o, size - o, "input<n>");
			if (o >= size)
				o = size - 1;
			for (s += 5; *s >= '0' && *s <= '9'; s++)
				;
			continue;
		}
		out[o++] = *s++;
	}
	out[o] = '\0';
}

/* "bind WHAT path = ..." for the resolved path (or its errno). */
static void print_real(const char *what, const char *kind, const char *path)
{
	char *real = realpath(path, NULL);
	char shown[1024];

	if (!real) {
		printf("bind %s %s -> %s\n", what, kind, err_name(errno));
		return;
	}
	no_input_numbers(real, shown, sizeof(shown));
	printf("bind %s %s = %s\n", what, kind, shown);
	free(real);
}

/*
 * asus-wireless's input devices (by name: the rest are the VM's), one
 * line each, sorted: their numbers, and so the order of
 * /sys/class/input, follow probe order, which may change between boots.
 */
static void dump_input_bindings(void)
{
	char **names = list_dir("/sys/class/input");
	char **lines = calloc(1, sizeof(char *));
	size_t n = 0;

	for (char **p = names; *p; p++) {
		char path[512], buf[256], *real, *drv;
		char where[1024], line[2048];
		int drv_err;

		snprintf(path, sizeof(path), "/sys/class/input/%s/name", *p);
		if (read_file(path, buf, sizeof(buf)) < 0 ||
		    strncmp(buf, "Asus Wireless", 13))
			continue;
		snprintf(path, sizeof(path), "/sys/class/input/%s", *p);
		real = realpath(path, NULL);
		no_input_numbers(real ? real : err_name(errno), where, sizeof(where));
		free(real);
		snprintf(path, sizeof(path), "/sys/class/input/%s/device/driver", *p);
		drv = realpath(path, NULL);
		drv_err = errno;
		snprintf(path, sizeof(path), "/sys/class/input/%s/device/modalias", *p);
		if (read_file(path, buf, sizeof(buf)) < 0)
			snprintf(buf, sizeof(buf), "%s", err_name(errno));
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(line, sizeof(line), "bind input %s driver = %s modalias = %s",
			 where, drv ? drv : err_name(drv_err), buf);
		free(drv);
		lines = realloc(lines, (n + 2) * sizeof(char *));
		lines[n++] = strdup(line);
		lines[n] = NULL;
	}
	free_list(names);
	qsort(lines, n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < n; i++)
		printf("%s\n", lines[i]);
	free_list(lines);
}

/*
 * Where each rfkill device, LED and asus-wireless input device sits and
 * what its device is bound to: its sysfs path, its parent's driver (bus
 * and name) and modalias; then what the asus-wireless driver is bound to
 * on the ACPI and the platform bus.  A driver model other than the in-tree
 * one (an ACPI driver where the line's asus-wireless is a platform driver,
 * a device the in-tree driver takes by _CID and ours refuses) shows here.
 */
static void dump_bindings(void)
{
	static const char *const classes[] = { "rfkill", "leds" };
	static const char *const buses[] = { "acpi", "platform" };

	if (fake_ctl)	/* the fake has no devices */
		return;
	for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++) {
		char dir[64];
		char **names;

		snprintf(dir, sizeof(dir), "/sys/class/%s", classes[c]);
		names = list_dir(dir);
		for (char **p = names; *p; p++) {
			char path[512], what[300], name[128];

			no_input_numbers(*p, name, sizeof(name));
			snprintf(what, sizeof(what), "%s/%s", classes[c], name);
			snprintf(path, sizeof(path), "%s/%s", dir, *p);
			print_real(what, "path", path);
			snprintf(path, sizeof(path), "%s/%s/device/driver", dir, *p);
			print_real(what, "driver", path);
			snprintf(path, sizeof(path), "%s/%s/device/modalias", dir, *p);
			print_value("bind", what, path);
		}
		free_list(names);
	}
	dump_input_bindings();
	for (size_t b = 0; b < sizeof(buses) / sizeof(buses[0]); b++) {
		char dir[64];
		char **drivers;

		snprintf(dir, sizeof(dir), "/sys/bus/%s/drivers", buses[b]);
		drivers = list_dir(dir);
		for (char **d = drivers; *d; d++) {
			char path[512];
			char **bound;

			if (strncmp(*d, "Asus Wireless", 13))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, *d);
			bound = list_dir(path);
			for (char **e = bound; *e; e++)
				if (strchr(*e, ':'))	/* the devices: ATK4002:00 */
					printf("bind %s/%s has %s\n", buses[b], *d, *e);
			free_list(bound);
		}
		free_list(drivers);
	}
}

static void dump_params(void)
{
	if (fake_ctl)	/* nor a module */
		return;
	dump_dir("param", "/sys/module/rfkill/parameters", "");
}

static void dev_node(void)
{
	struct stat st;

	if (fake_ctl)	/* nor a device node */
		return;
	if (stat("/dev/rfkill", &st) < 0) {
		printf("dev /dev/rfkill stat -> %s\n", err_name(errno));
		return;
	}
	printf("dev /dev/rfkill mode=%04o type=%s major=%u\n", st.st_mode & 07777,
	       S_ISCHR(st.st_mode) ? "char" : "other", major(st.st_rdev));
	/* the misc minor is fixed (RFKILL_MINOR) on every kernel line */
	printf("dev /dev/rfkill minor=%u\n", minor(st.st_rdev));
}

/* Many state changes on one fd while another fd never reads. */
static void queue_limit(void)
{
	int q = open("/dev/rfkill", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	struct rfkill_event_ext e = { .idx = 0, .op = RFKILL_OP_CHANGE };
	int failed = 0;

	if (q < 0)
		die("open /dev/rfkill for the queue test");
	indicator_events = 0;
	last_wlan_idx = -1;
	printf("queue initial events on a new fd: %d\n", drain_fd(q, "queue-initial", 0, step_quiet_ms, false));
	printf("queue indicator events on a new fd: %d\n", indicator_events);
	if (last_wlan_idx < 0) {
		printf("queue no wlan radio to toggle\n");
		close(q);
		return;
	}
	/* the hotplugged phys: their idx is the same in both runs */
	e.idx = (uint32_t)last_wlan_idx;
	printf("queue toggling rfkill%d\n", last_wlan_idx);
	for (int i = 0; i < QUEUE_CHANGES; i++) {
		e.soft = (uint8_t)((i + 1) & 1);
		failed += write(rfk, &e, RFKILL_EVENT_SIZE_V1) < 0;
		if (i % 100 == 99)	/* the observer fd and uevents are not the subject */
			drain_fd(rfk, "queue-observer", 0, 0, false);
		if (i % 100 == 99)
			drain_uevents_quiet();
	}
	drain_fd(rfk, "queue-observer", 0, step_quiet_ms, false);
	printf("queue %d state changes: %d writes failed\n", QUEUE_CHANGES, failed);
	indicator_events = 0;
	printf("queue events queued for the fd that never read: %d\n",
	       drain_fd(q, "queue", 0, step_quiet_ms, false));
	printf("queue indicator events queued: %d\n", indicator_events);
	close(q);
}

/* ---- vm-only: radio keys and the master switch ----------------------- */

static int keys_create(void)
{
	struct uinput_setup us = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 0x1d6b, .product = 0x4250 },
		.name = "parity keys",
	};
	int fd = open("/dev/uinput", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	ioctl(fd, UI_SET_EVBIT, EV_KEY);
	ioctl(fd, UI_SET_EVBIT, EV_SW);
	ioctl(fd, UI_SET_KEYBIT, KEY_WLAN);
	ioctl(fd, UI_SET_KEYBIT, KEY_BLUETOOTH);
	ioctl(fd, UI_SET_SWBIT, SW_RFKILL_ALL);
	if (ioctl(fd, UI_DEV_SETUP, &us) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Up to 4 input events, each followed by a SYN_REPORT, in one write(). */
static void keys_send(int fd, const struct input_event *evs, int n)
{
	struct input_event buf[8] = { 0 };
	int k = 0;

	for (int i = 0; i < n && i < 4; i++) {
		buf[k++] = evs[i];
		buf[k].type = EV_SYN;
		buf[k++].code = SYN_REPORT;
	}
	if (write(fd, buf, k * sizeof(*buf)) != (ssize_t)(k * sizeof(*buf)))
		printf("step vm-only:keys write -> %s\n", err_name(errno));
}

static void key_press(int fd, int code)
{
	const struct input_event evs[] = {
		{ .type = EV_KEY, .code = code, .value = 1 },
		{ .type = EV_KEY, .code = code, .value = 0 },
	};

	keys_send(fd, evs, 2);
}

static void master_switch(int fd, int on)
{
	const struct input_event ev = { .type = EV_SW, .code = SW_RFKILL_ALL, .value = on };

	keys_send(fd, &ev, 1);
}

/*
 * The NOINPUT ioctl on a file of its own, then its close: the in-tree
 * module logs both at KERN_DEBUG.  Then the keys: a press that is still
 * pending (held back by the 200 ms rate limit) when SW_RFKILL_ALL goes
 * off is dropped by the EPO, but its odd count stays: the next press of
 * that key evens it out and flips nothing.  Ends with every radio
 * unblocked, as it began.
 */
static void vm_input(void)
{
	struct rfkill_event_ext all = { .op = RFKILL_OP_CHANGE_ALL, .type = RFKILL_TYPE_ALL };
	int fd = open("/dev/rfkill", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	char hci[256], path[320], val[16];
	long start;
	int keys, r;

	if (fd < 0)
		die("open /dev/rfkill for NOINPUT");
	r = ioctl(fd, RFKILL_IOCTL_NOINPUT, NULL);
	printf("ioctl vm-only:noinput-own-fd -> %d %s\n", r, r < 0 ? err_name(errno) : "");
	observe("vm-only:noinput", 0);
	close(fd);
	printf("step vm-only:noinput-close\n");
	observe("vm-only:noinput-close", 0);

	keys = keys_create();
	printf("step vm-only:keys-create -> %s\n", keys < 0 ? err_name(errno) : "ok");
	if (keys < 0)
		return;
	/* the switch reads off at connect: an EPO */
	observe("vm-only:keys-create", 3000);
	master_switch(keys, 1);
	printf("step vm-only:sw-rfkill-all=1\n");
	observe("vm-only:sw-rfkill-all=1", 3000);

	/* outside the rate limit: the Bluetooth press is handled at once */
	usleep(300000);
	if (!rfkill_dir("hci0", hci, sizeof(hci)))
		die("no hci0 for the key steps");
	snprintf(path, sizeof(path), "%s/soft", hci);
	start = now_ms();
	key_press(keys, KEY_BLUETOOTH);
	do {
		if (read_file(path, val, sizeof(val)) > 0 && val[0] == '1')
			break;
		usleep(2000);
	} while (now_ms() - start < 3000);
	/*
	 * Within 200 ms of that press, and after its run: the KEY_WLAN
	 * press waits for the rate limit, and SW_RFKILL_ALL off (an EPO,
	 * which does not wait) finds it pending.  Later than 200 ms, the
	 * press could be applied before the EPO: the step says which.
	 */
	{
		const struct input_event evs[] = {
			{ .type = EV_KEY, .code = KEY_WLAN, .value = 1 },
			{ .type = EV_KEY, .code = KEY_WLAN, .value = 0 },
			{ .type = EV_SW, .code = SW_RFKILL_ALL, .value = 0 },
		};

		keys_send(keys, evs, 3);
	}
	printf("step vm-only:key-bluetooth,key-wlan+sw-rfkill-all=0 -> "
	       "within the rate limit: %s\n", now_ms() - start < 200 ? "yes" : "no");
	observe("vm-only:key-wlan+sw-rfkill-all=0", 3000);
	master_switch(keys, 1);
	printf("step vm-only:sw-rfkill-all=1\n");
	observe("vm-only:sw-rfkill-all=1", 3000);
	usleep(300000);
	key_press(keys, KEY_WLAN);
	printf("step vm-only:key-wlan\n");
	observe("vm-only:key-wlan", 1500);

	close(keys);
	printf("step vm-only:keys-remove\n");
	observe("vm-only:keys-remove", 0);
	if (write(rfk, &all, RFKILL_EVENT_SIZE_V1) < 0)
		printf("write vm-only:unblock-all -> -1 %s\n", err_name(errno));
	observe("vm-only:unblock-all", 0);
}

/* ---- vm-only: an unblock the driver is slow to carry out --------------- */

/*
 * The Toshiba radio (switch on) soft blocked, then a child unblocks it
 * through sysfs while the SSDT's gate holds the driver's set_block()
 * (BTPO).  Meanwhile the uevent file and a uevent say what the device's
 * state is: in-tree, the new soft state; the /dev/rfkill event comes
 * when set_block() returns.
 */
static void vm_pending_unblock(void)
{
	char dir[256], soft[320], uevent[320];
	bool waiting = false;
	long deadline;
	int status = -1;
	pid_t pid;
	int fd, r;

	if (!rfkill_dir(TOSHIBA, dir, sizeof(dir))) {
		printf("step vm-only:pending-unblock -> no device\n");
		return;
	}
	snprintf(soft, sizeof(soft), "%s/soft", dir);
	snprintf(uevent, sizeof(uevent), "%s/uevent", dir);
	sysfs_write(TOSHIBA, "soft", "1");

	outb(1 | SWITCH_GATE, SWITCH_PORT);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		fd = open(soft, O_WRONLY | O_CLOEXEC);
		_exit(fd >= 0 && write(fd, "0", 1) == 1 ? 0 : 1);
	}
	deadline = now_ms() + 10000;
	while (!(waiting = inb(SWITCH_PORT) & SWITCH_WAITING) && now_ms() < deadline)
		usleep(10000);
	printf("step vm-only:pending-unblock -> the driver waits: %s\n",
	       waiting ? "yes" : "no");
	print_value("sysfs vm-only:pending-unblock", "uevent", uevent);
	fd = open(uevent, O_WRONLY | O_CLOEXEC);
	r = fd < 0 || write(fd, "change", 6) != 6 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	printf("write vm-only:pending-unblock uevent=change -> %s\n",
	       r < 0 ? err_name(-r) : "ok");
	drain_uevents("vm-only:pending-unblock");

	outb(1, SWITCH_PORT);
	waitpid(pid, &status, 0);
	printf("write vm-only:pending-unblock soft=0 -> %s\n",
	       WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "failed");
	observe("vm-only:pending-unblock-done", 0);
}

int main(void)
{
	uint32_t max_size;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("parity-begin\n");
	fake_ctl = getenv("PARITY_FAKE_CONTROL");
	if (fake_ctl) {
		class_dir = getenv("RFKILL_SYSFS_ROOT");
		if (!class_dir)
			die("PARITY_FAKE_CONTROL without RFKILL_SYSFS_ROOT");
		step_quiet_ms = 50;
	} else {
		if (ioperm(SWITCH_PORT, 1, 1) < 0)
			die("ioperm for the switch port");
		uev = open_uevents();	/* the fake sends none */
		open_kmsg();		/* nor logs */
	}
	vhci_open();

	rfk = open("/dev/rfkill", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (rfk < 0)
		die("open /dev/rfkill");
	/* hci0 registers a moment after the vhci write: wait for its ADD */
	drain_fd(rfk, "open", 3000, fake_ctl ? step_quiet_ms : 1000, true);
	drain_uevents("boot");

	dump_params();
	dev_node();
	dump_rfkill_sysfs("boot");
	dump_leds("boot");
	dump_bindings();
	do_poll("empty-queue");

	/* blocks and unblocks through sysfs, one device */
	sysfs_write("phy0", "soft", "1");
	sysfs_write("phy0", "soft", "0");
	sysfs_write("phy0", "state", "0");
	sysfs_write("phy0", "state", "1");
	sysfs_write("phy0", "state", "2");
	sysfs_write("phy0", "soft", "2");
	sysfs_write("phy0", "soft", "x");
	sysfs_write("phy0", "soft", "");
	sysfs_write("phy0", "hard", "1");
	sysfs_write("phy0", "name", "foo");
	sysfs_write("phy0", "type", "bluetooth");
	sysfs_write("phy0", "persistent", "1");
	sysfs_write("phy0", "hard_block_reasons", "0");

	/* /dev/rfkill writes, valid and not */
	dev_write("change-v1", 0, 0, RFKILL_OP_CHANGE, 1, 0, RFKILL_EVENT_SIZE_V1);
	do_poll("after-change");
	observe("after-poll", 0);
	dev_write("change-ext", 0, 0, RFKILL_OP_CHANGE, 0, 0, sizeof(struct rfkill_event_ext));
	dev_write("change-long", 1, 0, RFKILL_OP_CHANGE, 1, 0, 64);
	dev_write("change-hard-field", 1, 0, RFKILL_OP_CHANGE, 0, 1, RFKILL_EVENT_SIZE_V1);
	dev_write("change-soft-2", 1, 0, RFKILL_OP_CHANGE, 2, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("change-all-wlan", 0, RFKILL_TYPE_WLAN, RFKILL_OP_CHANGE_ALL, 1, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("change-all-bluetooth", 0, RFKILL_TYPE_BLUETOOTH, RFKILL_OP_CHANGE_ALL, 1, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("change-all-all-unblock", 0, RFKILL_TYPE_ALL, RFKILL_OP_CHANGE_ALL, 0, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("change-all-all-block", 0, RFKILL_TYPE_ALL, RFKILL_OP_CHANGE_ALL, 1, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("change-all-all-unblock", 0, RFKILL_TYPE_ALL, RFKILL_OP_CHANGE_ALL, 0, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("short-0", 0, 0, RFKILL_OP_CHANGE, 1, 0, 0);
	dev_write("short-1", 0, 0, RFKILL_OP_CHANGE, 1, 0, 1);
	dev_write("short-7", 0, 0, RFKILL_OP_CHANGE, 1, 0, RFKILL_EVENT_SIZE_V1 - 1);
	dev_write("op-add", 0, RFKILL_TYPE_WLAN, RFKILL_OP_ADD, 1, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("op-del", 0, RFKILL_TYPE_WLAN, RFKILL_OP_DEL, 1, 0, RFKILL_EVENT_SIZE_V1);
	airplane_ops();
	dev_write("op-6", 0, 0, 6, 1, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("op-255", 0, 0, 255, 1, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("bad-idx", 999, 0, RFKILL_OP_CHANGE, 1, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("change-all-type-9", 0, 9, RFKILL_OP_CHANGE_ALL, 1, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("change-all-type-200", 0, 200, RFKILL_OP_CHANGE_ALL, 1, 0, RFKILL_EVENT_SIZE_V1);
	dev_write("change-unblock-again", 0, 0, RFKILL_OP_CHANGE, 0, 0, RFKILL_EVENT_SIZE_V1);
	if (!fake_ctl)
		vm_input();

	/* ioctls and the read sizes they select */
	do_ioctl("NOINPUT", RFKILL_IOCTL_NOINPUT, NULL);
	read_with(64, "buffer-64");
	read_with(4, "buffer-4");
	read_with(RFKILL_EVENT_SIZE_V1, "buffer-8");
	max_size = RFKILL_EVENT_SIZE_V1;
	do_ioctl("MAX_SIZE=8", RFKILL_IOCTL_MAX_SIZE, &max_size);
	read_with(64, "max-size-8 buffer-64");
	max_size = 4;
	do_ioctl("MAX_SIZE=4", RFKILL_IOCTL_MAX_SIZE, &max_size);
	read_with(64, "max-size-4 buffer-64");
	max_size = 300;
	do_ioctl("MAX_SIZE=300", RFKILL_IOCTL_MAX_SIZE, &max_size);
	read_with(64, "max-size-300 buffer-64");
	max_size = 0;
	do_ioctl("MAX_SIZE=0", RFKILL_IOCTL_MAX_SIZE, &max_size);
	max_size = sizeof(struct rfkill_event_ext);
	do_ioctl("MAX_SIZE=ext", RFKILL_IOCTL_MAX_SIZE, &max_size);
	do_ioctl("unknown R/3", _IO(RFKILL_IOC_MAGIC, 3), NULL);
	do_ioctl("unknown R/0", _IO(RFKILL_IOC_MAGIC, 0), NULL);
	do_ioctl("unknown T/1", _IO('T', 1), NULL);
	do_ioctl("MAX_SIZE as _IO", _IO(RFKILL_IOC_MAGIC, RFKILL_IOC_MAX_SIZE), NULL);
	observe("ioctls", 0);

	/* hard block: the TOS6205 switch, which the core polls */
	set_switch(true);
	printf("step switch-on -> hard=%s\n", wait_attr(TOSHIBA, "hard", "0"));
	observe("switch-on", 3000);
	if (!fake_ctl)
		vm_pending_unblock();
	set_switch(false);
	printf("step switch-off -> hard=%s\n", wait_attr(TOSHIBA, "hard", "1"));
	observe("switch-off", 3000);
	dump_rfkill_sysfs("hard-blocked");

	/* hotplug */
	vhci_close();
	printf("step vhci-close\n");
	observe("vhci-close", 3000);
	vhci_open();
	printf("step vhci-open\n");
	observe("vhci-open", 3000);
	run_step("hwsim-remove", "rmmod mac80211_hwsim", 3000);
	run_step("hwsim-add", "insmod /modules/mac80211_hwsim.ko radios=2", 3000);
	dump_rfkill_sysfs("hotplugged");
	dump_leds("hotplugged");

	queue_limit();
	dump_params();
	printf("end\nparity-end\n");
	return 0;
}
