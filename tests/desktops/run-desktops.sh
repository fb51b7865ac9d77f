#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The desktops suite's host side: a Debian tree (bookworm, or trixie) with
# the five desktops and our installed package, and one desktop's scenario
# run in it.
#
#   run-desktops.sh prepare [--release R] SOURCE-DIR WORK-DIR PKG-DIR FIXTURE...
#   run-desktops.sh run [--release R] WORK-DIR DESKTOP LOG-DIR
#
# R is the Debian release of the tree: bookworm (the default) or trixie.
# Its packages are packages.txt for bookworm, packages-R.txt for the
# others; sessions.py keeps what differs between the releases' desktops.
# The package installed is always the one built here (on bookworm): on
# trixie apt installs it as a user there does (the t64 libraries provide
# the old names).
#
# "prepare" builds the .debs (tests/system/build-debs.sh into PKG-DIR, the
# system suite's, so one build serves both), the base tree
# (tests/system/build-image.sh base with the release's package list,
# cached under $RFK_DESKTOPS_CACHE or WORK-DIR/cache, keyed by the package
# list and the release), then
# WORK-DIR/root: a hard-linked copy of the base with rfkill-applet's .deb
# installed by apt, the desktop user (uid 1500: 1000 is taken on CI
# machines) and the FIXTURE files (the driver, the fake kernel, the
# Wayland pointer) in /opt/rfk-desktops.
#
# "run" starts desktops.py for DESKTOP as that user under dbus-run-session
# in the tree, in a private mount and pid namespace: /proc, /sys, /dev and
# the log directory are mounted there only, and vanish with every process
# when the namespace ends; its own network namespace keeps X11's abstract
# sockets apart from the host's displays.  The desktops' D-Bus services never reach the
# host's buses.  Screenshots and logs land in LOG-DIR.
set -euo pipefail

die() { echo "run-desktops: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
user=rfkdesk
uid=1500
release=bookworm

package_list() {   # the release's package list
  case $release in
    bookworm) echo "$here/packages.txt" ;;
    *) [ -f "$here/packages-$release.txt" ] || die "no package list for release '$release'"
       echo "$here/packages-$release.txt" ;;
  esac
}

in_tree() {   # in_tree ROOT OUTDIR CMD...: chrooted, OUTDIR at /var/tmp/out
  local root=$1 outdir=$2; shift 2
  unshare --mount --pid --net --fork --kill-child --propagation private -- \
    /bin/sh -euc 'r=$1; o=$2; shift 2
      mount -t proc proc "$r/proc"; mount -t sysfs sys "$r/sys"
      mount --rbind /dev "$r/dev"; mount -t tmpfs tmp "$r/tmp"
      mkdir -p "$r/var/tmp/out"
      [ -z "$o" ] || mount --bind "$o" "$r/var/tmp/out"
      exec chroot "$r" "$@"' in_tree "$root" "$outdir" "$@"
}

prepare() {
  local src=$1 work=$2 pkg=$3; shift 3
  [ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot, unshare)"
  local list
  list=$(package_list)   # an unknown release fails here, before any build
  local start=$SECONDS
  bash "$src/tests/system/build-debs.sh" "$src" "$pkg" || die "building the .debs failed"
  local deb
  deb=$(ls "$pkg"/debs/rfkill-applet_*.deb) || die "no rfkill-applet .deb in $pkg/debs"
  echo "run-desktops: packages ready after $(( SECONDS - start )) s"

  local cache=${RFK_DESKTOPS_CACHE:-$work/cache} base
  base=$(bash "$src/tests/system/build-image.sh" base "$list" "$cache" "$release") ||
    die "building the base tree failed"
  echo "run-desktops: $release base tree $base ready after $(( SECONDS - start )) s"

  mkdir -p "$work"
  work=$(cd "$work" && pwd)
  local root=$work/root
  rm -rf "$root"
  # Hard links for the bulk (dpkg, useradd replace files by rename, so the
  # cached base keeps its inodes); what is written in place is copied.
  cp -al "$base" "$root"
  rm -rf "$root/var/log"
  cp -a "$base/var/log" "$root/var/log"
  mkdir -p "$root/var/tmp/debs"
  cp "$deb" "$root/var/tmp/debs/"
  # As a user installs it; its libraries are in the base already.
  in_tree "$root" "" sh -c 'export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
    apt-get install -y -q /var/tmp/debs/*.deb' </dev/null ||
    die "apt-get install of rfkill-applet failed inside the tree"
  rm -rf "$root/var/tmp/debs"
  in_tree "$root" "" useradd --create-home --uid $uid --shell /bin/bash "$user"
  mkdir -p "$root/opt/rfk-desktops"
  cp "$@" "$root/opt/rfk-desktops/"
  echo "run-desktops: tree ready after $(( SECONDS - start )) s"
}

run() {
  local work=$1 desktop=$2 logdir=$3
  local root=$work/root
  [ -x "$root/usr/bin/rfkill-applet" ] || die "no prepared tree in $work (desktops-prepare failed?)"
  grep -qx "VERSION_CODENAME=$release" "$root/etc/os-release" ||
    die "the tree in $work is not $release"
  rm -rf "$logdir"
  mkdir -p "$logdir"
  chown "$uid" "$logdir"
  # A fresh home and runtime dir for each desktop: no state carries over.
  rm -rf "${root:?}/home/${user:?}"
  mkdir -p "$root/home/$user"
  chown "$uid:$uid" "$root/home/$user"
  chmod 700 "$root/home/$user"
  in_tree "$root" "$logdir" runuser -u "$user" -- env -i \
    HOME=/home/$user USER=$user LOGNAME=$user SHELL=/bin/bash LANG=C.UTF-8 \
    PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
    PYTHONPATH=/opt/rfk-desktops PYTHONDONTWRITEBYTECODE=1 \
    XDG_CONFIG_HOME=/home/$user/.config XDG_DATA_HOME=/home/$user/.local/share \
    XDG_CACHE_HOME=/home/$user/.cache XDG_RUNTIME_DIR=/tmp/runtime-$user \
    RFK_FAKE_RFKILL=/opt/rfk-desktops/fake-rfkill \
    RFK_WL_POINTER=/opt/rfk-desktops/wl-pointer \
    RFK_DESKTOPS_RELEASE="$release" \
    sh -c 'mkdir -m 700 -p "$XDG_RUNTIME_DIR"
      # TAP on fd 3; what D-Bus-started programs print goes to stderr.
      exec 3>&1 1>&2
      exec dbus-run-session -- python3 /opt/rfk-desktops/desktops.py "$1" /var/tmp/out 3' \
    sh "$desktop"
}

cmd=${1:-}
[ $# = 0 ] || shift
if [ "${1:-}" = --release ]; then
  [ $# -ge 2 ] || die "--release needs a value"
  release=$2; shift 2
fi
case $release in
  *[!a-z]*|'') die "not a Debian release name: '$release'" ;;
esac
case "$cmd" in
  prepare) [ $# -ge 3 ] || die "usage: prepare SOURCE WORK PKG FIXTURE..."; prepare "$@" ;;
  run) [ $# = 3 ] || die "usage: run WORK DESKTOP LOGDIR"; run "$@" ;;
  *) die "usage: run-desktops.sh prepare [--release R] SOURCE WORK PKG FIXTURE... | run [--release R] WORK DESKTOP LOGDIR" ;;
esac
