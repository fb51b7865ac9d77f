#!/bin/sh
# Every language must translate every current string: extract the sources
# listed in POTFILES afresh, merge each .po against them and fail on any
# untranslated or fuzzy message, or on a msgfmt --check error.
set -eu
srcdir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$srcdir"
grep -v '^#' po/POTFILES | grep -v '^$' > "$tmp/files"
while read -r f; do
  [ -r "$f" ] || { echo "po/POTFILES lists missing file $f" >&2; exit 1; }
done < "$tmp/files"
# A source file that marks strings but is not listed would go untranslated.
for f in $(grep -rlE '\b(N?_|C_|NC_)\(' --include='*.c' src); do
  grep -qx "$f" "$tmp/files" || { echo "$f has translatable strings but is not in po/POTFILES" >&2; exit 1; }
done

xgettext --from-code=UTF-8 --add-comments=TRANSLATORS --keyword=_ \
  --keyword=N_ --keyword=C_:1c,2 --keyword=NC_:1c,2 --keyword=g_dngettext:2,3 \
  --keyword=ngettext:1,2 --files-from="$tmp/files" -o "$tmp/current.pot"

status=0
for lang in $(grep -v '^#' po/LINGUAS); do
  po=po/$lang.po
  msgmerge --quiet --no-fuzzy-matching -o "$tmp/$lang.po" "$po" "$tmp/current.pot"
  stats=$(LC_ALL=C msgfmt --check --statistics -o /dev/null "$tmp/$lang.po" 2>&1) || {
    echo "$po: msgfmt --check failed: $stats" >&2; status=1; continue; }
  echo "$lang: $stats"
  case $stats in
    *untranslated*|*fuzzy*) echo "$po is incomplete against the sources" >&2; status=1 ;;
  esac
  # Obsolete entries are harmless to users but mean the file is stale.
  if grep -q '^#~' "$po"; then echo "$po has obsolete entries" >&2; status=1; fi
done
exit $status
