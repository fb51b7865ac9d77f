// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Small helpers: clocks, sysfs-style text files, error names.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Reads a small file into buf without the trailing newline; -errno. */
int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	while (total > 0 && buf[total - 1] == '\n')
		buf[--total] = '\0';
	return 0;
}

int write_text(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += len) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '[';
		char end = p[len];

		if (start && (end == ' ' || end == ']' || end == '\n' || !end))
			return true;
	}
	return false;
}

/* The running kernel is major.minor or newer. */
bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

const char *err_name(int r)
{
	static char buf[32];

	switch (r) {
	case 0: return "0";
	case -EINVAL: return "EINVAL";
	case -EACCES: return "EACCES";
	case -EPROTO: return "short count";
	case -ENOTTY: return "ENOTTY";
	case -ENOSYS: return "ENOSYS";
	default:
		snprintf(buf, sizeof(buf), "errno %d", -r);
		return buf;
	}
}
