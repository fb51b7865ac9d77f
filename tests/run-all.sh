#!/usr/bin/env bash
# Installs the test dependencies (as root, with apt-get) and runs every test
# suite but the full bench and bench-startup (its timings are for a quiet
# machine); bench-smoke (each benchmark figure once, against twice its
# target) runs with the main build.  This is the
# README's test command and what CI runs.
#
#   sudo tests/run-all.sh               install, build, test everything
#   tests/run-all.sh --no-install       skip apt-get (packages already there)
#
# Three builds: a plain one for all suites, one with ASan+UBSan for the unit
# suite and most gui tests (UBSan findings fatal), and a clang one that
# runs the libFuzzer target for FUZZ_SECONDS.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
install=1
[ "${1:-}" = --no-install ] && install=0
fuzz_seconds=${FUZZ_SECONDS:-60}
out=${RFK_TEST_DIR:-$top/_build-tests}
# The kernel suite's sid, trixie and trixie-backports chroots (tests/vm/kernel_root.py) outlive
# `meson setup --wipe`, so a rerun does not fetch it again.
export RFKILL_KERNEL_CACHE=${RFKILL_KERNEL_CACHE:-$out/kernel-cache}

die() { echo "run-all: $*" >&2; exit 1; }

packages() { grep -hv '^#' "$@" | tr '\n' ' '; }

if [ "$install" = 1 ]; then
  [ "$(id -u)" = 0 ] || die "installing packages needs root (sudo $0, or --no-install)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q || die "apt-get update failed"
  # The downloaded .debs (about 0.7 GB on a bare bookworm) are deleted once
  # installed: CI machines can be short of disk.
  # shellcheck disable=SC2046
  apt-get install -y -q --no-install-recommends \
    -o APT::Keep-Downloaded-Packages=false \
    $(packages .ci/packages-build.txt .ci/packages-test.txt) </dev/null \
    || die "apt-get install failed"
fi

mkdir -p "$out"
# Each build directory is wiped below, so the system suite's cached base
# tree would never be used again: it is moved into the image and freed
# once the image is written (tests/system/build-image.sh).
export RFK_DROP_CACHES=1

# Disk: besides its packages, a run peaks at about 8.4 GB (kernel roots,
# the system image, the desktops tree).  A full disk fails tests far from
# the cause, so the free space is shown at the start and sampled, and the
# least seen is reported.
free_gb() { df -Pk "$out" | awk 'NR == 2 { printf "%.1f", $4 / 1048576 }'; }
echo "run-all: $(free_gb) GB free on $(df -P "$out" | awk 'NR == 2 { print $6 }') at the start"
disk_log=$out/disk-free.log
: > "$disk_log"
( while sleep 15; do echo "$(free_gb)" >> "$disk_log"; done ) &
sampler=$!
trap 'kill $sampler 2>/dev/null' EXIT
status=0
results=()

# run_suites NAME BUILDDIR SETUP-ARGS... -- TEST-ARGS...
# $jobs tests at a time (default 2).
run_suites() {
  local name=$1 dir=$2; shift 2
  local setup=() testargs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do setup+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  testargs=("$@")
  echo "=== $name: configure and build ($dir)"
  if ! { meson setup --wipe "$dir" "${setup[@]}" >"$dir.setup.log" 2>&1 ||
         meson setup "$dir" "${setup[@]}" >"$dir.setup.log" 2>&1; }; then
    cat "$dir.setup.log"; echo "run-all: $name: meson setup failed"
    status=1; results+=("$name:setup-failed"); return
  fi
  if ! meson compile -C "$dir"; then
    echo "run-all: $name: build failed"; status=1; results+=("$name:build-failed"); return
  fi
  echo "=== $name: test ${testargs[*]}"
  meson test -C "$dir" --print-errorlogs --num-processes "${jobs:-2}" "${testargs[@]}" || status=1
  results+=("$name:$dir/meson-logs/testlog.json")
}

# Every suite and every kernel line is required here: a missing tool or
# kernel fails configure instead of shrinking the run behind a warning.
# Four main tests at a time on two cores: most of them wait more than they
# compute (a guest's timers, an applet's D-Bus round trips).  The kernel
# suite alone took 671 s with four, against about 985 s with two, and used
# 1.4 cores.  A test that must run alone (is_parallel: false) keeps meson
# from starting any other until every running one has ended, so those come
# first (priority 9 and 10: the packages, bench-smoke, e2e) or last (the
# desktops' runs, -10), never while the system suite's VMs (8) run.
jobs=4 run_suites main "$out/main" -Dkernel_tests=enabled -Dsystem_tests=enabled \
  -Ddesktop_tests=enabled -Dkernel_lines=6.1,6.12,sid,trixie,trixie-backports -- --no-suite bench --no-suite bench-startup
# UBSan findings are fatal: meson 1.0 adds no -fno-sanitize-recover, and
# without it (or halt_on_error) UBSan prints and carries on with a green
# test.  Both: the compiler flag needs no environment, and halt_on_error
# covers whatever was built without the flag.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# The gui-sanitize tests run the ASan+UBSan applet too (about 1.5 min).
run_suites asan "$out/asan" -Db_sanitize=address,undefined -Db_lundef=false \
  -Dc_args=-fno-sanitize-recover=all -- --suite unit --suite gui-sanitize

if [ "$fuzz_seconds" -gt 0 ]; then
  CC=clang run_suites fuzz "$out/fuzz" -Dfuzz=enabled -Dkernel_tests=disabled -Db_lundef=false -- --suite fuzz \
    --test-args="$fuzz_seconds" --timeout-multiplier 10
fi

kill $sampler 2>/dev/null
echo "run-all: least free disk seen during the run: $(sort -n "$disk_log" | grep . | head -n 1) GB (sampled every 15 s); $(free_gb) GB free at the end"

# One closing line over every run: each meson test counts once.
/usr/bin/python3 - "${results[@]}" <<'PY' || status=1
import json, sys
passed = failed = skipped = 0
# CI shows only the last lines of this run: each failure is named here,
# with the last lines its test printed, so a failure can be read there.
failures = []
for item in sys.argv[1:]:
    name, _, path = item.partition(":")
    if not path.endswith(".json"):
        print(f"{name}: {path}")
        failed += 1
        continue
    try:
        lines = open(path).read().splitlines()
    except OSError as err:
        print(f"{name}: no test log ({err})")
        failed += 1
        continue
    for line in lines:
        test = json.loads(line)
        r = test.get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
            failures.append((name, test))
for name, test in failures:
    print(f"=== FAILED {name}: {test.get('name')} ({test.get('result')}, "
          f"{test.get('duration', 0):.1f} s)")
    out = (test.get("stdout") or "").splitlines()
    err = (test.get("stderr") or "").splitlines()
    # A TAP test's failing check may sit far above its last lines: show
    # every "not ok" with the diagnostics that follow it, then the tails.
    shown = 0
    for i, text in enumerate(out):
        if text.startswith("not ok") and shown < 10:
            shown += 1
            for extra in out[i:i + 8]:
                print(f"  ! {extra[:300]}")
    for text in out[-12:] + err[-12:]:
        print(f"    {text[:300]}")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
exit $status
