# mcp-stdio orphan guard: ends the servers of a JVM once it is gone (see OrphanGuard). It
# reaches sh through the environment (GuardWatcher.LOADER), so that its command line is short.
# Arguments: the application, the owner JVM's pid and start time; for tests, a /proc to read
# and "members" to print the members of the servers once, at the end of the input, instead
# of guarding, or "proven" to print those that a read of each process and its ancestors
# alone proves, as right before a signal.
# Lines: "S <pid> g|p <start> <stdinCloseMillis> <terminateMillis>" for a server started
# as the leader of its group and session (g) or as a plain process (p), "E <pid>" when it
# ended, "R <script>" for a script to run once the JVM is gone, "Q" to quit without acting.
# Which processes are a server's is the rule of Membership, repeated here.
unset MCP_STDIO_GUARD_SCRIPT
trap '' INT HUP TERM QUIT PIPE
opid=$2; ostart=$3; proc=${4:-/proc}; mode=${5:-guard}
groups=' '; pids=' '; grace=0; term=0; reapers=; ifs=$IFS; me=$$
drop() { r=' '; for e in $1; do [ "${e%%:*}" = "$2" ] || r="$r$e "; done; }
while IFS=' ' read -r op id kind st a b; do
  case "$op" in
    S) if [ "$kind" = g ]; then groups="$groups$id:$st "; else pids="$pids$id:$st "; fi
       [ "$a" -gt "$grace" ] && grace=$a
       [ "$b" -gt "$term" ] && term=$b ;;
    E) drop "$groups" "$id"; groups=$r; drop "$pids" "$id"; pids=$r ;;
    R) reapers="$reapers $id" ;;
    Q) exit 0 ;;
  esac
done
# the state, parent, group, session and start time of a process: false when it is gone
stat_of() {
  read -r line 2>/dev/null < "$proc/$1/stat" || return 1
  set -- ${line##*) }; zs=$1; pp=$2; pg=$3; sd=$4; st=${20}
}
# whether a process of this user carries the markers of a start of the owner: a server
# name, the owner's pid and an instance the owner handed out; as for getenv, the first
# entry of a name counts
marked() {
  [ -O "$proc/$1" ] || return 1
  tr '\0' '\n' < "$proc/$1/environ" 2>/dev/null | awk -v o="$opid" -v s="$ostart" '
    index($0, "MCP_STDIO_SERVER=") == 1 && !("s" in v) { v["s"] = substr($0, 18) }
    index($0, "MCP_STDIO_OWNER_PID=") == 1 && !("o" in v) { v["o"] = substr($0, 21) }
    index($0, "MCP_STDIO_INSTANCE=") == 1 && !("i" in v) { v["i"] = substr($0, 20) }
    END {
      ok = v["s"] != "" && v["o"] ~ /^[0-9]+$/ && length(v["o"]) <= 18 && v["o"] + 0 == o + 0
      exit !(ok && v["i"] ~ ("^" o "[.]" s "[.][0-9]+$"))
    }'
}
# the members among the processes whose stat files are "$@" (all of them: "$proc"/[0-9]*/stat),
# as "pid:start" in $found
rule() {
  # one pass over the processes: pid:parent:group:session:start
  all=; envs=; files=$#
  for f in "$@"; do
    read -r line 2>/dev/null < "$f" || continue
    set -- ${line##*) }
    [ "$1" = Z ] && continue
    p=${f%/stat}; p=${p##*/}
    all="$all $p:$2:$3:$4:${20}"; envs="$envs ${f%/stat}/environ"
  done
  # the roots still unreaped, asked after the pass: only then were their group and
  # session theirs while it read them
  lg=' '; lp=' '
  for e in $groups; do stat_of "${e%%:*}" && [ "$st" = "${e#*:}" ] && lg="$lg${e%%:*} "; done
  for e in $pids; do stat_of "${e%%:*}" && [ "$st" = "${e#*:}" ] && lp="$lp${e%%:*} "; done
  mem=' '
  for e in $all; do
    IFS=:; set -- $e; IFS=$ifs
    [ "$1" = "$opid" ] || [ "$1" = "$me" ] && continue
    case "$lg" in *" $3 "*|*" $4 "*) mem="$mem$1:$5 "; continue ;; esac
    case "$lp" in *" $1 "*) mem="$mem$1:$5 " ;; esac
  done
  # one process (a proof): its own marked below is the only look at its environment
  if [ "$files" = 1 ]; then cands=$envs
  elif [ -n "$envs" ]; then cands=$(grep -l -s -z -x "MCP_STDIO_INSTANCE=$opid[.]$ostart[.][0-9]*" $envs 2>/dev/null)
  else cands=
  fi
  for f in $cands; do
    p=${f%/environ}; p=${p##*/}
    [ "$p" = "$opid" ] || [ "$p" = "$me" ] && continue
    case "$mem" in *" $p:"*) continue ;; esac
    if marked "$p"; then s=${all#* $p:*:*:*:}; mem="$mem$p:${s%% *} "; fi
  done
  # and what descends from a member, each child started no earlier than its parent
  added=1
  while [ -n "$added" ]; do
    added=
    for e in $all; do
      IFS=:; set -- $e; IFS=$ifs
      case "$mem" in *" $1:"*) continue ;; esac
      case "$mem" in *" $2:"*) ;; *) continue ;; esac
      [ "$1" = "$opid" ] || [ "$1" = "$me" ] && continue
      s=${mem#* $2:}; s=${s%% *}
      [ "$5" -ge "$s" ] && { mem="$mem$1:$5 "; added=1; }
    done
  done
  found=${mem# }
}
# the members of the servers now, as "pid:start" in $left
alive() {
  left=
  if [ ! -d "$proc/self" ]; then
    # no /proc (macOS): only what kill -0 tells
    for e in $groups; do kill -0 -"${e%%:*}" 2>/dev/null && left="$left -${e%%:*}:0"; done
    for e in $pids; do kill -0 "${e%%:*}" 2>/dev/null && left="$left ${e%%:*}:0"; done
    return
  fi
  rule "$proc"/[0-9]*/stat
  left=$found
}
# whether the process that has pid $1 now is a member (its start time in $ps), by a fresh
# read of it, and of its ancestors when it alone proves nothing, by the same rule: asked
# right before each signal, since sh has no pidfd. What it read first of the process
# (parent, group, session, start) is kept in $ident, to be read again right before the
# signal: a stranger that took the pid since has another parent, group or session even
# when it was born in the same clock tick
proven() {
  pv=$1
  stat_of "$pv" && [ "$zs" != Z ] || return 1
  ident=$pp:$pg:$sd:$st
  rule "$proc/$pv/stat"
  case " $found " in
    *" $pv:"*) ;;
    *) set --; pa=$pv
       while [ "$pa" -gt 0 ] && [ $# -lt 4096 ] && stat_of "$pa" && [ "$zs" != Z ]; do
         case " $* " in *" $proc/$pa/stat "*) break ;; esac
         set -- "$@" "$proc/$pa/stat"; pa=$pp
       done
       [ $# -gt 0 ] && rule "$@" ;;
  esac
  case " $found " in *" $pv:"*) ps=" $found"; ps=${ps#* $pv:}; ps=${ps%% *}; return 0 ;; esac
  return 1
}
if [ "$mode" = members ]; then
  alive; echo $left; exit 0
fi
if [ "$mode" = proven ]; then
  for pf in "$proc"/[0-9]*/stat; do pf=${pf%/stat}; pf=${pf##*/}; proven "$pf" && printf '%s ' "$pf:$ps"; done
  echo; exit 0
fi
for r in $reapers; do
  [ -f "$r" ] && { sh "$r" "$grace" "$term"; d=${r%/*}; rm -f "$r" "$d"/mcp-stdio-*/cid; rmdir "$d"/mcp-stdio-*/ "$d"; } >/dev/null 2>&1 &
done
finish() { wait; exit 0; }
ms=0
now() {
  if [ -r /proc/uptime ]; then
    read -r u rest < /proc/uptime; ms=$(( ${u%.*} * 1000 + 1${u#*.} * 10 - 1000 ))
  fi
}
# a pid and start time prove nothing (a stranger born in the same 10 ms tick has both):
# each process is proven a member again right before its signal, and read once more after
# the proof
signal() {
  for sg in $left; do
    if [ "${sg#*:}" = 0 ]; then kill -"$1" "${sg%%:*}" 2>/dev/null
    elif proven "${sg%%:*}" && stat_of "${sg%%:*}" && [ "$pp:$pg:$sd:$st" = "$ident" ]; then
      kill -"$1" "${sg%%:*}" 2>/dev/null
    fi
  done
}
await() {
  while :; do
    alive
    # a process caught in exec shows no markers: only two empty looks in a row count
    if [ -z "$left" ]; then sleep 0.1; alive; [ -z "$left" ] && return 0; fi
    [ -n "$2" ] && signal "$2"
    now; [ "$ms" -ge "$1" ] && return 1
    sleep 0.1; [ -r /proc/uptime ] || ms=$((ms + 100))
  done
}
now; t0=$ms
await $((t0 + grace)) && finish
signal TERM
await $((t0 + grace + term)) && finish
signal KILL
await $((t0 + grace + term + 1000)) KILL
finish
