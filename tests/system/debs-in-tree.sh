#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages built and checked on a release's own tools: in a
# bare SUITE tree (minbase-tree.sh) with only what debian/control asks
# for, build-debs.sh runs as it does on the host: dpkg-buildpackage, then
# that release's lintian, where any error or warning fails.
#
#   debs-in-tree.sh SUITE SOURCE-DIR WORK-DIR
#
# The host's test only proves the packages on bookworm's debhelper and
# lintian; a user on trixie rebuilds them with trixie's, whose checks are
# newer.  WORK-DIR is shared with readme-command.sh (one cached tree).
set -euo pipefail

die() { echo "debs-in-tree: $*" >&2; exit 1; }
[ $# = 3 ] || die "usage: $0 SUITE SOURCE-DIR WORK-DIR"
suite=$1 src=$2 work=$3
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot)"

# shellcheck source=tests/system/minbase-tree.sh
. "$(dirname "$0")/minbase-tree.sh"

start=$SECONDS
root=$work/debs-$suite
minbase_tree "$suite" "$work" "$root" || die "mmdebstrap $suite failed"
copy_sources "$src" "$root/src"
# build-debs.sh copies what git tracks: the tree gets a repository of its
# own, holding exactly the clone's files.
in_root "$root" apt-get update -q >&2 || die "$suite: apt-get update failed"
in_root "$root" apt-get install -y -q --no-install-recommends \
  dpkg-dev fakeroot lintian git >&2 </dev/null ||
  die "$suite: cannot install dpkg-dev, lintian and git"
in_root "$root" apt-get build-dep -y -q /src >&2 </dev/null ||
  die "$suite: apt-get build-dep cannot satisfy debian/control"
in_root "$root" /bin/sh -c 'cd /src && git init -q && git add -A' ||
  die "$suite: git init in the copy failed"
echo "debs-in-tree: $suite: build dependencies in after $(( SECONDS - start )) s"
# shellcheck disable=SC2016  # dpkg-query expands these itself
in_root "$root" dpkg-query -W -f '${Package} ${Version}\n' \
  debhelper dh-dkms lintian dpkg-dev
set +e
in_root "$root" bash /src/tests/system/build-debs.sh /src /var/tmp/pkg </dev/null
status=$?
set -e
[ "$status" = 0 ] || die "$suite: build-debs.sh failed (exit $status)"
ls "$root/var/tmp/pkg/debs"
echo "debs-in-tree: $suite: built and lintian-clean in $(( SECONDS - start )) s"
rm -rf "$root"
