. /srv/lib.sh
# answers until its stdin ends, then stays, deaf to SIGTERM (as PID 1 it would be anyway
# without a handler): only SIGKILL, from outside the container, ends it
trap '' TERM
serve
echo "stdin closed; staying" >&2
idle
