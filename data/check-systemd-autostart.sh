#!/bin/sh
# Does systemd's XDG autostart generator (the one KDE Plasma, and any
# session started by systemd --user, relies on) turn our autostart entry
# into a unit?  It skips entries it cannot honour, such as ones with
# X-GNOME-Autostart-Phase, and says why only at debug level.
#   check-systemd-autostart.sh AUTOSTART-FILE APPLET-BINARY
set -eu
entry=$1 applet=$2
gen=/usr/lib/systemd/user-generators/systemd-xdg-autostart-generator
if [ ! -x "$gen" ]; then
	echo "$gen is missing: install the systemd package" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/xdg/autostart" "$tmp/home" "$tmp/units" "$tmp/bin"
cp "$entry" "$tmp/xdg/autostart/"
# the generator only writes a unit when Exec= is found on PATH
ln -s "$(realpath "$applet")" "$tmp/bin/rfkill-applet"
PATH="$tmp/bin:$PATH" XDG_CONFIG_DIRS="$tmp/xdg" XDG_CONFIG_HOME="$tmp/home" \
	SYSTEMD_LOG_LEVEL=debug "$gen" "$tmp/units" "$tmp/units" "$tmp/units" \
	>"$tmp/log" 2>&1 || true
unit="$tmp/units/app-$(basename "$entry" .desktop)@autostart.service"
if [ ! -f "$unit" ]; then
	echo "systemd-xdg-autostart-generator made no unit for $(basename "$entry"):" >&2
	cat "$tmp/log" >&2
	exit 1
fi
grep -q '^ExecStart=.*rfkill-applet' "$unit" || {
	echo "the generated unit does not run rfkill-applet:" >&2
	cat "$unit" >&2
	exit 1
}
echo "ok: $(basename "$unit")"
