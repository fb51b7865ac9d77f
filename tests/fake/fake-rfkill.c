/* fake-rfkill.c: a kernel /dev/rfkill stand-in over SOCK_SEQPACKET. */
#include "fake-rfkill.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "rfk-device.h"
#include "rfk-event.h"

typedef struct {
  FakeRfkill *fake;
  int fd;
  guint source;
  /* Packets the socket had no room for yet, oldest first (GBytes *),
   * and the G_IO_OUT watch that sends them once the client reads. */
  GQueue backlog;
  guint backlog_source;
  gboolean indicator_events;  /* asked for op 5 (ioctl packet or ACQUIRE) */
  gboolean noinput;  /* RFKILL_IOCTL_NOINPUT: rfkill-input stands down */
} Client;

/* A client this far behind is stuck, not slow: the kernel's queue per
 * open file is bounded by memory too, but a test must not eat it all. */
#define MAX_BACKLOG (1u << 20)

struct _FakeRfkill
{
  char *sysfs_dir;
  gboolean v1;
  gboolean stock;
  gboolean responsive;

  int listen_fd;
  guint listen_source;
  char *listen_path;

  GPtrArray *radios;            /* FakeRadio *, in idx order */
  GList *clients;               /* Client * */
  guint32 next_idx;
  gboolean global_soft[RFK_TYPE_COUNT]; /* CHANGE_ALL defaults */
  GHashTable *used_names;       /* never reused, like cfg80211's phyN */
  guint n_writes;

  Client *indicator_owner;      /* NULL: kernel default rule */
  gboolean owner_value;
  gboolean indicator;           /* last announced */
};

const char fake_rfkill_command_help[] =
  "Control commands (one per line; each reply ends with \"ok\" or \"error: ...\"):\n"
  "  list                       one line per radio: IDX TYPE NAME SOFT HARD REASONS\n"
  "  add TYPE [NAME]            hot-plug a radio; prints its IDX\n"
  "  del IDX                    hot-unplug a radio\n"
  "  readd IDX [NAME]           unplug and replug (new IDX; with NAME, renamed\n"
  "                             and in the global state); prints the IDX\n"
  "  device TYPE NAME BUS PATH  hot-plug a radio on bus device PATH; prints IDX\n"
  "  key                        press KEY_RFKILL (rfkill-input)\n"
  "  hard IDX on|off [REASONS]  hard-block one radio; REASONS: signal (default),\n"
  "                             not-owner or signal,not-owner\n"
  "  switch on|off              the wireless switch: hard-block every radio\n"
  "  soft IDX on|off            soft-block as a driver or another program would\n"
  "  refuse IDX on|off          its driver refuses (on) soft blocks from now on:\n"
  "                             writes leave it as it is, no event\n"
  "  indicator                  airplane-mode indicator: lit|dark owned|kernel\n"
  "  clients                    number of connected clients\n"
  "  writes                     number of write requests received\n"
  "  raw HEX                    send bytes as one packet to every client\n"
  "  help                       this list\n"
  "  quit                       stop the fake kernel\n";

/* ---- sysfs stand-in --------------------------------------------------- */

/* Where the kernel puts the rfkill device of radio, under devices/. */
static char *
sysfs_device_dir (FakeRfkill *fake, const FakeRadio *radio)
{
  const char *class = radio->type == RFK_TYPE_WLAN ? "ieee80211"
                      : radio->type == RFK_TYPE_BLUETOOTH ? "bluetooth"
                      : NULL;
  g_autofree char *rfkill = g_strdup_printf ("rfkill%u", radio->idx);

  if (class != NULL)
    return g_build_filename (fake->sysfs_dir, "devices", radio->bus_path,
                             class, radio->name, rfkill, NULL);
  return g_build_filename (fake->sysfs_dir, "devices", radio->bus_path,
                           "rfkill", rfkill, NULL);
}

static void
sysfs_link_subsystem (FakeRfkill *fake, const char *dir, const char *kind,
                      const char *name)
{
  g_autofree char *link = g_build_filename (dir, "subsystem", NULL);
  g_autofree char *target = g_build_filename (fake->sysfs_dir, kind, name,
                                              NULL);

  g_unlink (link);
  if (symlink (target, link) < 0)
    g_warning ("fake-rfkill: cannot link %s: %s", link, g_strerror (errno));
}

static void
sysfs_make_device (FakeRfkill *fake, const FakeRadio *radio,
                   const char *class_link)
{
  g_autofree char *dir = sysfs_device_dir (fake, radio);
  g_autofree char *parent = g_path_get_dirname (dir);
  g_autofree char *bus_dir = g_build_filename (fake->sysfs_dir, "devices",
                                              radio->bus_path, NULL);

  if (g_mkdir_with_parents (dir, 0755) < 0)
    g_warning ("fake-rfkill: cannot create %s: %s", dir, g_strerror (errno));
  /* A virtual device has no bus: it belongs to a class of its own
   * (devices/virtual/mac80211_hwsim/hwsim0 -> class/mac80211_hwsim). */
  sysfs_link_subsystem (fake, bus_dir,
                        g_str_has_prefix (radio->bus_path, "virtual/")
                          ? "class" : "bus", radio->bus);
  sysfs_link_subsystem (fake, dir, "class", "rfkill");
  if (radio->type == RFK_TYPE_WLAN || radio->type == RFK_TYPE_BLUETOOTH)
    sysfs_link_subsystem (fake, parent, "class",
                          radio->type == RFK_TYPE_WLAN ? "ieee80211"
                                                       : "bluetooth");
  if (symlink (dir, class_link) < 0)
    g_warning ("fake-rfkill: cannot link %s: %s", class_link,
               g_strerror (errno));
}

/*
 * One attribute, replaced whole: a reader sees the old value or the new
 * one, as a read of sysfs does.  Not g_file_set_contents(), which fsyncs
 * every file; the kernel's sysfs lives in memory, and an fsync per event
 * would make every test and benchmark measure the disk.
 */
static void
sysfs_write_attr (const char *dir, const char *file, const char *value)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autofree char *tmp = g_strconcat (path, ".new", NULL);
  gsize len = strlen (value);
  int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

  if (fd < 0 || write (fd, value, len) != (gssize) len)
    {
      g_warning ("fake-rfkill: cannot write %s: %s", tmp, g_strerror (errno));
      if (fd >= 0)
        close (fd);
      g_unlink (tmp);
      return;
    }
  close (fd);
  if (g_rename (tmp, path) < 0)
    g_warning ("fake-rfkill: cannot rename %s: %s", tmp, g_strerror (errno));
}

/* identity: also name and type, which only an ADD sets. */
static void
sysfs_write (FakeRfkill *fake, const FakeRadio *radio, gboolean identity)
{
  g_autofree char *dir = NULL;
  const char *type = rfk_type_to_string (radio->type);
  char value[16];

  if (fake->sysfs_dir == NULL)
    return;
  dir = g_strdup_printf ("%s/rfkill%u", fake->sysfs_dir, radio->idx);
  if (identity)
    {
      g_autofree char *name = g_strdup_printf ("%s\n", radio->name);

      if (radio->bus != NULL && !g_file_test (dir, G_FILE_TEST_EXISTS))
        sysfs_make_device (fake, radio, dir);
      if (g_mkdir_with_parents (dir, 0755) < 0)
        g_warning ("fake-rfkill: cannot create %s: %s", dir,
                   g_strerror (errno));
      sysfs_write_attr (dir, "name", name);
      g_snprintf (value, sizeof value, "%s\n", type ? type : "unknown");
      sysfs_write_attr (dir, "type", value);
    }
  g_snprintf (value, sizeof value, "%d\n", radio->soft);
  sysfs_write_attr (dir, "soft", value);
  g_snprintf (value, sizeof value, "%d\n", radio->hard);
  sysfs_write_attr (dir, "hard", value);
  /* RFKILL_STATE_*: 0 soft blocked, 1 unblocked, 2 hard blocked */
  g_snprintf (value, sizeof value, "%d\n",
              radio->hard ? 2 : radio->soft ? 0 : 1);
  sysfs_write_attr (dir, "state", value);
}

static void
sysfs_remove (FakeRfkill *fake, const FakeRadio *radio)
{
  static const char *const names[] = { "name", "type", "soft", "hard",
                                       "state", "subsystem" };
  g_autofree char *dir = NULL;

  if (fake->sysfs_dir == NULL)
    return;
  dir = radio->bus != NULL
          ? sysfs_device_dir (fake, radio)
          : g_strdup_printf ("%s/rfkill%u", fake->sysfs_dir, radio->idx);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
  if (radio->bus != NULL)
    {
      g_autofree char *link = g_strdup_printf ("%s/rfkill%u",
                                               fake->sysfs_dir, radio->idx);
      g_autofree char *parent = g_path_get_dirname (dir);
      g_autofree char *parent_link = g_build_filename (parent, "subsystem",
                                                       NULL);

      g_unlink (link);
      /* The class device (phyN, hciN) goes with its radio. */
      if (radio->type == RFK_TYPE_WLAN || radio->type == RFK_TYPE_BLUETOOTH)
        {
          g_unlink (parent_link);
          g_rmdir (parent);
        }
    }
}

/* ---- sending ---------------------------------------------------------- */

static gboolean client_writable_cb (int fd, GIOCondition condition,
                                    gpointer user_data);

/* FALSE if the socket has no room now (the packet stays queued). */
static gboolean
client_send_now (Client *client, GBytes *packet)
{
  gsize len;
  const guint8 *buf = g_bytes_get_data (packet, &len);

  while (send (client->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
    {
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return FALSE;
      /* A client that went away is freed when its read side sees it. */
      if (errno != EPIPE && errno != ECONNRESET)
        g_warning ("fake-rfkill: cannot send to client: %s",
                   g_strerror (errno));
      break;
    }
  return TRUE;
}

/*
 * The kernel queues every event for every open file until it is read;
 * so does this: a packet the socket has no room for waits in the
 * client's backlog, in order, and goes out when the client reads.  A
 * storm is delivered whole, and the fake never blocks on a slow reader.
 */
static void
client_send (Client *client, const guint8 *buf, gsize len)
{
  GBytes *packet;

  if (client->backlog.length == 0)
    {
      g_autoptr (GBytes) now = g_bytes_new_static (buf, len);

      if (client_send_now (client, now))
        return;
    }
  if (client->backlog.length >= MAX_BACKLOG)
    {
      g_warning ("fake-rfkill: a client has not read %u packets; "
                 "dropping one", client->backlog.length);
      return;
    }
  packet = g_bytes_new (buf, len);
  g_queue_push_tail (&client->backlog, packet);
  if (client->backlog_source == 0)
    client->backlog_source = g_unix_fd_add (client->fd, G_IO_OUT,
                                            client_writable_cb, client);
}

static gboolean
client_writable_cb (int fd, GIOCondition condition, gpointer user_data)
{
  Client *client = user_data;
  GBytes *packet;

  while ((packet = g_queue_peek_head (&client->backlog)) != NULL)
    {
      if (!client_send_now (client, packet))
        return G_SOURCE_CONTINUE;
      g_bytes_unref (g_queue_pop_head (&client->backlog));
    }
  client->backlog_source = 0;
  return G_SOURCE_REMOVE;
}

static void
client_send_event (FakeRfkill *fake, Client *client, const RfkEvent *event)
{
  guint8 buf[RFK_EVENT_SIZE_EXT];
  gsize len;

  if (fake->v1)
    len = rfk_event_encode (event, buf);
  else
    len = rfk_event_encode_ext (event, buf);
  client_send (client, buf, len);
}

static void
broadcast (FakeRfkill *fake, const RfkEvent *event)
{
  for (GList *l = fake->clients; l != NULL; l = l->next)
    client_send_event (fake, l->data, event);
}

static RfkEvent
radio_event (const FakeRadio *radio, guint8 op)
{
  return (RfkEvent) {
    .idx = radio->idx, .type = radio->type, .op = op,
    .soft = radio->soft, .hard = radio->hard,
    .hard_reasons = radio->hard ? radio->reasons : 0,
  };
}

/* The kernel's default rule for the indicator: every radio blocked. */
static gboolean
default_indicator (FakeRfkill *fake)
{
  if (fake->radios->len == 0)
    return FALSE;
  for (guint i = 0; i < fake->radios->len; i++)
    {
      FakeRadio *radio = g_ptr_array_index (fake->radios, i);

      if (!radio->soft && !radio->hard)
        return FALSE;
    }
  return TRUE;
}

static void
update_indicator (FakeRfkill *fake)
{
  gboolean value;
  RfkEvent event;

  if (fake->stock)
    return;
  value = fake->indicator_owner ? fake->owner_value
                                : default_indicator (fake);
  if (value == fake->indicator)
    return;
  fake->indicator = value;
  event = rfk_event_indicator_change (value);
  event.type = RFK_TYPE_ALL;
  /* Like our module: only to the clients that asked. */
  for (GList *l = fake->clients; l != NULL; l = l->next)
    if (((Client *) l->data)->indicator_events)
      client_send_event (fake, l->data, &event);
}

/* From now on client gets op 5, starting with the current state. */
static void
indicator_events_optin (FakeRfkill *fake, Client *client)
{
  RfkEvent event = rfk_event_indicator_change (fake->indicator);

  if (client->indicator_events)
    return;
  client->indicator_events = TRUE;
  event.type = RFK_TYPE_ALL;
  client_send_event (fake, client, &event);
}

/* An ioctl packet (rfk-protocol.h): the errno of the ioctl. */
static int
apply_ioctl (FakeRfkill *fake, Client *client, guint8 nr)
{
  /* Every kernel: while a NOINPUT fd is open, rfkill-input leaves the
   * keys to that program (until the fd is closed). */
  if (nr == RFK_IOC_NOINPUT)
    {
      client->noinput = TRUE;
      return 0;
    }
  /* A stock kernel knows no such ioctl: ENOTTY since 6.8. */
  if (fake->stock)
    return ENOTTY;
  if (nr == RFK_IOC_AIRPLANE_MODE_KEY_RESET)
    {
      /* rfkill-airplane.h: the key's state of "all" only, no radio, and
       * only while some radio is soft-unblocked. */
      for (guint i = 0; i < fake->radios->len; i++)
        if (!((FakeRadio *) fake->radios->pdata[i])->soft)
          fake->global_soft[RFK_TYPE_ALL] = FALSE;
      return 0;
    }
  if (nr != RFK_IOC_AIRPLANE_MODE_EVENTS)
    return ENOTTY;
  indicator_events_optin (fake, client);
  return 0;
}

static void
radio_changed (FakeRfkill *fake, FakeRadio *radio)
{
  RfkEvent event = radio_event (radio, RFK_OP_CHANGE);

  sysfs_write (fake, radio, FALSE);
  broadcast (fake, &event);
  update_indicator (fake);
}

/* ---- radios ----------------------------------------------------------- */

static FakeRadio *
find_radio (FakeRfkill *fake, guint32 idx, guint *out_index)
{
  for (guint i = 0; i < fake->radios->len; i++)
    {
      FakeRadio *radio = g_ptr_array_index (fake->radios, i);

      if (radio->idx == idx)
        {
          if (out_index)
            *out_index = i;
          return radio;
        }
    }
  return NULL;
}

static void
radio_free (FakeRadio *radio)
{
  g_free (radio->bus);
  g_free (radio->bus_path);
  g_free (radio->name);
  g_free (radio);
}

static char *
default_name (FakeRfkill *fake, guint8 type)
{
  const char *prefix = type == RFK_TYPE_WLAN ? "phy"
                       : type == RFK_TYPE_BLUETOOTH ? "hci"
                       : rfk_type_to_string (type) ? rfk_type_to_string (type)
                                                  : "radio";

  /* Like drivers, count up per prefix and never reuse a number. */
  for (guint n = 0;; n++)
    {
      g_autofree char *name = g_strdup_printf ("%s%u", prefix, n);
      gboolean used = FALSE;

      used = g_hash_table_contains (fake->used_names, name);
      for (guint i = 0; i < fake->radios->len && !used; i++)
        used = g_str_equal (((FakeRadio *) fake->radios->pdata[i])->name,
                            name);
      if (!used)
        return g_steal_pointer (&name);
    }
}

static guint32
add_radio (FakeRfkill *fake, guint8 type, const char *name, gboolean soft,
           const char *bus, const char *bus_path)
{
  FakeRadio *radio;
  RfkEvent event;

  /* rfkill_alloc() refuses types it does not know, and "all". */
  g_return_val_if_fail (type > RFK_TYPE_ALL && type < RFK_TYPE_COUNT,
                        G_MAXUINT32);
  radio = g_new0 (FakeRadio, 1);
  radio->idx = fake->next_idx++;
  radio->type = type;
  radio->name = name ? g_strdup (name) : default_name (fake, type);
  radio->soft = soft;
  radio->bus = g_strdup (bus);
  radio->bus_path = g_strdup (bus_path);
  g_hash_table_add (fake->used_names, g_strdup (radio->name));
  g_ptr_array_add (fake->radios, radio);

  /* sysfs first: the kernel registers the device before announcing it. */
  sysfs_write (fake, radio, TRUE);
  event = radio_event (radio, RFK_OP_ADD);
  broadcast (fake, &event);
  update_indicator (fake);
  return radio->idx;
}

guint32
fake_rfkill_add_full (FakeRfkill *fake, guint8 type, const char *name,
                      gboolean soft)
{
  return add_radio (fake, type, name, soft, NULL, NULL);
}

static gboolean
global_soft (FakeRfkill *fake, guint8 type)
{
  return type < RFK_TYPE_COUNT && fake->global_soft[type];
}

guint32
fake_rfkill_add_device (FakeRfkill *fake, guint8 type, const char *name,
                        const char *bus, const char *bus_path)
{
  g_return_val_if_fail (bus != NULL && bus_path != NULL, G_MAXUINT32);
  return add_radio (fake, type, name, global_soft (fake, type), bus,
                    bus_path);
}

guint32
fake_rfkill_readd_as (FakeRfkill *fake, guint32 idx, const char *new_name)
{
  FakeRadio *radio = find_radio (fake, idx, NULL);
  g_autofree char *bus = NULL;
  g_autofree char *bus_path = NULL;
  guint8 type;

  if (radio == NULL)
    return G_MAXUINT32;
  type = radio->type;
  bus = g_strdup (radio->bus);
  bus_path = g_strdup (radio->bus_path);
  fake_rfkill_del (fake, idx);
  return add_radio (fake, type, new_name, global_soft (fake, type), bus,
                    bus_path);
}

/* rfkill-input's KEY_RFKILL: rfkill_switch_all (RFKILL_TYPE_ALL,
 * !global state of RFKILL_TYPE_ALL), which sets every type's global
 * state and every radio. */
void
fake_rfkill_press_airplane_key (FakeRfkill *fake)
{
  gboolean blocked = !fake->global_soft[RFK_TYPE_ALL];

  for (GList *l = fake->clients; l != NULL; l = l->next)
    if (((Client *) l->data)->noinput)
      return;  /* a program handles the keys itself */
  for (guint t = 0; t < RFK_TYPE_COUNT; t++)
    fake->global_soft[t] = blocked;
  for (guint i = 0; i < fake->radios->len; i++)
    {
      FakeRadio *radio = fake->radios->pdata[i];

      /* rfkill_switch_all() goes through the driver too. */
      if (!radio->refuses_soft)
        fake_rfkill_set_soft (fake, radio->idx, blocked);
    }
}

gboolean
fake_rfkill_get_global (FakeRfkill *fake, guint8 type)
{
  return global_soft (fake, type);
}

guint32
fake_rfkill_add (FakeRfkill *fake, guint8 type, const char *name)
{
  /* Non-persistent radios start in their type's CHANGE_ALL default. */
  gboolean soft = type < RFK_TYPE_COUNT && fake->global_soft[type];

  return fake_rfkill_add_full (fake, type, name, soft);
}

gboolean
fake_rfkill_del (FakeRfkill *fake, guint32 idx)
{
  guint index;
  FakeRadio *radio = find_radio (fake, idx, &index);
  RfkEvent event;

  if (radio == NULL)
    return FALSE;
  event = radio_event (radio, RFK_OP_DEL);
  sysfs_remove (fake, radio);
  broadcast (fake, &event);
  g_ptr_array_remove_index (fake->radios, index);
  update_indicator (fake);
  return TRUE;
}

guint32
fake_rfkill_readd (FakeRfkill *fake, guint32 idx)
{
  FakeRadio *radio = find_radio (fake, idx, NULL);
  g_autofree char *name = NULL;
  guint8 type;
  gboolean soft;

  if (radio == NULL)
    return G_MAXUINT32;
  name = g_strdup (radio->name);
  type = radio->type;
  soft = radio->soft;
  fake_rfkill_del (fake, idx);
  return fake_rfkill_add_full (fake, type, name, soft);
}

gboolean
fake_rfkill_set_hard (FakeRfkill *fake, guint32 idx, gboolean hard,
                      guint8 reasons)
{
  FakeRadio *radio = find_radio (fake, idx, NULL);

  if (radio == NULL)
    return FALSE;
  reasons = hard ? reasons : 0;
  if (radio->hard == hard && radio->reasons == reasons)
    return TRUE;
  radio->hard = hard;
  radio->reasons = reasons;
  radio_changed (fake, radio);
  return TRUE;
}

void
fake_rfkill_set_switch (FakeRfkill *fake, gboolean blocked)
{
  for (guint i = 0; i < fake->radios->len; i++)
    {
      FakeRadio *radio = g_ptr_array_index (fake->radios, i);

      fake_rfkill_set_hard (fake, radio->idx, blocked,
                            blocked ? RFK_HARD_BLOCK_SIGNAL : 0);
    }
}

gboolean
fake_rfkill_set_soft (FakeRfkill *fake, guint32 idx, gboolean soft)
{
  FakeRadio *radio = find_radio (fake, idx, NULL);

  if (radio == NULL)
    return FALSE;
  if (radio->soft != soft)
    {
      radio->soft = soft;
      radio_changed (fake, radio);
    }
  return TRUE;
}

void
fake_rfkill_set_refuses_soft (FakeRfkill *fake, guint32 idx, gboolean refuses)
{
  FakeRadio *radio = find_radio (fake, idx, NULL);

  if (radio != NULL)
    radio->refuses_soft = refuses;
}

void
fake_rfkill_send_raw (FakeRfkill *fake, const guint8 *buf, gsize len)
{
  for (GList *l = fake->clients; l != NULL; l = l->next)
    client_send (l->data, buf, len);
}

/* ---- requests from clients -------------------------------------------- */

/* What the kernel's rfkill_fop_write() would return, as a positive errno. */
static int
apply_request (FakeRfkill *fake, Client *client, const guint8 *buf,
               gsize len)
{
  guint8 padded[RFK_EVENT_SIZE_V1] = { 0 };
  RfkEvent event;
  guint8 nr;

  if (rfk_ioctl_packet_decode (buf, len, &nr))
    return apply_ioctl (fake, client, nr);
  fake->n_writes++;
  if (len < RFK_WRITE_SIZE_MIN)
    return EINVAL;
  memcpy (padded, buf, MIN (len, sizeof padded));
  rfk_event_decode (padded, sizeof padded, &event);

  switch (event.op)
    {
    case RFK_OP_CHANGE_ALL:
      if (event.type >= RFK_TYPE_COUNT)
        return EINVAL;
      for (guint t = 0; t < RFK_TYPE_COUNT; t++)
        if (event.type == RFK_TYPE_ALL || t == event.type)
          fake->global_soft[t] = event.soft;
      for (guint i = 0; i < fake->radios->len; i++)
        {
          FakeRadio *radio = g_ptr_array_index (fake->radios, i);

          if ((event.type == RFK_TYPE_ALL || radio->type == event.type)
              && !radio->refuses_soft)
            fake_rfkill_set_soft (fake, radio->idx, event.soft);
        }
      return 0;

    case RFK_OP_CHANGE:
      if (event.type >= RFK_TYPE_COUNT)
        return EINVAL;
      for (guint i = 0; i < fake->radios->len; i++)
        {
          FakeRadio *radio = g_ptr_array_index (fake->radios, i);

          if (radio->idx == event.idx && !radio->refuses_soft
              && (event.type == RFK_TYPE_ALL || radio->type == event.type))
            fake_rfkill_set_soft (fake, radio->idx, event.soft);
        }
      return 0;  /* an unknown idx is not an error for the kernel either */

    case RFK_OP_INDICATOR_ACQUIRE:
      if (fake->stock)
        return EINVAL;
      if (fake->indicator_owner != NULL && fake->indicator_owner != client)
        return EACCES;
      if (fake->indicator_owner == NULL)
        fake->owner_value = fake->indicator;  /* keeps its state */
      fake->indicator_owner = client;
      indicator_events_optin (fake, client);  /* the owner needs the state */
      return 0;

    case RFK_OP_INDICATOR_CHANGE:
      if (fake->stock)
        return EINVAL;
      if (fake->indicator_owner != client)
        return EACCES;
      fake->owner_value = event.soft;
      update_indicator (fake);
      return 0;

    default:
      return EINVAL;
    }
}

static void
client_free (Client *client)
{
  FakeRfkill *fake = client->fake;

  fake->clients = g_list_remove (fake->clients, client);
  g_clear_handle_id (&client->source, g_source_remove);
  g_clear_handle_id (&client->backlog_source, g_source_remove);
  g_queue_clear_full (&client->backlog, (GDestroyNotify) g_bytes_unref);
  close (client->fd);
  if (fake->indicator_owner == client)
    {
      /* Closing the owner's fd hands the LED back to the default rule. */
      fake->indicator_owner = NULL;
      update_indicator (fake);
    }
  g_free (client);
}

static gboolean
client_readable_cb (int fd, GIOCondition condition, gpointer user_data)
{
  Client *client = user_data;
  FakeRfkill *fake = client->fake;

  for (;;)
    {
      guint8 buf[256];
      guint8 status[RFK_STATUS_SIZE];
      gssize n = recv (fd, buf, sizeof buf, MSG_DONTWAIT);
      int err;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return G_SOURCE_CONTINUE;
      if (n <= 0)
        {
          client->source = 0;
          client_free (client);
          return G_SOURCE_REMOVE;
        }
      if (!fake->responsive)
        continue;
      err = apply_request (fake, client, buf, n);
      rfk_status_encode (err, status);
      client_send (client, status, sizeof status);
    }
}

static void
add_client (FakeRfkill *fake, int fd)
{
  Client *client = g_new0 (Client, 1);
  guint8 end_of_list[RFK_STATUS_SIZE];
  RfkEvent event;

  client->fake = fake;
  client->fd = fd;
  fake->clients = g_list_append (fake->clients, client);
  for (guint i = 0; i < fake->radios->len; i++)
    {
      event = radio_event (g_ptr_array_index (fake->radios, i), RFK_OP_ADD);
      client_send_event (fake, client, &event);
    }
  /* The end of the initial list (see rfk-protocol.h). */
  rfk_status_encode (0, end_of_list);
  client_send (client, end_of_list, sizeof end_of_list);
  client->source = g_unix_fd_add (fd, G_IO_IN | G_IO_HUP | G_IO_ERR,
                                  client_readable_cb, client);
}

static gboolean
accept_cb (int fd, GIOCondition condition, gpointer user_data)
{
  FakeRfkill *fake = user_data;
  int client_fd;

  while ((client_fd = accept4 (fd, NULL, NULL,
                               SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
    add_client (fake, client_fd);
  return G_SOURCE_CONTINUE;
}

/* ---- public API ------------------------------------------------------- */

FakeRfkill *
fake_rfkill_new (const char *sysfs_dir)
{
  FakeRfkill *fake = g_new0 (FakeRfkill, 1);

  fake->sysfs_dir = g_strdup (sysfs_dir);
  fake->radios = g_ptr_array_new_with_free_func ((GDestroyNotify) radio_free);
  fake->listen_fd = -1;
  fake->responsive = TRUE;
  fake->used_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                            NULL);
  if (sysfs_dir != NULL)
    g_mkdir_with_parents (sysfs_dir, 0755);
  return fake;
}

void
fake_rfkill_free (FakeRfkill *fake)
{
  if (fake == NULL)
    return;
  while (fake->clients != NULL)
    client_free (fake->clients->data);
  g_clear_handle_id (&fake->listen_source, g_source_remove);
  if (fake->listen_fd >= 0)
    {
      close (fake->listen_fd);
      g_unlink (fake->listen_path);
    }
  for (guint i = 0; i < fake->radios->len; i++)
    sysfs_remove (fake, fake->radios->pdata[i]);
  g_hash_table_unref (fake->used_names);
  g_ptr_array_unref (fake->radios);
  g_free (fake->listen_path);
  g_free (fake->sysfs_dir);
  g_free (fake);
}

void
fake_rfkill_set_v1 (FakeRfkill *fake, gboolean v1)
{
  fake->v1 = v1;
}

void
fake_rfkill_set_stock (FakeRfkill *fake, gboolean stock)
{
  fake->stock = stock;
}

void
fake_rfkill_set_responsive (FakeRfkill *fake, gboolean responsive)
{
  fake->responsive = responsive;
}

gboolean
fake_rfkill_listen (FakeRfkill *fake, const char *path, GError **error)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  g_autofree char *tmp = g_strdup_printf ("%s.%d.tmp", path, getpid ());
  int fd;

  if (strlen (tmp) >= sizeof addr.sun_path)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FILENAME_TOO_LONG,
                   "Cannot listen on %s: path too long", path);
      return FALSE;
    }
  strcpy (addr.sun_path, tmp);
  g_unlink (tmp);

  fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    goto err_errno;
  if (bind (fd, (struct sockaddr *) &addr, sizeof addr) < 0)
    goto err_close;
  if (listen (fd, 16) < 0)
    goto err_unlink;
  /* Appear under the real name only once connect() can succeed. */
  if (rename (tmp, path) < 0)
    goto err_unlink;

  fake->listen_fd = fd;
  fake->listen_path = g_strdup (path);
  fake->listen_source = g_unix_fd_add (fd, G_IO_IN, accept_cb, fake);
  return TRUE;

err_unlink:
  g_unlink (tmp);
err_close:
  {
    int saved_errno = errno;

    close (fd);
    errno = saved_errno;
  }
err_errno:
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
               "Cannot listen on %s: %s", path, g_strerror (errno));
  return FALSE;
}

int
fake_rfkill_connect_pair (FakeRfkill *fake)
{
  int fds[2];

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                  fds) < 0)
    return -1;
  add_client (fake, fds[0]);
  return fds[1];
}

const FakeRadio *
fake_rfkill_lookup (FakeRfkill *fake, guint32 idx)
{
  return find_radio (fake, idx, NULL);
}

GPtrArray *
fake_rfkill_get_radios (FakeRfkill *fake)
{
  return fake->radios;
}

gboolean
fake_rfkill_get_indicator (FakeRfkill *fake, gboolean *out_owned)
{
  if (out_owned)
    *out_owned = fake->indicator_owner != NULL;
  return fake->indicator;
}

guint
fake_rfkill_get_n_clients (FakeRfkill *fake)
{
  return g_list_length (fake->clients);
}

guint
fake_rfkill_get_n_writes (FakeRfkill *fake)
{
  return fake->n_writes;
}

/* ---- text control ----------------------------------------------------- */

static gboolean
parse_idx (const char *arg, guint32 *out)
{
  guint64 value;

  if (arg == NULL || !g_ascii_string_to_unsigned (arg, 10, 0, G_MAXUINT32 - 1,
                                                  &value, NULL))
    return FALSE;
  *out = value;
  return TRUE;
}

static gboolean
parse_on_off (const char *arg, gboolean *out)
{
  if (g_strcmp0 (arg, "on") == 0 || g_strcmp0 (arg, "1") == 0)
    *out = TRUE;
  else if (g_strcmp0 (arg, "off") == 0 || g_strcmp0 (arg, "0") == 0)
    *out = FALSE;
  else
    return FALSE;
  return TRUE;
}

static gboolean
parse_reasons (const char *arg, guint8 *out)
{
  g_auto (GStrv) parts = NULL;

  *out = RFK_HARD_BLOCK_SIGNAL;
  if (arg == NULL)
    return TRUE;
  *out = 0;
  parts = g_strsplit (arg, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (g_str_equal (parts[i], "signal"))
        *out |= RFK_HARD_BLOCK_SIGNAL;
      else if (g_str_equal (parts[i], "not-owner"))
        *out |= RFK_HARD_BLOCK_NOT_OWNER;
      else if (!g_ascii_string_to_unsigned (parts[i], 0, 0, 255, NULL, NULL))
        return FALSE;
      else
        *out |= (guint8) g_ascii_strtoull (parts[i], NULL, 0);
    }
  return TRUE;
}

char *
fake_rfkill_command (FakeRfkill *fake, const char *line, gboolean *out_quit)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree char *copy = NULL;
  g_auto (GStrv) argv = NULL;
  const char *cmd;
  guint argc;
  guint32 idx;
  gboolean on;

  if (out_quit)
    *out_quit = FALSE;
  copy = g_strstrip (g_strdup (line ? line : ""));
  argv = g_strsplit_set (copy, " \t", -1);
  /* g_strsplit_set keeps empty fields for repeated blanks: squeeze. */
  {
    guint j = 0;

    for (guint i = 0; argv[i] != NULL; i++)
      if (*argv[i] != '\0')
        argv[j++] = argv[i];
      else
        g_free (argv[i]);
    argv[j] = NULL;
    argc = j;
  }
  cmd = argc > 0 ? argv[0] : "";

#define FAIL(...) \
  do { g_string_append (out, "error: "); \
       g_string_append_printf (out, __VA_ARGS__); \
       g_string_append_c (out, '\n'); \
       return g_string_free (g_steal_pointer (&out), FALSE); } while (0)

  if (argc == 0)
    FAIL ("empty command");
  else if (g_str_equal (cmd, "list"))
    {
      for (guint i = 0; i < fake->radios->len; i++)
        {
          FakeRadio *r = g_ptr_array_index (fake->radios, i);
          const char *type = rfk_type_to_string (r->type);

          if (type)
            g_string_append_printf (out, "%u %s %s %d %d %u\n", r->idx, type,
                                    r->name, r->soft, r->hard, r->reasons);
          else
            g_string_append_printf (out, "%u %u %s %d %d %u\n", r->idx,
                                    r->type, r->name, r->soft, r->hard,
                                    r->reasons);
        }
    }
  else if (g_str_equal (cmd, "add"))
    {
      RfkType type;
      guint64 number;

      if (argc < 2 || argc > 3)
        FAIL ("usage: add TYPE [NAME]");
      if (rfk_type_from_string (argv[1], &type))
        number = type;
      else if (!g_ascii_string_to_unsigned (argv[1], 10, 0, 255, &number,
                                            NULL))
        FAIL ("unknown radio type “%s”", argv[1]);
      /* No kernel registers a radio of a type it does not know. */
      if (number == RFK_TYPE_ALL || number >= RFK_TYPE_COUNT)
        FAIL ("a kernel has no radio of type %s", argv[1]);
      g_string_append_printf (out, "%u\n",
                              fake_rfkill_add (fake, number, argv[2]));
    }
  else if (g_str_equal (cmd, "del"))
    {
      if (argc != 2 || !parse_idx (argv[1], &idx))
        FAIL ("usage: del IDX");
      if (!fake_rfkill_del (fake, idx))
        FAIL ("no radio %u", idx);
    }
  else if (g_str_equal (cmd, "readd"))
    {
      if (argc < 2 || argc > 3 || !parse_idx (argv[1], &idx))
        FAIL ("usage: readd IDX [NAME]");
      idx = argc == 3 ? fake_rfkill_readd_as (fake, idx, argv[2])
                      : fake_rfkill_readd (fake, idx);
      if (idx == G_MAXUINT32)
        FAIL ("no radio %s", argv[1]);
      g_string_append_printf (out, "%u\n", idx);
    }
  else if (g_str_equal (cmd, "device"))
    {
      RfkType type;

      if (argc != 5 || !rfk_type_from_string (argv[1], &type))
        FAIL ("usage: device TYPE NAME BUS PATH");
      g_string_append_printf (out, "%u\n",
                              fake_rfkill_add_device (fake, type, argv[2],
                                                      argv[3], argv[4]));
    }
  else if (g_str_equal (cmd, "key"))
    fake_rfkill_press_airplane_key (fake);
  else if (g_str_equal (cmd, "hard"))
    {
      guint8 reasons;

      if (argc < 3 || argc > 4 || !parse_idx (argv[1], &idx)
          || !parse_on_off (argv[2], &on) || !parse_reasons (argv[3],
                                                             &reasons))
        FAIL ("usage: hard IDX on|off [signal|not-owner|signal,not-owner]");
      if (!fake_rfkill_set_hard (fake, idx, on, reasons))
        FAIL ("no radio %u", idx);
    }
  else if (g_str_equal (cmd, "switch"))
    {
      if (argc != 2 || !parse_on_off (argv[1], &on))
        FAIL ("usage: switch on|off");
      fake_rfkill_set_switch (fake, on);
    }
  else if (g_str_equal (cmd, "refuse"))
    {
      if (argc != 3 || !parse_idx (argv[1], &idx)
          || !parse_on_off (argv[2], &on))
        FAIL ("usage: refuse IDX on|off");
      if (fake_rfkill_lookup (fake, idx) == NULL)
        FAIL ("no radio %u", idx);
      fake_rfkill_set_refuses_soft (fake, idx, on);
    }
  else if (g_str_equal (cmd, "soft"))
    {
      if (argc != 3 || !parse_idx (argv[1], &idx)
          || !parse_on_off (argv[2], &on))
        FAIL ("usage: soft IDX on|off");
      if (!fake_rfkill_set_soft (fake, idx, on))
        FAIL ("no radio %u", idx);
    }
  else if (g_str_equal (cmd, "indicator"))
    {
      gboolean owned;
      gboolean lit = fake_rfkill_get_indicator (fake, &owned);

      g_string_append_printf (out, "%s %s\n", lit ? "lit" : "dark",
                              owned ? "owned" : "kernel");
    }
  else if (g_str_equal (cmd, "clients"))
    g_string_append_printf (out, "%u\n", fake_rfkill_get_n_clients (fake));
  else if (g_str_equal (cmd, "writes"))
    g_string_append_printf (out, "%u\n", fake_rfkill_get_n_writes (fake));
  else if (g_str_equal (cmd, "raw"))
    {
      g_autoptr (GByteArray) bytes = g_byte_array_new ();
      const char *hex = argc == 2 ? argv[1] : "";

      if (argc != 2 || strlen (hex) % 2 != 0)
        FAIL ("usage: raw HEX");
      for (const char *p = hex; *p; p += 2)
        {
          int hi = g_ascii_xdigit_value (p[0]);
          int lo = g_ascii_xdigit_value (p[1]);
          guint8 byte;

          if (hi < 0 || lo < 0)
            FAIL ("not hexadecimal: %s", hex);
          byte = hi << 4 | lo;
          g_byte_array_append (bytes, &byte, 1);
        }
      fake_rfkill_send_raw (fake, bytes->data, bytes->len);
    }
  else if (g_str_equal (cmd, "help"))
    g_string_append (out, fake_rfkill_command_help);
  else if (g_str_equal (cmd, "quit"))
    {
      if (out_quit)
        *out_quit = TRUE;
    }
  else
    FAIL ("unknown command “%s” (try: list, add, device, del, readd, key, "
          "hard, switch, soft, indicator, clients, writes, raw, help, quit)",
          cmd);
#undef FAIL

  g_string_append (out, "ok\n");
  return g_string_free (g_steal_pointer (&out), FALSE);
}
