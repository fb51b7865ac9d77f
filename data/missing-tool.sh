#!/bin/sh
# Stands in for a validator that is not installed, so that its test fails
# and says what to install instead of vanishing from the suite.
echo "$1 is not installed: apt-get install $2" >&2
exit 1
