/*
 * rfk-menu-requests.c: what a click in the menu asks for (a radio, or
 * airplane mode), carried out in its turn, and its failure told with the
 * radio's name.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-in-order.h"
#include "rfk-menu-private.h"
#include "rfk-radio-label.h"

/*
 * What a click asked for, kept until its answer comes, so that a failure
 * is told as "Cannot turn Wi-Fi — Intel AX200 off: <why>".  A request's
 * callback gets only the menu, so _rfk_menu_note_request(), connected
 * before each item's "toggled" handler, notes the request the click is
 * about to make; the answer is then matched to its note
 * (take_radio_action()).
 */
typedef struct
{
  guint32 idx;
  gboolean blocked;   /* what the click asked for */
  char *label;        /* the radio's name as the menu shows it */
} RadioAction;

static void
radio_action_free (RadioAction *action)
{
  g_free (action->label);
  g_free (action);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RadioAction, radio_action_free)

/* What the menu's requests still in flight leave the radio in: the last
 * note for it, else the kernel's state.  A toggle asks for the opposite
 * (rfk_manager_toggle_blocked_async()).  A request from another door in
 * flight is not seen here, and then the summary names the wrong way. */
static gboolean
radio_left_blocked (RfkMenu *self, const RfkDevice *device)
{
  for (GList *l = self->radio_actions.tail; l != NULL; l = l->prev)
    {
      RadioAction *action = l->data;

      if (action->idx == device->idx)
        return action->blocked;
    }
  return device->soft;
}

/* The radio's name as the menu shows it, without its state. */
static char *
radio_name (RfkMenu *self, const RfkDevice *device)
{
  const RfkRadioFacts *facts = rfk_udev_names_lookup (self->names, device);

  return facts != NULL ? rfk_radio_facts_label (facts)
                       : rfk_radio_label (device);
}

/* A click on a radio that a switch (or its other owner) holds off. */
static void
report_hard_block (RfkMenu *self, const RfkDevice *device)
{
  g_autofree char *name = radio_name (self, device);
  g_autofree char *reasons = rfk_hard_reasons_to_label (device->hard_reasons);
  /* TRANSLATORS: %s is a radio, "Wi-Fi — Intel AX200 (wlp2s0)" */
  g_autofree char *what = g_strdup_printf (_("Cannot turn %s on"), name);
  g_autoptr(GError) error = NULL;

  if (reasons != NULL && *reasons != '\0')
    /* TRANSLATORS: why a radio stays off, e.g. "Blocked: hardware switch" */
    error = g_error_new (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                         _("Blocked: %s"), reasons);
  else
    error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                                 _("A hardware switch blocks it"));
  _rfk_menu_report_failure (self, what, error);
}

static gboolean in_its_turn (void);

/* Airplane mode as a toggle made now asks for it. */
static gboolean
note_airplane_cb (gpointer user_data)
{
  RfkMenu *self = user_data;
  gboolean enabled = !rfk_manager_get_airplane_mode_wanted (self->manager);

  g_queue_push_tail (&self->airplane_actions, GINT_TO_POINTER (enabled));
  return G_SOURCE_REMOVE;
}

void
_rfk_menu_note_request (GtkCheckMenuItem *item, RfkMenu *self)
{
  RfkDevice *device;
  RadioAction *action;

  /* The same reading of the model as the "toggled" handlers below, at
   * the same time: _rfk_menu_on_airplane_toggled() waits for its turn, and this
   * note, queued first, runs right before it. */
  if (GTK_WIDGET (item) == self->airplane_item)
    {
      if (in_its_turn ())
        note_airplane_cb (self);
      else
        rfk_in_order (note_airplane_cb, g_object_ref (self),
                      g_object_unref);
      return;
    }
  device = rfk_manager_lookup (self->manager,
                               GPOINTER_TO_UINT (g_object_get_data (
                                 G_OBJECT (item), "rfk-idx")));
  if (device == NULL)
    return;  /* no request is made */
  if (device->hard)
    {
      /* Software cannot undo a hard block: the item is insensitive, but
       * a click that reaches it anyway makes no request and is told
       * why. */
      g_signal_stop_emission_by_name (item, "toggled");
      report_hard_block (self, device);
      rfk_sync_throttle_queue (self->throttle);  /* the check mark back */
      return;
    }
  action = g_new0 (RadioAction, 1);
  action->idx = device->idx;
  action->blocked = !radio_left_blocked (self, device);
  action->label = radio_name (self, device);
  g_queue_push_tail (&self->radio_actions, action);
}

/* Whether the answer (error NULL: success) can be the one to this note. */
static gboolean
radio_action_fits (RfkMenu *self, GList *link, const GError *error)
{
  RadioAction *action = link->data;
  RfkDevice *device = rfk_manager_lookup (self->manager, action->idx);

  if (error == NULL)
    return device != NULL && device->soft == action->blocked;
  /* Superseded: the same radio was clicked again since. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      for (GList *l = link->next; l != NULL; l = l->next)
        if (((RadioAction *) l->data)->idx == action->idx)
          return TRUE;
      return FALSE;
    }
  return device == NULL || device->soft != action->blocked
         || device->refused;
}

/*
 * Answers come in the order requests end, not in the order of the
 * clicks: a radio that refuses answers after 5 s, one clicked after it
 * at once.  So an answer goes to the oldest note it fits, and to the
 * oldest note when none does.
 */
static RadioAction *
take_radio_action (RfkMenu *self, const GError *error)
{
  for (GList *l = self->radio_actions.head; l != NULL; l = l->next)
    if (radio_action_fits (self, l, error))
      {
        RadioAction *action = l->data;

        g_queue_delete_link (&self->radio_actions, l);
        return action;
      }
  return g_queue_pop_head (&self->radio_actions);
}

static void
on_radio_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(RfkMenu) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(RadioAction) action = NULL;
  gboolean done;

  done = rfk_manager_set_blocked_finish (RFK_MANAGER (source), result,
                                         &error);
  action = take_radio_action (self, error);
  if (!done)
    {
      /* Superseded by a newer click: nothing went wrong. */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *what = NULL;

          if (action == NULL)
            what = g_strdup (_("Cannot switch the radio"));
          else if (action->blocked)
            /* TRANSLATORS: %s is a radio, "Wi-Fi — Intel AX200 (wlp2s0)" */
            what = g_strdup_printf (_("Cannot turn %s off"), action->label);
          else
            /* TRANSLATORS: %s is a radio, "Wi-Fi — Intel AX200 (wlp2s0)" */
            what = g_strdup_printf (_("Cannot turn %s on"), action->label);
          _rfk_menu_report_failure (self, what, error);
        }
      /* Show the kernel's state again, not what was clicked. */
      rfk_sync_throttle_queue (self->throttle);
    }
}

/*
 * A click flips where the earlier requests leave the radio, not what the
 * check mark shows nor what the kernel confirmed: the mark may lag the
 * model by one throttled sync, a middle-click has no mark to look at, and
 * a quick second click must undo the first.  The sync then shows the
 * outcome.
 */
void
_rfk_menu_on_radio_toggled (GtkCheckMenuItem *item, RfkMenu *self)
{
  guint32 idx = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (item), "rfk-idx"));

  if (rfk_manager_lookup (self->manager, idx) != NULL)
    {
      rfk_manager_name_next_request (self->manager, RFK_CAUSE_MENU, NULL);
      rfk_manager_toggle_blocked_async (self->manager, idx, NULL,
                                        on_radio_written,
                                        g_object_ref (self));
    }
  rfk_sync_throttle_queue (self->throttle);
}

static void
on_airplane_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(RfkMenu) self = user_data;
  g_autoptr(GError) error = NULL;
  /* Toggles end in the order they were made: each one asks for the
   * opposite of the one before, which supersedes (ends) it.  The finish
   * call tells what was asked only on success, so the note says it. */
  gboolean enabled =
    GPOINTER_TO_INT (g_queue_pop_head (&self->airplane_actions));

  if (!rfk_manager_toggle_airplane_mode_finish (RFK_MANAGER (source),
                                                result, NULL, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _rfk_menu_report_failure (self,
                                  enabled ? _("Cannot turn airplane mode on")
                                          : _("Cannot turn airplane mode off"),
                                  error);
      rfk_sync_throttle_queue (self->throttle);
    }
}

/* The menu item and the middle click (its secondary-activate target)
 * toggle from where the earlier requests leave airplane mode. */
static void
toggle_airplane (RfkMenu *self, RfkCause cause)
{
  rfk_manager_name_next_request (self->manager, cause, NULL);
  rfk_manager_toggle_airplane_mode_async (self->manager, NULL,
                                          on_airplane_written,
                                          g_object_ref (self));
  rfk_sync_throttle_queue (self->throttle);
}

static gboolean
airplane_in_turn_cb (gpointer user_data)
{
  toggle_airplane (user_data, RFK_CAUSE_MENU);
  return G_SOURCE_REMOVE;
}

static gboolean
middle_click_in_turn_cb (gpointer user_data)
{
  toggle_airplane (user_data, RFK_CAUSE_MIDDLE_CLICK);
  return G_SOURCE_REMOVE;
}

/*
 * A click in the menu arrives from libdbusmenu's zero-length timeout, as
 * do our other doors (rfk-in-order.h).  The middle click does not: the
 * item's SecondaryActivate (rfk-status-item.c) activates it from its
 * D-Bus handler (an idle source), ahead of requests that came before it.
 * So an activation from anything but such a timeout waits for its turn.
 */
static gboolean
in_its_turn (void)
{
  GSource *source = g_main_current_source ();

  return source != NULL && source->source_funcs == &g_timeout_funcs;
}

void
rfk_menu_middle_click (GtkWidget *item)
{
  if (item == NULL || !gtk_widget_get_visible (item)
      || !gtk_widget_is_sensitive (item))
    return;
  g_object_set_data (G_OBJECT (item), RFK_MENU_MIDDLE_CLICK,
                     GINT_TO_POINTER (TRUE));
  gtk_widget_activate (item);
  /* In case no handler took it. */
  g_object_set_data (G_OBJECT (item), RFK_MENU_MIDDLE_CLICK, NULL);
}

void
_rfk_menu_on_airplane_toggled (GtkCheckMenuItem *item, RfkMenu *self)
{
  /* Set by the tray item that activates us for a middle click. */
  gboolean middle = g_object_steal_data (G_OBJECT (item),
                                         RFK_MENU_MIDDLE_CLICK) != NULL;

  if (!in_its_turn ())
    {
      rfk_in_order (middle ? middle_click_in_turn_cb : airplane_in_turn_cb,
                    g_object_ref (self), g_object_unref);
      return;
    }
  toggle_airplane (self, middle ? RFK_CAUSE_MIDDLE_CLICK : RFK_CAUSE_MENU);
}

void
_rfk_menu_forget_requests (RfkMenu *self)
{
  g_queue_clear_full (&self->radio_actions,
                      (GDestroyNotify) radio_action_free);
  g_queue_clear (&self->airplane_actions);
}

/* Sets a check item without running its "toggled" handler: the model is
 * the source of truth, and a sync must never write back to the kernel
 * (nor note a request that was never made). */
void
_rfk_menu_set_active_quietly (GtkWidget *item, gboolean active,
                              gpointer handler)
{
  GtkCheckMenuItem *check = GTK_CHECK_MENU_ITEM (item);

  if (gtk_check_menu_item_get_active (check) == !!active)
    return;
  g_signal_handlers_block_matched (item, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                   handler, NULL);
  g_signal_handlers_block_matched (item, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                   _rfk_menu_note_request, NULL);
  gtk_check_menu_item_set_active (check, active);
  g_signal_handlers_unblock_matched (item, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                     _rfk_menu_note_request, NULL);
  g_signal_handlers_unblock_matched (item, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                     handler, NULL);
}

/*
 * A user's action failed: said once, in the log and to the user (the
 * applet hands "action-failed" to the notifier).  A message, not a
 * warning: the program is fine, the radio or the system said no.
 */
void
_rfk_menu_report_failure (RfkMenu *self, const char *action,
                          const GError *error)
{
  g_message ("%s: %s", action, error->message);
  g_signal_emit_by_name (self, "action-failed", action, error->message);
}
