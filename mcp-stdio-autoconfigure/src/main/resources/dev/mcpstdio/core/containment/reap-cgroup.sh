# Run by the orphan guard as "sh THIS graceMillis termMillis" once the JVM is gone, after the
# lines above set g, the JVM's group, and kill, 1 where cgroup.kill exists: waits up to the grace
# for the group to empty, sends SIGTERM to every process left in it (frozen while they are read,
# so that no pid is reused under us), waits up to the second bound, kills the whole group and
# removes it.
trap '' INT HUP TERM QUIT PIPE
grace=${1:-0}; term=${2:-0}; ms=0
[ -d "$g" ] || exit 0
now() {
  if [ -r /proc/uptime ]; then read u r < /proc/uptime; ms=$(( ${u%.*} * 1000 + 1${u#*.} * 10 - 1000 )); fi
}
procs() { cat "$g"/cgroup.procs "$g"/*/cgroup.procs 2>/dev/null; }
await() {
  now; until=$((ms + $1))
  while [ -n "$(procs)" ]; do
    now; [ "$ms" -ge "$until" ] && return 1
    sleep 0.05; [ -r /proc/uptime ] || ms=$((ms + 50))
  done
}
signal() {
  echo 1 > "$g/cgroup.freeze" 2>/dev/null
  for p in $(procs); do kill -"$1" "$p" 2>/dev/null; done
  echo 0 > "$g/cgroup.freeze" 2>/dev/null
}
await "$grace" || { signal TERM; await "$term"; } || {
  if [ "$kill" = 1 ]; then echo 1 > "$g/cgroup.kill" 2>/dev/null; else signal KILL; fi
  await 1000 || signal KILL
  await 1000
}
for d in "$g"/*/; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
rmdir "$g" 2>/dev/null
exit 0
