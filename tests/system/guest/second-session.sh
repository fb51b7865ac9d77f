#!/bin/sh
# The second seat user's session on tty2 (fast user switching): an X
# server of its own and the installed applet, no panel -- the applet keeps
# running without a tray, and what is tested here is which session's
# applet drives the airplane-mode LED.  Debug messages (every attempt to
# take the LED back) go to ~/session.log.
exec >"$HOME/session.log" 2>&1
export DISPLAY=:1
Xvfb :1 -screen 0 800x600x24 -nolisten tcp &
i=0
while [ ! -e /tmp/.X11-unix/X1 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
dbus-update-activation-environment --systemd DISPLAY
G_MESSAGES_DEBUG=all exec rfkill-applet
