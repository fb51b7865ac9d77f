#!/bin/sh
# Formats a man page and fails on any groff warning (or a missing page).
set -eu
page=$1
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
for word in --device --list --json --airplane --version; do
  groff -man -Tutf8 "$page" 2>/dev/null | sed 's/\x08.//g' | grep -q -- "$word" ||
    { echo "$page does not mention $word" >&2; exit 1; }
done
