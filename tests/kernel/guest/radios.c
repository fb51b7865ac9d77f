// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The radios the VM provides (hwsim phy0/phy1, vhci hci0) and their sysfs view.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest.h"

struct radio radios[NRADIOS] = {
	{ .name = "phy0", .type = RFKILL_TYPE_WLAN, .type_name = "wlan" },
	{ .name = "phy1", .type = RFKILL_TYPE_WLAN, .type_name = "wlan" },
	{ .name = "hci0", .type = RFKILL_TYPE_BLUETOOTH, .type_name = "bluetooth" },
};
int n_sysfs_devices;
int vhci_fd = -1;

const char *attr(const struct radio *r, const char *name)
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

struct radio *radio_by_idx(unsigned int idx)
{
	for (int i = 0; i < NRADIOS; i++)
		if (radios[i].found && radios[i].idx == idx)
			return &radios[i];
	return NULL;
}

/* Finds phy0, phy1 and hci0 under /sys/class/rfkill; true if all are there. */
bool scan_sysfs(void)
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

void setup_radios(void)
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

bool all_soft(int want)
{
	char want_s[2] = { (char)('0' + want), 0 };

	for (int i = 0; i < NRADIOS; i++)
		if (strcmp(attr(&radios[i], "soft"), want_s))
			return false;
	return true;
}

/* Waits until the radios' soft states read like want ("110": phy0 phy1 hci0). */
bool wait_soft(const char *want, int ms)
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

/* Opens a helper fd, blocks or unblocks everything, and closes it. */
void set_all(int soft)
{
	int fd = rfk_open();

	if (fd >= 0) {
		block_all(fd, soft);
		close(fd);
	}
}
