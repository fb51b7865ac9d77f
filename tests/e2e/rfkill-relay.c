// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rfkill-relay: runs in the test VM and lends the guest's /dev/rfkill to
 * the host over a virtio-serial port (see relay-proto.h and README.md).
 *
 * Every host channel is its own /dev/rfkill fd, so per-fd kernel state
 * (the airplane-mode indicator owner, the event size) behaves for a host
 * client exactly as it would for a local process.  Requests are handled
 * strictly in arrival order and each one is acknowledged with the errno
 * the guest kernel returned, which is how the host learns about EINVAL
 * and EACCES.
 *
 *   rfkill-relay [--mark-port PORT]
 *
 * --mark-port lets the host write text markers to an I/O port (the
 * debugcon that also records the LED), so one host log shows test steps
 * and LED writes in the order they happened.
 *
 * Built static: the guest is a bare busybox initramfs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/rfkill.h>

#include "relay-proto.h"

#define SYSFS_PORTS "/sys/class/virtio-ports"

static int port_fd = -1;
static int chan_fd[RELAY_MAX_CHANNELS];
static unsigned int mark_port;	/* 0: markers disabled */
static int host_connected;	/* a HELLO came since the last hang-up */

static int vhci_fd = -1;	/* the controller plugged in with PLUG */

static unsigned char inbuf[4096];
static size_t inlen;

static void logmsg(const char *fmt, ...)
{
	va_list ap;

	fputs("rfkill-relay: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The port is blocking: a frame is either sent whole or the host is gone. */
static int send_frame(int kind, int chan, const void *data, size_t len)
{
	unsigned char frame[3 + RELAY_MAX_PAYLOAD];
	size_t off = 0;

	if (len > RELAY_MAX_PAYLOAD)
		len = RELAY_MAX_PAYLOAD;
	frame[0] = kind;
	frame[1] = chan;
	frame[2] = len;
	memcpy(frame + 3, data, len);
	while (off < len + 3) {
		ssize_t n = write(port_fd, frame + off, len + 3 - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			logmsg("write to virtio port: %s",
			       n < 0 ? strerror(errno) : "short write");
			return -1;
		}
		off += n;
	}
	return 0;
}

/*
 * Before answering HELLO: a frame cut short when the previous host went
 * away (the port blocks writes while no host is connected, so its rest
 * goes to the next one) swallows at most 258 bytes; the rest are SYNC.
 */
static void send_sync(void)
{
	static const unsigned char zeros[3 + RELAY_MAX_PAYLOAD + 2];

	if (write(port_fd, zeros, sizeof(zeros)) < 0)
		logmsg("write to virtio port: %s", strerror(errno));
}

static void put_le32(unsigned char *p, int32_t v)
{
	uint32_t u = v;

	p[0] = u;
	p[1] = u >> 8;
	p[2] = u >> 16;
	p[3] = u >> 24;
}

static void send_ack(int kind, int chan, int err, int32_t result,
		     const void *data, size_t len)
{
	unsigned char p[RELAY_MAX_PAYLOAD];

	if (len > sizeof(p) - RELAY_ACK_HEADER)
		len = sizeof(p) - RELAY_ACK_HEADER;
	p[0] = kind;
	put_le32(p + 1, err);
	put_le32(p + 5, result);
	if (len)
		memcpy(p + RELAY_ACK_HEADER, data, len);
	send_frame(RELAY_ACK, chan, p, RELAY_ACK_HEADER + len);
}

static void close_chan(int chan)
{
	if (chan_fd[chan] >= 0)
		close(chan_fd[chan]);
	chan_fd[chan] = -1;
}

static void close_all(void)
{
	for (int i = 0; i < RELAY_MAX_CHANNELS; i++)
		close_chan(i);
}

/* The host needs the name before the ADD that introduces the radio. */
static void send_name(uint32_t idx)
{
	char path[64], name[RELAY_MAX_PAYLOAD];
	unsigned char p[RELAY_MAX_PAYLOAD];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/rfkill/rfkill%u/name", idx);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		logmsg("cannot open %s: %s", path, strerror(errno));
		return;
	}
	n = read(fd, name, sizeof(name) - 4);
	close(fd);
	if (n < 0) {
		logmsg("cannot read %s: %s", path, strerror(errno));
		return;
	}
	while (n > 0 && name[n - 1] == '\n')
		n--;
	put_le32(p, idx);
	memcpy(p + 4, name, n);
	send_frame(RELAY_NAME, 0, p, 4 + n);
}

static void drain_chan(int chan)
{
	unsigned char ev[RELAY_MAX_PAYLOAD];

	for (;;) {
		ssize_t n = read(chan_fd[chan], ev, sizeof(ev));
		unsigned char p[4];

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			int err = n < 0 ? errno : 0;

			logmsg("read on channel %d: %s", chan,
			       n < 0 ? strerror(err) : "end of file");
			close_chan(chan);
			put_le32(p, err);
			send_frame(RELAY_GONE, chan, p, 4);
			return;
		}
		/* ev[5] is the op, idx the first u32 (struct rfkill_event). */
		if (n >= 8 && ev[5] == RFKILL_OP_ADD)
			send_name(ev[0] | ev[1] << 8 | ev[2] << 16 |
				  (uint32_t)ev[3] << 24);
		send_frame(RELAY_EVENT, chan, ev, n);
	}
}

static void do_open(int chan)
{
	/* Ask for the extended event so hard_block_reasons reach the host. */
	__u32 size = sizeof(struct rfkill_event_ext);
	int fd;

	if (chan <= 0 || chan >= RELAY_MAX_CHANNELS) {
		send_ack(RELAY_OPEN, chan, EBADF, -1, NULL, 0);
		return;
	}
	close_chan(chan);
	fd = open("/dev/rfkill", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		logmsg("cannot open /dev/rfkill: %s", strerror(err));
		send_ack(RELAY_OPEN, chan, err, -1, NULL, 0);
		return;
	}
	if (ioctl(fd, RFKILL_IOCTL_MAX_SIZE, &size) < 0)
		size = RFKILL_EVENT_SIZE_V1;
	chan_fd[chan] = fd;
	/*
	 * The kernel queued one ADD per radio inside open(): send them before
	 * the answer, so the host knows when the initial list is complete.
	 */
	drain_chan(chan);
	if (chan_fd[chan] < 0)
		return;		/* drain_chan() reported the channel GONE */
	send_ack(RELAY_OPEN, chan, 0, size, NULL, 0);
}

static void do_write(int chan, const unsigned char *data, size_t len)
{
	ssize_t n;

	if (chan <= 0 || chan >= RELAY_MAX_CHANNELS || chan_fd[chan] < 0) {
		send_ack(RELAY_WRITE, chan, EBADF, -1, NULL, 0);
		return;
	}
	do
		n = write(chan_fd[chan], data, len);
	while (n < 0 && errno == EINTR);
	send_ack(RELAY_WRITE, chan, n < 0 ? errno : 0, n, NULL, 0);
}

/* Argument-less rfkill ioctls only (the op-5 opt-in, NOINPUT). */
static void do_ioctl(int chan, const unsigned char *data, size_t len)
{
	int r;

	if (chan <= 0 || chan >= RELAY_MAX_CHANNELS || chan_fd[chan] < 0) {
		send_ack(RELAY_IOCTL, chan, EBADF, -1, NULL, 0);
		return;
	}
	if (len != 1) {
		send_ack(RELAY_IOCTL, chan, EINVAL, -1, NULL, 0);
		return;
	}
	r = ioctl(chan_fd[chan], _IO(RFKILL_IOC_MAGIC, data[0]), 0);
	send_ack(RELAY_IOCTL, chan, r < 0 ? errno : 0, r, NULL, 0);
}

static void do_read(int chan, const unsigned char *data, size_t len)
{
	char path[RELAY_MAX_PAYLOAD + 1], buf[RELAY_MAX_PAYLOAD];
	off_t offset;
	ssize_t n;
	int fd;

	if (len < 4) {
		send_ack(RELAY_READ, chan, EINVAL, -1, NULL, 0);
		return;
	}
	offset = data[0] | data[1] << 8 | data[2] << 16 |
		 (uint32_t)data[3] << 24;
	memcpy(path, data + 4, len - 4);
	path[len - 4] = '\0';
	/* Test relay, but still: only the pseudo file systems. */
	if ((strncmp(path, "/sys/", 5) && strncmp(path, "/proc/", 6)) ||
	    strstr(path, "/../")) {
		send_ack(RELAY_READ, chan, EPERM, -1, NULL, 0);
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		send_ack(RELAY_READ, chan, errno, -1, NULL, 0);
		return;
	}
	/* Files longer than a frame (LED trigger lists) come in pieces. */
	n = pread(fd, buf, sizeof(buf) - RELAY_ACK_HEADER, offset);
	send_ack(RELAY_READ, chan, n < 0 ? errno : 0, n, buf, n < 0 ? 0 : n);
	close(fd);
}

/* For test-only knobs such as acpi_notify_trigger's "notify" parameter. */
static void do_store(int chan, const unsigned char *data, size_t len)
{
	const unsigned char *nul = memchr(data, '\0', len);
	char path[RELAY_MAX_PAYLOAD + 1];
	size_t plen;
	ssize_t n;
	int fd;

	if (!nul) {
		send_ack(RELAY_STORE, chan, EINVAL, -1, NULL, 0);
		return;
	}
	plen = nul - data;
	memcpy(path, data, plen);
	path[plen] = '\0';
	if (strncmp(path, "/sys/", 5) || strstr(path, "/../")) {
		send_ack(RELAY_STORE, chan, EPERM, -1, NULL, 0);
		return;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		send_ack(RELAY_STORE, chan, errno, -1, NULL, 0);
		return;
	}
	n = write(fd, nul + 1, len - plen - 1);
	send_ack(RELAY_STORE, chan, n < 0 ? errno : 0, n, NULL, 0);
	close(fd);
}

static void do_mark(int chan, const unsigned char *data, size_t len)
{
	if (!mark_port) {
		send_ack(RELAY_MARK, chan, ENODEV, -1, NULL, 0);
		return;
	}
	for (size_t i = 0; i < len; i++)
		outb(data[i], mark_port);
	send_ack(RELAY_MARK, chan, 0, len, NULL, 0);
}

/*
 * A radio that appears while the test runs: hci_vhci registers a new
 * controller (hciN, with its rfkill) when /dev/vhci is opened and sent a
 * vendor packet naming the controller type (0x00: primary), and removes
 * it when the fd is closed.  The rfkill core starts such a radio in its
 * type's global state, which is what the host checks.
 */
static void do_plug(int chan, const unsigned char *p, size_t len)
{
	static const unsigned char create[] = { 0xff, 0x00 };
	int err = 0;

	if (len != 1 || p[0] > 1) {
		send_ack(RELAY_PLUG, chan, EINVAL, -1, NULL, 0);
		return;
	}
	if (!p[0]) {
		if (vhci_fd >= 0)
			close(vhci_fd);
		vhci_fd = -1;
		send_ack(RELAY_PLUG, chan, 0, 0, NULL, 0);
		return;
	}
	if (vhci_fd >= 0) {
		send_ack(RELAY_PLUG, chan, EBUSY, -1, NULL, 0);
		return;
	}
	vhci_fd = open("/dev/vhci", O_RDWR | O_CLOEXEC);
	if (vhci_fd < 0)
		err = errno;
	else if (write(vhci_fd, create, sizeof(create)) != sizeof(create)) {
		err = errno ? errno : EIO;
		close(vhci_fd);
		vhci_fd = -1;
	}
	if (err)
		logmsg("cannot plug a vhci controller: %s", strerror(err));
	send_ack(RELAY_PLUG, chan, err, err ? -1 : 0, NULL, 0);
}

static void handle_frame(int kind, int chan, const unsigned char *p,
			 size_t len)
{
	unsigned char info[2];

	switch (kind) {
	case RELAY_HELLO:
		close_all();
		host_connected = 1;
		send_sync();
		info[0] = RELAY_PROTO_VERSION;
		info[1] = sizeof(struct rfkill_event_ext);
		send_ack(RELAY_HELLO, chan, 0, 0, info, sizeof(info));
		logmsg("host connected");
		break;
	case RELAY_OPEN:
		do_open(chan);
		break;
	case RELAY_WRITE:
		do_write(chan, p, len);
		break;
	case RELAY_IOCTL:
		do_ioctl(chan, p, len);
		break;
	case RELAY_CLOSE:
		close_chan(chan);
		send_ack(RELAY_CLOSE, chan, 0, 0, NULL, 0);
		break;
	case RELAY_READ:
		do_read(chan, p, len);
		break;
	case RELAY_STORE:
		do_store(chan, p, len);
		break;
	case RELAY_MARK:
		do_mark(chan, p, len);
		break;
	case RELAY_PLUG:
		do_plug(chan, p, len);
		break;
	case RELAY_QUIT:
		/* Lets the VM runner collect dmesg and power off. */
		close_all();
		send_ack(RELAY_QUIT, chan, 0, 0, NULL, 0);
		logmsg("quit");
		exit(0);
	default:
		/* Still answered: the host counts on one ACK per request. */
		send_ack(kind, chan, ENOSYS, -1, NULL, 0);
		break;
	}
}

static void parse_input(void)
{
	size_t off = 0;

	while (off < inlen) {
		size_t len;

		if (inbuf[off] == RELAY_SYNC) {
			off++;
			continue;
		}
		if (inlen - off < 3)
			break;
		len = inbuf[off + 2];
		if (inlen - off < 3 + len)
			break;
		handle_frame(inbuf[off], inbuf[off + 1], inbuf + off + 3, len);
		off += 3 + len;
	}
	memmove(inbuf, inbuf + off, inlen - off);
	inlen -= off;
}

/* Returns 0 when the host hung up (the port reads EOF then). */
static int read_port(void)
{
	ssize_t n;

	do
		n = read(port_fd, inbuf + inlen, sizeof(inbuf) - inlen);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		logmsg("read from virtio port: %s", strerror(errno));
		return -1;
	}
	if (n == 0)
		return 0;
	inlen += n;
	parse_input();
	return 1;
}

/* Finds /dev/vportNpM whose sysfs name is RELAY_PORT_NAME. */
static int open_port(void)
{
	for (int tries = 0; tries < 200; tries++) {
		DIR *dir = opendir(SYSFS_PORTS);
		struct dirent *de;

		while (dir && (de = readdir(dir))) {
			char path[300], name[64] = "";
			FILE *f;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), SYSFS_PORTS "/%s/name",
				 de->d_name);
			f = fopen(path, "re");
			if (!f)
				continue;
			if (!fgets(name, sizeof(name), f))
				name[0] = '\0';
			fclose(f);
			name[strcspn(name, "\n")] = '\0';
			if (strcmp(name, RELAY_PORT_NAME))
				continue;
			snprintf(path, sizeof(path), "/dev/%s", de->d_name);
			closedir(dir);
			port_fd = open(path, O_RDWR | O_CLOEXEC);
			if (port_fd < 0) {
				logmsg("cannot open %s: %s", path,
				       strerror(errno));
				return -1;
			}
			logmsg("using %s", path);
			return 0;
		}
		if (dir)
			closedir(dir);
		sleep_ms(50);
	}
	logmsg("no virtio port named \"%s\" in " SYSFS_PORTS
	       " (is virtio_console loaded?)", RELAY_PORT_NAME);
	return -1;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mark-port") && i + 1 < argc) {
			mark_port = strtoul(argv[++i], NULL, 0);
		} else {
			fprintf(stderr, "usage: %s [--mark-port PORT]\n",
				argv[0]);
			return 2;
		}
	}
	for (int i = 0; i < RELAY_MAX_CHANNELS; i++)
		chan_fd[i] = -1;
	if (mark_port && ioperm(mark_port, 1, 1) < 0) {
		logmsg("ioperm(0x%x): %s", mark_port, strerror(errno));
		return 1;
	}
	if (open_port() < 0)
		return 1;
	logmsg("ready");

	for (;;) {
		struct pollfd pfd[RELAY_MAX_CHANNELS];
		int map[RELAY_MAX_CHANNELS];
		int n = 0, r;

		pfd[n].fd = port_fd;
		pfd[n].events = POLLIN;
		map[n++] = -1;
		for (int i = 1; i < RELAY_MAX_CHANNELS; i++) {
			if (chan_fd[i] < 0)
				continue;
			pfd[n].fd = chan_fd[i];
			pfd[n].events = POLLIN;
			map[n++] = i;
		}
		r = poll(pfd, n, -1);
		if (r < 0 && errno != EINTR) {
			logmsg("poll: %s", strerror(errno));
			return 1;
		}
		for (int i = 1; r > 0 && i < n; i++)
			if (pfd[i].revents && chan_fd[map[i]] >= 0)
				drain_chan(map[i]);
		if (r > 0 && pfd[0].revents & POLLIN) {
			if (read_port() < 0)
				return 1;
		} else if (r > 0 && pfd[0].revents & POLLHUP) {
			/*
			 * No host on the chardev: the port polls HUP and reads
			 * EOF without blocking.  Drop state so the next host
			 * starts clean, and wait for it without spinning.
			 */
			if (host_connected)
				logmsg("host disconnected");
			host_connected = 0;
			inlen = 0;
			close_all();
			sleep_ms(50);
		}
	}
}
