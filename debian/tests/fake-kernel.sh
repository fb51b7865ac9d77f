# Sourced by the tests: builds the fake kernel from the source tree and
# starts it.  Sets FAKE (the program), SOCK (its /dev/rfkill stand-in) and
# RFKILL_SYSFS_ROOT (its /sys/class/rfkill stand-in).
set -eu

work=${AUTOPKGTEST_TMP:?run by autopkgtest, or set AUTOPKGTEST_TMP}
# Only the fake's target: the installed packages are what is tested.
meson setup "$work/build" -Dtests=true -Dkernel_tests=disabled >"$work/meson.log" 2>&1 ||
  { cat "$work/meson.log"; echo "fake-kernel: meson setup failed" >&2; exit 1; }
ninja -C "$work/build" tests/fake/fake-rfkill >>"$work/meson.log" 2>&1 ||
  { tail -n 40 "$work/meson.log"; echo "fake-kernel: building fake-rfkill failed" >&2; exit 1; }
FAKE=$work/build/tests/fake/fake-rfkill

# The applet keeps its airplane-mode memory under $HOME: a private one.
export HOME=$work/home XDG_RUNTIME_DIR=$work/run
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

SOCK=$work/rfkill.sock
export RFKILL_SYSFS_ROOT=$work/sys
"$FAKE" --radios "${FAKE_RADIOS:-wlan,bluetooth}" --listen "$SOCK" \
  --sysfs "$RFKILL_SYSFS_ROOT" --control "$work/rfkill.ctl" --no-stdin \
  >"$work/fake.out" 2>&1 &
fake_pid=$!
trap 'kill $fake_pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q '^ready' "$work/fake.out" && break
  sleep 0.1
done
grep -q '^ready' "$work/fake.out" ||
  { cat "$work/fake.out"; echo "fake-kernel: fake-rfkill did not start" >&2; exit 1; }

# The fake's own view of radio IDX: "SOFT HARD" (0 or 1 each).
fake_state() {
  "$FAKE" --ctl "$work/rfkill.ctl" list | awk -v idx="$1" '$1 == idx { print $4, $5 }'
}
