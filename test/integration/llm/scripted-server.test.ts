/**
 * The scripted server itself: routes, recording, handler, exact bytes of replays and frames, script
 * files and the `npm run scripted-llm` entry point.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, frame, framesResponse, httpError, loadScriptFile, replayFile, startScriptedLlm, stepsByConversation, textResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { collect, finishCode, finishOf, scriptedClient, userRequest } from './helpers.js';

const ROOT = join(import.meta.dirname, '../../..');

async function post(llm: ScriptedLlm, body: unknown = { model: 'm', messages: [], stream: true }): Promise<Response> {
  return fetch(`${llm.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('scripted server', () => {
  let llm: ScriptedLlm;
  beforeAll(async () => {
    llm = await startScriptedLlm({ models: ['scripted-model', 'other'] });
  });
  afterAll(async () => {
    await llm.close();
  });

  it('listens on 127.0.0.1 with a random port and answers GET /v1/models', async () => {
    expect(llm.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = (await (await fetch(`${llm.baseUrl}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(['scripted-model', 'other']);
    expect((await fetch(`${llm.origin}/nope`)).status).toBe(404);
  });

  it('replays .sse files byte for byte and frames .chunks.jsonl lines', async () => {
    for (const name of ['groq-gpt-oss-120b_error-event-mid-stream.sse', 'openai-gpt-4o_tool-call-args-split-many-chunks.sse', 'deepseek-reasoner_reasoning-then-text.sse']) {
      llm.enqueue(replayFile(fixture(name)));
      const response = await post(llm);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      expect(await response.text()).toBe(readFileSync(fixture(name), 'utf8'));
    }
    const jsonl = 'openai-gpt-4o_text-then-tool-call.chunks.jsonl';
    llm.enqueue(replayFile(fixture(jsonl)));
    const lines = readFileSync(fixture(jsonl), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(await (await post(llm)).text()).toBe(lines.map((l) => `data: ${l}\n\n`).join('') + 'data: [DONE]\n\n');
  });

  it('writes frames exactly, with keep-alives inserted', async () => {
    llm.enqueue(framesResponse([frame.data({ a: 1 }), frame.event('error', { error: { message: 'x' } }), frame.comment('ping'), frame.raw('data: {oops\n\n'), frame.done()], { keepAliveEvery: 2 }));
    expect(await (await post(llm)).text()).toBe('data: {"a":1}\n\nevent: error\ndata: {"error":{"message":"x"}}\n\n: keep-alive\n\n: ping\n\ndata: {oops\n\n: keep-alive\n\ndata: [DONE]\n\n');
  });

  it('http errors carry their status, body and Retry-After', async () => {
    llm.enqueue(httpError(429, { error: { message: 'slow' } }, { retryAfter: 3, headers: { 'x-request-id': 'custom-id' } }));
    const response = await post(llm);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(response.headers.get('x-request-id')).toBe('custom-id');
    expect(await response.json()).toEqual({ error: { message: 'slow' } });
  });

  it('records every request and falls back to the handler, then to a 500', async () => {
    const before = llm.requests.length;
    llm.setHandler((request) => textResponse(`echo: ${String(request.body.messages.at(-1).content)}`));
    const chunks = await collect(scriptedClient(llm.baseUrl, { apiKey: 'sk-x' }), userRequest('ping'));
    expect(chunks.flatMap((c) => (c.type === 'text-delta' ? [c.text] : [])).join('')).toBe('echo: ping');
    const recorded = llm.requests.at(-1)!;
    expect(recorded.number).toBe(before + 1);
    expect(recorded.headers['authorization']).toBe('Bearer sk-x');
    expect(JSON.parse(recorded.rawBody)).toEqual(recorded.body);
    llm.setHandler(undefined);
    const none = await collect(scriptedClient(llm.baseUrl), userRequest());
    expect(finishOf(none)).toMatchObject({ kind: 'error', failure: { code: 'SERVER', status: 500 } });
    expect(finishOf(none).kind === 'error' && (finishOf(none) as { failure: { message: string } }).failure.message).toContain('no response scripted');
  });

  it('close() ends stalled streams', async () => {
    const local = await startScriptedLlm({ steps: [textResponse('abcdefgh', { cut: { after: 2, then: 'stall' } })] });
    const pending = collect(scriptedClient(local.baseUrl, { idleTimeoutMs: 10_000 }), userRequest());
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await local.close();
    expect(finishCode(await pending)).toBe('TRANSPORT');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('script position per conversation', () => {
  const steps = [textResponse('zero'), textResponse('one'), textResponse('two')];
  const history = (replies: number) => [
    { role: 'user', content: 'go' },
    ...Array.from({ length: replies }, (_, i) => [
      { role: 'assistant', content: `reply ${i}` },
      { role: 'user', content: `more ${i}` },
    ]).flat(),
  ];
  const textOf = async (res: Response) =>
    (await res.text())
      .match(/"content":"([a-z]+)"/g)
      ?.map((m) => m.slice(11, -1))
      .join('');

  it('answers each request with the step after the replies it already holds, in any order', async () => {
    const llm = await startScriptedLlm({ handler: stepsByConversation(steps, false), noStepMessage: () => 'script ended' });
    try {
      // Two sessions interleaved, a resume (2 replies so far) and a fork cut after reply 1.
      expect(await textOf(await post(llm, { model: 'm', stream: true, messages: history(0) }))).toBe('zero');
      expect(await textOf(await post(llm, { model: 'm', stream: true, messages: history(2) }))).toBe('two');
      expect(await textOf(await post(llm, { model: 'm', stream: true, messages: history(0) }))).toBe('zero');
      expect(await textOf(await post(llm, { model: 'm', stream: true, messages: history(1) }))).toBe('one');
      const past = await post(llm, { model: 'm', stream: true, messages: history(3) });
      expect(past.status).toBe(500);
      expect(await past.text()).toContain('script ended');
    } finally {
      await llm.close();
    }
  });

  it('with --loop starts over past the end', async () => {
    const llm = await startScriptedLlm({ handler: stepsByConversation(steps, true) });
    try {
      expect(await textOf(await post(llm, { model: 'm', stream: true, messages: history(4) }))).toBe('one');
    } finally {
      await llm.close();
    }
  });
});

describe('script files and the command line', () => {
  it('loads the example script and rejects malformed ones', () => {
    const steps = loadScriptFile(join(ROOT, 'examples/fix-sum.script.json'));
    expect(steps.map((s) => s.type)).toEqual(['reply', 'reply', 'reply', 'reply', 'reply', 'reply']);
    const dir = mkdtempSync(join(tmpdir(), 'scripted-llm-'));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ steps: [{ type: 'reply' }, { type: 'nope' }] }));
    expect(() => loadScriptFile(join(dir, 'bad.json'))).toThrow(/step 2: .*reply \| frames \| http-error \| replay/);
    writeFileSync(join(dir, 'array.json'), JSON.stringify([{ type: 'http-error', status: 500 }]));
    expect(loadScriptFile(join(dir, 'array.json'))).toEqual([{ type: 'http-error', status: 500 }]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('`node scripts/scripted-llm.js --script FILE` prints the base URL and serves the script', async () => {
    const child = spawn(process.execPath, ['scripts/scripted-llm.js', '--script', 'examples/fix-sum.script.json', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const firstLine = await new Promise<string>((resolveLine, reject) => {
        const timer = setTimeout(() => reject(new Error('no base URL within 15 s')), 15_000);
        createInterface({ input: child.stdout }).once('line', (line) => {
          clearTimeout(timer);
          resolveLine(line);
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
      });
      expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const chunks = await collect(scriptedClient(firstLine), userRequest('fix the test'));
      expect(finishOf(chunks)).toEqual({ kind: 'tool-calls' });
      const call = chunks.find((c) => c.type === 'block-end' && c.block.type === 'tool-call');
      expect(call?.type === 'block-end' && call.block).toEqual({ type: 'tool-call', id: 'call_01_read_sum', name: 'read_file', arguments: '{"path":"sum.js"}' });
    } finally {
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 20_000);
});
