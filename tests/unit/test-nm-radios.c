/*
 * test-nm-radios.c: NetworkManager's switches follow airplane mode.
 *
 * A stand-in for NetworkManager on a private bus records what it is
 * told.  Its interface is the part of org.freedesktop.NetworkManager that
 * matters here: the read-write WirelessEnabled and WwanEnabled
 * properties, set through org.freedesktop.DBus.Properties.Set, as
 * nmcli radio wifi on/off and nm-applet do.
 *
 * It behaves as NetworkManager 1.42's nm-manager.c and nm-rfkill-manager.c
 * do (read there, not here):
 *  - its view of a type's killswitches: any hard block makes the type
 *    hard-blocked (sw and hw off), else any soft block soft-blocked;
 *  - the property reads its own switch AND hw AND sw, and changes are
 *    announced with PropertiesChanged;
 *  - Set stores its switch; if "switch AND hw" differs from the property
 *    before, it writes a CHANGE_ALL of the type to the kernel, so "on"
 *    unblocks every radio of the type;
 *  - the answer comes after polkit's, which can take seconds
 *    (answer_delay_ms), and the change is made then.
 */
#include <gio/gio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rfk-device.h"
#include "rfk-manager-testing.h"
#include "rfk-nm-radios.h"
#include "rfk-protocol.h"
#include "test-util.h"

#define BT RFK_TYPE_BLUETOOTH
#define WLAN RFK_TYPE_WLAN
#define NM_NAME "org.freedesktop.NetworkManager"

static const char nm_xml[] =
  "<node><interface name='org.freedesktop.NetworkManager'>"
  "<property name='WirelessEnabled' type='b' access='readwrite'/>"
  "<property name='WwanEnabled' type='b' access='readwrite'/>"
  "</interface></node>";

typedef struct {
  Fixture f;
  GTestDBus *dbus;
  GDBusConnection *bus;
  guint object_id;
  guint name_id;
  GPtrArray *sets;  /* "WirelessEnabled=false", in order, as made */
  /* NetworkManager's state, per switch (WLAN, WWAN) */
  gboolean user_enabled[2];
  gboolean said[2];         /* the property as last announced */
  guint answer_delay_ms;
  int kernel_fd;            /* its /dev/rfkill, -1 until it writes */
  guint watch_source;       /* its udev watch, modelled by polling */
  gboolean watch_lags;      /* its watch has not seen the kernel yet */
  /* What crossed the bus to and from NetworkManager's name, seen by a
   * filter on the connection (it runs in GDBus's worker thread). */
  guint filter_id;
  GMutex wire_lock;
  GPtrArray *wire;      /* "Set WirelessEnabled=false", "-> ERROR", ... */
  GArray *nm_serials;   /* serials of the calls to NM_NAME */
} NmFixture;

static const char *const nm_properties[] = { "WirelessEnabled",
                                             "WwanEnabled" };
static const guint8 nm_types[] = { RFK_TYPE_WLAN, RFK_TYPE_WWAN };

/* Its killswitch view of a type: (sw, hw) enabled. */
static void
nm_killswitch (NmFixture *nf, guint s, gboolean *sw, gboolean *hw)
{
  GPtrArray *radios = fake_rfkill_get_radios (nf->f.fake);

  *sw = *hw = TRUE;
  for (guint i = 0; i < radios->len; i++)
    {
      const FakeRadio *r = g_ptr_array_index (radios, i);

      if (r->type != nm_types[s])
        continue;
      if (r->hard)
        *sw = *hw = FALSE;
      else if (r->soft)
        *sw = FALSE;
    }
}

static gboolean
nm_enabled (NmFixture *nf, guint s, gboolean check_changeable)
{
  gboolean sw, hw;

  nm_killswitch (nf, s, &sw, &hw);
  return nf->user_enabled[s] && hw && (sw || !check_changeable);
}

static void
nm_write_change_all (NmFixture *nf, guint8 type, gboolean soft)
{
  guint8 event[RFK_EVENT_SIZE_V1] = { 0 };

  if (nf->kernel_fd < 0)
    nf->kernel_fd = fake_rfkill_connect_pair (nf->f.fake);
  event[4] = type;
  event[5] = RFK_OP_CHANGE_ALL;
  event[6] = soft;
  g_assert_cmpint (send (nf->kernel_fd, event, sizeof event, 0), ==,
                   sizeof event);
}

/* Its udev watch: announces what changed, and drops the kernel's events
 * and answers to its own fd. */
static gboolean
nm_watch (gpointer user_data)
{
  NmFixture *nf = user_data;
  guint8 drain[RFK_EVENT_SIZE_MAX];

  while (nf->kernel_fd >= 0
         && recv (nf->kernel_fd, drain, sizeof drain, MSG_DONTWAIT) > 0)
    ;
  if (nf->watch_lags)
    return G_SOURCE_CONTINUE;
  for (guint s = 0; s < G_N_ELEMENTS (nm_properties); s++)
    {
      gboolean now = nm_enabled (nf, s, TRUE);
      GVariantBuilder changed;

      if (now == nf->said[s])
        continue;
      nf->said[s] = now;
      g_variant_builder_init (&changed, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&changed, "{sv}", nm_properties[s],
                             g_variant_new_boolean (now));
      g_dbus_connection_emit_signal (
        nf->bus, NULL, "/org/freedesktop/NetworkManager",
        "org.freedesktop.DBus.Properties", "PropertiesChanged",
        g_variant_new ("(sa{sv}as)", NM_NAME, &changed, NULL), NULL);
    }
  return G_SOURCE_CONTINUE;
}

typedef struct {
  NmFixture *nf;
  GDBusMethodInvocation *invocation;
  guint s;
  gboolean enabled;
} NmSet;

/* Its own switch s set to enabled, by whoever asked.  Like
 * NetworkManager, it keeps its switches in its state file (WirelessEnabled,
 * WWANEnabled in [main]), rewritten at each toggle. */
static void
nm_switch (NmFixture *nf, guint s, gboolean enabled)
{
  static const char *const keys[] = { "WirelessEnabled", "WWANEnabled" };
  gboolean old = nm_enabled (nf, s, TRUE);
  g_autoptr (GKeyFile) state = g_key_file_new ();
  g_autofree char *path = g_build_filename (nf->f.dir, "nm.state", NULL);

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    g_key_file_set_boolean (state, "main", keys[k],
                            k == s ? enabled : nf->user_enabled[k]);
  g_assert_true (g_key_file_save_to_file (state, path, NULL));
  nf->user_enabled[s] = enabled;
  if (nm_enabled (nf, s, FALSE) != old)
    nm_write_change_all (nf, nm_types[s], !enabled);
}

static gboolean
nm_answer_set (gpointer user_data)
{
  NmSet *set = user_data;
  NmFixture *nf = set->nf;

  g_ptr_array_add (nf->sets, g_strdup_printf ("%s=%s",
                                              nm_properties[set->s],
                                              set->enabled ? "true"
                                                           : "false"));
  nm_switch (nf, set->s, set->enabled);
  g_dbus_method_invocation_return_value (set->invocation, NULL);
  g_free (set);
  return G_SOURCE_REMOVE;
}

/* Properties.Set comes here (no set_property in the vtable), so that it
 * can be answered late, as after polkit. */
static void
nm_method_call (GDBusConnection *connection, const char *sender,
                const char *path, const char *iface, const char *method,
                GVariant *parameters, GDBusMethodInvocation *invocation,
                gpointer user_data)
{
  NmFixture *nf = user_data;
  g_autoptr (GVariant) value = NULL;
  const char *property;
  NmSet *set;

  g_assert_cmpstr (iface, ==, "org.freedesktop.DBus.Properties");
  g_assert_cmpstr (method, ==, "Set");
  g_variant_get (parameters, "(&s&sv)", NULL, &property, &value);
  set = g_new0 (NmSet, 1);
  set->nf = nf;
  set->invocation = invocation;
  set->s = g_str_equal (property, "WwanEnabled");
  set->enabled = g_variant_get_boolean (value);
  g_timeout_add (nf->answer_delay_ms, nm_answer_set, set);
}

static GVariant *
nm_get_property (GDBusConnection *connection, const char *sender,
                 const char *path, const char *iface, const char *property,
                 GError **error, gpointer user_data)
{
  NmFixture *nf = user_data;

  return g_variant_new_boolean (nf->said[g_str_equal (property,
                                                      "WwanEnabled")]);
}

static const GDBusInterfaceVTable nm_vtable = {
  .method_call = nm_method_call,
  .get_property = nm_get_property,
};

static void
nm_setup (NmFixture *nf, gconstpointer data)
{
  g_autoptr (GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (nm_xml,
                                                                 NULL);

  fixture_setup (&nf->f, data);
  /* Its state file (rfk-nm-radios.c reads it), written at each toggle. */
  {
    g_autofree char *state = g_build_filename (nf->f.dir, "nm.state", NULL);

    g_setenv ("RFK_NM_STATE_FILE", state, TRUE);
  }
  nf->sets = g_ptr_array_new_with_free_func (g_free);
  g_mutex_init (&nf->wire_lock);
  nf->wire = g_ptr_array_new_with_free_func (g_free);
  nf->nm_serials = g_array_new (FALSE, FALSE, sizeof (guint32));
  nf->user_enabled[0] = nf->user_enabled[1] = TRUE;
  nf->said[0] = nf->said[1] = TRUE;
  nf->kernel_fd = -1;
  nf->dbus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (nf->dbus);
  nf->bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_assert_nonnull (nf->bus);
  if (data != NULL)  /* "no NetworkManager": nobody owns the name */
    return;
  nf->object_id = g_dbus_connection_register_object (
    nf->bus, "/org/freedesktop/NetworkManager", info->interfaces[0],
    &nm_vtable, nf, NULL, NULL);
  nf->name_id = g_bus_own_name_on_connection (
    nf->bus, NM_NAME, G_BUS_NAME_OWNER_FLAGS_NONE,
    NULL, NULL, NULL, NULL);
  nf->watch_source = g_timeout_add (10, nm_watch, nf);
  test_settle (50);
}

static void
nm_teardown (NmFixture *nf, gconstpointer data)
{
  g_clear_handle_id (&nf->watch_source, g_source_remove);
  if (nf->kernel_fd >= 0)
    close (nf->kernel_fd);
  fixture_teardown (&nf->f, data);
  if (nf->filter_id != 0)
    g_dbus_connection_remove_filter (nf->bus, nf->filter_id);
  if (nf->name_id != 0)
    g_bus_unown_name (nf->name_id);
  if (nf->object_id != 0)
    g_dbus_connection_unregister_object (nf->bus, nf->object_id);
  g_clear_object (&nf->bus);
  g_test_dbus_down (nf->dbus);
  g_clear_object (&nf->dbus);
  g_ptr_array_unref (nf->sets);
  g_ptr_array_unref (nf->wire);
  g_array_unref (nf->nm_serials);
  g_mutex_clear (&nf->wire_lock);
}

/* Joined for one assertion; the list is then cleared. */
static char *
take_joined (GPtrArray *lines)
{
  g_autofree char *joined = NULL;

  g_ptr_array_add (lines, NULL);
  joined = g_strjoinv (" ", (char **) lines->pdata);
  g_ptr_array_set_size (lines, 0);
  return g_steal_pointer (&joined);
}

static char *
take_sets (NmFixture *nf)
{
  return take_joined (nf->sets);
}

static gboolean
is_nm_serial (NmFixture *nf, guint32 serial)
{
  for (guint i = 0; i < nf->nm_serials->len; i++)
    if (g_array_index (nf->nm_serials, guint32, i) == serial)
      return TRUE;
  return FALSE;
}

/* Records each call to NetworkManager's name ("Set WirelessEnabled=false")
 * and the answer to it ("-> return" or "-> " and the D-Bus error name). */
static GDBusMessage *
watch_wire (GDBusConnection *connection, GDBusMessage *message,
            gboolean incoming, gpointer user_data)
{
  NmFixture *nf = user_data;
  GDBusMessageType type = g_dbus_message_get_message_type (message);

  g_mutex_lock (&nf->wire_lock);
  if (!incoming && type == G_DBUS_MESSAGE_TYPE_METHOD_CALL
      && g_strcmp0 (g_dbus_message_get_destination (message), NM_NAME) == 0)
    {
      GVariant *body = g_dbus_message_get_body (message);
      guint32 serial = g_dbus_message_get_serial (message);
      g_autofree char *line = NULL;

      if (g_strcmp0 (g_dbus_message_get_member (message), "Set") == 0
          && body != NULL && g_variant_is_of_type (body, G_VARIANT_TYPE ("(ssv)")))
        {
          g_autoptr (GVariant) value = NULL;
          g_autofree char *printed = NULL;
          const char *property;

          g_variant_get (body, "(&s&sv)", NULL, &property, &value);
          printed = g_variant_print (value, FALSE);
          line = g_strdup_printf ("Set %s=%s", property, printed);
        }
      else
        line = g_strdup (g_dbus_message_get_member (message));
      g_ptr_array_add (nf->wire, g_steal_pointer (&line));
      g_array_append_val (nf->nm_serials, serial);
    }
  else if (incoming
           && (type == G_DBUS_MESSAGE_TYPE_ERROR
               || type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN)
           && is_nm_serial (nf, g_dbus_message_get_reply_serial (message)))
    g_ptr_array_add (nf->wire,
                     g_strconcat ("-> ", type == G_DBUS_MESSAGE_TYPE_ERROR
                                          ? g_dbus_message_get_error_name (message)
                                          : "return", NULL));
  g_mutex_unlock (&nf->wire_lock);
  return message;
}

static char *
take_wire (NmFixture *nf)
{
  /* Held until the return, for its scope alone. */
  g_autoptr (GMutexLocker) locker G_GNUC_UNUSED =
    g_mutex_locker_new (&nf->wire_lock);

  return take_joined (nf->wire);
}

static void
assert_nothing_said (NmFixture *nf)
{
  g_autofree char *sets = take_sets (nf);

  g_assert_cmpstr (sets, ==, "");
}

static void
airplane (Fixture *f, gboolean enabled)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (test_set_airplane (f->manager, enabled, &error));
  g_assert_no_error (error);
}

/* Wi-Fi on, a second card off, Bluetooth on. */
static RfkNmRadios *
start_laptop (NmFixture *nf)
{
  Fixture *f = &nf->f;

  fake_rfkill_add (f->fake, WLAN, "phy0");
  fake_rfkill_add (f->fake, WLAN, "phy1");
  fake_rfkill_add (f->fake, BT, "hci0");
  fake_rfkill_set_soft (f->fake, 1, TRUE);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  return rfk_nm_radios_new (f->manager, nf->bus);
}

static void
test_airplane_mode_switches_nm_wifi_off_and_on (NmFixture *nf,
                                                gconstpointer data)
{
  /* Kept for its scope: it follows the manager until the test ends. */
  g_autoptr (RfkNmRadios) nm G_GNUC_UNUSED = start_laptop (nf);
  g_autofree char *on = NULL;
  g_autofree char *off = NULL;

  fake_rfkill_set_soft (nf->f.fake, 1, FALSE);
  test_settle (1200);
  assert_nothing_said (nf);  /* its Wi-Fi is on already */
  airplane (&nf->f, TRUE);
  test_settle (100);
  on = take_sets (nf);
  /* No WWAN radio: NetworkManager's WWAN switch is not touched. */
  g_assert_cmpstr (on, ==, "WirelessEnabled=false");

  airplane (&nf->f, FALSE);
  test_settle (300);
  assert_nothing_said (nf);  /* radios still settling */
  test_settle (1000);
  off = take_sets (nf);
  g_assert_cmpstr (off, ==, "WirelessEnabled=true");
  g_assert_cmpstr (fixture_soft_states (&nf->f), ==,
                   "phy0=on phy1=on hci0=on");
}

/* A card off before airplane mode stays off after it.  NetworkManager
 * counts Wi-Fi as disabled by that killswitch anyway, and its "on" would
 * be a CHANGE_ALL that unblocks the card if its view of the radios lags:
 * it is told only when the user switches that card on too. */
static void
test_wifi_on_in_nm_only_when_every_card_is_on (NmFixture *nf,
                                               gconstpointer data)
{
  /* Kept for its scope: it follows the manager until the test ends. */
  g_autoptr (RfkNmRadios) nm G_GNUC_UNUSED = start_laptop (nf);
  g_autofree char *sets = NULL;
  g_autofree char *later = NULL;

  airplane (&nf->f, TRUE);
  airplane (&nf->f, FALSE);
  test_settle (1500);
  sets = take_sets (nf);
  g_assert_cmpstr (sets, ==, "WirelessEnabled=false");
  g_assert_cmpstr (fixture_soft_states (&nf->f), ==,
                   "phy0=on phy1=off hci0=on");

  fake_rfkill_set_soft (nf->f.fake, 1, FALSE);
  test_settle (1500);
  later = take_sets (nf);
  g_assert_cmpstr (later, ==, "WirelessEnabled=true");
}

/* Its Wi-Fi is on already when the user switches the last card on:
 * nothing to tell it.  An "on" it did not need is answered after polkit,
 * which took seconds in a system test; airplane mode began meanwhile, and
 * the "on" unblocked every Wi-Fi radio in airplane mode. */
static void
test_nm_already_on_is_not_told (NmFixture *nf, gconstpointer data)
{
  g_autoptr (RfkNmRadios) nm = NULL;
  g_autofree char *sets = NULL;

  nf->answer_delay_ms = 500;
  nm = start_laptop (nf);
  fake_rfkill_set_soft (nf->f.fake, 1, FALSE);
  test_settle (1100);  /* the radios have settled */
  airplane (&nf->f, TRUE);
  test_settle (1500);
  sets = take_sets (nf);
  g_assert_cmpstr (sets, ==, "WirelessEnabled=false");
  g_assert_cmpstr (fixture_soft_states (&nf->f), ==,
                   "phy0=off phy1=off hci0=off");
}

/* NetworkManager hears of rfkill changes through udev, after us: seen
 * in a system test under load, its "off" from before a card came on was
 * still there when the applet decided; the applet told it "on", polkit
 * answered after airplane mode had begun, and its CHANGE_ALL unblocked
 * every Wi-Fi radio in airplane mode.  An "off" it may only lag behind on
 * is given time to catch up, and airplane mode ends the wait. */
static void
test_nm_lagging_behind_is_not_told (NmFixture *nf, gconstpointer data)
{
  g_autoptr (RfkNmRadios) nm = NULL;
  g_autofree char *sets = NULL;

  nf->answer_delay_ms = 1000;
  nm = start_laptop (nf);
  test_settle (100);  /* it says Wi-Fi is off: phy1 is */
  nf->watch_lags = TRUE;
  fake_rfkill_set_soft (nf->f.fake, 1, FALSE);  /* another program */
  test_settle (1100);  /* the radios have settled; it has not seen it */
  airplane (&nf->f, TRUE);
  nf->watch_lags = FALSE;
  test_settle (2500);
  sets = take_sets (nf);
  g_assert_cmpstr (sets, ==, "WirelessEnabled=false");
  g_assert_cmpstr (fixture_soft_states (&nf->f), ==,
                   "phy0=off phy1=off hci0=off");
  g_assert_true (rfk_manager_get_airplane_mode (nf->f.manager));
}

/* Its user switch is off: once it has had time to see the radios on and
 * still says "off", it is told "on". */
static void
test_nm_still_off_is_told (NmFixture *nf, gconstpointer data)
{
  g_autoptr (RfkNmRadios) nm = start_laptop (nf);
  g_autofree char *early = NULL;
  g_autofree char *sets = NULL;

  test_settle (100);
  nf->user_enabled[0] = FALSE;  /* `nmcli radio wifi off` long ago */
  fake_rfkill_set_soft (nf->f.fake, 1, FALSE);
  test_settle (1500);
  early = take_sets (nf);
  g_assert_cmpstr (early, ==, "");  /* it may only lag */
  test_settle (3500);
  sets = take_sets (nf);
  g_assert_cmpstr (sets, ==, "WirelessEnabled=true");
}

/* `rfkill-applet --airplane off` exits right after: it decides at once
 * and waits for NetworkManager's answer. */
static void
test_flush_decides_at_once (NmFixture *nf, gconstpointer data)
{
  g_autoptr (RfkNmRadios) nm = start_laptop (nf);
  g_autofree char *sets = NULL;

  fake_rfkill_set_soft (nf->f.fake, 1, FALSE);
  test_settle (50);
  airplane (&nf->f, TRUE);
  airplane (&nf->f, FALSE);
  rfk_nm_radios_flush (nm, 2000);
  sets = take_sets (nf);
  g_assert_cmpstr (sets, ==, "WirelessEnabled=false WirelessEnabled=true");
}

/* Bluetooth alone is not NetworkManager's business. */
static void
test_types_not_counted_are_left_alone (NmFixture *nf, gconstpointer data)
{
  /* Kept for its scope: it follows the manager until the test ends. */
  g_autoptr (RfkNmRadios) nm G_GNUC_UNUSED = start_laptop (nf);

  rfk_manager_set_airplane_types (nf->f.manager, 1u << BT);
  airplane (&nf->f, TRUE);
  airplane (&nf->f, FALSE);
  test_settle (1500);
  assert_nothing_said (nf);
}

/* No NetworkManager on the bus: airplane mode works as before.  The
 * radios still tell NetworkManager's name "Wi-Fi off" (they cannot know
 * it is absent), the bus daemon answers that nobody owns that name
 * (dbus-daemon's NameHasNoOwner for a call that may not start a
 * service), and that answer is no failure: nothing is logged (a
 * warning would abort this test, g_test_init() makes warnings fatal). */
static void
test_without_networkmanager (NmFixture *nf, gconstpointer data)
{
  g_autoptr (RfkNmRadios) nm = NULL;
  g_autofree char *wire = NULL;

  nf->filter_id = g_dbus_connection_add_filter (nf->bus, watch_wire, nf,
                                                NULL);
  nm = start_laptop (nf);
  airplane (&nf->f, TRUE);
  airplane (&nf->f, FALSE);
  test_settle (1500);
  g_assert_cmpstr (fixture_soft_states (&nf->f), ==,
                   "phy0=on phy1=off hci0=on");
  rfk_nm_radios_flush (nm, 2000);  /* every answer handled */
  wire = take_wire (nf);
  /* phy1 stayed off: no "Wi-Fi on" after airplane mode. */
  g_assert_cmpstr (wire, ==,
                   "Set WirelessEnabled=false "
                   "-> org.freedesktop.DBus.Error.NameHasNoOwner");
}

/* `nmcli radio wifi off`: NetworkManager switches Wi-Fi off itself, and
 * the history names it (rfk-manager-history.c).  `rfkill block wlan`
 * flips its WirelessEnabled too, but is not its doing; and its answer to
 * our own "off" in airplane mode is ours, not its. */
static void
test_history_names_networkmanager (NmFixture *nf, gconstpointer data)
{
  g_autoptr (RfkNmRadios) nm G_GNUC_UNUSED = start_laptop (nf);
  g_autoptr (RfkHistory) history = rfk_history_new ();
  GPtrArray *entries = rfk_history_get_entries (history);
  RfkManagerTiming timing = {
    .sweep_ms = 500, .ended_settle_ms = 500, .flap_quiet_ms = 20,
    .confirm_ms = 5000, .resume_ms = 1000, .hotplug_ms = 0,
  };

  rfk_manager_set_timing (nf->f.manager, &timing);
  rfk_manager_set_history (nf->f.manager, history);
  fake_rfkill_set_soft (nf->f.fake, 1, FALSE);
  test_settle (1200);
  g_ptr_array_set_size (entries, 0);
  assert_nothing_said (nf);

  nm_switch (nf, 0, FALSE);
  test_settle (1200);
  g_assert_cmpuint (entries->len, ==, 2);
  for (guint i = 0; i < entries->len; i++)
    g_assert_cmpint (((RfkHistoryEntry *) entries->pdata[i])->cause, ==,
                     RFK_CAUSE_NETWORKMANAGER);

  /* Back on; then another program blocks every Wi-Fi radio. */
  nm_switch (nf, 0, TRUE);
  test_settle (1200);
  g_ptr_array_set_size (entries, 0);
  fake_rfkill_set_soft (nf->f.fake, 0, TRUE);
  fake_rfkill_set_soft (nf->f.fake, 1, TRUE);
  test_settle (1200);
  g_assert_cmpuint (entries->len, ==, 2);
  for (guint i = 0; i < entries->len; i++)
    g_assert_cmpint (((RfkHistoryEntry *) entries->pdata[i])->cause, ==,
                     RFK_CAUSE_OTHER);
  fake_rfkill_set_soft (nf->f.fake, 0, FALSE);
  fake_rfkill_set_soft (nf->f.fake, 1, FALSE);
  test_settle (1200);

  /* Airplane mode from a door: our "off" to it is ours. */
  g_ptr_array_set_size (entries, 0);
  rfk_manager_name_next_request (nf->f.manager, RFK_CAUSE_MENU, NULL);
  airplane (&nf->f, TRUE);
  test_settle (1200);
  g_assert_cmpuint (entries->len, ==, 3);
  for (guint i = 0; i < entries->len; i++)
    g_assert_cmpint (((RfkHistoryEntry *) entries->pdata[i])->cause, ==,
                     RFK_CAUSE_MENU);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, func, data) \
  g_test_add ("/nm-radios/" path, NmFixture, data, nm_setup, func, \
              nm_teardown)
  ADD ("airplane-mode-switches-nm-wifi-off-and-on",
       test_airplane_mode_switches_nm_wifi_off_and_on, NULL);
  ADD ("wifi-on-in-nm-only-when-every-card-is-on",
       test_wifi_on_in_nm_only_when_every_card_is_on, NULL);
  ADD ("nm-already-on-is-not-told", test_nm_already_on_is_not_told, NULL);
  ADD ("nm-lagging-behind-is-not-told", test_nm_lagging_behind_is_not_told,
       NULL);
  ADD ("nm-still-off-is-told", test_nm_still_off_is_told, NULL);
  ADD ("flush-decides-at-once", test_flush_decides_at_once, NULL);
  ADD ("types-not-counted-are-left-alone",
       test_types_not_counted_are_left_alone, NULL);
  ADD ("without-networkmanager", test_without_networkmanager, "no-nm");
  ADD ("history-names-networkmanager", test_history_names_networkmanager,
       NULL);
#undef ADD
  return g_test_run ();
}
