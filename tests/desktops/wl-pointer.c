/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wl-pointer: a mouse for a headless wlroots compositor (sway).
 *
 * A headless seat has no pointer at all, so nothing can click a panel.
 * This client creates one through wlr-virtual-pointer-unstable-v1 and
 * keeps it while it runs (a panel's popup menu would lose its pointer
 * grab if the device went away).  It reads commands from stdin, one a
 * line, and answers each with "ok" once the compositor has handled it:
 *
 *   move X Y W H         pointer to (X, Y) on an output of W x H pixels
 *   click X Y W H BUTTON move there, press and release; BUTTON is
 *                        left, right or middle
 */
#include <linux/input-event-codes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>

#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

struct pointer_globals {
  struct wl_seat *seat;
  struct zwlr_virtual_pointer_manager_v1 *manager;
};

static void
on_global (void *data, struct wl_registry *registry, uint32_t name,
           const char *interface, uint32_t version)
{
  struct pointer_globals *globals = data;

  (void) version;   /* version 1 of both is all this needs */

  if (strcmp (interface, wl_seat_interface.name) == 0 && globals->seat == NULL)
    globals->seat = wl_registry_bind (registry, name, &wl_seat_interface, 1);
  else if (strcmp (interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0)
    globals->manager = wl_registry_bind (registry, name,
                                         &zwlr_virtual_pointer_manager_v1_interface, 1);
}

static void
on_global_remove (void *data, struct wl_registry *registry, uint32_t name)
{
  /* The seat and the manager live as long as the compositor. */
  (void) data;
  (void) registry;
  (void) name;
}

static const struct wl_registry_listener registry_listener = {
  .global = on_global,
  .global_remove = on_global_remove,
};

/* Event times only need to grow; the compositor compares them. */
static uint32_t
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint32_t) (ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static int
button_code (const char *name)
{
  if (strcmp (name, "left") == 0)
    return BTN_LEFT;
  if (strcmp (name, "right") == 0)
    return BTN_RIGHT;
  if (strcmp (name, "middle") == 0)
    return BTN_MIDDLE;
  return -1;
}

int
main (void)
{
  struct pointer_globals globals = { 0 };
  struct wl_display *display = wl_display_connect (NULL);
  struct wl_registry *registry;
  struct zwlr_virtual_pointer_v1 *pointer;
  char line[256];

  if (display == NULL)
    {
      fprintf (stderr, "wl-pointer: cannot connect to the Wayland display\n");
      return 1;
    }
  registry = wl_display_get_registry (display);
  wl_registry_add_listener (registry, &registry_listener, &globals);
  wl_display_roundtrip (display);
  if (globals.manager == NULL)
    {
      fprintf (stderr, "wl-pointer: the compositor has no zwlr_virtual_pointer_manager_v1\n");
      return 1;
    }
  pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer (globals.manager,
                                                                    globals.seat);
  wl_display_roundtrip (display);
  printf ("ready\n");
  fflush (stdout);

  while (fgets (line, sizeof line, stdin) != NULL)
    {
      unsigned int x, y, w, h;
      char button[16] = "";
      int fields = sscanf (line, "click %u %u %u %u %15s", &x, &y, &w, &h, button);
      int code;

      if (fields != 5)
        fields = sscanf (line, "move %u %u %u %u", &x, &y, &w, &h) == 4 ? 4 : 0;
      if (fields == 0 || x >= w || y >= h)
        {
          printf ("error: want 'move X Y W H' or 'click X Y W H left|right|middle' "
                  "with X < W and Y < H, got: %s", line);
          fflush (stdout);
          continue;
        }
      code = fields == 5 ? button_code (button) : 0;
      if (code < 0)
        {
          printf ("error: unknown button '%s'\n", button);
          fflush (stdout);
          continue;
        }
      zwlr_virtual_pointer_v1_motion_absolute (pointer, now_ms (), x, y, w, h);
      zwlr_virtual_pointer_v1_frame (pointer);
      if (code > 0)
        {
          zwlr_virtual_pointer_v1_button (pointer, now_ms (), code,
                                          WL_POINTER_BUTTON_STATE_PRESSED);
          zwlr_virtual_pointer_v1_frame (pointer);
          zwlr_virtual_pointer_v1_button (pointer, now_ms (), code,
                                          WL_POINTER_BUTTON_STATE_RELEASED);
          zwlr_virtual_pointer_v1_frame (pointer);
        }
      if (wl_display_roundtrip (display) < 0)
        {
          fprintf (stderr, "wl-pointer: the compositor went away\n");
          return 1;
        }
      printf ("ok\n");
      fflush (stdout);
    }
  zwlr_virtual_pointer_v1_destroy (pointer);
  wl_display_disconnect (display);
  return 0;
}
