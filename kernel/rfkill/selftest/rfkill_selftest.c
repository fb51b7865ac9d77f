// SPDX-License-Identifier: GPL-2.0-only
/*
 * rfkill_selftest: a fake radio driver for the VM selftest.  It drives the
 * exported rfkill API the way real drivers do, including from atomic
 * context (spinlock held, interrupts off, and an hrtimer in hardirq
 * context), which is where the core must not take its global mutex.
 *
 * debugfs, /sys/kernel/debug/rfkill_selftest/:
 *   sw       write 0/1: rfkill_set_sw_state() with irqs off
 *   hw       write "<0|1> <reason>": rfkill_set_hw_state_reason(), irqs off
 *   states   write "<sw> <hw>": rfkill_set_states(), irqs off
 *   storm    write N: N hrtimer callbacks toggling the soft state;
 *            read: callbacks still to come
 *   poll     write pause/resume; read: "<polls> <queries> <set_blocks>"
 *   blocked  read: "<rfkill_blocked> <rfkill_soft_blocked> <last set_block>"
 *   selfcheck read: results of the checks done at load time
 *   slow     write "register": a second radio, selftest-slow, whose first
 *            set_block() waits (up to 60 s) until "release" is written:
 *            a driver waiting for its bus while the core holds
 *            rfkill_global_mutex (the sync work of a new radio calls it).
 *            read: "<waiting> <set_block calls> <timed out>"
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/rfkill.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "../compat.h"

static bool persistent;
module_param(persistent, bool, 0444);
MODULE_PARM_DESC(persistent, "rfkill_init_sw_state(initial_sw) before register");
static bool initial_sw;
module_param(initial_sw, bool, 0444);
static char *ledname;
module_param(ledname, charp, 0444);
MODULE_PARM_DESC(ledname, "rfkill_set_led_trigger_name() before register");
static bool polling = true;
module_param(polling, bool, 0444);

static struct rfkill *st_rfkill;
static struct dentry *st_dir;
static DEFINE_SPINLOCK(st_lock);	/* a driver lock, held around calls */
static atomic_t st_polls, st_queries, st_set_blocks;
static int st_last_block = -1;
static char st_selfcheck[256];

static struct hrtimer st_timer;
static atomic_t st_storm_left;

static struct rfkill *st_slow;
static DECLARE_COMPLETION(st_slow_release);
static atomic_t st_slow_armed, st_slow_waiting, st_slow_calls;
static atomic_t st_slow_timed_out;

static void st_poll(struct rfkill *rfkill, void *data)
{
	atomic_inc(&st_polls);
}

static void st_query(struct rfkill *rfkill, void *data)
{
	atomic_inc(&st_queries);
}

static int st_set_block(void *data, bool blocked)
{
	atomic_inc(&st_set_blocks);
	WRITE_ONCE(st_last_block, blocked);
	return 0;
}

static const struct rfkill_ops st_ops_poll = {
	.poll = st_poll, .query = st_query, .set_block = st_set_block,
};

static const struct rfkill_ops st_ops_nopoll = {
	.query = st_query, .set_block = st_set_block,
};

/*
 * Only the first call waits: resume calls set_block() again, and that call
 * must not wait for a release that only comes after resume.
 */
static int st_slow_set_block(void *data, bool blocked)
{
	atomic_inc(&st_slow_calls);
	if (!atomic_xchg(&st_slow_armed, 0))
		return 0;
	atomic_set(&st_slow_waiting, 1);
	if (!wait_for_completion_timeout(&st_slow_release, 60 * HZ)) {
		atomic_set(&st_slow_timed_out, 1);
		pr_warn("rfkill_selftest: selftest-slow: no release within 60 s\n");
	}
	atomic_set(&st_slow_waiting, 0);
	return 0;
}

static const struct rfkill_ops st_ops_slow = {
	.set_block = st_slow_set_block,
};

static enum hrtimer_restart st_timer_fn(struct hrtimer *t)
{
	int left = atomic_dec_return(&st_storm_left);

	rfkill_set_sw_state(st_rfkill, left & 1);
	if (left <= 0)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(50 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static ssize_t st_read_str(char __user *buf, size_t count, loff_t *ppos,
			   const char *s)
{
	return simple_read_from_buffer(buf, count, ppos, s, strlen(s));
}

static int st_get_args(const char __user *ubuf, size_t count,
		       unsigned long *a, unsigned long *b)
{
	char kbuf[32];
	int n;

	if (count >= sizeof(kbuf))
		return -EINVAL;
	if (copy_from_user(kbuf, ubuf, count))
		return -EFAULT;
	kbuf[count] = '\0';
	n = sscanf(kbuf, "%lu %lu", a, b);
	return n > 0 ? n : -EINVAL;
}

static ssize_t st_sw_write(struct file *f, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	unsigned long a, b, flags;
	int n = st_get_args(ubuf, count, &a, &b);

	if (n < 0)
		return n;
	spin_lock_irqsave(&st_lock, flags);
	rfkill_set_sw_state(st_rfkill, a);
	spin_unlock_irqrestore(&st_lock, flags);
	return count;
}

static ssize_t st_hw_write(struct file *f, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	unsigned long a, b = RFKILL_HARD_BLOCK_SIGNAL, flags;
	int n = st_get_args(ubuf, count, &a, &b);

	if (n < 0)
		return n;
	spin_lock_irqsave(&st_lock, flags);
	rfkill_set_hw_state_reason(st_rfkill, a, b);
	spin_unlock_irqrestore(&st_lock, flags);
	return count;
}

static ssize_t st_states_write(struct file *f, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	unsigned long a, b, flags;
	int n = st_get_args(ubuf, count, &a, &b);

	if (n != 2)
		return -EINVAL;
	spin_lock_irqsave(&st_lock, flags);
	rfkill_set_states(st_rfkill, a, b);
	spin_unlock_irqrestore(&st_lock, flags);
	return count;
}

static ssize_t st_storm_write(struct file *f, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	unsigned long a, b;
	int n = st_get_args(ubuf, count, &a, &b);

	if (n < 0)
		return n;
	atomic_set(&st_storm_left, a);
	hrtimer_start(&st_timer, ns_to_ktime(50 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL);
	return count;
}

static ssize_t st_storm_read(struct file *f, char __user *buf, size_t count,
			     loff_t *ppos)
{
	char s[16];

	snprintf(s, sizeof(s), "%d\n", max(atomic_read(&st_storm_left), 0));
	return st_read_str(buf, count, ppos, s);
}

static ssize_t st_poll_write(struct file *f, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char kbuf[16] = "";

	if (count >= sizeof(kbuf) || copy_from_user(kbuf, ubuf, count))
		return -EINVAL;
	if (sysfs_streq(kbuf, "pause"))
		rfkill_pause_polling(st_rfkill);
	else if (sysfs_streq(kbuf, "resume"))
		rfkill_resume_polling(st_rfkill);
	else
		return -EINVAL;
	return count;
}

static ssize_t st_poll_read(struct file *f, char __user *buf, size_t count,
			    loff_t *ppos)
{
	char s[64];

	snprintf(s, sizeof(s), "%d %d %d\n", atomic_read(&st_polls),
		 atomic_read(&st_queries), atomic_read(&st_set_blocks));
	return st_read_str(buf, count, ppos, s);
}

static ssize_t st_blocked_read(struct file *f, char __user *buf,
			       size_t count, loff_t *ppos)
{
	char s[32];

	snprintf(s, sizeof(s), "%d %d %d\n", rfkill_blocked(st_rfkill),
		 rfkill_soft_blocked(st_rfkill), READ_ONCE(st_last_block));
	return st_read_str(buf, count, ppos, s);
}

static ssize_t st_selfcheck_read(struct file *f, char __user *buf,
				 size_t count, loff_t *ppos)
{
	return st_read_str(buf, count, ppos, st_selfcheck);
}

#define ST_FOPS(name, r, w)						\
static const struct file_operations name = {				\
	.owner = THIS_MODULE, .read = r, .write = w,			\
	.llseek = default_llseek,					\
}

static ssize_t st_slow_write(struct file *f, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char kbuf[16] = "";
	int err;

	if (count >= sizeof(kbuf) || copy_from_user(kbuf, ubuf, count))
		return -EINVAL;
	if (sysfs_streq(kbuf, "release")) {
		complete_all(&st_slow_release);
		return count;
	}
	if (!sysfs_streq(kbuf, "register"))
		return -EINVAL;
	if (st_slow)
		return -EBUSY;
	st_slow = rfkill_alloc("selftest-slow", NULL, RFKILL_TYPE_GPS,
			       &st_ops_slow, NULL);
	if (!st_slow)
		return -ENOMEM;
	atomic_set(&st_slow_armed, 1);
	err = rfkill_register(st_slow);
	if (err) {
		rfkill_destroy(st_slow);
		st_slow = NULL;
		return err;
	}
	return count;
}

static ssize_t st_slow_read(struct file *f, char __user *buf, size_t count,
			    loff_t *ppos)
{
	char s[48];

	snprintf(s, sizeof(s), "%d %d %d\n", atomic_read(&st_slow_waiting),
		 atomic_read(&st_slow_calls), atomic_read(&st_slow_timed_out));
	return st_read_str(buf, count, ppos, s);
}

ST_FOPS(st_sw_fops, NULL, st_sw_write);
ST_FOPS(st_hw_fops, NULL, st_hw_write);
ST_FOPS(st_states_fops, NULL, st_states_write);
ST_FOPS(st_storm_fops, st_storm_read, st_storm_write);
ST_FOPS(st_poll_fops, st_poll_read, st_poll_write);
ST_FOPS(st_blocked_fops, st_blocked_read, NULL);
ST_FOPS(st_selfcheck_fops, st_selfcheck_read, NULL);
ST_FOPS(st_slow_fops, st_slow_read, st_slow_write);

/* Checks of the API that need no device state, done once at load. */
static void st_check_api(void)
{
	static const struct { const char *name; enum rfkill_type type; } t[] = {
		{ "wlan", RFKILL_TYPE_WLAN }, { "bluetooth", RFKILL_TYPE_BLUETOOTH },
		{ "ultrawideband", RFKILL_TYPE_UWB }, { "wimax", RFKILL_TYPE_WIMAX },
		{ "wwan", RFKILL_TYPE_WWAN }, { "gps", RFKILL_TYPE_GPS },
		{ "fm", RFKILL_TYPE_FM }, { "nfc", RFKILL_TYPE_NFC },
		{ "all", RFKILL_TYPE_ALL }, { "bogus", RFKILL_TYPE_ALL },
		{ NULL, RFKILL_TYPE_ALL },
	};
	int i, bad = 0;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		bad += rfkill_find_type(t[i].name) != t[i].type;
	snprintf(st_selfcheck, sizeof(st_selfcheck), "find_type_bad=%d\n", bad);
}

static int __init st_init(void)
{
	int err;

	st_check_api();

	RFKILL_HRTIMER_SETUP(&st_timer, st_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);

	st_rfkill = rfkill_alloc("selftest", NULL, RFKILL_TYPE_GPS,
				 polling ? &st_ops_poll : &st_ops_nopoll, NULL);
	if (!st_rfkill)
		return -ENOMEM;
	if (persistent)
		rfkill_init_sw_state(st_rfkill, initial_sw);
	if (ledname)
		rfkill_set_led_trigger_name(st_rfkill, ledname);

	err = rfkill_register(st_rfkill);
	if (err)
		goto err_destroy;

	st_dir = debugfs_create_dir("rfkill_selftest", NULL);
	debugfs_create_file("sw", 0200, st_dir, NULL, &st_sw_fops);
	debugfs_create_file("hw", 0200, st_dir, NULL, &st_hw_fops);
	debugfs_create_file("states", 0200, st_dir, NULL, &st_states_fops);
	debugfs_create_file("storm", 0600, st_dir, NULL, &st_storm_fops);
	debugfs_create_file("poll", 0600, st_dir, NULL, &st_poll_fops);
	debugfs_create_file("blocked", 0400, st_dir, NULL, &st_blocked_fops);
	debugfs_create_file("selfcheck", 0400, st_dir, NULL,
			    &st_selfcheck_fops);
	debugfs_create_file("slow", 0600, st_dir, NULL, &st_slow_fops);
	pr_info("rfkill_selftest: registered, led trigger %s\n",
		rfkill_get_led_trigger_name(st_rfkill));
	return 0;

err_destroy:
	rfkill_destroy(st_rfkill);
	return err;
}
module_init(st_init);

static void __exit st_exit(void)
{
	debugfs_remove_recursive(st_dir);
	hrtimer_cancel(&st_timer);
	if (st_slow) {
		complete_all(&st_slow_release);
		rfkill_unregister(st_slow);
		rfkill_destroy(st_slow);
	}
	rfkill_unregister(st_rfkill);
	rfkill_destroy(st_rfkill);
}
module_exit(st_exit);

MODULE_DESCRIPTION("Fake radio for the rfkill-airplane VM selftest");
MODULE_LICENSE("GPL");
