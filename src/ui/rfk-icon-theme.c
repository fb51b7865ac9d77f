/* rfk-icon-theme.c: does the desktop's icon theme have an icon? */
#include "config.h"

#include "rfk-heap.h"
#include "rfk-icon-theme.h"

/*
 * GtkIconTheme answers that too, but loading one read 1.4 MiB of GTK's
 * built-in resources and 0.5 MiB of heap (smaps, 10 s after start): two
 * thirds of all the applet used beyond an empty tray program, for four
 * yes-or-no questions.  The Icon Theme Specification's lookup is a few
 * stat() calls per directory of the theme, so it is done here.
 *
 * Where the theme's name comes from, as in GTK 3 (first match wins): the
 * desktop's setting through GDK (XSETTINGS on X11; the desktop's settings
 * on Wayland), then settings.ini in the user's config directory, the
 * system config directories and the system's own, then GTK's default,
 * Adwaita.  Like GTK's, the lookup goes on in Adwaita, gnome and hicolor
 * after the theme and what it inherits: the panel, a GTK program, finds
 * the icon there too.
 */
#define SETTING "gtk-icon-theme-name"
#define GTK_DEFAULT_ICON_THEME "Adwaita"
#define MAX_THEMES 16  /* a bound on Inherits= chains, which may loop */

static const char *const fallback_themes[] = { "Adwaita", "gnome", "hicolor" };
static const char *const extensions[] = { ".png", ".svg", ".xpm", ".symbolic.png" };

struct _RfkIconTheme
{
  GObject parent_instance;

  char *name;
  GStrv base_dirs;
  GPtrArray *dirs;  /* every existing icon directory, in lookup order */
};

G_DEFINE_FINAL_TYPE (RfkIconTheme, rfk_icon_theme, G_TYPE_OBJECT)

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* The one instance whose setting GDK events are watched for. */
static RfkIconTheme *watching;

static char *
name_from_settings_ini (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "gtk-3.0", "settings.ini", NULL);
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autofree char *name = NULL;

  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, NULL))
    return NULL;
  name = g_key_file_get_string (file, "Settings", SETTING, NULL);
  if (name != NULL)
    g_strstrip (name);
  return name != NULL && *name != '\0' ? g_steal_pointer (&name) : NULL;
}

static char *
read_theme_name (void)
{
  const char *const *config_dirs = g_get_system_config_dirs ();
  g_auto(GValue) value = G_VALUE_INIT;
  GdkScreen *screen = gdk_screen_get_default ();
  char *name;
  gsize n = 0;

  g_value_init (&value, G_TYPE_STRING);
  if (screen != NULL && gdk_screen_get_setting (screen, SETTING, &value)
      && g_value_get_string (&value) != NULL
      && *g_value_get_string (&value) != '\0')
    return g_value_dup_string (&value);

  /* GTK reads the system files first and lets later ones win. */
  if ((name = name_from_settings_ini (g_get_user_config_dir ())) != NULL)
    return name;
  while (config_dirs[n] != NULL)
    n++;
  while (n-- > 0)
    if ((name = name_from_settings_ini (config_dirs[n])) != NULL)
      return name;
  if ((name = name_from_settings_ini ("/etc")) != NULL)
    return name;
  if ((name = name_from_settings_ini ("/usr/share")) != NULL)
    return name;
  return g_strdup (GTK_DEFAULT_ICON_THEME);
}

/* The spec's base directories: ~/.icons, $XDG_DATA_DIRS/icons (the user's
 * first), /usr/share/pixmaps. */
static GStrv
spec_base_dirs (void)
{
  const char *const *data_dirs = g_get_system_data_dirs ();
  g_autoptr(GStrvBuilder) dirs = g_strv_builder_new ();
  g_autofree char *home_icons = g_build_filename (g_get_home_dir (), ".icons", NULL);
  g_autofree char *user_icons = g_build_filename (g_get_user_data_dir (), "icons", NULL);

  g_strv_builder_add (dirs, home_icons);
  g_strv_builder_add (dirs, user_icons);
  for (gsize i = 0; data_dirs[i] != NULL; i++)
    {
      g_autofree char *icons = g_build_filename (data_dirs[i], "icons", NULL);

      g_strv_builder_add (dirs, icons);
    }
  g_strv_builder_add (dirs, "/usr/share/pixmaps");
  return g_strv_builder_end (dirs);
}

/* The theme's index.theme: the first base directory that has it. */
static GKeyFile *
load_index (RfkIconTheme *self, const char *theme)
{
  for (gsize i = 0; self->base_dirs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (self->base_dirs[i], theme,
                                                "index.theme", NULL);
      g_autoptr(GKeyFile) index = g_key_file_new ();

      /* The spec's lists (Directories=, Inherits=) are comma-separated. */
      g_key_file_set_list_separator (index, ',');
      if (g_key_file_load_from_file (index, path, G_KEY_FILE_NONE, NULL))
        return g_steal_pointer (&index);
    }
  return NULL;
}

/* Adds the theme's existing directories, then (depth first) those of the
 * themes it inherits; themes already in `seen` are skipped. */
static void
add_theme (RfkIconTheme *self, const char *theme, GPtrArray *seen)
{
  g_autoptr(GKeyFile) index = NULL;
  g_auto(GStrv) subdirs = NULL, parents = NULL;

  if (seen->len >= MAX_THEMES
      || g_ptr_array_find_with_equal_func (seen, theme, g_str_equal, NULL))
    return;
  g_ptr_array_add (seen, g_strdup (theme));
  index = load_index (self, theme);
  if (index == NULL)
    return;

  subdirs = g_key_file_get_string_list (index, "Icon Theme", "Directories",
                                        NULL, NULL);
  for (gsize i = 0; subdirs != NULL && subdirs[i] != NULL; i++)
    for (gsize b = 0; self->base_dirs[b] != NULL; b++)
      {
        char *dir = g_build_filename (self->base_dirs[b], theme, subdirs[i], NULL);

        if (g_file_test (dir, G_FILE_TEST_IS_DIR))
          g_ptr_array_add (self->dirs, dir);
        else
          g_free (dir);
      }

  parents = g_key_file_get_string_list (index, "Icon Theme", "Inherits",
                                        NULL, NULL);
  for (gsize i = 0; parents != NULL && parents[i] != NULL; i++)
    add_theme (self, g_strstrip (parents[i]), seen);
}

static void
load_dirs (RfkIconTheme *self)
{
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_set_size (self->dirs, 0);
  add_theme (self, self->name, seen);
  for (gsize i = 0; i < G_N_ELEMENTS (fallback_themes); i++)
    add_theme (self, fallback_themes[i], seen);
  /* Adwaita's index is a few hundred groups, parsed and dropped. */
  rfk_heap_trim_soon ();
}

/* An icon file of that name in dir, in any of the spec's formats. */
static gboolean
dir_has_icon (const char *dir, const char *icon_name)
{
  for (gsize e = 0; e < G_N_ELEMENTS (extensions); e++)
    {
      g_autofree char *file = g_strconcat (icon_name, extensions[e], NULL);
      g_autofree char *path = g_build_filename (dir, file, NULL);

      if (g_file_test (path, G_FILE_TEST_EXISTS))
        return TRUE;
    }
  return FALSE;
}

gboolean
rfk_icon_theme_has_icon (RfkIconTheme *self, const char *icon_name)
{
  g_return_val_if_fail (RFK_IS_ICON_THEME (self), FALSE);
  g_return_val_if_fail (icon_name != NULL, FALSE);

  for (guint i = 0; i < self->dirs->len; i++)
    if (dir_has_icon (g_ptr_array_index (self->dirs, i), icon_name))
      return TRUE;
  /* The spec's last resort: an unthemed icon in a base directory. */
  for (gsize b = 0; self->base_dirs[b] != NULL; b++)
    if (dir_has_icon (self->base_dirs[b], icon_name))
      return TRUE;
  return FALSE;
}

static void
update_name (RfkIconTheme *self)
{
  g_autofree char *name = read_theme_name ();

  if (g_strcmp0 (name, self->name) == 0)
    return;
  g_free (self->name);
  self->name = g_steal_pointer (&name);
  load_dirs (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* GDK hands setting changes to GTK as events: look, then pass them on. */
static void
on_gdk_event (GdkEvent *event, gpointer user_data)
{
  if (event->type == GDK_SETTING && watching != NULL
      && g_strcmp0 (event->setting.name, SETTING) == 0)
    update_name (watching);
  gtk_main_do_event (event);
}

/* What gtk_init() installs, for when we stop watching. */
static void
pass_to_gtk (GdkEvent *event, gpointer user_data)
{
  gtk_main_do_event (event);
}

static void
rfk_icon_theme_finalize (GObject *object)
{
  RfkIconTheme *self = RFK_ICON_THEME (object);

  if (watching == self)
    {
      watching = NULL;
      gdk_event_handler_set (pass_to_gtk, NULL, NULL);
    }
  g_free (self->name);
  g_strfreev (self->base_dirs);
  g_ptr_array_unref (self->dirs);
  G_OBJECT_CLASS (rfk_icon_theme_parent_class)->finalize (object);
}

static void
rfk_icon_theme_class_init (RfkIconThemeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rfk_icon_theme_finalize;

  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 0);
}

static void
rfk_icon_theme_init (RfkIconTheme *self)
{
  self->dirs = g_ptr_array_new_with_free_func (g_free);
}

RfkIconTheme *
rfk_icon_theme_new_for_dirs (const char *name, const char *const *base_dirs)
{
  RfkIconTheme *self = g_object_new (RFK_TYPE_ICON_THEME, NULL);

  self->name = g_strdup (name);
  self->base_dirs = g_strdupv ((char **) base_dirs);
  load_dirs (self);
  return self;
}

RfkIconTheme *
rfk_icon_theme_new (void)
{
  RfkIconTheme *self = g_object_new (RFK_TYPE_ICON_THEME, NULL);

  self->name = read_theme_name ();
  self->base_dirs = spec_base_dirs ();
  load_dirs (self);
  if (watching == NULL)
    {
      watching = self;
      gdk_event_handler_set (on_gdk_event, NULL, NULL);
    }
  return self;
}

const char *
rfk_icon_theme_get_name (RfkIconTheme *self)
{
  g_return_val_if_fail (RFK_IS_ICON_THEME (self), NULL);
  return self->name;
}
