#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's first command, as a new user meets it: on a bare Debian.
#
#   readme-command.sh SUITE SOURCE-DIR WORK-DIR
#
# Makes a minbase SUITE tree (bookworm or trixie) with mmdebstrap, plus
# sudo, which the command itself calls; nothing else a user would not have.
# Copies the sources in (as a clone would: git ls-files), takes the
# command verbatim from README.md (the indented line after "Build and run
# the applet") and runs it as root in the tree.  Every step up to the
# applet must pass.  Its last step starts the applet, which on a machine
# without a display exits at once; so the built applet is then started
# again under Xvfb and a session bus (installed only after the command
# ran, so they cannot hide a missing build package) and must still be
# running after a few seconds, waiting for /dev/rfkill.
#
# A build package dropped from .ci/packages-build.txt makes the command
# fail here, which CI (on a host that has every test package) cannot see.
# The minbase tree is cached in WORK-DIR, keyed by suite and mirror, and
# copied afresh for every run (minbase-tree.sh).
set -euo pipefail

die() { echo "readme-command: $*" >&2; exit 1; }
[ $# = 3 ] || die "usage: $0 SUITE SOURCE-DIR WORK-DIR"
suite=$1 src=$2 work=$3
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot)"

# shellcheck source=tests/system/minbase-tree.sh
. "$(dirname "$0")/minbase-tree.sh"

# The README's command, exactly as printed.
command=$(awk '/^Build and run the applet/ { found = 1; next }
               found && /^    [^ ]/ { sub(/^    /, ""); print; exit }' \
            "$src/README.md")
[ -n "$command" ] || die "no command after 'Build and run the applet' in README.md"
case $command in
  *"meson devenv -C build rfkill-applet"*) ;;
  *) die "the README's command no longer ends by starting the applet: $command" ;;
esac
echo "readme-command: $suite: $command"

root=$work/run-$suite
minbase_tree "$suite" "$work" "$root" || die "mmdebstrap $suite failed"
copy_sources "$src" "$root/src"

# `apt-get install` on a fresh tree needs the package lists first; a user
# who just installed Debian has them.
in_root "$root" apt-get update -q >&2 || die "$suite: apt-get update failed"
log=$work/readme-command-$suite.log
set +e
in_root "$root" /bin/bash -c "cd /src && $command" </dev/null >"$log" 2>&1
status=$?
set -e
tail -n 30 "$log"
applet=$root/src/build/src/rfkill-applet
[ -x "$applet" ] || die "$suite: the README's command did not build the applet (exit $status, log $log)"
grep -q "cannot open the display" "$log" \
  || die "$suite: the command built the applet but it did not start as expected (exit $status)"
echo "readme-command: $suite: built; the applet ran and stopped for want of a display, as expected here"

# Now start it as a desktop session would, with what the command did not
# install: a display and a session bus.
in_root "$root" apt-get install -y -q --no-install-recommends xvfb dbus \
  >&2 </dev/null || die "$suite: cannot install xvfb and dbus to start the applet"
set +e
in_root "$root" /bin/bash -c 'cd /src
  Xvfb -displayfd 3 -nolisten tcp -screen 0 640x480x24 3>/tmp/display &
  for _ in $(seq 100); do [ -s /tmp/display ] && break; sleep 0.1; done
  [ -s /tmp/display ] || { echo "Xvfb did not start"; exit 2; }
  DISPLAY=:$(cat /tmp/display) dbus-run-session -- \
    timeout 8 meson devenv -C build rfkill-applet
  status=$?
  kill %1
  exit $status' </dev/null >"$log.run" 2>&1
status=$?
set -e
cat "$log.run"
[ "$status" = 124 ] || die "$suite: the built applet exited with $status within 8 s (log $log.run)"
echo "readme-command: $suite: the built applet runs on a bare $suite"
rm -rf "$root"
