// A stdio MCP server that grows its resident memory, for the memory-cap benchmark
// (docs/benchmarks.md). Arguments: MB to allocate (default 300), step MB (10), step interval ms
// (100). From its start it allocates and fills a step every interval until the target,
// then holds it. It answers initialize, tools/list (none) and anything else with {}, and
// exits on stdin EOF, as a well-behaved server does.
'use strict';
const target = Number(process.argv[2] || 300) * 1024 * 1024;
const step = Number(process.argv[3] || 10) * 1024 * 1024;
const every = Number(process.argv[4] || 100);
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
const held = [];
let total = 0;
const timer = setInterval(() => {
  if (total < target) {
    held.push(Buffer.alloc(step, 1));
    total += step;
  }
}, every);
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
  const result = (message.method === 'initialize') ? {
    protocolVersion: (message.params || {}).protocolVersion || '2025-06-18',
    capabilities: { tools: {} },
    serverInfo: { name: 'bench-grow', version: '1.0' },
  } : (message.method === 'tools/list') ? { tools: [] } : {};
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: result }) + '\n');
});
rl.on('close', () => {
  clearInterval(timer);
  process.exit(0);
});
