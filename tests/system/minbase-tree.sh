# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Sourced by readme-command.sh and debs-in-tree.sh: a bare Debian tree, as
# a user who just installed that release has it.
#
#   minbase_tree SUITE WORK-DIR ROOT
#
# Makes a minbase SUITE tree (bookworm or trixie) with mmdebstrap, plus
# sudo, cached in WORK-DIR keyed by suite and mirror, and copies it afresh
# to ROOT.  Tests that share WORK-DIR share the cache; a lock keeps two of
# them from building it at once.  in_root ROOT CMD... then runs CMD in the
# tree as root, with /proc, /sys, /dev, a fresh /tmp and the host's DNS.

minbase_tree() {
  local suite=$1 work=$2 root=$3
  local mirror=${RFK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
  local security=${RFK_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
  local key base
  key=$(printf '%s\n%s\n%s\n' "$suite" "$mirror" "$security" | sha256sum | cut -c1-12)
  base=$work/minbase-$suite-$key
  mkdir -p "$work"
  (
    flock 9
    if [ ! -f "$base.done" ]; then
      rm -rf "$base" "$base.tmp"
      mmdebstrap --variant=minbase --mode=root --format=directory \
        --aptopt='APT::Install-Recommends "false"' --dpkgopt=force-unsafe-io \
        --include=sudo "$suite" "$base.tmp" \
        "deb $mirror $suite main" \
        "deb $mirror $suite-updates main" \
        "deb $security $suite-security main" >&2 || exit 1
      mv "$base.tmp" "$base"
      touch "$base.done"
    fi
  ) 9>"$work/minbase-$suite.lock" || return 1
  rm -rf "$root"
  cp -a "$base" "$root"
}

in_root() {   # in_root ROOT CMD...
  unshare --mount --pid --fork --kill-child --propagation private -- \
    /bin/sh -euc 'r=$1; shift
      mount -t proc proc "$r/proc"; mount -t sysfs sys "$r/sys"
      mount --rbind /dev "$r/dev"; mount -t tmpfs tmpfs "$r/tmp"
      cp /etc/resolv.conf "$r/etc/resolv.conf"
      exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' \
    sh "$@"
}

# The files a clone has (git ls-files), copied to DIR.
copy_sources() {   # copy_sources SOURCE-DIR DIR
  mkdir -p "$2"
  (cd "$1" && git ls-files -z | tar --null -T - -cf - ) | tar -C "$2" -xf -
}
