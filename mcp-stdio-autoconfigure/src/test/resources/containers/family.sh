. /srv/lib.sh
# two helpers beside the server, so that a count of the container's processes is more than one
idle &
idle &
echo "ready" >&2
serve
