// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Random writes, removing every radio, and the kernel log.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest.h"

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

void test_fuzz(long count)
{
	int fds[4];
	long accepted = 0, einval = 0, eacces = 0, ebusy = 0, other = 0, reads = 0;
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
		else if (n < 0 && errno == EBUSY)
			ebusy++;	/* an owner past its op-5 limit */
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
	tap_diag("accepted %ld, EINVAL %ld, EACCES %ld, EBUSY %ld, events read %ld",
		 accepted, einval, eacces, ebusy, reads);
	tap_ok(other == 0 && accepted > 0 && einval > 0,
	       "%ld random writes: each one accepted, EINVAL, EACCES or EBUSY (other=%ld)",
	       count, other);
	set_all(0);
	sleep_ms(500);
	tap_ok(scan_sysfs() && all_soft(0), "after the random writes every radio can be unblocked");
	{
		int fd = rfk_open_ind(), adds = 0, ind = 0;
		struct rfkill_event_ext ev;

		while (read(fd, &ev, sizeof(ev)) > 0) {
			adds += ev.op == RFKILL_OP_ADD;
			ind += ev.op == OP_INDICATOR;
		}
		tap_ok(adds == n_sysfs_devices && ind == 1,
		       "a fresh fd that asks sees the %d devices and the indicator (%d ADDs, %d op-5)",
		       n_sysfs_devices, adds, ind);
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
void test_no_radios(void)
{
	static const unsigned char create[] = { 0xff, 0x00 };
	struct rfkill_event_ext ev;
	int l = rfk_open_ind(), dels = 0, r, last = -1;
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
	/* not even an off-then-on pair: the LED would blink */
	r = count_ind(l, QUIET_MS, &last);
	tap_ok(r == 0, "the blocked newcomer keeps the indicator on, no op-5 at all (%d, last %d)",
	       r, last);
	block_all(l, 0);
	ind_is(l, 0, "CHANGE_ALL all soft=0 with the newcomer");
	close(l);
}

void test_dmesg(void)
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
