/**
 * Prices, budgets and re-pricing through the real CLI (issue 22): the bundled CLI as a child
 * process, the real `openai` client against the scripted server, a real SQLite data folder.
 * Figures are computed by hand from the prices in cli.json (USD per million tokens).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedLlm, textResponse, toolCallResponse, usage, type ScriptedLlm } from '../../support/scripted-llm/index.js';
import { forkline as forklineRun, type ForklineRun } from '../../support/cli-process.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import type { SessionEvent } from '../../../shared/events.js';
import { formatUsd } from '../../../shared/pricing.js';

const ROOT = join(import.meta.dirname, '../../..');
let llm: ScriptedLlm;
const dirs: string[] = [];

beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A data folder whose cli.json prices the scripted endpoint's model. */
function dataDirWith(prices: unknown): string {
  const dir = tempDir('forkline-cost-');
  writeFileSync(join(dir, 'cli.json'), JSON.stringify({ approvalPolicy: 'allow', prices }));
  return dir;
}

/** The CLI through the shared spawn helper (test/support/cli-process.ts). */
const forkline = (dataDir: string, args: string[]): Promise<ForklineRun> => forklineRun(args, { dataDir, env: { FORKLINE_CHECKPOINTS: 'off' } });

/** The stored log, read straight from the SQLite file. */
function storedLog(dataDir: string, id: string): SessionEvent[] {
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  try {
    return [...store.readAll(id)];
  } finally {
    store.close();
  }
}

const sessionIdOf = (stdout: string) => /session ([0-9a-f-]{36})\s*$/.exec(stdout)![1]!;
const listDir = (id: string) => toolCallResponse([{ id, name: 'list_dir', arguments: '{"path":"."}' }]);

describe('budgets through the CLI', () => {
  it('stops before the request that could cross --budget (reason budget, exit 1); resume --budget higher goes on', async () => {
    // Output is dear (1000 $/Mtok): with --max-output 1000 each request's worst case is $1 plus its
    // input (~$0.01 at 1 $/Mtok); each response bills 100 in + 400 out = $0.0001 + $0.4 = $0.4001.
    const dataDir = dataDirWith([{ baseUrl: llm.baseUrl, model: 'scripted-model', inputMtok: 1, outputMtok: 1000 }]);
    const work = tempDir('forkline-cost-work-');
    writeFileSync(join(work, 'a.txt'), 'a\n');
    // Only two replies are scripted: a third request would get HTTP 500 and end the turn with an error.
    llm.enqueue({ ...listDir('c1'), usage: usage(100, 400) }, { ...listDir('c2'), usage: usage(100, 400) });
    const before = llm.requests.length;
    // Request 1: 0 + ~1.01 ≤ 1.5 sent; request 2: 0.4001 + ~1.01 ≤ 1.5 sent; request 3: 0.8002 + ~1.01 > 1.5 not sent.
    const run = await forkline(dataDir, ['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', '--max-output', '1000', '--budget', '1.5', 'list the files']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(
      /━━ Turn 1 ended: budget: the next request could cost up to \$1\.\d+ and the session has spent \$0\.8002 of its \$1\.50 budget, so it was not sent; resume with a higher --budget to go on/,
    );
    expect(run.code).toBe(1);
    expect(llm.requests.length - before).toBe(2);
    expect(run.stdout).toContain('[tokens: input 100 · output 400 · $0.4001]');
    const id = sessionIdOf(run.stdout);

    const show = JSON.parse((await forkline(dataDir, ['show', id, '--json'])).stdout) as { cost: { usd: number; outputTokens: number } };
    expect(show.cost.usd).toBeCloseTo(0.8002, 6);

    llm.enqueue(textResponse('two files', { usage: usage(120, 10) }));
    const resumed = await forkline(dataDir, ['resume', id, '--max-output', '1000', '--budget', '5', 'go on']);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(llm.requests.length - before).toBe(3);
    // 120 × 1 + 10 × 1000 = 10,120 µ$
    expect(resumed.stdout).toContain('[tokens: input 120 · output 10 · $0.0101]');
    expect(resumed.stdout).toContain('━━ Turn 2 ended: completed · cost $0.0101');
  });

  it('an unknown price: a USD budget refuses to guess; --max-tokens-total does the same job', async () => {
    const dataDir = dataDirWith([]);
    const work = tempDir('forkline-cost-work-');
    const before = llm.requests.length;
    const refused = await forkline(dataDir, ['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', '--max-output', '100', '--budget', '1', 'hello']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/Turn 1 ended: budget: the price of scripted-model is unknown .*use a token budget \(--max-tokens-total\)/);
    expect(llm.requests.length).toBe(before);

    llm.enqueue({ ...listDir('t1'), usage: usage(3000, 50) });
    const tokens = await forkline(dataDir, ['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', '--max-output', '100', '--max-tokens-total', '4000', 'list']);
    // Request 1: ~estimate + 100 ≤ 4000 sent; it billed 3050; request 2: 3050 + estimate + 100 > 4000 not sent.
    expect(tokens.code).toBe(1);
    expect(tokens.stdout).toMatch(/Turn 1 ended: budget: .*the session has spent 3050 tokens of its 4000 tokens budget/);
    expect(tokens.stdout).toContain('[tokens: input 3000 · output 50 · price unknown]');
    expect(llm.requests.length - before).toBe(1);
  });

  it('a provider that returns no usage: the step says "usage not reported" and counts at its worst case', async () => {
    const dataDir = dataDirWith([{ baseUrl: llm.baseUrl, model: 'scripted-model', inputMtok: 1, outputMtok: 10 }]);
    const work = tempDir('forkline-cost-work-');
    // No usage in the reply (the scripted server sends none unless told).
    llm.enqueue(textResponse('done'));
    const run = await forkline(dataDir, ['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', '--max-output', '100', 'hello']);
    expect(run.code).toBe(0);
    const id = sessionIdOf(run.stdout);
    const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
    const price = store.readAll(id).find((e): e is SessionEvent<'request/price'> => e.type === 'request/price')!.data;
    store.close();
    // The worst case: its estimated input at $1 per million plus its output cap (100) at $10 per million.
    expect(price.worstCaseUsd).toBeCloseTo((price.estimatedInputTokens * 1 + 100 * 10) / 1e6, 12);
    expect(run.stdout).toContain(`[usage not reported · counted at its worst case ${formatUsd(price.worstCaseUsd)}]`);
    const show = JSON.parse((await forkline(dataDir, ['show', id, '--json'])).stdout) as { cost: { usd: number; usageNotReported: number } };
    expect(show.cost.usageNotReported).toBe(1);
    expect(Math.abs(show.cost.usd - price.worstCaseUsd!)).toBeLessThan(1e-9);
  });

  it('bad input names the field (exit 2)', async () => {
    const dataDir = dataDirWith([]);
    const zero = await forkline(dataDir, ['run', '--cwd', ROOT, '--base-url', llm.baseUrl, '--budget', '0', 'x']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--budget must be an amount in USD above 0 (got 0)');
    const words = await forkline(dataDir, ['run', '--cwd', ROOT, '--base-url', llm.baseUrl, '--turn-budget', 'lots', 'x']);
    expect(words.code).toBe(2);
    expect(words.stderr).toContain('--turn-budget must be an amount in USD above 0 (got lots)');
    const badPrice = dataDirWith([{ model: 'm', inputMtok: -0.5, outputMtok: 1 }]);
    const negative = await forkline(badPrice, ['run', '--cwd', ROOT, '--base-url', llm.baseUrl, 'x']);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain(`${join(badPrice, 'cli.json')} prices[0].inputMtok: must not be negative (got -0.5)`);
  });
});

describe('forkline price', () => {
  it('a recorded multi-step session with compaction, and what it would have cost on other models', async () => {
    // cli.json price: 2 $/Mtok input, 0.5 cache read, 8 output.
    const dataDir = dataDirWith([{ baseUrl: llm.baseUrl, model: 'scripted-model', inputMtok: 2, cacheReadMtok: 0.5, outputMtok: 8 }]);
    const work = tempDir('forkline-cost-work-');
    writeFileSync(join(work, 'a.txt'), 'a\n');
    llm.enqueue({ ...listDir('p1'), usage: usage(500, 20, { cached: 300 }) }, textResponse('one file', { usage: usage(700, 30, { cached: 500 }) }));
    const task = `list the files. ${'Some context that makes this prompt long enough to be worth summarising. '.repeat(20)}`;
    const run = await forkline(dataDir, ['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', task]);
    expect(run.code).toBe(0);
    const id = sessionIdOf(run.stdout);
    // Turn 2 on a 900-token window: the last response's 730 tokens pass 80 %, so the history is
    // compacted first (a summary request), then the step's request.
    llm.enqueue(textResponse('Summary: listed the files.', { usage: usage(400, 50) }), textResponse('ok', { usage: usage(300, 10, { cached: 100 }) }));
    const resumed = await forkline(dataDir, ['resume', id, '--context-window', '900', 'and now?']);
    expect(resumed.code).toBe(0);
    const show = await forkline(dataDir, ['show', id]);
    // The automatic compaction's line carries its tokens and cost like a step's (400 × 2 + 50 × 8 = 1,200 µ$),
    // and turn 2's cost counts it: 1,200 + step 2.1's 530 = 1,730 µ$.
    const log = storedLog(dataDir, id);
    const shadowed = log.find((e): e is SessionEvent<'compaction/summary'> => e.type === 'compaction/summary')!.data.shadowedSeqs.length;
    expect(show.stdout).toContain(`[compacted ${shadowed} messages · tokens: input 400 · output 50 · $0.001200]`);
    expect(show.stdout).toMatch(/━━ Turn 2 ended: completed · cost \$0\.001730/);

    const priced = await forkline(dataDir, ['price', id, '--as', 'openai:gpt-5,openai:gpt-4o-mini', '--json']);
    expect(priced.stderr).toBe('');
    const doc = JSON.parse(priced.stdout) as { recorded: { usd: number; inputTokens: number; cachedInputTokens: number; outputTokens: number }; as: { model: string; usd: number }[] };
    // Recorded (uncached × 2 + cached × 0.5 + out × 8, µ$): step 1.1 200/300/20 → 710; step 1.2
    // 200/500/30 → 890; summary 400/0/50 → 1200; step 2.1 200/100/10 → 530. Total 3330.
    expect(doc.recorded.usd).toBeCloseTo(0.00333, 6);
    expect(doc.recorded).toMatchObject({ inputTokens: 1900, cachedInputTokens: 900, outputTokens: 110 });
    // gpt-5 (1.25 / 0.125 / 10): 487.5 + 612.5 + 1000 + 362.5 = 2462.5 µ$
    expect(doc.as[0]).toMatchObject({ model: 'openai:gpt-5' });
    expect(doc.as[0]!.usd).toBeCloseTo(0.0024625, 6);
    // gpt-4o-mini (0.15 / 0.075 / 0.6): 64.5 + 85.5 + 90 + 43.5 = 283.5 µ$
    expect(doc.as[1]!.usd).toBeCloseTo(0.0002835, 6);

    const text = await forkline(dataDir, ['price', id, '--as', 'openai:gpt-5']);
    expect(text.stdout).toContain('recorded: $0.003330 over 4 responses');
    expect(text.stdout).toContain('as openai:gpt-5: $0.00246'); // 0.0024625 at six decimals

    const ls = JSON.parse((await forkline(dataDir, ['ls', '--json'])).stdout) as { id: string; cost: { usd: number } }[];
    expect(ls.find((s) => s.id === id)!.cost.usd).toBeCloseTo(0.00333, 6);

    // A fork after turn 1: compared with it, the parent's own part is turn 2 (summary 1200 + step 530 µ$).
    const shown = JSON.parse((await forkline(dataDir, ['show', id, '--json'])).stdout) as { rows: { kind: string; seq: number }[] };
    const turn1End = shown.rows.find((r) => r.kind === 'turn-end')!.seq;
    const child = (await forkline(dataDir, ['fork', id, '--at', String(turn1End)])).stdout.trim();
    // compare --json ranks the branches (as fanout does); each carries the cost of its own part since
    // the history they share: the child's nothing yet, the parent's turn 2 (its turn 1 is common history),
    // as the two-way compare below says.
    const compared = JSON.parse((await forkline(dataDir, ['compare', id, child, '--json'])).stdout) as { branches: { session: string; costUsd?: number }[] };
    expect(compared.branches.find((b) => b.session === id)!.costUsd).toBeCloseTo(0.00173, 6);
    expect(compared.branches.find((b) => b.session === child)!.costUsd).toBe(0);
    // The two-way text compare counts from the common history: the parent's part is turn 2 only.
    expect((await forkline(dataDir, ['compare', id, child])).stdout).toContain('$0.00173');

    const unknown = await forkline(dataDir, ['price', id, '--as', 'openai:no-such-model']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--as openai:no-such-model: no price known');
  });
});
