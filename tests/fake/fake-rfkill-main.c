/*
 * fake-rfkill-main.c: the fake kernel as a program, so the applet can be
 * tried and tested without radios.  See --help.
 */
#include <errno.h>
#include <gio/gio.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <gio/gunixsocketaddress.h>
#include <glib-unix.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-rfkill.h"
#include "rfk-device.h"

typedef struct {
  FakeRfkill *fake;
  GMainLoop *loop;
} App;

static const char description[] =
  "Listens on PATH (a SOCK_SEQPACKET unix socket) and behaves like the\n"
  "kernel's /dev/rfkill with the given radios, so that\n"
  "  rfkill-applet --device PATH --list\n"
  "works without hardware.  With --sysfs DIR, point the applet at the\n"
  "radio names with RFKILL_SYSFS_ROOT=DIR.\n"
  "\n"
  "Prints \"ready\" on stdout once PATH accepts connections.  Reads\n"
  "control commands from stdin (if it is open) and, with --control, from\n"
  "a SOCK_STREAM socket; \"fake-rfkill --ctl SOCKET COMMAND...\" sends one.\n"
  "\n";

/* Each control connection: one command per line, reply per command. */
static void
handle_line (App *app, GOutputStream *out, const char *line)
{
  gboolean quit;
  g_autofree char *reply = fake_rfkill_command (app->fake, line, &quit);

  g_output_stream_write_all (out, reply, strlen (reply), NULL, NULL, NULL);
  g_output_stream_flush (out, NULL, NULL);
  if (quit)
    g_main_loop_quit (app->loop);
}

typedef struct {
  App *app;
  GDataInputStream *in;
  GOutputStream *out;
  GObject *owner;       /* the connection, or NULL for stdin */
} LineReader;

static void
read_line_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  LineReader *reader = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish (
    reader->in, result, NULL, &error);

  if (line == NULL)
    {
      /* EOF: stdin closed (e.g. </dev/null) or a client left.  Keep
       * serving the radios. */
      g_clear_object (&reader->in);
      g_clear_object (&reader->out);
      g_clear_object (&reader->owner);
      g_free (reader);
      return;
    }
  handle_line (reader->app, reader->out, line);
  g_data_input_stream_read_line_async (reader->in, G_PRIORITY_DEFAULT, NULL,
                                       read_line_cb, reader);
}

static void
start_reader (App *app, GInputStream *in, GOutputStream *out, GObject *owner)
{
  LineReader *reader = g_new0 (LineReader, 1);

  reader->app = app;
  reader->in = g_data_input_stream_new (in);
  reader->out = g_object_ref (out);
  reader->owner = owner;
  g_data_input_stream_read_line_async (reader->in, G_PRIORITY_DEFAULT, NULL,
                                       read_line_cb, reader);
}

static gboolean
control_incoming_cb (GSocketService *service, GSocketConnection *connection,
                     GObject *source, gpointer user_data)
{
  App *app = user_data;
  GIOStream *stream = G_IO_STREAM (connection);

  start_reader (app, g_io_stream_get_input_stream (stream),
                g_io_stream_get_output_stream (stream),
                g_object_ref (G_OBJECT (connection)));
  return TRUE;
}

static gboolean
quit_cb (gpointer user_data)
{
  g_main_loop_quit (((App *) user_data)->loop);
  return G_SOURCE_REMOVE;
}

/* --ctl SOCKET COMMAND...: one command, reply on stdout, exit 0 if ok. */
static int
run_client (const char *path, char **words)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_autoptr (GSocketAddress) address = g_unix_socket_address_new (path);
  g_autoptr (GSocketConnection) connection = NULL;
  g_autoptr (GDataInputStream) in = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *command = g_strjoinv (" ", words);
  g_autofree char *line = NULL;
  GOutputStream *out;

  connection = g_socket_client_connect (client,
                                        G_SOCKET_CONNECTABLE (address),
                                        NULL, &error);
  if (connection == NULL)
    {
      fprintf (stderr, "fake-rfkill: cannot connect to %s: %s\n", path,
               error->message);
      return 1;
    }
  out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
  if (!g_output_stream_printf (out, NULL, NULL, &error, "%s\n", command))
    {
      fprintf (stderr, "fake-rfkill: cannot send to %s: %s\n", path,
               error->message);
      return 1;
    }
  in = g_data_input_stream_new (
    g_io_stream_get_input_stream (G_IO_STREAM (connection)));
  while ((line = g_data_input_stream_read_line (in, NULL, NULL, &error)))
    {
      if (g_str_equal (line, "ok"))
        return 0;
      if (g_str_has_prefix (line, "error: "))
        {
          fprintf (stderr, "fake-rfkill: %s\n", line + 7);
          return 1;
        }
      printf ("%s\n", line);
      g_clear_pointer (&line, g_free);
    }
  fprintf (stderr, "fake-rfkill: %s closed without a reply\n", path);
  return 1;
}

int
main (int argc, char **argv)
{
  g_autofree char *radios = NULL;
  g_autofree char *listen_path = NULL;
  g_autofree char *sysfs = NULL;
  g_autofree char *control = NULL;
  g_autofree char *ctl = NULL;
  gboolean v1 = FALSE, stock = FALSE, no_stdin = FALSE;
  GOptionEntry entries[] = {
    { "radios", 'r', 0, G_OPTION_ARG_STRING, &radios,
      "Radios to start with, e.g. wlan,wlan,bluetooth (types or aliases "
      "like wifi, bt; TYPE=NAME names one)", "LIST" },
    { "listen", 'l', 0, G_OPTION_ARG_FILENAME, &listen_path,
      "Socket path to serve the rfkill protocol on", "PATH" },
    { "sysfs", 's', 0, G_OPTION_ARG_FILENAME, &sysfs,
      "Keep a /sys/class/rfkill stand-in in DIR (for RFKILL_SYSFS_ROOT)",
      "DIR" },
    { "v1", 0, 0, G_OPTION_ARG_NONE, &v1,
      "Send 8-byte V1 events (kernels before 5.11) instead of 9-byte ones",
      NULL },
    { "stock", 0, 0, G_OPTION_ARG_NONE, &stock,
      "Act like a stock kernel: indicator ops 4/5 fail with EINVAL", NULL },
    { "control", 'c', 0, G_OPTION_ARG_FILENAME, &control,
      "Also accept control commands on this SOCK_STREAM socket", "PATH" },
    { "no-stdin", 0, 0, G_OPTION_ARG_NONE, &no_stdin,
      "Do not read commands from stdin", NULL },
    { "ctl", 0, 0, G_OPTION_ARG_FILENAME, &ctl,
      "Client mode: send the remaining words as one command to the control "
      "socket PATH and print the reply", "PATH" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GSocketService) service = NULL;
  g_autofree char *help = NULL;
  g_autoptr (FakeRfkill) fake = NULL;
  g_autoptr (GMainLoop) loop = NULL;
  App app = { 0 };

  setlocale (LC_ALL, "");
  context = g_option_context_new ("[COMMAND...]");
  g_option_context_set_summary (context,
                                "A fake kernel rfkill device for tests and "
                                "demos.");
  help = g_strconcat (description, fake_rfkill_command_help, NULL);
  g_option_context_set_description (context, help);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "fake-rfkill: %s\n", error->message);
      return 2;
    }

  if (ctl != NULL)
    {
      if (argc < 2)
        {
          fprintf (stderr, "fake-rfkill: --ctl needs a COMMAND\n");
          return 2;
        }
      return run_client (ctl, argv + 1);
    }
  if (listen_path == NULL || argc > 1)
    {
      fprintf (stderr, "fake-rfkill: %s\n",
               listen_path == NULL ? "--listen PATH is required"
                                   : "unexpected arguments (commands go "
                                     "to stdin or --ctl)");
      return 2;
    }

  fake = fake_rfkill_new (sysfs);
  app.fake = fake;
  fake_rfkill_set_v1 (app.fake, v1);
  fake_rfkill_set_stock (app.fake, stock);

  if (radios != NULL && *radios != '\0')
    {
      g_auto (GStrv) list = g_strsplit (radios, ",", -1);

      for (guint i = 0; list[i] != NULL; i++)
        {
          g_auto (GStrv) type_name = g_strsplit (list[i], "=", 2);
          RfkType type;

          if (!rfk_type_from_string (type_name[0], &type))
            {
              fprintf (stderr, "fake-rfkill: unknown radio type “%s”\n",
                       type_name[0]);
              return 2;
            }
          fake_rfkill_add (app.fake, type, type_name[1]);
        }
    }

  if (!fake_rfkill_listen (app.fake, listen_path, &error))
    {
      fprintf (stderr, "fake-rfkill: %s\n", error->message);
      return 1;
    }

  loop = g_main_loop_new (NULL, FALSE);
  app.loop = loop;
  if (control != NULL)
    {
      g_autoptr (GSocketAddress) address = NULL;

      unlink (control);
      address = g_unix_socket_address_new (control);
      service = g_socket_service_new ();
      if (!g_socket_listener_add_address (G_SOCKET_LISTENER (service),
                                          address, G_SOCKET_TYPE_STREAM,
                                          G_SOCKET_PROTOCOL_DEFAULT, NULL,
                                          NULL, &error))
        {
          fprintf (stderr, "fake-rfkill: cannot listen on %s: %s\n", control,
                   error->message);
          return 1;
        }
      g_signal_connect (service, "incoming",
                        G_CALLBACK (control_incoming_cb), &app);
      g_socket_service_start (service);
    }
  if (!no_stdin)
    {
      g_autoptr (GInputStream) in = g_unix_input_stream_new (0, FALSE);
      g_autoptr (GOutputStream) out = g_unix_output_stream_new (1, FALSE);

      start_reader (&app, in, out, NULL);
    }
  g_unix_signal_add (SIGTERM, quit_cb, &app);
  g_unix_signal_add (SIGINT, quit_cb, &app);

  printf ("ready\n");
  fflush (stdout);
  g_main_loop_run (app.loop);

  if (control != NULL)
    unlink (control);
  return 0;
}
