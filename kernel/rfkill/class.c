// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "rfkill" device class: sysfs attributes, uevents and PM hooks of
 * /sys/class/rfkill/rfkillN.  Attribute semantics follow
 * Documentation/ABI/stable/sysfs-class-rfkill; the set of attributes is
 * the in-tree one of 6.x: no "claim" (Documentation/ABI/removed/).
 */
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>

#include "internal.h"

/* The "state" attribute's numbers (RFKILL_USER_STATE_* in the ABI). */
enum rfkill_user_state {
	RFKILL_USER_SOFT_BLOCKED = 0,
	RFKILL_USER_UNBLOCKED = 1,
	RFKILL_USER_HARD_BLOCKED = 2,
};

static enum rfkill_user_state rfkill_user_state(const struct rfkill_state *st)
{
	if (st->hard)
		return RFKILL_USER_HARD_BLOCKED;
	if (st->soft)
		return RFKILL_USER_SOFT_BLOCKED;
	return RFKILL_USER_UNBLOCKED;
}

/* Apply a pending sync first, so a read never shows a stale state. */
static void rfkill_synced_state(struct rfkill *rfkill, struct rfkill_state *st)
{
	mutex_lock(&rfkill_global_mutex);
	rfkill_sync_locked(rfkill);
	mutex_unlock(&rfkill_global_mutex);
	rfkill_get_state(rfkill, st);
}

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", rfkill_name(rfkill_from_dev(dev)));
}
static DEVICE_ATTR_RO(name);

static ssize_t type_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	enum rfkill_type type = rfkill_get_type(rfkill_from_dev(dev));

	return sysfs_emit(buf, "%s\n", rfkill_type_name(type));
}
static DEVICE_ATTR_RO(type);

static ssize_t index_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", rfkill_index(rfkill_from_dev(dev)));
}
static DEVICE_ATTR_RO(index);

static ssize_t persistent_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  rfkill_is_persistent(rfkill_from_dev(dev)));
}
static DEVICE_ATTR_RO(persistent);

static ssize_t hard_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct rfkill_state st;

	/* no mutex and no pending sync: a sync never changes "hard" */
	rfkill_get_state(rfkill_from_dev(dev), &st);
	return sysfs_emit(buf, "%d\n", st.hard);
}
static DEVICE_ATTR_RO(hard);

static ssize_t soft_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct rfkill_state st;

	rfkill_synced_state(rfkill_from_dev(dev), &st);
	return sysfs_emit(buf, "%d\n", st.soft);
}

static ssize_t soft_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct rfkill *rfkill = rfkill_from_dev(dev);
	unsigned long val;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;

	err = kstrtoul(buf, 0, &val);
	if (err)
		return err;
	if (val > 1)
		return -EINVAL;

	mutex_lock(&rfkill_global_mutex);
	rfkill_sync_locked(rfkill);
	rfkill_set_block_locked(rfkill, val);
	mutex_unlock(&rfkill_global_mutex);

	return count;
}
static DEVICE_ATTR_RW(soft);

static ssize_t hard_block_reasons_show(struct device *dev,
				       struct device_attribute *attr,
				       char *buf)
{
	struct rfkill_state st;

	rfkill_get_state(rfkill_from_dev(dev), &st);
	return sysfs_emit(buf, "0x%lx\n", st.reasons);
}
static DEVICE_ATTR_RO(hard_block_reasons);

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct rfkill_state st;

	rfkill_synced_state(rfkill_from_dev(dev), &st);
	return sysfs_emit(buf, "%d\n", rfkill_user_state(&st));
}

static ssize_t state_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct rfkill *rfkill = rfkill_from_dev(dev);
	unsigned long val;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;

	err = kstrtoul(buf, 0, &val);
	if (err)
		return err;
	/* hard blocked cannot be written */
	if (val != RFKILL_USER_SOFT_BLOCKED && val != RFKILL_USER_UNBLOCKED)
		return -EINVAL;

	mutex_lock(&rfkill_global_mutex);
	rfkill_sync_locked(rfkill);
	rfkill_set_block_locked(rfkill, val == RFKILL_USER_SOFT_BLOCKED);
	mutex_unlock(&rfkill_global_mutex);

	return count;
}
static DEVICE_ATTR_RW(state);

static struct attribute *rfkill_dev_attrs[] = {
	&dev_attr_name.attr,
	&dev_attr_type.attr,
	&dev_attr_index.attr,
	&dev_attr_persistent.attr,
	&dev_attr_state.attr,
	&dev_attr_soft.attr,
	&dev_attr_hard.attr,
	&dev_attr_hard_block_reasons.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rfkill_dev);

static int rfkill_dev_uevent(RFKILL_UEVENT_DEV *cdev,
			     struct kobj_uevent_env *env)
{
	/* only reads; the const is the 6.3+ class API's promise */
	struct rfkill *rfkill = rfkill_from_dev((struct device *)cdev);
	struct rfkill_state st;
	int err;

	err = add_uevent_var(env, "RFKILL_NAME=%s", rfkill_name(rfkill));
	if (err)
		return err;
	/* the name, as in "type": NetworkManager and udev rules match it */
	err = add_uevent_var(env, "RFKILL_TYPE=%s",
			     rfkill_type_name(rfkill_get_type(rfkill)));
	if (err)
		return err;

	rfkill_get_state(rfkill, &st);
	err = add_uevent_var(env, "RFKILL_STATE=%d", rfkill_user_state(&st));
	if (err)
		return err;
	return add_uevent_var(env, "RFKILL_HW_BLOCK_REASON=0x%lx", st.reasons);
}

static DEFINE_SIMPLE_DEV_PM_OPS(rfkill_pm_ops, rfkill_dev_suspend,
				rfkill_dev_resume);

struct class rfkill_class = {
	.name		= "rfkill",
	.dev_release	= rfkill_dev_release,
	.dev_groups	= rfkill_dev_groups,
	.dev_uevent	= rfkill_dev_uevent,
	.pm		= pm_sleep_ptr(&rfkill_pm_ops),
};
