// A small, fast stdio server for the transport benchmark (docs/benchmarks.md), the same for
// both transports. Modes:
//   mcp         an MCP server with one tool, "echo", answering {"text": t} with t; exits on stdin EOF
//   ignore-eof  the same, but keeps running after stdin EOF (until a signal)
//   raw         no MCP: echoes every newline-delimited line as it is (the pipe floor)
'use strict';
const mode = process.argv[2] || 'mcp';
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });

function reply(id, result) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: id, result: result }) + '\n');
}

if (mode === 'raw') {
  rl.on('line', (line) => process.stdout.write(line + '\n'));
} else {
  rl.on('line', (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch (e) {
      return;
    }
    if (message.id === undefined || message.method === undefined) {
      return;
    }
    const params = message.params || {};
    switch (message.method) {
      case 'initialize':
        reply(message.id, {
          protocolVersion: params.protocolVersion || '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'bench-echo', version: '1.0' },
        });
        break;
      case 'tools/list':
        reply(message.id, {
          tools: [{
            name: 'echo',
            description: 'Echoes its text',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
          }],
        });
        break;
      case 'tools/call': {
        const text = String((params.arguments || {}).text || '');
        reply(message.id, { content: [{ type: 'text', text: text }], isError: false });
        break;
      }
      default:
        reply(message.id, {});
    }
  });
}
if (mode === 'ignore-eof') {
  // stdin EOF does not end this one: only a signal does
  setInterval(() => {}, 1 << 30);
}
// stdin EOF: nothing left to keep the event loop alive, so node exits (0) once its writes are flushed
