#!/bin/sh
# The user's desktop session on the autologin VT: an X server (Xvfb: the
# VM has no GPU to drive), then Xfce's session manager, which starts the
# panel and every XDG autostart entry of /etc/xdg/autostart -- among them
# rfkill-applet's.  Logs go to ~/session.log.
exec >"$HOME/session.log" 2>&1
export DISPLAY=:0
Xvfb :0 -screen 0 1024x600x24 -nolisten tcp &
i=0
while [ ! -e /tmp/.X11-unix/X0 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
# The user bus (dbus-user-session) and systemd --user learn about the display.
dbus-update-activation-environment --systemd DISPLAY
exec xfce4-session
