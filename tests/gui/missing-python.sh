#!/bin/sh
# Stands in for /usr/bin/python3 with gi and dbusmock when they are missing.
echo "FAIL: /usr/bin/python3 lacks gi or dbusmock: apt-get install python3-gi python3-dbusmock" >&2
exit 1
