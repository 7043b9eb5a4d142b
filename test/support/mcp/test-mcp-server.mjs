#!/usr/bin/env node
// A small MCP server for tests, written with the official TypeScript SDK (plain ESM so `node` runs
// it directly, as a user's server would run):
//   add{a, b}       → the sum as text
//   note{text}      → appends the text to $MCP_NOTE_FILE (a side effect tests can look for)
//   slow{}          → writes this process's pid to $MCP_MARK_FILE, then never answers
//   garbage{}       → writes a line that is not JSON-RPC to stdout (stdio only), then never answers
//   fail{}          → a result with isError: true
// stdio by default; `--http` serves streamable HTTP on 127.0.0.1 (a random port) and prints
// `listening <url>` on stdout. `--tools a,b` registers only those tools. `--stubborn` keeps the
// process alive after its stdin closes (as a badly written server does), until a signal ends it.
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const http = process.argv.includes('--http');
const toolsArg = process.argv.indexOf('--tools');
const only = toolsArg > 0 ? new Set(process.argv[toolsArg + 1].split(',')) : undefined;
const never = () => new Promise(() => {});
if (process.argv.includes('--stubborn')) setInterval(() => {}, 1 << 30);

function build() {
  const server = new McpServer({ name: 'forkline-test-server', version: '1.0.0' });
  const tool = (name, config, handler) => {
    if (!only || only.has(name)) server.registerTool(name, config, handler);
  };
  tool('add', { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  tool('note', { description: 'Appends a note to the notes file.', inputSchema: { text: z.string() } }, async ({ text }) => {
    appendFileSync(process.env.MCP_NOTE_FILE, `${text}\n`);
    return { content: [{ type: 'text', text: `noted: ${text}` }] };
  });
  tool('slow', { description: 'Takes forever.', inputSchema: {} }, async () => {
    writeFileSync(process.env.MCP_MARK_FILE, String(process.pid));
    return never();
  });
  tool('garbage', { description: 'Breaks the protocol.', inputSchema: {} }, async () => {
    process.stdout.write('this is not JSON-RPC\n');
    return never();
  });
  tool('fail', { description: 'Always fails.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }));
  return server;
}

if (!http) {
  await build().connect(new StdioServerTransport());
} else {
  const transports = new Map();
  const httpServer = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => transports.set(id, transport) });
      await build().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  httpServer.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening http://127.0.0.1:${httpServer.address().port}/mcp\n`);
  });
}
