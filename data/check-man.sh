#!/bin/sh
# Formats a man page and fails on any groff warning (or a missing page).
# With a program as second argument, every long option its --help lists
# must be documented in the page.
set -eu
page=$1
program=${2:-}
[ -r "$page" ] || { echo "cannot read $page" >&2; exit 1; }
warnings=$(groff -man -ww -z "$page" 2>&1)
if [ -n "$warnings" ]; then
  printf '%s\n' "$warnings" >&2
  exit 1
fi
if command -v man >/dev/null 2>&1; then
  warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  if [ -n "$warnings" ]; then
    printf '%s\n' "$warnings" >&2
    exit 1
  fi
fi
# The page must document the actions the binary offers.
options="--device --list --json --airplane --version"
if [ -n "$program" ]; then
  options=$("$program" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
  [ -n "$options" ] || { echo "$program --help lists no options" >&2; exit 1; }
fi
for word in $options; do
  groff -man -Tutf8 "$page" 2>/dev/null | sed 's/\x08.//g' | grep -q -- "$word" ||
    { echo "$page does not mention $word" >&2; exit 1; }
done
