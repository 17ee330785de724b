#!/bin/sh
# The field soak's server: one stderr line, then exit at once, before reading anything.
echo "boom: missing dependency" >&2
exit 3
