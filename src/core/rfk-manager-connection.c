/*
 * rfk-manager-connection.c: RfkManager's fd on /dev/rfkill or a socket.
 *
 * Opens it (or waits for it to appear), reads every event as it comes
 * and hands it up (RfkManagerHooks), and closes it when it goes away.  The
 * kernel queues one ADD per radio inside open(), so a char device is
 * READY once the first drain is done.  A socket peer sends its ADDs once
 * it accepted us, then a status packet that ends them; a peer that never
 * sends one is taken as ready after SOCKET_SETTLE_MS without events.
 */
#include "config.h"

#include "rfk-manager-private.h"

#include <errno.h>
#include <glib-unix.h>
#include <glib/gi18n.h>
#include <unistd.h>

#include "rfk-transport.h"

/* For a socket peer that never marks the end of its initial ADDs. */
#define SOCKET_SETTLE_MS 1000

static void
monitor_changed_cb (GFileMonitor *monitor, GFile *file, GFile *other,
                    GFileMonitorEvent event, gpointer user_data)
{
  RfkManager *self = user_data;
  g_autofree char *basename = g_path_get_basename (self->device_path);
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *other_name = other ? g_file_get_basename (other) : NULL;

  if (event == G_FILE_MONITOR_EVENT_DELETED
      || event == G_FILE_MONITOR_EVENT_MOVED_OUT)
    return;
  if (g_strcmp0 (name, basename) != 0
      && g_strcmp0 (other_name, basename) != 0)
    return;
  if (self->fd < 0)
    rfk_manager_try_open (self);
}

/* Waits for the device node (udev creates it, then fixes its mode) or a
 * socket to appear: inotify on the parent directory, no polling. */
static void
wait_for_device (RfkManager *self)
{
  g_autofree char *dirname = NULL;
  g_autoptr (GFile) dir = NULL;
  g_autoptr (GError) error = NULL;

  if (self->monitor != NULL)
    return;
  dirname = g_path_get_dirname (self->device_path);
  dir = g_file_new_for_path (dirname);
  self->monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_WATCH_MOVES,
                                            NULL, &error);
  if (self->monitor == NULL)
    {
      g_warning (_("Cannot watch %s for %s to appear: %s"), dirname,
                 self->device_path, error->message);
      return;
    }
  g_signal_connect (self->monitor, "changed",
                    G_CALLBACK (monitor_changed_cb), self);
}

void
rfk_manager_close_device (RfkManager *self, GError *reason)
{
  RfkManagerState state = RFK_MANAGER_STATE_NO_DEVICE;

  g_clear_handle_id (&self->read_source, g_source_remove);
  g_clear_handle_id (&self->settle_source, g_source_remove);
  if (self->fd >= 0)
    {
      close (self->fd);
      self->fd = -1;
    }
  self->hooks->closed (self, reason);

  if (g_error_matches (reason, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    state = RFK_MANAGER_STATE_NO_PERMISSION;
  else if (!g_error_matches (reason, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)
           && !g_error_matches (reason, G_IO_ERROR,
                                G_IO_ERROR_CONNECTION_REFUSED)
           && !g_error_matches (reason, G_IO_ERROR, G_IO_ERROR_CLOSED))
    state = RFK_MANAGER_STATE_FAILED;
  self->hooks->state (self, state, reason);
  wait_for_device (self);
}

static gboolean
settle_cb (gpointer user_data)
{
  RfkManager *self = user_data;

  self->settle_source = 0;
  self->hooks->state (self, RFK_MANAGER_STATE_READY, NULL);
  return G_SOURCE_REMOVE;
}

static void
arm_settle (RfkManager *self)
{
  g_clear_handle_id (&self->settle_source, g_source_remove);
  self->settle_source = g_timeout_add (SOCKET_SETTLE_MS, settle_cb, self);
}

gboolean
rfk_manager_connection_take_list_end (RfkManager *self)
{
  /* The peer sends this one before it reads anything from us, so it
   * cannot be the answer to a request. */
  if (!self->awaiting_list_end)
    return FALSE;
  self->awaiting_list_end = FALSE;
  if (self->settle_source != 0)
    {
      g_clear_handle_id (&self->settle_source, g_source_remove);
      self->hooks->state (self, RFK_MANAGER_STATE_READY, NULL);
    }
  return TRUE;
}

/* Reads until EAGAIN: one batch.  FALSE if the device went away (already
 * handled). */
static gboolean
drain (RfkManager *self)
{
  guint8 buf[RFK_EVENT_SIZE_MAX];

  for (;;)
    {
      gssize n = rfk_transport_read (self->fd, buf);

      if (n > 0)
        {
          self->hooks->packet (self, buf, n);
          if (self->fd < 0)
            return FALSE;  /* a handler stopped us */
          if (self->settle_source != 0)
            arm_settle (self);
          continue;
        }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        {
          self->hooks->batch_end (self);
          return self->fd >= 0;
        }

      rfk_manager_close_device (self,
                                n == 0
                                  ? g_error_new (G_IO_ERROR,
                                                 G_IO_ERROR_CLOSED,
                                                 _("%s was closed by the "
                                                   "other end"),
                                                 self->device_path)
                                  : rfk_transport_error_new (
                                      self->device_path, RFK_TRANSPORT_READ,
                                      errno));
      return FALSE;
    }
}

static gboolean
readable_cb (int fd, GIOCondition condition, gpointer user_data)
{
  RfkManager *self = user_data;

  if (!drain (self))
    {
      self->read_source = 0;  /* close_device() removed us already */
      return G_SOURCE_REMOVE;
    }
  if (condition & (G_IO_HUP | G_IO_ERR))
    {
      self->read_source = 0;
      rfk_manager_close_device (self,
                                g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                             _("%s was closed by the other "
                                               "end"),
                                             self->device_path));
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

void
rfk_manager_try_open (RfkManager *self)
{
  g_autoptr (GError) error = NULL;
  int fd;

  fd = rfk_transport_open_full (self->device_path, self->read_only,
                                &self->is_socket, &error);
  if (fd < 0)
    {
      rfk_manager_close_device (self, g_steal_pointer (&error));
      return;
    }
  g_clear_object (&self->monitor);
  self->fd = fd;
  self->read_source = g_unix_fd_add (fd, G_IO_IN | G_IO_HUP | G_IO_ERR,
                                     readable_cb, self);
  self->hooks->state (self, RFK_MANAGER_STATE_STARTING, NULL);

  self->awaiting_list_end = self->is_socket;
  if (self->is_socket)
    arm_settle (self);
  /* op-5 events tell us the airplane-mode LED; without our module
   * (ENOTTY/ENOSYS, or EINVAL from a socket peer) it stays unknown.  The
   * peer's answer comes after the end of the ADDs and ends no request. */
  if (rfk_transport_ask_indicator_events (fd, self->is_socket)
      && self->is_socket)
    g_queue_push_tail (&self->status_waiters, GUINT_TO_POINTER (0));
  if (!drain (self))
    return;
  if (!self->is_socket)
    self->hooks->state (self, RFK_MANAGER_STATE_READY, NULL);
}

void
rfk_manager_connection_reset_key (RfkManager *self)
{
  if (self->fd < 0 || self->read_only)
    return;
  /* A socket peer answers with a status that ends no request. */
  if (rfk_transport_ioctl (self->fd, self->is_socket,
                           RFK_IOC_AIRPLANE_MODE_KEY_RESET)
      && self->is_socket)
    g_queue_push_tail (&self->status_waiters, GUINT_TO_POINTER (0));
}

void
rfk_manager_connection_dispose (RfkManager *self)
{
  g_clear_handle_id (&self->read_source, g_source_remove);
  g_clear_handle_id (&self->settle_source, g_source_remove);
  g_clear_object (&self->monitor);
}
