/*
 * rfk-menu-private.h: RfkMenu's fields and the functions its files share.
 * Only the rfk-menu*.c files include it; everyone else uses rfk-menu.h.
 *
 * Which file owns what:
 *   rfk-menu.c           the object: build(), the sync (its
 *                        RfkSyncThrottle: every file queues a sync on it),
 *                        "synced", autostart, Quit
 *   rfk-menu-requests.c  what a click on a radio or on "Airplane mode"
 *                        asks for, a state set without counting as a
 *                        click, and how a failure is told
 *                        ("action-failed"; radio_actions, airplane_actions)
 *   rfk-menu-radios.c    the radio and laptop-switch items, the status
 *                        item and the airplane item's state (radio_items)
 *   rfk-menu-exceptions.c "… stays on in airplane mode", a check item
 *                        per exception (exceptions_separator,
 *                        exception_items)
 *   rfk-menu-history.c   "Recent changes" (history_item,
 *                        history_items)
 *   rfk-menu-types.c     "Airplane mode turns off" (types_item,
 *                        type_items)
 *   rfk-menu-led.c       "Airplane-mode light" (led_items, led_separator,
 *                        led_status_item, led_asked)
 *   rfk-menu-items.c     GTK helpers with no knowledge of the menu
 */
#pragma once

/* Object data rfk_menu_middle_click() sets on the airplane item while
 * activating it. */
#define RFK_MENU_MIDDLE_CLICK "rfk-middle-click"

#include "rfk-menu.h"
#include "rfk-menu-items.h"
#include "rfk-sync-throttle.h"

G_BEGIN_DECLS

/* How many light rules the menu offers (rfk-menu-led.c's table). */
#define RFK_MENU_N_LED_RULES 5

struct _RfkMenu
{
  GObject parent_instance;

  GApplication *app;         /* owned */
  RfkManager *manager;       /* owned */
  RfkSettings *settings;     /* owned */
  RfkUdevNames *names;       /* owned */

  GtkMenu *menu;             /* owned (ref_sink); owns every item below */
  GtkWidget *airplane_item;
  GtkWidget *first_separator;
  GtkWidget *status_item;    /* "No radios" and the like; after the radios */
  GtkWidget *exceptions_separator; /* shown when there are exceptions;
                                    * their items follow it */
  GtkWidget *switch_separator; /* laptop switches: shown when there are any */
  GtkWidget *switch_header;  /* "Laptop switches"; their items follow it */
  GtkWidget *history_item;   /* "Recent changes" */
  GtkWidget *history_items[5]; /* its lines, newest first */
  GtkWidget *types_item;     /* "Airplane mode turns off" */
  GtkWidget *type_items[RFK_TYPE_COUNT]; /* check item per type, [ALL] NULL */
  GtkWidget *led_items[RFK_MENU_N_LED_RULES];
  GtkWidget *led_separator;  /* shown with led_status_item only */
  GtkWidget *led_status_item;
  GtkWidget *notifications_item;
  GtkWidget *keep_states_item;
  GtkWidget *autostart_item;

  GHashTable *radio_items;   /* GUINT(idx) -> GtkCheckMenuItem (borrowed) */
  GHashTable *exception_items; /* the same, for exceptions */
  guint led_asked;           /* 1 + the rule a click is waiting for, or 0 */
  GQueue radio_actions;      /* RadioAction: clicks whose answer is due */
  GQueue airplane_actions;   /* GINT(enabled): the same for airplane mode */
  RfkSyncThrottle *throttle; /* owned; runs sync_now() */
};

/* rfk-menu-requests.c: "toggled" handlers of the radio items and of
 * "Airplane mode"; note_request is connected before the other. */
void _rfk_menu_note_request (GtkCheckMenuItem *item, RfkMenu *self);
void _rfk_menu_on_radio_toggled (GtkCheckMenuItem *item, RfkMenu *self);
void _rfk_menu_on_airplane_toggled (GtkCheckMenuItem *item, RfkMenu *self);
/* Drops the notes of clicks whose answer is still due (dispose). */
void _rfk_menu_forget_requests (RfkMenu *self);
/* Sets a check item as the model says, without it counting as a click
 * (handler and note_request stay blocked meanwhile). */
void _rfk_menu_set_active_quietly (GtkWidget *item, gboolean active,
                                   gpointer handler);
/* A request failed: logged, and told through "action-failed". */
void _rfk_menu_report_failure (RfkMenu *self, const char *action,
                               const GError *error);

/* rfk-menu-radios.c */
void _rfk_menu_sync_radios (RfkMenu *self);

/* rfk-menu-exceptions.c */
void _rfk_menu_sync_exceptions (RfkMenu *self);

/* rfk-menu-history.c */
GtkWidget *_rfk_menu_build_history_submenu (RfkMenu *self);
void _rfk_menu_sync_history (RfkMenu *self);

/* rfk-menu-types.c */
GtkWidget *_rfk_menu_build_types_submenu (RfkMenu *self);
void _rfk_menu_sync_types (RfkMenu *self);

/* rfk-menu-led.c */
GtkWidget *_rfk_menu_build_led_submenu (RfkMenu *self);
void _rfk_menu_sync_leds (RfkMenu *self);
/* The kernel has answered a rule the user chose ("led-changed"). */
void _rfk_menu_on_led_changed (RfkMenu *self);

G_END_DECLS
