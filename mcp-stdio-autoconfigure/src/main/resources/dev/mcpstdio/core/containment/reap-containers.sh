# Run by the orphan guard as "sh THIS graceMillis termMillis" once the JVM is gone, after the
# lines above defined owned (the JVM's containers of an engine), engine1, engine2, ... (each
# engine, "remove" standing for its kill-and-remove subcommand) and engines (their names): waits
# up to the grace for the containers to stop by themselves, sends SIGTERM through the engine to
# those still running, waits up to the second bound, then removes every container of the JVM.
trap '' INT HUP TERM QUIT PIPE
grace=${1:-0}; term=${2:-0}; ms=0
now() {
  if [ -r /proc/uptime ]; then read u r < /proc/uptime; ms=$(( ${u%.*} * 1000 + 1${u#*.} * 10 - 1000 )); fi
}
# every call of an engine is bounded where timeout(1) exists: a hung engine must not keep the guard
bound=; command -v timeout >/dev/null 2>&1 && bound=timeout
await() {
  now; until=$((ms + $2))
  while [ -n "$(owned "$1" --filter status=running)" ]; do
    now; [ "$ms" -ge "$until" ] && return 1
    sleep 0.2; [ -r /proc/uptime ] || ms=$((ms + 300))
  done
}
reap() {
  await "$1" "$grace" || {
    "$1" kill --signal TERM $(owned "$1" --filter status=running) >/dev/null 2>&1
    await "$1" "$term"
  }
  all=$(owned "$1")
  [ -z "$all" ] || "$1" remove $all >/dev/null 2>&1
}
for e in $engines; do reap "$e" & done
wait
