/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relay-proto.h: the frames spoken over the "rfkill" virtio-serial port
 * between rfkill-relay (in the guest) and rfkill_bridge.py (on the host).
 * README.md in this directory describes the protocol; rfkill_bridge.py
 * mirrors these numbers and must be changed together with them.
 *
 * A frame is   u8 kind | u8 chan | u8 len | len bytes of payload
 * except kind 0 (SYNC), which is that single byte.  Both sides send a run
 * of SYNC bytes before HELLO and before its ACK, so a half-sent frame left
 * over from an earlier connection cannot swallow them.
 *
 * Multi-byte numbers in payloads are little endian (both ends are x86).
 */
#ifndef RELAY_PROTO_H
#define RELAY_PROTO_H

#define RELAY_PROTO_VERSION	1
#define RELAY_PORT_NAME		"rfkill"
#define RELAY_MAX_PAYLOAD	255
#define RELAY_MAX_CHANNELS	16	/* channel 0 is the control channel */

enum relay_kind {
	RELAY_SYNC	= 0x00,	/* single byte, ignored */

	/* host -> guest; each one is answered by exactly one ACK, in order */
	RELAY_HELLO	= 'H',	/* [version]: close every channel, start over */
	RELAY_OPEN	= 'O',	/* open /dev/rfkill for chan (1..15) */
	RELAY_WRITE	= 'W',	/* [event bytes]: write() them on chan's fd */
	RELAY_IOCTL	= 'I',	/* [u8 nr]: ioctl(_IO('R', nr)) on chan's fd,
				 * e.g. the op-5 opt-in; ACK errno = its answer */
	RELAY_CLOSE	= 'C',	/* close chan's fd */
	RELAY_READ	= 'R',	/* [u32 offset][path]: pread a /sys or /proc file */
	RELAY_STORE	= 'S',	/* [path NUL data]: write data to a /sys file */
	RELAY_MARK	= 'M',	/* [text]: write text to the debugcon port */
	RELAY_PLUG	= 'P',	/* [1]: plug a virtual Bluetooth controller in,
				 * [0]: unplug it (hci_vhci) */
	RELAY_QUIT	= 'Q',	/* close everything, ACK, exit 0 */

	/* guest -> host */
	RELAY_ACK	= 'A',	/* [req kind][i32 errno][i32 result][data] */
	RELAY_EVENT	= 'E',	/* [event bytes]: one read() on chan's fd */
	RELAY_NAME	= 'N',	/* [u32 idx][name]: sysfs name, before its ADD */
	RELAY_GONE	= 'G',	/* [i32 errno]: chan's fd failed and was closed */
};

/* ACK payload header; data (READ's file contents, HELLO's info) follows. */
#define RELAY_ACK_HEADER	9

#endif /* RELAY_PROTO_H */
