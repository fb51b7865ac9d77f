// SPDX-License-Identifier: GPL-2.0-only
/*
 * rfkill.ko of the rfkill-airplane package: a drop-in replacement for the
 * in-tree rfkill core that adds the airplane-mode indicator.
 */
#include <linux/init.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "internal.h"

#ifndef RFKILL_AIRPLANE_VERSION
#error "RFKILL_AIRPLANE_VERSION must come from the build (see kernel/Kbuild)"
#endif

static int __init rfkill_init(void)
{
	int err;

	rfkill_core_init_states();

	err = class_register(&rfkill_class);
	if (err)
		return err;

	err = rfkill_apm_init();
	if (err)
		goto err_class;

	err = rfkill_global_leds_init();
	if (err)
		goto err_apm;

	err = rfkill_fops_init();
	if (err)
		goto err_leds;

	err = rfkill_input_init();
	if (err)
		goto err_fops;

	return 0;

err_fops:
	rfkill_fops_exit();
err_leds:
	rfkill_global_leds_exit();
err_apm:
	rfkill_apm_exit();
err_class:
	class_unregister(&rfkill_class);
	return err;
}
subsys_initcall(rfkill_init);

static void __exit rfkill_exit(void)
{
	rfkill_input_exit();
	rfkill_fops_exit();
	rfkill_global_leds_exit();
	rfkill_apm_exit();
	class_unregister(&rfkill_class);
}
module_exit(rfkill_exit);

MODULE_DESCRIPTION("RF switch support, with the airplane-mode indicator");
MODULE_LICENSE("GPL");
MODULE_VERSION(RFKILL_AIRPLANE_VERSION);
MODULE_ALIAS_MISCDEV(RFKILL_MINOR);
MODULE_ALIAS("devname:rfkill");
