/**
 * Browser mode (docs/architecture.md §9): serves the built renderer over HTTP and the HostApi over a WebSocket
 * on `/host`, bound to 127.0.0.1 only. The WebSocket requires the random per-run token from the
 * URL and an Origin of this server; anything else is refused before the upgrade. `GET /host/auth`
 * tells a page whether its token is accepted (so it can say so instead of reconnecting forever).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HostPush, RpcPushMessage, RpcRequest } from '../../../shared/api.js';
import type { IDisposable } from '../../../shared/lifecycle.js';
import { dispatch, type HostHandlers } from '../dispatch.js';
import { packSeqRuns } from '../../../shared/wire-seq-runs.js';

/** One client connection's view of the host (subscriptions and terminals are per connection). */
export interface HostConnectionFactory {
  connect(push: (message: HostPush) => void): HostHandlers & IDisposable;
}

export interface BrowserServerOptions {
  readonly host: HostConnectionFactory;
  /** Folder with the built renderer (index.html + assets). */
  readonly staticDir: string;
  /** 0 or undefined: a random free port. */
  readonly port?: number;
  /** Defaults to 32 random bytes, hex. */
  readonly token?: string;
}

export interface BrowserServer {
  /** The URL to open, token included. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self' ws://127.0.0.1:* ws://localhost:*; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Starts browser mode. Resolves when listening. */
export async function startBrowserServer(options: BrowserServerOptions): Promise<BrowserServer> {
  const token = options.token ?? randomBytes(32).toString('hex');
  const root = resolve(options.staticDir);
  const server: Server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname === '/host/auth') return answerAuth(req, res, token);
    serveStatic(root, req, res);
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 * 1024 });
  let port = 0;

  server.on('upgrade', (req, socket, head) => {
    const refusal = checkUpgrade(req, token, port);
    if (refusal) {
      socket.write(`HTTP/1.1 ${refusal}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, options.host));
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen());
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/?token=${token}`;
  return {
    url,
    port,
    token,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function tokenMatches(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `GET /host/auth?token=…`: 204 when the token is this run's, 401 otherwise. Lets a page tell "my
 * link's token is wrong (e.g. the server restarted)" from "the server is down" — a browser cannot
 * read the status of a refused WebSocket upgrade. Answers nothing else.
 */
function answerAuth(req: IncomingMessage, res: ServerResponse, token: string): void {
  const given = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('token') ?? '';
  res.writeHead(req.method === 'GET' && tokenMatches(given, token) ? 204 : 401, { 'Cache-Control': 'no-store', 'Content-Length': '0' }).end();
}

/** Returns an HTTP status line for a refused upgrade, or undefined when it is allowed. */
function checkUpgrade(req: IncomingMessage, token: string, port: number): string | undefined {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname !== '/host') return '404 Not Found';
  if (!tokenMatches(url.searchParams.get('token') ?? '', token)) return '401 Unauthorized';
  const origin = req.headers.origin;
  const allowed = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  if (origin === undefined || !allowed.includes(origin)) return '403 Forbidden';
  return undefined;
}

function onConnection(ws: WebSocket, factory: HostConnectionFactory): void {
  const send = (payload: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(payload));
  };
  // Long runs of cited seqs travel packed (shared/wire-seq-runs.ts); the page expands them.
  const connection = factory.connect((push) => send({ push: packSeqRuns(push) } satisfies RpcPushMessage));
  ws.on('message', (raw) => {
    let request: RpcRequest;
    try {
      request = JSON.parse(raw.toString()) as RpcRequest;
      if (typeof request !== 'object' || request === null || typeof request.id !== 'number') throw new Error('not an RPC request');
    } catch {
      send({ id: -1, ok: false, error: { name: 'HostError', code: 'BAD_MESSAGE', message: 'malformed RPC message' } });
      return;
    }
    void dispatch(connection, request).then(send);
  });
  ws.on('close', () => connection.dispose());
  ws.on('error', () => connection.dispose());
}

function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405).end();
    return;
  }
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    res.writeHead(400).end();
    return;
  }
  const relative = normalize(pathname === '/' ? '/index.html' : pathname).replace(/^([/\\])+/, '');
  const file = join(root, relative);
  if (file !== root && !file.startsWith(root + sep)) {
    res.writeHead(403).end();
    return;
  }
  if (!existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, {
    'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(file).pipe(res);
}
