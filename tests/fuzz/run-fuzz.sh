#!/bin/sh
# run-fuzz.sh FUZZER CORPUS_DIR [SECONDS]   (default 60)
# RFK_FUZZ_MAX_LEN: the longest input (default 1024).
# Fuzzes for SECONDS starting from a copy of the seed corpus (the source
# tree is never written), then prints the exec count.  Non-zero exit when
# the fuzzer found a crash; the reproducer is kept and named.
set -eu

fuzzer=$1
seeds=$2
seconds=${3:-60}

work=$(mktemp -d "${TMPDIR:-/tmp}/rfk-fuzz.XXXXXX")
# The restore list the model saves (with fsync) lives on tmpfs if possible.
state=$(mktemp -d /dev/shm/rfk-fuzz-state.XXXXXX 2>/dev/null) ||
	state=$(mktemp -d "$work/state.XXXXXX")
export RFK_FUZZ_STATE_DIR="$state"
# The target allocates a model per input: ASan's malloc fill, deep
# allocation stacks and a large quarantine cost more than the target.
# Bugs are still caught (poisoning and bounds checks stay on).
export ASAN_OPTIONS="${ASAN_OPTIONS:-max_malloc_fill_size=0:malloc_context_size=0:quarantine_size_mb=8}"
trap 'rm -rf "$work/corpus" "$state"' EXIT
mkdir "$work/corpus"
cp "$seeds"/* "$work/corpus/"

status=0
"$fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
	-artifact_prefix="$work/" -max_len="${RFK_FUZZ_MAX_LEN:-1024}" "$work/corpus" \
	>"$work/log" 2>&1 || status=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
tail -n 20 "$work/log"
echo "fuzz: ${execs:-0} execs in ${seconds} s (exit status $status)"
if [ "$status" -ne 0 ]; then
	echo "fuzz: crash reproducer(s) kept in $work:" >&2
	ls "$work" >&2
	exit 1
fi
rm -rf "$work"
