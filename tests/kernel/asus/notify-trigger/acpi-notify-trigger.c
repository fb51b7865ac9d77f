// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test-only: raise an ACPI notify from inside the guest, the way firmware
 * does when a hotkey is pressed.  Writing N to
 * /sys/module/acpi_notify_trigger/parameters/notify evaluates the fixture's
 * \TNFY(N), which does Notify (\_SB.ASHS, N).
 *
 * Never install this on a real machine: any root process could fake
 * firmware events with it.
 */

#include <linux/acpi.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static int notify_set(const char *val, const struct kernel_param *kp)
{
	acpi_handle handle;
	acpi_status status;
	u32 event;
	int err;

	err = kstrtou32(val, 0, &event);
	if (err)
		return err;

	status = acpi_get_handle(NULL, "\\TNFY", &handle);
	if (ACPI_FAILURE(status)) {
		pr_err("acpi_notify_trigger: no \\TNFY method: %s\n",
		       acpi_format_exception(status));
		return -ENODEV;
	}

	status = acpi_execute_simple_method(handle, NULL, event);
	if (ACPI_FAILURE(status)) {
		pr_err("acpi_notify_trigger: \\TNFY(0x%x) failed: %s\n",
		       event, acpi_format_exception(status));
		return -EIO;
	}
	return 0;
}

static const struct kernel_param_ops notify_ops = {
	.set = notify_set,
};
module_param_cb(notify, &notify_ops, NULL, 0200);
MODULE_PARM_DESC(notify, "write an event number to Notify (\\_SB.ASHS, N)");

MODULE_DESCRIPTION("Test-only ACPI notify trigger for the fake ASHS fixtures");
MODULE_LICENSE("GPL");
