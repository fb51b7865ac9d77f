/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The differences between kernel lines that asus-wireless.c follows, in
 * one place (kernel/rfkill/compat.h is the same for rfkill.ko).  Each one
 * is what the in-tree asus-wireless of that line does, read in Debian's
 * linux-source packages (kernel/README.md records which): our module
 * replaces it, so userspace must find the same devices, paths and
 * binding.
 */
#ifndef _ASUS_WIRELESS_COMPAT_H
#define _ASUS_WIRELESS_COMPAT_H

#include <linux/version.h>

/* The one comparison with LINUX_VERSION_CODE (checkpatch warns here). */
#define ASUS_WIRELESS_KERNEL_AT_LEAST(major, minor, sub) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(major, minor, sub))

/*
 * The driver model.  In 6.1 and 6.12 the in-tree driver is a struct
 * acpi_driver: it binds to the ACPI device (/sys/bus/acpi/drivers/...),
 * and its input device and LED are children of that device
 * (/sys/devices/LNXSYSTM:00/LNXSYBUS:00/ATK4002:00/...).  In 7.2 (Debian's
 * 7.2.6 to 7.2.13) and 7.3 it is a platform_driver bound to the platform
 * device the ACPI core creates for the same node
 * (/sys/bus/platform/drivers/..., /sys/devices/platform/ATK4002:00/...),
 * installs its notify handler itself, and fails the probe with -ENODEV
 * when no id of its table matches; 7.3 has no struct acpi_driver at all.
 * The change happened upstream after 6.12 and by 7.2: Debian's archive has
 * no linux-source of the lines between, and verified-kernels lets DKMS
 * build for none of them.
 */
#if ASUS_WIRELESS_KERNEL_AT_LEAST(7, 2, 0)
#define ASUS_WIRELESS_PLATFORM_DRIVER
#endif

/*
 * Which ids choose the HSWC values (and so whether there is an LED).  6.1
 * compares the device's _HID with the table only: firmware that names
 * ATK4001/ATK4002 in _CID alone is bound (the ACPI bus matches _CID too)
 * and keeps its hotkey, without an LED.  6.12 and later take any of the
 * device's ids (acpi_match_acpi_device(): _HID, then each _CID).
 */
#if ASUS_WIRELESS_KERNEL_AT_LEAST(6, 12, 0)
#define ASUS_WIRELESS_MATCH_ANY_ID
#endif

/* acpi_op_remove returns void since 6.2 (acpi_driver lines only). */
#if ASUS_WIRELESS_KERNEL_AT_LEAST(6, 2, 0)
#define ASUS_WIRELESS_ACPI_REMOVE_T	void
#define ASUS_WIRELESS_ACPI_REMOVE_RET
#else
#define ASUS_WIRELESS_ACPI_REMOVE_T	int
#define ASUS_WIRELESS_ACPI_REMOVE_RET	0
#endif

#endif /* _ASUS_WIRELESS_COMPAT_H */
