# A minimal stdio MCP server for Spring AI's client in the benchmark: answers initialize,
# lists one tool ("who") and answers its calls with the user part of USER_NAME, without
# forking, until stdin ends. Notifications (no id) get no answer.
while IFS= read -r line; do
  case "$line" in
    *'"id":'*) ;;
    *) continue ;;
  esac
  rest=${line#*\"id\":}
  id=${rest%%,*}
  id=${id%%\}*}
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"who","description":"whose instance answers","inputSchema":{"type":"object","properties":{}}}]}}\n' "$id" ;;
    *'"method":"tools/call"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"pid %s"}],"isError":false}}\n' "$id" "$$" ;;
    *) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
  esac
done
