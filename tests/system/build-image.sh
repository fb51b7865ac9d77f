#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the Debian root filesystems the system suite boots (bookworm and
# trixie), and the base trees of the desktops suite.
#
#   build-image.sh base PACKAGE-LIST CACHE-DIR [SUITE] -> prints the base dir
#   build-image.sh image BASE-DIR GUEST-DIR PANEL-XML OUT-DIR DEB...
#
# "image" copies the base tree to OUT-DIR/root, installs the given .debs
# with apt inside it (so rfkill-airplane-dkms's DKMS hook builds the modules
# for the image's kernel, as on a user's machine), adds the two test users,
# their autologin sessions and the test units from GUEST-DIR, and writes
# OUT-DIR/rootfs.ext4 with mke2fs -d plus OUT-DIR/vmlinuz and
# OUT-DIR/initrd.img (the image's own kernel and initramfs).  Nothing is
# mounted on the host: apt and DKMS run in a private mount namespace
# (unshare) whose /proc, /sys and /dev vanish with it.
#
# The base tree (mmdebstrap of PACKAGE-LIST) is cached in CACHE-DIR under a
# key made of the package list, the suites and the mirror, so it is built
# once per build directory; a lock per key makes a second builder wait for
# the first and use its tree.  SUITE is the Debian release (default bookworm,
# whose key leaves the suite out as it always did, so existing caches stay
# valid; any other suite is part of its key); the desktops suite also
# builds a trixie base.  Packages already in the host's apt cache are
# reused instead of downloaded.
set -euo pipefail

die() { echo "build-image: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot, dpkg)"

mirror=${RFK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${RFK_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}

base() {
  local list=$1 cache=$2 suite=${3:-bookworm}
  local pkgs key dir
  case $suite in
    *[!a-z]*|'') die "not a Debian suite name: '$suite'" ;;
  esac
  pkgs=$(grep -v '^#' "$list" | grep -v '^$' | sort -u | tr '\n' ',')
  if [ "$suite" = bookworm ]; then
    key=$(printf '%s\n%s\n%s\n' "$pkgs" "$mirror" "$security" | sha256sum | cut -c1-16)
  else
    key=$(printf '%s\n%s\n%s\n%s\n' "$pkgs" "$mirror" "$security" "$suite" |
      sha256sum | cut -c1-16)
  fi
  dir=$cache/base-$key
  mkdir -p "$cache"
  exec 9>"$dir.lock"
  flock 9
  if [ -f "$dir.done" ]; then
    exec 9>&-
    echo "$dir"; return
  fi
  rm -rf "$dir" "$dir.tmp"
  echo "build-image: mmdebstrap $suite into $dir (key $key)" >&2
  local hostcache=/var/cache/apt/archives
  mmdebstrap --variant=minbase --mode=root --format=directory \
    --aptopt='APT::Install-Recommends "false"' --dpkgopt=force-unsafe-io \
    --include="${pkgs%,}" \
    --setup-hook="mkdir -p \"\$1$hostcache\"; find $hostcache -maxdepth 1 -name '*.deb' -exec cp -l -t \"\$1$hostcache\" {} + 2>/dev/null || find $hostcache -maxdepth 1 -name '*.deb' -exec cp -t \"\$1$hostcache\" {} +" \
    "$suite" "$dir.tmp" \
    "deb $mirror $suite main" \
    "deb $mirror $suite-updates main" \
    "deb $security $suite-security main" >&2 \
    || die "mmdebstrap failed"
  mv "$dir.tmp" "$dir"
  touch "$dir.done"
  exec 9>&-
  echo "$dir"
}

in_root() {   # in_root ROOT CMD...: run CMD chrooted, with /proc /sys /dev
  local root=$1; shift
  unshare --mount --pid --fork --kill-child --propagation private -- \
    /bin/sh -euc 'r=$1; shift
      mount -t proc proc "$r/proc"; mount -t sysfs sys "$r/sys"
      mount --rbind /dev "$r/dev"
      exec chroot "$r" "$@"' in_root "$root" "$@"
}

image() {
  local base=$1 guest=$2 panel=$3 out=$4; shift 4
  local root=$out/root
  [ -f "$base.done" ] || die "$base is not a finished base tree"
  rm -rf "$root" "$out/rootfs.ext4"
  mkdir -p "$out"
  if [ "${RFK_DROP_CACHES:-0}" = 1 ]; then
    # A disposable build directory (run-all.sh wipes it before each run):
    # the base will not be used again, so it becomes the image's tree, and
    # the caller can free its space once rootfs.ext4 is written.
    echo "build-image: moving $base into the image (RFK_DROP_CACHES=1)" >&2
    rm -f "$base.done"
    mv "$base" "$root"
  else
    # Hard links for the bulk: dpkg, depmod, ldconfig and the shadow tools
    # replace files by rename, so the cached base keeps its own inodes.
    # What is appended to in place (logs) is copied.
    echo "build-image: linking a copy of $base" >&2
    cp -al "$base" "$root"
    rm -rf "$root/var/log"
    cp -a "$base/var/log" "$root/var/log"
  fi

  # Our packages, the way a user installs them (Recommends included).
  mkdir -p "$root/var/tmp/debs"
  cp "$@" "$root/var/tmp/debs/"
  echo "build-image: apt-get install ./*.deb inside the image" >&2
  in_root "$root" sh -c 'export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
    apt-get update -q && apt-get install -y -q /var/tmp/debs/*.deb' </dev/null >&2 \
    || die "apt-get install of our packages failed inside the image"
  in_root "$root" apt-get clean
  rm -rf "$root/var/tmp/debs" "$root"/var/lib/apt/lists/*_Packages

  # The seat user with its autologin session on tty1, and a second one on
  # tty2 for fast user switching (logged in when the test switches VT).
  in_root "$root" useradd --create-home --uid 1000 --shell /bin/bash \
    --comment "Test user" rfk >&2
  in_root "$root" useradd --create-home --uid 1001 --shell /bin/bash \
    --comment "Second test user" rfk2 >&2
  install -D -m 0644 "$guest/autologin.conf" \
    "$root/etc/systemd/system/getty@tty1.service.d/autologin.conf"
  install -D -m 0644 "$guest/autologin-tty2.conf" \
    "$root/etc/systemd/system/getty@tty2.service.d/autologin.conf"
  install -D -m 0755 "$guest/session.sh" "$root/usr/local/lib/rfk-system/session.sh"
  install -m 0755 "$guest/second-session.sh" "$root/usr/local/lib/rfk-system/"
  install -m 0644 "$guest/bash_profile" "$root/home/rfk/.bash_profile"
  install -m 0644 "$guest/bash_profile" "$root/home/rfk2/.bash_profile"
  local xfconf=$root/home/rfk/.config/xfce4/xfconf/xfce-perchannel-xml
  install -D -m 0644 "$panel" "$xfconf/xfce4-panel.xml"
  install -m 0644 "$guest/xfce4-session.xml" "$xfconf/xfce4-session.xml"
  in_root "$root" chown -R rfk:rfk /home/rfk
  in_root "$root" chown -R rfk2:rfk2 /home/rfk2

  # Radios, the test runner and its unit.
  install -m 0644 "$guest/radios-modules.conf" "$root/etc/modules-load.d/rfk-radios.conf"
  install -m 0644 "$guest/radios-modprobe.conf" "$root/etc/modprobe.d/rfk-radios.conf"
  install -m 0644 "$guest/rfk-vhci.service" "$guest/rfk-system-test.service" \
    "$root/etc/systemd/system/"
  install -m 0755 "$guest/guest-test.py" "$root/usr/local/lib/rfk-system/guest-test.py"
  in_root "$root" systemctl enable rfk-vhci.service rfk-system-test.service >&2
  # A machine id now, so the first boot is not a "first boot" that asks.
  rm -f "$root/etc/machine-id"
  in_root "$root" systemd-machine-id-setup >&2
  echo rfk-system > "$root/etc/hostname"
  printf '/dev/vda / ext4 rw,relatime 0 1\n' > "$root/etc/fstab"

  local kver
  kver=$(basename "$(ls -d "$root"/lib/modules/*/ | tail -n 1)")
  cp "$root/boot/vmlinuz-$kver" "$out/vmlinuz"
  cp "$root/boot/initrd.img-$kver" "$out/initrd.img"
  echo "$kver" > "$out/kver"
  local size
  size=$(( $(du -sm "$root" | cut -f1) + 1536 ))
  echo "build-image: mke2fs -t ext4 -d root rootfs.ext4 ${size}M" >&2
  mke2fs -q -F -t ext4 -L rfk-root -d "$root" "$out/rootfs.ext4" "${size}M" >&2 \
    || die "mke2fs failed"
  echo "$out/rootfs.ext4"
}

case "${1:-}" in
  base) shift; [ $# = 2 ] || [ $# = 3 ] || die "usage: base LIST CACHE [SUITE]"; base "$@" ;;
  image) shift; [ $# -ge 5 ] || die "usage: image BASE GUEST PANEL OUT DEB..."; image "$@" ;;
  *) die "usage: build-image.sh base LIST CACHE [SUITE] | image BASE GUEST PANEL OUT DEB..." ;;
esac
