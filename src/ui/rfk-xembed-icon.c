/* rfk-xembed-icon.c: GtkStatusIcon for XEmbed trays (rfk-xembed-icon.h). */
#include "config.h"

#include "rfk-xembed-icon.h"

#include "rfk-menu.h"

/* GtkStatusIcon is deprecated in GTK 3, and still the one XEmbed client
 * GTK has; X11 only, and harmless where no tray takes it. */
G_GNUC_BEGIN_IGNORE_DEPRECATIONS

struct _RfkXembedIcon
{
  GObject parent_instance;

  GtkStatusIcon *icon;   /* owned */
  GtkMenu *menu;         /* owned */
  GtkWidget *secondary;  /* owned, may be NULL */
};

G_DEFINE_FINAL_TYPE (RfkXembedIcon, rfk_xembed_icon, G_TYPE_OBJECT)

static void
pop_up (RfkXembedIcon *self, guint button, guint32 time)
{
  gtk_menu_popup (self->menu, NULL, NULL, gtk_status_icon_position_menu,
                  self->icon, button, time);
}

/* Left click (activate) and right click (popup-menu) alike. */
static void
on_activate (GtkStatusIcon *icon, RfkXembedIcon *self)
{
  pop_up (self, 1, gtk_get_current_event_time ());
}

static void
on_popup_menu (GtkStatusIcon *icon, guint button, guint32 time,
               RfkXembedIcon *self)
{
  pop_up (self, button, time);
}

static gboolean
on_button_release (GtkStatusIcon *icon, GdkEventButton *event,
                   RfkXembedIcon *self)
{
  if (event->button != GDK_BUTTON_MIDDLE)
    return FALSE;
  rfk_menu_middle_click (self->secondary);
  return TRUE;
}

void
rfk_xembed_icon_set_icon (RfkXembedIcon *self, const char *name,
                          const char *description)
{
  g_return_if_fail (RFK_IS_XEMBED_ICON (self));

  gtk_status_icon_set_from_icon_name (self->icon, name);
  gtk_status_icon_set_tooltip_text (self->icon, description);
}

static void
rfk_xembed_icon_dispose (GObject *object)
{
  RfkXembedIcon *self = RFK_XEMBED_ICON (object);

  if (self->icon != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->icon, self);
      gtk_status_icon_set_visible (self->icon, FALSE);
    }
  g_clear_object (&self->icon);
  g_clear_object (&self->secondary);
  g_clear_object (&self->menu);
  G_OBJECT_CLASS (rfk_xembed_icon_parent_class)->dispose (object);
}

static void
rfk_xembed_icon_class_init (RfkXembedIconClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_xembed_icon_dispose;
}

static void
rfk_xembed_icon_init (RfkXembedIcon *self)
{
}

RfkXembedIcon *
rfk_xembed_icon_new (const char *title, GtkMenu *menu, GtkWidget *secondary)
{
  RfkXembedIcon *self = g_object_new (RFK_TYPE_XEMBED_ICON, NULL);

  self->menu = g_object_ref (menu);
  self->secondary = secondary != NULL ? g_object_ref (secondary) : NULL;
  self->icon = gtk_status_icon_new ();
  gtk_status_icon_set_title (self->icon, title);
  g_signal_connect (self->icon, "activate", G_CALLBACK (on_activate), self);
  g_signal_connect (self->icon, "popup-menu", G_CALLBACK (on_popup_menu),
                    self);
  g_signal_connect (self->icon, "button-release-event",
                    G_CALLBACK (on_button_release), self);
  return self;
}

G_GNUC_END_IGNORE_DEPRECATIONS
