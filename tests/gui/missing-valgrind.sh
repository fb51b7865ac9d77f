#!/bin/sh
# Stands in for a -valgrind gui test when valgrind is missing: the memory
# check fails with what to install instead of dropping out of the suite.
echo "FAIL: valgrind not found: apt-get install valgrind" >&2
exit 1
