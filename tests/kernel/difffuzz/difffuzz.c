// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * difffuzz: runs random but seeded sequences of what userspace and the
 * hardware can do to the rfkill core, and prints what is observable after
 * every step.  The host runs it once against Debian's rfkill.ko and once
 * against ours, in the same boot (swap.sh unloads the first and loads the
 * second between the phases), and diffs the two transcripts step by step
 * (test_difffuzz.py).  It checks nothing itself.
 *
 *   difffuzz --seed S --count N --steps M --phase stock --phase ours
 *
 * Sequence i runs with seed S+i, starting from the same state in both
 * phases: all fds closed, no vhci radio, two hwsim radios, the switch at 1
 * (no hard block), every radio unblocked, the asus LED on rfkill-none.
 *
 * Transcript lines: "fz PHASE SEQ.STEP WHAT", where WHAT is the operation
 * and its result ("op ..."), or an observation after the step has settled:
 * "dev" (every sysfs attribute of a device), "led" (every LED), "bind"
 * (where asus-wireless's LED and input device sit, and the bus and driver
 * their device is bound to), "param"
 * (module parameters), "poll" (each fd, never drained first), "uevent"
 * (rfkill uevents of the step, sorted: several work items may send them
 * in either order), "kmsg" (the rfkill core's kernel log lines of the
 * step, with their level), "ev" (events read by an operation).
 *
 * Settling: after an operation the observation is repeated until it stays
 * the same for SETTLE_QUIET_MS (at least the operation's own minimum, e.g.
 * the key handler's 200 ms rate limit), so work items (sync, uevent, LED,
 * key, poll) have run.  Nothing observed is left out.
 *
 * VM setup (test_difffuzz.py): rfkill, mac80211_hwsim radios=2,
 * hci_vhci, uinput, toshiba_bluetooth on the TOS6205 SSDT with pc-testdev
 * (the switch at port 0xe0) and asus_wireless on the ATK4002 SSDT (an
 * LED).  /modules/mac80211_hwsim.ko for the hwsim reload step.
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
#include <time.h>
#include <unistd.h>

#include "kmsg-lines.h"

#define SWITCH_PORT	0xe0	/* pc-testdev: the TOS6205 switch, bit 0 */
#define MAX_FDS		4
#define OBS_SIZE	16384
#define SETTLE_QUIET_MS	120
#define SETTLE_MAX_MS	6000
#define HARD_POLL_MS	12000	/* the core polls the switch every 5 s */
/* in-tree's name, and ours: the same LED on both sides */
#define ASUS_LED	"/sys/class/leds/asus-wireless::airplane"

static const char *phase;
static unsigned int seq, step;
static uint64_t rng;

static int fds[MAX_FDS] = { -1, -1, -1, -1 };
static int vhci = -1;
static int keys = -1;		/* uinput: rfkill keys and SW_RFKILL_ALL */
static int uev = -1;
static int kmsg = -1;		/* the kernel log, from the first phase's start */
static bool hwsim_changed;

/* ---- output and helpers ------------------------------------------------ */

static void out(const char *fmt, ...)
{
	va_list ap;

	printf("fz %s %u.%u ", phase, seq, step);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

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

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* xorshift64*: the same numbers for the same seed everywhere */
static uint32_t rnd(uint32_t n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ULL) >> 32) % n;
}

static int read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ',';
	return 0;
}

static int write_text(const char *path, const char *value, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return (int)n;
}

static void result(const char *what, long r)
{
	if (r < 0)
		out("op %s -> %s", what, err_name((int)-r));
	else
		out("op %s -> %ld", what, r);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entries of dir not starting with '.'; n set; free with free_names. */
static char **names(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		v = realloc(v, sizeof(*v) * (*n + 1));
		v[(*n)++] = strdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

static void free_names(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- observation -------------------------------------------------------- */

static void obs_add(char *obs, const char *fmt, ...)
{
	size_t len = strlen(obs);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(obs + len, OBS_SIZE - len, fmt, ap);
	va_end(ap);
}

static const char *const dev_attrs[] = {
	"name", "type", "index", "persistent", "hard", "soft", "state",
	"hard_block_reasons", "uevent",
};

static const char *const led_attrs[] = { "brightness", "max_brightness", "trigger" };

/* path resolved, with "input<digits>" as "input<n>" (probe order), or errno */
static void obs_real(char *obs, const char *what, const char *path)
{
	char *real = realpath(path, NULL);

	if (!real) {
		obs_add(obs, " %s=%s", what, err_name(errno));
		return;
	}
	obs_add(obs, " %s=", what);
	for (const char *c = real; *c; ) {
		if (!strncmp(c, "input", 5) && c[5] >= '0' && c[5] <= '9') {
			obs_add(obs, "input<n>");
			for (c += 5; *c >= '0' && *c <= '9'; c++)
				;
			continue;
		}
		obs_add(obs, "%c", *c++);
	}
	free(real);
}

/* One class device's line: where it sits and its device's driver. */
static void obs_binding(char *obs, const char *class, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "/sys/class/%s/%s", class, name);
	obs_real(obs, "path", path);
	snprintf(path, sizeof(path), "/sys/class/%s/%s/device/driver", class,
		 name);
	obs_real(obs, "driver", path);
	obs_add(obs, "\n");
}

/*
 * Where asus-wireless's LED and input device sit and what their device
 * is bound to (bus and driver): the line's in-tree driver model, through
 * every module reload a step makes.
 */
static void observe_bindings(char *obs)
{
	char path[512], val[256];
	char **v;
	int n;

	v = names("/sys/class/leds", &n);
	for (int i = 0; i < n; i++) {
		if (strncmp(v[i], "asus-wireless", 13))
			continue;
		obs_add(obs, "bind led %s", v[i]);
		obs_binding(obs, "leds", v[i]);
	}
	free_names(v, n);

	v = names("/sys/class/input", &n);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/class/input/%s/name", v[i]);
		if (strncmp(v[i], "input", 5) || read_text(path, val, sizeof(val)) < 0 ||
		    strncmp(val, "Asus Wireless", 13))
			continue;
		obs_add(obs, "bind input");
		obs_binding(obs, "input", v[i]);
	}
	free_names(v, n);
}

/*
 * Everything the step left behind that can be read without changing the
 * rfkill state: sysfs of every device, LEDs, parameters, and poll() of
 * every fd with its queue as it is.
 */
static void observe(char *obs)
{
	char path[512], val[2048];
	char **v;
	int n;

	obs[0] = 0;
	v = names("/sys/class/rfkill", &n);
	for (int i = 0; i < n; i++) {
		obs_add(obs, "dev %s", v[i]);
		for (size_t a = 0; a < sizeof(dev_attrs) / sizeof(*dev_attrs); a++) {
			snprintf(path, sizeof(path), "/sys/class/rfkill/%s/%s", v[i], dev_attrs[a]);
			int r = read_text(path, val, sizeof(val));

			obs_add(obs, " %s=%s", dev_attrs[a], r < 0 ? err_name(-r) : val);
		}
		obs_add(obs, "\n");
	}
	free_names(v, n);

	v = names("/sys/class/leds", &n);
	for (int i = 0; i < n; i++) {
		obs_add(obs, "led %s", v[i]);
		for (size_t a = 0; a < sizeof(led_attrs) / sizeof(*led_attrs); a++) {
			snprintf(path, sizeof(path), "/sys/class/leds/%s/%s", v[i], led_attrs[a]);
			int r = read_text(path, val, sizeof(val));

			obs_add(obs, " %s=%s", led_attrs[a], r < 0 ? err_name(-r) : val);
		}
		obs_add(obs, "\n");
	}
	free_names(v, n);

	observe_bindings(obs);

	v = names("/sys/module/rfkill/parameters", &n);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/module/rfkill/parameters/%s", v[i]);
		int r = read_text(path, val, sizeof(val));

		obs_add(obs, "param %s=%s\n", v[i], r < 0 ? err_name(-r) : val);
	}
	free_names(v, n);

	for (int i = 0; i < MAX_FDS; i++) {
		struct pollfd p = { .fd = fds[i], .events = POLLIN | POLLOUT | POLLPRI };

		if (fds[i] < 0)
			continue;
		int r = poll(&p, 1, 0);

		obs_add(obs, "poll fd%d -> %d revents=0x%x\n", i, r,
			r > 0 ? p.revents : 0);
	}
}

/* Uevents of the rfkill class since the last call, without SEQNUM. */
static int collect_uevents(char **lines, int max)
{
	char buf[4096];
	int n = 0;
	ssize_t len;

	while ((len = recv(uev, buf, sizeof(buf) - 1, MSG_DONTWAIT)) > 0) {
		char line[1024] = "";
		bool rfkill = false;

		buf[len] = 0;
		for (char *p = buf; p < buf + len; p += strlen(p) + 1) {
			if (!strncmp(p, "SUBSYSTEM=rfkill", 16))
				rfkill = true;
			if (!strncmp(p, "SEQNUM=", 7) || strchr(p, '=') == NULL)
				continue;
			strncat(line, " ", sizeof(line) - strlen(line) - 1);
			strncat(line, p, sizeof(line) - strlen(line) - 1);
		}
		if (rfkill && n < max)
			lines[n++] = strdup(line);
	}
	return n;
}

/* The log records since the last call that the rfkill core wrote. */
static void print_kmsg_line(int level, const char *text, void *data)
{
	(void)data;
	out("kmsg level=%d %s", level, text);
}

static void print_kmsg(void)
{
	kmsg_rfkill_lines(kmsg, print_kmsg_line, NULL);
}

/*
 * Waits until the observation stays the same for SETTLE_QUIET_MS and at
 * least min_ms have passed, then prints it with the step's uevents.
 */
static void settle_and_print(long min_ms)
{
	static char prev[OBS_SIZE], cur[OBS_SIZE];
	long start = now_ms(), stable_since;
	char *ue[256];
	int nue;

	observe(prev);
	stable_since = now_ms();
	for (;;) {
		sleep_ms(20);
		observe(cur);
		if (strcmp(cur, prev)) {
			memcpy(prev, cur, OBS_SIZE);
			stable_since = now_ms();
		}
		long t = now_ms();

		if (t - start >= min_ms && t - stable_since >= SETTLE_QUIET_MS)
			break;
		if (t - start > SETTLE_MAX_MS) {
			out("unsettled after %d ms", SETTLE_MAX_MS);
			break;
		}
	}
	for (char *l = cur; *l; ) {
		char *nl = strchr(l, '\n');

		*nl = 0;
		out("%s", l);
		l = nl + 1;
	}
	nue = collect_uevents(ue, 256);
	qsort(ue, nue, sizeof(*ue), cmp_str);
	for (int i = 0; i < nue; i++) {
		out("uevent%s", ue[i]);
		free(ue[i]);
	}
	print_kmsg();
}

/* ---- operations ---------------------------------------------------------- */

static int rfkill_devices(void)
{
	int n;
	char **v = names("/sys/class/rfkill", &n);

	free_names(v, n);
	return n;
}

/* The sysfs name of a random device, or a name that does not exist. */
static void pick_device(char *name, size_t size)
{
	int n;
	char **v = names("/sys/class/rfkill", &n);

	if (n == 0)
		snprintf(name, size, "rfkill-none");
	else
		snprintf(name, size, "%s", v[rnd(n)]);
	free_names(v, n);
}

static void print_read(int i, ssize_t r, const unsigned char *buf)
{
	char hex[200] = "";

	for (ssize_t k = 0; k < r && k < 64; k++)
		snprintf(hex + strlen(hex), sizeof(hex) - strlen(hex), "%02x", buf[k]);
	if (r < 0)
		out("op read fd%d -> %s", i, err_name(errno));
	else
		out("op read fd%d -> %zd %s", i, r, hex);
}

static void op_open(void)
{
	for (int i = 0; i < MAX_FDS; i++) {
		if (fds[i] >= 0)
			continue;
		fds[i] = open("/dev/rfkill", O_RDWR | O_NONBLOCK | O_CLOEXEC);
		result("open", fds[i] < 0 ? -errno : i);
		return;
	}
	out("op open -> all fds open");
}

static int pick_fd(void)
{
	int open_fds[MAX_FDS], n = 0;

	for (int i = 0; i < MAX_FDS; i++)
		if (fds[i] >= 0)
			open_fds[n++] = i;
	return n ? open_fds[rnd(n)] : -1;
}

static void op_close(void)
{
	int i = pick_fd();

	if (i < 0)
		return op_open();
	close(fds[i]);
	fds[i] = -1;
	out("op close fd%d", i);
}

static const size_t read_sizes[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 64 };

static void op_read(void)
{
	unsigned char buf[64];
	int i = pick_fd();
	size_t size = read_sizes[rnd(sizeof(read_sizes) / sizeof(*read_sizes))];
	int times = 1 + rnd(3);

	if (i < 0)
		return op_open();
	for (int t = 0; t < times; t++) {
		memset(buf, 0xaa, sizeof(buf));
		ssize_t r = read(fds[i], buf, size);

		out("op read size=%zu:", size);
		print_read(i, r, buf);
	}
}

static const uint8_t write_ops[] = { 0, 1, 2, 3, 2, 3, 2, 3, 6, 7, 255 };
static const uint8_t write_types[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 200, 1, 2, 0 };
static const size_t write_sizes[] = { 0, 1, 4, 6, 7, 8, 8, 8, 9, 9, 10, 12, 64 };

static void op_write(void)
{
	unsigned char buf[64] = { 0 };
	struct rfkill_event_ext e = { 0 };
	int i = pick_fd();
	int devs = rfkill_devices();
	size_t size = write_sizes[rnd(sizeof(write_sizes) / sizeof(*write_sizes))];

	if (i < 0)
		return op_open();
	e.idx = rnd(8) == 0 ? 999 : rnd(devs + 8);
	e.type = write_types[rnd(sizeof(write_types) / sizeof(*write_types))];
	e.op = write_ops[rnd(sizeof(write_ops) / sizeof(*write_ops))];
	e.soft = rnd(5) == 0 ? 2 : rnd(2);
	e.hard = rnd(2);
	e.hard_block_reasons = rnd(4);
	memcpy(buf, &e, sizeof(e));
	ssize_t r = write(fds[i], buf, size);

	out("op write fd%d idx=%u type=%u op=%u soft=%u hard=%u size=%zu -> %s%zd",
	    i, e.idx, e.type, e.op, e.soft, e.hard, size,
	    r < 0 ? err_name(errno) : "", r < 0 ? (ssize_t)0 : r);
}

/*
 * Ops 4 and 5 and the ioctl that asks for op-5 events are ours: they go
 * to a file of their own, closed at once, so what they cause stays on it.
 * The exception list lets their results differ; nothing else may.
 */
static void op_airplane(void)
{
	struct rfkill_event_ext e = { .op = 4 + rnd(2), .soft = rnd(2) };
	int fd = open("/dev/rfkill", O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		result("open airplane-fd", -errno);
		return;
	}
	if (rnd(2)) {
		int r = ioctl(fd, _IO(RFKILL_IOC_MAGIC, 0x41), NULL);

		result("ioctl airplane-mode-events", r < 0 ? -errno : r);
	}
	ssize_t r = write(fd, &e, RFKILL_EVENT_SIZE_V1);

	result(e.op == 4 ? "write op-airplane-acquire" : "write op-airplane-change",
	       r < 0 ? -errno : r);
	if (e.op == 4 && r > 0) {
		e.op = 5;
		r = write(fd, &e, RFKILL_EVENT_SIZE_V1);
		result("write op-airplane-change", r < 0 ? -errno : r);
	}
	close(fd);
}

static void op_ioctl(void)
{
	static const uint32_t sizes[] = { 0, 7, 8, 9, 10, 255, 256 };
	int i = pick_fd();
	uint32_t size = sizes[rnd(sizeof(sizes) / sizeof(*sizes))];
	const char *what;
	unsigned long req;
	void *arg = &size;
	int r;

	if (i < 0)
		return op_open();
	switch (rnd(8)) {
	case 0:
	case 1:
		what = "NOINPUT";
		req = RFKILL_IOCTL_NOINPUT;
		arg = NULL;
		break;
	case 2:
	case 3:
		what = "MAX_SIZE";
		req = RFKILL_IOCTL_MAX_SIZE;
		break;
	case 4:
		what = "MAX_SIZE-null";
		req = RFKILL_IOCTL_MAX_SIZE;
		arg = NULL;
		break;
	case 5:
		what = "R/3";
		req = _IO(RFKILL_IOC_MAGIC, 3);
		break;
	case 6:
		what = "R/0";
		req = _IO(RFKILL_IOC_MAGIC, 0);
		break;
	default:
		what = "T/1";
		req = _IO('T', 1);
		break;
	}
	r = ioctl(fds[i], req, arg);
	out("op ioctl fd%d %s size=%u -> %s%d", i, what, size,
	    r < 0 ? err_name(errno) : "", r < 0 ? 0 : r);
}

static void op_sysfs_write(void)
{
	static const char *const attrs[] = { "soft", "soft", "state", "state", "hard", "name" };
	static const char *const values[] = { "0", "1", "0", "1", "2", "x", "", "1\n", "01" };
	char dev[64], path[256];
	const char *attr = attrs[rnd(sizeof(attrs) / sizeof(*attrs))];
	const char *value = values[rnd(sizeof(values) / sizeof(*values))];

	pick_device(dev, sizeof(dev));
	snprintf(path, sizeof(path), "/sys/class/rfkill/%s/%s", dev, attr);
	int r = write_text(path, value, strlen(value));

	out("op sysfs-write %s/%s '%s' -> %s%d", dev, attr,
	    strcmp(value, "1\n") ? value : "1\\n", r < 0 ? err_name(-r) : "",
	    r < 0 ? 0 : r);
}

static int vhci_open(void)
{
	static const unsigned char create[] = { 0xff, 0x00 };

	vhci = open("/dev/vhci", O_RDWR | O_CLOEXEC);
	if (vhci < 0)
		return -errno;
	if (write(vhci, create, sizeof(create)) != sizeof(create))
		return -errno;
	return 0;
}

static int run(const char *cmd)
{
	int r = system(cmd);

	return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

/*
 * The core polls the switch's driver (every 5 s): waits until the Toshiba
 * radio's "hard" follows the switch, or HARD_POLL_MS.  val gets "hard".
 */
static void wait_switch(int on, char *val, size_t size)
{
	long deadline = now_ms() + HARD_POLL_MS;

	snprintf(val, size, "?");
	for (;;) {
		char path[256], name[64];
		bool found = false;
		int n;
		char **v = names("/sys/class/rfkill", &n);

		for (int i = 0; i < n && !found; i++) {
			snprintf(path, sizeof(path), "/sys/class/rfkill/%s/name", v[i]);
			if (read_text(path, name, sizeof(name)) == 0 &&
			    !strcmp(name, "Toshiba Bluetooth")) {
				snprintf(path, sizeof(path), "/sys/class/rfkill/%s/hard", v[i]);
				read_text(path, val, size);
				found = true;
			}
		}
		free_names(v, n);
		if ((found && atoi(val) == !on) || now_ms() > deadline)
			return;
		sleep_ms(50);
	}
}

static void op_radio(void)
{
	switch (rnd(3)) {
	case 0:
		if (vhci < 0) {
			result("vhci-open", vhci_open());
			break;
		}
		close(vhci);
		vhci = -1;
		out("op vhci-close");
		break;
	case 1: {
		int radios = 1 + rnd(2);
		char cmd[128];

		snprintf(cmd, sizeof(cmd),
			 "rmmod mac80211_hwsim && insmod /modules/mac80211_hwsim.ko radios=%d",
			 radios);
		result(radios == 1 ? "hwsim-reload radios=1" : "hwsim-reload radios=2",
		       run(cmd));
		hwsim_changed = true;
		break;
	}
	default: {
		/* the switch: 1 lets the radio on, 0 is a hard block */
		int on = rnd(2);
		char val[16];

		outb(on, SWITCH_PORT);
		wait_switch(on, val, sizeof(val));
		out("op switch=%d -> hard=%s", on, val);
		break;
	}
	}
}

static int keys_create(void)
{
	static const int codes[] = { KEY_RFKILL, KEY_WLAN, KEY_BLUETOOTH, KEY_WWAN, KEY_UWB };
	struct uinput_setup us = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 0x1d6b, .product = 0x4243 },
		.name = "difffuzz keys",
	};
	int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	ioctl(fd, UI_SET_EVBIT, EV_KEY);
	ioctl(fd, UI_SET_EVBIT, EV_SW);
	for (size_t i = 0; i < sizeof(codes) / sizeof(*codes); i++)
		ioctl(fd, UI_SET_KEYBIT, codes[i]);
	ioctl(fd, UI_SET_SWBIT, SW_RFKILL_ALL);
	if (ioctl(fd, UI_DEV_SETUP, &us) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static void emit(int type, int code, int value)
{
	struct input_event ev[2] = {
		{ .type = type, .code = code, .value = value },
		{ .type = EV_SYN, .code = SYN_REPORT, .value = 0 },
	};

	if (write(keys, ev, sizeof(ev)) != sizeof(ev))
		out("uinput write: %s", err_name(errno));
}

static const struct { int code; const char *name; } key_list[] = {
	{ KEY_RFKILL, "KEY_RFKILL" }, { KEY_WLAN, "KEY_WLAN" },
	{ KEY_BLUETOOTH, "KEY_BLUETOOTH" }, { KEY_WWAN, "KEY_WWAN" },
	{ KEY_WLAN, "KEY_WLAN" },
};

static void press_key(int k)
{
	emit(EV_KEY, key_list[k].code, 1);
	emit(EV_KEY, key_list[k].code, 0);
}

/* The wlan radios' soft states, as one string ("01" ...). */
static void wlan_soft(char *s, size_t size)
{
	int n;
	char **v = names("/sys/class/rfkill", &n);

	s[0] = 0;
	for (int i = 0; i < n; i++) {
		char path[256], val[32];

		snprintf(path, sizeof(path), "/sys/class/rfkill/%s/type", v[i]);
		if (read_text(path, val, sizeof(val)) || strcmp(val, "wlan"))
			continue;
		snprintf(path, sizeof(path), "/sys/class/rfkill/%s/soft", v[i]);
		if (read_text(path, val, sizeof(val)) == 0 && strlen(s) + 2 < size)
			strcat(s, val);
	}
	free_names(v, n);
}

/*
 * A key, a burst of keys, or the master switch.  The timed burst presses
 * KEY_WLAN twice 150 ms apart and looks at the wlan radios 100 ms after
 * the second press: the key handler runs at most once per 200 ms, and
 * when the second press runs (50 ms or 200 ms after it) shows.
 */
static long op_keys(void)
{
	int k = rnd(sizeof(key_list) / sizeof(*key_list));

	switch (rnd(5)) {
	case 0:
	case 1:
		press_key(k);
		out("op key %s", key_list[k].name);
		return 450;
	case 2: {
		int gap = (int)rnd(300);
		int k2 = rnd(sizeof(key_list) / sizeof(*key_list));

		press_key(k);
		sleep_ms(gap);
		press_key(k2);
		out("op keys %s gap~%d %s", key_list[k].name, gap / 100 * 100,
		    key_list[k2].name);
		return 650;
	}
	case 3: {
		char before[16], mid[16];

		wlan_soft(before, sizeof(before));
		press_key(1);
		sleep_ms(150);
		press_key(1);
		sleep_ms(100);
		wlan_soft(mid, sizeof(mid));
		out("op keys-timed KEY_WLAN 150ms KEY_WLAN -> wlan soft %s, 100 ms later %s",
		    before, mid);
		return 650;
	}
	default: {
		int on = rnd(2);

		emit(EV_SW, SW_RFKILL_ALL, on);
		out("op SW_RFKILL_ALL=%d", on);
		return 450;
	}
	}
}

static void op_led(void)
{
	char trig[64];

	switch (rnd(4)) {
	case 0:
		snprintf(trig, sizeof(trig), "none");
		break;
	case 1:
		snprintf(trig, sizeof(trig), "rfkill-any");
		break;
	case 2:
		snprintf(trig, sizeof(trig), "rfkill-none");
		break;
	default:
		pick_device(trig, sizeof(trig));
		break;
	}
	int r = write_text(ASUS_LED "/trigger", trig, strlen(trig));

	out("op led-trigger %s -> %s%d", trig, r < 0 ? err_name(-r) : "", r < 0 ? 0 : r);
}

/*
 * pm_test suspend and resume (devices suspended for a second), with a
 * change pending: a key press held back by the rate limit, a new radio
 * still to take the global state, or nothing.
 */
static void op_suspend(void)
{
	const char *pending = "nothing";

	switch (rnd(3)) {
	case 0:
		press_key(1);
		press_key(1);
		pending = "key";
		break;
	case 1:
		if (vhci < 0 && vhci_open() == 0) {
			pending = "vhci-open";
			break;
		}
		/* fall through */
	default:
		break;
	}
	write_text("/sys/module/suspend/parameters/pm_test_delay", "1", 1);
	write_text("/sys/power/pm_test", "devices", 7);
	int r = write_text("/sys/power/state", "freeze", 6);

	write_text("/sys/power/pm_test", "none", 4);
	out("op suspend pending=%s -> %s%d", pending, r < 0 ? err_name(-r) : "",
	    r < 0 ? 0 : r);
}

/* ---- sequences ------------------------------------------------------------ */

static void close_all(void)
{
	for (int i = 0; i < MAX_FDS; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

/* What is left in every queue, then all fds closed. */
static void drain_all(void)
{
	unsigned char buf[64];

	for (int i = 0; i < MAX_FDS; i++) {
		if (fds[i] < 0)
			continue;
		for (int k = 0; k < 2000; k++) {
			ssize_t r = read(fds[i], buf, sizeof(buf));

			print_read(i, r, buf);
			if (r < 0)
				break;
		}
	}
	close_all();
}

/* The same starting point for every sequence, in both phases. */
static void reset(void)
{
	struct rfkill_event e = { .op = RFKILL_OP_CHANGE_ALL, .type = RFKILL_TYPE_ALL };
	char val[16];
	int fd;

	close_all();
	if (keys >= 0)
		close(keys);
	keys = keys_create();
	if (keys < 0)
		printf("FATAL uinput: %s\n", err_name(-keys));
	sleep_ms(300);
	emit(EV_SW, SW_RFKILL_ALL, 1);	/* no EPO lock left behind */
	if (vhci >= 0)
		close(vhci);
	vhci = -1;
	if (hwsim_changed)
		run("rmmod mac80211_hwsim; insmod /modules/mac80211_hwsim.ko radios=2");
	hwsim_changed = false;
	outb(1, SWITCH_PORT);
	wait_switch(1, val, sizeof(val));
	write_text(ASUS_LED "/trigger", "rfkill-none", 11);
	sleep_ms(600);
	fd = open("/dev/rfkill", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, &e, RFKILL_EVENT_SIZE_V1) < 0)
			printf("reset write: %s\n", err_name(errno));
		close(fd);
	}
	step = 0;
	settle_and_print(0);
}

static void run_sequence(unsigned int steps)
{
	reset();
	for (step = 1; step <= steps; step++) {
		long min_ms = 0;
		uint32_t pick = rnd(100);

		if (pick < 12)
			op_open();
		else if (pick < 18)
			op_close();
		else if (pick < 32)
			op_read();
		else if (pick < 50)
			op_write();
		else if (pick < 53)
			op_airplane();
		else if (pick < 62)
			op_ioctl();
		else if (pick < 72)
			op_sysfs_write();
		else if (pick < 78)
			op_radio();
		else if (pick < 88)
			min_ms = op_keys();
		else if (pick < 94)
			op_led();
		else
			op_suspend();
		settle_and_print(min_ms);
	}
	out("drain");
	drain_all();
	print_kmsg();	/* closing a NOINPUT file may log */
}

static void swap_modules(void)
{
	if (keys >= 0)
		close(keys);
	keys = -1;
	if (vhci >= 0)
		close(vhci);
	vhci = -1;
	close_all();
	if (uev >= 0)
		close(uev);
	/* the hardware as at boot: the switch at 0 (pc-testdev's reset value) */
	outb(0, SWITCH_PORT);
	hwsim_changed = false;
	printf("# swap: %d\n", run("sh /guest/swap.sh"));
	/* the next phase's log starts here, as the first one's did */
	lseek(kmsg, 0, SEEK_END);
}

static int open_uevents(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	return fd;
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	unsigned int count = 1, steps = 20, tests = 0;
	const char *phases[4];
	int nphases = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--count"))
			count = (unsigned int)strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--steps"))
			steps = (unsigned int)strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--phase") && nphases < 4)
			phases[nphases++] = argv[i + 1];
	}
	if (ioperm(SWITCH_PORT, 1, 1) < 0) {
		printf("FATAL ioperm: %s\n", err_name(errno));
		return 2;
	}
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg < 0 || lseek(kmsg, 0, SEEK_END) < 0) {
		printf("FATAL /dev/kmsg: %s\n", err_name(errno));
		return 2;
	}
	for (int p = 0; p < nphases; p++) {
		long t0 = now_ms();

		if (p > 0)
			swap_modules();
		phase = phases[p];
		uev = open_uevents();
		for (seq = 0; seq < count; seq++) {
			rng = (seed + seq) * 0x9e3779b97f4a7c15ULL + 1;
			printf("fz %s %u.0 seed %llu\n", phase, seq, seed + seq);
			run_sequence(steps);
		}
		printf("ok %u - phase %s: %u sequences of %u steps from seed %llu in %ld s\n",
		       ++tests, phase, count, steps, seed, (now_ms() - t0) / 1000);
	}
	printf("1..%u\n", tests);
	return 0;
}
