# A minimal stdio MCP server for the benchmark: it starts N children that sleep
# (so that each server is a tree of N + 1 processes), then answers every request
# with an empty result, without forking, until stdin ends; then it ends its children.
n=${1:-3}
i=0
while [ "$i" -lt "$n" ]; do
  sleep 3600 < /dev/null &
  pids="$pids $!"
  i=$((i + 1))
done
while IFS= read -r line; do
  case "$line" in
    *'"id":'*)
      rest=${line#*\"id\":}
      id=${rest%%,*}
      id=${id%%\}*}
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"bench","version":"1"}}}\n' "$id"
      ;;
  esac
done
# shellcheck disable=SC2086
kill $pids 2> /dev/null
