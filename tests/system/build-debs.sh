#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the Debian packages from a clean copy of the source tree and check
# them with lintian.
#
#   build-debs.sh SOURCE-DIR OUT-DIR
#
# The copy holds the files git tracks plus untracked ones that are not
# ignored (so build directories never end up in the source package).  The
# binary packages land in OUT-DIR/debs/.  Fails when dpkg-buildpackage
# fails or lintian reports any error or warning (overrides are listed, each
# with its comment, as "N:"/"O:" lines).  OUT-DIR/debs/KEY holds a hash of
# the source copy: a second call with the same sources does nothing, so the
# system test reuses the packages this test built.
set -euo pipefail

die() { echo "build-debs: $*" >&2; exit 1; }
[ $# = 2 ] || die "usage: build-debs.sh SOURCE-DIR OUT-DIR"
src=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
# One build at a time per OUT-DIR: the desktops suite's prepare tests run
# beside each other and may both find the packages missing.
exec 9>"$out/.lock"
flock 9

for tool in dpkg-buildpackage dh dh_dkms lintian git; do
  command -v "$tool" >/dev/null ||
    die "$tool missing (apt-get install dpkg-dev debhelper dh-dkms lintian git)"
done

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
tree=$out/source/rfkill-applet-$version
rm -rf "$out/source"
mkdir -p "$tree"
(cd "$src" && git ls-files -z -co --exclude-standard) |
  (cd "$src" && xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$tree" ||
  die "copying the source tree failed"
key=$(cd "$tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)

if [ -f "$out/debs/KEY" ] && [ "$(cat "$out/debs/KEY")" = "$key" ]; then
  echo "build-debs: packages of this source ($key) already built:"
  ls "$out/debs"
  exit 0
fi
rm -rf "$out/debs"

echo "build-debs: dpkg-buildpackage -us -uc -b in $tree"
start=$(date +%s)
(cd "$tree" && dpkg-buildpackage -us -uc -b) </dev/null >"$out/dpkg-buildpackage.log" 2>&1 || {
  tail -n 60 "$out/dpkg-buildpackage.log"
  die "dpkg-buildpackage failed (log: $out/dpkg-buildpackage.log)"
}
echo "build-debs: built in $(( $(date +%s) - start )) s"

changes=$(ls "$out"/source/rfkill-applet_"${version}"_*.changes)
echo "build-debs: lintian --fail-on error,warning --show-overrides $changes"
rc=0
lintian --fail-on error,warning --show-overrides --display-info "$changes" \
  >"$out/lintian.log" 2>&1 || rc=$?
cat "$out/lintian.log"
if [ $rc != 0 ] || grep -q '^[EW]: ' "$out/lintian.log"; then
  die "lintian found errors or warnings (exit $rc)"
fi
echo "build-debs: lintian: no errors, no warnings"

mkdir -p "$out/debs"
mv "$out"/source/*.deb "$out/debs/"
echo "$key" > "$out/debs/KEY"
ls -l "$out/debs"
