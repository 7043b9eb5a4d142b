/**
 * An OpenAI-compatible HTTP server on 127.0.0.1 that plays scripted responses (docs/architecture.md §11):
 * `POST /v1/chat/completions` (also `/chat/completions`) answers with the next queued step, or the
 * handler's answer when the queue is empty; `GET /v1/models` lists `models`. Every chat request is
 * recorded (parsed body, raw body, headers) in `requests`.
 *
 *   const llm = await startScriptedLlm();
 *   llm.enqueue(textResponse('hi'));
 *   const client = new OpenAiCompatibleClient({ provider: 'custom', baseUrl: llm.baseUrl, model: 'm' });
 *   …
 *   await llm.close();
 *
 * With neither a queued step nor a handler, the server answers HTTP 500 with the message
 * `scripted-llm: no response scripted for request #n`.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { assertStep, compileStep, frameText, type Plan } from './compile.js';
import type { ScriptStep } from './script.js';
import { unknownFieldsValidator } from './strict-fields.js';
import { strictThinkingValidator, thinkingStep, type StrictThinkingOptions } from './strict-thinking.js';

/** One recorded chat-completions request. `body` is the parsed JSON (undefined if it did not parse). */
export interface RecordedRequest {
  /** 1-based request number. */
  readonly number: number;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary body fields
  readonly body: any;
}

/** Produces the step for a request when the queue is empty (undefined: nothing scripted → HTTP 500). */
export type ScriptHandler = (request: RecordedRequest) => ScriptStep | undefined | Promise<ScriptStep | undefined>;

/**
 * Checks a request the way a real provider would before answering: returns the error step that
 * provider sends (e.g. HTTP 400 with its error body) to reject it, or undefined to let the scripted
 * answer play. A rejected request does not take a queued step.
 */
export type RequestValidator = (request: RecordedRequest) => ScriptStep | undefined;

export interface ScriptedLlmOptions {
  /** Port to listen on (default 0 = random). */
  readonly port?: number;
  /** Steps to queue at start. */
  readonly steps?: readonly ScriptStep[];
  readonly handler?: ScriptHandler;
  /** Folder that relative replay paths resolve against (default: the process cwd). */
  readonly baseDir?: string;
  /**
   * Entries of `GET /v1/models` (default `['scripted-model']`): an id, or a whole entry object
   * (e.g. OpenRouter's `{id, context_length, top_provider}` or vLLM's `{id, max_model_len}`).
   */
  readonly models?: readonly (string | { readonly id: string; readonly [key: string]: unknown })[];
  /** Called with one line per request (the CLI prints these). */
  readonly log?: (line: string) => void;
  /** Rejects requests a real provider would reject (see test/support/provider-validators.ts). */
  readonly validator?: RequestValidator;
  /** The error message when nothing is scripted for a request (default: names the request number). */
  readonly noStepMessage?: (request: RecordedRequest) => string;
  /**
   * Strict thinking mode (strict-thinking.ts): refuse what DeepSeek's thinking mode refuses (a
   * tool-call message without `reasoning_content`, tool results out of call order or missing) with
   * its 400, before `validator`; replies without reasoning stream an empty `reasoning_content`.
   */
  readonly strictThinking?: boolean | StrictThinkingOptions;
  /**
   * Strict-fields mode (strict-fields.ts): refuse a message field outside the Chat Completions
   * schema (e.g. `reasoning_content`) with Cerebras' 400, before `validator` (after strict thinking).
   */
  readonly rejectUnknownFields?: boolean;
}

export interface ScriptedLlm {
  /** `http://127.0.0.1:PORT/v1` — pass as the client's base URL. */
  readonly baseUrl: string;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly port: number;
  /** Every chat-completions request so far, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Steps not yet played. */
  readonly pending: number;
  /** Queues steps; each request takes the first one. */
  enqueue(...steps: ScriptStep[]): void;
  /** Sets (or clears) the handler used when the queue is empty. */
  setHandler(handler: ScriptHandler | undefined): void;
  /** Sets (or clears) the request validator. */
  setValidator(validator: RequestValidator | undefined): void;
  /** Requests the validator rejected, with the step sent back. */
  readonly rejected: readonly { readonly request: RecordedRequest; readonly step: ScriptStep }[];
  /** Stops listening and destroys every open connection (stalled streams included). */
  close(): Promise<void>;
}

/** Starts a scripted server on 127.0.0.1. */
export async function startScriptedLlm(options: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  const queue: ScriptStep[] = [...(options.steps ?? [])];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const closing = new Set<() => void>();
  let handler = options.handler;
  let validator = options.validator;
  const strict = options.strictThinking ? strictThinkingValidator(options.strictThinking === true ? {} : options.strictThinking) : undefined;
  const strictFields = options.rejectUnknownFields === true ? unknownFieldsValidator() : undefined;
  const rejected: { request: RecordedRequest; step: ScriptStep }[] = [];
  let closed = false;
  const baseDir = options.baseDir ?? process.cwd();
  const log = options.log;

  const server = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      log?.(`scripted-llm: handler failed: ${String(error)}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `scripted-llm failure: ${String(error)}`, type: 'scripted_error' } }));
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data: (options.models ?? ['scripted-model']).map((m) => (typeof m === 'string' ? { id: m, object: 'model', created: 0, owned_by: 'scripted-llm' } : m)) }),
      );
      return;
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `scripted-llm: no route ${req.method} ${path}`, type: 'not_found' } }));
      return;
    }
    const rawBody = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const recorded: RecordedRequest = { number: requests.length + 1, method: req.method, path, headers: req.headers, rawBody, body };
    requests.push(recorded);
    const rejection = strict?.(recorded) ?? strictFields?.(recorded) ?? validator?.(recorded);
    if (rejection !== undefined) rejected.push({ request: recorded, step: rejection });
    const next = rejection ?? queue.shift() ?? (handler ? await handler(recorded) : undefined);
    const step = next !== undefined && strict !== undefined && rejection === undefined ? thinkingStep(next) : next;
    if (step === undefined) {
      log?.(`#${recorded.number} POST ${path} → 500 (nothing scripted)`);
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: options.noStepMessage?.(recorded) ?? `scripted-llm: no response scripted for request #${recorded.number}`, type: 'scripted_error' } }));
      return;
    }
    assertStep(step, `request #${recorded.number}`);
    const plan = compileStep(step, recorded.number, baseDir);
    log?.(`#${recorded.number} POST ${path} → ${step.type} ${plan.status}`);
    await play(plan, req, res);
  }

  async function play(plan: Plan, req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.writeHead(plan.status, plan.headers);
    res.flushHeaders();
    for (const frame of plan.frames) {
      if (closed || res.destroyed) return;
      if ('delayMs' in frame) {
        await wait(frame.delayMs, res);
        continue;
      }
      if ('stall' in frame) {
        await wait(undefined, res);
        return;
      }
      if ('destroy' in frame) {
        req.socket.destroy();
        return;
      }
      // Wait until the bytes are handed to the socket, so a following destroy cannot drop them.
      await writeFlushed(res, frameText(frame));
    }
    if (!res.destroyed) res.end();
  }

  /** Waits `ms` (or forever), ending early when the response closes or the server shuts down. */
  function wait(ms: number | undefined, res: ServerResponse): Promise<void> {
    return new Promise((resolveWait) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        res.off('close', done);
        closing.delete(done);
        resolveWait();
      };
      if (ms !== undefined) timer = setTimeout(done, ms);
      res.once('close', done);
      closing.add(done);
    });
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('scripted-llm: no TCP address');
  const origin = `http://127.0.0.1:${address.port}`;

  return {
    baseUrl: `${origin}/v1`,
    origin,
    port: address.port,
    requests,
    get pending() {
      return queue.length;
    },
    enqueue(...steps: ScriptStep[]) {
      steps.forEach((step, i) => assertStep(step, `enqueue argument ${i}`));
      queue.push(...steps);
    },
    setHandler(next: ScriptHandler | undefined) {
      handler = next;
    },
    setValidator(next: RequestValidator | undefined) {
      validator = next;
    },
    rejected,
    async close() {
      if (closed) return;
      closed = true;
      for (const done of [...closing]) done();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
    },
  };
}

/** Writes and resolves once the bytes reached the socket (or the response closed). */
function writeFlushed(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolveWrite) => {
    const done = (): void => {
      res.off('close', done);
      resolveWrite();
    };
    res.once('close', done);
    res.write(text, done);
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolveBody(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}
