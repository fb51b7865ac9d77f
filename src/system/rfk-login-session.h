/*
 * rfk-login-session.h: is our logind session the active one on its seat?
 *
 * With fast user switching, two users are logged in on one seat and logind
 * hands the seat's devices (ACLs on /dev/rfkill among them) to the session
 * in front.  The airplane-mode indicator belongs to that session, so the
 * LED controller lets go of it while ours is in the background.
 *
 * The "active" property is TRUE until logind says otherwise: without
 * logind, or outside any session, nothing ever takes the LED away.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RFK_TYPE_LOGIN_SESSION (rfk_login_session_get_type ())
G_DECLARE_FINAL_TYPE (RfkLoginSession, rfk_login_session, RFK, LOGIN_SESSION,
                      GObject)

/* Watches the caller's session (logind's "auto" session) on bus, or on
 * the system bus when bus is NULL.  Never blocks: the session is looked up
 * in the background, and "notify::active" tells what logind answers. */
RfkLoginSession *rfk_login_session_new (GDBusConnection *bus);

gboolean rfk_login_session_get_active (RfkLoginSession *self);
/* TRUE once the lookup is over, whatever its outcome. */
gboolean rfk_login_session_is_ready (RfkLoginSession *self);
/* The session's object path, NULL while unknown or without logind. */
const char *rfk_login_session_get_object_path (RfkLoginSession *self);

/*
 * Properties:
 *  "active" (gboolean, read-only)  the session is in front on its seat
 *  "ready"  (gboolean, read-only)  the lookup is over
 */

G_END_DECLS
