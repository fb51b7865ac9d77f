// SPDX-License-Identifier: GPL-2.0-only
/*
 * The design of the airplane-mode indicator (the "rfkill-airplane-mode" LED
 * trigger, /dev/rfkill operations to take it over and set it, ASUS
 * driving its LED from it) is that of the 2016 series "RFKill
 * airplane-mode indicator" by João Paulo Rechi Vita <jprvita@gmail.com>.
 */
/*
 * Asus Wireless Radio Control: airplane-mode hotkey and airplane-mode LED
 * of the ASHS ACPI device (ATK4001, ATK4002).
 *
 * The hotkey arrives as ACPI notify 0x88 and is sent on as KEY_RFKILL, so
 * rfkill-input toggles every radio.  The LED is driven through the HSWC
 * method and follows the "rfkill-airplane-mode" trigger of the
 * rfkill-airplane rfkill.ko.
 */

#include <linux/acpi.h>
#include <linux/input.h>
#include <linux/leds.h>
#include <linux/module.h>
#include <linux/pci_ids.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "../include/uapi/rfkill-airplane.h"
#include "compat.h"

#ifndef RFKILL_AIRPLANE_VERSION
#error "RFKILL_AIRPLANE_VERSION must come from the build (see kernel/Kbuild)"
#endif

#define ASUS_WIRELESS_HOTKEY	0x88

/* HSWC argument that reads the LED back; the same on every known ASHS. */
#define HSWC_STATUS		0x2

/*
 * HSWC arguments that switch the LED, which differ between the two ids;
 * HSWC(HSWC_STATUS) returns the "on" argument while the LED is on.  The
 * values are those of the in-tree driver (per-HID since 2016); note that
 * ATK4001 is inverted: 0 lights the LED.
 */
struct hswc_params {
	u8 on;
	u8 off;
};

static const struct hswc_params atk4001_params = { .on = 0x0, .off = 0x1 };
static const struct hswc_params atk4002_params = { .on = 0x5, .off = 0x4 };

struct asus_wireless_data {
	/* The device we are bound to: the ACPI or platform device (compat.h). */
	struct device *dev;
	struct acpi_device *adev;
	const struct hswc_params *hswc;
	struct input_dev *idev;

	/*
	 * The LED core calls brightness_set from any context (triggers fire
	 * under rfkill's locks), but evaluating HSWC may sleep.  led_set
	 * only stores the wanted HSWC argument in led_arg and queues
	 * led_work on wq, which evaluates the latest led_arg.  led_arg has
	 * a single writer (the LED core serialises brightness_set) and is
	 * accessed with READ_ONCE/WRITE_ONCE: a set that races with a
	 * running work item re-queues it, so the last value always wins.
	 */
	struct workqueue_struct *wq;
	struct work_struct led_work;
	int led_arg;
	struct led_classdev led;
	bool has_led;

	/* Only touched from the (serialised) ACPI notify handler. */
	bool unknown_event_logged;
};

static int hswc(struct asus_wireless_data *data, int arg, u64 *ret)
{
	union acpi_object obj = {
		.integer = { .type = ACPI_TYPE_INTEGER, .value = arg },
	};
	struct acpi_object_list args = { .count = 1, .pointer = &obj };
	acpi_handle handle = acpi_device_handle(data->adev);
	unsigned long long value;
	acpi_status status;

	status = acpi_evaluate_integer(handle, "HSWC", &args, &value);
	if (ACPI_FAILURE(status)) {
		acpi_handle_err(handle, "HSWC(0x%x) failed: %s\n",
				arg, acpi_format_exception(status));
		return -EIO;
	}
	if (ret)
		*ret = value;
	return 0;
}

static enum led_brightness asus_wireless_led_get(struct led_classdev *led)
{
	struct asus_wireless_data *data =
		container_of(led, struct asus_wireless_data, led);
	u64 state;

	if (hswc(data, HSWC_STATUS, &state))
		return LED_OFF;
	/*
	 * LED_FULL, not max_brightness (1): the sysfs brightness of a lit
	 * LED reads 255, as with the in-tree driver.
	 */
	return state == data->hswc->on ? LED_FULL : LED_OFF;
}

static void asus_wireless_led_work(struct work_struct *work)
{
	struct asus_wireless_data *data =
		container_of(work, struct asus_wireless_data, led_work);

	hswc(data, READ_ONCE(data->led_arg), NULL);
}

static void asus_wireless_led_set(struct led_classdev *led,
				  enum led_brightness value)
{
	struct asus_wireless_data *data =
		container_of(led, struct asus_wireless_data, led);

	WRITE_ONCE(data->led_arg, value ? data->hswc->on : data->hswc->off);
	queue_work(data->wq, &data->led_work);
}

static void asus_wireless_hotkey(struct asus_wireless_data *data, u32 event)
{
	if (event != ASUS_WIRELESS_HOTKEY) {
		/* Log only the first unknown event: firmware may be chatty. */
		if (!data->unknown_event_logged) {
			dev_dbg(data->dev, "ignoring ACPI event 0x%x\n", event);
			data->unknown_event_logged = true;
		}
		return;
	}

	input_report_key(data->idev, KEY_RFKILL, 1);
	input_sync(data->idev);
	input_report_key(data->idev, KEY_RFKILL, 0);
	input_sync(data->idev);
}

static int asus_wireless_input_register(struct asus_wireless_data *data)
{
	struct input_dev *idev;
	int err;

	idev = input_allocate_device();
	if (!idev)
		return -ENOMEM;

	idev->name = "Asus Wireless Radio Control";
	idev->phys = "asus-wireless/input0";
	idev->id.bustype = BUS_HOST;
	idev->id.vendor = PCI_VENDOR_ID_ASUSTEK;
	idev->dev.parent = data->dev;
	input_set_capability(idev, EV_KEY, KEY_RFKILL);

	err = input_register_device(idev);
	if (err) {
		input_free_device(idev);
		return err;
	}
	data->idev = idev;
	return 0;
}

static int asus_wireless_led_register(struct asus_wireless_data *data)
{
	int err;

	data->wq = alloc_ordered_workqueue("asus_wireless", 0);
	if (!data->wq)
		return -ENOMEM;
	INIT_WORK(&data->led_work, asus_wireless_led_work);

	/* the in-tree name: users' udev rules and scripts write to it */
	data->led.name = "asus-wireless::airplane";
	data->led.max_brightness = 1;
	data->led.brightness_set = asus_wireless_led_set;
	data->led.brightness_get = asus_wireless_led_get;
	data->led.flags = LED_CORE_SUSPENDRESUME;
	data->led.default_trigger = RFKILL_AIRPLANE_MODE_TRIGGER;

	/*
	 * Not devm: the LED must be gone before wq is destroyed, because
	 * unregistering it sets the brightness once more.
	 */
	err = led_classdev_register(data->dev, &data->led);
	if (err)
		goto err_destroy_wq;
	data->has_led = true;
	return 0;

err_destroy_wq:
	destroy_workqueue(data->wq);
	data->wq = NULL;
	return err;
}

static void asus_wireless_led_unregister(struct asus_wireless_data *data)
{
	if (!data->has_led)
		return;
	led_classdev_unregister(&data->led);
	/* Runs the last queued HSWC call before the data goes away. */
	destroy_workqueue(data->wq);
}

static const struct acpi_device_id device_ids[] = {
	{ "ATK4001", (kernel_ulong_t)&atk4001_params },
	{ "ATK4002", (kernel_ulong_t)&atk4002_params },
	{ "", 0 },
};
MODULE_DEVICE_TABLE(acpi, device_ids);

/* The HSWC values for adev's ids, or NULL: which ids count is compat.h's. */
static const struct hswc_params *hswc_params_of(struct acpi_device *adev)
{
	const struct acpi_device_id *id;

#ifdef ASUS_WIRELESS_MATCH_ANY_ID
	id = acpi_match_acpi_device(device_ids, adev);
	return id ? (const struct hswc_params *)id->driver_data : NULL;
#else
	for (id = device_ids; id->id[0]; id++)
		if (!strcmp(id->id, acpi_device_hid(adev)))
			return (const struct hswc_params *)id->driver_data;
	return NULL;
#endif
}

/*
 * Everything but the binding: the hotkey's input device and, when the
 * firmware has HSWC and params says how to drive it, the LED, both
 * children of dev.  The caller stores the result in dev's driver data.
 */
static struct asus_wireless_data *
asus_wireless_setup(struct device *dev, struct acpi_device *adev,
		    const struct hswc_params *params)
{
	struct asus_wireless_data *data;
	int err;

	data = kzalloc(sizeof(*data), GFP_KERNEL);
	if (!data)
		return ERR_PTR(-ENOMEM);
	data->dev = dev;
	data->adev = adev;
	data->hswc = params;

	err = asus_wireless_input_register(data);
	if (err)
		goto err_free;

	if (!params) {
		/* 6.1 and _CID-only firmware: the hotkey, no LED (compat.h) */
		dev_info(dev, "no LED values for _HID %s\n",
			 acpi_device_hid(adev));
	} else if (!acpi_has_method(acpi_device_handle(adev), "HSWC")) {
		/* Machines without HSWC still have the hotkey, just no LED. */
		dev_info(dev, "no HSWC method, no airplane-mode LED\n");
	} else {
		err = asus_wireless_led_register(data);
		if (err)
			goto err_input;
	}
	return data;

err_input:
	input_unregister_device(data->idev);
err_free:
	kfree(data);
	return ERR_PTR(err);
}

/* The notify handler is gone before this runs. */
static void asus_wireless_teardown(struct asus_wireless_data *data)
{
	asus_wireless_led_unregister(data);
	input_unregister_device(data->idev);
	kfree(data);
}

#ifdef ASUS_WIRELESS_PLATFORM_DRIVER

static struct asus_wireless_data *asus_wireless_of(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static void asus_wireless_acpi_notify(acpi_handle handle, u32 event,
				      void *context)
{
	asus_wireless_hotkey(context, event);
}

static int asus_wireless_probe(struct platform_device *pdev)
{
	struct acpi_device *adev = ACPI_COMPANION(&pdev->dev);
	const struct hswc_params *params;
	struct asus_wireless_data *data;
	int err;

	if (!adev)
		return -ENODEV;
	params = hswc_params_of(adev);
	if (!params)
		return -ENODEV;

	data = asus_wireless_setup(&pdev->dev, adev, params);
	if (IS_ERR(data))
		return PTR_ERR(data);
	platform_set_drvdata(pdev, data);

	err = acpi_dev_install_notify_handler(adev, ACPI_DEVICE_NOTIFY,
					      asus_wireless_acpi_notify, data);
	if (err) {
		platform_set_drvdata(pdev, NULL);
		asus_wireless_teardown(data);
	}
	return err;
}

static void asus_wireless_remove(struct platform_device *pdev)
{
	struct asus_wireless_data *data = platform_get_drvdata(pdev);

	acpi_dev_remove_notify_handler(data->adev, ACPI_DEVICE_NOTIFY,
				       asus_wireless_acpi_notify);
	platform_set_drvdata(pdev, NULL);
	asus_wireless_teardown(data);
}

#else /* !ASUS_WIRELESS_PLATFORM_DRIVER */

static struct asus_wireless_data *asus_wireless_of(struct device *dev)
{
	return acpi_driver_data(to_acpi_device(dev));
}

static void asus_wireless_notify(struct acpi_device *adev, u32 event)
{
	asus_wireless_hotkey(acpi_driver_data(adev), event);
}

static int asus_wireless_add(struct acpi_device *adev)
{
	struct asus_wireless_data *data;

	/* Bound whatever hswc_params_of() says: no LED values, no LED. */
	data = asus_wireless_setup(&adev->dev, adev, hswc_params_of(adev));
	if (IS_ERR(data))
		return PTR_ERR(data);
	adev->driver_data = data;
	return 0;
}

/* The ACPI core has removed the notify handler before calling this. */
static ASUS_WIRELESS_ACPI_REMOVE_T asus_wireless_remove(struct acpi_device *adev)
{
	asus_wireless_teardown(acpi_driver_data(adev));
	adev->driver_data = NULL;
	return ASUS_WIRELESS_ACPI_REMOVE_RET;
}

#endif /* ASUS_WIRELESS_PLATFORM_DRIVER */

/*
 * The LED is our child, so it has suspended (and queued "off") before
 * this runs: make sure that write reaches the firmware before sleep.
 */
static int asus_wireless_suspend(struct device *dev)
{
	struct asus_wireless_data *data = asus_wireless_of(dev);

	if (data->has_led)
		flush_workqueue(data->wq);
	return 0;
}

static DEFINE_SIMPLE_DEV_PM_OPS(asus_wireless_pm, asus_wireless_suspend, NULL);

/* The name is the in-tree driver's, on the ACPI and the platform bus. */
#define ASUS_WIRELESS_DRIVER_NAME	"Asus Wireless Radio Control Driver"

#ifdef ASUS_WIRELESS_PLATFORM_DRIVER
static struct platform_driver asus_wireless_driver = {
	.probe = asus_wireless_probe,
	.remove = asus_wireless_remove,
	.driver = {
		.name = ASUS_WIRELESS_DRIVER_NAME,
		.acpi_match_table = device_ids,
		.pm = pm_sleep_ptr(&asus_wireless_pm),
	},
};
module_platform_driver(asus_wireless_driver);
#else
static struct acpi_driver asus_wireless_driver = {
	.name = ASUS_WIRELESS_DRIVER_NAME,
	.class = "hotkey",
	.ids = device_ids,
	.ops = {
		.add = asus_wireless_add,
		.remove = asus_wireless_remove,
		.notify = asus_wireless_notify,
	},
	.drv.pm = pm_sleep_ptr(&asus_wireless_pm),
};
module_acpi_driver(asus_wireless_driver);
#endif

MODULE_DESCRIPTION("Asus Wireless Radio Control Driver with airplane-mode LED");
MODULE_AUTHOR("rfkill-applet developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(RFKILL_AIRPLANE_VERSION);
