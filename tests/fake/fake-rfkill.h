/*
 * fake-rfkill.h: an in-process stand-in for the kernel's /dev/rfkill.
 *
 * It speaks the real protocol over SOCK_SEQPACKET unix sockets, one
 * packet per event, and behaves like net/rfkill/core.c:
 *  - every new client gets one ADD per radio;
 *  - CHANGE sets one radio (idx, and type or RFKILL_TYPE_ALL), an unknown
 *    idx is accepted and ignored; CHANGE_ALL sets a type's (or every)
 *    radio and the per-type default that newly added radios start with;
 *  - an event goes to every client only when a state really changed;
 *  - only radios of a type the kernel knows exist (rfkill_alloc());
 *  - RFKILL_IOCTL_NOINPUT (as an ioctl packet): while that client is
 *    connected, the airplane key does nothing (rfkill-input stands down);
 *  - a radio can refuse soft blocks ("refuse IDX on"): writes and the key
 *    leave it as it is, without an event, as when its driver's
 *    set_block() fails;
 *  - hard blocks carry reasons; events are extended (9 bytes) or V1 (8);
 *  - the airplane-mode indicator ops work like our patched kernel (one
 *    owner across all clients, EACCES for others, release on close, op 5
 *    events only to clients that asked with an ioctl packet or by
 *    ACQUIRE) or fail like a stock kernel (EINVAL to the ops, ENOTTY to
 *    the ioctl packet, never an op 5).
 * Because a socket cannot fail a write(), each packet a client sends is
 * answered by a status packet (rfk-protocol.h) carrying the errno.
 *
 * Optionally it keeps a sysfs stand-in (RFKILL_SYSFS_ROOT) with
 * rfkillN/{name,type,soft,hard,state}.  A radio added with a bus device
 * gets the kernel's layout: rfkillN is a link into devices/, where the
 * rfkill device sits in its parent class device (ieee80211/phyN,
 * bluetooth/hciN) or in an "rfkill" directory, under the bus device, and
 * every device has a "subsystem" link to class/X or bus/X.  A bus_path
 * under "virtual/" is a driver's class device (mac80211_hwsim's
 * virtual/mac80211_hwsim/hwsimN, as a real kernel lays it out).
 * The airplane key is rfkill-input's KEY_RFKILL: it toggles every radio
 * from the global state of RFKILL_TYPE_ALL.  Runs on the thread-default
 * main context; nothing blocks.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FakeRfkill FakeRfkill;

typedef struct {
  guint32 idx;
  guint8 type;
  char *name;
  gboolean soft;
  gboolean hard;
  guint8 reasons;
  char *bus;       /* "pci", "usb", "platform", or NULL: no device tree */
  char *bus_path;  /* the bus device under devices/, "pci0000:00/0000:00:14.3" */
  gboolean refuses_soft;  /* its driver's set_block() fails (dell-rbtn) */
} FakeRadio;

/* sysfs_dir: directory to maintain as RFKILL_SYSFS_ROOT, or NULL. */
FakeRfkill *fake_rfkill_new (const char *sysfs_dir);
void fake_rfkill_free (FakeRfkill *fake);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FakeRfkill, fake_rfkill_free)

/* Behaviour switches; set before clients connect. */
void fake_rfkill_set_v1 (FakeRfkill *fake, gboolean v1);
void fake_rfkill_set_stock (FakeRfkill *fake, gboolean stock);
/* FALSE: swallow write requests without applying them or answering,
 * like a hung relay (to test confirmation timeouts). */
void fake_rfkill_set_responsive (FakeRfkill *fake, gboolean responsive);

/* Binds path (replacing a stale socket) atomically: clients never see
 * the name before it accepts connections. */
gboolean fake_rfkill_listen (FakeRfkill *fake, const char *path,
                             GError **error);
/* A connected pair; returns the client end (caller closes it). */
int fake_rfkill_connect_pair (FakeRfkill *fake);

/* Radios.  name NULL picks phyN/hciN/…  Returns the new idx. */
guint32 fake_rfkill_add (FakeRfkill *fake, guint8 type, const char *name);
guint32 fake_rfkill_add_full (FakeRfkill *fake, guint8 type,
                              const char *name, gboolean soft);
/* A non-persistent radio on a bus device (see above); it starts in its
 * type's global state, like the kernel's. */
guint32 fake_rfkill_add_device (FakeRfkill *fake, guint8 type,
                                const char *name, const char *bus,
                                const char *bus_path);
gboolean fake_rfkill_del (FakeRfkill *fake, guint32 idx);
/* Unplug and plug back in the same slot, as drivers do: a new idx, the
 * name new_name (NULL: the next one never used, as cfg80211 numbers phys)
 * and the type's global state; the bus device stays. */
guint32 fake_rfkill_readd_as (FakeRfkill *fake, guint32 idx,
                              const char *new_name);
/* KEY_RFKILL through rfkill-input. */
void fake_rfkill_press_airplane_key (FakeRfkill *fake);
/* The kernel's global soft state of a type (RFKILL_TYPE_ALL included). */
gboolean fake_rfkill_get_global (FakeRfkill *fake, guint8 type);
/* Hot-unplug and replug: same type, name and soft state, new idx
 * (G_MAXUINT32 if idx is unknown). */
guint32 fake_rfkill_readd (FakeRfkill *fake, guint32 idx);
gboolean fake_rfkill_set_hard (FakeRfkill *fake, guint32 idx, gboolean hard,
                               guint8 reasons);
/* A laptop's wireless switch: hard-blocks every radio (reason SIGNAL). */
void fake_rfkill_set_switch (FakeRfkill *fake, gboolean blocked);
/* A state change the driver or another program made. */
gboolean fake_rfkill_set_soft (FakeRfkill *fake, guint32 idx, gboolean soft);
/* Like dell-rbtn, whose set_block() always fails: clients' CHANGE and
 * CHANGE_ALL leave the radio as it is (the kernel ignores the error). */
void fake_rfkill_set_refuses_soft (FakeRfkill *fake, guint32 idx,
                                   gboolean refuses);
/* Sends bytes as one packet to every client (malformed-input tests). */
void fake_rfkill_send_raw (FakeRfkill *fake, const guint8 *buf, gsize len);

const FakeRadio *fake_rfkill_lookup (FakeRfkill *fake, guint32 idx);
GPtrArray *fake_rfkill_get_radios (FakeRfkill *fake); /* of FakeRadio */
gboolean fake_rfkill_get_indicator (FakeRfkill *fake, gboolean *out_owned);
guint fake_rfkill_get_n_clients (FakeRfkill *fake);
/* Write requests received (any op), for "never writes needlessly". */
guint fake_rfkill_get_n_writes (FakeRfkill *fake);

/*
 * Text control protocol, shared by the program's stdin and --control
 * socket.  Returns the reply: zero or more data lines, then "ok" or
 * "error: …", each ending in '\n'.  *out_quit is set by "quit".
 */
char *fake_rfkill_command (FakeRfkill *fake, const char *line,
                           gboolean *out_quit);
/* Help text of the control protocol. */
extern const char fake_rfkill_command_help[];

G_END_DECLS
