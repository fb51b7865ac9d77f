// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Guest side of the kernel-indicator benchmark (see bench-guest.h).
 *
 *   bench-kernel-guest RADIOS REPS GAP_MS STORM_S
 *
 * Waits for RADIOS rfkill devices and the ASUS LED on the airplane-mode
 * trigger, then
 *  - LED phase: REPS times, writes 'B' to the debugcon and blocks every
 *    radio with CHANGE_ALL, waits GAP_MS plus up to half of it more (so the
 *    samples do not lock onto the timer tick), then 'U' and unblocks.  The
 *    host times each marker to the LED byte that follows it.  The guest
 *    checks the LED reads back the new state before the next step, so a
 *    slow LED cannot shift the pairs;
 *  - storm phase (bench-storm.c), STORM_S seconds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <time.h>
#include <unistd.h>

#include "bench-guest.h"

#define LED_DIR		"/sys/class/leds/asus-wireless::airplane"
#define SETUP_WAIT_MS	120000	/* 64 hwsim radios register slowly under TCG */
#define LATE_WAIT_MS	5000

unsigned int radio_idx[MAX_RADIOS];
int n_radios;
long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void mark_byte(char c)
{
	outb(c, DEBUGCON_PORT);
}

void mark(const char *text)
{
	mark_byte('<');
	for (; *text; text++)
		mark_byte(*text);
	mark_byte('>');
}

int rfk_op(int fd, int op, unsigned int idx, int soft)
{
	/* the V1 layout (8 bytes) is what every kernel accepts */
	struct rfkill_event ev = { .idx = idx, .type = RFKILL_TYPE_ALL,
				   .op = op, .soft = soft };
	ssize_t n = write(fd, &ev, RFKILL_EVENT_SIZE_V1);

	if (n < 0)
		return -errno;
	return n == (ssize_t)RFKILL_EVENT_SIZE_V1 ? 0 : -EPROTO;
}

static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Every /sys/class/rfkill device, by index; the VM has only our radios. */
static int scan_radios(void)
{
	DIR *d = opendir("/sys/class/rfkill");
	struct dirent *de;

	n_radios = 0;
	while (d && (de = readdir(d)) && n_radios < MAX_RADIOS) {
		unsigned int idx;

		if (sscanf(de->d_name, "rfkill%u", &idx) == 1)
			radio_idx[n_radios++] = idx;
	}
	if (d)
		closedir(d);
	return n_radios;
}

int blocked_count(void)
{
	int blocked = 0;

	for (int i = 0; i < n_radios; i++) {
		char path[64], v[8];

		snprintf(path, sizeof(path), "/sys/class/rfkill/rfkill%u/soft", radio_idx[i]);
		if (read_text(path, v, sizeof(v)) < 0)
			return -1;
		blocked += v[0] == '1';
	}
	return blocked;
}

/* What the fixture reports through HSWC(2): 1, 0, or -1 unreadable. */
static int led_brightness(void)
{
	char v[16];

	if (read_text(LED_DIR "/brightness", v, sizeof(v)) < 0)
		return -1;
	return atoi(v) ? 1 : 0;
}

static bool wait_led(int want, long ms)
{
	long long end = now_ns() + ms * 1000000LL;

	while (led_brightness() != want) {
		if (now_ns() > end)
			return false;
		sleep_ms(20);
	}
	return true;
}

static bool setup(int want_radios)
{
	long long end = now_ns() + SETUP_WAIT_MS * 1000000LL;
	char trig[4096];

	while (scan_radios() < want_radios && now_ns() < end)
		sleep_ms(200);
	if (!tap_ok(n_radios == want_radios, "%d rfkill devices (want %d)",
		    n_radios, want_radios))
		return false;
	if (!tap_ok(read_text(LED_DIR "/trigger", trig, sizeof(trig)) == 0 &&
		    strstr(trig, "[" RFKILL_AIRPLANE_MODE_TRIGGER "]"),
		    "%s follows the %s trigger", LED_DIR, RFKILL_AIRPLANE_MODE_TRIGGER))
		return false;
	if (!tap_ok(ioperm(DEBUGCON_PORT, 1, 1) == 0, "access to the debugcon port 0x%x (%s)",
		    DEBUGCON_PORT, strerror(errno)))
		return false;
	return tap_ok(blocked_count() == 0 && wait_led(0, LATE_WAIT_MS),
		      "every radio starts unblocked, LED off");
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Median and maximum of the write() durations, in microseconds. */
static void write_stats(long long *us, int n, long long *median, long long *max)
{
	qsort(us, n, sizeof(*us), cmp_ll);
	*median = n ? us[n / 2] : 0;
	*max = n ? us[n - 1] : 0;
}

static void led_phase(int reps, int gap_ms)
{
	static const char marker[2] = { 'U', 'B' };
	long long *us[2], med[2], max[2];
	int fd = open("/dev/rfkill", O_RDWR | O_CLOEXEC);
	int late[2] = { 0, 0 }, lost[2] = { 0, 0 }, done[2] = { 0, 0 }, errors = 0;

	us[0] = calloc(reps, sizeof(long long));
	us[1] = calloc(reps, sizeof(long long));
	if (!tap_ok(fd >= 0 && us[0] && us[1], "open /dev/rfkill for the LED phase"))
		return;
	srand(reps * 7919 + gap_ms);
	mark("led");
	/* a lost LED fails the run; waiting for every later one is no use */
	for (int i = 0; i < reps && !lost[0] && !lost[1]; i++) {
		for (int soft = 1; soft >= 0 && !lost[0] && !lost[1]; soft--) {
			long long t0;

			mark_byte(marker[soft]);
			t0 = now_ns();
			errors += rfk_op(fd, RFKILL_OP_CHANGE_ALL, 0, soft) != 0;
			us[soft][done[soft]++] = (now_ns() - t0) / 1000;
			sleep_ms(gap_ms + rand() % (gap_ms / 2 + 1));
			if (led_brightness() != soft) {
				late[soft]++;
				lost[soft] += !wait_led(soft, LATE_WAIT_MS);
			}
		}
	}
	mark("led-end");
	close(fd);
	tap_ok(errors == 0, "%d CHANGE_ALL writes accepted (%d failed)",
	       done[0] + done[1], errors);
	tap_ok(lost[0] + lost[1] == 0,
	       "the LED read back every new state within %d ms (missing: %d on, %d off)",
	       LATE_WAIT_MS, lost[1], lost[0]);
	for (int s = 0; s < 2; s++)
		write_stats(us[s], done[s], &med[s], &max[s]);
	printf("# bench-kernel-led {\"blocks\": %d, \"unblocks\": %d, \"gap_ms\": %d, "
	       "\"block_write_us_median\": %lld, \"block_write_us_max\": %lld, "
	       "\"unblock_write_us_median\": %lld, \"unblock_write_us_max\": %lld, "
	       "\"late_on\": %d, \"late_off\": %d}\n",
	       done[1], done[0], gap_ms, med[1], max[1], med[0], max[0], late[1], late[0]);
	free(us[0]);
	free(us[1]);
}

int main(int argc, char **argv)
{
	int radios, reps, gap_ms, storm_s;

	tap_init();
	if (argc != 5 || (radios = atoi(argv[1])) <= 0 || radios > MAX_RADIOS ||
	    (reps = atoi(argv[2])) <= 0 || (gap_ms = atoi(argv[3])) <= 0 ||
	    (storm_s = atoi(argv[4])) <= 0) {
		fprintf(stderr, "usage: bench-kernel-guest RADIOS(1-%d) REPS GAP_MS STORM_S\n",
			MAX_RADIOS);
		return 2;
	}
	if (setup(radios)) {
		led_phase(reps, gap_ms);
		storm_phase(storm_s);
	}
	mark("end");
	return tap_done();
}
