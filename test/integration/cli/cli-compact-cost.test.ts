/**
 * Issue 22: a manual compaction (`forkline compact`, the app's "Compact what the model sees") is
 * priced and budget-checked like a step's request, through the real CLI (a child process), the
 * real `openai` client against the scripted server and a real SQLite data folder.
 *
 * - Its summary request logs a `request/price` of its own (naming its compaction, turn and step 0,
 *   inside the compaction bracket), and its usage, so the session's cost counts it at that price.
 * - A summary request that could cross `--budget`, `--turn-budget` or `--max-tokens-total` is not
 *   sent: the server receives nothing, `compaction/end` carries the budget facts, exit 1 [BUDGET].
 *
 * Figures by hand (cli.json: $2 per million uncached input, $0.50 cache read, $8 output):
 * - turn 1 reports prompt 1,000 (400 cached), 50 output: 600 × 2 + 400 × 0.5 + 50 × 8 = 1,200 + 200 + 400 = 1,800 µ$;
 * - turn 2 reports prompt 1,500 (1,000 cached), 20 output: 500 × 2 + 1,000 × 0.5 + 20 × 8 = 1,000 + 500 + 160 = 1,660 µ$;
 * - the summary reports prompt 3,000 (1,000 cached), 200 output: 2,000 × 2 + 1,000 × 0.5 + 200 × 8 = 4,000 + 500 + 1,600 = 6,100 µ$;
 * - the session: 9,560 µ$ = $0.009560 (before the compaction: $0.003460).
 * The summary request's worst case is its estimated input plus its output cap of 8,192 tokens:
 * at least 8,192 × 8 = 65,536 µ$ ($0.0655), so a session budget of $0.05 cannot hold it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { forkline as forklineRun, type ForklineRun } from '../../support/cli-process.js';
import { startScriptedLlm, textResponse, usage, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let dataDir: string;
let work: string;

const TURN1_USD = (600 * 2 + 400 * 0.5 + 50 * 8) / 1e6;
const TURN2_USD = (500 * 2 + 1_000 * 0.5 + 20 * 8) / 1e6;
const SUMMARY_USD = (2_000 * 2 + 1_000 * 0.5 + 200 * 8) / 1e6;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dataDir = mkdtempSync(join(tmpdir(), 'forkline-compact-cost-'));
  work = mkdtempSync(join(tmpdir(), 'forkline-compact-work-'));
  writeFileSync(join(dataDir, 'cli.json'), JSON.stringify({ approvalPolicy: 'allow', prices: [{ baseUrl: llm.baseUrl, model: 'scripted-model', inputMtok: 2, cacheReadMtok: 0.5, outputMtok: 8 }] }));
});
afterAll(async () => {
  await llm.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

const forkline = (args: string[]): Promise<ForklineRun> => forklineRun(args, { dataDir, env: { FORKLINE_CHECKPOINTS: 'off' } });
const sessionIdOf = (stdout: string) => /session ([0-9a-f-]{36})\s*$/.exec(stdout)![1]!;
const summaryRequests = () => llm.requests.filter((r) => JSON.stringify(r.body).includes('compaction engine'));

/** The stored log, read straight from the SQLite file. */
function storedLog(id: string): SessionEvent[] {
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  try {
    return [...store.readAll(id)];
  } finally {
    store.close();
  }
}

describe('forkline compact: priced and budget-checked like a step', () => {
  it('refuses a summary request that could cross a budget (nothing sent); then compacts, and the session cost counts it at its own logged price', async () => {
    llm.enqueue(textResponse('noted', { usage: usage(1_000, 50, { cached: 400 }) }));
    const run = await forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', `Keep these notes: ${'a note worth keeping. '.repeat(250)}`]);
    expect(run.code).toBe(0);
    const id = sessionIdOf(run.stdout);
    llm.enqueue(textResponse('ok', { usage: usage(1_500, 20, { cached: 1_000 }) }));
    expect((await forkline(['resume', id, 'and one more thing'])).code).toBe(0);
    const before = JSON.parse((await forkline(['show', id, '--json'])).stdout) as { cost: { usd: number } };
    expect(Math.abs(before.cost.usd - (TURN1_USD + TURN2_USD))).toBeLessThan(1e-6);

    // A session budget: $0.003460 spent + a worst case above $0.0655 > $0.05.
    const requestsBefore = llm.requests.length;
    const refused = await forkline(['compact', id, '--budget', '0.05']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^forkline: the compaction's summary request could cost up to \$0\.0\d+ and the session has spent \$0\.003460 of its \$0\.0500 budget, so it was not sent; compact again with a higher --budget \[BUDGET\]\n$/,
    );
    // A per-turn budget bounds a manual compaction alone; a token budget counts tokens.
    const perTurn = await forkline(['compact', id, '--turn-budget', '0.01']);
    expect(perTurn.code).toBe(1);
    expect(perTurn.stderr).toMatch(
      /the compaction's summary request could cost up to \$0\.0\d+ and the per-turn budget is \$0\.0100, so it was not sent; compact again with a higher --turn-budget \[BUDGET\]/,
    );
    const tokens = await forkline(['compact', id, '--max-tokens-total', '5000']);
    expect(tokens.code).toBe(1);
    expect(tokens.stderr).toMatch(
      /could cost up to \d+ tokens and the session has spent 2570 tokens of its 5000 tokens budget, so it was not sent; compact again with a higher --max-tokens-total \[BUDGET\]/,
    );
    // The server received nothing.
    expect(llm.requests.length).toBe(requestsBefore);

    const refusedLog = storedLog(id);
    const ends = refusedLog.filter((e): e is SessionEvent<'compaction/end'> => e.type === 'compaction/end');
    expect(ends.map((e) => [e.data.turn, e.data.budget?.limit, e.data.budget?.scope])).toEqual([
      [null, 'usd', 'session'],
      [null, 'usd', 'turn'],
      [null, 'tokens', 'session'],
    ]);
    expect(ends[0]!.data.budget).toMatchObject({ budget: 0.05, spent: expect.closeTo(TURN1_USD + TURN2_USD, 9) });
    expect(ends[0]!.data.budget!.worstCase!).toBeGreaterThan(0.065536);
    expect(refusedLog.some((e) => e.type === 'compaction/summary')).toBe(false);

    // A budget that holds it: the summary request is sent once, and priced at its own logged price.
    llm.enqueue(textResponse('## Primary Request and Intent\n- keep the notes\n', { usage: usage(3_000, 200, { cached: 1_000 }) }));
    const compacted = await forkline(['compact', id, '--budget', '1']);
    expect(compacted.stderr).toBe('');
    expect(compacted.code).toBe(0);
    expect(compacted.stdout).toContain('into a summary · cost $0.006100');
    expect(compacted.stdout).toContain('session cost $0.009560');
    expect(llm.requests.length - requestsBefore).toBe(1);
    expect(summaryRequests()).toHaveLength(1);

    const log = storedLog(id);
    const start = log.findLast((e): e is SessionEvent<'compaction/start'> => e.type === 'compaction/start')!;
    const price = log.find((e): e is SessionEvent<'request/price'> => e.type === 'request/price' && e.seq > start.seq)!;
    const summary = log.find((e): e is SessionEvent<'compaction/summary'> => e.type === 'compaction/summary')!;
    // Logged inside the bracket, before the request, with what was sent: its output cap is the request's max tokens.
    expect(price.data).toMatchObject({ turn: 0, step: 0, compactionId: start.data.compactionId, model: 'scripted-model', baseUrl: llm.baseUrl, outputCap: start.data.maxTokens });
    expect(price.seq).toBeLessThan(summary.seq);
    expect(summaryRequests()[0]!.body['max_tokens'] ?? summaryRequests()[0]!.body['max_completion_tokens']).toBe(start.data.maxTokens);
    expect(summary.data.usage).toEqual({ inputTokens: 2_000, cacheReadTokens: 1_000, outputTokens: 200 });

    // `show`'s compaction line carries its tokens and cost like a step's line (2,000 + 1,000 cached in, 200 out: 6,100 µ$).
    const shownText = await forkline(['show', id]);
    expect(shownText.stdout).toContain(`[compacted ${summary.data.shadowedSeqs.length} messages · tokens: input 3000 (1000 cached) · output 200 · $0.006100]`);

    // The session's cost, to 1e-6 USD, wherever it is shown.
    const show = JSON.parse((await forkline(['show', id, '--json'])).stdout) as {
      cost: { usd: number; unpricedResponses: number; inputTokens: number; cachedInputTokens: number; outputTokens: number };
    };
    expect(Math.abs(show.cost.usd - (TURN1_USD + TURN2_USD + SUMMARY_USD))).toBeLessThan(1e-6);
    expect(show.cost).toMatchObject({ unpricedResponses: 0, inputTokens: 1_000 + 1_500 + 3_000, cachedInputTokens: 400 + 1_000 + 1_000, outputTokens: 50 + 20 + 200 });
    const ls = JSON.parse((await forkline(['ls', '--json'])).stdout) as { id: string; cost: { usd: number } }[];
    expect(Math.abs(ls.find((s) => s.id === id)!.cost.usd - 0.00956)).toBeLessThan(1e-6);
    // Re-priced from the recorded counts (the summary included, the refused requests billed nothing):
    // gpt-4o-mini at $0.15 / $0.075 cached / $0.60 per million: 90 + 30 + 30 = 150; 75 + 75 + 12 = 162;
    // summary 300 + 75 + 120 = 495 µ$; 807 µ$ in all.
    const priced = JSON.parse((await forkline(['price', id, '--as', 'openai:gpt-4o-mini', '--json'])).stdout) as { recorded: { usd: number }; as: { model: string; usd: number }[] };
    expect(Math.abs(priced.recorded.usd - 0.00956)).toBeLessThan(1e-6);
    expect(priced.as[0]!.model).toBe('openai:gpt-4o-mini');
    expect(Math.abs(priced.as[0]!.usd - 0.000807)).toBeLessThan(1e-6);
  }, 120_000);
});
