/*
 * test-refusals.c: the list of radios that refused a change, on disk,
 * when the file is not what we wrote: corrupt (an editor, a full disk
 * mid-write) or unreadable.  It is said why, nothing counts as refused,
 * and nothing the user may want to look at is written over.
 */
#include "config.h"

#include <glib/gstdio.h>

#include "rfk-refusals.h"

#define KEY "wlan:acme-slider"
#define GARBAGE "[refused\nwlan%3Aacme-slider=blocked\n"

typedef struct {
  char *state_home;
  char *path;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;

  f->state_home = g_dir_make_tmp ("rfk-refusals-XXXXXX", &error);
  g_assert_no_error (error);
  g_setenv ("XDG_STATE_HOME", f->state_home, TRUE);
  f->path = rfk_refusals_dup_path ();
  dir = g_path_get_dirname (f->path);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
}

static void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR)
      && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  remove_tree (f->state_home);
  g_free (f->state_home);
  g_free (f->path);
}

/* The PATH.corrupt-* files next to the list, as their contents. */
static GPtrArray *
corrupt_copies (Fixture *f)
{
  g_autofree char *dir = g_path_get_dirname (f->path);
  g_autofree char *base = g_path_get_basename (f->path);
  g_autofree char *prefix = g_strconcat (base, ".corrupt-", NULL);
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  GPtrArray *copies = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (listing);
  while ((name = g_dir_read_name (listing)) != NULL)
    if (g_str_has_prefix (name, prefix))
      {
        g_autofree char *copy = g_build_filename (dir, name, NULL);
        char *contents = NULL;

        g_assert_true (g_file_get_contents (copy, &contents, NULL, NULL));
        g_ptr_array_add (copies, contents);
      }
  return copies;
}

static void
write_garbage (Fixture *f)
{
  g_autoptr (GError) error = NULL;

  g_file_set_contents (f->path, GARBAGE, -1, &error);
  g_assert_no_error (error);
}

static void
test_corrupt_is_kept_aside_on_record (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) copies = NULL;

  write_garbage (f);
  g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, "*is corrupt*");
  g_test_expect_message (NULL, G_LOG_LEVEL_WARNING,
                         "*refused a change*was corrupt*kept as*.corrupt-*");
  rfk_refusals_set (KEY, TRUE, TRUE);
  g_test_assert_expected_messages ();

  copies = corrupt_copies (f);
  g_assert_cmpuint (copies->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (copies, 0), ==, GARBAGE);
  /* The new list holds what was just recorded. */
  g_assert_true (rfk_refusals_lookup (KEY, TRUE));
  g_assert_false (rfk_refusals_lookup (KEY, FALSE));
}

/* A look (every radio added, `--list` too) writes nothing: the corrupt
 * file stays where it is until a change is recorded. */
static void
test_corrupt_counts_as_nothing_refused (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) copies = NULL;
  g_autofree char *contents = NULL;

  write_garbage (f);
  g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, "*is corrupt*");
  g_assert_false (rfk_refusals_lookup (KEY, TRUE));
  g_test_assert_expected_messages ();

  copies = corrupt_copies (f);
  g_assert_cmpuint (copies->len, ==, 0);
  g_assert_true (g_file_get_contents (f->path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, GARBAGE);
  /* Said once: the next look has nothing new to complain of. */
  g_assert_false (rfk_refusals_lookup (KEY, TRUE));
  /* Forgetting a radio from it is nothing to write either. */
  rfk_refusals_set (KEY, FALSE, FALSE);
  g_clear_pointer (&copies, g_ptr_array_unref);
  copies = corrupt_copies (f);
  g_assert_cmpuint (copies->len, ==, 0);
}

/* A directory where the file should be: it cannot be read, so it is not
 * written over either; the radio waits for its timeout once more. */
static void
test_unreadable_is_left_alone (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) copies = NULL;

  g_assert_cmpint (g_mkdir (f->path, 0700), ==, 0);
  g_test_expect_message (NULL, G_LOG_LEVEL_WARNING,
                         "*radios that refused a change*cannot be read*");
  rfk_refusals_set (KEY, TRUE, TRUE);
  g_test_assert_expected_messages ();
  g_assert_true (g_file_test (f->path, G_FILE_TEST_IS_DIR));

  /* Said once, not at each radio. */
  g_assert_false (rfk_refusals_lookup (KEY, TRUE));
  copies = corrupt_copies (f);
  g_assert_cmpuint (copies->len, ==, 0);
}

static void
test_round_trip (Fixture *f, gconstpointer data)
{
  g_assert_false (rfk_refusals_lookup (KEY, TRUE));
  rfk_refusals_set (KEY, TRUE, FALSE);
  g_assert_true (rfk_refusals_lookup (KEY, FALSE));
  g_assert_false (rfk_refusals_lookup (KEY, TRUE));
  rfk_refusals_set (KEY, FALSE, FALSE);
  g_assert_false (rfk_refusals_lookup (KEY, FALSE));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/refusals/round-trip", Fixture, NULL,
              fixture_set_up, test_round_trip, fixture_tear_down);
  g_test_add ("/refusals/corrupt-kept-aside-on-record", Fixture, NULL,
              fixture_set_up, test_corrupt_is_kept_aside_on_record,
              fixture_tear_down);
  g_test_add ("/refusals/corrupt-counts-as-nothing-refused", Fixture, NULL,
              fixture_set_up, test_corrupt_counts_as_nothing_refused,
              fixture_tear_down);
  g_test_add ("/refusals/unreadable-left-alone", Fixture, NULL,
              fixture_set_up, test_unreadable_is_left_alone,
              fixture_tear_down);
  return g_test_run ();
}
