// SPDX-License-Identifier: GPL-2.0-only
/*
 * /dev/rfkill: one event queue per open file, CHANGE/CHANGE_ALL writes,
 * the NOINPUT and MAX_SIZE ioctls, and the airplane-mode indicator ops
 * with their opt-in ioctl (RFKILL_IOCTL_AIRPLANE_MODE_EVENTS), the ioctl
 * that takes the indicator back, the one that resets the airplane key's
 * state, and the misc device's sysfs file that names its holder.
 */
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "internal.h"

struct rfkill_queued_event {
	struct list_head	list;
	struct rfkill_event_ext	ev;
};

/*
 * Device events queued for one file that nobody reads are kept up to this
 * many, newer ones are dropped: the limit and its off-by-one (a queue
 * holds at most RFKILL_MAX_QUEUED + 1) are those of upstream's "net:
 * rfkill: prevent unlimited numbers of rfkill events from being created"
 * (ea245d78dec5), which every kernel line we replace carries (6.1.169+,
 * 6.12.81+, 7.x).  In-tree, that cap counts the only events there are,
 * the devices' ADD, DEL and CHANGE.  Op-5 events do not count against it:
 * if they did, a file that asked for them would lose device events that
 * in-tree keeps, which rfkill-airplane.h promises never happens.  They
 * have a bound of their own, RFKILL_AIRPLANE_MODE_MAX_QUEUED, kept by
 * rfkill_fold_indicator(), so a file holds at most RFKILL_MAX_QUEUED + 1
 * device events plus that many op-5 events: still a fixed amount.
 */
#define RFKILL_MAX_QUEUED	1000

struct rfkill_file {
	struct list_head	list;		/* in rfkill_files; global mutex */
	/* asked for op-5 events (ioctl or ACQUIRE); global mutex */
	bool			apm_events;
	/* its hold was broken: no ACQUIRE on this file again; global mutex */
	bool			apm_broken;
	/* the owner's indicator CHANGEs; global mutex */
	struct ratelimit_state	apm_changes;

	struct mutex		mtx;		/* guards events, the counts */
	struct list_head	events;
	unsigned int		queued;		/* device events */
	unsigned int		apm_queued;	/* op-5 events */
	wait_queue_head_t	read_wait;

	/* owned by the file, set by ioctl under mtx */
	bool			input_disabled;
	u32			max_size;	/* bytes per read() event */
};

/* Open files; guarded by rfkill_global_mutex. */
static LIST_HEAD(rfkill_files);

static bool rfkill_is_indicator(const struct rfkill_event_ext *ev)
{
	return ev->op == RFKILL_OP_AIRPLANE_MODE_INDICATOR_CHANGE;
}

/*
 * With RFKILL_AIRPLANE_MODE_MAX_QUEUED op-5 events pending in @file, the
 * newest of them takes @ev's state and moves to the tail, and this
 * returns true: @ev is queued without a new entry.  So an owner that
 * flips the indicator as fast as it may never fills a reader's queue;
 * the reader loses only states that were over before it read them, and
 * a device's CHANGE still comes before the op-5 event it causes.
 */
static bool rfkill_fold_indicator(struct rfkill_file *file,
				  const struct rfkill_event_ext *ev)
{
	struct rfkill_queued_event *qev;
	bool folded = false;

	mutex_lock(&file->mtx);
	if (file->apm_queued >= RFKILL_AIRPLANE_MODE_MAX_QUEUED) {
		list_for_each_entry_reverse(qev, &file->events, list) {
			if (!rfkill_is_indicator(&qev->ev))
				continue;
			qev->ev = *ev;
			list_move_tail(&qev->list, &file->events);
			folded = true;
			break;
		}
	}
	mutex_unlock(&file->mtx);
	return folded;
}

/*
 * Queues a copy of @ev for @file: 0, -ENOMEM or -ENOSPC (the queue is
 * full).  Either way the event is lost for this file, like in-tree; only
 * open() fails on -ENOMEM.
 */
static int rfkill_queue_err(struct rfkill_file *file,
			    const struct rfkill_event_ext *ev)
{
	bool indicator = rfkill_is_indicator(ev);
	struct rfkill_queued_event *qev;

	lockdep_assert_held(&rfkill_global_mutex);

	if (indicator && rfkill_fold_indicator(file, ev))
		return 0;

	qev = kzalloc(sizeof(*qev), GFP_KERNEL);
	if (!qev)
		return -ENOMEM;
	qev->ev = *ev;

	mutex_lock(&file->mtx);
	/*
	 * Only device events meet the in-tree cap (RFKILL_MAX_QUEUED).  An
	 * op-5 event that was not folded finds fewer than
	 * RFKILL_AIRPLANE_MODE_MAX_QUEUED of its kind: every event is queued
	 * under rfkill_global_mutex, so none came in since the fold looked.
	 */
	if (indicator) {
		file->apm_queued++;
	} else if (file->queued > RFKILL_MAX_QUEUED) {
		mutex_unlock(&file->mtx);
		kfree(qev);
		return -ENOSPC;
	} else {
		file->queued++;
	}
	list_add_tail(&qev->list, &file->events);
	mutex_unlock(&file->mtx);
	return 0;
}

static bool rfkill_queue(struct rfkill_file *file,
			 const struct rfkill_event_ext *ev)
{
	return !rfkill_queue_err(file, ev);
}

void rfkill_send_event_locked(const struct rfkill_event_ext *ev)
{
	struct rfkill_file *file;

	lockdep_assert_held(&rfkill_global_mutex);

	list_for_each_entry(file, &rfkill_files, list)
		if (rfkill_queue(file, ev))
			wake_up_interruptible(&file->read_wait);
}

static void rfkill_fill_indicator_event(struct rfkill_event_ext *ev,
					bool state)
{
	memset(ev, 0, sizeof(*ev));
	ev->idx = 0;
	ev->type = RFKILL_TYPE_ALL;
	ev->op = RFKILL_OP_AIRPLANE_MODE_INDICATOR_CHANGE;
	ev->soft = state;
}

/* Only to the files that asked: see rfkill-airplane.h for why. */
void rfkill_send_indicator_event_locked(bool state)
{
	struct rfkill_event_ext ev;
	struct rfkill_file *file;

	lockdep_assert_held(&rfkill_global_mutex);

	rfkill_fill_indicator_event(&ev, state);
	list_for_each_entry(file, &rfkill_files, list)
		if (file->apm_events && rfkill_queue(file, &ev))
			wake_up_interruptible(&file->read_wait);
}

/*
 * From now on @file gets op-5 events; the first one, with the current
 * state, is queued behind what the file holds already.  Asking twice
 * changes nothing.
 */
static void rfkill_apm_events_optin_locked(struct rfkill_file *file)
{
	struct rfkill_event_ext ev;

	lockdep_assert_held(&rfkill_global_mutex);

	if (file->apm_events)
		return;
	file->apm_events = true;
	rfkill_fill_indicator_event(&ev, rfkill_apm_state_locked());
	if (rfkill_queue(file, &ev))
		wake_up_interruptible(&file->read_wait);
}

static void rfkill_free_events(struct rfkill_file *file)
{
	struct rfkill_queued_event *qev, *tmp;

	list_for_each_entry_safe(qev, tmp, &file->events, list) {
		list_del(&qev->list);
		kfree(qev);
	}
}

/* Stops open() on -ENOMEM, as in-tree; a full queue drops the event. */
static int rfkill_queue_add_event(struct rfkill *rfkill, void *arg)
{
	struct rfkill_event_ext ev;

	rfkill_sync_locked(rfkill);
	rfkill_fill_event(&ev, rfkill, RFKILL_OP_ADD);
	return rfkill_queue_err(arg, &ev) == -ENOMEM ? -ENOMEM : 0;
}

static int rfkill_fop_open(struct inode *inode, struct file *filp)
{
	struct rfkill_file *file;
	int err;

	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;

	INIT_LIST_HEAD(&file->events);
	mutex_init(&file->mtx);
	init_waitqueue_head(&file->read_wait);
	file->max_size = RFKILL_EVENT_SIZE_V1;
	ratelimit_state_init(&file->apm_changes, HZ,
			     RFKILL_AIRPLANE_MODE_CHANGES_PER_SEC);
	/* a refused CHANGE is the owner's answer: nothing for the log */
	ratelimit_set_flags(&file->apm_changes, RATELIMIT_MSG_ON_RELEASE);

	/*
	 * An ADD event for every device, queued before anyone can read, and
	 * nothing else: the indicator state only comes to a file that asks.
	 */
	mutex_lock(&rfkill_global_mutex);
	err = rfkill_for_each_locked(rfkill_queue_add_event, file);
	if (err) {
		/* an open without every ADD event would lie about the radios */
		mutex_unlock(&rfkill_global_mutex);
		rfkill_free_events(file);
		mutex_destroy(&file->mtx);
		kfree(file);
		return err;
	}
	list_add(&file->list, &rfkill_files);
	mutex_unlock(&rfkill_global_mutex);

	filp->private_data = file;
	return stream_open(inode, filp);
}

static __poll_t rfkill_fop_poll(struct file *filp, poll_table *wait)
{
	struct rfkill_file *file = filp->private_data;
	__poll_t res = EPOLLOUT | EPOLLWRNORM;

	poll_wait(filp, &file->read_wait, wait);

	/* readable replaces writable, as in-tree: not POLLIN|POLLOUT */
	mutex_lock(&file->mtx);
	if (!list_empty(&file->events))
		res = EPOLLIN | EPOLLRDNORM;
	mutex_unlock(&file->mtx);

	return res;
}

static ssize_t rfkill_fop_read(struct file *filp, char __user *buf,
			       size_t count, loff_t *pos)
{
	struct rfkill_file *file = filp->private_data;
	struct rfkill_queued_event *qev;
	size_t sz;
	ssize_t ret;

	mutex_lock(&file->mtx);

	while (list_empty(&file->events)) {
		if (filp->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			goto out_unlock;
		}
		mutex_unlock(&file->mtx);
		ret = wait_event_interruptible(file->read_wait,
					       !list_empty(&file->events));
		mutex_lock(&file->mtx);
		if (ret)
			goto out_unlock;
	}

	qev = list_first_entry(&file->events, struct rfkill_queued_event,
			       list);

	/* Old readers get the V1 prefix; MAX_SIZE raised the limit. */
	sz = min_t(size_t, sizeof(qev->ev), count);
	sz = min_t(size_t, sz, file->max_size);
	/* like in-tree, a failed copy still uses the event up */
	ret = copy_to_user(buf, &qev->ev, sz) ? -EFAULT : sz;
	list_del(&qev->list);
	if (rfkill_is_indicator(&qev->ev))
		file->apm_queued--;
	else
		file->queued--;
	kfree(qev);

out_unlock:
	mutex_unlock(&file->mtx);
	return ret;
}

static ssize_t rfkill_fop_write(struct file *filp, const char __user *buf,
				size_t count, loff_t *pos)
{
	struct rfkill_file *file = filp->private_data;
	struct rfkill_event_ext ev = {};
	int ret;

	/* The 'hard' byte is optional: it is ignored anyway. */
	if (count < RFKILL_EVENT_SIZE_V1 - 1)
		return -EINVAL;

	/*
	 * Accept as much as we understand, and return that count, so a
	 * writer can learn our event size from write() too.
	 */
	count = min(count, sizeof(ev));
	count = min_t(size_t, count, file->max_size);
	if (copy_from_user(&ev, buf, count))
		return -EFAULT;

	if (ev.type >= NUM_RFKILL_TYPES)
		return -EINVAL;

	mutex_lock(&rfkill_global_mutex);

	switch (ev.op) {
	case RFKILL_OP_CHANGE_ALL:
		rfkill_change_all_locked(ev.type, ev.soft);
		ret = 0;
		break;
	case RFKILL_OP_CHANGE:
		rfkill_change_one_locked(ev.idx, ev.type, ev.soft);
		ret = 0;
		break;
	case RFKILL_OP_AIRPLANE_MODE_INDICATOR_ACQUIRE:
		/* taken back by an admin: only a new open may try again */
		if (file->apm_broken) {
			ret = -EPERM;
			break;
		}
		ret = rfkill_apm_acquire_locked(file);
		/* the owner drives the LED: it needs the state it starts from */
		if (!ret)
			rfkill_apm_events_optin_locked(file);
		break;
	case RFKILL_OP_AIRPLANE_MODE_INDICATOR_CHANGE:
		ret = rfkill_apm_change_locked(file, ev.soft,
					       &file->apm_changes);
		break;
	default:
		ret = -EINVAL;
		break;
	}

	mutex_unlock(&rfkill_global_mutex);

	return ret ?: count;
}

static int rfkill_fop_release(struct inode *inode, struct file *filp)
{
	struct rfkill_file *file = filp->private_data;

	mutex_lock(&rfkill_global_mutex);
	list_del(&file->list);
	/* also when the owner was killed: back to the default rule now */
	rfkill_apm_release_locked(file);
	mutex_unlock(&rfkill_global_mutex);

	rfkill_free_events(file);
	mutex_destroy(&file->mtx);

#ifdef CONFIG_RFKILL_INPUT
	/* printk, not pr_debug(): in the log whatever dynamic debug says */
	if (file->input_disabled &&
	    atomic_dec_return(&rfkill_input_disabled) == 0)
		printk(KERN_DEBUG "rfkill: input handler enabled\n");
#endif

	kfree(file);
	return 0;
}

/*
 * RFKILL_IOCTL_AIRPLANE_MODE_BREAK: the holder's file loses the indicator
 * and may not ACQUIRE it again; the holder's process may open anew, and
 * open checks its access again.
 */
static long rfkill_apm_break(void)
{
	struct rfkill_file *file;
	const void *owner;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;

	mutex_lock(&rfkill_global_mutex);
	owner = rfkill_apm_break_locked();
	list_for_each_entry(file, &rfkill_files, list)
		if (file == owner)
			file->apm_broken = true;
	mutex_unlock(&rfkill_global_mutex);

	return owner ? 0 : -ENOENT;
}

/*
 * An unknown ioctl gets what the in-tree module of the same kernel says:
 * -ENOTTY since upstream f52c8fba984c ("rfkill: return ENOTTY on invalid
 * ioctl", 6.8, not backported), -ENOSYS before (6.1).
 */
#if RFKILL_KERNEL_AT_LEAST(6, 8, 0)
#define RFKILL_UNKNOWN_IOCTL	(-ENOTTY)
#else
#define RFKILL_UNKNOWN_IOCTL	(-ENOSYS)
#endif

static long rfkill_fop_ioctl(struct file *filp, unsigned int cmd,
			     unsigned long arg)
{
	struct rfkill_file *file = filp->private_data;
	u32 size;
	int ret = 0;

	if (_IOC_TYPE(cmd) != RFKILL_IOC_MAGIC)
		return RFKILL_UNKNOWN_IOCTL;

	/* Ours; take the global mutex, which nests outside file->mtx. */
	if (_IOC_NR(cmd) == RFKILL_IOC_AIRPLANE_MODE_EVENTS) {
		mutex_lock(&rfkill_global_mutex);
		rfkill_apm_events_optin_locked(file);
		mutex_unlock(&rfkill_global_mutex);
		return 0;
	}
	if (_IOC_NR(cmd) == RFKILL_IOC_AIRPLANE_MODE_BREAK)
		return rfkill_apm_break();
	if (_IOC_NR(cmd) == RFKILL_IOC_AIRPLANE_MODE_KEY_RESET) {
		/* as CHANGE_ALL, which needs write() */
		if (!(filp->f_mode & FMODE_WRITE))
			return -EBADF;
		rfkill_key_state_reset();
		return 0;
	}

	mutex_lock(&file->mtx);

	switch (_IOC_NR(cmd)) {
#ifdef CONFIG_RFKILL_INPUT
	case RFKILL_IOC_NOINPUT:
		if (!file->input_disabled) {
			if (atomic_inc_return(&rfkill_input_disabled) == 1)
				printk(KERN_DEBUG "rfkill: input handler disabled\n");
			file->input_disabled = true;
		}
		break;
#endif
	case RFKILL_IOC_MAX_SIZE:
		if (get_user(size, (__u32 __user *)arg)) {
			ret = -EFAULT;
			break;
		}
		if (size < RFKILL_EVENT_SIZE_V1 || size > U8_MAX) {
			ret = -EINVAL;
			break;
		}
		file->max_size = size;
		break;
	default:
		ret = RFKILL_UNKNOWN_IOCTL;
		break;
	}

	mutex_unlock(&file->mtx);
	return ret;
}

/* /sys/class/misc/rfkill/airplane_mode_holder: see rfkill-airplane.h */
static ssize_t airplane_mode_holder_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	ssize_t ret;

	mutex_lock(&rfkill_global_mutex);
	ret = rfkill_apm_holder_show_locked(buf);
	mutex_unlock(&rfkill_global_mutex);
	return ret;
}
static DEVICE_ATTR_RO(airplane_mode_holder);

static struct attribute *rfkill_misc_attrs[] = {
	&dev_attr_airplane_mode_holder.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rfkill_misc);

static const struct file_operations rfkill_fops = {
	.owner		= THIS_MODULE,
	.open		= rfkill_fop_open,
	.read		= rfkill_fop_read,
	.write		= rfkill_fop_write,
	.poll		= rfkill_fop_poll,
	.release	= rfkill_fop_release,
	.unlocked_ioctl	= rfkill_fop_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice rfkill_miscdev = {
	.minor	= RFKILL_MINOR,
	.name	= "rfkill",
	.fops	= &rfkill_fops,
	.groups	= rfkill_misc_groups,
};

int rfkill_fops_init(void)
{
	return misc_register(&rfkill_miscdev);
}

void rfkill_fops_exit(void)
{
	misc_deregister(&rfkill_miscdev);
}
