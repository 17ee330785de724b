. /srv/lib.sh
# answers until its stdin ends, then exits: stopping it needs no signal
serve
